//! `Uniform(scale=0.07)`: U[-scale, scale); `Normal(sigma=0.01)`: N(0, sigma²).

use super::{write, InitDesc, Initializer, Rng};
use crate::spec::py_number;
use crate::Result;
use kiln_runtime::NDArray;

/// Weights uniform in [-scale, scale).
#[derive(Clone, Debug, PartialEq)]
pub struct Uniform {
    pub scale: f64,
    /// The argument as written (`1` stays an integer in `dumps`).
    pub(crate) text: Option<String>,
}

impl Uniform {
    pub fn new(scale: f64) -> Uniform {
        Uniform { scale, text: None }
    }
}

impl Default for Uniform {
    fn default() -> Uniform {
        Uniform::new(0.07)
    }
}

impl Initializer for Uniform {
    fn name(&self) -> &'static str {
        "uniform"
    }

    fn kwargs(&self) -> Vec<(&'static str, String)> {
        vec![("scale", py_number(self.text.as_deref(), self.scale))]
    }

    fn init_weight(&self, _desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        write(arr, &rng.uniform(-self.scale, self.scale, arr.len()))
    }
}

/// Weights normal with mean 0 and standard deviation `sigma`.
#[derive(Clone, Debug, PartialEq)]
pub struct Normal {
    pub sigma: f64,
    pub(crate) text: Option<String>,
}

impl Normal {
    pub fn new(sigma: f64) -> Normal {
        Normal { sigma, text: None }
    }
}

impl Default for Normal {
    fn default() -> Normal {
        Normal::new(0.01)
    }
}

impl Initializer for Normal {
    fn name(&self) -> &'static str {
        "normal"
    }

    fn kwargs(&self) -> Vec<(&'static str, String)> {
        vec![("sigma", py_number(self.text.as_deref(), self.sigma))]
    }

    fn init_weight(&self, _desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        write(arr, &rng.normal(0.0, self.sigma, arr.len()))
    }
}
