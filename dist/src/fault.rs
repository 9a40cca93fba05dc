//! What stops a request between workers and servers, named: a server ends the job with
//! it; a worker's engine operation fails with it (the engine carries its text).

use kiln_kvstore::Key;

#[derive(Debug, thiserror::Error)]
pub enum Fault {
    #[error("a malformed {what} ({bytes} bytes)")]
    Malformed { what: &'static str, bytes: usize },
    #[error("{var}={value}: {why}")]
    Setting {
        var: &'static str,
        value: String,
        why: String,
    },
    #[error("rank {0}, a server, sent a request")]
    FromServer(usize),
    #[error("a request of worker {worker}: {source}")]
    Request { worker: usize, source: Box<Fault> },
    #[error("unknown request tag {0}")]
    UnknownTag(i32),
    #[error("key {0} has not been initialized")]
    Uninitialized(Key),
    #[error("key {0} is initialized twice")]
    InitializedTwice(Key),
    #[error("a push to key {0} before the optimizer was set")]
    NoOptimizer(Key),
    #[error("key {key} holds {held} here, the request names {asked}")]
    OtherSlice {
        key: Key,
        held: String,
        asked: String,
    },
    #[error("a request of several dtypes or compressions")]
    Mixed,
    #[error("an array changed dtype")]
    ChangedDtype,
    #[error("the residual of a compressed key was poisoned by a panic")]
    Poisoned,
    #[error(transparent)]
    Store(#[from] kiln_kvstore::Error),
    #[error(transparent)]
    Runtime(#[from] kiln_runtime::Error),
    #[error(transparent)]
    Engine(#[from] kiln_runtime::EngineError),
}
