//! Element-wise operators: unary math, activations, binary arithmetic, comparisons and
//! logic (same-shape, broadcast and scalar forms), and `where`. Each but `where` is a
//! scalar [`Expr`](crate::Expr), from which its gradient is derived.

mod arith;
mod binary;
mod compare;
mod grad;
mod math;
mod select;
mod unary;

pub use grad::backward_elemwise_attrs;

pub(crate) use binary::numbered_args;

use crate::Registry;

pub fn register(r: &mut Registry) {
    unary::register(r);
    math::register(r);
    binary::register(r);
    arith::register(r);
    compare::register(r);
    select::register(r);
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
    // Unary math (math.rs). Logarithms, roots of reciprocals and gamma need positive
    // inputs; arcsin/arccos/arctanh/erfinv take randn's [-1, 1).
    ("softsign", &[], &[&[3, 7]], false, false),
    ("expm1", &[], &[&[3, 7]], false, false),
    ("log1p", &[], &[&[3, 7]], true, false),
    ("log2", &[], &[&[3, 7]], true, false),
    ("log10", &[], &[&[3, 7]], true, false),
    ("rsqrt", &[], &[&[3, 7]], true, false),
    ("cbrt", &[], &[&[3, 7]], true, false),
    ("rcbrt", &[], &[&[3, 7]], true, false),
    ("reciprocal", &[], &[&[3, 7]], true, false),
    ("sin", &[], &[&[3, 7]], false, false),
    ("cos", &[], &[&[3, 7]], false, false),
    ("tan", &[], &[&[3, 7]], false, false),
    ("arcsin", &[], &[&[3, 7]], false, false),
    ("arccos", &[], &[&[3, 7]], false, false),
    ("arctan", &[], &[&[3, 7]], false, false),
    ("sinh", &[], &[&[3, 7]], false, false),
    ("cosh", &[], &[&[3, 7]], false, false),
    ("arcsinh", &[], &[&[3, 7]], false, false),
    // arccosh needs x > 1: of the positive inputs (|randn| + 0.5, in [0.5, 1.5)) this
    // case's seed gives values above 1 (the check fails loudly with NaN otherwise).
    ("arccosh", &[], &[&[2]], true, false),
    ("arctanh", &[], &[&[3, 7]], false, false),
    ("erf", &[], &[&[3, 7]], false, false),
    ("erfinv", &[], &[&[3, 7]], false, false),
    ("gamma", &[], &[&[3, 7]], true, false),
    ("gammaln", &[], &[&[3, 7]], true, false),
    ("degrees", &[], &[&[3, 7]], false, false),
    ("radians", &[], &[&[3, 7]], false, false),
    // Binary arithmetic (arith.rs): mod's gradient jumps where a/b crosses an integer and
    // power needs a positive base, so both take positive operands.
    ("_mod", &[], &[&[3, 7], &[3, 7]], true, false),
    ("_power", &[], &[&[3, 7], &[3, 7]], true, false),
    ("_maximum", &[], &[&[3, 7], &[3, 7]], false, false),
    ("_minimum", &[], &[&[3, 7], &[3, 7]], false, false),
    ("_hypot", &[], &[&[3, 7], &[3, 7]], false, false),
    ("broadcast_mod", &[], &[&[3, 1, 5], &[1, 4, 1]], true, false),
    (
        "broadcast_power",
        &[],
        &[&[3, 1, 5], &[1, 4, 1]],
        true,
        false,
    ),
    (
        "broadcast_maximum",
        &[],
        &[&[3, 1, 5], &[1, 4, 1]],
        false,
        false,
    ),
    (
        "broadcast_minimum",
        &[],
        &[&[3, 1, 5], &[1, 4, 1]],
        false,
        false,
    ),
    (
        "broadcast_hypot",
        &[],
        &[&[3, 1, 5], &[1, 4, 1]],
        false,
        false,
    ),
    (
        "_mod_scalar",
        &[("scalar", "-0.7")],
        &[&[3, 7]],
        true,
        false,
    ),
    ("_rmod_scalar", &[("scalar", "2")], &[&[3, 7]], true, false),
    (
        "_power_scalar",
        &[("scalar", "2.5")],
        &[&[3, 7]],
        true,
        false,
    ),
    (
        "_rpower_scalar",
        &[("scalar", "1.7")],
        &[&[3, 7]],
        false,
        false,
    ),
    (
        "_maximum_scalar",
        &[("scalar", "0.1")],
        &[&[3, 7]],
        false,
        false,
    ),
    (
        "_minimum_scalar",
        &[("scalar", "0.1")],
        &[&[3, 7]],
        false,
        false,
    ),
    (
        "_hypot_scalar",
        &[("scalar", "-0.5")],
        &[&[3, 7]],
        false,
        false,
    ),
    // where (select.rs), in the batch form: the random condition is all non-zero, so
    // finite differences see x's gradient only (the unit tests cover mixed conditions).
    ("where", &[], &[&[3], &[3, 4], &[3, 4]], false, false),
];
