//! Every failure of the GPU backend, typed and naming what it was doing.

use kiln_compiler::kir::KirError;

/// Why a device operation failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum GpuError {
    /// The CUDA libraries are not installed, or no device is present.
    #[error("no CUDA device: {0}")]
    Unavailable(String),
    /// The driver, NVRTC or cuBLAS refused a call.
    #[error("{op}: {message}")]
    Driver { op: String, message: String },
    /// An address outside every allocation, or a range running past its allocation's end.
    #[error("{op}: {range} is outside device memory ({why})")]
    OutOfBounds {
        op: String,
        range: String,
        why: String,
    },
    /// Two operations on different streams touch the same bytes, one of them writing,
    /// with no event ordering them.
    #[error("{op}: race on {range}: {other} on stream {stream} is not ordered before it (record an event there and wait for it)")]
    Race {
        op: String,
        range: String,
        other: String,
        stream: usize,
    },
    /// A launch, copy or product with arguments the interface does not accept.
    #[error("{op}: {message}")]
    Invalid { op: String, message: String },
    /// A kernel faulted (out-of-bounds index, race, unstored element) in the emulator.
    #[error(transparent)]
    Kernel(#[from] KirError),
    /// A step of an executor's pass failed.
    #[error("step `{step}`: {source}")]
    Step {
        step: String,
        #[source]
        source: Box<GpuError>,
    },
    /// A program could not be compiled or bound for the device.
    #[error("bind: {0}")]
    Bind(String),
}

impl GpuError {
    pub(crate) fn invalid(op: impl Into<String>, message: impl Into<String>) -> GpuError {
        GpuError::Invalid {
            op: op.into(),
            message: message.into(),
        }
    }
}

pub type Result<T> = std::result::Result<T, GpuError>;
