//! The runtime's typed errors. Each says what failed and names the array, node, operator,
//! file, device or variable involved; what the compiler reports (graphs, shapes, files,
//! parameters) passes through unchanged.

use crate::backend::BackendError;
use crate::engine::EngineError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The graph, its shapes or dtypes, a file, a parameter.
    #[error(transparent)]
    Compile(kiln_compiler::Error),
    /// A kernel could not be compiled or run.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// A program's step whose kernels could not be compiled, by its nodes.
    #[error("compiling the kernels of {nodes}: {source}")]
    Step {
        nodes: String,
        source: Box<BackendError>,
    },
    /// An operation failed on the engine (seen by whoever waits on what it writes).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A value the caller gave does not fit: arrays of other shapes, dtypes or devices,
    /// missing arrays, an optimizer's arguments.
    #[error("{0}")]
    Input(String),
    /// An operator's kernel refused its inputs.
    #[error("{op}: {message}")]
    Operator { op: String, message: String },
    /// Device memory that cannot be had (host memory for the reference interpreter's
    /// values and files too).
    #[error("cannot allocate {bytes} bytes on {device}: {reason}")]
    Allocation {
        bytes: usize,
        device: String,
        reason: String,
    },
    /// The process's configuration was made (read) before `Config::install`.
    #[error("the process's configuration was read before Config::install: install it first")]
    ConfiguredAlready,
    /// A failure already returned once, kept where it happened (a program compiled once
    /// per executor) and returned again.
    #[error(transparent)]
    Again(std::sync::Arc<Error>),
    /// A `KILN_*` variable with a value kiln cannot use.
    #[error("environment variable {variable}={value:?}: expected {expected}")]
    Config {
        variable: String,
        value: String,
        expected: String,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An allocation's error naming what the memory was for (other errors unchanged).
    pub fn allocating(self, what: &str) -> Error {
        match self {
            Error::Allocation {
                bytes,
                device,
                reason,
            } => Error::Allocation {
                bytes,
                device,
                reason: format!("{what}: {reason}"),
            },
            e => e,
        }
    }
}

/// The compiler's errors pass through unchanged, but for memory the interpreter or a
/// file reader could not have: that is the runtime's one allocation error.
impl From<kiln_compiler::Error> for Error {
    fn from(e: kiln_compiler::Error) -> Error {
        match e {
            kiln_compiler::Error::Allocation { what, bytes } => Error::Allocation {
                bytes,
                device: crate::Device::Cpu.to_string(),
                reason: what,
            },
            e => Error::Compile(e),
        }
    }
}

impl From<kiln_llvm::Error> for Error {
    fn from(e: kiln_llvm::Error) -> Error {
        Error::Backend(e.into())
    }
}

impl From<kiln_compiler::kir::KirError> for Error {
    fn from(e: kiln_compiler::kir::KirError) -> Error {
        Error::Compile(e.into())
    }
}

/// Where a runtime failure surfaces through the compiler's interfaces (an NDArray as an
/// operand of the generic operator builders): its message, as an input error.
impl From<Error> for kiln_compiler::Error {
    fn from(e: Error) -> kiln_compiler::Error {
        match e {
            Error::Compile(e) => e,
            e => kiln_compiler::Error::Input(e.to_string()),
        }
    }
}
