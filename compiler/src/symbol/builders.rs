//! Typed builders, one per operator, generated from the operator registry by
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

use super::{OpCall, Symbol};
use crate::Result;
#[allow(unused_imports)]
use kiln_ops::{DType, Value};

/// `abs`: |x|
pub struct Abs<'a> {
    call: OpCall<'a>,
}

/// Builds a `abs` node.
#[track_caller]
pub fn abs<'a>() -> Abs<'a> {
    Abs { call: Symbol::op("abs") }
}

impl<'a> Abs<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `Activation`: Applies an activation function element-wise (relu, sigmoid, tanh, softrelu, softsign).
pub struct Activation<'a> {
    call: OpCall<'a>,
}

/// Builds a `Activation` node.
#[track_caller]
pub fn activation<'a>() -> Activation<'a> {
    Activation { call: Symbol::op("Activation") }
}

impl<'a> Activation<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
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
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `add_n`: Sums any number of same-shape inputs.
pub struct AddN<'a> {
    call: OpCall<'a>,
}

/// Builds a `add_n` node.
#[track_caller]
pub fn add_n<'a>() -> AddN<'a> {
    AddN { call: Symbol::op("add_n") }
}

impl<'a> AddN<'a> {
    /// Positional inputs, in order.
    pub fn args(mut self, inputs: impl IntoIterator<Item = &'a Symbol>) -> Self {
        self.call = self.call.args(inputs);
        self
    }
    /// An input by name.
    pub fn input(mut self, name: &str, s: &'a Symbol) -> Self {
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
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `BlockGrad`: identity in the forward pass; stops gradients in the backward pass
pub struct BlockGrad<'a> {
    call: OpCall<'a>,
}

/// Builds a `BlockGrad` node.
#[track_caller]
pub fn block_grad<'a>() -> BlockGrad<'a> {
    BlockGrad { call: Symbol::op("BlockGrad") }
}

impl<'a> BlockGrad<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `broadcast_add`: element-wise on two inputs with NumPy broadcasting
pub struct BroadcastAdd<'a> {
    call: OpCall<'a>,
}

/// Builds a `broadcast_add` node.
#[track_caller]
pub fn broadcast_add<'a>() -> BroadcastAdd<'a> {
    BroadcastAdd { call: Symbol::op("broadcast_add") }
}

impl<'a> BroadcastAdd<'a> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `broadcast_div`: element-wise on two inputs with NumPy broadcasting
pub struct BroadcastDiv<'a> {
    call: OpCall<'a>,
}

/// Builds a `broadcast_div` node.
#[track_caller]
pub fn broadcast_div<'a>() -> BroadcastDiv<'a> {
    BroadcastDiv { call: Symbol::op("broadcast_div") }
}

impl<'a> BroadcastDiv<'a> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `broadcast_mul`: element-wise on two inputs with NumPy broadcasting
pub struct BroadcastMul<'a> {
    call: OpCall<'a>,
}

/// Builds a `broadcast_mul` node.
#[track_caller]
pub fn broadcast_mul<'a>() -> BroadcastMul<'a> {
    BroadcastMul { call: Symbol::op("broadcast_mul") }
}

impl<'a> BroadcastMul<'a> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `broadcast_sub`: element-wise on two inputs with NumPy broadcasting
pub struct BroadcastSub<'a> {
    call: OpCall<'a>,
}

/// Builds a `broadcast_sub` node.
#[track_caller]
pub fn broadcast_sub<'a>() -> BroadcastSub<'a> {
    BroadcastSub { call: Symbol::op("broadcast_sub") }
}

impl<'a> BroadcastSub<'a> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `Cast`: Casts to another dtype.
pub struct Cast<'a> {
    call: OpCall<'a>,
}

/// Builds a `Cast` node.
#[track_caller]
pub fn cast<'a>() -> Cast<'a> {
    Cast { call: Symbol::op("Cast") }
}

impl<'a> Cast<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
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
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `clip`: Clips values to [a_min, a_max].
pub struct Clip<'a> {
    call: OpCall<'a>,
}

/// Builds a `clip` node.
#[track_caller]
pub fn clip<'a>() -> Clip<'a> {
    Clip { call: Symbol::op("clip") }
}

impl<'a> Clip<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
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
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `_copy`: returns a copy of the input
pub struct Copy<'a> {
    call: OpCall<'a>,
}

/// Builds a `_copy` node.
#[track_caller]
pub fn copy<'a>() -> Copy<'a> {
    Copy { call: Symbol::op("_copy") }
}

impl<'a> Copy<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `_div_scalar`: element-wise with a scalar parameter
pub struct DivScalar<'a> {
    call: OpCall<'a>,
}

/// Builds a `_div_scalar` node.
#[track_caller]
pub fn div_scalar<'a>() -> DivScalar<'a> {
    DivScalar { call: Symbol::op("_div_scalar") }
}

impl<'a> DivScalar<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
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
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `elemwise_add`: element-wise on two inputs of the same shape
pub struct ElemwiseAdd<'a> {
    call: OpCall<'a>,
}

/// Builds a `elemwise_add` node.
#[track_caller]
pub fn elemwise_add<'a>() -> ElemwiseAdd<'a> {
    ElemwiseAdd { call: Symbol::op("elemwise_add") }
}

impl<'a> ElemwiseAdd<'a> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `elemwise_div`: element-wise on two inputs of the same shape
pub struct ElemwiseDiv<'a> {
    call: OpCall<'a>,
}

/// Builds a `elemwise_div` node.
#[track_caller]
pub fn elemwise_div<'a>() -> ElemwiseDiv<'a> {
    ElemwiseDiv { call: Symbol::op("elemwise_div") }
}

impl<'a> ElemwiseDiv<'a> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `elemwise_mul`: element-wise on two inputs of the same shape
pub struct ElemwiseMul<'a> {
    call: OpCall<'a>,
}

/// Builds a `elemwise_mul` node.
#[track_caller]
pub fn elemwise_mul<'a>() -> ElemwiseMul<'a> {
    ElemwiseMul { call: Symbol::op("elemwise_mul") }
}

impl<'a> ElemwiseMul<'a> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `elemwise_sub`: element-wise on two inputs of the same shape
pub struct ElemwiseSub<'a> {
    call: OpCall<'a>,
}

/// Builds a `elemwise_sub` node.
#[track_caller]
pub fn elemwise_sub<'a>() -> ElemwiseSub<'a> {
    ElemwiseSub { call: Symbol::op("elemwise_sub") }
}

impl<'a> ElemwiseSub<'a> {
    /// Input `lhs`.
    pub fn lhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("lhs", s);
        self
    }
    /// Input `rhs`.
    pub fn rhs(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("rhs", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `exp`: e^x
pub struct Exp<'a> {
    call: OpCall<'a>,
}

/// Builds a `exp` node.
#[track_caller]
pub fn exp<'a>() -> Exp<'a> {
    Exp { call: Symbol::op("exp") }
}

impl<'a> Exp<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `log`: natural logarithm
pub struct Log<'a> {
    call: OpCall<'a>,
}

/// Builds a `log` node.
#[track_caller]
pub fn log<'a>() -> Log<'a> {
    Log { call: Symbol::op("log") }
}

impl<'a> Log<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `_minus_scalar`: element-wise with a scalar parameter
pub struct MinusScalar<'a> {
    call: OpCall<'a>,
}

/// Builds a `_minus_scalar` node.
#[track_caller]
pub fn minus_scalar<'a>() -> MinusScalar<'a> {
    MinusScalar { call: Symbol::op("_minus_scalar") }
}

impl<'a> MinusScalar<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
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
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `_mul_scalar`: element-wise with a scalar parameter
pub struct MulScalar<'a> {
    call: OpCall<'a>,
}

/// Builds a `_mul_scalar` node.
#[track_caller]
pub fn mul_scalar<'a>() -> MulScalar<'a> {
    MulScalar { call: Symbol::op("_mul_scalar") }
}

impl<'a> MulScalar<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
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
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `negative`: -x
pub struct Negative<'a> {
    call: OpCall<'a>,
}

/// Builds a `negative` node.
#[track_caller]
pub fn negative<'a>() -> Negative<'a> {
    Negative { call: Symbol::op("negative") }
}

impl<'a> Negative<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `_plus_scalar`: element-wise with a scalar parameter
pub struct PlusScalar<'a> {
    call: OpCall<'a>,
}

/// Builds a `_plus_scalar` node.
#[track_caller]
pub fn plus_scalar<'a>() -> PlusScalar<'a> {
    PlusScalar { call: Symbol::op("_plus_scalar") }
}

impl<'a> PlusScalar<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
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
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `_rdiv_scalar`: element-wise with a scalar parameter
pub struct RdivScalar<'a> {
    call: OpCall<'a>,
}

/// Builds a `_rdiv_scalar` node.
#[track_caller]
pub fn rdiv_scalar<'a>() -> RdivScalar<'a> {
    RdivScalar { call: Symbol::op("_rdiv_scalar") }
}

impl<'a> RdivScalar<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
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
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `relu`: max(x, 0)
pub struct Relu<'a> {
    call: OpCall<'a>,
}

/// Builds a `relu` node.
#[track_caller]
pub fn relu<'a>() -> Relu<'a> {
    Relu { call: Symbol::op("relu") }
}

impl<'a> Relu<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `_rminus_scalar`: element-wise with a scalar parameter
pub struct RminusScalar<'a> {
    call: OpCall<'a>,
}

/// Builds a `_rminus_scalar` node.
#[track_caller]
pub fn rminus_scalar<'a>() -> RminusScalar<'a> {
    RminusScalar { call: Symbol::op("_rminus_scalar") }
}

impl<'a> RminusScalar<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
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
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `sigmoid`: 1 / (1 + exp(-x))
pub struct Sigmoid<'a> {
    call: OpCall<'a>,
}

/// Builds a `sigmoid` node.
#[track_caller]
pub fn sigmoid<'a>() -> Sigmoid<'a> {
    Sigmoid { call: Symbol::op("sigmoid") }
}

impl<'a> Sigmoid<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `sqrt`: square root
pub struct Sqrt<'a> {
    call: OpCall<'a>,
}

/// Builds a `sqrt` node.
#[track_caller]
pub fn sqrt<'a>() -> Sqrt<'a> {
    Sqrt { call: Symbol::op("sqrt") }
}

impl<'a> Sqrt<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `square`: x * x
pub struct Square<'a> {
    call: OpCall<'a>,
}

/// Builds a `square` node.
#[track_caller]
pub fn square<'a>() -> Square<'a> {
    Square { call: Symbol::op("square") }
}

impl<'a> Square<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

/// `tanh`: hyperbolic tangent
pub struct Tanh<'a> {
    call: OpCall<'a>,
}

/// Builds a `tanh` node.
#[track_caller]
pub fn tanh<'a>() -> Tanh<'a> {
    Tanh { call: Symbol::op("tanh") }
}

impl<'a> Tanh<'a> {
    /// Input `data`.
    pub fn data(mut self, s: &'a Symbol) -> Self {
        self.call = self.call.input("data", s);
        self
    }
    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.call = self.call.name(name);
        self
    }
    /// Any attribute as MXNet's string form.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.call = self.call.attr(key, value);
        self
    }
    /// Creates the node.
    pub fn build(self) -> Result<Symbol> {
        self.call.build()
    }
}

