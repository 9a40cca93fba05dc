//! kiln-dist: the distributed KVStore (MXNet paper §3.3, MXNET_SPEC §6), its second level
//! on MPI.
//!
//! A job is N processes started by `mpirun` (or `kiln launch`); each is a worker whose rank
//! and count come from MPI. [`create`] gives a worker its [`KVStore`]: the first level sums
//! the process's devices on the engine, the [`Remote`](kiln_kvstore::Remote) made here
//! sums the workers (one message per key leaves the process).
//!
//! Contract:
//! - `dist_sync` and `dist_device_sync` (its devices summed as `device` sums them) are
//!   synchronous: every push is an all-reduce among the workers, every worker runs the
//!   same updater on the same sum, so every worker's weights are the ones a server would
//!   hold; `init` takes worker 0's value.
//! - `dist_async` keeps the values on server ranks (the job's last `KILN_NUM_SERVERS`,
//!   started by `kiln launch --servers`, each running [`serve`]): the optimizer runs
//!   there, each push is applied as it arrives, a pull fetches the current value
//!   (`asynchronous`, `server`, `protocol`). A job may have servers with a synchronous
//!   store too; they then only wait for the workers to finish.
//! - MPI runs on one thread of its own (`comm`); collectives are queued in the order the
//!   workers call the store, which is the same on every worker, and each waits for its
//!   data on the engine (an asynchronous engine operation hands it over), so a key's
//!   reduction starts while backward still computes earlier layers.
//! - No hangs: a rank whose data was never computed (an error on it) ends the job from
//!   the MPI thread, and `KVStore::abort_if_distributed` (which `Module::fit` calls on an
//!   error) from anywhere, each naming the rank; `mpirun` stops every other rank when one
//!   exits non-zero or dies.
//! - The stores of a process share its MPI thread; dropping the last finalizes MPI after
//!   the communication queued before (MPI starts once per process: a store made after
//!   that is refused).
//! - [`nccl`] (feature `nccl`): NCCL communicators for the job's GPUs, their unique id
//!   sent over MPI.
//! - [`launch`] starts a job through `mpirun` with each rank's output prefixed by its rank
//!   and the first failed rank named (`kiln launch`).

mod asynchronous;
mod comm;
mod control;
mod fault;
pub mod launch;
#[cfg(feature = "nccl")]
pub mod nccl;
mod protocol;
mod server;
mod sync;

pub use comm::SERVERS_VAR;
pub use control::Traffic;
use kiln_kvstore::{Error, KVStore, Kind, Result};
pub use server::{serve, this_rank_serves};

/// A worker's store of MXNet's type `name`, read as MXNet reads it: a name containing
/// `dist` is distributed, asynchronous if it contains `_async`, summing its devices as
/// `device` does if it contains `device` (`dist_sync`, `dist_sync_device`,
/// `dist_device_sync`, `dist_async`); the store's type is the name given. Starts MPI
/// (without `mpirun`, a job of one). A server rank is refused: it runs [`serve`].
pub fn create(name: &str) -> Result<KVStore> {
    let lower = name.to_lowercase();
    if !lower.contains("dist") {
        return Err(Error::Input(format!(
            "kvstore `{name}` is not distributed (dist_sync, dist_sync_device, dist_async)"
        )));
    }
    let kind = match lower.contains("device") {
        true => Kind::Device,
        false => Kind::Local,
    };
    let comm = comm::shared()?;
    if comm.is_server() {
        return Err(Error::Input(format!(
            "kvstore `{name}`: rank {} is one of the job's servers, which run kiln_dist::serve",
            comm.rank()
        )));
    }
    let name = name.to_string();
    Ok(match lower.contains("_async") {
        true => KVStore::with_remote(kind, Box::new(asynchronous::AsyncRemote::new(comm, name)?)),
        false => KVStore::with_remote(kind, Box::new(sync::SyncRemote::new(comm, name))),
    })
}

/// This process as a worker of a running job: held by code that may fail outside a store's
/// own calls (`kiln train`'s setup), it keeps MPI up so that a failure can end the job
/// cleanly instead of finishing it.
pub struct Worker(std::sync::Arc<comm::Comm>);

impl Worker {
    /// The job a store of this process has started, if one is alive.
    pub fn current() -> Option<Worker> {
        comm::current().map(Worker)
    }

    pub fn rank(&self) -> usize {
        self.0.rank()
    }

    /// MPI's own all-reduce (`MPI_Allreduce`, blocking, on the MPI thread) of `floats` f32
    /// values: the median of `runs` timed calls, in seconds — the baseline a store's
    /// reduction is measured against. Every rank must call it, as any collective.
    pub fn time_mpi_allreduce(&self, floats: usize, runs: usize) -> kiln_kvstore::Result<f64> {
        self.0.call(move |link| {
            use mpi::collective::{CommunicatorCollectives, SystemOperation};
            let (send, mut recv) = (vec![1f32; floats], vec![0f32; floats]);
            let mut times: Vec<f64> = (0..runs.max(1) + 1)
                .map(|_| {
                    let start = std::time::Instant::now();
                    link.workers
                        .all_reduce_into(&send[..], &mut recv[..], SystemOperation::sum());
                    start.elapsed().as_secs_f64()
                })
                .skip(1)
                .collect();
            times.sort_by(f64::total_cmp);
            times[times.len() / 2]
        })
    }

    /// Records each collective's span from now on (`true`), or stops (`false`).
    pub fn record_spans(&self, on: bool) {
        self.0.record_spans(on)
    }

    /// What this rank's collectives sent and took so far, with the spans recorded since
    /// the last call.
    pub fn traffic(&self) -> Traffic {
        self.0.traffic()
    }

    /// Ends the job after `error`: prints it naming this rank, tells every peer (each
    /// stops, naming this rank), and exits with status 1.
    pub fn abort(&self, error: &dyn std::fmt::Display) -> ! {
        self.0.abort(&error.to_string())
    }
}
