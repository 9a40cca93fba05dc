//! Neural-network operators (FullyConnected, Convolution, Pooling, norms, losses, ...).

use crate::Registry;

pub fn register(_r: &mut Registry) {}
