//! Evaluation of scalar expressions in f64: the reference interpreter's semantics,
//! MXNet's conventions included (NaN-propagating maximum, Python-style `mod`).

use super::special::{digamma, erf, erfinv, gamma, lgamma};
use super::{Binary, Expr, Unary};

impl Expr {
    /// Evaluates the expression in f64 (the oracle's semantics).
    pub fn eval(&self, inputs: &[f64]) -> f64 {
        match self {
            Expr::Input(i) => inputs[*i],
            Expr::Const(v) => *v,
            Expr::Unary(op, a) => op.apply(a.eval(inputs)),
            Expr::Binary(op, a, b) => op.apply(a.eval(inputs), b.eval(inputs)),
            Expr::Select(cond, a, b) => {
                if cond.eval(inputs) != 0.0 {
                    a.eval(inputs)
                } else {
                    b.eval(inputs)
                }
            }
        }
    }
}

impl Unary {
    /// The function in f64 (the oracle's semantics).
    pub fn apply(self, a: f64) -> f64 {
        match self {
            Unary::Neg => -a,
            Unary::Abs => a.abs(),
            Unary::Exp => a.exp(),
            Unary::Expm1 => a.exp_m1(),
            Unary::Log => a.ln(),
            Unary::Log1p => a.ln_1p(),
            Unary::Sqrt => a.sqrt(),
            Unary::Tanh => a.tanh(),
            Unary::Erf => erf(a),
            Unary::Erfinv => erfinv(a),
            Unary::Floor => a.floor(),
            Unary::Ceil => a.ceil(),
            Unary::Round => a.round(), // half away from zero, as C's round()
            Unary::Trunc => a.trunc(),
            Unary::Sign => {
                if a > 0.0 {
                    1.0
                } else if a < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            }
            Unary::Log2 => a.log2(),
            Unary::Log10 => a.log10(),
            Unary::Sin => a.sin(),
            Unary::Cos => a.cos(),
            Unary::Tan => a.tan(),
            Unary::Asin => a.asin(),
            Unary::Acos => a.acos(),
            Unary::Atan => a.atan(),
            Unary::Sinh => a.sinh(),
            Unary::Cosh => a.cosh(),
            Unary::Asinh => a.asinh(),
            Unary::Acosh => a.acosh(),
            Unary::Atanh => a.atanh(),
            Unary::Cbrt => a.cbrt(),
            Unary::Gamma => gamma(a),
            Unary::Lgamma => lgamma(a),
            Unary::Digamma => digamma(a),
        }
    }
}

impl Binary {
    /// The function in f64 (the oracle's semantics); comparisons give 1 or 0.
    pub fn apply(self, a: f64, b: f64) -> f64 {
        let t = |p: bool| p as u8 as f64;
        match self {
            Binary::Add => a + b,
            Binary::Sub => a - b,
            Binary::Mul => a * b,
            Binary::Div => a / b,
            // mshadow's maximum/minimum (MXNet 1.9): `isnan(a) ? a : a > b ? a : b`,
            // so a NaN on either side propagates.
            Binary::Max => {
                if a.is_nan() || a > b {
                    a
                } else {
                    b
                }
            }
            Binary::Min => {
                if a.is_nan() || a < b {
                    a
                } else {
                    b
                }
            }
            Binary::Pow => a.powf(b),
            Binary::Mod => mxnet_mod(a, b),
            Binary::Hypot => a.hypot(b),
            Binary::Lt => t(a < b),
            Binary::Le => t(a <= b),
            Binary::Gt => t(a > b),
            Binary::Ge => t(a >= b),
            Binary::Eq => t(a == b),
            Binary::Ne => t(a != b),
        }
    }
}

/// MXNet's `mod` (mshadow_op::mod): the remainder takes the divisor's sign, as Python's
/// `%`, and a zero divisor gives 0 rather than NaN. Integers take the same path (MXNet
/// computes their `fmod` in double as well).
fn mxnet_mod(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return 0.0;
    }
    let r = a % b; // C's fmod: the dividend's sign
    if r != 0.0 && (r < 0.0) != (b < 0.0) {
        r + b
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use crate::x;

    #[test]
    fn mod_takes_the_divisor_sign() {
        let m = |a: f64, b: f64| x(0).modulo(x(1)).eval(&[a, b]);
        // As Python's `%` (and MXNet 1.9.1: `mx.nd._internal._mod`).
        assert_eq!(m(5.0, 3.0), 2.0);
        assert_eq!(m(-5.0, 3.0), 1.0);
        assert_eq!(m(5.0, -3.0), -1.0);
        assert_eq!(m(-5.0, -3.0), -2.0);
        assert_eq!(m(5.5, 2.0), 1.5);
        assert_eq!(m(-5.5, 2.0), 0.5);
        assert_eq!(m(6.0, -3.0), 0.0);
        // A zero divisor gives 0, not NaN; an infinite one keeps finite dividends whose
        // sign agrees and sends the others to the infinity (MXNet's formula).
        assert_eq!(m(7.0, 0.0), 0.0);
        assert_eq!(m(1.0, f64::INFINITY), 1.0);
        assert_eq!(m(-1.0, f64::INFINITY), f64::INFINITY);
        assert!(m(f64::NAN, 1.0).is_nan() && m(1.0, f64::NAN).is_nan());
        assert!(m(f64::INFINITY, 2.0).is_nan());
        assert!(m(-0.0, 3.0).is_sign_negative());
        assert_eq!(x(0).hypot(x(1)).eval(&[1e300, 1e300]), 1e300 * 2f64.sqrt());
    }

    #[test]
    fn max_and_min_propagate_nan_from_either_side() {
        let nan = f64::NAN;
        for e in [x(0).max(x(1)), x(0).min(x(1))] {
            assert!(e.eval(&[nan, 1.0]).is_nan(), "{e}");
            assert!(e.eval(&[1.0, nan]).is_nan(), "{e}");
        }
        assert_eq!(x(0).max(x(1)).eval(&[-1.0, 2.0]), 2.0);
        // Ties send the gradient to the left operand, as `_backward_maximum` does.
        assert_eq!(x(0).max(x(1)).diff(0).eval(&[2.0, 2.0]), 1.0);
        assert_eq!(x(0).min(x(1)).diff(1).eval(&[2.0, 2.0]), 0.0);
    }
}
