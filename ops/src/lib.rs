//! kiln-ops: the operator definitions.
//!
//! Each operator is declared once as an [`OpDef`]: its MXNet name and aliases, typed
//! parameters with defaults, inputs and (hidden) outputs, shape and dtype inference, its
//! fusion [`Pattern`] and — per pattern — what a backend needs to generate it: a scalar
//! [`Expr`] (element-wise), an [`IndexMap`] (injective), a [`Reduction`], or a named library
//! kernel with a naive reference. The reference interpreter ([`evaluate`]) and every code
//! generator derive their kernels from that one declaration.
//!
//! Families live one per file and are registered explicitly by [`registry()`].

pub mod compare;
pub mod contraction;
pub mod def;
pub mod dtype;
pub mod elemwise;
pub mod expr;
pub mod grad;
pub mod index;
pub mod memory;
pub mod native;
pub mod nn;
pub mod param;
pub mod random;
pub mod reference;
pub mod registry;
pub mod sampling;
pub mod shape;
pub mod tensor;
pub mod tensor_ops;
#[cfg(test)]
pub(crate) mod testutil;

pub use def::{
    AuxUpdateFn, ChannelNorm, Combiner, ComposeFn, Composed, Compute, ConvKind, CostFn, DTypeFn,
    ExpandCtx, ExpandFn, Grad, GradCtx, GradFn, GradGraph, Handle, Identity, IndexMapFn, Inputs,
    KernelCtx, OpDef, Outputs, Pattern, PerSample, RecomputeFn, Reduction, RefKernel, Resource,
    ShapeFn,
};
pub use dtype::DType;
pub use expr::{c, x, Expr};
pub use grad::gradient;
/// Half-precision types, for generated code that stores f16 and bf16.
pub use half;
pub use index::{IndexExpr, IndexMap, Piece};
pub use param::{param, Attrs, ParamDef, ParamError, ParamType, Value};
pub use reference::evaluate;
pub use registry::{lookup, registry, Registry};
pub use shape::{OpError, Shape, Slot};
pub use tensor::Tensor;
