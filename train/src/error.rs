//! The training module's errors: each names what it is about (the optimizer and its
//! argument, the parameter, the metric, the file).

/// What went wrong while configuring or running training.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A name or value the user gave that does not fit: an unknown optimizer, initializer
    /// or metric, an unknown or malformed argument, arrays of the wrong shape.
    #[error("{0}")]
    Input(String),
    /// The runtime refused or failed: binding, running, the engine.
    #[error(transparent)]
    Runtime(#[from] kiln_runtime::Error),
    /// The graph, a file format.
    #[error(transparent)]
    Compile(#[from] kiln_compiler::Error),
    /// A data iterator failed.
    #[error(transparent)]
    Data(#[from] kiln_io::Error),
    /// The KVStore refused or failed.
    #[error(transparent)]
    Store(#[from] kiln_kvstore::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
