//! Element-wise operators: unary math, activations, binary arithmetic (same-shape,
//! broadcast and scalar forms). Each is a scalar [`Expr`](crate::Expr).

mod binary;
mod unary;

pub(crate) use binary::numbered_args;

use crate::Registry;

pub fn register(r: &mut Registry) {
    unary::register(r);
    binary::register(r);
}
