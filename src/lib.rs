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

/// Declares a network in Rust; kiln's compiler builds and checks it while the crate
/// compiles.
///
/// The header names the network, its visibility and its named dimensions (`batch = 64`,
/// settable later); the body declares `input`s with shapes, `let` bindings and `output`s.
/// Expressions are operator calls under their kiln (MXNet) names — symbols in order, then
/// parameters by name, whose values are literals (`3`, `0.5`, `"relu"`, `true`, `(5, 5)`)
/// or, for an input slot (`weight = w`), a symbol — and `+ - * /` on symbols and numbers
/// (MXNet's element-wise operators). A `let` or `output` names its node, so parameters
/// get MXNet's names (`let fc1 = FullyConnected(..)` has `fc1_weight`, `fc1_bias`) and
/// checkpoints interoperate; other nodes are named as MXNet names them (`_plus0`).
///
/// Shape inference runs at the declared shapes: an unknown operator or parameter, a
/// missing input or a shape mismatch is a compile error at the call, with the shapes.
///
/// ```
/// kiln::network! {
///     /// A two-layer perceptron.
///     pub Mlp(batch = 32) {
///         input data: [batch, 784];
///         input softmax_label: [batch];
///         let fc1 = FullyConnected(data, num_hidden = 128);
///         let relu1 = Activation(fc1, act_type = "relu");
///         let fc2 = FullyConnected(relu1 * 0.5 + 1.0, num_hidden = 10);
///         output softmax = SoftmaxOutput(fc2, softmax_label);
///     }
/// }
///
/// assert_eq!(Mlp::BATCH, 32);
/// assert_eq!(Mlp::PARAMS[0], ("fc1_weight", &[128, 784][..]));
/// assert_eq!(Mlp::OUTPUTS, &[("softmax_output", &[32, 10][..])]);
/// assert_eq!(Mlp::input_shapes(8)[0], ("data", vec![8, 784]));
/// // The same network at run time: here bound on the CPU and run.
/// let exe = Mlp::simple_bind(
///     kiln::runtime::Device::Cpu,
///     kiln::runtime::GradReqs::All(kiln::compiler::autodiff::GradReq::Null),
/// )?;
/// exe.forward(false);
/// assert_eq!(exe.outputs()[0].shape(), [32, 10]);
/// # Ok::<(), kiln::Error>(())
/// ```
///
/// A shape mismatch fails the build:
///
/// ```compile_fail
/// kiln::network! {
///     Bad {
///         input a: [2, 3];
///         input b: [3, 2];
///         output sum = a + b;
///     }
/// }
/// ```
pub use kiln_macros::network;

/// Includes a saved MXNet symbol (`*-symbol.json`, path relative to the crate's manifest)
/// and checks it at the given input shapes, as [`network!`] does: `include_symbol!("m.json",
/// data = [1, 3, 224, 224])` declares `pub struct Network`, `include_symbol!(pub Resnet =
/// "m.json", data = [..])` names it. Editing the file rebuilds the crate.
///
/// ```
/// // A symbol MXNet 1.9 saved: FullyConnected, BatchNorm, + 1, SoftmaxOutput.
/// kiln::include_symbol!(pub FcBn = "tests/fixtures/json/fc_bn_softmax-symbol.json", data = [4, 20]);
/// assert_eq!(FcBn::INPUTS, &[("data", &[4, 20][..])]);
/// assert!(FcBn::PARAMS.contains(&("fc_weight", &[10, 20][..])));
/// assert!(FcBn::AUX.contains(&("bn_moving_var", &[10][..])));
/// assert_eq!(FcBn::symbol().list_outputs(), ["sm_output"]);
/// ```
pub use kiln_macros::include_symbol;

/// The names most programs need.
pub mod prelude {
    pub use kiln_compiler::builders as sym;
    pub use kiln_compiler::formats::{npy, params};
    pub use kiln_compiler::{interpret, DType, Graph, RunOptions, Symbol, Tensor};
}
