//! kiln: a deep-learning system built as a graph-to-kernel compiler — the system of the
//! MXNet paper (Chen et al., 2015), in Rust.
//!
//! This crate is the facade: it re-exports the crates that do the work.
//!
//! ```
//! use kiln::prelude::*;
//! let data = Symbol::var("data");
//! let fc = sym::fully_connected().data(&data).num_hidden(10).name("fc1").build().unwrap();
//! let net = sym::softmax_output().data(&fc).name("softmax").build().unwrap();
//! assert_eq!(net.list_arguments(), ["data", "fc1_weight", "fc1_bias", "softmax_label"]);
//! ```

pub use kiln_compiler as compiler;
pub use kiln_models as models;
pub use kiln_ops as ops;
pub use kiln_runtime as runtime;

pub use kiln_compiler::{builders as sym, DType, Error, Result, Symbol, Tensor};

/// The names most programs need.
pub mod prelude {
    pub use kiln_compiler::builders as sym;
    pub use kiln_compiler::formats::{npy, params};
    pub use kiln_compiler::{interpret, DType, Graph, RunOptions, Symbol, Tensor};
}
