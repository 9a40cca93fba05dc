//! The CPU backend: kernel IR compiled by LLVM for the host ([`jit`], rendered by
//! [`llvm`]; feature `llvm`), matrix products on kiln's [`gemm`] ([`matmul`]), run on the
//! kernels' thread [`pool`].

#[cfg(feature = "llvm")]
pub mod jit;
#[cfg(feature = "llvm")]
pub mod llvm;
pub mod matmul;
#[cfg(feature = "llvm")]
mod orc;
pub mod pool;
pub mod scratch;
pub mod winograd;

pub use kiln_gemm as gemm;

#[cfg(feature = "llvm")]
pub use jit::{CompiledKernel, Jit, Origin};
