//! kiln's GPU backend.
//!
//! - [`device`]: the device interface ([`Gpu`]) at the level of the CUDA driver API and
//!   cuBLAS, with its ordering contract.
//! - [`emulated`]: a second implementation on host memory: launches run in the SIMT
//!   emulator with the grid, block, shared memory and arguments given, products with
//!   cuBLAS's conventions, and every access is checked against the streams' ordering.
//! - [`driver`] (feature `driver`): the real one, through cudarc, loading the CUDA
//!   libraries at run time, so every build works without CUDA installed.
//! - [`pool`]: the stream-ordered caching allocator over either.
//! - [`module`]: a program's kernels rendered to CUDA as one module, and their launch
//!   geometry; [`executor`]: a compiled program run on a device, its matrix products as
//!   cuBLAS calls (`products.rs`).

pub mod device;
#[cfg(feature = "driver")]
pub mod driver;
pub mod emulated;
mod error;
pub mod executor;
pub mod module;
pub mod pool;
mod products;

pub use device::{Arch, Arg, DevicePtr, Event, Gemm, Gpu, LaunchConfig, Module, ModuleId, Stream};
pub use error::{GpuError, Result};
