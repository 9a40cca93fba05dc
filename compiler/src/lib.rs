//! kiln-compiler: from a Symbol to something that runs.
//!
//! - [`symbol`]: the Symbol API (MXNet-compatible composition, naming, listing).
//! - [`graph`]: the indexed graph (on petgraph) every pass works on.
//! - [`infer`]: shape and dtype inference; [`autodiff`]: the training graph.
//! - [`formats`]: MXNet symbol JSON, `.params`, NumPy `.npy`.
//! - [`passes`]: graph passes and pipelines (prune, simplify, CSE, inference mode, fusion).
//! - [`program`]: the compile driver — a Symbol, shapes, mode and target to one program
//!   (optimized graph, steps in order, memory layout, segments) — and the memory planner.
//! - [`kir`]: the kernel IR (what a kernel computes, its schedule, loop nests, an interpreter).
//! - [`interp`]: the reference interpreter, the oracle for every backend and pass.
//! - [`dot`]: Graphviz output; [`summary`]: shapes, parameters and FLOPs per node.

#[rustfmt::skip]
pub mod builders;
pub mod autodiff;
#[cfg(test)]
mod builders_gen;
pub mod call;
pub mod dot;
pub mod error;
pub mod formats;
pub mod graph;
pub mod infer;
pub mod interp;
pub mod kir;
pub mod node;
pub mod passes;
pub mod program;
pub mod summary;
pub mod symbol;

pub use call::{OpCall, Operand, ResolvedCall};
pub use error::{Error, Result};
pub use formats::params::ParamFile;
pub use graph::{Entry, GNode, Graph, NodeId};
pub use interp::{check_inputs, interpret, RunOptions};
pub use kiln_ops::{DType, Tensor};
pub use node::{NodeData, Provenance};
pub use symbol::{Node, NodeEntry, Symbol};
