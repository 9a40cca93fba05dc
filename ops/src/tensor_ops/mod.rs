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

mod arrange;
mod broadcast;
mod concat;
mod indexing;
mod linalg;
mod reduce;
mod replicate;
mod reshape;
mod slice;
mod sort;
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
    broadcast::register(r);
    arrange::register(r);
    indexing::register(r);
    sort::register(r);
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

/// One finite-difference gradient case per differentiable operator of this family (the
/// registry-wide coverage test in `grad.rs` runs them and fails for any operator missing).
#[cfg(test)]
pub(crate) const GRAD_CASES: &[crate::testutil::GradCase] = &[
    (
        "Reshape",
        &[("shape", "(-1, 3)")],
        &[&[2, 3, 2]],
        false,
        false,
    ),
    ("Flatten", &[], &[&[2, 3, 2]], false, false),
    ("expand_dims", &[("axis", "1")], &[&[3, 2]], false, false),
    ("squeeze", &[], &[&[3, 1, 2]], false, false),
    ("reshape_like", &[], &[&[2, 3], &[3, 2]], false, false),
    (
        "transpose",
        &[("axes", "(1, 2, 0)")],
        &[&[2, 3, 4]],
        false,
        false,
    ),
    (
        "slice",
        &[
            ("begin", "(1, None)"),
            ("end", "(3, None)"),
            ("step", "(1, -2)"),
        ],
        &[&[4, 5]],
        false,
        false,
    ),
    (
        "slice_axis",
        &[("axis", "1"), ("begin", "1"), ("end", "3")],
        &[&[2, 4]],
        false,
        false,
    ),
    (
        "SliceChannel",
        &[
            ("num_outputs", "2"),
            ("squeeze_axis", "True"),
            ("axis", "0"),
        ],
        &[&[2, 3]],
        false,
        false,
    ),
    (
        "Concat",
        &[("num_args", "2"), ("dim", "1")],
        &[&[2, 1], &[2, 3]],
        false,
        false,
    ),
    ("sum", &[("axis", "1")], &[&[3, 4]], false, false),
    (
        "mean",
        &[("axis", "(0, 2)"), ("keepdims", "True")],
        &[&[3, 4, 2]],
        false,
        false,
    ),
    ("max", &[("axis", "0")], &[&[3, 4]], false, false),
    ("min", &[], &[&[3, 4]], false, false),
    ("prod", &[("axis", "1")], &[&[3, 4]], true, false),
    (
        "dot",
        &[("transpose_b", "True")],
        &[&[2, 3], &[4, 3]],
        false,
        false,
    ),
    (
        "batch_dot",
        &[("transpose_a", "True")],
        &[&[2, 3, 2], &[2, 3, 4]],
        false,
        false,
    ),
    (
        "broadcast_to",
        &[("shape", "(3, 0, 7)")],
        &[&[1, 2, 7]],
        false,
        false,
    ),
    (
        "broadcast_axis",
        &[("axis", "(0, 2)"), ("size", "(3, 4)")],
        &[&[1, 2, 1]],
        false,
        false,
    ),
    ("broadcast_like", &[], &[&[1, 3], &[2, 3]], false, false),
    (
        "SwapAxis",
        &[("dim1", "0"), ("dim2", "-1")],
        &[&[2, 3, 4]],
        false,
        false,
    ),
    (
        "slice_like",
        &[("axes", "(1,)")],
        &[&[3, 4], &[2, 3]],
        false,
        false,
    ),
    (
        "stack",
        &[("num_args", "2"), ("axis", "1")],
        &[&[2, 3], &[2, 3]],
        false,
        false,
    ),
    ("tile", &[("reps", "(2, 1, 3)")], &[&[2, 3]], false, false),
    (
        "repeat",
        &[("repeats", "2"), ("axis", "-1")],
        &[&[2, 3]],
        false,
        false,
    ),
    (
        "Pad",
        &[
            ("mode", "reflect"),
            ("pad_width", "(0, 0, 0, 0, 1, 2, 2, 1)"),
        ],
        &[&[1, 2, 3, 3]],
        false,
        false,
    ),
    ("reverse", &[("axis", "(0, 1)")], &[&[2, 3]], false, false),
    // Indexing, sorting and the nan/norm reductions. Index inputs come from randn, in
    // [-1, 1) (or [0.5, 1.5) when positive): finite differences do not move them.
    ("nansum", &[("axis", "1")], &[&[3, 4]], false, false),
    ("nanprod", &[("axis", "-1")], &[&[3, 4]], true, false),
    ("norm", &[("axis", "1")], &[&[3, 4]], false, false),
    ("take", &[("axis", "1")], &[&[3, 4], &[2, 3]], false, false),
    (
        "Embedding",
        &[("input_dim", "4"), ("output_dim", "3")],
        &[&[2, 3], &[4, 3]],
        false,
        false,
    ),
    ("pick", &[], &[&[3, 4], &[3]], false, false),
    ("gather_nd", &[], &[&[3, 4], &[1, 5]], false, false),
    (
        "scatter_nd",
        &[("shape", "(3, 4)")],
        &[&[1, 4], &[1, 1]],
        true,
        false,
    ),
    ("diag", &[("k", "1")], &[&[3, 4]], false, false),
    ("sort", &[("is_ascend", "False")], &[&[3, 4]], false, false),
    (
        "topk",
        &[("k", "2"), ("ret_typ", "value")],
        &[&[3, 4]],
        false,
        false,
    ),
];
