//! The KVStore of the MXNet paper (§3.3): a store of named arrays that devices push
//! gradients into and pull weights from. Its first level is the store of one process
//! (`local` and `device`, MXNET_SPEC §6); a [`Remote`] adds the second, across processes
//! (`dist_sync`, `dist_device_sync` and `dist_async` from kiln-dist, over MPI).
//!
//! Contract, as MXNet's `KVStoreLocal`:
//! - Keys are ints or strings ([`Key`]), not both in one store; a key is initialized once.
//! - `push` sums the values given for a key (one per device) in MXNet's order and grouping,
//!   then hands the sum to the updater with the stored value, or, without an updater,
//!   replaces the stored value by the sum (a sum, not an average: MXNet's behaviour).
//! - `pull` copies the stored value into every output; `pushpull` is a push then a pull;
//!   `broadcast` an init then a pull; `push_bucket` pushes several keys, which a remote
//!   sends as one message (the sums are those of pushing them one by one).
//! - Every reduction, copy and update is an engine operation ordered by the variables it
//!   reads and writes, pushed at the caller's priority, so pushes and pulls overlap the
//!   backward pass layer by layer and the call returns at once. Operations are created
//!   once per key and reused while the same arrays are pushed or pulled (allocation-free
//!   steps); errors surface where the arrays are waited on.
//!
//! With a remote, a push sums the devices first, then the remote sums the workers' sums
//! into the value the updater receives (one message per key leaves the process), and
//! `init` takes worker 0's value everywhere: every worker then runs the same updates on
//! the same sums, so their weights stay equal to what one server would hold. A remote that
//! updates on servers (`dist_async`) instead sends each worker's sum to them, where the
//! optimizer (sent by `set_optimizer` as its [`Updater::spec`]) applies it on arrival; a
//! pull fetches the servers' value into the stored one before copying it out.
//!
//! The store runs on the CPU. `device` is MXNet's store reducing on the devices; with only
//! CPU arrays, which is what kiln runs on without a GPU backend, it reduces exactly as
//! `local` does.

pub mod compression;
mod key;
mod reduce;
mod remote;
mod store;

pub use key::Key;
pub use reduce::sum_in_order;
pub use remote::Remote;
pub use store::{KVStore, Kind, Updater};

/// What a store refuses.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A key, array or store type that does not fit, named.
    #[error("{0}")]
    Input(String),
    /// The runtime failed (an updater's operation, an allocation).
    #[error(transparent)]
    Runtime(#[from] kiln_runtime::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
