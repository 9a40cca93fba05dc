//! `Xavier(rnd_type="uniform", factor_type="avg", magnitude=3)` (Glorot & Bengio, 2010)
//! and `MSRAPrelu(factor_type="avg", slope=0.25)` (He et al., 2015), MXNet's formulas:
//! with `hw` the product of the dimensions after the second (1 for a matrix),
//! fan_in = shape[1]·hw, fan_out = shape[0]·hw, factor = (fan_in + fan_out)/2, fan_in or
//! fan_out, scale = sqrt(magnitude / factor); uniform draws U[-scale, scale), gaussian
//! N(0, scale²). MSRAPrelu is Xavier gaussian with magnitude 2/(1 + slope²). A shape of
//! fewer than two dimensions is an error, as in MXNet.

use super::{shape_error, write, InitDesc, Initializer, Rng};
use crate::spec::py_number;
use crate::Result;
use kiln_runtime::NDArray;

/// How Xavier samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RndType {
    Uniform,
    Gaussian,
}

/// Which fan Xavier divides the magnitude by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactorType {
    Avg,
    In,
    Out,
}

impl RndType {
    pub fn as_str(self) -> &'static str {
        match self {
            RndType::Uniform => "uniform",
            RndType::Gaussian => "gaussian",
        }
    }
}

impl FactorType {
    pub fn as_str(self) -> &'static str {
        match self {
            FactorType::Avg => "avg",
            FactorType::In => "in",
            FactorType::Out => "out",
        }
    }
}

/// "Xavier" initialization.
#[derive(Clone, Debug, PartialEq)]
pub struct Xavier {
    pub rnd_type: RndType,
    pub factor_type: FactorType,
    pub magnitude: f64,
    pub(crate) magnitude_text: Option<String>,
}

impl Default for Xavier {
    fn default() -> Xavier {
        Xavier::new(RndType::Uniform, FactorType::Avg, 3.0)
    }
}

impl Xavier {
    pub fn new(rnd_type: RndType, factor_type: FactorType, magnitude: f64) -> Xavier {
        // MXNet's default magnitude is the integer 3, which `dumps` writes as `3`.
        let magnitude_text = (magnitude == 3.0).then(|| "3".to_string());
        Xavier {
            rnd_type,
            factor_type,
            magnitude,
            magnitude_text,
        }
    }

    /// The bound (uniform) or standard deviation (gaussian) for an array of `shape`.
    pub fn scale(&self, what: &str, desc: &InitDesc, arr: &NDArray) -> Result<f64> {
        let shape = arr.shape();
        if shape.len() < 2 {
            return Err(shape_error(
                what,
                desc,
                arr,
                "cannot be initialized: it needs at least 2 dimensions",
            ));
        }
        let hw: f64 = shape[2..].iter().map(|&d| d as f64).product();
        let (fan_in, fan_out) = (shape[1] as f64 * hw, shape[0] as f64 * hw);
        let factor = match self.factor_type {
            FactorType::Avg => (fan_in + fan_out) / 2.0,
            FactorType::In => fan_in,
            FactorType::Out => fan_out,
        };
        if factor == 0.0 {
            return Err(shape_error(what, desc, arr, "has no elements to scale by"));
        }
        Ok((self.magnitude / factor).sqrt())
    }

    fn draw(&self, what: &str, desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        let scale = self.scale(what, desc, arr)?;
        let n = arr.len();
        let values = match self.rnd_type {
            RndType::Uniform => rng.uniform(-scale, scale, n),
            RndType::Gaussian => rng.normal(0.0, scale, n),
        };
        write(arr, &values)
    }
}

impl Initializer for Xavier {
    fn name(&self) -> &'static str {
        "xavier"
    }

    fn kwargs(&self) -> Vec<(&'static str, String)> {
        vec![
            ("rnd_type", format!("\"{}\"", self.rnd_type.as_str())),
            ("factor_type", format!("\"{}\"", self.factor_type.as_str())),
            (
                "magnitude",
                py_number(self.magnitude_text.as_deref(), self.magnitude),
            ),
        ]
    }

    fn init_weight(&self, desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        self.draw("xavier", desc, arr, rng)
    }
}

/// MSRA initialization for PReLU networks: Xavier gaussian, magnitude 2/(1 + slope²).
#[derive(Clone, Debug, PartialEq)]
pub struct MSRAPrelu {
    pub factor_type: FactorType,
    pub slope: f64,
    pub(crate) slope_text: Option<String>,
}

impl Default for MSRAPrelu {
    fn default() -> MSRAPrelu {
        MSRAPrelu::new(FactorType::Avg, 0.25)
    }
}

impl MSRAPrelu {
    pub fn new(factor_type: FactorType, slope: f64) -> MSRAPrelu {
        MSRAPrelu {
            factor_type,
            slope,
            slope_text: None,
        }
    }

    /// The Xavier initializer it is.
    pub fn xavier(&self) -> Xavier {
        Xavier {
            rnd_type: RndType::Gaussian,
            factor_type: self.factor_type,
            magnitude: 2.0 / (1.0 + self.slope * self.slope),
            magnitude_text: None,
        }
    }
}

impl Initializer for MSRAPrelu {
    fn name(&self) -> &'static str {
        "msraprelu"
    }

    fn kwargs(&self) -> Vec<(&'static str, String)> {
        vec![
            ("factor_type", format!("\"{}\"", self.factor_type.as_str())),
            ("slope", py_number(self.slope_text.as_deref(), self.slope)),
        ]
    }

    fn init_weight(&self, desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        self.xavier().draw("msraprelu", desc, arr, rng)
    }
}
