//! The CPU's kernels besides compiled ones ([`crate::backend`]): matrix products on kiln's
//! [`gemm`] ([`matmul`]), Winograd convolutions ([`winograd`]), run on the kernels' thread
//! [`pool`], and what they know of the host's caches ([`cache`]).

pub mod cache;
pub mod matmul;
pub mod pool;
pub mod scratch;
pub mod winograd;

pub use kiln_gemm as gemm;
