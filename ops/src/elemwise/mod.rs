//! Element-wise operators: unary math, activations, binary arithmetic (same-shape,
//! broadcast and scalar forms). Each is a scalar [`Expr`](crate::Expr).

mod binary;
mod grad;
mod unary;

pub use grad::backward_elemwise_attrs;

pub(crate) use binary::numbered_args;

use crate::Registry;

pub fn register(r: &mut Registry) {
    unary::register(r);
    binary::register(r);
    grad::register(r);
}

/// One finite-difference gradient case per differentiable operator of this family (the
/// registry-wide coverage test in `grad.rs` runs them and fails for any operator missing).
#[cfg(test)]
pub(crate) const GRAD_CASES: &[crate::testutil::GradCase] = &[
    ("relu", &[], &[&[3, 7]], false, false),
    ("sigmoid", &[], &[&[3, 7]], false, false),
    ("tanh", &[], &[&[3, 7]], false, false),
    ("exp", &[], &[&[3, 7]], false, false),
    ("log", &[], &[&[3, 7]], true, false),
    ("sqrt", &[], &[&[3, 7]], true, false),
    ("square", &[], &[&[3, 7]], false, false),
    ("abs", &[], &[&[3, 7]], false, false),
    ("negative", &[], &[&[3, 7]], false, false),
    ("_copy", &[], &[&[1]], false, false),
    (
        "Activation",
        &[("act_type", "softrelu")],
        &[&[3, 7]],
        false,
        false,
    ),
    (
        "clip",
        &[("a_min", "-0.3"), ("a_max", "0.4")],
        &[&[7]],
        false,
        false,
    ),
    ("Cast", &[("dtype", "float64")], &[&[3]], false, false),
    ("elemwise_add", &[], &[&[3, 7], &[3, 7]], false, false),
    ("elemwise_sub", &[], &[&[3, 7], &[3, 7]], false, false),
    ("elemwise_mul", &[], &[&[3, 7], &[3, 7]], false, false),
    ("elemwise_div", &[], &[&[3, 7], &[3, 7]], true, false),
    (
        "add_n",
        &[("num_args", "3")],
        &[&[3], &[3], &[3]],
        false,
        false,
    ),
    ("_plus_scalar", &[("scalar", "2")], &[&[3]], false, false),
    ("_minus_scalar", &[("scalar", "2")], &[&[3]], false, false),
    ("_rminus_scalar", &[("scalar", "2")], &[&[3]], false, false),
    ("_mul_scalar", &[("scalar", "2")], &[&[3]], false, false),
    ("_div_scalar", &[("scalar", "2")], &[&[3]], false, false),
    ("_rdiv_scalar", &[("scalar", "2")], &[&[3]], true, false),
    (
        "broadcast_add",
        &[],
        &[&[3, 1, 5], &[1, 4, 1]],
        false,
        false,
    ),
    (
        "broadcast_sub",
        &[],
        &[&[3, 1, 5], &[1, 4, 1]],
        false,
        false,
    ),
    (
        "broadcast_mul",
        &[],
        &[&[3, 1, 5], &[1, 4, 1]],
        false,
        false,
    ),
    ("broadcast_div", &[], &[&[3, 1, 5], &[1, 4, 1]], true, false),
];
