//! Shape and data-movement operators (reshape, transpose, slice, split, concat), reductions
//! and products (dot, batch_dot).
//!
//! Data movement is declared as an [`IndexMap`](crate::IndexMap) from output to input
//! coordinates, so a backend can fold it into the loads of a fused kernel instead of copying.
//!
//! Every differentiable operator here has a symbolic gradient rule built from operator
//! applications. Rules see handles, not shapes, so where a gradient needs the forward
//! input's shape (slice, Concat, the reductions, dot's 2-D view) a backward operator takes
//! that input as an extra argument whose values it does not read; such operators are named
//! `_backward_*` (or describe what they compute) and live next to their forward operator.

mod concat;
mod linalg;
mod reduce;
mod reshape;
mod slice;
mod transpose;

use crate::shape::{fmt_shape, invalid, OpError};
use crate::{GradGraph, Handle, Registry, Value};

pub fn register(r: &mut Registry) {
    reshape::register(r);
    transpose::register(r);
    slice::register(r);
    concat::register(r);
    reduce::register(r);
    linalg::register(r);
}

/// Normalizes a possibly negative axis parameter against the input's rank; the error names
/// the operator, the parameter and the input shape.
fn axis_of(op: &str, name: &str, axis: i64, shape: &[usize]) -> Result<usize, OpError> {
    let ndim = shape.len() as i64;
    let a = if axis < 0 { axis + ndim } else { axis };
    if !(0..ndim).contains(&a) {
        return invalid(format!(
            "{op}: {name}={axis} is out of range for input {}",
            fmt_shape(shape)
        ));
    }
    Ok(a as usize)
}

/// A tuple parameter as the user wrote it, e.g. `(4, -1)`.
fn fmt_ints(v: &[i64]) -> String {
    Value::Shape(v.to_vec()).to_mxnet_string()
}

/// Applies a single-output operator inside a gradient rule.
fn apply(
    g: &mut dyn GradGraph,
    op: &str,
    inputs: &[Handle],
    attrs: &[(&str, &str)],
) -> Result<Handle, OpError> {
    g.op(op, inputs, attrs)?
        .into_iter()
        .next()
        .ok_or_else(|| OpError::Invalid(format!("{op} gave no output")))
}
