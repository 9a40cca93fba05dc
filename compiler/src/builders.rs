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

/// `arccos`: inverse cosine, in \[0, pi\]
pub struct Arccos<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `arccos`.
#[track_caller]
pub fn arccos<'a, T: Operand>() -> Arccos<'a, T> {
    Arccos { call: OpCall::new("arccos") }
}

impl<'a, T: Operand> Arccos<'a, T> {
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

/// `arccosh`: inverse hyperbolic cosine (x >= 1)
pub struct Arccosh<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `arccosh`.
#[track_caller]
pub fn arccosh<'a, T: Operand>() -> Arccosh<'a, T> {
    Arccosh { call: OpCall::new("arccosh") }
}

impl<'a, T: Operand> Arccosh<'a, T> {
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

/// `arcsin`: inverse sine, in \[-pi/2, pi/2\]
pub struct Arcsin<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `arcsin`.
#[track_caller]
pub fn arcsin<'a, T: Operand>() -> Arcsin<'a, T> {
    Arcsin { call: OpCall::new("arcsin") }
}

impl<'a, T: Operand> Arcsin<'a, T> {
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

/// `arcsinh`: inverse hyperbolic sine
pub struct Arcsinh<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `arcsinh`.
#[track_caller]
pub fn arcsinh<'a, T: Operand>() -> Arcsinh<'a, T> {
    Arcsinh { call: OpCall::new("arcsinh") }
}

impl<'a, T: Operand> Arcsinh<'a, T> {
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

/// `arctan`: inverse tangent, in (-pi/2, pi/2)
pub struct Arctan<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `arctan`.
#[track_caller]
pub fn arctan<'a, T: Operand>() -> Arctan<'a, T> {
    Arctan { call: OpCall::new("arctan") }
}

impl<'a, T: Operand> Arctan<'a, T> {
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

/// `arctanh`: inverse hyperbolic tangent (|x| < 1)
pub struct Arctanh<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `arctanh`.
#[track_caller]
pub fn arctanh<'a, T: Operand>() -> Arctanh<'a, T> {
    Arctanh { call: OpCall::new("arctanh") }
}

impl<'a, T: Operand> Arctanh<'a, T> {
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

/// `argmax`: Index of the maximum along `axis` (of the flattened input when axis is None), in the input's dtype; ties give the first index, and a NaN counts as the maximum.
pub struct Argmax<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `argmax`.
#[track_caller]
pub fn argmax<'a, T: Operand>() -> Argmax<'a, T> {
    Argmax { call: OpCall::new("argmax") }
}

impl<'a, T: Operand> Argmax<'a, T> {
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
    /// the axis to search (None: the flattened input); negative counts from the end (int, optional, default `None`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// keep the searched axis (every axis when axis is None) with size 1 (boolean, default `False`).
    pub fn keepdims(mut self, v: bool) -> Self {
        self.call = self.call.attr("keepdims", Value::Bool(v).to_mxnet_string());
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

/// `argmin`: Index of the minimum along `axis` (of the flattened input when axis is None), in the input's dtype; ties give the first index, and a NaN counts as the minimum.
pub struct Argmin<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `argmin`.
#[track_caller]
pub fn argmin<'a, T: Operand>() -> Argmin<'a, T> {
    Argmin { call: OpCall::new("argmin") }
}

impl<'a, T: Operand> Argmin<'a, T> {
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
    /// the axis to search (None: the flattened input); negative counts from the end (int, optional, default `None`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// keep the searched axis (every axis when axis is None) with size 1 (boolean, default `False`).
    pub fn keepdims(mut self, v: bool) -> Self {
        self.call = self.call.attr("keepdims", Value::Bool(v).to_mxnet_string());
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

/// `argsort`: The indices that sort the input along `axis` (flat indices when axis is None), ascending unless is_ascend is False, as `dtype`; ties keep their order. The gradient is zero.
pub struct Argsort<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `argsort`.
#[track_caller]
pub fn argsort<'a, T: Operand>() -> Argsort<'a, T> {
    Argsort { call: OpCall::new("argsort") }
}

impl<'a, T: Operand> Argsort<'a, T> {
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
    /// the axis to sort along (None: the flattened input); negative counts from the end (int, optional, default `-1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// ascending (True) or descending order (boolean, default `True`).
    pub fn is_ascend(mut self, v: bool) -> Self {
        self.call = self.call.attr("is_ascend", Value::Bool(v).to_mxnet_string());
        self
    }
    /// dtype of the indices ({float16, float32, float64, int32, int64, uint8}, default `float32`).
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

/// `_backward_Convolution_col2im`: A strided convolution's data gradient from its columns (n, C, k..., o...): each column entry added at the input position its output position and tap read (col2im). The second input, the convolution's data, gives the shape. Takes the convolution's parameters (channel-first layouts).
pub struct BackwardConvolutionCol2im<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_Convolution_col2im`.
#[track_caller]
pub fn backward_convolution_col2im<'a, T: Operand>() -> BackwardConvolutionCol2im<'a, T> {
    BackwardConvolutionCol2im { call: OpCall::new("_backward_Convolution_col2im") }
}

impl<'a, T: Operand> BackwardConvolutionCol2im<'a, T> {
    /// Input `cols`.
    pub fn cols(mut self, s: &'a T) -> Self {
        self.call = self.call.input("cols", s);
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

/// `_backward_Convolution_cols`: The columns of a strided convolution's data gradient: from ograd (n, F, o...) and weight (F, C/num_group, k...), cols (n, C, k..., o...) = weightᵀ·ograd within each group. Takes the convolution's parameters (channel-first layouts).
pub struct BackwardConvolutionCols<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_Convolution_cols`.
#[track_caller]
pub fn backward_convolution_cols<'a, T: Operand>() -> BackwardConvolutionCols<'a, T> {
    BackwardConvolutionCols { call: OpCall::new("_backward_Convolution_cols") }
}

impl<'a, T: Operand> BackwardConvolutionCols<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
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

/// `_backward_Deconvolution`: Gradient of Deconvolution: from ograd, data and weight, the gradients of data (the convolution of ograd), weight (data correlated with ograd) and bias (ograd summed over batch and space). Takes the forward's parameters.
pub struct BackwardDeconvolution<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_Deconvolution`.
#[track_caller]
pub fn backward_deconvolution<'a, T: Operand>() -> BackwardDeconvolution<'a, T> {
    BackwardDeconvolution { call: OpCall::new("_backward_Deconvolution") }
}

impl<'a, T: Operand> BackwardDeconvolution<'a, T> {
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
    /// stride of the corresponding convolution; () means 1 per dimension (tuple of int, default `()`).
    pub fn stride(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("stride", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// dilation; () means 1 per dimension (tuple of int, default `()`).
    pub fn dilate(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("dilate", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// padding of the corresponding convolution; () means 0 (ignored with target_shape) (tuple of int, default `()`).
    pub fn pad(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("pad", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// added to the output size, below the stride; () means 0 (ignored with target_shape) (tuple of int, default `()`).
    pub fn adj(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("adj", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// output spatial size; derives pad and adj when set (tuple of int, default `()`).
    pub fn target_shape(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("target_shape", Value::Shape(v.to_vec()).to_mxnet_string());
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
    /// MXNet workspace limit in MB (ignored) (int, default `512`).
    pub fn workspace(mut self, v: i64) -> Self {
        self.call = self.call.attr("workspace", Value::Int(v).to_mxnet_string());
        self
    }
    /// whether to omit the bias (boolean, default `True`).
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
    /// data layout; None means NCW, NCHW or NCDHW ({None, NCW, NCHW, NCDHW, NHWC, NDHWC}, default `None`).
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

/// `_backward_diag`: The gradient of diag: for a 1-D `data`, diagonal k of `ograd`; otherwise `ograd` written on the diagonal of zeros of data's shape (data's values are not read).
pub struct BackwardDiag<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_diag`.
#[track_caller]
pub fn backward_diag<'a, T: Operand>() -> BackwardDiag<'a, T> {
    BackwardDiag { call: OpCall::new("_backward_diag") }
}

impl<'a, T: Operand> BackwardDiag<'a, T> {
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
    /// the diagonal: 0 the main one, k > 0 above it, k < 0 below it (int, default `0`).
    pub fn k(mut self, v: i64) -> Self {
        self.call = self.call.attr("k", Value::Int(v).to_mxnet_string());
        self
    }
    /// first axis of the matrices (ignored for a 1-D input) (int, default `0`).
    pub fn axis1(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis1", Value::Int(v).to_mxnet_string());
        self
    }
    /// second axis of the matrices (ignored for a 1-D input) (int, default `1`).
    pub fn axis2(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis2", Value::Int(v).to_mxnet_string());
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
    /// read the forward output instead of the inputs (unary operators only) (boolean, default `False`).
    pub fn from_output(mut self, v: bool) -> Self {
        self.call = self.call.attr("from_output", Value::Bool(v).to_mxnet_string());
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

/// `_backward_gather_nd`: The gradient of gather_nd: each slice of `ograd` added into zeros of `data`'s shape where gather_nd read it (data's values are not read).
pub struct BackwardGatherNd<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_gather_nd`.
#[track_caller]
pub fn backward_gather_nd<'a, T: Operand>() -> BackwardGatherNd<'a, T> {
    BackwardGatherNd { call: OpCall::new("_backward_gather_nd") }
}

impl<'a, T: Operand> BackwardGatherNd<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `indices`.
    pub fn indices(mut self, s: &'a T) -> Self {
        self.call = self.call.input("indices", s);
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

/// `_backward_GroupNorm`: Gradient of GroupNorm from ograd, data, gamma and the forward's mean and std: the LayerNorm formula over each (instance, group); gamma and beta gradients per group. Takes the forward's parameters.
pub struct BackwardGroupNorm<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_GroupNorm`.
#[track_caller]
pub fn backward_group_norm<'a, T: Operand>() -> BackwardGroupNorm<'a, T> {
    BackwardGroupNorm { call: OpCall::new("_backward_GroupNorm") }
}

impl<'a, T: Operand> BackwardGroupNorm<'a, T> {
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
    /// Input `std`.
    pub fn std(mut self, s: &'a T) -> Self {
        self.call = self.call.input("std", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// number of channel groups (int, default `1`).
    pub fn num_groups(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_groups", Value::Int(v).to_mxnet_string());
        self
    }
    /// added to the variance (float, default `1e-05`).
    pub fn eps(mut self, v: f64) -> Self {
        self.call = self.call.attr("eps", Value::Float(v).to_mxnet_string());
        self
    }
    /// make the mean and std outputs visible (boolean, default `False`).
    pub fn output_mean_var(mut self, v: bool) -> Self {
        self.call = self.call.attr("output_mean_var", Value::Bool(v).to_mxnet_string());
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

/// `_backward_InstanceNorm`: Gradient of InstanceNorm from ograd, data, gamma and the forward's mean and variance (input `std` holds the variance): the LayerNorm formula over each (instance, channel) plane with std = sqrt(var + eps); gamma and beta gradients per channel. Takes the forward's parameters.
pub struct BackwardInstanceNorm<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_InstanceNorm`.
#[track_caller]
pub fn backward_instance_norm<'a, T: Operand>() -> BackwardInstanceNorm<'a, T> {
    BackwardInstanceNorm { call: OpCall::new("_backward_InstanceNorm") }
}

impl<'a, T: Operand> BackwardInstanceNorm<'a, T> {
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
    /// Input `std`.
    pub fn std(mut self, s: &'a T) -> Self {
        self.call = self.call.input("std", s);
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

/// `_backward_L2Normalization`: Gradient of L2Normalization from ograd g, the output y and the norm n: `(g − y·Σ g·y) / n`, the sum over each norm's elements. Takes the forward's parameters.
pub struct BackwardL2Normalization<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_L2Normalization`.
#[track_caller]
pub fn backward_l2_normalization<'a, T: Operand>() -> BackwardL2Normalization<'a, T> {
    BackwardL2Normalization { call: OpCall::new("_backward_L2Normalization") }
}

impl<'a, T: Operand> BackwardL2Normalization<'a, T> {
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
    /// Input `norm`.
    pub fn norm(mut self, s: &'a T) -> Self {
        self.call = self.call.input("norm", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// added to the sum of squares (float, default `1e-10`).
    pub fn eps(mut self, v: f64) -> Self {
        self.call = self.call.attr("eps", Value::Float(v).to_mxnet_string());
        self
    }
    /// instance: one norm per instance; channel: across channels at each position; spatial: over each channel's positions ({channel, instance, spatial}, default `instance`).
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

/// `_backward_LayerNorm`: Gradient of LayerNorm from ograd, data, gamma and the forward's mean and std: with x̂ = (x − mean)/std and w = ograd·gamma, data_grad = (w − mean(w) − x̂·mean(w·x̂))/std along the axis; gamma_grad = Σ ograd·x̂ and beta_grad = Σ ograd over the other axes. Takes the forward's parameters.
pub struct BackwardLayerNorm<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_LayerNorm`.
#[track_caller]
pub fn backward_layer_norm<'a, T: Operand>() -> BackwardLayerNorm<'a, T> {
    BackwardLayerNorm { call: OpCall::new("_backward_LayerNorm") }
}

impl<'a, T: Operand> BackwardLayerNorm<'a, T> {
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
    /// Input `std`.
    pub fn std(mut self, s: &'a T) -> Self {
        self.call = self.call.input("std", s);
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
    /// added to the variance (float, default `1e-05`).
    pub fn eps(mut self, v: f64) -> Self {
        self.call = self.call.attr("eps", Value::Float(v).to_mxnet_string());
        self
    }
    /// make the mean and std outputs visible (boolean, default `False`).
    pub fn output_mean_var(mut self, v: bool) -> Self {
        self.call = self.call.attr("output_mean_var", Value::Bool(v).to_mxnet_string());
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

/// `_backward_LinearRegressionOutput`: Gradient of LinearRegressionOutput from the label and the output, ignoring any head gradient: `(out − label)·grad_scale/num_output`, num_output = label.size/label.shape\[0\].
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
    /// take a `length` input: only the first length\[i\] entries along the axis take part (boolean, optional, default `False`).
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

/// `_backward_LogisticRegressionOutput`: Gradient of LogisticRegressionOutput from the label and the (sigmoid) output, ignoring any head gradient: `(out − label)·grad_scale/num_output`, num_output = label.size/label.shape\[0\].
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

/// `_backward_MAERegressionOutput`: Gradient of MAERegressionOutput from the label and the output, ignoring any head gradient: `(out − label > 0 ? 1 : −1)·grad_scale/num_output` (−1 at a zero residual, as MXNet), num_output = label.size/label.shape\[0\].
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

/// `_backward_MakeLoss`: Gradient of MakeLoss from its data: grad_scale/norm in every element (norm as MakeLoss describes). Takes the forward's parameters.
pub struct BackwardMakeLoss<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_MakeLoss`.
#[track_caller]
pub fn backward_make_loss<'a, T: Operand>() -> BackwardMakeLoss<'a, T> {
    BackwardMakeLoss { call: OpCall::new("_backward_MakeLoss") }
}

impl<'a, T: Operand> BackwardMakeLoss<'a, T> {
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
    /// the gradient's value before normalization (float, default `1.0`).
    pub fn grad_scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("grad_scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// valid normalization counts the elements above it (float, default `0.0`).
    pub fn valid_thresh(mut self, v: f64) -> Self {
        self.call = self.call.attr("valid_thresh", Value::Float(v).to_mxnet_string());
        self
    }
    /// what grad_scale is divided by ({batch, null, valid}, default `null`).
    pub fn normalization(mut self, v: &str) -> Self {
        self.call = self.call.attr("normalization", Value::Str(v.to_string()).to_mxnet_string());
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

/// `_backward_nanprod`: The gradient of nanprod: `ograd * prod / data` (ograd and prod broadcast back to data's shape) where `data` is not NaN, else 0.
pub struct BackwardNanprod<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_nanprod`.
#[track_caller]
pub fn backward_nanprod<'a, T: Operand>() -> BackwardNanprod<'a, T> {
    BackwardNanprod { call: OpCall::new("_backward_nanprod") }
}

impl<'a, T: Operand> BackwardNanprod<'a, T> {
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
    /// Input `prod`.
    pub fn prod(mut self, s: &'a T) -> Self {
        self.call = self.call.input("prod", s);
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

/// `_backward_nansum`: The gradient of nansum: `ograd` (broadcast back to data's shape) where `data` is not NaN, else 0.
pub struct BackwardNansum<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_nansum`.
#[track_caller]
pub fn backward_nansum<'a, T: Operand>() -> BackwardNansum<'a, T> {
    BackwardNansum { call: OpCall::new("_backward_nansum") }
}

impl<'a, T: Operand> BackwardNansum<'a, T> {
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

/// `_backward_norm`: The gradient of norm: `ograd * data / norm` for ord=2, `ograd * sign(data)` for ord=1 (ograd and norm copied back to data's shape); the output has data's dtype.
pub struct BackwardNorm<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_norm`.
#[track_caller]
pub fn backward_norm<'a, T: Operand>() -> BackwardNorm<'a, T> {
    BackwardNorm { call: OpCall::new("_backward_norm") }
}

impl<'a, T: Operand> BackwardNorm<'a, T> {
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
    /// Input `norm`.
    pub fn norm(mut self, s: &'a T) -> Self {
        self.call = self.call.input("norm", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// order of the norm: 1 or 2 (int, default `2`).
    pub fn ord(mut self, v: i64) -> Self {
        self.call = self.call.attr("ord", Value::Int(v).to_mxnet_string());
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

/// `_backward_Pad`: The gradient of `Pad`: each element of `ograd` added to the element of `data` it was copied from (data's values are not read; constant padding adds nothing).
pub struct BackwardPad<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_Pad`.
#[track_caller]
pub fn backward_pad<'a, T: Operand>() -> BackwardPad<'a, T> {
    BackwardPad { call: OpCall::new("_backward_Pad") }
}

impl<'a, T: Operand> BackwardPad<'a, T> {
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
    /// constant: pad with constant_value; edge: repeat the edge values; reflect: mirror the input about its edges (the edge itself not repeated) ({constant, edge, reflect}, required).
    pub fn mode(mut self, v: &str) -> Self {
        self.call = self.call.attr("mode", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// (before_1, after_1, ..., before_N, after_N), one pair per axis; the pairs of the first two axes must be 0 (tuple of int, required).
    pub fn pad_width(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("pad_width", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// the padding value in constant mode (float, default `0`).
    pub fn constant_value(mut self, v: f64) -> Self {
        self.call = self.call.attr("constant_value", Value::Float(v).to_mxnet_string());
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

/// `_backward_pick`: The gradient of pick: zeros of `data`'s shape with each element of `ograd` at the position along `axis` that `index` picked (data's values are not read).
pub struct BackwardPick<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_pick`.
#[track_caller]
pub fn backward_pick<'a, T: Operand>() -> BackwardPick<'a, T> {
    BackwardPick { call: OpCall::new("_backward_pick") }
}

impl<'a, T: Operand> BackwardPick<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `index`.
    pub fn index(mut self, s: &'a T) -> Self {
        self.call = self.call.input("index", s);
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
    /// the axis to pick along (negative counts from the end; None is refused, as in MXNet 1.9.1) (int, optional, default `-1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// keep the picked axis, with size 1 (boolean, default `False`).
    pub fn keepdims(mut self, v: bool) -> Self {
        self.call = self.call.attr("keepdims", Value::Bool(v).to_mxnet_string());
        self
    }
    /// out-of-range indices: clip to the axis or wrap around it ({clip, wrap}, default `clip`).
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

/// `_backward_RNN`: Gradient of RNN by backpropagation through time: from the forward's inputs and the head gradients of its outputs (output, then state and cell with state_outputs), the gradients of data, parameters, state and (LSTM) state_cell; sequence lengths get none. Takes the forward's parameters.
pub struct BackwardRnn<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_RNN`.
#[track_caller]
pub fn backward_rnn<'a, T: Operand>() -> BackwardRnn<'a, T> {
    BackwardRnn { call: OpCall::new("_backward_RNN") }
}

impl<'a, T: Operand> BackwardRnn<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `parameters`.
    pub fn parameters(mut self, s: &'a T) -> Self {
        self.call = self.call.input("parameters", s);
        self
    }
    /// Input `state`.
    pub fn state(mut self, s: &'a T) -> Self {
        self.call = self.call.input("state", s);
        self
    }
    /// Input `ograd_output`.
    pub fn ograd_output(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd_output", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// hidden size H (int, required).
    pub fn state_size(mut self, v: i64) -> Self {
        self.call = self.call.attr("state_size", Value::Int(v).to_mxnet_string());
        self
    }
    /// number of stacked layers L (int, required).
    pub fn num_layers(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_layers", Value::Int(v).to_mxnet_string());
        self
    }
    /// a second, backward direction per layer (boolean, default `False`).
    pub fn bidirectional(mut self, v: bool) -> Self {
        self.call = self.call.attr("bidirectional", Value::Bool(v).to_mxnet_string());
        self
    }
    /// the recurrent cell ({gru, lstm, rnn_relu, rnn_tanh}, required).
    pub fn mode(mut self, v: &str) -> Self {
        self.call = self.call.attr("mode", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// dropout between layers in training (only 0 is supported in training) (float, default `0.0`).
    pub fn p(mut self, v: f64) -> Self {
        self.call = self.call.attr("p", Value::Float(v).to_mxnet_string());
        self
    }
    /// also output the final state (and cell, LSTM) (boolean, default `False`).
    pub fn state_outputs(mut self, v: bool) -> Self {
        self.call = self.call.attr("state_outputs", Value::Bool(v).to_mxnet_string());
        self
    }
    /// LSTM projection (not supported) (int, optional, default `None`).
    pub fn projection_size(mut self, v: i64) -> Self {
        self.call = self.call.attr("projection_size", Value::Int(v).to_mxnet_string());
        self
    }
    /// lower clip of the LSTM cell state (float, optional, default `None`).
    pub fn lstm_state_clip_min(mut self, v: f64) -> Self {
        self.call = self.call.attr("lstm_state_clip_min", Value::Float(v).to_mxnet_string());
        self
    }
    /// upper clip of the LSTM cell state (float, optional, default `None`).
    pub fn lstm_state_clip_max(mut self, v: f64) -> Self {
        self.call = self.call.attr("lstm_state_clip_max", Value::Float(v).to_mxnet_string());
        self
    }
    /// clipping turns NaN cell states into the maximum (boolean, default `False`).
    pub fn lstm_state_clip_nan(mut self, v: bool) -> Self {
        self.call = self.call.attr("lstm_state_clip_nan", Value::Bool(v).to_mxnet_string());
        self
    }
    /// take a `sequence_length` input (N,) (boolean, default `False`).
    pub fn use_sequence_length(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_sequence_length", Value::Bool(v).to_mxnet_string());
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

/// `_backward_SequenceLast`: Gradient of SequenceLast from ograd, data (for its shape) and the lengths: ograd at each sequence's picked step, zero elsewhere. Takes the forward's parameters.
pub struct BackwardSequenceLast<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_SequenceLast`.
#[track_caller]
pub fn backward_sequence_last<'a, T: Operand>() -> BackwardSequenceLast<'a, T> {
    BackwardSequenceLast { call: OpCall::new("_backward_SequenceLast") }
}

impl<'a, T: Operand> BackwardSequenceLast<'a, T> {
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
    /// take a `sequence_length` input (B,); otherwise every sequence has length T (boolean, default `False`).
    pub fn use_sequence_length(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_sequence_length", Value::Bool(v).to_mxnet_string());
        self
    }
    /// the time axis: 0 for (T, B, ...), 1 for (B, T, ...) (int, default `0`).
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

/// `_backward_slice_like`: The gradient of `slice_like`: zeros of `data`'s shape with `ograd` at the origin (data's values are not read).
pub struct BackwardSliceLike<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_slice_like`.
#[track_caller]
pub fn backward_slice_like<'a, T: Operand>() -> BackwardSliceLike<'a, T> {
    BackwardSliceLike { call: OpCall::new("_backward_slice_like") }
}

impl<'a, T: Operand> BackwardSliceLike<'a, T> {
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
    /// take a `length` input: only the first length\[i\] entries along the axis take part (boolean, optional, default `False`).
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

/// `_backward_softmax_cross_entropy`: Gradient of softmax_cross_entropy with respect to its data: `(softmax(data) − onehot(label))·ograd`, ograd of shape (1,).
pub struct BackwardSoftmaxCrossEntropy<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_softmax_cross_entropy`.
#[track_caller]
pub fn backward_softmax_cross_entropy<'a, T: Operand>() -> BackwardSoftmaxCrossEntropy<'a, T> {
    BackwardSoftmaxCrossEntropy { call: OpCall::new("_backward_softmax_cross_entropy") }
}

impl<'a, T: Operand> BackwardSoftmaxCrossEntropy<'a, T> {
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

/// `_backward_take`: The gradient of take (and of Embedding's weight): each slice of `ograd` added into zeros of `a`'s shape at the position along `axis` its index selects (a's values are not read).
pub struct BackwardTake<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_take`.
#[track_caller]
pub fn backward_take<'a, T: Operand>() -> BackwardTake<'a, T> {
    BackwardTake { call: OpCall::new("_backward_take") }
}

impl<'a, T: Operand> BackwardTake<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `indices`.
    pub fn indices(mut self, s: &'a T) -> Self {
        self.call = self.call.input("indices", s);
        self
    }
    /// Input `a`.
    pub fn a(mut self, s: &'a T) -> Self {
        self.call = self.call.input("a", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axis of `a` to take from (negative counts from the end) (int, default `0`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// out-of-range indices: clip to the axis, wrap around it, or raise an error ({clip, raise, wrap}, default `clip`).
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

/// `_backward_topk`: The gradient of sort and topk: zeros of `data`'s shape with each element of `ograd` added at the position along `axis` (the flat position when axis is None) given by the matching element of `indices` (data's values are not read).
pub struct BackwardTopk<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_topk`.
#[track_caller]
pub fn backward_topk<'a, T: Operand>() -> BackwardTopk<'a, T> {
    BackwardTopk { call: OpCall::new("_backward_topk") }
}

impl<'a, T: Operand> BackwardTopk<'a, T> {
    /// Input `ograd`.
    pub fn ograd(mut self, s: &'a T) -> Self {
        self.call = self.call.input("ograd", s);
        self
    }
    /// Input `indices`.
    pub fn indices(mut self, s: &'a T) -> Self {
        self.call = self.call.input("indices", s);
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
    /// the axis to sort along (None: the flattened input); negative counts from the end (int, optional, default `-1`).
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

/// `_backward_UpSampling`: Gradient of nearest UpSampling from ograd and the forward's inputs (for their shapes): each input's gradient sums the head gradient over the block of outputs each of its elements was copied to (its channel slice with concat, all channels with sum). Takes the forward's parameters; bilinear differentiates through _backward_Deconvolution instead.
pub struct BackwardUpSampling<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_backward_UpSampling`.
#[track_caller]
pub fn backward_up_sampling<'a, T: Operand>() -> BackwardUpSampling<'a, T> {
    BackwardUpSampling { call: OpCall::new("_backward_UpSampling") }
}

impl<'a, T: Operand> BackwardUpSampling<'a, T> {
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
    /// up-sampling factor (int, required).
    pub fn scale(mut self, v: i64) -> Self {
        self.call = self.call.attr("scale", Value::Int(v).to_mxnet_string());
        self
    }
    /// bilinear only: the data's number of channels (int, default `0`).
    pub fn num_filter(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_filter", Value::Int(v).to_mxnet_string());
        self
    }
    /// nearest neighbour or bilinear (a deconvolution with the given weight) ({bilinear, nearest}, required).
    pub fn sample_type(mut self, v: &str) -> Self {
        self.call = self.call.attr("sample_type", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// nearest with several inputs: concatenate along channels or add ({concat, sum}, default `concat`).
    pub fn multi_input_mode(mut self, v: &str) -> Self {
        self.call = self.call.attr("multi_input_mode", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// number of inputs (nearest); bilinear takes data and weight (int, required).
    pub fn num_args(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_args", Value::Int(v).to_mxnet_string());
        self
    }
    /// MXNet workspace limit in MB (ignored) (int, default `512`).
    pub fn workspace(mut self, v: i64) -> Self {
        self.call = self.call.attr("workspace", Value::Int(v).to_mxnet_string());
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

/// `broadcast_axis`: Broadcasts the input along the listed axes, each of size 1, to the matching entries of `size`. Axes count from 0 (MXNet 1.x accepts no negative axes here).
pub struct BroadcastAxis<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_axis`.
#[track_caller]
pub fn broadcast_axis<'a, T: Operand>() -> BroadcastAxis<'a, T> {
    BroadcastAxis { call: OpCall::new("broadcast_axis") }
}

impl<'a, T: Operand> BroadcastAxis<'a, T> {
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
    /// the axes to broadcast (each of size 1) (tuple of int, default `()`).
    pub fn axis(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("axis", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// the target size of each listed axis (tuple of int, default `()`).
    pub fn size(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("size", Value::Shape(v.to_vec()).to_mxnet_string());
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

/// `broadcast_equal`: 1 where lhs == rhs, else 0 (in the input dtype).
pub struct BroadcastEqual<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_equal`.
#[track_caller]
pub fn broadcast_equal<'a, T: Operand>() -> BroadcastEqual<'a, T> {
    BroadcastEqual { call: OpCall::new("broadcast_equal") }
}

impl<'a, T: Operand> BroadcastEqual<'a, T> {
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

/// `broadcast_greater`: 1 where lhs > rhs, else 0 (in the input dtype).
pub struct BroadcastGreater<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_greater`.
#[track_caller]
pub fn broadcast_greater<'a, T: Operand>() -> BroadcastGreater<'a, T> {
    BroadcastGreater { call: OpCall::new("broadcast_greater") }
}

impl<'a, T: Operand> BroadcastGreater<'a, T> {
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

/// `broadcast_greater_equal`: 1 where lhs >= rhs, else 0 (in the input dtype).
pub struct BroadcastGreaterEqual<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_greater_equal`.
#[track_caller]
pub fn broadcast_greater_equal<'a, T: Operand>() -> BroadcastGreaterEqual<'a, T> {
    BroadcastGreaterEqual { call: OpCall::new("broadcast_greater_equal") }
}

impl<'a, T: Operand> BroadcastGreaterEqual<'a, T> {
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

/// `broadcast_hypot`: √(lhs² + rhs²), without overflow in the squares.
pub struct BroadcastHypot<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_hypot`.
#[track_caller]
pub fn broadcast_hypot<'a, T: Operand>() -> BroadcastHypot<'a, T> {
    BroadcastHypot { call: OpCall::new("broadcast_hypot") }
}

impl<'a, T: Operand> BroadcastHypot<'a, T> {
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

/// `broadcast_lesser`: 1 where lhs < rhs, else 0 (in the input dtype).
pub struct BroadcastLesser<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_lesser`.
#[track_caller]
pub fn broadcast_lesser<'a, T: Operand>() -> BroadcastLesser<'a, T> {
    BroadcastLesser { call: OpCall::new("broadcast_lesser") }
}

impl<'a, T: Operand> BroadcastLesser<'a, T> {
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

/// `broadcast_lesser_equal`: 1 where lhs <= rhs, else 0 (in the input dtype).
pub struct BroadcastLesserEqual<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_lesser_equal`.
#[track_caller]
pub fn broadcast_lesser_equal<'a, T: Operand>() -> BroadcastLesserEqual<'a, T> {
    BroadcastLesserEqual { call: OpCall::new("broadcast_lesser_equal") }
}

impl<'a, T: Operand> BroadcastLesserEqual<'a, T> {
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

/// `broadcast_like`: Broadcasts `lhs` like `rhs`. Without axes, to rhs's shape (same rank; each lhs axis equal or 1). With `lhs_axes` and `rhs_axes` (both set, same non-zero length), lhs axis lhs_axes\[i\], of size 1, takes the size of rhs axis rhs_axes\[i\]; negative axes count from the end.
pub struct BroadcastLike<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_like`.
#[track_caller]
pub fn broadcast_like<'a, T: Operand>() -> BroadcastLike<'a, T> {
    BroadcastLike { call: OpCall::new("broadcast_like") }
}

impl<'a, T: Operand> BroadcastLike<'a, T> {
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
    /// axes of lhs to broadcast (None: broadcast to rhs's whole shape) (int or tuple of int, optional, default `None`).
    pub fn lhs_axes(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("lhs_axes", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// axes of rhs whose sizes lhs_axes take (None: rhs's whole shape) (int or tuple of int, optional, default `None`).
    pub fn rhs_axes(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("rhs_axes", Value::Shape(v.to_vec()).to_mxnet_string());
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

/// `broadcast_logical_and`: 1 where both operands are non-zero, else 0.
pub struct BroadcastLogicalAnd<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_logical_and`.
#[track_caller]
pub fn broadcast_logical_and<'a, T: Operand>() -> BroadcastLogicalAnd<'a, T> {
    BroadcastLogicalAnd { call: OpCall::new("broadcast_logical_and") }
}

impl<'a, T: Operand> BroadcastLogicalAnd<'a, T> {
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

/// `broadcast_logical_or`: 1 where either operand is non-zero, else 0.
pub struct BroadcastLogicalOr<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_logical_or`.
#[track_caller]
pub fn broadcast_logical_or<'a, T: Operand>() -> BroadcastLogicalOr<'a, T> {
    BroadcastLogicalOr { call: OpCall::new("broadcast_logical_or") }
}

impl<'a, T: Operand> BroadcastLogicalOr<'a, T> {
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

/// `broadcast_logical_xor`: 1 where exactly one operand is non-zero, else 0.
pub struct BroadcastLogicalXor<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_logical_xor`.
#[track_caller]
pub fn broadcast_logical_xor<'a, T: Operand>() -> BroadcastLogicalXor<'a, T> {
    BroadcastLogicalXor { call: OpCall::new("broadcast_logical_xor") }
}

impl<'a, T: Operand> BroadcastLogicalXor<'a, T> {
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

/// `broadcast_maximum`: Element-wise maximum; NaN in either operand propagates.
pub struct BroadcastMaximum<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_maximum`.
#[track_caller]
pub fn broadcast_maximum<'a, T: Operand>() -> BroadcastMaximum<'a, T> {
    BroadcastMaximum { call: OpCall::new("broadcast_maximum") }
}

impl<'a, T: Operand> BroadcastMaximum<'a, T> {
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

/// `broadcast_minimum`: Element-wise minimum; NaN in either operand propagates.
pub struct BroadcastMinimum<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_minimum`.
#[track_caller]
pub fn broadcast_minimum<'a, T: Operand>() -> BroadcastMinimum<'a, T> {
    BroadcastMinimum { call: OpCall::new("broadcast_minimum") }
}

impl<'a, T: Operand> BroadcastMinimum<'a, T> {
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

/// `broadcast_mod`: Remainder with the divisor's sign (Python's `%`); 0 where the divisor is 0.
pub struct BroadcastMod<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_mod`.
#[track_caller]
pub fn broadcast_mod<'a, T: Operand>() -> BroadcastMod<'a, T> {
    BroadcastMod { call: OpCall::new("broadcast_mod") }
}

impl<'a, T: Operand> BroadcastMod<'a, T> {
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

/// `broadcast_not_equal`: 1 where lhs != rhs, else 0 (in the input dtype).
pub struct BroadcastNotEqual<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_not_equal`.
#[track_caller]
pub fn broadcast_not_equal<'a, T: Operand>() -> BroadcastNotEqual<'a, T> {
    BroadcastNotEqual { call: OpCall::new("broadcast_not_equal") }
}

impl<'a, T: Operand> BroadcastNotEqual<'a, T> {
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

/// `broadcast_power`: `lhs` raised to the power `rhs`.
pub struct BroadcastPower<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_power`.
#[track_caller]
pub fn broadcast_power<'a, T: Operand>() -> BroadcastPower<'a, T> {
    BroadcastPower { call: OpCall::new("broadcast_power") }
}

impl<'a, T: Operand> BroadcastPower<'a, T> {
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

/// `broadcast_to`: Broadcasts the input to `shape`, which has the input's rank: every axis is either kept (the input's size, or 0 in `shape`) or grows from size 1 to the requested size, its elements repeated.
pub struct BroadcastTo<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `broadcast_to`.
#[track_caller]
pub fn broadcast_to<'a, T: Operand>() -> BroadcastTo<'a, T> {
    BroadcastTo { call: OpCall::new("broadcast_to") }
}

impl<'a, T: Operand> BroadcastTo<'a, T> {
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
    /// the target shape; 0 keeps the input's dimension (tuple of int, default `()`).
    pub fn shape(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("shape", Value::Shape(v.to_vec()).to_mxnet_string());
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

/// `cbrt`: cube root (negative for negative x)
pub struct Cbrt<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `cbrt`.
#[track_caller]
pub fn cbrt<'a, T: Operand>() -> Cbrt<'a, T> {
    Cbrt { call: OpCall::new("cbrt") }
}

impl<'a, T: Operand> Cbrt<'a, T> {
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

/// `ceil`: smallest integer >= x
pub struct Ceil<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `ceil`.
#[track_caller]
pub fn ceil<'a, T: Operand>() -> Ceil<'a, T> {
    Ceil { call: OpCall::new("ceil") }
}

impl<'a, T: Operand> Ceil<'a, T> {
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

/// `clip`: Clips values to \[a_min, a_max\].
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

/// `cos`: cosine (radians)
pub struct Cos<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `cos`.
#[track_caller]
pub fn cos<'a, T: Operand>() -> Cos<'a, T> {
    Cos { call: OpCall::new("cos") }
}

impl<'a, T: Operand> Cos<'a, T> {
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

/// `cosh`: hyperbolic cosine
pub struct Cosh<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `cosh`.
#[track_caller]
pub fn cosh<'a, T: Operand>() -> Cosh<'a, T> {
    Cosh { call: OpCall::new("cosh") }
}

impl<'a, T: Operand> Cosh<'a, T> {
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

/// `Deconvolution`: Transposed convolution over 1 to 3 spatial dimensions. Weight is (C, num_filter/num_group, *kernel) (channel-last: (C, *kernel, num_filter/num_group)); out = stride·(in − 1) + dilate·(kernel − 1) + 1 − 2·pad + adj, or target_shape, which then sets pad and adj. no_bias defaults to True.
pub struct Deconvolution<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `Deconvolution`.
#[track_caller]
pub fn deconvolution<'a, T: Operand>() -> Deconvolution<'a, T> {
    Deconvolution { call: OpCall::new("Deconvolution") }
}

impl<'a, T: Operand> Deconvolution<'a, T> {
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
    /// stride of the corresponding convolution; () means 1 per dimension (tuple of int, default `()`).
    pub fn stride(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("stride", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// dilation; () means 1 per dimension (tuple of int, default `()`).
    pub fn dilate(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("dilate", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// padding of the corresponding convolution; () means 0 (ignored with target_shape) (tuple of int, default `()`).
    pub fn pad(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("pad", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// added to the output size, below the stride; () means 0 (ignored with target_shape) (tuple of int, default `()`).
    pub fn adj(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("adj", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// output spatial size; derives pad and adj when set (tuple of int, default `()`).
    pub fn target_shape(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("target_shape", Value::Shape(v.to_vec()).to_mxnet_string());
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
    /// MXNet workspace limit in MB (ignored) (int, default `512`).
    pub fn workspace(mut self, v: i64) -> Self {
        self.call = self.call.attr("workspace", Value::Int(v).to_mxnet_string());
        self
    }
    /// whether to omit the bias (boolean, default `True`).
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
    /// data layout; None means NCW, NCHW or NCDHW ({None, NCW, NCHW, NCDHW, NHWC, NDHWC}, default `None`).
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

/// `degrees`: radians to degrees
pub struct Degrees<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `degrees`.
#[track_caller]
pub fn degrees<'a, T: Operand>() -> Degrees<'a, T> {
    Degrees { call: OpCall::new("degrees") }
}

impl<'a, T: Operand> Degrees<'a, T> {
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

/// `diag`: A 1-D input of size n gives the (n + |k|)-square matrix with the input on diagonal k and zeros elsewhere. An N-D input gives out\[..., t\] = data\[..., t + max(-k, 0) (on axis1), ..., t + max(k, 0) (on axis2), ...\]: the other axes in order, then the diagonal.
pub struct Diag<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `diag`.
#[track_caller]
pub fn diag<'a, T: Operand>() -> Diag<'a, T> {
    Diag { call: OpCall::new("diag") }
}

impl<'a, T: Operand> Diag<'a, T> {
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
    /// the diagonal: 0 the main one, k > 0 above it, k < 0 below it (int, default `0`).
    pub fn k(mut self, v: i64) -> Self {
        self.call = self.call.attr("k", Value::Int(v).to_mxnet_string());
        self
    }
    /// first axis of the matrices (ignored for a 1-D input) (int, default `0`).
    pub fn axis1(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis1", Value::Int(v).to_mxnet_string());
        self
    }
    /// second axis of the matrices (ignored for a 1-D input) (int, default `1`).
    pub fn axis2(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis2", Value::Int(v).to_mxnet_string());
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

/// `Embedding`: Looks up rows of `weight` (input_dim, output_dim): the output is data's shape followed by output_dim, each index truncated to an integer and clamped to \[0, input_dim - 1\]. Its dtype is weight's (`dtype` when weight's is not known).
pub struct Embedding<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `Embedding`.
#[track_caller]
pub fn embedding<'a, T: Operand>() -> Embedding<'a, T> {
    Embedding { call: OpCall::new("Embedding") }
}

impl<'a, T: Operand> Embedding<'a, T> {
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
    /// number of rows of the weight (the vocabulary size) (int, required).
    pub fn input_dim(mut self, v: i64) -> Self {
        self.call = self.call.attr("input_dim", Value::Int(v).to_mxnet_string());
        self
    }
    /// length of each embedding vector (int, required).
    pub fn output_dim(mut self, v: i64) -> Self {
        self.call = self.call.attr("output_dim", Value::Int(v).to_mxnet_string());
        self
    }
    /// dtype of the weight, when not known otherwise ({bfloat16, float16, float32, float64, int32, int64, int8, uint8}, default `float32`).
    pub fn dtype(mut self, v: &str) -> Self {
        self.call = self.call.attr("dtype", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// MXNet's row_sparse weight gradient (kiln's gradient is always dense) (boolean, default `False`).
    pub fn sparse_grad(mut self, v: bool) -> Self {
        self.call = self.call.attr("sparse_grad", Value::Bool(v).to_mxnet_string());
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

/// `_equal`: 1 where lhs == rhs, else 0 (in the input dtype).
pub struct Equal<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_equal`.
#[track_caller]
pub fn equal<'a, T: Operand>() -> Equal<'a, T> {
    Equal { call: OpCall::new("_equal") }
}

impl<'a, T: Operand> Equal<'a, T> {
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

/// `_equal_scalar`: 1 where data == scalar, else 0.
pub struct EqualScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_equal_scalar`.
#[track_caller]
pub fn equal_scalar<'a, T: Operand>() -> EqualScalar<'a, T> {
    EqualScalar { call: OpCall::new("_equal_scalar") }
}

impl<'a, T: Operand> EqualScalar<'a, T> {
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

/// `erf`: the Gauss error function
pub struct Erf<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `erf`.
#[track_caller]
pub fn erf<'a, T: Operand>() -> Erf<'a, T> {
    Erf { call: OpCall::new("erf") }
}

impl<'a, T: Operand> Erf<'a, T> {
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

/// `erfinv`: inverse error function: ±inf at ±1, NaN outside \[-1, 1\]
pub struct Erfinv<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `erfinv`.
#[track_caller]
pub fn erfinv<'a, T: Operand>() -> Erfinv<'a, T> {
    Erfinv { call: OpCall::new("erfinv") }
}

impl<'a, T: Operand> Erfinv<'a, T> {
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

/// `expm1`: e^x - 1, accurate near 0
pub struct Expm1<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `expm1`.
#[track_caller]
pub fn expm1<'a, T: Operand>() -> Expm1<'a, T> {
    Expm1 { call: OpCall::new("expm1") }
}

impl<'a, T: Operand> Expm1<'a, T> {
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

/// `fix`: rounds toward zero (as trunc)
pub struct Fix<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `fix`.
#[track_caller]
pub fn fix<'a, T: Operand>() -> Fix<'a, T> {
    Fix { call: OpCall::new("fix") }
}

impl<'a, T: Operand> Fix<'a, T> {
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

/// `floor`: largest integer <= x
pub struct Floor<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `floor`.
#[track_caller]
pub fn floor<'a, T: Operand>() -> Floor<'a, T> {
    Floor { call: OpCall::new("floor") }
}

impl<'a, T: Operand> Floor<'a, T> {
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

/// `gamma`: the gamma function (C's tgamma: NaN at the negative integers)
pub struct Gamma<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `gamma`.
#[track_caller]
pub fn gamma<'a, T: Operand>() -> Gamma<'a, T> {
    Gamma { call: OpCall::new("gamma") }
}

impl<'a, T: Operand> Gamma<'a, T> {
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

/// `gammaln`: ln|gamma(x)| (C's lgamma: +inf at the non-positive integers)
pub struct Gammaln<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `gammaln`.
#[track_caller]
pub fn gammaln<'a, T: Operand>() -> Gammaln<'a, T> {
    Gammaln { call: OpCall::new("gammaln") }
}

impl<'a, T: Operand> Gammaln<'a, T> {
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

/// `gather_nd`: Gathers slices of `data`: with `indices` of shape (M, Y...), out\[y...\] = data\[indices\[0, y...\], ..., indices\[M-1, y...\]\], of shape Y... followed by data's axes after the first M. Indices are truncated to integers; a negative one counts from the end, and one outside \[-size, size - 1\] is an error.
pub struct GatherNd<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `gather_nd`.
#[track_caller]
pub fn gather_nd<'a, T: Operand>() -> GatherNd<'a, T> {
    GatherNd { call: OpCall::new("gather_nd") }
}

impl<'a, T: Operand> GatherNd<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `indices`.
    pub fn indices(mut self, s: &'a T) -> Self {
        self.call = self.call.input("indices", s);
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

/// `_greater`: 1 where lhs > rhs, else 0 (in the input dtype).
pub struct Greater<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_greater`.
#[track_caller]
pub fn greater<'a, T: Operand>() -> Greater<'a, T> {
    Greater { call: OpCall::new("_greater") }
}

impl<'a, T: Operand> Greater<'a, T> {
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

/// `_greater_equal`: 1 where lhs >= rhs, else 0 (in the input dtype).
pub struct GreaterEqual<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_greater_equal`.
#[track_caller]
pub fn greater_equal<'a, T: Operand>() -> GreaterEqual<'a, T> {
    GreaterEqual { call: OpCall::new("_greater_equal") }
}

impl<'a, T: Operand> GreaterEqual<'a, T> {
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

/// `_greater_equal_scalar`: 1 where data >= scalar, else 0.
pub struct GreaterEqualScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_greater_equal_scalar`.
#[track_caller]
pub fn greater_equal_scalar<'a, T: Operand>() -> GreaterEqualScalar<'a, T> {
    GreaterEqualScalar { call: OpCall::new("_greater_equal_scalar") }
}

impl<'a, T: Operand> GreaterEqualScalar<'a, T> {
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

/// `_greater_scalar`: 1 where data > scalar, else 0.
pub struct GreaterScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_greater_scalar`.
#[track_caller]
pub fn greater_scalar<'a, T: Operand>() -> GreaterScalar<'a, T> {
    GreaterScalar { call: OpCall::new("_greater_scalar") }
}

impl<'a, T: Operand> GreaterScalar<'a, T> {
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

/// `GroupNorm`: Group normalization of (N, C, ...) data (rank ≥ 3): the C channels form num_groups groups, each (instance, group) is normalized by its mean and biased variance, then scaled and shifted by that group's gamma and beta (shape (num_groups,), as MXNet 1.x). Hidden outputs mean and std = sqrt(var + eps), (N, num_groups) (visible with output_mean_var).
pub struct GroupNorm<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `GroupNorm`.
#[track_caller]
pub fn group_norm<'a, T: Operand>() -> GroupNorm<'a, T> {
    GroupNorm { call: OpCall::new("GroupNorm") }
}

impl<'a, T: Operand> GroupNorm<'a, T> {
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
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// number of channel groups (int, default `1`).
    pub fn num_groups(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_groups", Value::Int(v).to_mxnet_string());
        self
    }
    /// added to the variance (float, default `1e-05`).
    pub fn eps(mut self, v: f64) -> Self {
        self.call = self.call.attr("eps", Value::Float(v).to_mxnet_string());
        self
    }
    /// make the mean and std outputs visible (boolean, default `False`).
    pub fn output_mean_var(mut self, v: bool) -> Self {
        self.call = self.call.attr("output_mean_var", Value::Bool(v).to_mxnet_string());
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

/// `_hypot`: √(lhs² + rhs²), without overflow in the squares.
pub struct Hypot<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_hypot`.
#[track_caller]
pub fn hypot<'a, T: Operand>() -> Hypot<'a, T> {
    Hypot { call: OpCall::new("_hypot") }
}

impl<'a, T: Operand> Hypot<'a, T> {
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

/// `_hypot_scalar`: √(data² + scalar²).
pub struct HypotScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_hypot_scalar`.
#[track_caller]
pub fn hypot_scalar<'a, T: Operand>() -> HypotScalar<'a, T> {
    HypotScalar { call: OpCall::new("_hypot_scalar") }
}

impl<'a, T: Operand> HypotScalar<'a, T> {
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

/// `InstanceNorm`: Instance normalization of (N, C, ...) data (rank ≥ 3): each (instance, channel) plane is normalized by its own mean and biased variance, `(x − mean)/sqrt(var + eps)·gamma + beta` with per-channel gamma and beta. Hidden outputs mean and var, (N, C).
pub struct InstanceNorm<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `InstanceNorm`.
#[track_caller]
pub fn instance_norm<'a, T: Operand>() -> InstanceNorm<'a, T> {
    InstanceNorm { call: OpCall::new("InstanceNorm") }
}

impl<'a, T: Operand> InstanceNorm<'a, T> {
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

/// `L2Normalization`: L2 normalization: `out = x / sqrt(Σ x² + eps)`, the sum over all axes but the first (mode instance), over axis 1 (channel) or over axes 2... (spatial). The norm is a hidden output: (N,), data's shape with axis 1 set to 1, or (N, C).
pub struct L2Normalization<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `L2Normalization`.
#[track_caller]
pub fn l2_normalization<'a, T: Operand>() -> L2Normalization<'a, T> {
    L2Normalization { call: OpCall::new("L2Normalization") }
}

impl<'a, T: Operand> L2Normalization<'a, T> {
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
    /// added to the sum of squares (float, default `1e-10`).
    pub fn eps(mut self, v: f64) -> Self {
        self.call = self.call.attr("eps", Value::Float(v).to_mxnet_string());
        self
    }
    /// instance: one norm per instance; channel: across channels at each position; spatial: over each channel's positions ({channel, instance, spatial}, default `instance`).
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

/// `LayerNorm`: Layer normalization along `axis`: `(x − mean)/sqrt(var + eps)·gamma + beta` with the mean and biased variance of each lane along the axis; gamma and beta have the axis' length. Hidden outputs mean and std = sqrt(var + eps), shaped like data with the axis set to 1 (visible with output_mean_var).
pub struct LayerNorm<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `LayerNorm`.
#[track_caller]
pub fn layer_norm<'a, T: Operand>() -> LayerNorm<'a, T> {
    LayerNorm { call: OpCall::new("LayerNorm") }
}

impl<'a, T: Operand> LayerNorm<'a, T> {
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
    /// added to the variance (float, default `1e-05`).
    pub fn eps(mut self, v: f64) -> Self {
        self.call = self.call.attr("eps", Value::Float(v).to_mxnet_string());
        self
    }
    /// make the mean and std outputs visible (boolean, default `False`).
    pub fn output_mean_var(mut self, v: bool) -> Self {
        self.call = self.call.attr("output_mean_var", Value::Bool(v).to_mxnet_string());
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

/// `LeakyReLU`: Leaky rectifiers: leaky `x > 0 ? x : slope·x`; prelu with a learnt per-channel `gamma` (axis 1); rrelu with a slope drawn from U\[lower_bound, upper_bound) per element in training ((lower+upper)/2 otherwise; the slopes are the second output, `mask`); elu `slope·(eˣ−1)` for x ≤ 0; selu; gelu (erf form).
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

/// `_lesser`: 1 where lhs < rhs, else 0 (in the input dtype).
pub struct Lesser<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_lesser`.
#[track_caller]
pub fn lesser<'a, T: Operand>() -> Lesser<'a, T> {
    Lesser { call: OpCall::new("_lesser") }
}

impl<'a, T: Operand> Lesser<'a, T> {
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

/// `_lesser_equal`: 1 where lhs <= rhs, else 0 (in the input dtype).
pub struct LesserEqual<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_lesser_equal`.
#[track_caller]
pub fn lesser_equal<'a, T: Operand>() -> LesserEqual<'a, T> {
    LesserEqual { call: OpCall::new("_lesser_equal") }
}

impl<'a, T: Operand> LesserEqual<'a, T> {
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

/// `_lesser_equal_scalar`: 1 where data <= scalar, else 0.
pub struct LesserEqualScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_lesser_equal_scalar`.
#[track_caller]
pub fn lesser_equal_scalar<'a, T: Operand>() -> LesserEqualScalar<'a, T> {
    LesserEqualScalar { call: OpCall::new("_lesser_equal_scalar") }
}

impl<'a, T: Operand> LesserEqualScalar<'a, T> {
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

/// `_lesser_scalar`: 1 where data < scalar, else 0.
pub struct LesserScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_lesser_scalar`.
#[track_caller]
pub fn lesser_scalar<'a, T: Operand>() -> LesserScalar<'a, T> {
    LesserScalar { call: OpCall::new("_lesser_scalar") }
}

impl<'a, T: Operand> LesserScalar<'a, T> {
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

/// `LinearRegressionOutput`: Squared-loss head: forward is the identity; the gradient is (out − label)·grad_scale / (label.size / label.shape\[0\]). The label defaults to data's shape, or (n,) for (n, 1).
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

/// `log10`: base-10 logarithm
pub struct Log10<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `log10`.
#[track_caller]
pub fn log10<'a, T: Operand>() -> Log10<'a, T> {
    Log10 { call: OpCall::new("log10") }
}

impl<'a, T: Operand> Log10<'a, T> {
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

/// `log1p`: ln(1 + x), accurate near 0
pub struct Log1p<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `log1p`.
#[track_caller]
pub fn log1p<'a, T: Operand>() -> Log1p<'a, T> {
    Log1p { call: OpCall::new("log1p") }
}

impl<'a, T: Operand> Log1p<'a, T> {
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

/// `log2`: base-2 logarithm
pub struct Log2<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `log2`.
#[track_caller]
pub fn log2<'a, T: Operand>() -> Log2<'a, T> {
    Log2 { call: OpCall::new("log2") }
}

impl<'a, T: Operand> Log2<'a, T> {
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
    /// take a `length` input: only the first length\[i\] entries along the axis take part (boolean, optional, default `False`).
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

/// `_logical_and`: 1 where both operands are non-zero, else 0.
pub struct LogicalAnd<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_logical_and`.
#[track_caller]
pub fn logical_and<'a, T: Operand>() -> LogicalAnd<'a, T> {
    LogicalAnd { call: OpCall::new("_logical_and") }
}

impl<'a, T: Operand> LogicalAnd<'a, T> {
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

/// `_logical_and_scalar`: 1 where data and scalar are both non-zero, else 0.
pub struct LogicalAndScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_logical_and_scalar`.
#[track_caller]
pub fn logical_and_scalar<'a, T: Operand>() -> LogicalAndScalar<'a, T> {
    LogicalAndScalar { call: OpCall::new("_logical_and_scalar") }
}

impl<'a, T: Operand> LogicalAndScalar<'a, T> {
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

/// `logical_not`: 1 where x == 0, else 0 (NaN is true)
pub struct LogicalNot<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `logical_not`.
#[track_caller]
pub fn logical_not<'a, T: Operand>() -> LogicalNot<'a, T> {
    LogicalNot { call: OpCall::new("logical_not") }
}

impl<'a, T: Operand> LogicalNot<'a, T> {
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

/// `_logical_or`: 1 where either operand is non-zero, else 0.
pub struct LogicalOr<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_logical_or`.
#[track_caller]
pub fn logical_or<'a, T: Operand>() -> LogicalOr<'a, T> {
    LogicalOr { call: OpCall::new("_logical_or") }
}

impl<'a, T: Operand> LogicalOr<'a, T> {
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

/// `_logical_or_scalar`: 1 where data or scalar is non-zero, else 0.
pub struct LogicalOrScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_logical_or_scalar`.
#[track_caller]
pub fn logical_or_scalar<'a, T: Operand>() -> LogicalOrScalar<'a, T> {
    LogicalOrScalar { call: OpCall::new("_logical_or_scalar") }
}

impl<'a, T: Operand> LogicalOrScalar<'a, T> {
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

/// `_logical_xor`: 1 where exactly one operand is non-zero, else 0.
pub struct LogicalXor<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_logical_xor`.
#[track_caller]
pub fn logical_xor<'a, T: Operand>() -> LogicalXor<'a, T> {
    LogicalXor { call: OpCall::new("_logical_xor") }
}

impl<'a, T: Operand> LogicalXor<'a, T> {
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

/// `_logical_xor_scalar`: 1 where exactly one of data and scalar is non-zero, else 0.
pub struct LogicalXorScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_logical_xor_scalar`.
#[track_caller]
pub fn logical_xor_scalar<'a, T: Operand>() -> LogicalXorScalar<'a, T> {
    LogicalXorScalar { call: OpCall::new("_logical_xor_scalar") }
}

impl<'a, T: Operand> LogicalXorScalar<'a, T> {
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

/// `LogisticRegressionOutput`: Logistic head: forward is sigmoid(data); the gradient is (out − label)·grad_scale / (label.size / label.shape\[0\]). The label defaults to data's shape, or (n,) for (n, 1).
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

/// `MAERegressionOutput`: Absolute-loss head: forward is the identity; the gradient is sign(out − label)·grad_scale / (label.size / label.shape\[0\]). The label defaults to data's shape, or (n,) for (n, 1).
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

/// `MakeLoss`: Makes a loss of any expression: the identity, whose gradient ignores the head gradient and is grad_scale/norm everywhere; norm: null 1, batch the product of all dims but the last, valid the number of elements > valid_thresh (at least 1).
pub struct MakeLoss<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `MakeLoss`.
#[track_caller]
pub fn make_loss<'a, T: Operand>() -> MakeLoss<'a, T> {
    MakeLoss { call: OpCall::new("MakeLoss") }
}

impl<'a, T: Operand> MakeLoss<'a, T> {
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
    /// the gradient's value before normalization (float, default `1.0`).
    pub fn grad_scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("grad_scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// valid normalization counts the elements above it (float, default `0.0`).
    pub fn valid_thresh(mut self, v: f64) -> Self {
        self.call = self.call.attr("valid_thresh", Value::Float(v).to_mxnet_string());
        self
    }
    /// what grad_scale is divided by ({batch, null, valid}, default `null`).
    pub fn normalization(mut self, v: &str) -> Self {
        self.call = self.call.attr("normalization", Value::Str(v.to_string()).to_mxnet_string());
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

/// `_maximum`: Element-wise maximum; NaN in either operand propagates.
pub struct Maximum<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_maximum`.
#[track_caller]
pub fn maximum<'a, T: Operand>() -> Maximum<'a, T> {
    Maximum { call: OpCall::new("_maximum") }
}

impl<'a, T: Operand> Maximum<'a, T> {
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

/// `_maximum_scalar`: max(data, scalar); NaN in data propagates.
pub struct MaximumScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_maximum_scalar`.
#[track_caller]
pub fn maximum_scalar<'a, T: Operand>() -> MaximumScalar<'a, T> {
    MaximumScalar { call: OpCall::new("_maximum_scalar") }
}

impl<'a, T: Operand> MaximumScalar<'a, T> {
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

/// `_minimum`: Element-wise minimum; NaN in either operand propagates.
pub struct Minimum<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_minimum`.
#[track_caller]
pub fn minimum<'a, T: Operand>() -> Minimum<'a, T> {
    Minimum { call: OpCall::new("_minimum") }
}

impl<'a, T: Operand> Minimum<'a, T> {
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

/// `_minimum_scalar`: min(data, scalar); NaN in data propagates.
pub struct MinimumScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_minimum_scalar`.
#[track_caller]
pub fn minimum_scalar<'a, T: Operand>() -> MinimumScalar<'a, T> {
    MinimumScalar { call: OpCall::new("_minimum_scalar") }
}

impl<'a, T: Operand> MinimumScalar<'a, T> {
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

/// `_mod`: Remainder with the divisor's sign (Python's `%`); 0 where the divisor is 0.
pub struct Mod<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_mod`.
#[track_caller]
pub fn r#mod<'a, T: Operand>() -> Mod<'a, T> {
    Mod { call: OpCall::new("_mod") }
}

impl<'a, T: Operand> Mod<'a, T> {
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

/// `_mod_scalar`: `data % scalar`, with the scalar's sign (Python's `%`); 0 where the scalar is 0.
pub struct ModScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_mod_scalar`.
#[track_caller]
pub fn mod_scalar<'a, T: Operand>() -> ModScalar<'a, T> {
    ModScalar { call: OpCall::new("_mod_scalar") }
}

impl<'a, T: Operand> ModScalar<'a, T> {
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

/// `nanprod`: Product over the given axes, treating NaN as 1.
pub struct Nanprod<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `nanprod`.
#[track_caller]
pub fn nanprod<'a, T: Operand>() -> Nanprod<'a, T> {
    Nanprod { call: OpCall::new("nanprod") }
}

impl<'a, T: Operand> Nanprod<'a, T> {
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

/// `nansum`: Sum over the given axes, treating NaN as 0.
pub struct Nansum<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `nansum`.
#[track_caller]
pub fn nansum<'a, T: Operand>() -> Nansum<'a, T> {
    Nansum { call: OpCall::new("nansum") }
}

impl<'a, T: Operand> Nansum<'a, T> {
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

/// `norm`: The L1 (ord=1) or L2 (ord=2) norm of the elements over the given axes; reducing every axis without keepdims gives shape (1,).
pub struct Norm<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `norm`.
#[track_caller]
pub fn norm<'a, T: Operand>() -> Norm<'a, T> {
    Norm { call: OpCall::new("norm") }
}

impl<'a, T: Operand> Norm<'a, T> {
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
    /// order of the norm: 1 (sum of magnitudes) or 2 (Euclidean) (int, default `2`).
    pub fn ord(mut self, v: i64) -> Self {
        self.call = self.call.attr("ord", Value::Int(v).to_mxnet_string());
        self
    }
    /// the axes to reduce (None or (): all of them); negative counts from the end; a 2-tuple gives the same entrywise norm of each matrix (int or tuple of int, optional, default `None`).
    pub fn axis(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("axis", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// dtype of the output (None: the input's) ({None, float16, float32, float64, int32, int64, int8}, default `None`).
    pub fn out_dtype(mut self, v: &str) -> Self {
        self.call = self.call.attr("out_dtype", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// keep the reduced axes, with size 1 (boolean, default `False`).
    pub fn keepdims(mut self, v: bool) -> Self {
        self.call = self.call.attr("keepdims", Value::Bool(v).to_mxnet_string());
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

/// `_not_equal`: 1 where lhs != rhs, else 0 (in the input dtype).
pub struct NotEqual<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_not_equal`.
#[track_caller]
pub fn not_equal<'a, T: Operand>() -> NotEqual<'a, T> {
    NotEqual { call: OpCall::new("_not_equal") }
}

impl<'a, T: Operand> NotEqual<'a, T> {
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

/// `_not_equal_scalar`: 1 where data != scalar, else 0.
pub struct NotEqualScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_not_equal_scalar`.
#[track_caller]
pub fn not_equal_scalar<'a, T: Operand>() -> NotEqualScalar<'a, T> {
    NotEqualScalar { call: OpCall::new("_not_equal_scalar") }
}

impl<'a, T: Operand> NotEqualScalar<'a, T> {
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

/// `_npi_gumbel`: Samples from a Gumbel (type I extreme value) distribution: loc − scale·ln(−ln u) for a Philox uniform u (mean loc + γ·scale, variance scale²π²/6). `loc`/`scale` = None take them from array inputs, broadcast. Outputs float32; the hidden second output is the standardized noise.
pub struct NpiGumbel<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_npi_gumbel`.
#[track_caller]
pub fn npi_gumbel<'a, T: Operand>() -> NpiGumbel<'a, T> {
    NpiGumbel { call: OpCall::new("_npi_gumbel") }
}

impl<'a, T: Operand> NpiGumbel<'a, T> {
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// location; None: taken from the next array input (float, optional, required).
    pub fn loc(mut self, v: f64) -> Self {
        self.call = self.call.attr("loc", Value::Float(v).to_mxnet_string());
        self
    }
    /// scale (≥ 0); None: taken from the next array input (float, optional, required).
    pub fn scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// output shape (None: the broadcast shape of the array inputs) (int or tuple of int, optional, default `None`).
    pub fn size(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("size", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// device (ignored: arrays say where they live) (string, default `cpu`).
    pub fn ctx(mut self, v: &str) -> Self {
        self.call = self.call.attr("ctx", Value::Str(v.to_string()).to_mxnet_string());
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

/// `_npi_logistic`: Samples from a logistic distribution: loc + scale·(ln u − ln(1 − u)) for a Philox uniform u (mean loc, variance scale²π²/3). `loc`/`scale` = None take them from array inputs, broadcast. Outputs float32; the hidden second output is the standardized noise.
pub struct NpiLogistic<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_npi_logistic`.
#[track_caller]
pub fn npi_logistic<'a, T: Operand>() -> NpiLogistic<'a, T> {
    NpiLogistic { call: OpCall::new("_npi_logistic") }
}

impl<'a, T: Operand> NpiLogistic<'a, T> {
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// location; None: taken from the next array input (float, optional, required).
    pub fn loc(mut self, v: f64) -> Self {
        self.call = self.call.attr("loc", Value::Float(v).to_mxnet_string());
        self
    }
    /// scale (≥ 0); None: taken from the next array input (float, optional, required).
    pub fn scale(mut self, v: f64) -> Self {
        self.call = self.call.attr("scale", Value::Float(v).to_mxnet_string());
        self
    }
    /// output shape (None: the broadcast shape of the array inputs) (int or tuple of int, optional, default `None`).
    pub fn size(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("size", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// device (ignored: arrays say where they live) (string, default `cpu`).
    pub fn ctx(mut self, v: &str) -> Self {
        self.call = self.call.attr("ctx", Value::Str(v.to_string()).to_mxnet_string());
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

/// `one_hot`: One-hot encoding: the output is indices' shape followed by `depth`, holding on_value at each index (truncated to an integer) and off_value elsewhere; an index outside \[0, depth) gives a row of off_value. The gradient is zero.
pub struct OneHot<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `one_hot`.
#[track_caller]
pub fn one_hot<'a, T: Operand>() -> OneHot<'a, T> {
    OneHot { call: OpCall::new("one_hot") }
}

impl<'a, T: Operand> OneHot<'a, T> {
    /// Input `indices`.
    pub fn indices(mut self, s: &'a T) -> Self {
        self.call = self.call.input("indices", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// length of the one-hot axis (int, required).
    pub fn depth(mut self, v: i64) -> Self {
        self.call = self.call.attr("depth", Value::Int(v).to_mxnet_string());
        self
    }
    /// the value at the indexed position (float, default `1.0`).
    pub fn on_value(mut self, v: f64) -> Self {
        self.call = self.call.attr("on_value", Value::Float(v).to_mxnet_string());
        self
    }
    /// the value everywhere else (float, default `0.0`).
    pub fn off_value(mut self, v: f64) -> Self {
        self.call = self.call.attr("off_value", Value::Float(v).to_mxnet_string());
        self
    }
    /// dtype of the output ({bfloat16, float16, float32, float64, int32, int64, int8, uint8}, default `float32`).
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

/// `ones_like`: Ones of the input's shape and dtype.
pub struct OnesLike<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `ones_like`.
#[track_caller]
pub fn ones_like<'a, T: Operand>() -> OnesLike<'a, T> {
    OnesLike { call: OpCall::new("ones_like") }
}

impl<'a, T: Operand> OnesLike<'a, T> {
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

/// `Pad`: Pads a 4-D (N, C, H, W) or 5-D (N, C, D, H, W) input along its spatial axes: pad_width holds (before, after) for every axis, 0 for N and C. In reflect mode every width must be smaller than its axis.
pub struct Pad<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `Pad`.
#[track_caller]
pub fn pad<'a, T: Operand>() -> Pad<'a, T> {
    Pad { call: OpCall::new("Pad") }
}

impl<'a, T: Operand> Pad<'a, T> {
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
    /// constant: pad with constant_value; edge: repeat the edge values; reflect: mirror the input about its edges (the edge itself not repeated) ({constant, edge, reflect}, required).
    pub fn mode(mut self, v: &str) -> Self {
        self.call = self.call.attr("mode", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// (before_1, after_1, ..., before_N, after_N), one pair per axis; the pairs of the first two axes must be 0 (tuple of int, required).
    pub fn pad_width(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("pad_width", Value::Shape(v.to_vec()).to_mxnet_string());
        self
    }
    /// the padding value in constant mode (float, default `0`).
    pub fn constant_value(mut self, v: f64) -> Self {
        self.call = self.call.attr("constant_value", Value::Float(v).to_mxnet_string());
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

/// `pick`: Picks one element along `axis` for every other position: out\[..., i, ...\] = data\[..., index\[..., i, ...\], ...\]. `index` has data's shape without the axis (or with it as 1); its values are truncated to integers, then clipped or wrapped.
pub struct Pick<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `pick`.
#[track_caller]
pub fn pick<'a, T: Operand>() -> Pick<'a, T> {
    Pick { call: OpCall::new("pick") }
}

impl<'a, T: Operand> Pick<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `index`.
    pub fn index(mut self, s: &'a T) -> Self {
        self.call = self.call.input("index", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axis to pick along (negative counts from the end; None is refused, as in MXNet 1.9.1) (int, optional, default `-1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// keep the picked axis, with size 1 (boolean, default `False`).
    pub fn keepdims(mut self, v: bool) -> Self {
        self.call = self.call.attr("keepdims", Value::Bool(v).to_mxnet_string());
        self
    }
    /// out-of-range indices: clip to the axis or wrap around it ({clip, wrap}, default `clip`).
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

/// `_power`: `lhs` raised to the power `rhs`.
pub struct Power<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_power`.
#[track_caller]
pub fn power<'a, T: Operand>() -> Power<'a, T> {
    Power { call: OpCall::new("_power") }
}

impl<'a, T: Operand> Power<'a, T> {
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

/// `_power_scalar`: `data ** scalar`.
pub struct PowerScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_power_scalar`.
#[track_caller]
pub fn power_scalar<'a, T: Operand>() -> PowerScalar<'a, T> {
    PowerScalar { call: OpCall::new("_power_scalar") }
}

impl<'a, T: Operand> PowerScalar<'a, T> {
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

/// `radians`: degrees to radians
pub struct Radians<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `radians`.
#[track_caller]
pub fn radians<'a, T: Operand>() -> Radians<'a, T> {
    Radians { call: OpCall::new("radians") }
}

impl<'a, T: Operand> Radians<'a, T> {
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

/// `_random_exponential`: Samples from an exponential distribution with rate `lam` (mean 1/lam), by inversion of one Philox uniform: -ln(1 - u)/lam.
pub struct RandomExponential<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_random_exponential`.
#[track_caller]
pub fn random_exponential<'a, T: Operand>() -> RandomExponential<'a, T> {
    RandomExponential { call: OpCall::new("_random_exponential") }
}

impl<'a, T: Operand> RandomExponential<'a, T> {
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// rate λ of the exponential distribution (> 0) (float, default `1.0`).
    pub fn lam(mut self, v: f64) -> Self {
        self.call = self.call.attr("lam", Value::Float(v).to_mxnet_string());
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

/// `_random_gamma`: Samples from a gamma distribution with shape `alpha` and scale `beta` (mean alpha·beta), by Marsaglia–Tsang rejection (with the U^(1/alpha) boost below alpha = 1) over per-attempt Philox streams.
pub struct RandomGamma<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_random_gamma`.
#[track_caller]
pub fn random_gamma<'a, T: Operand>() -> RandomGamma<'a, T> {
    RandomGamma { call: OpCall::new("_random_gamma") }
}

impl<'a, T: Operand> RandomGamma<'a, T> {
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// shape α of the gamma distribution (> 0) (float, default `1.0`).
    pub fn alpha(mut self, v: f64) -> Self {
        self.call = self.call.attr("alpha", Value::Float(v).to_mxnet_string());
        self
    }
    /// scale β of the gamma distribution (> 0) (float, default `1.0`).
    pub fn beta(mut self, v: f64) -> Self {
        self.call = self.call.attr("beta", Value::Float(v).to_mxnet_string());
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

/// `_random_generalized_negative_binomial`: Samples from a negative binomial distribution with mean `mu` and dispersion `alpha` (variance mu + alpha·mu²; counts, in a float dtype), as the gamma–Poisson mixture Poisson(Gamma(1/alpha, alpha·mu)); alpha = 0 is Poisson(mu).
pub struct RandomGeneralizedNegativeBinomial<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_random_generalized_negative_binomial`.
#[track_caller]
pub fn random_generalized_negative_binomial<'a, T: Operand>() -> RandomGeneralizedNegativeBinomial<'a, T> {
    RandomGeneralizedNegativeBinomial { call: OpCall::new("_random_generalized_negative_binomial") }
}

impl<'a, T: Operand> RandomGeneralizedNegativeBinomial<'a, T> {
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// mean of the distribution (≥ 0) (float, default `1.0`).
    pub fn mu(mut self, v: f64) -> Self {
        self.call = self.call.attr("mu", Value::Float(v).to_mxnet_string());
        self
    }
    /// dispersion: 1/k for the real-valued failure limit k (≥ 0) (float, default `1.0`).
    pub fn alpha(mut self, v: f64) -> Self {
        self.call = self.call.attr("alpha", Value::Float(v).to_mxnet_string());
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

/// `_random_negative_binomial`: Samples the number of failures before the k-th success in trials that succeed with probability p (mean k(1−p)/p; counts, in a float dtype), as the gamma–Poisson mixture Poisson(Gamma(k, (1−p)/p)).
pub struct RandomNegativeBinomial<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_random_negative_binomial`.
#[track_caller]
pub fn random_negative_binomial<'a, T: Operand>() -> RandomNegativeBinomial<'a, T> {
    RandomNegativeBinomial { call: OpCall::new("_random_negative_binomial") }
}

impl<'a, T: Operand> RandomNegativeBinomial<'a, T> {
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// number of successes to wait for (≥ 1) (int, default `1`).
    pub fn k(mut self, v: i64) -> Self {
        self.call = self.call.attr("k", Value::Int(v).to_mxnet_string());
        self
    }
    /// success probability of each trial, in (0, 1\] (MXNet's documentation calls it the failure probability, but samples with mean k(1−p)/p) (float, default `1.0`).
    pub fn p(mut self, v: f64) -> Self {
        self.call = self.call.attr("p", Value::Float(v).to_mxnet_string());
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

/// `_random_poisson`: Samples from a Poisson distribution with rate `lam` (counts, in a float dtype): inversion of one Philox uniform below lam = 10, Hörmann's PTRS rejection from it on.
pub struct RandomPoisson<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_random_poisson`.
#[track_caller]
pub fn random_poisson<'a, T: Operand>() -> RandomPoisson<'a, T> {
    RandomPoisson { call: OpCall::new("_random_poisson") }
}

impl<'a, T: Operand> RandomPoisson<'a, T> {
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// rate λ of the Poisson distribution (≥ 0) (float, default `1.0`).
    pub fn lam(mut self, v: f64) -> Self {
        self.call = self.call.attr("lam", Value::Float(v).to_mxnet_string());
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

/// `_random_randint`: Samples integers uniformly from \[low, high). Each element takes 64 Philox bits x and returns low + floor(x·(high − low)/2^64) (Lemire's multiply-shift, without its rejection step: the bias is below (high − low)/2^64, under 2^-32 for int32 ranges).
pub struct RandomRandint<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_random_randint`.
#[track_caller]
pub fn random_randint<'a, T: Operand>() -> RandomRandint<'a, T> {
    RandomRandint { call: OpCall::new("_random_randint") }
}

impl<'a, T: Operand> RandomRandint<'a, T> {
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// lower bound (inclusive) (int, required).
    pub fn low(mut self, v: i64) -> Self {
        self.call = self.call.attr("low", Value::Int(v).to_mxnet_string());
        self
    }
    /// upper bound (exclusive) (int, required).
    pub fn high(mut self, v: i64) -> Self {
        self.call = self.call.attr("high", Value::Int(v).to_mxnet_string());
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
    /// output dtype (None: int32) ({None, int32, int64}, default `None`).
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

/// `_random_uniform`: Samples uniformly from \[low, high).
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

/// `rcbrt`: 1 / cbrt(x)
pub struct Rcbrt<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `rcbrt`.
#[track_caller]
pub fn rcbrt<'a, T: Operand>() -> Rcbrt<'a, T> {
    Rcbrt { call: OpCall::new("rcbrt") }
}

impl<'a, T: Operand> Rcbrt<'a, T> {
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

/// `reciprocal`: 1 / x
pub struct Reciprocal<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `reciprocal`.
#[track_caller]
pub fn reciprocal<'a, T: Operand>() -> Reciprocal<'a, T> {
    Reciprocal { call: OpCall::new("reciprocal") }
}

impl<'a, T: Operand> Reciprocal<'a, T> {
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

/// `repeat`: Repeats each element `repeats` times along `axis` (negative counts from the end); with axis None, of the flattened input (the output is 1-D).
pub struct Repeat<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `repeat`.
#[track_caller]
pub fn repeat<'a, T: Operand>() -> Repeat<'a, T> {
    Repeat { call: OpCall::new("repeat") }
}

impl<'a, T: Operand> Repeat<'a, T> {
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
    /// copies of each element (at least 1) (int, required).
    pub fn repeats(mut self, v: i64) -> Self {
        self.call = self.call.attr("repeats", Value::Int(v).to_mxnet_string());
        self
    }
    /// the axis to repeat along (None: the flattened input) (int, optional, default `None`).
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

/// `reshape_like`: Gives lhs the shape of rhs without changing its data (rhs's values are not read). With lhs_begin/lhs_end and rhs_begin/rhs_end, only lhs's dimensions \[lhs_begin, lhs_end) are replaced, by rhs's dimensions \[rhs_begin, rhs_end). Negative indices count from the end; None means the start (begin) or the end (end). The sizes must agree.
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

/// `reverse`: Reverses the order of the elements along each listed axis (from 0; MXNet 1.x accepts no negative axes here). An axis listed twice is reversed twice.
pub struct Reverse<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `reverse`.
#[track_caller]
pub fn reverse<'a, T: Operand>() -> Reverse<'a, T> {
    Reverse { call: OpCall::new("reverse") }
}

impl<'a, T: Operand> Reverse<'a, T> {
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
    /// the axes to reverse (tuple of int, required).
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

/// `rint`: nearest integer, halves toward -inf (MXNet's rint: rint(0.5) = 0, rint(-0.5) = -1)
pub struct Rint<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `rint`.
#[track_caller]
pub fn rint<'a, T: Operand>() -> Rint<'a, T> {
    Rint { call: OpCall::new("rint") }
}

impl<'a, T: Operand> Rint<'a, T> {
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

/// `_rmod_scalar`: `scalar % data`, with data's sign (Python's `%`); 0 where data is 0.
pub struct RmodScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_rmod_scalar`.
#[track_caller]
pub fn rmod_scalar<'a, T: Operand>() -> RmodScalar<'a, T> {
    RmodScalar { call: OpCall::new("_rmod_scalar") }
}

impl<'a, T: Operand> RmodScalar<'a, T> {
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

/// `RNN`: Fused multi-layer RNN (lstm, gru, rnn_tanh, rnn_relu; bidirectional) over (T, N, I) data: parameters is the flat cuDNN-ordered vector (all W_x, W_h per layer and direction, then all b_x, b_h), of size Σ_l D·(G·H·(I_l + H) + 2·G·H); state (and state_cell for LSTM) is (L·D, N, H). Output (T, N, D·H), and with state_outputs the final state and cell.
pub struct Rnn<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `RNN`.
#[track_caller]
pub fn rnn<'a, T: Operand>() -> Rnn<'a, T> {
    Rnn { call: OpCall::new("RNN") }
}

impl<'a, T: Operand> Rnn<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `parameters`.
    pub fn parameters(mut self, s: &'a T) -> Self {
        self.call = self.call.input("parameters", s);
        self
    }
    /// Input `state`.
    pub fn state(mut self, s: &'a T) -> Self {
        self.call = self.call.input("state", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// hidden size H (int, required).
    pub fn state_size(mut self, v: i64) -> Self {
        self.call = self.call.attr("state_size", Value::Int(v).to_mxnet_string());
        self
    }
    /// number of stacked layers L (int, required).
    pub fn num_layers(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_layers", Value::Int(v).to_mxnet_string());
        self
    }
    /// a second, backward direction per layer (boolean, default `False`).
    pub fn bidirectional(mut self, v: bool) -> Self {
        self.call = self.call.attr("bidirectional", Value::Bool(v).to_mxnet_string());
        self
    }
    /// the recurrent cell ({gru, lstm, rnn_relu, rnn_tanh}, required).
    pub fn mode(mut self, v: &str) -> Self {
        self.call = self.call.attr("mode", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// dropout between layers in training (only 0 is supported in training) (float, default `0.0`).
    pub fn p(mut self, v: f64) -> Self {
        self.call = self.call.attr("p", Value::Float(v).to_mxnet_string());
        self
    }
    /// also output the final state (and cell, LSTM) (boolean, default `False`).
    pub fn state_outputs(mut self, v: bool) -> Self {
        self.call = self.call.attr("state_outputs", Value::Bool(v).to_mxnet_string());
        self
    }
    /// LSTM projection (not supported) (int, optional, default `None`).
    pub fn projection_size(mut self, v: i64) -> Self {
        self.call = self.call.attr("projection_size", Value::Int(v).to_mxnet_string());
        self
    }
    /// lower clip of the LSTM cell state (float, optional, default `None`).
    pub fn lstm_state_clip_min(mut self, v: f64) -> Self {
        self.call = self.call.attr("lstm_state_clip_min", Value::Float(v).to_mxnet_string());
        self
    }
    /// upper clip of the LSTM cell state (float, optional, default `None`).
    pub fn lstm_state_clip_max(mut self, v: f64) -> Self {
        self.call = self.call.attr("lstm_state_clip_max", Value::Float(v).to_mxnet_string());
        self
    }
    /// clipping turns NaN cell states into the maximum (boolean, default `False`).
    pub fn lstm_state_clip_nan(mut self, v: bool) -> Self {
        self.call = self.call.attr("lstm_state_clip_nan", Value::Bool(v).to_mxnet_string());
        self
    }
    /// take a `sequence_length` input (N,) (boolean, default `False`).
    pub fn use_sequence_length(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_sequence_length", Value::Bool(v).to_mxnet_string());
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

/// `round`: nearest integer, halves away from zero
pub struct Round<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `round`.
#[track_caller]
pub fn round<'a, T: Operand>() -> Round<'a, T> {
    Round { call: OpCall::new("round") }
}

impl<'a, T: Operand> Round<'a, T> {
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

/// `_rpower_scalar`: `scalar ** data`.
pub struct RpowerScalar<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `_rpower_scalar`.
#[track_caller]
pub fn rpower_scalar<'a, T: Operand>() -> RpowerScalar<'a, T> {
    RpowerScalar { call: OpCall::new("_rpower_scalar") }
}

impl<'a, T: Operand> RpowerScalar<'a, T> {
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

/// `rsqrt`: 1 / sqrt(x)
pub struct Rsqrt<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `rsqrt`.
#[track_caller]
pub fn rsqrt<'a, T: Operand>() -> Rsqrt<'a, T> {
    Rsqrt { call: OpCall::new("rsqrt") }
}

impl<'a, T: Operand> Rsqrt<'a, T> {
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

/// `scatter_nd`: Scatters slices of `data` into zeros of `shape`: with `indices` of shape (M, Y...), out\[indices\[0, y...\], ..., indices\[M-1, y...\]\] = data\[y...\], where data has shape Y... followed by shape's axes after the first M. Indices are truncated to integers and must lie in \[0, size); with repeats the last slice wins.
pub struct ScatterNd<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `scatter_nd`.
#[track_caller]
pub fn scatter_nd<'a, T: Operand>() -> ScatterNd<'a, T> {
    ScatterNd { call: OpCall::new("scatter_nd") }
}

impl<'a, T: Operand> ScatterNd<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `indices`.
    pub fn indices(mut self, s: &'a T) -> Self {
        self.call = self.call.input("indices", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// shape of the output (tuple of int, required).
    pub fn shape(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("shape", Value::Shape(v.to_vec()).to_mxnet_string());
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

/// `SequenceLast`: The last step of each sequence (step length − 1; T − 1 without use_sequence_length): data's shape without the time axis.
pub struct SequenceLast<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `SequenceLast`.
#[track_caller]
pub fn sequence_last<'a, T: Operand>() -> SequenceLast<'a, T> {
    SequenceLast { call: OpCall::new("SequenceLast") }
}

impl<'a, T: Operand> SequenceLast<'a, T> {
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
    /// take a `sequence_length` input (B,); otherwise every sequence has length T (boolean, default `False`).
    pub fn use_sequence_length(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_sequence_length", Value::Bool(v).to_mxnet_string());
        self
    }
    /// the time axis: 0 for (T, B, ...), 1 for (B, T, ...) (int, default `0`).
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

/// `SequenceMask`: Sets every step t ≥ length of each sequence to `value`; the identity without use_sequence_length.
pub struct SequenceMask<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `SequenceMask`.
#[track_caller]
pub fn sequence_mask<'a, T: Operand>() -> SequenceMask<'a, T> {
    SequenceMask { call: OpCall::new("SequenceMask") }
}

impl<'a, T: Operand> SequenceMask<'a, T> {
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
    /// take a `sequence_length` input (B,); otherwise every sequence has length T (boolean, default `False`).
    pub fn use_sequence_length(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_sequence_length", Value::Bool(v).to_mxnet_string());
        self
    }
    /// written at the masked steps (float, default `0.0`).
    pub fn value(mut self, v: f64) -> Self {
        self.call = self.call.attr("value", Value::Float(v).to_mxnet_string());
        self
    }
    /// the time axis: 0 for (T, B, ...), 1 for (B, T, ...) (int, default `0`).
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

/// `SequenceReverse`: Reverses the first length steps of each sequence, leaving the rest in place; reverses all T steps without use_sequence_length.
pub struct SequenceReverse<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `SequenceReverse`.
#[track_caller]
pub fn sequence_reverse<'a, T: Operand>() -> SequenceReverse<'a, T> {
    SequenceReverse { call: OpCall::new("SequenceReverse") }
}

impl<'a, T: Operand> SequenceReverse<'a, T> {
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
    /// take a `sequence_length` input (B,); otherwise every sequence has length T (boolean, default `False`).
    pub fn use_sequence_length(mut self, v: bool) -> Self {
        self.call = self.call.attr("use_sequence_length", Value::Bool(v).to_mxnet_string());
        self
    }
    /// the time axis (only 0 is supported, as MXNet) (int, default `0`).
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

/// `sign`: -1, 0 or 1 by the sign of x (0 for NaN)
pub struct Sign<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `sign`.
#[track_caller]
pub fn sign<'a, T: Operand>() -> Sign<'a, T> {
    Sign { call: OpCall::new("sign") }
}

impl<'a, T: Operand> Sign<'a, T> {
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

/// `sin`: sine (radians)
pub struct Sin<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `sin`.
#[track_caller]
pub fn sin<'a, T: Operand>() -> Sin<'a, T> {
    Sin { call: OpCall::new("sin") }
}

impl<'a, T: Operand> Sin<'a, T> {
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

/// `sinh`: hyperbolic sine
pub struct Sinh<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `sinh`.
#[track_caller]
pub fn sinh<'a, T: Operand>() -> Sinh<'a, T> {
    Sinh { call: OpCall::new("sinh") }
}

impl<'a, T: Operand> Sinh<'a, T> {
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

/// `slice`: Slices the leading axes: along axis i, indices begin\[i\], begin\[i\]+step\[i\], ... up to end\[i\] (exclusive). Negative indices count from the end and out-of-range bounds are clamped; a None begin/end means the start/end of the axis (for a negative step, the last index and past the first).
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

/// `slice_like`: Slices `data` from the origin to the shape of `shape_like`, along `axes` (empty: every axis, the ranks must then agree). Negative axes count from the end of data; shape_like's values are not read.
pub struct SliceLike<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `slice_like`.
#[track_caller]
pub fn slice_like<'a, T: Operand>() -> SliceLike<'a, T> {
    SliceLike { call: OpCall::new("slice_like") }
}

impl<'a, T: Operand> SliceLike<'a, T> {
    /// Input `data`.
    pub fn data(mut self, s: &'a T) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// Input `shape_like`.
    pub fn shape_like(mut self, s: &'a T) -> Self {
        self.call = self.call.input("shape_like", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axes to slice (empty: all) (tuple of int, default `()`).
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

/// `smooth_l1`: Smooth L1 (Huber) with σ = `scalar`: `0.5·(σx)²` where |x| < 1/σ², else `|x| − 0.5/σ²`.
pub struct SmoothL1<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `smooth_l1`.
#[track_caller]
pub fn smooth_l1<'a, T: Operand>() -> SmoothL1<'a, T> {
    SmoothL1 { call: OpCall::new("smooth_l1") }
}

impl<'a, T: Operand> SmoothL1<'a, T> {
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
    /// σ: the quadratic part spans |x| < 1/σ² (float, default `1.0`).
    pub fn scalar(mut self, v: f64) -> Self {
        self.call = self.call.attr("scalar", Value::Float(v).to_mxnet_string());
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

/// `softmax`: `exp((x − max)/T) / Σ exp((x − max)/T)` along `axis`. With use_length, entries at or beyond length\[i\] along the axis are 0 and take no part.
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
    /// take a `length` input: only the first length\[i\] entries along the axis take part (boolean, optional, default `False`).
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

/// `softmax_cross_entropy`: Cross entropy of softmax(data) against integer labels, summed over the batch: data (N, K), label (N,), output (1,) = Σ_n −log max(softmax(data_n)\[label_n\], 1e-8).
pub struct SoftmaxCrossEntropy<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `softmax_cross_entropy`.
#[track_caller]
pub fn softmax_cross_entropy<'a, T: Operand>() -> SoftmaxCrossEntropy<'a, T> {
    SoftmaxCrossEntropy { call: OpCall::new("softmax_cross_entropy") }
}

impl<'a, T: Operand> SoftmaxCrossEntropy<'a, T> {
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

/// `softsign`: x / (1 + |x|)
pub struct Softsign<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `softsign`.
#[track_caller]
pub fn softsign<'a, T: Operand>() -> Softsign<'a, T> {
    Softsign { call: OpCall::new("softsign") }
}

impl<'a, T: Operand> Softsign<'a, T> {
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

/// `sort`: Sorts along `axis` (the flattened input when None), ascending unless is_ascend is False; ties keep their order.
pub struct Sort<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `sort`.
#[track_caller]
pub fn sort<'a, T: Operand>() -> Sort<'a, T> {
    Sort { call: OpCall::new("sort") }
}

impl<'a, T: Operand> Sort<'a, T> {
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
    /// the axis to sort along (None: the flattened input); negative counts from the end (int, optional, default `-1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// ascending (True) or descending order (boolean, default `True`).
    pub fn is_ascend(mut self, v: bool) -> Self {
        self.call = self.call.attr("is_ascend", Value::Bool(v).to_mxnet_string());
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

/// `stack`: Joins the inputs arg0, arg1, ..., all of one shape, along a new axis `axis` of the output (negative counts from the end of the output).
pub struct Stack<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `stack`.
#[track_caller]
pub fn stack<'a, T: Operand>() -> Stack<'a, T> {
    Stack { call: OpCall::new("stack") }
}

impl<'a, T: Operand> Stack<'a, T> {
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
    /// the new axis, in the output (int, default `0`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
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

/// `SwapAxis`: Swaps axes `dim1` and `dim2` (negative counts from the end).
pub struct SwapAxis<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `SwapAxis`.
#[track_caller]
pub fn swap_axis<'a, T: Operand>() -> SwapAxis<'a, T> {
    SwapAxis { call: OpCall::new("SwapAxis") }
}

impl<'a, T: Operand> SwapAxis<'a, T> {
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
    /// the first axis (int, default `0`).
    pub fn dim1(mut self, v: i64) -> Self {
        self.call = self.call.attr("dim1", Value::Int(v).to_mxnet_string());
        self
    }
    /// the second axis (int, default `0`).
    pub fn dim2(mut self, v: i64) -> Self {
        self.call = self.call.attr("dim2", Value::Int(v).to_mxnet_string());
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

/// `take`: Takes slices of `a` along `axis` at the positions in `indices` (truncated to integers): the output shape is a's dims before axis, then indices' shape, then a's dims after axis.
pub struct Take<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `take`.
#[track_caller]
pub fn take<'a, T: Operand>() -> Take<'a, T> {
    Take { call: OpCall::new("take") }
}

impl<'a, T: Operand> Take<'a, T> {
    /// Input `a`.
    pub fn a(mut self, s: &'a T) -> Self {
        self.call = self.call.input("a", s);
        self
    }
    /// Input `indices`.
    pub fn indices(mut self, s: &'a T) -> Self {
        self.call = self.call.input("indices", s);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a T) -> Self {
        self.call = self.call.input(name, s);
        self
    }
    /// the axis of `a` to take from (negative counts from the end) (int, default `0`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// out-of-range indices: clip to the axis, wrap around it, or raise an error ({clip, raise, wrap}, default `clip`).
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

/// `tan`: tangent (radians)
pub struct Tan<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `tan`.
#[track_caller]
pub fn tan<'a, T: Operand>() -> Tan<'a, T> {
    Tan { call: OpCall::new("tan") }
}

impl<'a, T: Operand> Tan<'a, T> {
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

/// `tile`: Repeats the whole input `reps\[i\]` times along axis i. With more reps than input dimensions the input gets leading axes of size 1; with fewer, reps gets leading 1s. Empty reps is a copy.
pub struct Tile<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `tile`.
#[track_caller]
pub fn tile<'a, T: Operand>() -> Tile<'a, T> {
    Tile { call: OpCall::new("tile") }
}

impl<'a, T: Operand> Tile<'a, T> {
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
    /// the number of copies along each axis (each at least 1) (tuple of int, required).
    pub fn reps(mut self, v: &[i64]) -> Self {
        self.call = self.call.attr("reps", Value::Shape(v.to_vec()).to_mxnet_string());
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

/// `topk`: The k largest (smallest with is_ascend) elements along `axis` (of the flattened input when None), in order: their values (ret_typ value), their indices as `dtype` (indices), both (two outputs), or a 0/1 mask of the input's shape (mask). k < 1 takes every element. Ties keep their order.
pub struct Topk<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `topk`.
#[track_caller]
pub fn topk<'a, T: Operand>() -> Topk<'a, T> {
    Topk { call: OpCall::new("topk") }
}

impl<'a, T: Operand> Topk<'a, T> {
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
    /// the axis to sort along (None: the flattened input); negative counts from the end (int, optional, default `-1`).
    pub fn axis(mut self, v: i64) -> Self {
        self.call = self.call.attr("axis", Value::Int(v).to_mxnet_string());
        self
    }
    /// how many elements to take; below 1: all of them (int, default `1`).
    pub fn k(mut self, v: i64) -> Self {
        self.call = self.call.attr("k", Value::Int(v).to_mxnet_string());
        self
    }
    /// what to return: values, indices, both, or a mask of the input's shape ({both, indices, mask, value}, default `indices`).
    pub fn ret_typ(mut self, v: &str) -> Self {
        self.call = self.call.attr("ret_typ", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// take the smallest elements instead of the largest (boolean, default `False`).
    pub fn is_ascend(mut self, v: bool) -> Self {
        self.call = self.call.attr("is_ascend", Value::Bool(v).to_mxnet_string());
        self
    }
    /// dtype of the indices (ret_typ indices or both) ({float16, float32, float64, int32, int64, uint8}, default `float32`).
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

/// `transpose`: Permutes the axes: output axis i is input axis axes\[i\]. Empty `axes` reverses the axes.
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

/// `trunc`: integer part, toward zero
pub struct Trunc<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `trunc`.
#[track_caller]
pub fn trunc<'a, T: Operand>() -> Trunc<'a, T> {
    Trunc { call: OpCall::new("trunc") }
}

impl<'a, T: Operand> Trunc<'a, T> {
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

/// `UpSampling`: Up-samples NCHW data by an integer `scale`. nearest: inputs arg0..., each repeated (by one factor along both axes) to (h0·scale, w0·scale) of the first, then concatenated along channels (multi_input_mode concat) or added (sum). bilinear: inputs data and weight (C, 1, k, k), k = 2·scale − scale mod 2: the deconvolution with stride scale, pad ⌈(scale−1)/2⌉ and num_group = num_filter = C.
pub struct UpSampling<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `UpSampling`.
#[track_caller]
pub fn up_sampling<'a, T: Operand>() -> UpSampling<'a, T> {
    UpSampling { call: OpCall::new("UpSampling") }
}

impl<'a, T: Operand> UpSampling<'a, T> {
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
    /// up-sampling factor (int, required).
    pub fn scale(mut self, v: i64) -> Self {
        self.call = self.call.attr("scale", Value::Int(v).to_mxnet_string());
        self
    }
    /// bilinear only: the data's number of channels (int, default `0`).
    pub fn num_filter(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_filter", Value::Int(v).to_mxnet_string());
        self
    }
    /// nearest neighbour or bilinear (a deconvolution with the given weight) ({bilinear, nearest}, required).
    pub fn sample_type(mut self, v: &str) -> Self {
        self.call = self.call.attr("sample_type", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// nearest with several inputs: concatenate along channels or add ({concat, sum}, default `concat`).
    pub fn multi_input_mode(mut self, v: &str) -> Self {
        self.call = self.call.attr("multi_input_mode", Value::Str(v.to_string()).to_mxnet_string());
        self
    }
    /// number of inputs (nearest); bilinear takes data and weight (int, required).
    pub fn num_args(mut self, v: i64) -> Self {
        self.call = self.call.attr("num_args", Value::Int(v).to_mxnet_string());
        self
    }
    /// MXNet workspace limit in MB (ignored) (int, default `512`).
    pub fn workspace(mut self, v: i64) -> Self {
        self.call = self.call.attr("workspace", Value::Int(v).to_mxnet_string());
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

/// `where`: Takes `x` where `condition` is non-zero and `y` elsewhere. `condition` has x's shape, or is 1-D with one entry per row of x (selecting whole rows); its dtype may differ from x's.
pub struct Where<'a, T> {
    call: OpCall<'a, T>,
}

/// Applies `where`.
#[track_caller]
pub fn r#where<'a, T: Operand>() -> Where<'a, T> {
    Where { call: OpCall::new("where") }
}

impl<'a, T: Operand> Where<'a, T> {
    /// Input `condition`.
    pub fn condition(mut self, s: &'a T) -> Self {
        self.call = self.call.input("condition", s);
        self
    }
    /// Input `x`.
    pub fn x(mut self, s: &'a T) -> Self {
        self.call = self.call.input("x", s);
        self
    }
    /// Input `y`.
    pub fn y(mut self, s: &'a T) -> Self {
        self.call = self.call.input("y", s);
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

