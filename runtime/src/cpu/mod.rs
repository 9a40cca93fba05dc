//! The CPU's kernels besides compiled ones ([`crate::backend`]): matrix products on kiln's
//! [`gemm`] ([`matmul`]), Winograd convolutions ([`winograd`]), run on the kernels' thread
//! [`pool`], what they know of the host's caches ([`cache`]), and what is measured once
//! per CPU model ([`wisdom`]).

pub mod cache;
pub mod matmul;
pub mod pool;
pub mod scratch;
pub mod windows;
pub mod winograd;
pub mod wisdom;

pub use kiln_gemm as gemm;
