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
/// The GPU backend (the `cuda` feature).
#[cfg(feature = "cuda")]
pub use kiln_cuda as cuda;
/// The distributed KVStore over MPI (the `mpi` feature).
#[cfg(feature = "mpi")]
pub use kiln_dist as dist;
pub use kiln_image as image;
pub use kiln_io as io;
pub use kiln_kvstore as kvstore;
/// The CPU code generator (LLVM). Built without the `llvm` feature, executors have no
/// kernel compiler and run library nodes on their native f32 kernels, the rest on
/// reference kernels:
///
/// ```
/// use kiln::prelude::*;
/// use kiln::runtime::{Device, Executor, GradReqs};
/// let data = Symbol::var("data");
/// let fc = sym::fully_connected().data(&data).num_hidden(64).name("fc").build()?;
/// let y = sym::activation().data(&fc).act_type("relu").name("relu").build()?;
/// let reqs = GradReqs::All(kiln::compiler::autodiff::GradReq::Null);
/// let exe = Executor::simple_bind(&y, Device::Cpu, &[("data", &[64, 256])], reqs)?;
/// exe.forward(false);
/// assert_eq!(exe.outputs()[0].shape(), [64, 64]);
/// let (_, steps) = exe.backend();
/// match kiln::runtime::backend::host_compiler() {
///     // The fully connected layer is a gemm product with the ReLU as its epilogue.
///     Ok(_) => assert_eq!((steps.products, steps.reference), (1, 0)),
///     Err(_) => assert_eq!((steps.products, steps.kernels), (0, 0)),
/// }
/// # Ok::<(), kiln::Error>(())
/// ```
pub use kiln_llvm as llvm;
pub use kiln_models as models;
pub use kiln_ops as ops;
pub use kiln_runtime as runtime;
pub use kiln_train as train;

pub use kiln_compiler::{builders as sym, DType, Symbol, Tensor};
/// kiln's errors: the runtime's, which carry the compiler's unchanged.
pub use kiln_runtime::{Error, Result};

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
/// The struct also runs the network ahead of time (f32 networks): `new(init)` fills the
/// parameters, `forward(&[inputs])` runs inference through Rust code generated at build
/// time — the JIT executor's fused kernels rendered with their shapes as constants, matrix
/// products on kiln's CPU gemm, library nodes on their native kernels — without LLVM.
/// Where every output is a loss, `forward_train`, `backward`, `grad(name)` and
/// `train_step(inputs, lr)` (SGD, gradients rescaled by the batch) run the training graph
/// the same way; elsewhere `TRAINING` says why there are none.
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
/// // Ahead of time, at the declared shapes.
/// let mut mlp = Mlp::new(|name, shape, values| {
///     for (i, v) in values.iter_mut().enumerate() {
///         *v = if name.ends_with("weight") { 0.01 * (i % 7) as f32 } else { 0.0 };
///     }
/// });
/// let (data, labels) = (vec![0.5f32; 32 * 784], vec![0.0f32; 32]);
/// let probabilities = &mlp.forward(&[&data, &labels])?[0];
/// let row: f32 = probabilities[..10].iter().sum();
/// assert!((row - 1.0).abs() < 1e-5);
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
/// "m.json", data = [..])` names it. The arguments given shapes are the inputs (of
/// `forward`); the others are parameters. Editing the file rebuilds the crate.
///
/// ```
/// // A symbol MXNet 1.9 saved: FullyConnected, BatchNorm, + 1, SoftmaxOutput.
/// kiln::include_symbol!(
///     pub FcBn = "tests/fixtures/json/fc_bn_softmax-symbol.json",
///     data = [4, 20],
///     sm_label = [4],
/// );
/// assert_eq!(FcBn::INPUTS, &[("data", &[4, 20][..]), ("sm_label", &[4][..])]);
/// assert!(FcBn::PARAMS.contains(&("fc_weight", &[10, 20][..])));
/// assert!(FcBn::AUX.contains(&("bn_moving_var", &[10][..])));
/// assert_eq!(FcBn::symbol().list_outputs(), ["sm_output"]);
/// let mut net = FcBn::new(|_, _, values| values.fill(0.5));
/// let out = net.forward(&[&[1.0; 80], &[0.0; 4]])?;
/// assert_eq!(out[0].len(), 40);
/// # Ok::<(), kiln::Error>(())
/// ```
pub use kiln_macros::include_symbol;

/// The names most programs need.
pub mod prelude {
    pub use kiln_compiler::builders as sym;
    pub use kiln_compiler::formats::{npy, params};
    pub use kiln_compiler::{interpret, DType, Graph, RunOptions, Symbol, Tensor};
}
