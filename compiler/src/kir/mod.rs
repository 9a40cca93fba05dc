//! The kernel IR: what a fused kernel computes, kept apart from how its loops run.
//!
//! - [`Kernel`] (the algorithm): an iteration domain and, for each output buffer, the value
//!   stored at every point, as a [`Val`] tree of loads through index expressions ([`Idx`]),
//!   the operators' scalar functions and selects. Values read twice are temporaries
//!   ([`Val::Temp`]), computed once per point. Index expressions may use symbolic
//!   dimensions ([`Idx::Dim`]), bound when the kernel runs, so a new batch size needs no
//!   new kernel.
//! - [`Schedule`] (how): the loop order and each loop's kind (serial, parallel, vectorized,
//!   GPU block, GPU thread).
//! - [`lower`] combines them into a [`LoopNest`] of statements (loops, lets, stores), which
//!   prints as text, runs on [`interp::run`], and is what the renderers consume.
//!
//! Renderers: [`rust::render`] (Rust source from a loop nest, for the macro) and
//! [`cuda::render`] (CUDA C for NVRTC, under a grid-stride schedule that the SIMT emulator
//! [`simt::run`] checks without a GPU).
//!
//! Fusion groups become kernels in [`from_group`]: scalar expressions are substituted into
//! each other and index maps are composed, so the kernel reads the group's inputs where
//! they are and writes only its outputs; a reduction becomes a [`Val::Reduce`] with its
//! prologue inside and its epilogue around it. Index expressions are then simplified by
//! value ranges. Not yet lowered: gemm/convolution and other library calls (they keep
//! their reference kernels). Reductions are temporaries, which `lower` hoists out of the
//! loops they do not depend on (a row maximum runs once per row); each runs serially.
//! GPU reductions through shared memory and barriers are schedule work still to come.

pub mod cuda;
mod generalize;
pub mod gpu;
mod group;
pub mod interp;
mod ir;
pub mod math;
pub mod rust;
mod simplify;
pub mod simt;

pub use generalize::{generalize, instantiate};
pub use group::{contraction_of, from_group, Lowered};
pub use ir::{lower, Buffer, Idx, Kernel, LoopKind, LoopNest, Schedule, Stmt, Val};
