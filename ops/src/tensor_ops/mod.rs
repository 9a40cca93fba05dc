//! Shape and data-movement operators, reductions and products.

use crate::Registry;

pub fn register(_r: &mut Registry) {}
