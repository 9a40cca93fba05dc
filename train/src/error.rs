//! The training module's errors: each names what it is about (the optimizer and its
//! argument, the parameter, the metric, the file).

/// What went wrong while configuring or running training. Errors of the crates below are
/// boxed: they are large, and callbacks return this type.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A name or value the user gave that does not fit: an unknown optimizer, initializer
    /// or metric, an unknown or malformed argument, arrays of the wrong shape.
    #[error("{0}")]
    Input(String),
    /// The runtime refused or failed: binding, running, the engine.
    #[error(transparent)]
    Runtime(Box<kiln_runtime::Error>),
    /// The graph, a file format.
    #[error(transparent)]
    Compile(Box<kiln_compiler::Error>),
    /// A data iterator failed.
    #[error(transparent)]
    Data(Box<kiln_io::Error>),
    /// The KVStore refused or failed.
    #[error(transparent)]
    Store(Box<kiln_kvstore::Error>),
}

macro_rules! boxed_from {
    ($($variant:ident: $source:ty),*) => {$(
        impl From<$source> for Error {
            fn from(e: $source) -> Error {
                Error::$variant(Box::new(e))
            }
        }
    )*};
}

boxed_from!(
    Runtime: kiln_runtime::Error,
    Compile: kiln_compiler::Error,
    Data: kiln_io::Error,
    Store: kiln_kvstore::Error
);

pub type Result<T, E = Error> = std::result::Result<T, E>;
