//! A store's second level: what crosses processes (kiln-dist implements it over MPI).
//!
//! The first level sums the devices of a process (`KVStore::push`); the second sends one
//! value per key out of the process. Every method pushes engine operations (or, for the
//! ones that block, waits for its own) and keeps the order in which it was called, which
//! every worker calls in the same order: collectives match by that order.
//!
//! A remote either sums the workers' pushes and hands the sum back (synchronous: the
//! store's updater runs on every worker), or sends them to servers that apply each push
//! as it arrives with the optimizer given to [`Remote::set_optimizer`] (asynchronous:
//! [`Remote::updates_on_servers`]); a pull then fetches the servers' value first.

use crate::compression::GradientCompression;
use crate::{Key, Result};
use kiln_runtime::NDArray;

/// The cross-process half of a distributed store.
pub trait Remote: Send {
    /// MXNet's type name, as given (`dist_sync`, `dist_sync_device`, `dist_async`).
    fn type_name(&self) -> &str;

    /// This worker's rank among the workers.
    fn rank(&self) -> usize;

    /// The number of workers.
    fn num_workers(&self) -> usize;

    /// Blocks until every worker has called it (after what each pushed before has run).
    fn barrier(&mut self) -> Result<()>;

    /// How many workers pass `this` as true (blocks; a collective like the others).
    fn count(&mut self, this: bool) -> Result<usize>;

    /// Makes `stored` the job's initial value of `key`: worker 0's, on every worker.
    fn init(&mut self, key: &Key, stored: &NDArray) -> Result<()>;

    /// Ends this process after `error`, so that no other worker waits for it: says which
    /// worker failed and exits non-zero (MPI's errors are fatal to the job).
    fn abort(&self, error: &str) -> !;

    /// Compresses what later pushes send between workers (`None`: uncompressed).
    fn set_compression(&mut self, compression: Option<GradientCompression>) -> Result<()>;

    /// Whether servers hold the values and apply pushes (asynchronous), rather than the
    /// workers summing them.
    fn updates_on_servers(&self) -> bool {
        false
    }

    /// Sends the optimizer described by `spec` ([`crate::Updater::spec`]) to the servers,
    /// which apply every later push with it. Only a remote that updates on servers takes
    /// one.
    fn set_optimizer(&mut self, spec: &str) -> Result<()> {
        let _ = spec;
        Err(crate::Error::Input(format!(
            "kvstore `{}`: the workers run the optimizer; it is not sent anywhere",
            self.type_name()
        )))
    }

    /// Makes each of `stored` the servers' current value of its key in `keys` (for a
    /// pull), asking for the keys together where it can; a remote whose workers hold the
    /// values leaves them.
    fn fetch(&mut self, keys: &[Key], stored: &[NDArray], priority: i32) -> Result<()> {
        let _ = (keys, stored, priority);
        Ok(())
    }

    /// Writes into each of `globals` the sum over the workers of the matching `locals`
    /// (this worker's devices' sums of `keys`), at `priority`, sending the keys together
    /// where it can (one message for a bucket of small arrays). A remote that updates on
    /// servers sends `locals` to them and gets no `globals`.
    fn push(
        &mut self,
        keys: &[Key],
        locals: &[NDArray],
        globals: &[NDArray],
        priority: i32,
    ) -> Result<()>;
}
