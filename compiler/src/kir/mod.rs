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
//! - Kernels and loop nests print as text that [`parse_kernel`] and [`parse_nest`] read
//!   back (the format is documented in `parse.rs`); the filetests in
//!   `compiler/tests/filetests/` are written in it.
//!
//! Renderers: [`rust::render`] (Rust source from a loop nest, for the macro),
//! `kiln_runtime::cpu` (LLVM IR, JIT-compiled for the host) and [`cuda::render`] (CUDA C
//! for NVRTC: the grid-stride schedule for element-wise kernels, with a `float4` path, and
//! the block schedule of [`gpu`] for reductions — shared-memory trees, barriers, warp
//! shuffles), both run by the SIMT emulator [`simt`] without a GPU.
//!
//! Fusion groups become kernels in [`from_group`]: scalar expressions are substituted into
//! each other and index maps are composed, so the kernel reads the group's inputs where
//! they are and writes only its outputs; a reduction becomes a [`Val::Reduce`] with its
//! prologue inside and its epilogue around it, and so does a library operator's
//! contraction (gemm, convolution, pooling; `kiln_ops::contraction`), with guards where it
//! reads padding. Index expressions are then simplified by value ranges. Library calls
//! without a contraction (BatchNorm, softmax, RNN, samplers, ...) keep their reference
//! kernels. Reductions are temporaries, which `lower` hoists out of the loops they do not
//! depend on (a row maximum runs once per row).
//!
//! Around the core: [`math`] turns exp and tanh into polynomials with stated error bounds
//! (so f32 kernels vectorize), [`collapse`] merges nested loops that walk memory as one
//! (so short spatial loops vectorize), and [`generalize`] finds one kernel over a symbolic
//! batch size from lowerings at several, so a new batch size needs no new kernel.
//!
//! Failures are [`KirError`]s naming the group's node or the kernel, and for a run the
//! block, thread and element where it happened ([`Fault`]: what went wrong there).

mod collapse;
pub mod cuda;
mod error;
mod generalize;
pub mod gpu;
mod group;
pub mod interp;
mod ir;
pub mod math;
pub mod matmul;
mod parse;
mod parts;
pub mod rust;
mod simplify;
pub mod simt;
mod windows;
mod winograd;

pub use collapse::collapse;
pub use error::{Fault, KirError};
pub use generalize::{generalize, instantiate};
pub use group::{contraction_of, from_group, Lowered};
pub use ir::{lower, BitOp, Buffer, Idx, Kernel, LoopKind, LoopNest, Schedule, Stmt, Val};
pub use parse::{parse_kernel, parse_kernels, parse_nest, ParseError, MAX_DEPTH};
pub use parts::{parts, runs_native, Part, Unlowered};
pub use simplify::simplify;
pub use windows::{Bound, Windows};
pub use winograd::{winograd_plan, Bands, Conv3x3, WinogradPlan, LARGE_TILES};

/// What the CPU JIT compiles of `nest`: its math functions as polynomials
/// ([`math::expand`]), then its loops collapsed ([`collapse`]).
pub fn for_cpu(nest: &LoopNest) -> LoopNest {
    collapse(&math::expand(nest))
}

/// The source of [`for_cpu`]'s passes: a compiled kernel cached on disk is stale once it
/// changes.
pub const FOR_CPU_SOURCE: &str = concat!(include_str!("math.rs"), include_str!("collapse.rs"));
