//! Scalar expressions: what an element-wise operator computes for one element.
//!
//! An element-wise or broadcast operator declares its semantics once, as an [`Expr`] over
//! its input scalars. The reference interpreter evaluates it with [`Expr::eval`]; code
//! generators lower the same tree. Math functions are primitives here so each backend can
//! choose its own approximation.

use std::fmt;
use std::ops::{Add, Div, Mul, Neg, Sub};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unary {
    Neg,
    Abs,
    Exp,
    Expm1,
    Log,
    Log1p,
    Sqrt,
    Tanh,
    Erf,
    Floor,
    Ceil,
    Round,
    Trunc,
    Sign,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Pow,
    /// 1.0 where `a < b`, else 0.0 (likewise below).
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// A scalar expression over an operator's inputs.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// The element of input `i` (after broadcasting) at the current position.
    Input(usize),
    Const(f64),
    Unary(Unary, Box<Expr>),
    Binary(Binary, Box<Expr>, Box<Expr>),
    /// `cond != 0 ? then : else`.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
}

/// Input `i`.
pub fn x(i: usize) -> Expr {
    Expr::Input(i)
}

/// A constant.
pub fn c(v: f64) -> Expr {
    Expr::Const(v)
}

impl Expr {
    fn un(self, op: Unary) -> Expr {
        Expr::Unary(op, Box::new(self))
    }
    fn bin(self, op: Binary, rhs: Expr) -> Expr {
        Expr::Binary(op, Box::new(self), Box::new(rhs))
    }
    pub fn abs(self) -> Expr {
        self.un(Unary::Abs)
    }
    pub fn exp(self) -> Expr {
        self.un(Unary::Exp)
    }
    pub fn expm1(self) -> Expr {
        self.un(Unary::Expm1)
    }
    pub fn log(self) -> Expr {
        self.un(Unary::Log)
    }
    pub fn log1p(self) -> Expr {
        self.un(Unary::Log1p)
    }
    pub fn sqrt(self) -> Expr {
        self.un(Unary::Sqrt)
    }
    pub fn tanh(self) -> Expr {
        self.un(Unary::Tanh)
    }
    pub fn erf(self) -> Expr {
        self.un(Unary::Erf)
    }
    pub fn floor(self) -> Expr {
        self.un(Unary::Floor)
    }
    pub fn ceil(self) -> Expr {
        self.un(Unary::Ceil)
    }
    pub fn round(self) -> Expr {
        self.un(Unary::Round)
    }
    pub fn trunc(self) -> Expr {
        self.un(Unary::Trunc)
    }
    pub fn sign(self) -> Expr {
        self.un(Unary::Sign)
    }
    pub fn max(self, rhs: Expr) -> Expr {
        self.bin(Binary::Max, rhs)
    }
    pub fn min(self, rhs: Expr) -> Expr {
        self.bin(Binary::Min, rhs)
    }
    pub fn pow(self, rhs: Expr) -> Expr {
        self.bin(Binary::Pow, rhs)
    }
    pub fn lt(self, rhs: Expr) -> Expr {
        self.bin(Binary::Lt, rhs)
    }
    pub fn le(self, rhs: Expr) -> Expr {
        self.bin(Binary::Le, rhs)
    }
    pub fn gt(self, rhs: Expr) -> Expr {
        self.bin(Binary::Gt, rhs)
    }
    pub fn ge(self, rhs: Expr) -> Expr {
        self.bin(Binary::Ge, rhs)
    }
    pub fn eq(self, rhs: Expr) -> Expr {
        self.bin(Binary::Eq, rhs)
    }
    pub fn ne(self, rhs: Expr) -> Expr {
        self.bin(Binary::Ne, rhs)
    }
    /// `self != 0 ? then : otherwise`.
    pub fn select(self, then: Expr, otherwise: Expr) -> Expr {
        Expr::Select(Box::new(self), Box::new(then), Box::new(otherwise))
    }
    /// `1 / (1 + exp(-self))`.
    pub fn sigmoid(self) -> Expr {
        c(1.0) / (c(1.0) + (-self).exp())
    }

    /// Evaluates the expression in f64 (the oracle's semantics).
    pub fn eval(&self, inputs: &[f64]) -> f64 {
        match self {
            Expr::Input(i) => inputs[*i],
            Expr::Const(v) => *v,
            Expr::Unary(op, a) => {
                let a = a.eval(inputs);
                match op {
                    Unary::Neg => -a,
                    Unary::Abs => a.abs(),
                    Unary::Exp => a.exp(),
                    Unary::Expm1 => a.exp_m1(),
                    Unary::Log => a.ln(),
                    Unary::Log1p => a.ln_1p(),
                    Unary::Sqrt => a.sqrt(),
                    Unary::Tanh => a.tanh(),
                    Unary::Erf => erf(a),
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
                }
            }
            Expr::Binary(op, a, b) => {
                let (a, b) = (a.eval(inputs), b.eval(inputs));
                let t = |p: bool| p as u8 as f64;
                match op {
                    Binary::Add => a + b,
                    Binary::Sub => a - b,
                    Binary::Mul => a * b,
                    Binary::Div => a / b,
                    // mshadow's maximum/minimum: `a > b ? a : b` (NaN in `a` loses).
                    Binary::Max => {
                        if a > b {
                            a
                        } else {
                            b
                        }
                    }
                    Binary::Min => {
                        if a < b {
                            a
                        } else {
                            b
                        }
                    }
                    Binary::Pow => a.powf(b),
                    Binary::Lt => t(a < b),
                    Binary::Le => t(a <= b),
                    Binary::Gt => t(a > b),
                    Binary::Ge => t(a >= b),
                    Binary::Eq => t(a == b),
                    Binary::Ne => t(a != b),
                }
            }
            Expr::Select(cond, a, b) => {
                if cond.eval(inputs) != 0.0 {
                    a.eval(inputs)
                } else {
                    b.eval(inputs)
                }
            }
        }
    }

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
                    Unary::Floor | Unary::Ceil | Unary::Round | Unary::Trunc | Unary::Sign => {
                        c(0.0)
                    }
                };
                simplify_mul(inner, d(a))
            }
            Expr::Binary(op, a, b) => {
                let (a0, b0) = ((**a).clone(), (**b).clone());
                match op {
                    Binary::Add => simplify_add(d(a), d(b)),
                    Binary::Sub => simplify_add(d(a), simplify_mul(c(-1.0), d(b))),
                    Binary::Mul => simplify_add(simplify_mul(d(a), b0), simplify_mul(a0, d(b))),
                    Binary::Div => {
                        // (a'b - ab') / b², written a'/b - a b' / b² to keep a' = 0 cheap.
                        let first = if d(a) == c(0.0) {
                            c(0.0)
                        } else {
                            d(a) / b0.clone()
                        };
                        let second = simplify_mul(a0 / (b0.clone() * b0), d(b));
                        simplify_add(first, simplify_mul(c(-1.0), second))
                    }
                    // The selected input gets the gradient (mshadow's `a > b ? a : b` picks b
                    // on ties).
                    Binary::Max => a0.gt(b0).select(d(a), d(b)),
                    Binary::Min => a0.lt(b0).select(d(a), d(b)),
                    Binary::Pow => {
                        let da =
                            simplify_mul(b0.clone() * a0.clone().pow(b0.clone() - c(1.0)), d(a));
                        let db = if d(b) == c(0.0) {
                            c(0.0)
                        } else {
                            self.clone() * a0.log() * d(b)
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

    /// Replaces every input `x(i)` by `x(i + k)`.
    pub fn shift_inputs(&self, k: usize) -> Expr {
        match self {
            Expr::Input(i) => x(i + k),
            Expr::Const(v) => c(*v),
            Expr::Unary(op, a) => Expr::Unary(*op, Box::new(a.shift_inputs(k))),
            Expr::Binary(op, a, b) => Expr::Binary(
                *op,
                Box::new(a.shift_inputs(k)),
                Box::new(b.shift_inputs(k)),
            ),
            Expr::Select(p, a, b) => Expr::Select(
                Box::new(p.shift_inputs(k)),
                Box::new(a.shift_inputs(k)),
                Box::new(b.shift_inputs(k)),
            ),
        }
    }

    /// Number of arithmetic operations per evaluation (the cost model's FLOPs).
    pub fn flops(&self) -> u64 {
        match self {
            Expr::Input(_) | Expr::Const(_) => 0,
            Expr::Unary(_, a) => 1 + a.flops(),
            Expr::Binary(_, a, b) => 1 + a.flops() + b.flops(),
            Expr::Select(p, a, b) => 1 + p.flops() + a.flops() + b.flops(),
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

/// The error function, to double precision (W. J. Cody's rational approximations as
/// used by most libms), since Rust's std has none.
#[allow(clippy::excessive_precision)] // Cody's coefficients, as published
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let ax = x.abs();
    let r = if ax < 0.5 {
        let t = x * x;
        let p = [
            3.209377589138469e3,
            3.774852376853020e2,
            1.138641541510502e2,
            3.161123743870566,
            1.857777061846032e-1,
        ];
        let q = [
            2.844236833439171e3,
            1.282616526077372e3,
            2.440246379344442e2,
            2.360129095234412e1,
            1.0,
        ];
        let num = (((p[4] * t + p[3]) * t + p[2]) * t + p[1]) * t + p[0];
        let den = (((q[4] * t + q[3]) * t + q[2]) * t + q[1]) * t + q[0];
        return x * num / den;
    } else if ax < 4.0 {
        let p = [
            1.23033935479799725e3,
            2.05107837782607147e3,
            1.71204761263407058e3,
            8.81952221241769090e2,
            2.98635138197400131e2,
            6.61191906371416295e1,
            8.88314979438837594,
            5.64188496988670089e-1,
            2.15311535474403846e-8,
        ];
        let q = [
            1.23033935480374942e3,
            3.43936767414372164e3,
            4.36261909014324716e3,
            3.29079923573345963e3,
            1.62138957456669019e3,
            5.37181101862009858e2,
            1.17693950891312499e2,
            1.57449261107098347e1,
            1.0,
        ];
        let num = p.iter().rev().fold(0.0, |acc, &c| acc * ax + c);
        let den = q.iter().rev().fold(0.0, |acc, &c| acc * ax + c);
        1.0 - (-ax * ax).exp() * num / den
    } else {
        let p = [
            -6.58749161529837803e-4,
            -1.60837851487422766e-2,
            -1.25781726111229246e-1,
            -3.60344899949804439e-1,
            -3.05326634961232344e-1,
            -1.63153871373020978e-2,
        ];
        let q = [
            2.33520497626869185e-3,
            6.05183413124413191e-2,
            5.27905102951428412e-1,
            1.87295284992346725,
            2.56852019228982242,
            1.0,
        ];
        let z = 1.0 / (ax * ax);
        let num = p.iter().rev().fold(0.0, |acc, &c| acc * z + c);
        let den = q.iter().rev().fold(0.0, |acc, &c| acc * z + c);
        let frac_1_sqrt_pi = 0.564_189_583_547_756_3;
        1.0 - (-ax * ax).exp() / ax * (frac_1_sqrt_pi + z * num / den)
    };
    if x < 0.0 {
        -r
    } else {
        r
    }
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:ident) => {
        impl $trait for Expr {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                self.bin(Binary::$op, rhs)
            }
        }
    };
}
binary_operator!(Add, add, Add);
binary_operator!(Sub, sub, Sub);
binary_operator!(Mul, mul, Mul);
binary_operator!(Div, div, Div);

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.un(Unary::Neg)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Input(i) => write!(f, "x{i}"),
            Expr::Const(v) => write!(f, "{v}"),
            Expr::Unary(op, a) => write!(f, "{}({a})", format!("{op:?}").to_lowercase()),
            Expr::Binary(op, a, b) => {
                let sym = match op {
                    Binary::Add => "+",
                    Binary::Sub => "-",
                    Binary::Mul => "*",
                    Binary::Div => "/",
                    Binary::Lt => "<",
                    Binary::Le => "<=",
                    Binary::Gt => ">",
                    Binary::Ge => ">=",
                    Binary::Eq => "==",
                    Binary::Ne => "!=",
                    Binary::Max | Binary::Min | Binary::Pow => {
                        return write!(f, "{}({a}, {b})", format!("{op:?}").to_lowercase());
                    }
                };
                write!(f, "({a} {sym} {b})")
            }
            Expr::Select(p, a, b) => write!(f, "select({p}, {a}, {b})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates_and_prints() {
        let e = x(0) * x(1) + c(1.0);
        assert_eq!(e.eval(&[2.0, 3.0]), 7.0);
        assert_eq!(e.to_string(), "((x0 * x1) + 1)");
        assert_eq!(e.flops(), 2);
        assert_eq!(x(0).gt(c(0.0)).select(x(0), c(0.0)).eval(&[-1.0]), 0.0);
    }

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
    fn erf_matches_known_values() {
        // Reference values from tables of erf (Abramowitz & Stegun).
        for (x, want) in [
            (0.0, 0.0),
            (0.1, 0.1124629160182849),
            (0.5, 0.5204998778130465),
            (1.0, 0.8427007929497149),
            (2.0, 0.9953222650189527),
            (5.0, 0.9999999999984626),
        ] {
            assert!(
                (erf(x) - want).abs() < 1e-15,
                "erf({x}) = {} want {want}",
                erf(x)
            );
            assert!((erf(-x) + want).abs() < 1e-15);
        }
    }
}
