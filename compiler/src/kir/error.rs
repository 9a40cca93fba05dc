//! The kernel IR's typed errors: lowering a fusion group, scheduling and rendering a
//! kernel, and running one on the interpreter or the SIMT emulator. Each names the node
//! or kernel it is about.

use super::ir::LoopKind;
use kiln_ops::{DType, OpError};

/// Why the kernel IR could not lower, schedule, render or run a kernel.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum KirError {
    /// A fusion group none of whose values is read outside it.
    #[error("group `{group}` has no output")]
    NoOutput { group: String },
    /// A library call that keeps its own kernel: it declares no contraction for this
    /// output, or (`why`) its contraction refuses these shapes.
    #[error(
        "{node} ({pattern}) is not lowered to loops: library calls keep their kernels{}",
        why.as_ref().map(|e| format!(": {e}")).unwrap_or_default()
    )]
    Library {
        /// Operator and name (`Convolution \`conv1\``).
        node: String,
        /// The operator's pattern.
        pattern: &'static str,
        why: Option<OpError>,
    },
    /// A node whose operator refuses these shapes (its index map or reduction).
    #[error("{node}: {source}")]
    Operator { node: String, source: OpError },
    /// A node of a group that does not lower to loops, and why.
    #[error("{node}: {reason}")]
    Unlowerable { node: String, reason: String },
    /// A schedule that does not order every domain axis of `kernel` exactly once.
    #[error("schedule {order:?} does not cover the {axes} domain axes of `{kernel}` once each")]
    Schedule {
        kernel: String,
        order: Vec<(usize, LoopKind)>,
        axes: usize,
    },
    /// A kernel the GPU block schedule does not fit (no reduction, a reduction over other
    /// than the innermost axes), or a block size it cannot use.
    #[error("kernel `{kernel}`: {reason}")]
    BlockSchedule { kernel: String, reason: String },
    /// A compute type `target` (a renderer: `Rust`, `CUDA`) does not produce.
    #[error("kernel `{kernel}`: compute type {dtype} is not rendered to {target}")]
    Unsupported {
        kernel: String,
        dtype: DType,
        target: &'static str,
    },
    /// Evaluating an index expression outside a kernel run ([`interp::extent`](super::interp::extent)).
    #[error(transparent)]
    Eval(#[from] Fault),
    /// Running `kernel` failed, `at` a block, thread and element of its launch where it
    /// happened in one.
    #[error("kernel `{kernel}`{}: {fault}", at.as_ref().map(|a| format!(", {a}")).unwrap_or_default())]
    Run {
        kernel: String,
        at: Option<String>,
        fault: Fault,
    },
}

/// Why a kernel's indices or values cannot be evaluated, or its outputs stored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// A symbolic dimension the dimensions given do not bind.
    #[error("symbolic dimension D{0} is not bound")]
    UnboundDim(usize),
    /// An access outside its buffer: `access` is what was read or stored (`in0[7]`,
    /// `out1[-1]`, `shared[40]`).
    #[error("{access} is out of bounds ({len} elements)")]
    OutOfBounds { access: String, len: usize },
    /// Output shapes that do not fit the kernel's output buffers.
    #[error("{0}")]
    OutputShapes(String),
    /// Two threads storing one element, or a shared-memory access meeting another
    /// thread's since the last barrier.
    #[error("{0}")]
    Race(String),
    /// An output element no thread of the launch (`grid x block`, `n-block`) stores.
    #[error("no thread of the {launch} launch stored {element}")]
    Unstored { launch: String, element: String },
    /// IR or a launch that cannot run as given: a coordinate outside its loops or
    /// reduction, a temporary read before it is set, a missing buffer, a division by a
    /// non-positive index, an empty launch, a divergent barrier or shuffle.
    #[error("{0}")]
    Invalid(String),
}
