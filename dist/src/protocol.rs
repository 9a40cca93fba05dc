//! What workers and servers say to each other (on `Link::data`), and where a key lives.
//!
//! A request is one message whose tag is its kind and whose bytes are [`Header`]s, one
//! per slice it is about: a push or a pull of several keys (a bucket of small arrays)
//! sends each server one request for all its slices of one dtype. An `INIT` or a `PUSH` is
//! followed by its values (tag `PAYLOAD`) from the same rank, which MPI delivers in the
//! order sent: the slices' elements one after the other, or for a push compressed with
//! MXNet's 2-bit rule (the headers' `threshold`), their packed words as bits. A `PULL`
//! and an `OPTIMIZER` are answered by the server (tag `REPLY`): the slices' values, or an
//! empty message for an accepted optimizer and the error otherwise. A worker ends with
//! `DONE`, after its last request.
//!
//! A key lives on one server, `(key · 9973) mod servers` as MXNet places int keys (string
//! keys by their FNV-1a hash), unless it has at least `MXNET_KVSTORE_BIGARRAY_BOUND`
//! elements (MXNet's variable, default 1,000,000): then each server holds an equal
//! slice of it, and a push or pull sends each slice to its server.

use crate::control::Link;
use crate::fault::Fault;
use kiln_kvstore::Key;
use kiln_ops::DType;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::Communicator;
use std::ops::Range;

pub const INIT: i32 = 1;
pub const PUSH: i32 = 2;
pub const PULL: i32 = 3;
pub const OPTIMIZER: i32 = 4;
pub const DONE: i32 = 5;
pub const PAYLOAD: i32 = 6;
pub const REPLY: i32 = 7;

/// MXNet's default of `MXNET_KVSTORE_BIGARRAY_BOUND`.
const BIGARRAY_BOUND: usize = 1_000_000;

/// The size from which an array is sliced across the servers.
pub fn bigarray_bound() -> Result<usize, Fault> {
    const VAR: &str = "MXNET_KVSTORE_BIGARRAY_BOUND";
    let bad = |value: String, why: String| Fault::Setting {
        var: VAR,
        value,
        why,
    };
    match std::env::var(VAR) {
        Err(std::env::VarError::NotPresent) => Ok(BIGARRAY_BOUND),
        Err(e) => Err(bad(String::new(), e.to_string())),
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(bound) if bound > 0 => Ok(bound),
            Ok(_) => Err(bad(v, "not a positive number of elements".into())),
            Err(e) => Err(bad(v, e.to_string())),
        },
    }
}

/// Reads little-endian fields of a request's bytes; any read past the end is the request
/// being malformed.
struct Fields<'a> {
    bytes: &'a [u8],
    what: &'static str,
}

impl<'a> Fields<'a> {
    fn bad(&self) -> Fault {
        Fault::Malformed {
            what: self.what,
            bytes: self.bytes.len(),
        }
    }

    fn take<const N: usize>(&self, at: usize) -> Result<[u8; N], Fault> {
        (self.bytes.get(at..at + N))
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| self.bad())
    }

    fn rest(&self, at: usize) -> Result<&'a [u8], Fault> {
        self.bytes.get(at..).ok_or_else(|| self.bad())
    }

    fn text(&self, at: usize) -> Result<String, Fault> {
        String::from_utf8(self.rest(at)?.to_vec()).map_err(|_| self.bad())
    }
}

/// Which server (by index among the servers) holds which elements of an array of `len`
/// elements stored under `key`.
pub fn slices(key: &Key, len: usize, servers: usize, bound: usize) -> Vec<(usize, Range<usize>)> {
    if len >= bound && servers > 1 {
        return (0..servers)
            .map(|s| (s, s * len / servers..(s + 1) * len / servers))
            .filter(|(_, r)| !r.is_empty())
            .collect();
    }
    let home = match key {
        Key::Int(k) => (i128::from(*k) * 9973).rem_euclid(servers as i128) as usize,
        Key::Str(s) => {
            let hash = (s.bytes()).fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
            (hash % servers as u64) as usize
        }
    };
    vec![(home, 0..len)]
}

/// A request about one slice of one key of one store.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The store, numbered in the order a worker made its asynchronous stores.
    pub store: u32,
    pub key: Key,
    pub dtype: DType,
    /// The slice's elements within the key's array.
    pub slice: Range<usize>,
    /// A push's 2-bit threshold when its values come compressed, else 0.
    pub threshold: f32,
}

impl Header {
    pub fn encode(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(32);
        bytes.extend(self.store.to_le_bytes());
        bytes.push(match self.dtype {
            DType::F64 => 1,
            _ => 0,
        });
        bytes.extend(self.threshold.to_le_bytes());
        bytes.extend((self.slice.start as u64).to_le_bytes());
        bytes.extend((self.slice.end as u64).to_le_bytes());
        match &self.key {
            Key::Int(k) => {
                bytes.push(0);
                bytes.extend(k.to_le_bytes());
            }
            Key::Str(s) => {
                bytes.push(1);
                bytes.extend(s.as_bytes());
            }
        }
        bytes
    }

    pub fn decode(bytes: &[u8]) -> Result<Header, Fault> {
        let f = Fields {
            bytes,
            what: "request header",
        };
        let store = u32::from_le_bytes(f.take(0)?);
        let dtype = match f.take::<1>(4)? {
            [0] => DType::F32,
            [1] => DType::F64,
            _ => return Err(f.bad()),
        };
        let threshold = f32::from_le_bytes(f.take(5)?);
        let slice =
            u64::from_le_bytes(f.take(9)?) as usize..u64::from_le_bytes(f.take(17)?) as usize;
        let key = match f.take::<1>(25)? {
            [0] if f.rest(26)?.len() == 8 => Key::Int(i64::from_le_bytes(f.take(26)?)),
            [1] => Key::Str(f.text(26)?),
            _ => return Err(f.bad()),
        };
        if slice.start > slice.end {
            return Err(f.bad());
        }
        Ok(Header {
            store,
            key,
            dtype,
            slice,
            threshold,
        })
    }
}

impl Header {
    /// How many words the slice's values travel as: its elements, or its packed words.
    pub fn payload_len(&self) -> usize {
        match self.threshold > 0.0 {
            true => kiln_kvstore::compression::compressed_size(self.slice.len()),
            false => self.slice.len(),
        }
    }
}

/// A request's bytes: each header, prefixed by its length.
pub fn encode_all<'a>(headers: impl IntoIterator<Item = &'a Header>) -> Vec<u8> {
    let mut bytes = Vec::new();
    for header in headers {
        let one = header.encode();
        bytes.extend((one.len() as u32).to_le_bytes());
        bytes.extend(one);
    }
    bytes
}

/// The headers of a request, at least one.
pub fn decode_all(mut bytes: &[u8]) -> Result<Vec<Header>, Fault> {
    let mut headers = Vec::new();
    while !bytes.is_empty() {
        let f = Fields {
            bytes,
            what: "request",
        };
        let len = u32::from_le_bytes(f.take(0)?) as usize;
        let one = (bytes.get(4..4 + len)).ok_or_else(|| f.bad())?;
        headers.push(Header::decode(one)?);
        bytes = &bytes[4 + len..];
    }
    match headers.is_empty() {
        true => Err(Fault::Malformed {
            what: "request about nothing",
            bytes: 0,
        }),
        false => Ok(headers),
    }
}

/// An `OPTIMIZER` request's bytes: the store, then the optimizer's spec.
pub fn encode_optimizer(store: u32, spec: &str) -> Vec<u8> {
    let mut bytes = store.to_le_bytes().to_vec();
    bytes.extend(spec.as_bytes());
    bytes
}

pub fn decode_optimizer(bytes: &[u8]) -> Result<(u32, String), Fault> {
    let f = Fields {
        bytes,
        what: "optimizer request",
    };
    Ok((u32::from_le_bytes(f.take(0)?), f.text(4)?))
}

/// Sends `bytes` to `rank` with `tag` and waits until sent (reading control messages).
pub fn send<T: mpi::datatype::Equivalence>(link: &Link, rank: usize, tag: i32, values: &[T]) {
    mpi::request::scope(|scope| {
        let process = link.data.process_at_rank(rank as i32);
        let request = process.immediate_send_with_tag(scope, values, tag);
        link.wait_message(request);
    });
}

/// Receives the values `rank` sends with `tag` into `into` (which must be their number).
pub fn receive<T: mpi::datatype::Equivalence>(link: &Link, rank: usize, tag: i32, into: &mut [T]) {
    mpi::request::scope(|scope| {
        let process = link.data.process_at_rank(rank as i32);
        let request = process.immediate_receive_into_with_tag(scope, into, tag);
        link.wait_message(request);
    });
}

/// Tells server `rank` that this worker sends it nothing more.
pub fn say_done(link: &Link, rank: usize) {
    send::<u8>(link, rank, DONE, &[]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_read_back() {
        for key in [
            Key::Int(-3),
            Key::Int(i64::MAX),
            Key::Str("fc1_weight".into()),
        ] {
            let header = Header {
                store: 7,
                key,
                dtype: DType::F64,
                slice: 10..2_000_000,
                threshold: 0.5,
            };
            assert_eq!(Header::decode(&header.encode()).unwrap(), header);
            let two = [header.clone(), header];
            assert_eq!(decode_all(&encode_all(&two)).unwrap(), two);
        }
        assert!(Header::decode(&[1, 2, 3]).is_err());
        assert!(decode_all(&[]).is_err());
        assert!(decode_all(&[9, 0, 0, 0, 1]).is_err());
        let (store, spec) = decode_optimizer(&encode_optimizer(3, "{\"a\":1}")).unwrap();
        assert_eq!((store, spec.as_str()), (3, "{\"a\":1}"));
    }

    #[test]
    fn keys_are_placed_as_mxnet_places_them() {
        // MXNet: (key * 9973) % num_servers.
        assert_eq!(slices(&Key::Int(1), 10, 3, 100), vec![(9973 % 3, 0..10)]);
        assert_eq!(
            slices(&Key::Int(5), 10, 4, 100),
            vec![(5 * 9973 % 4, 0..10)]
        );
        // At the bound, an equal slice on each server.
        let sliced = slices(&Key::Int(1), 10, 3, 10);
        assert_eq!(sliced, vec![(0, 0..3), (1, 3..6), (2, 6..10)]);
        // One server holds everything.
        assert_eq!(slices(&Key::Str("w".into()), 50, 1, 10), vec![(0, 0..50)]);
    }
}
