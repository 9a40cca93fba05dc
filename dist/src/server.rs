//! A server of an asynchronous store (MXNet's `KVStoreDistServer` in async mode): it holds
//! its keys (or its slice of the large ones) in a `local` store of its own per worker
//! store, applies each push with the optimizer the workers sent as soon as it arrives,
//! whichever worker sent it, and answers pulls with the value at that moment.
//!
//! It answers requests one at a time, in the order MPI delivers them (each worker's in the
//! order sent, so a worker's pull sees its own pushes before it); a request may name
//! several keys (a bucket). A pull naming a key not yet initialized waits for its `INIT`
//! (worker 0 sends it; the others fetch the value without waiting for each other). It serves until every worker has said `DONE`, reading control
//! messages meanwhile: a failed peer stops it, and its own error ends the job naming it.

use crate::comm;
use crate::control::Link;
use crate::fault::Fault;
use crate::protocol::{self, Header, DONE, INIT, OPTIMIZER, PAYLOAD, PULL, PUSH, REPLY};
use kiln_kvstore::compression::GradientCompression;
use kiln_kvstore::{KVStore, Key, Kind};
use kiln_ops::DType;
use kiln_runtime::{Device, Element, NDArray};
use mpi::datatype::Equivalence;
use mpi::point_to_point::{MatchedReceiveVec, Source};
use mpi::topology::Communicator;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::time::Instant;

/// Whether this process is one of its job's servers, as `kiln launch --servers` starts
/// them: the last `KILN_NUM_SERVERS` ranks (read from Open MPI's or MPICH's environment,
/// before MPI starts).
pub fn this_rank_serves() -> bool {
    let var = |names: &[&str]| -> Option<usize> {
        names
            .iter()
            .find_map(|n| std::env::var(n).ok()?.trim().parse().ok())
    };
    let servers = var(&[comm::SERVERS_VAR]).unwrap_or(0);
    let rank = var(&["OMPI_COMM_WORLD_RANK", "PMI_RANK"]);
    let size = var(&["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]);
    match (rank, size) {
        (Some(rank), Some(size)) => servers > 0 && rank + servers >= size && rank < size,
        _ => false,
    }
}

/// Serves this job's asynchronous stores if this process is one of its servers
/// ([`this_rank_serves`]), until every worker is done, and returns true; returns false at
/// once on a worker (which goes on to make its store). MXNet's servers run the same
/// script and never come back from importing mxnet; a kiln program calls this first.
pub fn serve() -> kiln_kvstore::Result<bool> {
    if !this_rank_serves() {
        return Ok(false);
    }
    let comm = comm::shared()?;
    if !comm.is_server() {
        return Err(kiln_kvstore::Error::Input(format!(
            "rank {} of {}: the environment makes it a server, MPI does not",
            comm.rank(),
            comm.size()
        )));
    }
    if let Err(error) = comm.call(|link| Server::default().run(link))? {
        comm.abort(&format!("server: {error}"));
    }
    Ok(true)
}

#[derive(Default)]
struct Server {
    /// Each worker store's keys here, by the store's number.
    stores: HashMap<u32, KVStore>,
    /// The stores that have their optimizer.
    optimized: HashSet<u32>,
    /// What each key holds here: its slice.
    slices: HashMap<(u32, Key), (DType, Range<usize>)>,
    /// Pulls that came before the init of one of their keys, in arrival order.
    waiting: Vec<(usize, Vec<Header>)>,
    /// Each key's reply buffer.
    replies: HashMap<(u32, Key), NDArray>,
    done: HashSet<usize>,
}

type Served = Result<(), Fault>;

impl Server {
    fn run(mut self, link: &Link) -> Served {
        let mut idle_since = Instant::now();
        let mut tests = 0u32;
        while self.done.len() < link.num_workers() {
            let Some(probed) = link.data.any_process().immediate_matched_probe() else {
                tests = tests.wrapping_add(1);
                if tests.is_multiple_of(64) {
                    link.poll(None);
                    link.pause_after(idle_since);
                }
                continue;
            };
            let (bytes, status) = probed.matched_receive_vec::<u8>();
            let (from, tag) = (status.source_rank() as usize, status.tag());
            if link.is_server(from) {
                return Err(Fault::FromServer(from));
            }
            self.answer(link, from, tag, &bytes)
                .map_err(|e| Fault::Request {
                    worker: from,
                    source: Box::new(e),
                })?;
            idle_since = Instant::now();
        }
        Ok(())
    }

    fn answer(&mut self, link: &Link, from: usize, tag: i32, bytes: &[u8]) -> Served {
        match tag {
            INIT => self.init(link, from, protocol::decode_all(bytes)?),
            PUSH => self.push(link, from, protocol::decode_all(bytes)?),
            PULL => self.pull(link, from, protocol::decode_all(bytes)?),
            OPTIMIZER => {
                let (store, spec) = protocol::decode_optimizer(bytes)?;
                let outcome = kiln_train::Optimizer::from_spec(&spec)
                    .map_err(|e| e.to_string())
                    .and_then(|optimizer| {
                        (self.store(store).set_optimizer(optimizer)).map_err(|e| e.to_string())
                    });
                let reply = match outcome {
                    Ok(()) => {
                        self.optimized.insert(store);
                        String::new()
                    }
                    Err(e) => format!("server {}: {e}", link.world.rank()),
                };
                protocol::send(link, from, REPLY, reply.as_bytes());
                Ok(())
            }
            DONE => {
                self.done.insert(from);
                Ok(())
            }
            other => Err(Fault::UnknownTag(other)),
        }
    }

    fn store(&mut self, store: u32) -> &mut KVStore {
        self.stores
            .entry(store)
            .or_insert_with(|| KVStore::new(Kind::Local))
    }

    fn init(&mut self, link: &Link, from: usize, headers: Vec<Header>) -> Served {
        let values = receive(link, from, &headers)?;
        for (header, value) in headers.into_iter().zip(values) {
            let id = (header.store, header.key.clone());
            if self.slices.contains_key(&id) {
                return Err(Fault::InitializedTwice(header.key));
            }
            (self.store(header.store).init(header.key.clone(), &value))?;
            self.slices.insert(id, (header.dtype, header.slice));
        }
        // The pulls that waited for it, in order.
        let waiting = std::mem::take(&mut self.waiting);
        for (worker, headers) in waiting {
            self.pull(link, worker, headers)?;
        }
        Ok(())
    }

    fn push(&mut self, link: &Link, from: usize, headers: Vec<Header>) -> Served {
        let gradients = receive(link, from, &headers)?;
        for (header, gradient) in headers.iter().zip(gradients) {
            self.check(header)?;
            if !self.optimized.contains(&header.store) {
                return Err(Fault::NoOptimizer(header.key.clone()));
            }
            (self
                .store(header.store)
                .push(header.key.clone(), &[gradient], 0))?;
        }
        Ok(())
    }

    /// Answers a pull, or holds it until every key it names is initialized.
    fn pull(&mut self, link: &Link, from: usize, headers: Vec<Header>) -> Served {
        let known = |h: &Header| self.slices.contains_key(&(h.store, h.key.clone()));
        if !headers.iter().all(known) {
            self.waiting.push((from, headers));
            return Ok(());
        }
        let dtype = headers[0].dtype;
        if headers.iter().any(|h| h.dtype != dtype) {
            return Err(Fault::Mixed);
        }
        let mut buffers = Vec::with_capacity(headers.len());
        for header in &headers {
            self.check(header)?;
            let buffer = self.reply_buffer(header)?;
            (self
                .store(header.store)
                .pull(header.key.clone(), std::slice::from_ref(&buffer), 0))?;
            buffers.push(buffer);
        }
        for buffer in &buffers {
            buffer.wait_to_read()?;
        }
        // SAFETY: each buffer's last operation, the pull above, has run; nothing else
        // writes them until this reply is sent.
        unsafe {
            match dtype {
                DType::F64 => reply::<f64>(link, from, &buffers),
                _ => reply::<f32>(link, from, &buffers),
            }
        }
    }

    /// The array `header`'s slice is copied into for a reply, made at its first pull.
    fn reply_buffer(&mut self, header: &Header) -> Result<NDArray, Fault> {
        let id = (header.store, header.key.clone());
        if let Some(buffer) = self.replies.get(&id) {
            return Ok(buffer.clone());
        }
        let len = header.slice.len();
        let buffer = NDArray::zeros(&[len], header.dtype, Device::Cpu)?;
        self.replies.insert(id, buffer.clone());
        Ok(buffer)
    }

    /// Checks that `header` names the slice this server holds.
    fn check(&self, header: &Header) -> Served {
        match self.slices.get(&(header.store, header.key.clone())) {
            None => Err(Fault::Uninitialized(header.key.clone())),
            Some((dtype, slice)) if (*dtype, slice) != (header.dtype, &header.slice) => {
                Err(Fault::OtherSlice {
                    key: header.key.clone(),
                    held: format!("{dtype} elements {slice:?}"),
                    asked: format!("{} elements {:?}", header.dtype, header.slice),
                })
            }
            Some(_) => Ok(()),
        }
    }
}

/// The values following a request of `headers` from `from`, one new array per header
/// (dequantized when they come 2-bit compressed).
fn receive(link: &Link, from: usize, headers: &[Header]) -> Result<Vec<NDArray>, Fault> {
    let dtype = headers[0].dtype;
    let threshold = headers[0].threshold;
    if headers
        .iter()
        .any(|h| (h.dtype, h.threshold) != (dtype, threshold))
    {
        return Err(Fault::Mixed);
    }
    let total: usize = headers.iter().map(Header::payload_len).sum();
    let arrays: Vec<NDArray> = (headers.iter())
        .map(|h| NDArray::zeros(&[h.slice.len()], dtype, Device::Cpu))
        .collect::<kiln_runtime::Result<_>>()?;
    for array in &arrays {
        array.wait_to_write()?;
    }
    // SAFETY: the arrays are new and no engine operation uses them yet.
    unsafe {
        match dtype {
            DType::F64 => scatter(receive_all::<f64>(link, from, total), &arrays),
            _ if threshold > 0.0 => {
                let codes = receive_all::<u32>(link, from, total);
                let compression = GradientCompression::two_bit(threshold)?;
                let mut at = 0;
                for (header, array) in headers.iter().zip(&arrays) {
                    let words = header.payload_len();
                    let packed: Vec<f32> = (codes[at..at + words].iter())
                        .map(|&c| f32::from_bits(c))
                        .collect();
                    let out = array.elements_mut().ok_or(Fault::ChangedDtype)?;
                    compression.dequantize(&packed, out)?;
                    at += words;
                }
                Ok(())
            }
            _ => scatter(receive_all::<f32>(link, from, total), &arrays),
        }?;
    }
    Ok(arrays)
}

fn receive_all<T: Equivalence + Default + Copy>(link: &Link, from: usize, len: usize) -> Vec<T> {
    let mut values = vec![T::default(); len];
    protocol::receive(link, from, PAYLOAD, &mut values[..]);
    values
}

/// Copies `values` into `arrays`, one after the other.
///
/// # Safety
/// No engine operation uses `arrays`.
unsafe fn scatter<T: Element + Copy>(values: Vec<T>, arrays: &[NDArray]) -> Served {
    let mut at = 0;
    for array in arrays {
        // SAFETY: the caller's contract.
        let out = unsafe { array.elements_mut::<T>() }.ok_or(Fault::ChangedDtype)?;
        out.copy_from_slice(&values[at..at + out.len()]);
        at += out.len();
    }
    Ok(())
}

/// Sends `to` the values of `buffers`, one after the other.
///
/// # Safety
/// Nothing writes `buffers` meanwhile.
unsafe fn reply<T: Element + Equivalence + Copy>(
    link: &Link,
    to: usize,
    buffers: &[NDArray],
) -> Served {
    fn read<T: Element>(buffer: &NDArray) -> Result<&[T], Fault> {
        // SAFETY: `reply`'s contract.
        unsafe { buffer.elements::<T>() }.ok_or(Fault::ChangedDtype)
    }
    match buffers {
        [one] => protocol::send(link, to, REPLY, read::<T>(one)?),
        _ => {
            let all = (buffers.iter().map(read::<T>))
                .collect::<Result<Vec<_>, _>>()?
                .concat();
            protocol::send(link, to, REPLY, &all[..]);
        }
    }
    Ok(())
}
