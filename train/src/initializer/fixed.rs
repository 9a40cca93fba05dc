//! Initializers without randomness: `Zero()`, `One()`, `Constant(value)`, `Bilinear()`
//! (upsampling kernels) and `LSTMBias(forget_bias=1.0)`.

use super::{fill, shape_error, write, InitDesc, Initializer, Rng};
use crate::spec::py_number;
use crate::{Error, Result};
use kiln_ops::shape::fmt_shape;
use kiln_runtime::NDArray;

/// Weights 0 (registered as `zero` and `zeros`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Zero;

impl Initializer for Zero {
    fn name(&self) -> &'static str {
        "zero"
    }
    fn kwargs(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    fn init_weight(&self, _: &InitDesc, arr: &NDArray, _: &mut Rng) -> Result<()> {
        fill(arr, 0.0)
    }
}

/// Weights 1 (registered as `one` and `ones`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct One;

impl Initializer for One {
    fn name(&self) -> &'static str {
        "one"
    }
    fn kwargs(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    fn init_weight(&self, _: &InitDesc, arr: &NDArray, _: &mut Rng) -> Result<()> {
        fill(arr, 1.0)
    }
}

/// Weights set to a value: a scalar, or an array broadcast to the weight's shape as
/// numpy's `arr[:] = value` broadcasts it (trailing dimensions aligned, 1 stretches).
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    /// The value's shape (empty for a scalar) and its values, row-major.
    pub shape: Vec<usize>,
    pub values: Vec<f64>,
    /// The scalar as written, for `dumps`.
    pub(crate) text: Option<String>,
}

impl Constant {
    pub fn new(value: f64) -> Constant {
        Constant {
            shape: Vec::new(),
            values: vec![value],
            text: None,
        }
    }

    /// An array value of `shape`.
    pub fn array(shape: &[usize], values: Vec<f64>) -> Result<Constant> {
        if shape.iter().product::<usize>() != values.len() {
            return Err(Error::Input(format!(
                "initializer constant: {} values cannot fill shape {}",
                values.len(),
                fmt_shape(shape)
            )));
        }
        Ok(Constant {
            shape: shape.to_vec(),
            values,
            text: None,
        })
    }

    fn json_value(&self) -> String {
        fn nested(shape: &[usize], values: &[f64]) -> String {
            match shape.split_first() {
                None => kiln_ops::param::py_float(values[0]),
                Some((&d, rest)) => {
                    let step = rest.iter().product::<usize>();
                    let items: Vec<String> = (0..d)
                        .map(|i| nested(rest, &values[i * step..(i + 1) * step]))
                        .collect();
                    format!("[{}]", items.join(", "))
                }
            }
        }
        if self.shape.is_empty() {
            py_number(self.text.as_deref(), self.values[0])
        } else {
            nested(&self.shape, &self.values)
        }
    }
}

impl Initializer for Constant {
    fn name(&self) -> &'static str {
        "constant"
    }
    fn kwargs(&self) -> Vec<(&'static str, String)> {
        vec![("value", self.json_value())]
    }
    fn init_weight(&self, desc: &InitDesc, arr: &NDArray, _: &mut Rng) -> Result<()> {
        if self.shape.is_empty() {
            return fill(arr, self.values[0]);
        }
        let out = arr.shape();
        let Some(values) = crate::host::broadcast_to(&self.shape, &self.values, out) else {
            return Err(shape_error(
                "constant",
                desc,
                arr,
                &format!("cannot take a value of shape {}", fmt_shape(&self.shape)),
            ));
        };
        write(arr, &values)
    }
}

/// Bilinear upsampling kernels for a (.., .., height, width) weight: element (y, x) of
/// every kernel is (1 - |x/f - c|)(1 - |y/f - c|) with f = ceil(width/2) and
/// c = (2f - 1 - f mod 2)/(2f) — MXNet's formula, which takes f from the width alone.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bilinear;

impl Initializer for Bilinear {
    fn name(&self) -> &'static str {
        "bilinear"
    }
    fn kwargs(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    fn init_weight(&self, desc: &InitDesc, arr: &NDArray, _: &mut Rng) -> Result<()> {
        let shape = arr.shape();
        if shape.len() != 4 {
            return Err(shape_error(
                "bilinear",
                desc,
                arr,
                "is not a 4-d (out, in, height, width) kernel",
            ));
        }
        let (h, w) = (shape[2], shape[3]);
        let f = (w as f64 / 2.0).ceil();
        let c = (2.0 * f - 1.0 - f % 2.0) / (2.0 * f);
        let values: Vec<f64> = (0..arr.len())
            .map(|i| {
                let x = (i % w) as f64;
                let y = ((i / w) % h) as f64;
                (1.0 - (x / f - c).abs()) * (1.0 - (y / f - c).abs())
            })
            .collect();
        write(arr, &values)
    }
}

/// An LSTM cell's bias: 0, except the forget gate's (the second quarter of the rows)
/// set to `forget_bias` (Jozefowicz et al., 2015).
#[derive(Clone, Debug, PartialEq)]
pub struct LSTMBias {
    pub forget_bias: f64,
    pub(crate) text: Option<String>,
}

impl Default for LSTMBias {
    fn default() -> LSTMBias {
        LSTMBias::new(1.0)
    }
}

impl LSTMBias {
    pub fn new(forget_bias: f64) -> LSTMBias {
        LSTMBias {
            forget_bias,
            text: None,
        }
    }
}

impl Initializer for LSTMBias {
    fn name(&self) -> &'static str {
        "lstmbias"
    }
    fn kwargs(&self) -> Vec<(&'static str, String)> {
        vec![(
            "forget_bias",
            py_number(self.text.as_deref(), self.forget_bias),
        )]
    }
    fn init_weight(&self, desc: &InitDesc, arr: &NDArray, _: &mut Rng) -> Result<()> {
        let Some(&rows) = arr.shape().first() else {
            return Err(shape_error("lstmbias", desc, arr, "has no rows"));
        };
        // MXNet: num_hidden = int(rows / 4); rows [num_hidden, 2·num_hidden) are the
        // forget gate's.
        let hidden = rows / 4;
        let per_row = arr.len().checked_div(rows).unwrap_or(0);
        let mut values = vec![0.0; arr.len()];
        values[hidden * per_row..2 * hidden * per_row].fill(self.forget_bias);
        write(arr, &values)
    }
}
