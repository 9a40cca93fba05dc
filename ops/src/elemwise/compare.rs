//! Comparisons (`equal`, `not_equal`, `greater`, `greater_equal`, `lesser`, `lesser_equal`)
//! and logical operators (`logical_and`, `logical_or`, `logical_xor`, `logical_not`) in
//! MXNet's three binary forms: same shape (`_equal`), broadcast (`broadcast_equal`) and with
//! a scalar (`_equal_scalar`).
//!
//! As in MXNet 1.x's legacy operators, the result is 1 or 0 in the input's dtype (not
//! bool), any non-zero value — NaN included — is true, and the gradient is zero.

use super::binary::{broadcasting, elemwise, s, with_scalar};
use crate::{c, x, Expr, Grad, OpDef, Registry};

/// `e != 0` as 1/0: C's truthiness, so NaN is true.
fn truthy(e: Expr) -> Expr {
    e.ne(c(0.0))
}

fn and(a: Expr, b: Expr) -> Expr {
    truthy(a) * truthy(b)
}

fn or(a: Expr, b: Expr) -> Expr {
    truthy(a).max(truthy(b))
}

fn xor(a: Expr, b: Expr) -> Expr {
    truthy(a).ne(truthy(b))
}

/// A comparison or logical operator: its gradient is zero (MXNet's MakeZeroGradNodes).
const fn logic(doc: &'static str, op: OpDef) -> OpDef {
    OpDef {
        doc,
        grad: Grad::Zero,
        ..op
    }
}

const EQ: &str = "1 where lhs == rhs, else 0 (in the input dtype).";
const NE: &str = "1 where lhs != rhs, else 0 (in the input dtype).";
const GT: &str = "1 where lhs > rhs, else 0 (in the input dtype).";
const GE: &str = "1 where lhs >= rhs, else 0 (in the input dtype).";
const LT: &str = "1 where lhs < rhs, else 0 (in the input dtype).";
const LE: &str = "1 where lhs <= rhs, else 0 (in the input dtype).";
const AND: &str = "1 where both operands are non-zero, else 0.";
const OR: &str = "1 where either operand is non-zero, else 0.";
const XOR: &str = "1 where exactly one operand is non-zero, else 0.";

static EQUAL: OpDef = logic(EQ, elemwise("_equal", &["_Equal"], |_| x(0).eq(x(1))));
static NOT_EQUAL: OpDef = logic(
    NE,
    elemwise("_not_equal", &["_Not_Equal"], |_| x(0).ne(x(1))),
);
static GREATER: OpDef = logic(GT, elemwise("_greater", &["_Greater"], |_| x(0).gt(x(1))));
static GREATER_EQUAL: OpDef = logic(
    GE,
    elemwise("_greater_equal", &["_Greater_Equal"], |_| x(0).ge(x(1))),
);
static LESSER: OpDef = logic(LT, elemwise("_lesser", &["_Lesser"], |_| x(0).lt(x(1))));
static LESSER_EQUAL: OpDef = logic(
    LE,
    elemwise("_lesser_equal", &["_Lesser_Equal"], |_| x(0).le(x(1))),
);
static LOGICAL_AND: OpDef = logic(
    AND,
    elemwise("_logical_and", &["_Logical_And"], |_| and(x(0), x(1))),
);
static LOGICAL_OR: OpDef = logic(
    OR,
    elemwise("_logical_or", &["_Logical_Or"], |_| or(x(0), x(1))),
);
static LOGICAL_XOR: OpDef = logic(
    XOR,
    elemwise("_logical_xor", &["_Logical_Xor"], |_| xor(x(0), x(1))),
);

static BROADCAST_EQUAL: OpDef = logic(EQ, broadcasting("broadcast_equal", &[], |_| x(0).eq(x(1))));
static BROADCAST_NOT_EQUAL: OpDef = logic(
    NE,
    broadcasting("broadcast_not_equal", &[], |_| x(0).ne(x(1))),
);
static BROADCAST_GREATER: OpDef = logic(
    GT,
    broadcasting("broadcast_greater", &[], |_| x(0).gt(x(1))),
);
static BROADCAST_GREATER_EQUAL: OpDef = logic(
    GE,
    broadcasting("broadcast_greater_equal", &[], |_| x(0).ge(x(1))),
);
static BROADCAST_LESSER: OpDef =
    logic(LT, broadcasting("broadcast_lesser", &[], |_| x(0).lt(x(1))));
static BROADCAST_LESSER_EQUAL: OpDef = logic(
    LE,
    broadcasting("broadcast_lesser_equal", &[], |_| x(0).le(x(1))),
);
static BROADCAST_LOGICAL_AND: OpDef = logic(
    AND,
    broadcasting("broadcast_logical_and", &[], |_| and(x(0), x(1))),
);
static BROADCAST_LOGICAL_OR: OpDef = logic(
    OR,
    broadcasting("broadcast_logical_or", &[], |_| or(x(0), x(1))),
);
static BROADCAST_LOGICAL_XOR: OpDef = logic(
    XOR,
    broadcasting("broadcast_logical_xor", &[], |_| xor(x(0), x(1))),
);

static EQUAL_SCALAR: OpDef = logic(
    "1 where data == scalar, else 0.",
    with_scalar("_equal_scalar", &["_EqualScalar"], |a| x(0).eq(s(a))),
);
static NOT_EQUAL_SCALAR: OpDef = logic(
    "1 where data != scalar, else 0.",
    with_scalar("_not_equal_scalar", &["_NotEqualScalar"], |a| x(0).ne(s(a))),
);
static GREATER_SCALAR: OpDef = logic(
    "1 where data > scalar, else 0.",
    with_scalar("_greater_scalar", &["_GreaterScalar"], |a| x(0).gt(s(a))),
);
static GREATER_EQUAL_SCALAR: OpDef = logic(
    "1 where data >= scalar, else 0.",
    with_scalar("_greater_equal_scalar", &["_GreaterEqualScalar"], |a| {
        x(0).ge(s(a))
    }),
);
static LESSER_SCALAR: OpDef = logic(
    "1 where data < scalar, else 0.",
    with_scalar("_lesser_scalar", &["_LesserScalar"], |a| x(0).lt(s(a))),
);
static LESSER_EQUAL_SCALAR: OpDef = logic(
    "1 where data <= scalar, else 0.",
    with_scalar("_lesser_equal_scalar", &["_LesserEqualScalar"], |a| {
        x(0).le(s(a))
    }),
);
static LOGICAL_AND_SCALAR: OpDef = logic(
    "1 where data and scalar are both non-zero, else 0.",
    with_scalar("_logical_and_scalar", &["_LogicalAndScalar"], |a| {
        and(x(0), s(a))
    }),
);
static LOGICAL_OR_SCALAR: OpDef = logic(
    "1 where data or scalar is non-zero, else 0.",
    with_scalar("_logical_or_scalar", &["_LogicalOrScalar"], |a| {
        or(x(0), s(a))
    }),
);
static LOGICAL_XOR_SCALAR: OpDef = logic(
    "1 where exactly one of data and scalar is non-zero, else 0.",
    with_scalar("_logical_xor_scalar", &["_LogicalXorScalar"], |a| {
        xor(x(0), s(a))
    }),
);

pub fn register(r: &mut Registry) {
    for op in [
        &EQUAL,
        &NOT_EQUAL,
        &GREATER,
        &GREATER_EQUAL,
        &LESSER,
        &LESSER_EQUAL,
        &LOGICAL_AND,
        &LOGICAL_OR,
        &LOGICAL_XOR,
        &BROADCAST_EQUAL,
        &BROADCAST_NOT_EQUAL,
        &BROADCAST_GREATER,
        &BROADCAST_GREATER_EQUAL,
        &BROADCAST_LESSER,
        &BROADCAST_LESSER_EQUAL,
        &BROADCAST_LOGICAL_AND,
        &BROADCAST_LOGICAL_OR,
        &BROADCAST_LOGICAL_XOR,
        &EQUAL_SCALAR,
        &NOT_EQUAL_SCALAR,
        &GREATER_SCALAR,
        &GREATER_EQUAL_SCALAR,
        &LESSER_SCALAR,
        &LESSER_EQUAL_SCALAR,
        &LOGICAL_AND_SCALAR,
        &LOGICAL_OR_SCALAR,
        &LOGICAL_XOR_SCALAR,
    ] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{analytic_grad, run, tensor};
    use crate::{DType, Tensor};

    const NAN: f64 = f64::NAN;

    fn pairwise(op: &str, a: &[f64], b: &[f64]) -> Vec<f64> {
        let n = a.len();
        run(op, &[], &[tensor(&[n], a), tensor(&[n], b)], false).unwrap()[0]
            .data
            .clone()
    }

    #[test]
    fn comparisons_give_one_or_zero() {
        let (a, b) = ([1.0, 2.0, 3.0, NAN], [2.0, 2.0, 2.0, NAN]);
        for (op, want) in [
            ("equal", [0.0, 1.0, 0.0, 0.0]),
            ("not_equal", [1.0, 0.0, 1.0, 1.0]),
            ("greater", [0.0, 0.0, 1.0, 0.0]),
            ("greater_equal", [0.0, 1.0, 1.0, 0.0]),
            ("lesser", [1.0, 0.0, 0.0, 0.0]),
            ("lesser_equal", [1.0, 1.0, 0.0, 0.0]),
        ] {
            assert_eq!(pairwise(&format!("_{op}"), &a, &b), want, "_{op}");
            assert_eq!(
                pairwise(&format!("broadcast_{op}"), &a, &b),
                want,
                "broadcast_{op}"
            );
            let g = run(
                &format!("_{op}_scalar"),
                &[("scalar", "2")],
                &[tensor(&[4], &a)],
                false,
            )
            .unwrap();
            assert_eq!(g[0].data, want, "_{op}_scalar");
        }
    }

    #[test]
    fn logical_operators_treat_nan_as_true() {
        // MXNet 1.9.1: and [0 0 1 1 0], or [0 1 1 1 1], xor [0 1 0 0 1].
        let (a, b) = ([0.0, 1.0, NAN, 2.0, 0.0], [0.0, 0.0, 1.0, -1.0, NAN]);
        assert_eq!(pairwise("_logical_and", &a, &b), [0.0, 0.0, 1.0, 1.0, 0.0]);
        assert_eq!(pairwise("_logical_or", &a, &b), [0.0, 1.0, 1.0, 1.0, 1.0]);
        assert_eq!(pairwise("_logical_xor", &a, &b), [0.0, 1.0, 0.0, 0.0, 1.0]);
        assert_eq!(
            pairwise("broadcast_logical_xor", &a, &b),
            [0.0, 1.0, 0.0, 0.0, 1.0]
        );
        let g = run(
            "_logical_xor_scalar",
            &[("scalar", "0")],
            &[tensor(&[3], &[0.0, 3.0, NAN])],
            false,
        )
        .unwrap();
        assert_eq!(g[0].data, [0.0, 1.0, 1.0]);
        let g = run(
            "_logical_and_scalar",
            &[("scalar", "0")],
            &[tensor(&[2], &[1.0, 3.0])],
            false,
        )
        .unwrap();
        assert_eq!(g[0].data, [0.0, 0.0]);
    }

    #[test]
    fn results_keep_the_input_dtype_and_broadcast() {
        let a = Tensor::new(DType::I32, vec![2, 1], vec![1.0, 5.0]);
        let b = Tensor::new(DType::I32, vec![3], vec![0.0, 1.0, 5.0]);
        let g = run("broadcast_greater_equal", &[], &[a, b], false).unwrap();
        assert_eq!(g[0].dtype, DType::I32);
        assert_eq!(g[0].shape, [2, 3]);
        assert_eq!(g[0].data, [1.0, 1.0, 0.0, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn gradients_are_zero() {
        let a = tensor(&[2], &[1.0, 2.0]);
        let pair = [a.clone(), a.clone()];
        for op in ["_greater", "broadcast_logical_or", "_equal_scalar"] {
            let ins = if op.ends_with("scalar") {
                &pair[..1]
            } else {
                &pair[..]
            };
            let g = analytic_grad(op, &[], ins, std::slice::from_ref(&a), false).unwrap();
            assert!(g.iter().all(Option::is_none), "{op}");
        }
    }
}
