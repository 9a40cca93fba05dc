//! Devices an array can live on.

use std::fmt;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Device {
    #[default]
    Cpu,
    /// The n-th CUDA device (storage there arrives with the CUDA backend).
    Cuda(usize),
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu(0)"),
            Device::Cuda(n) => write!(f, "gpu({n})"),
        }
    }
}
