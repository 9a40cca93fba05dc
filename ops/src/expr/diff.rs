//! Symbolic differentiation of scalar expressions: what `_backward_elemwise` evaluates,
//! so no element-wise gradient is written by hand.

use super::special::SQRT_PI_2;
use super::{c, Binary, Expr, Unary};

impl Expr {
    /// The partial derivative with respect to input `i`, symbolically (non-smooth points
    /// take MXNet's conventions: relu'(0) = 0, |x|'(0) = 0, rounding has derivative 0).
    pub fn diff(&self, i: usize) -> Expr {
        let d = |e: &Expr| e.diff(i);
        match self {
            Expr::Input(j) => c(if *j == i { 1.0 } else { 0.0 }),
            Expr::Const(_) => c(0.0),
            Expr::Unary(op, a) => {
                let a0 = (**a).clone();
                let inner = match op {
                    Unary::Neg => c(-1.0),
                    Unary::Abs => a0.sign(),
                    Unary::Exp => a0.exp(),
                    Unary::Expm1 => a0.exp(),
                    Unary::Log => c(1.0) / a0,
                    Unary::Log1p => c(1.0) / (c(1.0) + a0),
                    Unary::Sqrt => c(0.5) / a0.sqrt(),
                    Unary::Tanh => c(1.0) - a0.clone().tanh() * a0.tanh(),
                    Unary::Erf => c(std::f64::consts::FRAC_2_SQRT_PI) * (-(a0.clone() * a0)).exp(),
                    Unary::Erfinv => {
                        let y = a0.erfinv();
                        c(SQRT_PI_2) * (y.clone() * y).exp()
                    }
                    Unary::Floor | Unary::Ceil | Unary::Round | Unary::Trunc | Unary::Sign => {
                        c(0.0)
                    }
                    Unary::Log2 => c(1.0) / (a0 * c(std::f64::consts::LN_2)),
                    Unary::Log10 => c(1.0) / (a0 * c(std::f64::consts::LN_10)),
                    Unary::Sin => a0.cos(),
                    Unary::Cos => -a0.sin(),
                    Unary::Tan => c(1.0) + a0.clone().tan() * a0.tan(),
                    Unary::Asin => c(1.0) / (c(1.0) - a0.clone() * a0).sqrt(),
                    Unary::Acos => c(-1.0) / (c(1.0) - a0.clone() * a0).sqrt(),
                    Unary::Atan => c(1.0) / (c(1.0) + a0.clone() * a0),
                    Unary::Sinh => a0.cosh(),
                    Unary::Cosh => a0.sinh(),
                    Unary::Asinh => c(1.0) / (a0.clone() * a0 + c(1.0)).sqrt(),
                    Unary::Acosh => c(1.0) / (a0.clone() * a0 - c(1.0)).sqrt(),
                    Unary::Atanh => c(1.0) / (c(1.0) - a0.clone() * a0),
                    Unary::Cbrt => {
                        let r = a0.cbrt();
                        c(1.0) / (c(3.0) * r.clone() * r)
                    }
                    Unary::Gamma => a0.clone().gamma() * a0.digamma(),
                    Unary::Lgamma => a0.digamma(),
                    // Trigamma is no primitive: derivatives are taken once, of forward
                    // expressions (`_backward_elemwise` is not differentiable), and no
                    // forward operator computes digamma.
                    Unary::Digamma => c(f64::NAN),
                };
                simplify_mul(inner, d(a))
            }
            Expr::Binary(op, a, b) => {
                let (a0, b0) = ((**a).clone(), (**b).clone());
                // Each operand's derivative once: taking one twice per level would double
                // the work at every level of a nested expression.
                let (da, db) = (d(a), d(b));
                match op {
                    Binary::Add => simplify_add(da, db),
                    Binary::Sub => simplify_add(da, simplify_mul(c(-1.0), db)),
                    Binary::Mul => simplify_add(simplify_mul(da, b0), simplify_mul(a0, db)),
                    Binary::Div => {
                        // (a'b - ab') / b², written a'/b - a b' / b² to keep a' = 0 cheap.
                        let first = if da == c(0.0) {
                            c(0.0)
                        } else {
                            da / b0.clone()
                        };
                        let second = simplify_mul(a0 / (b0.clone() * b0), db);
                        simplify_add(first, simplify_mul(c(-1.0), second))
                    }
                    // MXNet's `_backward_maximum` gives the gradient to `a` where `a >= b`
                    // (ties included) and to `b` elsewhere; minimum likewise with `<=`.
                    Binary::Max => a0.ge(b0).select(da, db),
                    Binary::Min => a0.le(b0).select(da, db),
                    // a − b·floor(a/b): MXNet's mod_grad is 1 and mod_rgrad −floor(a/b).
                    Binary::Mod => {
                        let db = simplify_mul(-(a0 / b0).floor(), db);
                        simplify_add(da, db)
                    }
                    Binary::Hypot => {
                        let h = self.clone();
                        let da = simplify_mul(a0 / h.clone(), da);
                        let db = simplify_mul(b0 / h, db);
                        simplify_add(da, db)
                    }
                    Binary::Pow => {
                        let da = simplify_mul(b0.clone() * a0.clone().pow(b0.clone() - c(1.0)), da);
                        let db = if db == c(0.0) {
                            c(0.0)
                        } else {
                            self.clone() * a0.log() * db
                        };
                        simplify_add(da, db)
                    }
                    Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge | Binary::Eq | Binary::Ne => {
                        c(0.0)
                    }
                }
            }
            Expr::Select(p, a, b) => {
                let (da, db) = (d(a), d(b));
                if da == db {
                    da
                } else {
                    (**p).clone().select(da, db)
                }
            }
        }
    }
}

/// `a * b`, folding multiplications by 0 and 1.
fn simplify_mul(a: Expr, b: Expr) -> Expr {
    match (&a, &b) {
        (Expr::Const(z), _) | (_, Expr::Const(z)) if *z == 0.0 => c(0.0),
        (Expr::Const(o), _) if *o == 1.0 => b,
        (_, Expr::Const(o)) if *o == 1.0 => a,
        _ => a * b,
    }
}

/// `a + b`, folding additions of 0.
fn simplify_add(a: Expr, b: Expr) -> Expr {
    match (&a, &b) {
        (Expr::Const(z), _) if *z == 0.0 => b,
        (_, Expr::Const(z)) if *z == 0.0 => a,
        _ => a + b,
    }
}

#[cfg(test)]
mod tests {
    use crate::{c, x, Expr};

    /// Central differences of `e` at `at` with respect to input `i`.
    fn numeric(e: &Expr, at: &[f64], i: usize) -> f64 {
        let h = 1e-6;
        let (mut lo, mut hi) = (at.to_vec(), at.to_vec());
        lo[i] -= h;
        hi[i] += h;
        (e.eval(&hi) - e.eval(&lo)) / (2.0 * h)
    }

    #[test]
    fn derivatives_match_finite_differences() {
        let exprs = [
            x(0) * x(1) + c(1.0),
            x(0) / x(1),
            x(0).sigmoid(),
            x(0).tanh() * x(1).exp(),
            x(0).log1p() - x(1).sqrt(),
            x(0).erf() + x(1).expm1(),
            x(0).pow(x(1)),
            x(0).max(x(1)) + x(0).min(c(0.3)),
            x(0).gt(c(0.0)).select(x(0) * x(1), x(1) / c(2.0)),
            (x(0) * x(0) + x(1)).log(),
        ];
        for e in &exprs {
            for at in [[0.7, 1.3], [1.9, 0.45], [0.35, 2.2]] {
                for i in 0..2 {
                    let (got, want) = (e.diff(i).eval(&at), numeric(e, &at, i));
                    assert!(
                        (got - want).abs() <= 1e-6 * (1.0 + want.abs()),
                        "d({e})/dx{i} at {at:?}: {got} vs {want}"
                    );
                }
            }
        }
        assert_eq!((x(0) * c(3.0)).diff(1), c(0.0));
        assert_eq!(x(0).shift_inputs(2), x(2));
    }

    #[test]
    fn nested_quotients_and_powers_differentiate_once_per_level() {
        // Taking an operand's derivative twice per level would be 2^40 derivatives.
        let mut e = x(0);
        for k in 0..40 {
            e = if k % 2 == 0 {
                (e + c(1.0)) / (x(0) + c(2.0))
            } else {
                x(1).pow(e * c(0.5))
            };
        }
        for at in [[0.7, 1.1], [1.9, 0.9]] {
            for i in 0..2 {
                let (got, want) = (e.diff(i).eval(&at), numeric(&e, &at, i));
                assert!(
                    (got - want).abs() <= 1e-6 * (1.0 + want.abs()),
                    "dx{i} at {at:?}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn math_derivatives_match_finite_differences() {
        // (expression of x0, points inside its domain)
        let cases: Vec<(Expr, Vec<f64>)> = vec![
            (x(0).log2() + x(0).log10(), vec![0.3, 2.5]),
            (x(0).sin() * x(0).cos() + x(0).tan(), vec![-1.2, 0.4]),
            (x(0).asin() + x(0).acos() * x(0).atan(), vec![-0.8, 0.3]),
            (x(0).sinh() + x(0).cosh() + x(0).asinh(), vec![-2.0, 0.7]),
            (x(0).acosh(), vec![1.3, 4.0]),
            (x(0).atanh(), vec![-0.6, 0.9]),
            (x(0).cbrt(), vec![-3.0, 0.2, 8.0]),
            (x(0).erfinv(), vec![-0.95, 0.0, 0.5, 0.99]),
            (x(0).gamma(), vec![0.3, 2.5, 7.1, -1.5]),
            (x(0).lgamma(), vec![0.3, 2.5, 40.0, -2.3]),
        ];
        for (e, points) in &cases {
            for &at in points {
                let (got, want) = (e.diff(0).eval(&[at]), numeric(e, &[at], 0));
                assert!(
                    (got - want).abs() <= 1e-6 * (1.0 + want.abs()),
                    "d({e})/dx0 at {at}: {got} vs {want}"
                );
            }
        }
        for e in [x(0).modulo(x(1)), x(0).hypot(x(1))] {
            for at in [[5.3, 2.1], [-5.3, 2.1], [5.3, -2.1], [0.7, -3.0]] {
                for i in 0..2 {
                    let (got, want) = (e.diff(i).eval(&at), numeric(&e, &at, i));
                    assert!(
                        (got - want).abs() <= 1e-6 * (1.0 + want.abs()),
                        "d({e})/dx{i} at {at:?}: {got} vs {want}"
                    );
                }
            }
        }
        // Rounding has a zero derivative; digamma's is not provided.
        assert_eq!(x(0).round().diff(0), c(0.0));
        assert!(x(0).digamma().diff(0).eval(&[1.0]).is_nan());
    }
}
