//! Element-wise operators: unary math, activations, binary arithmetic (same-shape,
//! broadcast and scalar forms). Each is a scalar [`Expr`](crate::Expr).

mod binary;
mod grad;
mod unary;

pub use grad::backward_elemwise_attrs;

pub(crate) use binary::numbered_args;

use crate::Registry;

pub fn register(r: &mut Registry) {
    unary::register(r);
    binary::register(r);
    grad::register(r);
}
