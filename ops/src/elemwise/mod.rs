//! Element-wise operators: unary math, activations, binary arithmetic (same-shape,
//! broadcast and scalar forms). Each is a scalar [`Expr`](crate::Expr).

mod binary;
mod unary;

pub(crate) use binary::numbered_args;

use crate::{DType, Registry};

/// Numeric storage dtypes (arithmetic runs on all of them).
pub(crate) const NUMERIC: [DType; 8] = [
    DType::F32,
    DType::F64,
    DType::F16,
    DType::BF16,
    DType::U8,
    DType::I32,
    DType::I8,
    DType::I64,
];

pub fn register(r: &mut Registry) {
    unary::register(r);
    binary::register(r);
}
