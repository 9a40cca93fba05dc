//! kiln-runtime: what runs a compiled network.
//!
//! - [`engine`]: the dependency engine (variables, operations, reads and writes).
//!
//! Later issues add the NDArray, the Executor, CPU kernels and the `llvm`/`cuda` backends
//! (default features, gating nothing yet).

pub mod engine;

pub use engine::{Engine, EngineError, EngineKind, FnProperty, Operator, Var};
