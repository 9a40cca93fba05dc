//! File formats kiln shares with MXNet and NumPy.

pub mod atomic;
pub mod json;
pub mod npy;
pub mod params;
