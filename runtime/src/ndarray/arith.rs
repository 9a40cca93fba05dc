//! `+ - * /` and `+= -= *= /=` on arrays and scalars, through the same operators symbols
//! use (`elemwise_*` for equal shapes, `broadcast_*` otherwise, `_*_scalar` with a number).
//! A failure (shapes that do not broadcast) yields an array carrying the error.
//!
//! `a *= &a` cannot borrow-check in Rust; `a *= a.clone()` does the same thing (a clone is
//! another handle to the same memory), and the engine de-duplicates the read and write.

use super::invoke::{failed, invoke_into, poison};
use super::NDArray;
use kiln_ops::param::py_float;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Sub, SubAssign};

fn binary_name(
    a: &NDArray,
    b: &NDArray,
    same: &'static str,
    broadcast: &'static str,
) -> &'static str {
    if a.shape() == b.shape() {
        same
    } else {
        broadcast
    }
}

fn first(r: kiln_compiler::Result<Vec<NDArray>>, like: &NDArray) -> NDArray {
    match r {
        Ok(mut v) if !v.is_empty() => v.swap_remove(0),
        Ok(_) => failed(
            like,
            kiln_compiler::Error::Input("the operator returned no output".into()),
        ),
        Err(e) => failed(like, e),
    }
}

fn binary(a: &NDArray, b: &NDArray, same: &'static str, broadcast: &'static str) -> NDArray {
    first(
        NDArray::op(binary_name(a, b, same, broadcast))
            .arg(a)
            .arg(b)
            .build(),
        a,
    )
}

fn scalar(a: &NDArray, op: &'static str, s: f64) -> NDArray {
    first(
        NDArray::op(op).arg(a).attr("scalar", py_float(s)).build(),
        a,
    )
}

fn assign(target: &NDArray, call: kiln_compiler::OpCall<'_, NDArray>) {
    if let Err(e) = invoke_into(call, std::slice::from_ref(target)) {
        poison(target, e);
    }
}

macro_rules! arithmetic {
    ($trait:ident, $method:ident, $assign:ident, $assign_method:ident, $same:literal, $broadcast:literal, $scalar:literal, $rscalar:literal) => {
        impl $trait<&NDArray> for &NDArray {
            type Output = NDArray;
            fn $method(self, rhs: &NDArray) -> NDArray {
                binary(self, rhs, $same, $broadcast)
            }
        }
        impl $trait<NDArray> for NDArray {
            type Output = NDArray;
            fn $method(self, rhs: NDArray) -> NDArray {
                binary(&self, &rhs, $same, $broadcast)
            }
        }
        impl $trait<f64> for &NDArray {
            type Output = NDArray;
            fn $method(self, rhs: f64) -> NDArray {
                scalar(self, $scalar, rhs)
            }
        }
        impl $trait<f64> for NDArray {
            type Output = NDArray;
            fn $method(self, rhs: f64) -> NDArray {
                scalar(&self, $scalar, rhs)
            }
        }
        impl $trait<&NDArray> for f64 {
            type Output = NDArray;
            fn $method(self, rhs: &NDArray) -> NDArray {
                scalar(rhs, $rscalar, self)
            }
        }
        impl $assign<&NDArray> for NDArray {
            fn $assign_method(&mut self, rhs: &NDArray) {
                let name = binary_name(self, rhs, $same, $broadcast);
                assign(self, NDArray::op(name).arg(self).arg(rhs));
            }
        }
        impl $assign<NDArray> for NDArray {
            fn $assign_method(&mut self, rhs: NDArray) {
                <NDArray as $assign<&NDArray>>::$assign_method(self, &rhs);
            }
        }
        impl $assign<f64> for NDArray {
            fn $assign_method(&mut self, rhs: f64) {
                assign(
                    self,
                    NDArray::op($scalar).arg(self).attr("scalar", py_float(rhs)),
                );
            }
        }
    };
}

arithmetic!(
    Add,
    add,
    AddAssign,
    add_assign,
    "elemwise_add",
    "broadcast_add",
    "_plus_scalar",
    "_plus_scalar"
);
arithmetic!(
    Sub,
    sub,
    SubAssign,
    sub_assign,
    "elemwise_sub",
    "broadcast_sub",
    "_minus_scalar",
    "_rminus_scalar"
);
arithmetic!(
    Mul,
    mul,
    MulAssign,
    mul_assign,
    "elemwise_mul",
    "broadcast_mul",
    "_mul_scalar",
    "_mul_scalar"
);
arithmetic!(
    Div,
    div,
    DivAssign,
    div_assign,
    "elemwise_div",
    "broadcast_div",
    "_div_scalar",
    "_rdiv_scalar"
);
