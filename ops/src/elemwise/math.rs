//! Unary math: roots and reciprocals, logarithms, trigonometric and hyperbolic functions
//! and their inverses, erf/erfinv, gamma/gammaln, degrees/radians, rounding, sign and
//! `logical_not` — MXNet 1.9.1's `elemwise_unary_op_{basic,trig,pow,logexp}` family.
//!
//! Differentiable operators derive their gradient from the expression. Rounding, `sign` and
//! `logical_not` have MXNet's zero gradient. Transcendental functions list float dtypes
//! only (MXNet also runs them on integers, truncating a float result back to an integer);
//! arithmetic, rounding and logic list every numeric dtype.

use crate::{c, x, Attrs, Compute, DType, Expr, Grad, OpDef, Pattern, Registry};

/// A float-only unary operator with a derived gradient.
const fn float_op(name: &'static str, doc: &'static str, f: fn(&Attrs) -> Expr) -> OpDef {
    OpDef {
        doc,
        ..OpDef::new(name, Pattern::ElemWise, Compute::Scalar(f))
    }
}

/// A unary operator on every numeric dtype, with a derived gradient.
const fn numeric_op(name: &'static str, doc: &'static str, f: fn(&Attrs) -> Expr) -> OpDef {
    OpDef {
        dtypes: &DType::NUMERIC,
        ..float_op(name, doc, f)
    }
}

/// A piecewise-constant operator on every numeric dtype: zero gradient, as MXNet.
const fn flat_op(name: &'static str, doc: &'static str, f: fn(&Attrs) -> Expr) -> OpDef {
    OpDef {
        grad: Grad::Zero,
        ..numeric_op(name, doc, f)
    }
}

/// mshadow's `180.0f / PI` and `PI / 180.0f`: computed in f32 with `PI` an f32, so MXNet's
/// degrees(π) is 179.99999 even in float64. Kept as MXNet has them.
const DEGREES_PER_RADIAN: f64 = (180.0f32 / std::f32::consts::PI) as f64;
const RADIANS_PER_DEGREE: f64 = (std::f32::consts::PI / 180.0f32) as f64;

static SOFTSIGN: OpDef = numeric_op("softsign", "x / (1 + |x|)", |_| {
    x(0) / (c(1.0) + x(0).abs())
});
static EXPM1: OpDef = float_op("expm1", "e^x - 1, accurate near 0", |_| x(0).expm1());
static LOG1P: OpDef = float_op("log1p", "ln(1 + x), accurate near 0", |_| x(0).log1p());
static LOG2: OpDef = float_op("log2", "base-2 logarithm", |_| x(0).log2());
static LOG10: OpDef = float_op("log10", "base-10 logarithm", |_| x(0).log10());
static RSQRT: OpDef = float_op("rsqrt", "1 / sqrt(x)", |_| c(1.0) / x(0).sqrt());
static CBRT: OpDef = float_op("cbrt", "cube root (negative for negative x)", |_| {
    x(0).cbrt()
});
static RCBRT: OpDef = float_op("rcbrt", "1 / cbrt(x)", |_| c(1.0) / x(0).cbrt());
static RECIPROCAL: OpDef = numeric_op("reciprocal", "1 / x", |_| c(1.0) / x(0));
static SIN: OpDef = float_op("sin", "sine (radians)", |_| x(0).sin());
static COS: OpDef = float_op("cos", "cosine (radians)", |_| x(0).cos());
static TAN: OpDef = float_op("tan", "tangent (radians)", |_| x(0).tan());
static ARCSIN: OpDef = float_op("arcsin", "inverse sine, in [-pi/2, pi/2]", |_| x(0).asin());
static ARCCOS: OpDef = float_op("arccos", "inverse cosine, in [0, pi]", |_| x(0).acos());
static ARCTAN: OpDef = float_op("arctan", "inverse tangent, in (-pi/2, pi/2)", |_| {
    x(0).atan()
});
static SINH: OpDef = float_op("sinh", "hyperbolic sine", |_| x(0).sinh());
static COSH: OpDef = float_op("cosh", "hyperbolic cosine", |_| x(0).cosh());
static ARCSINH: OpDef = float_op("arcsinh", "inverse hyperbolic sine", |_| x(0).asinh());
static ARCCOSH: OpDef = float_op("arccosh", "inverse hyperbolic cosine (x >= 1)", |_| {
    x(0).acosh()
});
static ARCTANH: OpDef = float_op("arctanh", "inverse hyperbolic tangent (|x| < 1)", |_| {
    x(0).atanh()
});
static ERF: OpDef = float_op("erf", "the Gauss error function", |_| x(0).erf());
static ERFINV: OpDef = float_op(
    "erfinv",
    "inverse error function: ±inf at ±1, NaN outside [-1, 1]",
    |_| x(0).erfinv(),
);
static GAMMA: OpDef = float_op(
    "gamma",
    "the gamma function (C's tgamma: NaN at the negative integers)",
    |_| x(0).gamma(),
);
static GAMMALN: OpDef = float_op(
    "gammaln",
    "ln|gamma(x)| (C's lgamma: +inf at the non-positive integers)",
    |_| x(0).lgamma(),
);
static DEGREES: OpDef = numeric_op("degrees", "radians to degrees", |_| {
    x(0) * c(DEGREES_PER_RADIAN)
});
static RADIANS: OpDef = numeric_op("radians", "degrees to radians", |_| {
    x(0) * c(RADIANS_PER_DEGREE)
});

static SIGN: OpDef = flat_op("sign", "-1, 0 or 1 by the sign of x (0 for NaN)", |_| {
    x(0).sign()
});
static FLOOR: OpDef = flat_op("floor", "largest integer <= x", |_| x(0).floor());
static CEIL: OpDef = flat_op("ceil", "smallest integer >= x", |_| x(0).ceil());
static ROUND: OpDef = flat_op("round", "nearest integer, halves away from zero", |_| {
    x(0).round()
});
static RINT: OpDef = flat_op(
    "rint",
    "nearest integer, halves toward -inf (MXNet's rint: rint(0.5) = 0, rint(-0.5) = -1)",
    |_| rint(x(0)),
);
static TRUNC: OpDef = flat_op("trunc", "integer part, toward zero", |_| x(0).trunc());
static FIX: OpDef = flat_op("fix", "rounds toward zero (as trunc)", |_| x(0).trunc());
static LOGICAL_NOT: OpDef = flat_op(
    "logical_not",
    "1 where x == 0, else 0 (NaN is true)",
    |_| x(0).eq(c(0.0)),
);

/// mshadow_op::rint: `x - floor(x) <= ceil(x) - x ? floor(x) : ceil(x)`. Ties go to the
/// floor, not to the even neighbour as C's rint would (MXNet 1.9.1 gives rint(2.5) = 2,
/// rint(1.5) = 1, rint(-0.5) = -1).
fn rint(e: Expr) -> Expr {
    let (lo, hi) = (e.clone().floor(), e.clone().ceil());
    (e.clone() - lo.clone()).le(hi.clone() - e).select(lo, hi)
}

pub fn register(r: &mut Registry) {
    for op in [
        &SOFTSIGN,
        &EXPM1,
        &LOG1P,
        &LOG2,
        &LOG10,
        &RSQRT,
        &CBRT,
        &RCBRT,
        &RECIPROCAL,
        &SIN,
        &COS,
        &TAN,
        &ARCSIN,
        &ARCCOS,
        &ARCTAN,
        &SINH,
        &COSH,
        &ARCSINH,
        &ARCCOSH,
        &ARCTANH,
        &ERF,
        &ERFINV,
        &GAMMA,
        &GAMMALN,
        &DEGREES,
        &RADIANS,
        &SIGN,
        &FLOOR,
        &CEIL,
        &ROUND,
        &RINT,
        &TRUNC,
        &FIX,
        &LOGICAL_NOT,
    ] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{analytic_grad, assert_close, run, tensor};
    use crate::{DType, Tensor};

    fn unary(op: &str, v: &[f64]) -> Vec<f64> {
        run(op, &[], &[tensor(&[v.len()], v)], false).unwrap()[0]
            .data
            .clone()
    }

    /// Halves, near-halves, signed zeros: the values where rounding modes differ.
    const TIES: [f64; 12] = [
        -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5, 2.7, -2.7, 0.0, -0.0,
    ];

    #[test]
    fn rounding_modes_match_mxnet() {
        // MXNet 1.9.1's outputs on TIES (float64 and float32 alike).
        let want = [
            (
                "round",
                [
                    -3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 4.0, -4.0, 3.0, -3.0, 0.0, 0.0,
                ],
            ),
            (
                "rint",
                [
                    -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -4.0, 3.0, -3.0, 0.0, 0.0,
                ],
            ),
            (
                "fix",
                [
                    -2.0, -1.0, 0.0, 0.0, 1.0, 2.0, 3.0, -3.0, 2.0, -2.0, 0.0, 0.0,
                ],
            ),
            (
                "trunc",
                [
                    -2.0, -1.0, 0.0, 0.0, 1.0, 2.0, 3.0, -3.0, 2.0, -2.0, 0.0, 0.0,
                ],
            ),
            (
                "floor",
                [
                    -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -4.0, 2.0, -3.0, 0.0, 0.0,
                ],
            ),
            (
                "ceil",
                [
                    -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, -3.0, 3.0, -2.0, 0.0, 0.0,
                ],
            ),
            (
                "sign",
                [
                    -1.0, -1.0, -1.0, 1.0, 1.0, 1.0, 1.0, -1.0, 1.0, -1.0, 0.0, 0.0,
                ],
            ),
        ];
        for (op, want) in want {
            assert_eq!(unary(op, &TIES), want, "{op}");
        }
        // fix(-0.5) keeps the sign of zero, like trunc (MXNet prints -0.).
        assert!(unary("fix", &[-0.5])[0].is_sign_negative());
        assert_eq!(unary("sign", &[f64::NAN, f64::NEG_INFINITY]), [0.0, -1.0]);
        assert_eq!(unary("rint", &[f64::INFINITY])[0], f64::INFINITY);
        assert!(unary("rint", &[f64::NAN])[0].is_nan());
    }

    #[test]
    fn math_functions_at_hand_checked_points() {
        let pi = std::f64::consts::PI;
        assert_close(&unary("softsign", &[1.0, -3.0]), &[0.5, -0.75], 0.0);
        assert_close(&unary("log2", &[8.0, 0.5]), &[3.0, -1.0], 0.0);
        assert_close(&unary("log10", &[1000.0, 0.01]), &[3.0, -2.0], 0.0);
        assert_close(&unary("rsqrt", &[4.0]), &[0.5], 0.0);
        assert_close(&unary("cbrt", &[-8.0, 27.0]), &[-2.0, 3.0], 0.0);
        assert_close(&unary("rcbrt", &[-8.0, 8.0]), &[-0.5, 0.5], 0.0);
        assert_close(&unary("reciprocal", &[4.0, -0.5]), &[0.25, -2.0], 0.0);
        assert_close(&unary("sin", &[pi / 6.0]), &[0.5], 1e-15);
        assert_close(&unary("cos", &[pi / 3.0]), &[0.5], 1e-15);
        assert_close(&unary("tan", &[pi / 4.0]), &[1.0], 1e-15);
        assert_close(&unary("arcsin", &[0.5]), &[pi / 6.0], 1e-15);
        assert_close(&unary("arccos", &[0.5]), &[pi / 3.0], 1e-15);
        assert_close(&unary("arctan", &[1.0]), &[pi / 4.0], 1e-15);
        assert_close(&unary("sinh", &[1.0]), &[1.1752011936438014], 1e-15);
        assert_close(&unary("cosh", &[1.0]), &[1.5430806348152437], 1e-15);
        assert_close(&unary("arcsinh", &[1.0]), &[0.881373587019543], 1e-15);
        assert_close(&unary("arccosh", &[2.0]), &[1.3169578969248166], 1e-15);
        assert_close(&unary("arctanh", &[0.5]), &[0.5493061443340549], 1e-15);
        assert_close(&unary("expm1", &[1e-10]), &[1.00000000005e-10], 1e-15);
        assert_close(&unary("log1p", &[1e-10]), &[9.9999999995e-11], 1e-15);
        assert_close(&unary("erf", &[0.5]), &[0.5204998778130465], 1e-15);
        assert_close(&unary("erfinv", &[0.5]), &[0.4769362762044699], 1e-15);
        assert_close(&unary("gamma", &[5.0, 0.5]), &[24.0, pi.sqrt()], 1e-15);
        assert_close(&unary("gammaln", &[-2.5]), &[-0.05624371649767405], 1e-14);
        // MXNet's f32 constants: degrees(1) = 57.2957763671875, radians(180) = 3.1415926...
        assert_eq!(unary("degrees", &[1.0]), [57.2957763671875]);
        assert_close(&unary("radians", &[180.0]), &[3.1415926292538643], 1e-15);
        // Out of domain: NaN or infinities, as MXNet (checked in 1.9.1).
        let edges = unary("rsqrt", &[0.0, -1.0]);
        assert!(edges[0] == f64::INFINITY && edges[1].is_nan());
        assert!(unary("arccosh", &[0.5])[0].is_nan());
        assert_eq!(unary("arctanh", &[1.0]), [f64::INFINITY]);
        assert_eq!(
            unary("erfinv", &[-1.0, 1.0]),
            [f64::NEG_INFINITY, f64::INFINITY]
        );
        let g = unary("gamma", &[0.0, -1.0, 200.0]);
        assert!(g[0] == f64::INFINITY && g[1].is_nan() && g[2] == f64::INFINITY);
        assert_eq!(
            unary("gammaln", &[0.0, -1.0]),
            [f64::INFINITY, f64::INFINITY]
        );
        assert_eq!(
            unary("logical_not", &[0.0, 1.0, -2.0, f64::NAN]),
            [1.0, 0.0, 0.0, 0.0]
        );
    }

    #[test]
    fn integer_inputs_truncate_like_mxnet() {
        let ints = Tensor::new(DType::I32, vec![4], vec![1.0, 2.0, -1.0, 3.0]);
        // MXNet 1.9.1: reciprocal of int32 [1 2 -1 3] is [1 0 -1 0].
        let g = run("reciprocal", &[], &[&ints], false).unwrap();
        assert_eq!(
            (g[0].dtype, g[0].data.clone()),
            (DType::I32, vec![1.0, 0.0, -1.0, 0.0])
        );
        let g = run("sign", &[], &[&ints], false).unwrap();
        assert_eq!(g[0].data, [1.0, 1.0, -1.0, 1.0]);
    }

    #[test]
    fn rounding_and_logic_have_zero_gradients() {
        let v = tensor(&[2], &[0.3, -1.2]);
        for op in [
            "sign",
            "floor",
            "ceil",
            "round",
            "rint",
            "trunc",
            "fix",
            "logical_not",
        ] {
            let one = std::slice::from_ref(&v);
            let g = analytic_grad(op, &[], one, one, false).unwrap();
            assert!(g[0].is_none(), "{op}");
        }
    }
}
