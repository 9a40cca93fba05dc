//! kiln's CPU code generator: a [`LoopNest`](kiln_compiler::kir::LoopNest) rendered to
//! LLVM IR (`codegen`), optimized and compiled for the host CPU, linked into the process
//! by LLVM's ORC JIT and cached on disk ([`Jit`]).
//!
//! The runtime runs what this crate compiles through its backend traits
//! (`kiln_runtime::backend`); nothing here knows about executors or the engine. Built
//! without the `llvm` feature the crate links no LLVM: [`Jit::new`] returns
//! [`Error::Unavailable`] and its types have no values, so callers fall back to native
//! kernels.

#[cfg(feature = "llvm")]
mod codegen;
#[cfg(feature = "llvm")]
mod jit;
#[cfg(feature = "llvm")]
mod orc;
#[cfg(feature = "llvm")]
mod streaming;
#[cfg(not(feature = "llvm"))]
mod unavailable;

#[cfg(feature = "llvm")]
pub use jit::{CompiledKernel, Jit};
#[cfg(not(feature = "llvm"))]
pub use unavailable::{CompiledKernel, Jit};

/// Whether this build links LLVM (else [`Jit::new`] says so).
pub const AVAILABLE: bool = cfg!(feature = "llvm");

/// Vector width of compiled kernels unless a JIT is made with another.
pub const DEFAULT_VECTOR_BITS: u32 = 256;

/// Why a kernel could not be compiled or run.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    #[error("kiln was built without LLVM (feature `llvm`)")]
    Unavailable,
    /// LLVM cannot target the host, or its JIT does not start.
    #[error("LLVM: {0}")]
    Host(String),
    /// A kernel failed to render, optimize, compile or link.
    #[error("kernel `{kernel}`: {message}")]
    Kernel { kernel: String, message: String },
    /// A call with the wrong buffers or dimensions.
    #[error("{0}")]
    Call(String),
}

pub type Result<T> = std::result::Result<T, Error>;

/// Where a kernel came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Built, optimized and compiled now.
    Compiled,
    /// Already compiled in this process.
    Memory,
    /// An object file from the cache folder, linked now.
    Disk,
}
