//! Scalar expressions: what an element-wise operator computes for one element.
//!
//! An element-wise or broadcast operator declares its semantics once, as an [`Expr`] over
//! its input scalars. The reference interpreter evaluates it with [`Expr::eval`]; code
//! generators lower the same tree. Math functions are primitives here so each backend can
//! choose its own approximation; the `special` module holds the oracle's own implementations of
//! those Rust's std lacks (erf, erfinv, gamma, lgamma, digamma).

pub mod bits;
mod diff;
mod eval;
mod special;

pub use special::{digamma, erf, erfc, erfinv, gamma, lgamma};

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
    /// The inverse error function (NaN outside [-1, 1]).
    Erfinv,
    Floor,
    Ceil,
    /// Half away from zero, as C's `round`.
    Round,
    Trunc,
    Sign,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    Cbrt,
    /// Γ(x), with C's `tgamma` conventions at the poles.
    Gamma,
    /// ln|Γ(x)|, with C's `lgamma` conventions.
    Lgamma,
    /// ψ(x) = Γ'(x)/Γ(x): only gamma's and lgamma's derivatives use it.
    Digamma,
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
    /// MXNet's `mod`: the remainder with the divisor's sign (Python's `%`), 0 for a zero
    /// divisor.
    Mod,
    /// √(a² + b²) without intermediate overflow.
    Hypot,
    /// 1.0 where `a < b`, else 0.0 (likewise below).
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Unary {
    /// Every unary function, for renderers' completeness tests.
    pub const ALL: [Unary; 32] = [
        Unary::Neg,
        Unary::Abs,
        Unary::Exp,
        Unary::Expm1,
        Unary::Log,
        Unary::Log1p,
        Unary::Sqrt,
        Unary::Tanh,
        Unary::Erf,
        Unary::Erfinv,
        Unary::Floor,
        Unary::Ceil,
        Unary::Round,
        Unary::Trunc,
        Unary::Sign,
        Unary::Log2,
        Unary::Log10,
        Unary::Sin,
        Unary::Cos,
        Unary::Tan,
        Unary::Asin,
        Unary::Acos,
        Unary::Atan,
        Unary::Sinh,
        Unary::Cosh,
        Unary::Asinh,
        Unary::Acosh,
        Unary::Atanh,
        Unary::Cbrt,
        Unary::Gamma,
        Unary::Lgamma,
        Unary::Digamma,
    ];
}

impl Binary {
    /// Every binary function, for renderers' completeness tests.
    pub const ALL: [Binary; 15] = [
        Binary::Add,
        Binary::Sub,
        Binary::Mul,
        Binary::Div,
        Binary::Max,
        Binary::Min,
        Binary::Pow,
        Binary::Mod,
        Binary::Hypot,
        Binary::Lt,
        Binary::Le,
        Binary::Gt,
        Binary::Ge,
        Binary::Eq,
        Binary::Ne,
    ];
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
    pub fn erfinv(self) -> Expr {
        self.un(Unary::Erfinv)
    }
    pub fn log2(self) -> Expr {
        self.un(Unary::Log2)
    }
    pub fn log10(self) -> Expr {
        self.un(Unary::Log10)
    }
    pub fn sin(self) -> Expr {
        self.un(Unary::Sin)
    }
    pub fn cos(self) -> Expr {
        self.un(Unary::Cos)
    }
    pub fn tan(self) -> Expr {
        self.un(Unary::Tan)
    }
    pub fn asin(self) -> Expr {
        self.un(Unary::Asin)
    }
    pub fn acos(self) -> Expr {
        self.un(Unary::Acos)
    }
    pub fn atan(self) -> Expr {
        self.un(Unary::Atan)
    }
    pub fn sinh(self) -> Expr {
        self.un(Unary::Sinh)
    }
    pub fn cosh(self) -> Expr {
        self.un(Unary::Cosh)
    }
    pub fn asinh(self) -> Expr {
        self.un(Unary::Asinh)
    }
    pub fn acosh(self) -> Expr {
        self.un(Unary::Acosh)
    }
    pub fn atanh(self) -> Expr {
        self.un(Unary::Atanh)
    }
    pub fn cbrt(self) -> Expr {
        self.un(Unary::Cbrt)
    }
    pub fn gamma(self) -> Expr {
        self.un(Unary::Gamma)
    }
    pub fn lgamma(self) -> Expr {
        self.un(Unary::Lgamma)
    }
    pub fn digamma(self) -> Expr {
        self.un(Unary::Digamma)
    }
    /// MXNet's `mod` (see [`Binary::Mod`]).
    pub fn modulo(self, rhs: Expr) -> Expr {
        self.bin(Binary::Mod, rhs)
    }
    pub fn hypot(self, rhs: Expr) -> Expr {
        self.bin(Binary::Hypot, rhs)
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
                    Binary::Max | Binary::Min | Binary::Pow | Binary::Mod | Binary::Hypot => {
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
}
