//! Typed builders, one per operator, for any operand (a `Symbol` builds a node, an
//! NDArray runs the operator), generated from the operator registry by
//! `builders_gen.rs` — do not edit; regenerate with
//! `KILN_UPDATE_BUILDERS=1 cargo test -p kiln-compiler builders`.
//!
//! ```
//! use kiln_compiler::{builders as sym, Symbol};
//! let x = Symbol::var("data");
//! let fc = sym::fully_connected().data(&x).num_hidden(10).name("fc1").build().unwrap();
//! assert_eq!(fc.list_arguments(), ["data", "fc1_weight", "fc1_bias"]);
//! ```

#![allow(clippy::all)]

use crate::call::{OpCall, Operand};
use crate::Result;
#[allow(unused_imports)]
use kiln_ops::{DType, Value};

/// `abs`: |x|
pub struct Abs<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `abs`.
#[track_caller]
pub fn abs<'a, T: Operand>() -> Abs<'a, T> {
    Abs { call: OpCall::new("abs") }
}

impl<'a, T: Operand> Abs<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `Activation`: Applies an activation function element-wise (relu, sigmoid, tanh, softrelu, softsign).
pub struct Activation<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `Activation`.
#[track_caller]
pub fn activation<'a, T: Operand>() -> Activation<'a, T> {
    Activation { call: OpCall::new("Activation") }
}

impl<'a, T: Operand> Activation<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// activation function ({relu, sigmoid, tanh, softrelu, softsign}, required).
    pub fn act_type(mut self, v: &str) -> Self {
        self.call = self.call.attr("act_type", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `add_n`: Sums any number of same-shape inputs.
pub struct AddN<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `add_n`.
#[track_caller]
pub fn add_n<'a, T: Operand>() -> AddN<'a, T> {
    AddN { call: OpCall::new("add_n") }
}

impl<'a, T: Operand> AddN<'a, T> {
    /// Positional inputs, in order.
    pub fn args(mut self, inputs: impl IntoIterator<Item = &'a T>) -> Self {
        self.call = self.call.args(inputs);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// number of inputs (int, required).
    pub fn num_args(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_args", Value::Int(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_BatchNorm`: Gradient of BatchNorm, from ograd, data, gamma and the forward's hidden `mean` and inverse-std `var` outputs: data_grad, gamma_grad (zero with fix_gamma) and beta_grad. In training without use_global_stats the statistics are the batch's and the gradient flows through them; otherwise they are constants. Takes the forward's parameters.
pub struct BackwardBatchNorm<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_BatchNorm`.
#[track_caller]
pub fn backward_batch_norm<'a, T: Operand>() -> BackwardBatchNorm<'a, T> {
    BackwardBatchNorm { call: OpCall::new("_backward_BatchNorm") }
}

impl<'a, T: Operand> BackwardBatchNorm<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `gamma`.
    pub fn gamma(mut self, s: &'a T) -> Self {
        self.call = self.call.input("gamma", s);
        self
    }
    /// Input `mean`.
    pub fn mean(mut self, s: &'a T) -> Self {
        self.call = self.call.input("mean", s);
        self
    }
    /// Input `var`.
    pub fn var(mut self, s: &'a T) -> Self {
        self.call = self.call.input("var", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// added to the variance (float, default `0.001`).
    pub fn eps(mut self, v: f64) -> Self {
        self.call = self.call.attr("eps", Value::Float(v).to_mxnet_string());
        self
    }
    /// moving-average momentum (float, default `0.9`).
    pub fn momentum(mut self, v: f64) -> Self {
        self.call = self.call.attr("momentum", Value::Float(v).to_mxnet_string());
        self
    }
    /// treat gamma as 1 (boolean, default `True`).
    pub fn fix_gamma(mut self, v: bool) -> Self {
        self.call = self.call.attr("fix_gamma", Value::Bool(v).to_mxnet_string());
        self
    }
    /// use the moving statistics in training too (boolean, default `False`).
    pub fn use_global_stats(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_global_stats", Value::Bool(v).to_mxnet_string());
        self
    }
    /// make the mean and inverse-std outputs visible (boolean, default `False`).
    pub fn output_mean_var(mut self, v: bool) -> Self {
        self.call = self.call.attr("output_mean_var", Value::Bool(v).to_mxnet_string());
        self
    }
    /// channel axis (int, default `1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// turn off cuDNN (ignored) (boolean, default `False`).
    pub fn cudnn_off(mut self, v: bool) -> Self {
        self.call = self.call.attr("cudnn_off", Value::Bool(v).to_mxnet_string());
        self
    }
    /// quantization calibration minimum (ignored) (float, optional, default `None`).
    pub fn min_calib_range(mut self, v: f64) -> Self {
        self.call = self.call.attr("min_calib_range", Value::Float(v).to_mxnet_string());
        self
    }
    /// quantization calibration maximum (ignored) (float, optional, default `None`).
    pub fn max_calib_range(mut self, v: f64) -> Self {
        self.call = self.call.attr("max_calib_range", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_Concat`: The gradient of Concat: `ograd` cut along `dim` into one output per input arg0, arg1, ..., each of that input's shape (the inputs' values are not read).
pub struct BackwardConcat<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_Concat`.
#[track_caller]
pub fn backward_concat<'a, T: Operand>() -> BackwardConcat<'a, T> {
    BackwardConcat { call: OpCall::new("_backward_Concat") }
}

impl<'a, T: Operand> BackwardConcat<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `arg0`.
    pub fn arg0(mut self, s: &'a T) -> Self {
        self.call = self.call.input("arg0", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// number of inputs (int, required).
    pub fn num_args(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_args", Value::Int(v).to_mxnet_string());
        self
    }
    /// the axis to join along (negative counts from the end) (int, default `1`).
    pub fn dim(mut self, v: i64) -> Self {
        self.call = self.call.attr("dim", Value::Int(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_Convolution`: Gradient of Convolution: from ograd, data and weight, the gradients of data (the transposed convolution of ograd), weight (ograd correlated with data) and bias (ograd summed over batch and space). Takes the forward's parameters.
pub struct BackwardConvolution<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_Convolution`.
#[track_caller]
pub fn backward_convolution<'a, T: Operand>() -> BackwardConvolution<'a, T> {
    BackwardConvolution { call: OpCall::new("_backward_Convolution") }
}

impl<'a, T: Operand> BackwardConvolution<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `weight`.
    pub fn weight(mut self, s: &'a T) -> Self {
        self.call = self.call.input("weight", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// kernel size: (w,), (h, w) or (d, h, w) (tuple of int, required).
    pub fn kernel(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("kernel", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// stride; () means 1 per dimension (tuple of int, default `()`).
    pub fn stride(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("stride", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// dilation; () means 1 per dimension (tuple of int, default `()`).
    pub fn dilate(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("dilate", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// zero padding; () means 0 per dimension (tuple of int, default `()`).
    pub fn pad(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("pad", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// number of output channels (int, required).
    pub fn num_filter(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_filter", Value::Int(v).to_mxnet_string());
        self
    }
    /// number of channel groups (int, default `1`).
    pub fn num_group(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_group", Value::Int(v).to_mxnet_string());
        self
    }
    /// MXNet workspace limit in MB (ignored) (int, default `1024`).
    pub fn workspace(mut self, v: i64) -> Self {
        self.call = self.call.attr("workspace", Value::Int(v).to_mxnet_string());
        self
    }
    /// whether to omit the bias (boolean, default `False`).
    pub fn no_bias(mut self, v: bool) -> Self {
        self.call = self.call.attr("no_bias", Value::Bool(v).to_mxnet_string());
        self
    }
    /// cuDNN algorithm selection (ignored) ({None, off, limited_workspace, fastest}, default `None`).
    pub fn cudnn_tune(mut self, v: &str) -> Self {
        self.call = self.call.attr("cudnn_tune", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// turn off cuDNN (ignored) (boolean, default `False`).
    pub fn cudnn_off(mut self, v: bool) -> Self {
        self.call = self.call.attr("cudnn_off", Value::Bool(v).to_mxnet_string());
        self
    }
    /// data layout; None means NCW, NCHW or NCDHW ({None, NCW, NCHW, NCDHW, NWC, NHWC, NDHWC}, default `None`).
    pub fn layout(mut self, v: &str) -> Self {
        self.call = self.call.attr("layout", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_elemwise`: Gradient of an element-wise operator with respect to one input: ograd times the symbolic derivative of the operator's scalar expression.
pub struct BackwardElemwise<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_elemwise`.
#[track_caller]
pub fn backward_elemwise<'a, T: Operand>() -> BackwardElemwise<'a, T> {
    BackwardElemwise { call: OpCall::new("_backward_elemwise") }
}

impl<'a, T: Operand> BackwardElemwise<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the forward operator (string, required).
    pub fn op(mut self, v: &str) -> Self {
        self.call = self.call.attr("op", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// its parameters, `k=v;k=v` (string, default ``).
    pub fn attrs(mut self, v: &str) -> Self {
        self.call = self.call.attr("attrs", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// the input differentiated against (int, required).
    pub fn wrt(mut self, v: i64) -> Self {
        self.call = self.call.attr("wrt", Value::Int(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_extremum`: The gradient of max and min: `ograd` where `data` equals `extremum` (the result broadcast back to data's shape), else 0.
pub struct BackwardExtremum<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_extremum`.
#[track_caller]
pub fn backward_extremum<'a, T: Operand>() -> BackwardExtremum<'a, T> {
    BackwardExtremum { call: OpCall::new("_backward_extremum") }
}

impl<'a, T: Operand> BackwardExtremum<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `extremum`.
    pub fn extremum(mut self, s: &'a T) -> Self {
        self.call = self.call.input("extremum", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_FullyConnected`: Gradient of FullyConnected: data_grad = ograd·weight, weight_grad = ogradᵀ·data, bias_grad = ograd summed over rows. Takes the forward's parameters; `bias` is read only for its shape.
pub struct BackwardFullyConnected<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_FullyConnected`.
#[track_caller]
pub fn backward_fully_connected<'a, T: Operand>() -> BackwardFullyConnected<'a, T> {
    BackwardFullyConnected { call: OpCall::new("_backward_FullyConnected") }
}

impl<'a, T: Operand> BackwardFullyConnected<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `weight`.
    pub fn weight(mut self, s: &'a T) -> Self {
        self.call = self.call.input("weight", s);
        self
    }
    /// Input `bias`.
    pub fn bias(mut self, s: &'a T) -> Self {
        self.call = self.call.input("bias", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// number of hidden units (int, required).
    pub fn num_hidden(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_hidden", Value::Int(v).to_mxnet_string());
        self
    }
    /// whether to omit the bias (boolean, default `False`).
    pub fn no_bias(mut self, v: bool) -> Self {
        self.call = self.call.attr("no_bias", Value::Bool(v).to_mxnet_string());
        self
    }
    /// whether to collapse all but the first axis of the input (boolean, default `True`).
    pub fn flatten(mut self, v: bool) -> Self {
        self.call = self.call.attr("flatten", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_LeakyReLU`: Gradient of LeakyReLU, from ograd and data (and gamma for prelu, the forward's slopes `mask` for rrelu): data_grad, and for prelu gamma_grad (ograd·min(x, 0) summed over every axis but 1, or over everything for one shared slope). Takes the forward's parameters.
pub struct BackwardLeakyReLu<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_LeakyReLU`.
#[track_caller]
pub fn backward_leaky_re_lu<'a, T: Operand>() -> BackwardLeakyReLu<'a, T> {
    BackwardLeakyReLu { call: OpCall::new("_backward_LeakyReLU") }
}

impl<'a, T: Operand> BackwardLeakyReLu<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// activation function ({elu, gelu, leaky, prelu, rrelu, selu}, default `leaky`).
    pub fn act_type(mut self, v: &str) -> Self {
        self.call = self.call.attr("act_type", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// slope of leaky, and elu's scale (float, default `0.25`).
    pub fn slope(mut self, v: f64) -> Self {
        self.call = self.call.attr("slope", Value::Float(v).to_mxnet_string());
        self
    }
    /// rrelu: lowest random slope (float, default `0.125`).
    pub fn lower_bound(mut self, v: f64) -> Self {
        self.call = self.call.attr("lower_bound", Value::Float(v).to_mxnet_string());
        self
    }
    /// rrelu: highest random slope (float, default `0.334`).
    pub fn upper_bound(mut self, v: f64) -> Self {
        self.call = self.call.attr("upper_bound", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_LinearRegressionOutput`: Gradient of LinearRegressionOutput from the label and the output, ignoring any head gradient: `(out − label)·grad_scale/num_output`, num_output = label.size/label.shape[0].
pub struct BackwardLinearRegressionOutput<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_LinearRegressionOutput`.
#[track_caller]
pub fn backward_linear_regression_output<'a, T: Operand>() -> BackwardLinearRegressionOutput<'a, T> {
    BackwardLinearRegressionOutput { call: OpCall::new("_backward_LinearRegressionOutput") }
}

impl<'a, T: Operand> BackwardLinearRegressionOutput<'a, T> {
    /// Input `label`.
    pub fn label(mut self, s: &'a T) -> Self {
        self.call = self.call.input("label", s);
        self
    }
    /// Input `output`.
    pub fn output(mut self, s: &'a T) -> Self {
        self.call = self.call.input("output", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scales the gradient (float, default `1.0`).
    pub fn grad_scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("grad_scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_log_softmax`: Gradient of log_softmax from ograd and the forward output y: `(ograd − exp(y)·Σ ograd)/T` along the axis. Inputs: ograd, then data when a dtype override is set, then the output. Takes the forward's parameters.
pub struct BackwardLogSoftmax<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_log_softmax`.
#[track_caller]
pub fn backward_log_softmax<'a, T: Operand>() -> BackwardLogSoftmax<'a, T> {
    BackwardLogSoftmax { call: OpCall::new("_backward_log_softmax") }
}

impl<'a, T: Operand> BackwardLogSoftmax<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `output`.
    pub fn output(mut self, s: &'a T) -> Self {
        self.call = self.call.input("output", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// axis to normalize (int, default `-1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// divides the input (None = 1) (float, optional, default `None`).
    pub fn temperature(mut self, v: f64) -> Self {
        self.call = self.call.attr("temperature", Value::Float(v).to_mxnet_string());
        self
    }
    /// output dtype (float16, float32 or float64; None = the input's) (dtype, optional, default `None`).
    pub fn dtype(mut self, v: DType) -> Self {
        self.call = self.call.attr("dtype", Value::DType(v).to_mxnet_string());
        self
    }
    /// take a `length` input: only the first length[i] entries along the axis take part (boolean, optional, default `False`).
    pub fn use_length(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_length", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_LogisticRegressionOutput`: Gradient of LogisticRegressionOutput from the label and the (sigmoid) output, ignoring any head gradient: `(out − label)·grad_scale/num_output`, num_output = label.size/label.shape[0].
pub struct BackwardLogisticRegressionOutput<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_LogisticRegressionOutput`.
#[track_caller]
pub fn backward_logistic_regression_output<'a, T: Operand>() -> BackwardLogisticRegressionOutput<'a, T> {
    BackwardLogisticRegressionOutput { call: OpCall::new("_backward_LogisticRegressionOutput") }
}

impl<'a, T: Operand> BackwardLogisticRegressionOutput<'a, T> {
    /// Input `label`.
    pub fn label(mut self, s: &'a T) -> Self {
        self.call = self.call.input("label", s);
        self
    }
    /// Input `output`.
    pub fn output(mut self, s: &'a T) -> Self {
        self.call = self.call.input("output", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scales the gradient (float, default `1.0`).
    pub fn grad_scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("grad_scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_LRN`: Gradient of LRN, from ograd, data and the forward's hidden tmp_norm N: `dx_i = g_i·N_i^(−beta) − 2·beta·alpha/nsize·x_i·Σ_{c: |c−i| ≤ nsize/2} g_c·x_c·N_c^(−beta−1)`. Takes the forward's parameters.
pub struct BackwardLrn<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_LRN`.
#[track_caller]
pub fn backward_lrn<'a, T: Operand>() -> BackwardLrn<'a, T> {
    BackwardLrn { call: OpCall::new("_backward_LRN") }
}

impl<'a, T: Operand> BackwardLrn<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `tmp_norm`.
    pub fn tmp_norm(mut self, s: &'a T) -> Self {
        self.call = self.call.input("tmp_norm", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scale of the sum of squares (float, default `0.0001`).
    pub fn alpha(mut self, v: f64) -> Self {
        self.call = self.call.attr("alpha", Value::Float(v).to_mxnet_string());
        self
    }
    /// exponent of the normalizer (float, default `0.75`).
    pub fn beta(mut self, v: f64) -> Self {
        self.call = self.call.attr("beta", Value::Float(v).to_mxnet_string());
        self
    }
    /// additive constant (float, default `2.0`).
    pub fn knorm(mut self, v: f64) -> Self {
        self.call = self.call.attr("knorm", Value::Float(v).to_mxnet_string());
        self
    }
    /// channels in the window (odd in practice) (int, required).
    pub fn nsize(mut self, v: i64) -> Self {
        self.call = self.call.attr("nsize", Value::Int(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_MAERegressionOutput`: Gradient of MAERegressionOutput from the label and the output, ignoring any head gradient: `(out − label > 0 ? 1 : −1)·grad_scale/num_output` (−1 at a zero residual, as MXNet), num_output = label.size/label.shape[0].
pub struct BackwardMaeRegressionOutput<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_MAERegressionOutput`.
#[track_caller]
pub fn backward_mae_regression_output<'a, T: Operand>() -> BackwardMaeRegressionOutput<'a, T> {
    BackwardMaeRegressionOutput { call: OpCall::new("_backward_MAERegressionOutput") }
}

impl<'a, T: Operand> BackwardMaeRegressionOutput<'a, T> {
    /// Input `label`.
    pub fn label(mut self, s: &'a T) -> Self {
        self.call = self.call.input("label", s);
        self
    }
    /// Input `output`.
    pub fn output(mut self, s: &'a T) -> Self {
        self.call = self.call.input("output", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scales the gradient (float, default `1.0`).
    pub fn grad_scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("grad_scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_Pooling`: Gradient of Pooling, from ograd, data and the forward output: max routes each output's gradient to the first input of its window equal to the output (as MXNet); avg spreads it over the window divided by the forward's divisor; sum copies it; lp scales it by (x/out)^(p−1). Takes the forward's parameters.
pub struct BackwardPooling<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_Pooling`.
#[track_caller]
pub fn backward_pooling<'a, T: Operand>() -> BackwardPooling<'a, T> {
    BackwardPooling { call: OpCall::new("_backward_Pooling") }
}

impl<'a, T: Operand> BackwardPooling<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `output`.
    pub fn output(mut self, s: &'a T) -> Self {
        self.call = self.call.input("output", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// window size: (w,), (h, w) or (d, h, w) (tuple of int, default `()`).
    pub fn kernel(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("kernel", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// pooling function ({avg, lp, max, sum}, default `max`).
    pub fn pool_type(mut self, v: &str) -> Self {
        self.call = self.call.attr("pool_type", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// pool over all spatial dims (boolean, default `False`).
    pub fn global_pool(mut self, v: bool) -> Self {
        self.call = self.call.attr("global_pool", Value::Bool(v).to_mxnet_string());
        self
    }
    /// turn off cuDNN (ignored) (boolean, default `False`).
    pub fn cudnn_off(mut self, v: bool) -> Self {
        self.call = self.call.attr("cudnn_off", Value::Bool(v).to_mxnet_string());
        self
    }
    /// output size rounding ({full, same, valid}, default `valid`).
    pub fn pooling_convention(mut self, v: &str) -> Self {
        self.call = self.call.attr("pooling_convention", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// stride; () means 1 per dimension (tuple of int, default `()`).
    pub fn stride(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("stride", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// padding; () means 0 per dimension (tuple of int, default `()`).
    pub fn pad(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("pad", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// p of lp pooling (1, 2 or 3) (int, optional, default `None`).
    pub fn p_value(mut self, v: i64) -> Self {
        self.call = self.call.attr("p_value", Value::Int(v).to_mxnet_string());
        self
    }
    /// avg: count padding in the divisor (None means True) (boolean, optional, default `None`).
    pub fn count_include_pad(mut self, v: bool) -> Self {
        self.call = self.call.attr("count_include_pad", Value::Bool(v).to_mxnet_string());
        self
    }
    /// data layout; None means NCW, NCHW or NCDHW ({None, NCW, NCHW, NCDHW, NWC, NHWC, NDHWC}, default `None`).
    pub fn layout(mut self, v: &str) -> Self {
        self.call = self.call.attr("layout", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_slice`: The gradient of `slice`: `ograd` placed at the window that begin/end/step select in zeros of `data`'s shape (data's values are not read).
pub struct BackwardSlice<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_slice`.
#[track_caller]
pub fn backward_slice<'a, T: Operand>() -> BackwardSlice<'a, T> {
    BackwardSlice { call: OpCall::new("_backward_slice") }
}

impl<'a, T: Operand> BackwardSlice<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// first index per leading axis (None: the start, or the end for a negative step) (tuple of int-or-None, required).
    pub fn begin(mut self, v: &[Option<i64>]) -> Self {
        self.call = self.call.attr("begin", Value::OptTuple(v.to_vec()).to_mxnet_string());
        self
    }
    /// exclusive end index per leading axis (None: past the end, or before the start for a negative step) (tuple of int-or-None, required).
    pub fn end(mut self, v: &[Option<i64>]) -> Self {
        self.call = self.call.attr("end", Value::OptTuple(v.to_vec()).to_mxnet_string());
        self
    }
    /// step per leading axis (empty or None: 1) (tuple of int-or-None, default `()`).
    pub fn step(mut self, v: &[Option<i64>]) -> Self {
        self.call = self.call.attr("step", Value::OptTuple(v.to_vec()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_slice_axis`: The gradient of `slice_axis`: `ograd` inside the window begin..end along `axis`, `zeros` (zeros of the forward input's shape) elsewhere.
pub struct BackwardSliceAxis<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_slice_axis`.
#[track_caller]
pub fn backward_slice_axis<'a, T: Operand>() -> BackwardSliceAxis<'a, T> {
    BackwardSliceAxis { call: OpCall::new("_backward_slice_axis") }
}

impl<'a, T: Operand> BackwardSliceAxis<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `zeros`.
    pub fn zeros(mut self, s: &'a T) -> Self {
        self.call = self.call.input("zeros", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axis to slice (negative counts from the end) (int, required).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// first index (negative counts from the end) (int, required).
    pub fn begin(mut self, v: i64) -> Self {
        self.call = self.call.attr("begin", Value::Int(v).to_mxnet_string());
        self
    }
    /// exclusive end index (None: the end of the axis; negative counts from the end) (int, optional, required).
    pub fn end(mut self, v: i64) -> Self {
        self.call = self.call.attr("end", Value::Int(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_softmax`: Gradient of softmax from ograd and the forward output y: `y·(ograd − Σ ograd·y)/T` along the axis, zero beyond each row's length. Inputs: ograd, then data (and length) when a dtype override (or use_length) is set, then the output. Takes the forward's parameters.
pub struct BackwardSoftmax<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_softmax`.
#[track_caller]
pub fn backward_softmax<'a, T: Operand>() -> BackwardSoftmax<'a, T> {
    BackwardSoftmax { call: OpCall::new("_backward_softmax") }
}

impl<'a, T: Operand> BackwardSoftmax<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `output`.
    pub fn output(mut self, s: &'a T) -> Self {
        self.call = self.call.input("output", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// axis to normalize (int, default `-1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// divides the input (None = 1) (float, optional, default `None`).
    pub fn temperature(mut self, v: f64) -> Self {
        self.call = self.call.attr("temperature", Value::Float(v).to_mxnet_string());
        self
    }
    /// output dtype (float16, float32 or float64; None = the input's) (dtype, optional, default `None`).
    pub fn dtype(mut self, v: DType) -> Self {
        self.call = self.call.attr("dtype", Value::DType(v).to_mxnet_string());
        self
    }
    /// take a `length` input: only the first length[i] entries along the axis take part (boolean, optional, default `False`).
    pub fn use_length(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_length", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_SoftmaxActivation`: Gradient of SoftmaxActivation from ograd and the forward output y: `y·(ograd − Σ ograd·y)` over the last axis (instance) or axis 1 (channel). Takes the forward's parameters.
pub struct BackwardSoftmaxActivation<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_SoftmaxActivation`.
#[track_caller]
pub fn backward_softmax_activation<'a, T: Operand>() -> BackwardSoftmaxActivation<'a, T> {
    BackwardSoftmaxActivation { call: OpCall::new("_backward_SoftmaxActivation") }
}

impl<'a, T: Operand> BackwardSoftmaxActivation<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `output`.
    pub fn output(mut self, s: &'a T) -> Self {
        self.call = self.call.input("output", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// what to normalize over ({channel, instance}, default `instance`).
    pub fn mode(mut self, v: &str) -> Self {
        self.call = self.call.attr("mode", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_backward_SoftmaxOutput`: Gradient of SoftmaxOutput from its output p and the label, ignoring any head gradient: `(p − target)·grad_scale/norm` with target the one-hot label (smoothed: 1 − smooth_alpha on the label, smooth_alpha/(k−1) elsewhere), zero rows where use_ignore and label = ignore_label. norm: null 1, batch the label count, valid the labels ≠ ignore_label (at least 1); multi_output's null and batch also divide by the spatial size. A label shaped like p is a probability target: `(p − label)·grad_scale`. Takes the forward's parameters.
pub struct BackwardSoftmaxOutput<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_SoftmaxOutput`.
#[track_caller]
pub fn backward_softmax_output<'a, T: Operand>() -> BackwardSoftmaxOutput<'a, T> {
    BackwardSoftmaxOutput { call: OpCall::new("_backward_SoftmaxOutput") }
}

impl<'a, T: Operand> BackwardSoftmaxOutput<'a, T> {
    /// Input `output`.
    pub fn output(mut self, s: &'a T) -> Self {
        self.call = self.call.input("output", s);
        self
    }
    /// Input `label`.
    pub fn label(mut self, s: &'a T) -> Self {
        self.call = self.call.input("label", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scales the gradient (float, default `1.0`).
    pub fn grad_scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("grad_scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// label ignored with use_ignore (float, default `-1.0`).
    pub fn ignore_label(mut self, v: f64) -> Self {
        self.call = self.call.attr("ignore_label", Value::Float(v).to_mxnet_string());
        self
    }
    /// softmax over axis 1 per position (boolean, default `False`).
    pub fn multi_output(mut self, v: bool) -> Self {
        self.call = self.call.attr("multi_output", Value::Bool(v).to_mxnet_string());
        self
    }
    /// skip rows labelled ignore_label (boolean, default `False`).
    pub fn use_ignore(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_ignore", Value::Bool(v).to_mxnet_string());
        self
    }
    /// softmax over the last axis (boolean, default `False`).
    pub fn preserve_shape(mut self, v: bool) -> Self {
        self.call = self.call.attr("preserve_shape", Value::Bool(v).to_mxnet_string());
        self
    }
    /// how the gradient is normalized ({batch, null, valid}, default `null`).
    pub fn normalization(mut self, v: &str) -> Self {
        self.call = self.call.attr("normalization", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// multiply by the head gradient (boolean, default `False`).
    pub fn out_grad(mut self, v: bool) -> Self {
        self.call = self.call.attr("out_grad", Value::Bool(v).to_mxnet_string());
        self
    }
    /// label smoothing (float, default `0.0`).
    pub fn smooth_alpha(mut self, v: f64) -> Self {
        self.call = self.call.attr("smooth_alpha", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `batch_dot`: Batched matrix product of two inputs of the same rank N >= 3: (B..., n, k) x (B..., k, m) gives (B..., n, m); transpose_a/transpose_b transpose the last two axes of lhs/rhs.
pub struct BatchDot<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `batch_dot`.
#[track_caller]
pub fn batch_dot<'a, T: Operand>() -> BatchDot<'a, T> {
    BatchDot { call: OpCall::new("batch_dot") }
}

impl<'a, T: Operand> BatchDot<'a, T> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// use the transpose of the first input (boolean, default `False`).
    pub fn transpose_a(mut self, v: bool) -> Self {
        self.call = self.call.attr("transpose_a", Value::Bool(v).to_mxnet_string());
        self
    }
    /// use the transpose of the second input (boolean, default `False`).
    pub fn transpose_b(mut self, v: bool) -> Self {
        self.call = self.call.attr("transpose_b", Value::Bool(v).to_mxnet_string());
        self
    }
    /// the output storage type MXNet may choose for sparse inputs (kiln's outputs are always dense) ({None, default, row_sparse, csr}, default `None`).
    pub fn forward_stype(mut self, v: &str) -> Self {
        self.call = self.call.attr("forward_stype", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `BatchNorm`: Batch normalization: `(x − mean)/sqrt(var + eps)·gamma + beta` per channel (axis). Training (unless use_global_stats) uses the batch mean and biased variance over all other axes, inference the moving statistics; fix_gamma treats gamma as 1. Hidden outputs: mean and the inverse std `1/sqrt(var + eps)`, as MXNet.
pub struct BatchNorm<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `BatchNorm`.
#[track_caller]
pub fn batch_norm<'a, T: Operand>() -> BatchNorm<'a, T> {
    BatchNorm { call: OpCall::new("BatchNorm") }
}

impl<'a, T: Operand> BatchNorm<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `gamma`.
    pub fn gamma(mut self, s: &'a T) -> Self {
        self.call = self.call.input("gamma", s);
        self
    }
    /// Input `beta`.
    pub fn beta(mut self, s: &'a T) -> Self {
        self.call = self.call.input("beta", s);
        self
    }
    /// Input `moving_mean`.
    pub fn moving_mean(mut self, s: &'a T) -> Self {
        self.call = self.call.input("moving_mean", s);
        self
    }
    /// Input `moving_var`.
    pub fn moving_var(mut self, s: &'a T) -> Self {
        self.call = self.call.input("moving_var", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// added to the variance (float, default `0.001`).
    pub fn eps(mut self, v: f64) -> Self {
        self.call = self.call.attr("eps", Value::Float(v).to_mxnet_string());
        self
    }
    /// moving-average momentum (float, default `0.9`).
    pub fn momentum(mut self, v: f64) -> Self {
        self.call = self.call.attr("momentum", Value::Float(v).to_mxnet_string());
        self
    }
    /// treat gamma as 1 (boolean, default `True`).
    pub fn fix_gamma(mut self, v: bool) -> Self {
        self.call = self.call.attr("fix_gamma", Value::Bool(v).to_mxnet_string());
        self
    }
    /// use the moving statistics in training too (boolean, default `False`).
    pub fn use_global_stats(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_global_stats", Value::Bool(v).to_mxnet_string());
        self
    }
    /// make the mean and inverse-std outputs visible (boolean, default `False`).
    pub fn output_mean_var(mut self, v: bool) -> Self {
        self.call = self.call.attr("output_mean_var", Value::Bool(v).to_mxnet_string());
        self
    }
    /// channel axis (int, default `1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// turn off cuDNN (ignored) (boolean, default `False`).
    pub fn cudnn_off(mut self, v: bool) -> Self {
        self.call = self.call.attr("cudnn_off", Value::Bool(v).to_mxnet_string());
        self
    }
    /// quantization calibration minimum (ignored) (float, optional, default `None`).
    pub fn min_calib_range(mut self, v: f64) -> Self {
        self.call = self.call.attr("min_calib_range", Value::Float(v).to_mxnet_string());
        self
    }
    /// quantization calibration maximum (ignored) (float, optional, default `None`).
    pub fn max_calib_range(mut self, v: f64) -> Self {
        self.call = self.call.attr("max_calib_range", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `BlockGrad`: identity in the forward pass; stops gradients in the backward pass
pub struct BlockGrad<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `BlockGrad`.
#[track_caller]
pub fn block_grad<'a, T: Operand>() -> BlockGrad<'a, T> {
    BlockGrad { call: OpCall::new("BlockGrad") }
}

impl<'a, T: Operand> BlockGrad<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `broadcast_add`: element-wise on two inputs with NumPy broadcasting
pub struct BroadcastAdd<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_add`.
#[track_caller]
pub fn broadcast_add<'a, T: Operand>() -> BroadcastAdd<'a, T> {
    BroadcastAdd { call: OpCall::new("broadcast_add") }
}

impl<'a, T: Operand> BroadcastAdd<'a, T> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_broadcast_backward`: Sums `data` over the axes along which `like` was broadcast, giving `like`'s shape (the gradient of a broadcast input).
pub struct BroadcastBackward<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_broadcast_backward`.
#[track_caller]
pub fn broadcast_backward<'a, T: Operand>() -> BroadcastBackward<'a, T> {
    BroadcastBackward { call: OpCall::new("_broadcast_backward") }
}

impl<'a, T: Operand> BroadcastBackward<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `like`.
    pub fn like(mut self, s: &'a T) -> Self {
        self.call = self.call.input("like", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `broadcast_div`: element-wise on two inputs with NumPy broadcasting
pub struct BroadcastDiv<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_div`.
#[track_caller]
pub fn broadcast_div<'a, T: Operand>() -> BroadcastDiv<'a, T> {
    BroadcastDiv { call: OpCall::new("broadcast_div") }
}

impl<'a, T: Operand> BroadcastDiv<'a, T> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `broadcast_mul`: element-wise on two inputs with NumPy broadcasting
pub struct BroadcastMul<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_mul`.
#[track_caller]
pub fn broadcast_mul<'a, T: Operand>() -> BroadcastMul<'a, T> {
    BroadcastMul { call: OpCall::new("broadcast_mul") }
}

impl<'a, T: Operand> BroadcastMul<'a, T> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_broadcast_reduced`: Copies `reduced` — the result of a reduction of `data` with the same axis, keepdims and exclude, or its gradient — back over the reduced axes, giving data's shape (data's values are not read). The gradient of sum, and the broadcast step of mean's, max's, min's and prod's.
pub struct BroadcastReduced<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_broadcast_reduced`.
#[track_caller]
pub fn broadcast_reduced<'a, T: Operand>() -> BroadcastReduced<'a, T> {
    BroadcastReduced { call: OpCall::new("_broadcast_reduced") }
}

impl<'a, T: Operand> BroadcastReduced<'a, T> {
    /// Input `reduced`.
    pub fn reduced(mut self, s: &'a T) -> Self {
        self.call = self.call.input("reduced", s);
        self
    }
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axes to reduce (None or (): all of them); negative counts from the end (int or tuple of int, optional, default `None`).
    pub fn axis(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("axis", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// keep the reduced axes, with size 1 (boolean, default `False`).
    pub fn keepdims(mut self, v: bool) -> Self {
        self.call = self.call.attr("keepdims", Value::Bool(v).to_mxnet_string());
        self
    }
    /// reduce over the axes not listed in `axis` (boolean, default `False`).
    pub fn exclude(mut self, v: bool) -> Self {
        self.call = self.call.attr("exclude", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `broadcast_sub`: element-wise on two inputs with NumPy broadcasting
pub struct BroadcastSub<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_sub`.
#[track_caller]
pub fn broadcast_sub<'a, T: Operand>() -> BroadcastSub<'a, T> {
    BroadcastSub { call: OpCall::new("broadcast_sub") }
}

impl<'a, T: Operand> BroadcastSub<'a, T> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `Cast`: Casts to another dtype.
pub struct Cast<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `Cast`.
#[track_caller]
pub fn cast<'a, T: Operand>() -> Cast<'a, T> {
    Cast { call: OpCall::new("Cast") }
}

impl<'a, T: Operand> Cast<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// output dtype (dtype, required).
    pub fn dtype(mut self, v: DType) -> Self {
        self.call = self.call.attr("dtype", Value::DType(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `clip`: Clips values to [a_min, a_max].
pub struct Clip<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `clip`.
#[track_caller]
pub fn clip<'a, T: Operand>() -> Clip<'a, T> {
    Clip { call: OpCall::new("clip") }
}

impl<'a, T: Operand> Clip<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// minimum value (float, required).
    pub fn a_min(mut self, v: f64) -> Self {
        self.call = self.call.attr("a_min", Value::Float(v).to_mxnet_string());
        self
    }
    /// maximum value (float, required).
    pub fn a_max(mut self, v: f64) -> Self {
        self.call = self.call.attr("a_max", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `Concat`: Joins the inputs arg0, arg1, ... along axis `dim`; every other dimension must agree.
pub struct Concat<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `Concat`.
#[track_caller]
pub fn concat<'a, T: Operand>() -> Concat<'a, T> {
    Concat { call: OpCall::new("Concat") }
}

impl<'a, T: Operand> Concat<'a, T> {
    /// Positional inputs, in order.
    pub fn args(mut self, inputs: impl IntoIterator<Item = &'a T>) -> Self {
        self.call = self.call.args(inputs);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// number of inputs (int, required).
    pub fn num_args(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_args", Value::Int(v).to_mxnet_string());
        self
    }
    /// the axis to join along (negative counts from the end) (int, default `1`).
    pub fn dim(mut self, v: i64) -> Self {
        self.call = self.call.attr("dim", Value::Int(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `Convolution`: Convolution (cross-correlation) over 1 to 3 spatial dimensions. Weight is (num_filter, C/num_group, *kernel), or (num_filter, *kernel, C/num_group) for channel-last layouts; out = floor((in + 2·pad − (dilate·(kernel−1)+1)) / stride) + 1.
pub struct Convolution<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `Convolution`.
#[track_caller]
pub fn convolution<'a, T: Operand>() -> Convolution<'a, T> {
    Convolution { call: OpCall::new("Convolution") }
}

impl<'a, T: Operand> Convolution<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `weight`.
    pub fn weight(mut self, s: &'a T) -> Self {
        self.call = self.call.input("weight", s);
        self
    }
    /// Input `bias`.
    pub fn bias(mut self, s: &'a T) -> Self {
        self.call = self.call.input("bias", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// kernel size: (w,), (h, w) or (d, h, w) (tuple of int, required).
    pub fn kernel(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("kernel", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// stride; () means 1 per dimension (tuple of int, default `()`).
    pub fn stride(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("stride", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// dilation; () means 1 per dimension (tuple of int, default `()`).
    pub fn dilate(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("dilate", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// zero padding; () means 0 per dimension (tuple of int, default `()`).
    pub fn pad(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("pad", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// number of output channels (int, required).
    pub fn num_filter(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_filter", Value::Int(v).to_mxnet_string());
        self
    }
    /// number of channel groups (int, default `1`).
    pub fn num_group(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_group", Value::Int(v).to_mxnet_string());
        self
    }
    /// MXNet workspace limit in MB (ignored) (int, default `1024`).
    pub fn workspace(mut self, v: i64) -> Self {
        self.call = self.call.attr("workspace", Value::Int(v).to_mxnet_string());
        self
    }
    /// whether to omit the bias (boolean, default `False`).
    pub fn no_bias(mut self, v: bool) -> Self {
        self.call = self.call.attr("no_bias", Value::Bool(v).to_mxnet_string());
        self
    }
    /// cuDNN algorithm selection (ignored) ({None, off, limited_workspace, fastest}, default `None`).
    pub fn cudnn_tune(mut self, v: &str) -> Self {
        self.call = self.call.attr("cudnn_tune", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// turn off cuDNN (ignored) (boolean, default `False`).
    pub fn cudnn_off(mut self, v: bool) -> Self {
        self.call = self.call.attr("cudnn_off", Value::Bool(v).to_mxnet_string());
        self
    }
    /// data layout; None means NCW, NCHW or NCDHW ({None, NCW, NCHW, NCDHW, NWC, NHWC, NDHWC}, default `None`).
    pub fn layout(mut self, v: &str) -> Self {
        self.call = self.call.attr("layout", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_copy`: returns a copy of the input
pub struct Copy<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_copy`.
#[track_caller]
pub fn copy<'a, T: Operand>() -> Copy<'a, T> {
    Copy { call: OpCall::new("_copy") }
}

impl<'a, T: Operand> Copy<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_div_scalar`: element-wise with a scalar parameter
pub struct DivScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_div_scalar`.
#[track_caller]
pub fn div_scalar<'a, T: Operand>() -> DivScalar<'a, T> {
    DivScalar { call: OpCall::new("_div_scalar") }
}

impl<'a, T: Operand> DivScalar<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scalar operand (float, default `1.0`).
    pub fn scalar(mut self, v: f64) -> Self {
        self.call = self.call.attr("scalar", Value::Float(v).to_mxnet_string());
        self
    }
    /// whether the scalar is an integer (MXNet 1.9) (boolean, default `True`).
    pub fn is_int(mut self, v: bool) -> Self {
        self.call = self.call.attr("is_int", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `dot`: Matrix product. Two 1-D inputs give their inner product, of shape (1,). Otherwise lhs is viewed as (prod(all but its last dim), last) — with transpose_a, as (first, prod(rest)) transposed — and rhs as (first, prod(rest)) — with transpose_b, as (prod(all but last), last) transposed; the output shape is lhs's remaining dims followed by rhs's.
pub struct Dot<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `dot`.
#[track_caller]
pub fn dot<'a, T: Operand>() -> Dot<'a, T> {
    Dot { call: OpCall::new("dot") }
}

impl<'a, T: Operand> Dot<'a, T> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// use the transpose of the first input (boolean, default `False`).
    pub fn transpose_a(mut self, v: bool) -> Self {
        self.call = self.call.attr("transpose_a", Value::Bool(v).to_mxnet_string());
        self
    }
    /// use the transpose of the second input (boolean, default `False`).
    pub fn transpose_b(mut self, v: bool) -> Self {
        self.call = self.call.attr("transpose_b", Value::Bool(v).to_mxnet_string());
        self
    }
    /// the output storage type MXNet may choose for sparse inputs (kiln's outputs are always dense) ({None, default, row_sparse, csr}, default `None`).
    pub fn forward_stype(mut self, v: &str) -> Self {
        self.call = self.call.attr("forward_stype", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_dot_out_2d`: dot's head gradient `ograd` viewed as the (M, N) product of dot's 2-D views of lhs (M x K after transpose_a) and rhs (K x N after transpose_b); lhs's and rhs's values are not read.
pub struct DotOut2d<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_dot_out_2d`.
#[track_caller]
pub fn dot_out_2d<'a, T: Operand>() -> DotOut2d<'a, T> {
    DotOut2d { call: OpCall::new("_dot_out_2d") }
}

impl<'a, T: Operand> DotOut2d<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// use the transpose of the first input (boolean, default `False`).
    pub fn transpose_a(mut self, v: bool) -> Self {
        self.call = self.call.attr("transpose_a", Value::Bool(v).to_mxnet_string());
        self
    }
    /// use the transpose of the second input (boolean, default `False`).
    pub fn transpose_b(mut self, v: bool) -> Self {
        self.call = self.call.attr("transpose_b", Value::Bool(v).to_mxnet_string());
        self
    }
    /// the output storage type MXNet may choose for sparse inputs (kiln's outputs are always dense) ({None, default, row_sparse, csr}, default `None`).
    pub fn forward_stype(mut self, v: &str) -> Self {
        self.call = self.call.attr("forward_stype", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `Dropout`: Dropout. When active (training, or mode=always) each mask value is 1/(1−p) with probability 1−p and 0 otherwise (kept iff the element's Philox uniform u < 1−p); `axes` lists dimensions that share one mask value (the mask has size 1 there). output = data·mask. Inactive: the identity, with a mask of ones. The mask is a hidden output.
pub struct Dropout<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `Dropout`.
#[track_caller]
pub fn dropout<'a, T: Operand>() -> Dropout<'a, T> {
    Dropout { call: OpCall::new("Dropout") }
}

impl<'a, T: Operand> Dropout<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// fraction of the input that gets dropped (float, default `0.5`).
    pub fn p(mut self, v: f64) -> Self {
        self.call = self.call.attr("p", Value::Float(v).to_mxnet_string());
        self
    }
    /// when dropout is applied ({always, training}, default `training`).
    pub fn mode(mut self, v: &str) -> Self {
        self.call = self.call.attr("mode", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// axes sharing one mask value (tuple of int, default `()`).
    pub fn axes(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("axes", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// turn off cuDNN (ignored) (boolean, optional, default `False`).
    pub fn cudnn_off(mut self, v: bool) -> Self {
        self.call = self.call.attr("cudnn_off", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `elemwise_add`: element-wise on two inputs of the same shape
pub struct ElemwiseAdd<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `elemwise_add`.
#[track_caller]
pub fn elemwise_add<'a, T: Operand>() -> ElemwiseAdd<'a, T> {
    ElemwiseAdd { call: OpCall::new("elemwise_add") }
}

impl<'a, T: Operand> ElemwiseAdd<'a, T> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `elemwise_div`: element-wise on two inputs of the same shape
pub struct ElemwiseDiv<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `elemwise_div`.
#[track_caller]
pub fn elemwise_div<'a, T: Operand>() -> ElemwiseDiv<'a, T> {
    ElemwiseDiv { call: OpCall::new("elemwise_div") }
}

impl<'a, T: Operand> ElemwiseDiv<'a, T> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `elemwise_mul`: element-wise on two inputs of the same shape
pub struct ElemwiseMul<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `elemwise_mul`.
#[track_caller]
pub fn elemwise_mul<'a, T: Operand>() -> ElemwiseMul<'a, T> {
    ElemwiseMul { call: OpCall::new("elemwise_mul") }
}

impl<'a, T: Operand> ElemwiseMul<'a, T> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `elemwise_sub`: element-wise on two inputs of the same shape
pub struct ElemwiseSub<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `elemwise_sub`.
#[track_caller]
pub fn elemwise_sub<'a, T: Operand>() -> ElemwiseSub<'a, T> {
    ElemwiseSub { call: OpCall::new("elemwise_sub") }
}

impl<'a, T: Operand> ElemwiseSub<'a, T> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `exp`: e^x
pub struct Exp<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `exp`.
#[track_caller]
pub fn exp<'a, T: Operand>() -> Exp<'a, T> {
    Exp { call: OpCall::new("exp") }
}

impl<'a, T: Operand> Exp<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `expand_dims`: Inserts a dimension of size 1 at `axis`.
pub struct ExpandDims<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `expand_dims`.
#[track_caller]
pub fn expand_dims<'a, T: Operand>() -> ExpandDims<'a, T> {
    ExpandDims { call: OpCall::new("expand_dims") }
}

impl<'a, T: Operand> ExpandDims<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// position of the new axis in the output, from -ndim-1 to ndim (int, required).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `Flatten`: Collapses every dimension after the first: (d0, d1, ..., dk) becomes (d0, d1*...*dk); a 1-D input (d0,) becomes (d0, 1).
pub struct Flatten<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `Flatten`.
#[track_caller]
pub fn flatten<'a, T: Operand>() -> Flatten<'a, T> {
    Flatten { call: OpCall::new("Flatten") }
}

impl<'a, T: Operand> Flatten<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `FullyConnected`: Fully connected layer: `out = data·weightᵀ + bias` with weight (num_hidden, in). flatten=True views data as (d0, prod(rest)); flatten=False applies to the last axis and keeps the leading ones.
pub struct FullyConnected<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `FullyConnected`.
#[track_caller]
pub fn fully_connected<'a, T: Operand>() -> FullyConnected<'a, T> {
    FullyConnected { call: OpCall::new("FullyConnected") }
}

impl<'a, T: Operand> FullyConnected<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `weight`.
    pub fn weight(mut self, s: &'a T) -> Self {
        self.call = self.call.input("weight", s);
        self
    }
    /// Input `bias`.
    pub fn bias(mut self, s: &'a T) -> Self {
        self.call = self.call.input("bias", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// number of hidden units (int, required).
    pub fn num_hidden(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_hidden", Value::Int(v).to_mxnet_string());
        self
    }
    /// whether to omit the bias (boolean, default `False`).
    pub fn no_bias(mut self, v: bool) -> Self {
        self.call = self.call.attr("no_bias", Value::Bool(v).to_mxnet_string());
        self
    }
    /// whether to collapse all but the first axis of the input (boolean, default `True`).
    pub fn flatten(mut self, v: bool) -> Self {
        self.call = self.call.attr("flatten", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `LeakyReLU`: Leaky rectifiers: leaky `x > 0 ? x : slope·x`; prelu with a learnt per-channel `gamma` (axis 1); rrelu with a slope drawn from U[lower_bound, upper_bound) per element in training ((lower+upper)/2 otherwise; the slopes are the second output, `mask`); elu `slope·(eˣ−1)` for x ≤ 0; selu; gelu (erf form).
pub struct LeakyReLu<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `LeakyReLU`.
#[track_caller]
pub fn leaky_re_lu<'a, T: Operand>() -> LeakyReLu<'a, T> {
    LeakyReLu { call: OpCall::new("LeakyReLU") }
}

impl<'a, T: Operand> LeakyReLu<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// activation function ({elu, gelu, leaky, prelu, rrelu, selu}, default `leaky`).
    pub fn act_type(mut self, v: &str) -> Self {
        self.call = self.call.attr("act_type", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// slope of leaky, and elu's scale (float, default `0.25`).
    pub fn slope(mut self, v: f64) -> Self {
        self.call = self.call.attr("slope", Value::Float(v).to_mxnet_string());
        self
    }
    /// rrelu: lowest random slope (float, default `0.125`).
    pub fn lower_bound(mut self, v: f64) -> Self {
        self.call = self.call.attr("lower_bound", Value::Float(v).to_mxnet_string());
        self
    }
    /// rrelu: highest random slope (float, default `0.334`).
    pub fn upper_bound(mut self, v: f64) -> Self {
        self.call = self.call.attr("upper_bound", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `LinearRegressionOutput`: Squared-loss head: forward is the identity; the gradient is (out − label)·grad_scale / (label.size / label.shape[0]). The label defaults to data's shape, or (n,) for (n, 1).
pub struct LinearRegressionOutput<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `LinearRegressionOutput`.
#[track_caller]
pub fn linear_regression_output<'a, T: Operand>() -> LinearRegressionOutput<'a, T> {
    LinearRegressionOutput { call: OpCall::new("LinearRegressionOutput") }
}

impl<'a, T: Operand> LinearRegressionOutput<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `label`.
    pub fn label(mut self, s: &'a T) -> Self {
        self.call = self.call.input("label", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scales the gradient (float, default `1.0`).
    pub fn grad_scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("grad_scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `log`: natural logarithm
pub struct Log<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `log`.
#[track_caller]
pub fn log<'a, T: Operand>() -> Log<'a, T> {
    Log { call: OpCall::new("log") }
}

impl<'a, T: Operand> Log<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `log_softmax`: `(x − max)/T − log Σ exp((x − max)/T)` along `axis`. MXNet 1.9.1's log_softmax declares use_length but has no `length` input, so use_length=True is rejected.
pub struct LogSoftmax<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `log_softmax`.
#[track_caller]
pub fn log_softmax<'a, T: Operand>() -> LogSoftmax<'a, T> {
    LogSoftmax { call: OpCall::new("log_softmax") }
}

impl<'a, T: Operand> LogSoftmax<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// axis to normalize (int, default `-1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// divides the input (None = 1) (float, optional, default `None`).
    pub fn temperature(mut self, v: f64) -> Self {
        self.call = self.call.attr("temperature", Value::Float(v).to_mxnet_string());
        self
    }
    /// output dtype (float16, float32 or float64; None = the input's) (dtype, optional, default `None`).
    pub fn dtype(mut self, v: DType) -> Self {
        self.call = self.call.attr("dtype", Value::DType(v).to_mxnet_string());
        self
    }
    /// take a `length` input: only the first length[i] entries along the axis take part (boolean, optional, default `False`).
    pub fn use_length(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_length", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `LogisticRegressionOutput`: Logistic head: forward is sigmoid(data); the gradient is (out − label)·grad_scale / (label.size / label.shape[0]). The label defaults to data's shape, or (n,) for (n, 1).
pub struct LogisticRegressionOutput<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `LogisticRegressionOutput`.
#[track_caller]
pub fn logistic_regression_output<'a, T: Operand>() -> LogisticRegressionOutput<'a, T> {
    LogisticRegressionOutput { call: OpCall::new("LogisticRegressionOutput") }
}

impl<'a, T: Operand> LogisticRegressionOutput<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `label`.
    pub fn label(mut self, s: &'a T) -> Self {
        self.call = self.call.input("label", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scales the gradient (float, default `1.0`).
    pub fn grad_scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("grad_scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `LRN`: Local response normalization across channels of NCHW data: `tmp_norm_c = knorm + alpha/nsize · Σ_{|j−c| ≤ nsize/2} x_j²`, `out_c = x_c · tmp_norm_c^(−beta)`; the window is clipped at the first and last channel, and tmp_norm is a hidden output.
pub struct Lrn<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `LRN`.
#[track_caller]
pub fn lrn<'a, T: Operand>() -> Lrn<'a, T> {
    Lrn { call: OpCall::new("LRN") }
}

impl<'a, T: Operand> Lrn<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scale of the sum of squares (float, default `0.0001`).
    pub fn alpha(mut self, v: f64) -> Self {
        self.call = self.call.attr("alpha", Value::Float(v).to_mxnet_string());
        self
    }
    /// exponent of the normalizer (float, default `0.75`).
    pub fn beta(mut self, v: f64) -> Self {
        self.call = self.call.attr("beta", Value::Float(v).to_mxnet_string());
        self
    }
    /// additive constant (float, default `2.0`).
    pub fn knorm(mut self, v: f64) -> Self {
        self.call = self.call.attr("knorm", Value::Float(v).to_mxnet_string());
        self
    }
    /// channels in the window (odd in practice) (int, required).
    pub fn nsize(mut self, v: i64) -> Self {
        self.call = self.call.attr("nsize", Value::Int(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `MAERegressionOutput`: Absolute-loss head: forward is the identity; the gradient is sign(out − label)·grad_scale / (label.size / label.shape[0]). The label defaults to data's shape, or (n,) for (n, 1).
pub struct MaeRegressionOutput<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `MAERegressionOutput`.
#[track_caller]
pub fn mae_regression_output<'a, T: Operand>() -> MaeRegressionOutput<'a, T> {
    MaeRegressionOutput { call: OpCall::new("MAERegressionOutput") }
}

impl<'a, T: Operand> MaeRegressionOutput<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `label`.
    pub fn label(mut self, s: &'a T) -> Self {
        self.call = self.call.input("label", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scales the gradient (float, default `1.0`).
    pub fn grad_scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("grad_scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `max`: Maximum over the given axes.
pub struct Max<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `max`.
#[track_caller]
pub fn max<'a, T: Operand>() -> Max<'a, T> {
    Max { call: OpCall::new("max") }
}

impl<'a, T: Operand> Max<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axes to reduce (None or (): all of them); negative counts from the end (int or tuple of int, optional, default `None`).
    pub fn axis(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("axis", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// keep the reduced axes, with size 1 (boolean, default `False`).
    pub fn keepdims(mut self, v: bool) -> Self {
        self.call = self.call.attr("keepdims", Value::Bool(v).to_mxnet_string());
        self
    }
    /// reduce over the axes not listed in `axis` (boolean, default `False`).
    pub fn exclude(mut self, v: bool) -> Self {
        self.call = self.call.attr("exclude", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `mean`: Mean over the given axes.
pub struct Mean<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `mean`.
#[track_caller]
pub fn mean<'a, T: Operand>() -> Mean<'a, T> {
    Mean { call: OpCall::new("mean") }
}

impl<'a, T: Operand> Mean<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axes to reduce (None or (): all of them); negative counts from the end (int or tuple of int, optional, default `None`).
    pub fn axis(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("axis", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// keep the reduced axes, with size 1 (boolean, default `False`).
    pub fn keepdims(mut self, v: bool) -> Self {
        self.call = self.call.attr("keepdims", Value::Bool(v).to_mxnet_string());
        self
    }
    /// reduce over the axes not listed in `axis` (boolean, default `False`).
    pub fn exclude(mut self, v: bool) -> Self {
        self.call = self.call.attr("exclude", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `min`: Minimum over the given axes.
pub struct Min<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `min`.
#[track_caller]
pub fn min<'a, T: Operand>() -> Min<'a, T> {
    Min { call: OpCall::new("min") }
}

impl<'a, T: Operand> Min<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axes to reduce (None or (): all of them); negative counts from the end (int or tuple of int, optional, default `None`).
    pub fn axis(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("axis", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// keep the reduced axes, with size 1 (boolean, default `False`).
    pub fn keepdims(mut self, v: bool) -> Self {
        self.call = self.call.attr("keepdims", Value::Bool(v).to_mxnet_string());
        self
    }
    /// reduce over the axes not listed in `axis` (boolean, default `False`).
    pub fn exclude(mut self, v: bool) -> Self {
        self.call = self.call.attr("exclude", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_minus_scalar`: element-wise with a scalar parameter
pub struct MinusScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_minus_scalar`.
#[track_caller]
pub fn minus_scalar<'a, T: Operand>() -> MinusScalar<'a, T> {
    MinusScalar { call: OpCall::new("_minus_scalar") }
}

impl<'a, T: Operand> MinusScalar<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scalar operand (float, default `1.0`).
    pub fn scalar(mut self, v: f64) -> Self {
        self.call = self.call.attr("scalar", Value::Float(v).to_mxnet_string());
        self
    }
    /// whether the scalar is an integer (MXNet 1.9) (boolean, default `True`).
    pub fn is_int(mut self, v: bool) -> Self {
        self.call = self.call.attr("is_int", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_mul_scalar`: element-wise with a scalar parameter
pub struct MulScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_mul_scalar`.
#[track_caller]
pub fn mul_scalar<'a, T: Operand>() -> MulScalar<'a, T> {
    MulScalar { call: OpCall::new("_mul_scalar") }
}

impl<'a, T: Operand> MulScalar<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scalar operand (float, default `1.0`).
    pub fn scalar(mut self, v: f64) -> Self {
        self.call = self.call.attr("scalar", Value::Float(v).to_mxnet_string());
        self
    }
    /// whether the scalar is an integer (MXNet 1.9) (boolean, default `True`).
    pub fn is_int(mut self, v: bool) -> Self {
        self.call = self.call.attr("is_int", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `negative`: -x
pub struct Negative<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `negative`.
#[track_caller]
pub fn negative<'a, T: Operand>() -> Negative<'a, T> {
    Negative { call: OpCall::new("negative") }
}

impl<'a, T: Operand> Negative<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_plus_scalar`: element-wise with a scalar parameter
pub struct PlusScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_plus_scalar`.
#[track_caller]
pub fn plus_scalar<'a, T: Operand>() -> PlusScalar<'a, T> {
    PlusScalar { call: OpCall::new("_plus_scalar") }
}

impl<'a, T: Operand> PlusScalar<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scalar operand (float, default `1.0`).
    pub fn scalar(mut self, v: f64) -> Self {
        self.call = self.call.attr("scalar", Value::Float(v).to_mxnet_string());
        self
    }
    /// whether the scalar is an integer (MXNet 1.9) (boolean, default `True`).
    pub fn is_int(mut self, v: bool) -> Self {
        self.call = self.call.attr("is_int", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `Pooling`: Pooling over 1 to 3 spatial dimensions. Output size per dimension: valid floor((x+2p−k)/s)+1, full ceil((x+2p−k)/s)+1, same ceil(x/s) (1-D only). Stride defaults to 1. Windows are clipped to the input; avg divides by the window clipped to the padded input (count_include_pad, the default) or to the real input. global_pool pools every spatial dimension to 1.
pub struct Pooling<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `Pooling`.
#[track_caller]
pub fn pooling<'a, T: Operand>() -> Pooling<'a, T> {
    Pooling { call: OpCall::new("Pooling") }
}

impl<'a, T: Operand> Pooling<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// window size: (w,), (h, w) or (d, h, w) (tuple of int, default `()`).
    pub fn kernel(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("kernel", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// pooling function ({avg, lp, max, sum}, default `max`).
    pub fn pool_type(mut self, v: &str) -> Self {
        self.call = self.call.attr("pool_type", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// pool over all spatial dims (boolean, default `False`).
    pub fn global_pool(mut self, v: bool) -> Self {
        self.call = self.call.attr("global_pool", Value::Bool(v).to_mxnet_string());
        self
    }
    /// turn off cuDNN (ignored) (boolean, default `False`).
    pub fn cudnn_off(mut self, v: bool) -> Self {
        self.call = self.call.attr("cudnn_off", Value::Bool(v).to_mxnet_string());
        self
    }
    /// output size rounding ({full, same, valid}, default `valid`).
    pub fn pooling_convention(mut self, v: &str) -> Self {
        self.call = self.call.attr("pooling_convention", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// stride; () means 1 per dimension (tuple of int, default `()`).
    pub fn stride(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("stride", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// padding; () means 0 per dimension (tuple of int, default `()`).
    pub fn pad(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("pad", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// p of lp pooling (1, 2 or 3) (int, optional, default `None`).
    pub fn p_value(mut self, v: i64) -> Self {
        self.call = self.call.attr("p_value", Value::Int(v).to_mxnet_string());
        self
    }
    /// avg: count padding in the divisor (None means True) (boolean, optional, default `None`).
    pub fn count_include_pad(mut self, v: bool) -> Self {
        self.call = self.call.attr("count_include_pad", Value::Bool(v).to_mxnet_string());
        self
    }
    /// data layout; None means NCW, NCHW or NCDHW ({None, NCW, NCHW, NCDHW, NWC, NHWC, NDHWC}, default `None`).
    pub fn layout(mut self, v: &str) -> Self {
        self.call = self.call.attr("layout", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `prod`: Product over the given axes.
pub struct Prod<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `prod`.
#[track_caller]
pub fn prod<'a, T: Operand>() -> Prod<'a, T> {
    Prod { call: OpCall::new("prod") }
}

impl<'a, T: Operand> Prod<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axes to reduce (None or (): all of them); negative counts from the end (int or tuple of int, optional, default `None`).
    pub fn axis(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("axis", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// keep the reduced axes, with size 1 (boolean, default `False`).
    pub fn keepdims(mut self, v: bool) -> Self {
        self.call = self.call.attr("keepdims", Value::Bool(v).to_mxnet_string());
        self
    }
    /// reduce over the axes not listed in `axis` (boolean, default `False`).
    pub fn exclude(mut self, v: bool) -> Self {
        self.call = self.call.attr("exclude", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_random_normal`: Samples from a normal distribution (Box–Muller over two Philox streams).
pub struct RandomNormal<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_random_normal`.
#[track_caller]
pub fn random_normal<'a, T: Operand>() -> RandomNormal<'a, T> {
    RandomNormal { call: OpCall::new("_random_normal") }
}

impl<'a, T: Operand> RandomNormal<'a, T> {
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// mean (float, default `0.0`).
    pub fn loc(mut self, v: f64) -> Self {
        self.call = self.call.attr("loc", Value::Float(v).to_mxnet_string());
        self
    }
    /// standard deviation (float, default `1.0`).
    pub fn scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// output shape (tuple of int, default `()`).
    pub fn shape(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("shape", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// device (ignored: arrays say where they live) (string, default ``).
    pub fn ctx(mut self, v: &str) -> Self {
        self.call = self.call.attr("ctx", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// output dtype (None: float32) ({None, float16, float32, float64}, default `None`).
    pub fn dtype(mut self, v: &str) -> Self {
        self.call = self.call.attr("dtype", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_random_uniform`: Samples uniformly from [low, high).
pub struct RandomUniform<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_random_uniform`.
#[track_caller]
pub fn random_uniform<'a, T: Operand>() -> RandomUniform<'a, T> {
    RandomUniform { call: OpCall::new("_random_uniform") }
}

impl<'a, T: Operand> RandomUniform<'a, T> {
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// lower bound (float, default `0.0`).
    pub fn low(mut self, v: f64) -> Self {
        self.call = self.call.attr("low", Value::Float(v).to_mxnet_string());
        self
    }
    /// upper bound (exclusive) (float, default `1.0`).
    pub fn high(mut self, v: f64) -> Self {
        self.call = self.call.attr("high", Value::Float(v).to_mxnet_string());
        self
    }
    /// output shape (tuple of int, default `()`).
    pub fn shape(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("shape", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// device (ignored: arrays say where they live) (string, default ``).
    pub fn ctx(mut self, v: &str) -> Self {
        self.call = self.call.attr("ctx", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// output dtype (None: float32) ({None, float16, float32, float64}, default `None`).
    pub fn dtype(mut self, v: &str) -> Self {
        self.call = self.call.attr("dtype", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_rdiv_scalar`: element-wise with a scalar parameter
pub struct RdivScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_rdiv_scalar`.
#[track_caller]
pub fn rdiv_scalar<'a, T: Operand>() -> RdivScalar<'a, T> {
    RdivScalar { call: OpCall::new("_rdiv_scalar") }
}

impl<'a, T: Operand> RdivScalar<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scalar operand (float, default `1.0`).
    pub fn scalar(mut self, v: f64) -> Self {
        self.call = self.call.attr("scalar", Value::Float(v).to_mxnet_string());
        self
    }
    /// whether the scalar is an integer (MXNet 1.9) (boolean, default `True`).
    pub fn is_int(mut self, v: bool) -> Self {
        self.call = self.call.attr("is_int", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `relu`: max(x, 0)
pub struct Relu<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `relu`.
#[track_caller]
pub fn relu<'a, T: Operand>() -> Relu<'a, T> {
    Relu { call: OpCall::new("relu") }
}

impl<'a, T: Operand> Relu<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `Reshape`: Gives the input a new shape without changing its data. `shape` may hold special codes: 0 copies an input dimension, -1 infers one dimension from the size, -2 copies all remaining input dimensions, -3 merges two input dimensions, -4 splits one input dimension into the two values that follow it (one of them may be -1). With `reverse`, codes are matched from right to left.
pub struct Reshape<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `Reshape`.
#[track_caller]
pub fn reshape<'a, T: Operand>() -> Reshape<'a, T> {
    Reshape { call: OpCall::new("Reshape") }
}

impl<'a, T: Operand> Reshape<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the target shape, with special codes 0, -1, -2, -3, -4 (tuple of int, default `()`).
    pub fn shape(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("shape", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// match the special codes from right to left (boolean, default `False`).
    pub fn reverse(mut self, v: bool) -> Self {
        self.call = self.call.attr("reverse", Value::Bool(v).to_mxnet_string());
        self
    }
    /// (deprecated, use `shape`) the target shape; a single 0 is inferred (tuple of int, default `()`).
    pub fn target_shape(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("target_shape", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// (deprecated, use `shape`) keep the first input dimension in place of the first entry of `target_shape` (boolean, default `False`).
    pub fn keep_highest(mut self, v: bool) -> Self {
        self.call = self.call.attr("keep_highest", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `reshape_like`: Gives lhs the shape of rhs without changing its data (rhs's values are not read). With lhs_begin/lhs_end and rhs_begin/rhs_end, only lhs's dimensions [lhs_begin, lhs_end) are replaced, by rhs's dimensions [rhs_begin, rhs_end). Negative indices count from the end; None means the start (begin) or the end (end). The sizes must agree.
pub struct ReshapeLike<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `reshape_like`.
#[track_caller]
pub fn reshape_like<'a, T: Operand>() -> ReshapeLike<'a, T> {
    ReshapeLike { call: OpCall::new("reshape_like") }
}

impl<'a, T: Operand> ReshapeLike<'a, T> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a T) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// first lhs dimension replaced (None: 0) (int, optional, default `None`).
    pub fn lhs_begin(mut self, v: i64) -> Self {
        self.call = self.call.attr("lhs_begin", Value::Int(v).to_mxnet_string());
        self
    }
    /// end (exclusive) of the lhs dimensions replaced (None: all) (int, optional, default `None`).
    pub fn lhs_end(mut self, v: i64) -> Self {
        self.call = self.call.attr("lhs_end", Value::Int(v).to_mxnet_string());
        self
    }
    /// first rhs dimension used (None: 0) (int, optional, default `None`).
    pub fn rhs_begin(mut self, v: i64) -> Self {
        self.call = self.call.attr("rhs_begin", Value::Int(v).to_mxnet_string());
        self
    }
    /// end (exclusive) of the rhs dimensions used (None: all) (int, optional, default `None`).
    pub fn rhs_end(mut self, v: i64) -> Self {
        self.call = self.call.attr("rhs_end", Value::Int(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `_rminus_scalar`: element-wise with a scalar parameter
pub struct RminusScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_rminus_scalar`.
#[track_caller]
pub fn rminus_scalar<'a, T: Operand>() -> RminusScalar<'a, T> {
    RminusScalar { call: OpCall::new("_rminus_scalar") }
}

impl<'a, T: Operand> RminusScalar<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scalar operand (float, default `1.0`).
    pub fn scalar(mut self, v: f64) -> Self {
        self.call = self.call.attr("scalar", Value::Float(v).to_mxnet_string());
        self
    }
    /// whether the scalar is an integer (MXNet 1.9) (boolean, default `True`).
    pub fn is_int(mut self, v: bool) -> Self {
        self.call = self.call.attr("is_int", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `sigmoid`: 1 / (1 + exp(-x))
pub struct Sigmoid<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `sigmoid`.
#[track_caller]
pub fn sigmoid<'a, T: Operand>() -> Sigmoid<'a, T> {
    Sigmoid { call: OpCall::new("sigmoid") }
}

impl<'a, T: Operand> Sigmoid<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `slice`: Slices the leading axes: along axis i, indices begin[i], begin[i]+step[i], ... up to end[i] (exclusive). Negative indices count from the end and out-of-range bounds are clamped; a None begin/end means the start/end of the axis (for a negative step, the last index and past the first).
pub struct Slice<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `slice`.
#[track_caller]
pub fn slice<'a, T: Operand>() -> Slice<'a, T> {
    Slice { call: OpCall::new("slice") }
}

impl<'a, T: Operand> Slice<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// first index per leading axis (None: the start, or the end for a negative step) (tuple of int-or-None, required).
    pub fn begin(mut self, v: &[Option<i64>]) -> Self {
        self.call = self.call.attr("begin", Value::OptTuple(v.to_vec()).to_mxnet_string());
        self
    }
    /// exclusive end index per leading axis (None: past the end, or before the start for a negative step) (tuple of int-or-None, required).
    pub fn end(mut self, v: &[Option<i64>]) -> Self {
        self.call = self.call.attr("end", Value::OptTuple(v.to_vec()).to_mxnet_string());
        self
    }
    /// step per leading axis (empty or None: 1) (tuple of int-or-None, default `()`).
    pub fn step(mut self, v: &[Option<i64>]) -> Self {
        self.call = self.call.attr("step", Value::OptTuple(v.to_vec()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `slice_axis`: Slices one axis: indices begin..end (exclusive) along `axis`. Negative indices count from the end; end None means the end of the axis.
pub struct SliceAxis<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `slice_axis`.
#[track_caller]
pub fn slice_axis<'a, T: Operand>() -> SliceAxis<'a, T> {
    SliceAxis { call: OpCall::new("slice_axis") }
}

impl<'a, T: Operand> SliceAxis<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axis to slice (negative counts from the end) (int, required).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// first index (negative counts from the end) (int, required).
    pub fn begin(mut self, v: i64) -> Self {
        self.call = self.call.attr("begin", Value::Int(v).to_mxnet_string());
        self
    }
    /// exclusive end index (None: the end of the axis; negative counts from the end) (int, optional, required).
    pub fn end(mut self, v: i64) -> Self {
        self.call = self.call.attr("end", Value::Int(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `SliceChannel`: Splits the input into `num_outputs` equal parts along `axis` (outputs output0, output1, ...). `squeeze_axis` removes that axis from the outputs, which needs its size to equal num_outputs.
pub struct SliceChannel<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `SliceChannel`.
#[track_caller]
pub fn slice_channel<'a, T: Operand>() -> SliceChannel<'a, T> {
    SliceChannel { call: OpCall::new("SliceChannel") }
}

impl<'a, T: Operand> SliceChannel<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// number of parts; must divide the size of `axis` (int, required).
    pub fn num_outputs(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_outputs", Value::Int(v).to_mxnet_string());
        self
    }
    /// the axis to split (negative counts from the end) (int, default `1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// remove the split axis from the outputs (boolean, default `False`).
    pub fn squeeze_axis(mut self, v: bool) -> Self {
        self.call = self.call.attr("squeeze_axis", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `softmax`: `exp((x − max)/T) / Σ exp((x − max)/T)` along `axis`. With use_length, entries at or beyond length[i] along the axis are 0 and take no part.
pub struct Softmax<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `softmax`.
#[track_caller]
pub fn softmax<'a, T: Operand>() -> Softmax<'a, T> {
    Softmax { call: OpCall::new("softmax") }
}

impl<'a, T: Operand> Softmax<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// axis to normalize (int, default `-1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// divides the input (None = 1) (float, optional, default `None`).
    pub fn temperature(mut self, v: f64) -> Self {
        self.call = self.call.attr("temperature", Value::Float(v).to_mxnet_string());
        self
    }
    /// output dtype (float16, float32 or float64; None = the input's) (dtype, optional, default `None`).
    pub fn dtype(mut self, v: DType) -> Self {
        self.call = self.call.attr("dtype", Value::DType(v).to_mxnet_string());
        self
    }
    /// take a `length` input: only the first length[i] entries along the axis take part (boolean, optional, default `False`).
    pub fn use_length(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_length", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `SoftmaxActivation`: Legacy softmax: mode=instance normalizes over the last axis (MXNet views the data as 2-D by collapsing all leading axes, so for 2-D data each row is an instance); mode=channel normalizes over axis 1 at every position (data of at least 3 dimensions).
pub struct SoftmaxActivation<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `SoftmaxActivation`.
#[track_caller]
pub fn softmax_activation<'a, T: Operand>() -> SoftmaxActivation<'a, T> {
    SoftmaxActivation { call: OpCall::new("SoftmaxActivation") }
}

impl<'a, T: Operand> SoftmaxActivation<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// what to normalize over ({channel, instance}, default `instance`).
    pub fn mode(mut self, v: &str) -> Self {
        self.call = self.call.attr("mode", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `SoftmaxOutput`: Softmax with a cross-entropy gradient. Forward: softmax over axis 1 of data viewed as (n, rest); multi_output: over axis 1 of (n, k, rest); preserve_shape: over the last axis. The label is data's shape minus the last axis by default ((n, rest/k) with multi_output); a label shaped like data is a probability target.
pub struct SoftmaxOutput<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `SoftmaxOutput`.
#[track_caller]
pub fn softmax_output<'a, T: Operand>() -> SoftmaxOutput<'a, T> {
    SoftmaxOutput { call: OpCall::new("SoftmaxOutput") }
}

impl<'a, T: Operand> SoftmaxOutput<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `label`.
    pub fn label(mut self, s: &'a T) -> Self {
        self.call = self.call.input("label", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// scales the gradient (float, default `1.0`).
    pub fn grad_scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("grad_scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// label ignored with use_ignore (float, default `-1.0`).
    pub fn ignore_label(mut self, v: f64) -> Self {
        self.call = self.call.attr("ignore_label", Value::Float(v).to_mxnet_string());
        self
    }
    /// softmax over axis 1 per position (boolean, default `False`).
    pub fn multi_output(mut self, v: bool) -> Self {
        self.call = self.call.attr("multi_output", Value::Bool(v).to_mxnet_string());
        self
    }
    /// skip rows labelled ignore_label (boolean, default `False`).
    pub fn use_ignore(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_ignore", Value::Bool(v).to_mxnet_string());
        self
    }
    /// softmax over the last axis (boolean, default `False`).
    pub fn preserve_shape(mut self, v: bool) -> Self {
        self.call = self.call.attr("preserve_shape", Value::Bool(v).to_mxnet_string());
        self
    }
    /// how the gradient is normalized ({batch, null, valid}, default `null`).
    pub fn normalization(mut self, v: &str) -> Self {
        self.call = self.call.attr("normalization", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// multiply by the head gradient (boolean, default `False`).
    pub fn out_grad(mut self, v: bool) -> Self {
        self.call = self.call.attr("out_grad", Value::Bool(v).to_mxnet_string());
        self
    }
    /// label smoothing (float, default `0.0`).
    pub fn smooth_alpha(mut self, v: f64) -> Self {
        self.call = self.call.attr("smooth_alpha", Value::Float(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `sqrt`: square root
pub struct Sqrt<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `sqrt`.
#[track_caller]
pub fn sqrt<'a, T: Operand>() -> Sqrt<'a, T> {
    Sqrt { call: OpCall::new("sqrt") }
}

impl<'a, T: Operand> Sqrt<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `square`: x * x
pub struct Square<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `square`.
#[track_caller]
pub fn square<'a, T: Operand>() -> Square<'a, T> {
    Square { call: OpCall::new("square") }
}

impl<'a, T: Operand> Square<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `squeeze`: Removes dimensions of size 1: those listed in `axis`, or every one. An input of all ones becomes (1,).
pub struct Squeeze<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `squeeze`.
#[track_caller]
pub fn squeeze<'a, T: Operand>() -> Squeeze<'a, T> {
    Squeeze { call: OpCall::new("squeeze") }
}

impl<'a, T: Operand> Squeeze<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the size-1 axes to remove (None: all of them) (int or tuple of int, optional, default `None`).
    pub fn axis(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("axis", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `sum`: Sum over the given axes.
pub struct Sum<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `sum`.
#[track_caller]
pub fn sum<'a, T: Operand>() -> Sum<'a, T> {
    Sum { call: OpCall::new("sum") }
}

impl<'a, T: Operand> Sum<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axes to reduce (None or (): all of them); negative counts from the end (int or tuple of int, optional, default `None`).
    pub fn axis(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("axis", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// keep the reduced axes, with size 1 (boolean, default `False`).
    pub fn keepdims(mut self, v: bool) -> Self {
        self.call = self.call.attr("keepdims", Value::Bool(v).to_mxnet_string());
        self
    }
    /// reduce over the axes not listed in `axis` (boolean, default `False`).
    pub fn exclude(mut self, v: bool) -> Self {
        self.call = self.call.attr("exclude", Value::Bool(v).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `tanh`: hyperbolic tangent
pub struct Tanh<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `tanh`.
#[track_caller]
pub fn tanh<'a, T: Operand>() -> Tanh<'a, T> {
    Tanh { call: OpCall::new("tanh") }
}

impl<'a, T: Operand> Tanh<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `transpose`: Permutes the axes: output axis i is input axis axes[i]. Empty `axes` reverses the axes.
pub struct Transpose<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `transpose`.
#[track_caller]
pub fn transpose<'a, T: Operand>() -> Transpose<'a, T> {
    Transpose { call: OpCall::new("transpose") }
}

impl<'a, T: Operand> Transpose<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the permutation (empty: reverse the axes) (tuple of int, default `()`).
    pub fn axes(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("axes", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

/// `zeros_like`: Zeros of the input's shape and dtype.
pub struct ZerosLike<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `zeros_like`.
#[track_caller]
pub fn zeros_like<'a, T: Operand>() -> ZerosLike<'a, T> {
    ZerosLike { call: OpCall::new("zeros_like") }
}

impl<'a, T: Operand> ZerosLike<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Applies the operator (a Symbol builds a node, an NDArray runs it).
    pub fn build(self) -> Result<T::Output> {
        self.call.build()
    }
}

