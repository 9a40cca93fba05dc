//! kiln-runtime: what runs a compiled network.
//!
//! - [`engine`]: the dependency engine (variables, operations, reads and writes).
//! - [`storage`]: pooled device memory; [`device`]: where arrays live.
//! - [`ndarray`]: NDArray, lazily evaluated on the engine.
//! - [`executor`]: a symbol bound to arrays, forward and backward on the engine, its
//!   work cut into [`units`] (compiled kernels or reference nodes) whose entries live in
//!   one arena.
//! - [`backend`]: the traits a code generator implements (kiln-llvm's JIT for the host
//!   CPU); [`cpu`]: the kernels' thread pool, gemm products, Winograd convolutions.
//! - [`optim`]: optimizer updates as pre-created engine operations.
//! - [`config`]: the one [`Config`] (backend, passes, threads, engine, profiling, cache),
//!   and the one table of the `KILN_*` variables that override it.
//! - [`profiler`]: a Chrome trace of the engine's operations ([`Config::profile`]).
//! - [`checkpoint`]: MXNet checkpoints (`prefix-symbol.json`, `prefix-%04d.params`).
//!
//! GPUs are the kiln-cuda crate's: it compiles the same programs and runs them on a device.

pub mod aot;
mod arena;
pub mod backend;
pub mod checkpoint;
pub mod config;
pub mod cpu;
pub mod device;
pub mod engine;
mod error;
pub mod executor;
pub mod ndarray;
pub mod optim;
pub mod profiler;
pub mod storage;
pub mod units;

pub use checkpoint::{load_checkpoint, save_checkpoint};
pub use config::Config;
pub use device::Device;
pub use engine::{Completion, Engine, EngineError, EngineKind, FnProperty, Operator, Var};
pub use error::{Error, Result};
pub use executor::{Executor, GradReqs, Memory};
pub use kiln_compiler::program::StepCounts;
pub use ndarray::{random, Element, NDArray};
pub use units::Backend;
