//! A server of an asynchronous store (MXNet's `KVStoreDistServer` in async mode): it holds
//! its keys (or its slice of the large ones) in a `local` store of its own per worker
//! store, applies each push with the optimizer the workers sent as soon as it arrives,
//! whichever worker sent it, and answers pulls with the value at that moment.
//!
//! It answers requests one at a time, in the order MPI delivers them (each worker's in the
//! order sent, so a worker's pull sees its own pushes before it). A pull of a key not yet
//! initialized waits for the `INIT` (worker 0 sends it; the others fetch the value without
//! waiting for each other). It serves until every worker has said `DONE`, reading control
//! messages meanwhile: a failed peer stops it, and its own error ends the job naming it.

use crate::comm;
use crate::control::Link;
use crate::protocol::{self, Header, DONE, INIT, OPTIMIZER, PAYLOAD, PULL, PUSH, REPLY};
use kiln_kvstore::compression::{compressed_size, GradientCompression};
use kiln_kvstore::{KVStore, Key, Kind};
use kiln_ops::DType;
use kiln_runtime::{Device, NDArray};
use mpi::point_to_point::{MatchedReceiveVec, Source};
use mpi::topology::Communicator;
use std::collections::{HashMap, HashSet};
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
    slices: HashMap<(u32, Key), (DType, std::ops::Range<usize>)>,
    /// Pulls that came before their key's init: the workers waiting.
    waiting: HashMap<(u32, Key), Vec<usize>>,
    /// Each key's reply buffer.
    replies: HashMap<(u32, Key), NDArray>,
    done: HashSet<usize>,
}

type Served = Result<(), String>;

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
                return Err(format!("rank {from}, a server, sent a request"));
            }
            self.answer(link, from, tag, &bytes)
                .map_err(|e| format!("a request of worker {from}: {e}"))?;
            idle_since = Instant::now();
        }
        Ok(())
    }

    fn answer(&mut self, link: &Link, from: usize, tag: i32, bytes: &[u8]) -> Served {
        match tag {
            INIT => self.init(link, from, Header::decode(bytes)?),
            PUSH => self.push(link, from, Header::decode(bytes)?),
            PULL => self.pull(link, from, Header::decode(bytes)?),
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
            other => Err(format!("unknown request tag {other}")),
        }
    }

    fn store(&mut self, store: u32) -> &mut KVStore {
        self.stores
            .entry(store)
            .or_insert_with(|| KVStore::new(Kind::Local))
    }

    /// The values following `header`'s request from `from`, as a new array (dequantized
    /// when they come 2-bit compressed).
    fn receive(&self, link: &Link, from: usize, header: &Header) -> Result<NDArray, String> {
        let len = header.slice.len();
        let array = NDArray::zeros(&[len], header.dtype, Device::Cpu).map_err(|e| e.to_string())?;
        array.wait_to_write().map_err(|e| e.to_string())?;
        // SAFETY: the array is new and no engine operation uses it yet.
        unsafe {
            match header.dtype {
                DType::F64 => protocol::receive::<f64>(
                    link,
                    from,
                    PAYLOAD,
                    array.elements_mut().ok_or_else(other_dtype)?,
                ),
                _ if header.threshold > 0.0 => {
                    let mut codes = vec![0u32; compressed_size(len)];
                    protocol::receive(link, from, PAYLOAD, &mut codes[..]);
                    let packed: Vec<f32> = codes.iter().map(|&c| f32::from_bits(c)).collect();
                    let compression = GradientCompression::two_bit(header.threshold)
                        .map_err(|e| e.to_string())?;
                    (compression
                        .dequantize(&packed, array.elements_mut().ok_or_else(other_dtype)?))
                    .map_err(|e| e.to_string())?;
                }
                _ => protocol::receive::<f32>(
                    link,
                    from,
                    PAYLOAD,
                    array.elements_mut().ok_or_else(other_dtype)?,
                ),
            }
        }
        Ok(array)
    }

    fn init(&mut self, link: &Link, from: usize, header: Header) -> Served {
        let value = self.receive(link, from, &header)?;
        let id = (header.store, header.key.clone());
        if self.slices.contains_key(&id) {
            return Err(format!("key {} is initialized twice", header.key));
        }
        (self.store(header.store).init(header.key.clone(), &value)).map_err(|e| e.to_string())?;
        self.slices
            .insert(id.clone(), (header.dtype, header.slice.clone()));
        for worker in self.waiting.remove(&id).unwrap_or_default() {
            self.reply(link, worker, &header)?;
        }
        Ok(())
    }

    fn push(&mut self, link: &Link, from: usize, header: Header) -> Served {
        let gradient = self.receive(link, from, &header)?;
        self.check(&header)?;
        if !self.optimized.contains(&header.store) {
            return Err(format!(
                "a push to key {} before the optimizer was set",
                header.key
            ));
        }
        (self
            .store(header.store)
            .push(header.key.clone(), &[gradient], 0))
        .map_err(|e| e.to_string())
    }

    fn pull(&mut self, link: &Link, from: usize, header: Header) -> Served {
        let id = (header.store, header.key.clone());
        if !self.slices.contains_key(&id) {
            self.waiting.entry(id).or_default().push(from);
            return Ok(());
        }
        self.reply(link, from, &header)
    }

    /// Sends `to` this server's value of `header`'s slice, once every push before has been
    /// applied.
    fn reply(&mut self, link: &Link, to: usize, header: &Header) -> Served {
        self.check(header)?;
        let id = (header.store, header.key.clone());
        let len = header.slice.len();
        let buffer = match self.replies.get(&id) {
            Some(buffer) => buffer.clone(),
            None => {
                let buffer =
                    NDArray::zeros(&[len], header.dtype, Device::Cpu).map_err(|e| e.to_string())?;
                self.replies.insert(id, buffer.clone());
                buffer
            }
        };
        (self
            .store(header.store)
            .pull(header.key.clone(), std::slice::from_ref(&buffer), 0))
        .map_err(|e| e.to_string())?;
        buffer.wait_to_read().map_err(|e| e.to_string())?;
        // SAFETY: the pull above was the buffer's last operation and has run; nothing else
        // writes it until this send returns.
        unsafe {
            match header.dtype {
                DType::F64 => protocol::send(link, to, REPLY, readable::<f64>(&buffer)?),
                _ => protocol::send(link, to, REPLY, readable::<f32>(&buffer)?),
            }
        }
        Ok(())
    }

    /// Checks that `header` names the slice this server holds.
    fn check(&self, header: &Header) -> Served {
        match self.slices.get(&(header.store, header.key.clone())) {
            None => Err(format!("key {} has not been initialized", header.key)),
            Some((dtype, slice)) if (*dtype, slice) != (header.dtype, &header.slice) => {
                Err(format!(
                    "key {} holds {dtype} elements {slice:?} here, the request names {} {:?}",
                    header.key, header.dtype, header.slice
                ))
            }
            Some(_) => Ok(()),
        }
    }
}

/// # Safety
/// As [`NDArray::elements`].
unsafe fn readable<T: kiln_runtime::Element>(array: &NDArray) -> Result<&[T], String> {
    // SAFETY: the caller's contract.
    unsafe { array.elements::<T>() }.ok_or_else(other_dtype)
}

fn other_dtype() -> String {
    "an array of another dtype".to_string()
}
