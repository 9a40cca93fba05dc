//! File formats kiln shares with MXNet and NumPy.

pub mod atomic;
pub mod fuzz;
pub mod json;
pub mod npy;
pub mod params;
