//! The CPU backend: kernel IR compiled by LLVM for the host ([`jit`], rendered by
//! [`llvm`]), run on the shared pool.

pub mod jit;
pub mod llvm;

pub use jit::{CompiledKernel, Jit, Origin};
