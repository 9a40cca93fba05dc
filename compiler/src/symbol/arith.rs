//! `+ - * /` on symbols and scalars, creating the same nodes Python MXNet creates
//! (`elemwise_add` named `_plus0`, `_plus_scalar` named `_plusscalar0`, ...).
//!
//! Operators cannot return `Result`; a composition that fails (an operand with several
//! outputs) yields a symbol carrying the error, reported by its next fallible use.

use super::{auto_name, Symbol};
use kiln_ops::param::py_float;
use std::ops::{Add, Div, Mul, Neg, Sub};

#[track_caller]
fn binary(op: &str, hint: &str, lhs: &Symbol, rhs: &Symbol) -> Symbol {
    let call = Symbol::op(op).name(auto_name(hint)).arg(lhs).arg(rhs);
    call.build()
        .unwrap_or_else(|e| lhs.clone().poisoned(e.to_string()))
}

#[track_caller]
fn scalar(op: &str, hint: &str, data: &Symbol, s: f64) -> Symbol {
    let call = Symbol::op(op)
        .name(auto_name(hint))
        .arg(data)
        .attr("scalar", py_float(s));
    call.build()
        .unwrap_or_else(|e| data.clone().poisoned(e.to_string()))
}

macro_rules! arithmetic {
    ($trait:ident, $method:ident, $op:literal, $hint:literal, $sop:literal, $shint:literal, $rop:literal, $rhint:literal) => {
        impl $trait<&Symbol> for &Symbol {
            type Output = Symbol;
            #[track_caller]
            fn $method(self, rhs: &Symbol) -> Symbol {
                binary($op, $hint, self, rhs)
            }
        }
        impl $trait<Symbol> for Symbol {
            type Output = Symbol;
            #[track_caller]
            fn $method(self, rhs: Symbol) -> Symbol {
                binary($op, $hint, &self, &rhs)
            }
        }
        impl $trait<&Symbol> for Symbol {
            type Output = Symbol;
            #[track_caller]
            fn $method(self, rhs: &Symbol) -> Symbol {
                binary($op, $hint, &self, rhs)
            }
        }
        impl $trait<f64> for &Symbol {
            type Output = Symbol;
            #[track_caller]
            fn $method(self, rhs: f64) -> Symbol {
                scalar($sop, $shint, self, rhs)
            }
        }
        impl $trait<f64> for Symbol {
            type Output = Symbol;
            #[track_caller]
            fn $method(self, rhs: f64) -> Symbol {
                scalar($sop, $shint, &self, rhs)
            }
        }
        impl $trait<&Symbol> for f64 {
            type Output = Symbol;
            #[track_caller]
            fn $method(self, rhs: &Symbol) -> Symbol {
                scalar($rop, $rhint, rhs, self)
            }
        }
        impl $trait<Symbol> for f64 {
            type Output = Symbol;
            #[track_caller]
            fn $method(self, rhs: Symbol) -> Symbol {
                scalar($rop, $rhint, &rhs, self)
            }
        }
    };
}

arithmetic!(
    Add,
    add,
    "elemwise_add",
    "_plus",
    "_plus_scalar",
    "_plusscalar",
    "_plus_scalar",
    "_plusscalar"
);
arithmetic!(
    Sub,
    sub,
    "elemwise_sub",
    "_minus",
    "_minus_scalar",
    "_minusscalar",
    "_rminus_scalar",
    "_rminusscalar"
);
arithmetic!(
    Mul,
    mul,
    "elemwise_mul",
    "_mul",
    "_mul_scalar",
    "_mulscalar",
    "_mul_scalar",
    "_mulscalar"
);
arithmetic!(
    Div,
    div,
    "elemwise_div",
    "_div",
    "_div_scalar",
    "_divscalar",
    "_rdiv_scalar",
    "_rdivscalar"
);

impl Neg for &Symbol {
    type Output = Symbol;
    #[track_caller]
    fn neg(self) -> Symbol {
        scalar("_mul_scalar", "_mulscalar", self, -1.0)
    }
}

impl Neg for Symbol {
    type Output = Symbol;
    #[track_caller]
    fn neg(self) -> Symbol {
        -&self
    }
}
