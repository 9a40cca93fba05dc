//! MXNet's initializers (`python/mxnet/initializer.py`, 1.9.1): what `Module.init_params`
//! fills each parameter with, by MXNet's names, arguments and defaults.
//!
//! Contract:
//! - [`Initializer::init`] is MXNet's `Initializer.__call__` with an `InitDesc` (the path
//!   `Module.init_params` takes): the variable's `__init__` attribute wins — its JSON
//!   (`["zero", {}]`) or name creates another initializer whose *weight* rule fills the
//!   array, whatever the name —; otherwise the name's suffix picks the rule ([`rule`]):
//!   `weight` → the initializer's weight rule, `bias` → 0, `gamma` → 1, `beta` → 0, `min`
//!   → 0, `max` → 1, `weight_quantize`/`bias_quantize`; any other name (`data`,
//!   `bn_moving_mean` without its attribute) is an error naming it.
//! - [`Initializer::init_legacy`] is MXNet's older name-only path (`init(str, arr)`,
//!   [`legacy_rule`]): `upsampling*` → bilinear, `stn_loc*weight` → 0, `stn_loc*bias` →
//!   the identity transform, `moving_mean`/`moving_inv_var`/`moving_avg` → 0,
//!   `moving_var` → 1, then the suffixes above.
//! - Randomness comes from an [`Rng`]: a seed and a counter giving each random array its
//!   own Philox key, with values computed exactly as the `_random_uniform` /
//!   `_random_normal` operators compute them for that key (so `Rng::new(s)`'s first array
//!   equals `random::uniform` after `random::seed(s)`). Same seed, same order of calls →
//!   the same arrays, whatever the thread count. The values are computed on the host and
//!   copied into the array (converted to its dtype), as MXNet's numpy-built ones are.
//! - [`create`] reads a spec (`xavier(rnd_type=gaussian,factor_type=in,magnitude=2)`, a
//!   bare name, or MXNet's JSON), [`Initializer::dumps`] writes MXNet's JSON back.
//!
//! Decisions where MXNet is silent or accidental: [`Orthogonal`] orthonormalizes by
//! Gram–Schmidt instead of taking an SVD factor (the same guarantee, see its docs);
//! [`Mixed`] and [`Load`] are creatable from specs for the command line (MXNet builds them
//! only in Python) but, as in MXNet, not from an `__init__` attribute; arguments outside
//! an initializer's choices (`rnd_type=foo`) are rejected when it is created, not at the
//! first array.

mod combine;
mod fixed;
mod orthogonal;
mod random;
mod registry;
mod rng;
mod xavier;

pub use combine::{Load, Mixed};
pub use fixed::{Bilinear, Constant, LSTMBias, One, Zero};
pub use orthogonal::{Orthogonal, RandType};
pub use random::{Normal, Uniform};
pub use registry::{create, create_from_attr, from_spec, NAMES};
pub use rng::Rng;
pub use xavier::{FactorType, MSRAPrelu, RndType, Xavier};

use crate::{Error, Result};
use kiln_ops::shape::fmt_shape;
use kiln_runtime::{Device, NDArray};
use std::collections::BTreeMap;
use std::fmt;

/// What is being initialized: MXNet's `InitDesc` (the variable's name and its attributes;
/// `__init__` is the one read here).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InitDesc {
    pub name: String,
    pub attrs: BTreeMap<String, String>,
}

impl InitDesc {
    pub fn new(name: impl Into<String>) -> InitDesc {
        InitDesc {
            name: name.into(),
            attrs: BTreeMap::new(),
        }
    }

    /// With the attribute `key` set (e.g. `__init__` = `["zero", {}]`).
    pub fn with_attr(mut self, key: impl Into<String>, value: impl Into<String>) -> InitDesc {
        self.attrs.insert(key.into(), value.into());
        self
    }
}

/// Which of an initializer's rules a name (or attribute) selects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The `__init__` attribute's initializer, its weight rule.
    Attr(String),
    Weight,
    Bias,
    Gamma,
    Beta,
    Zero,
    One,
    Bilinear,
    /// The spatial transformer's localisation bias: the identity transform.
    LocBias,
    QuantizedWeight,
    QuantizedBias,
}

impl Rule {
    /// MXNet's method name without `_init_` (the fixtures' spelling).
    pub fn method(&self) -> &str {
        match self {
            Rule::Attr(_) => "attr",
            Rule::Weight => "weight",
            Rule::Bias => "bias",
            Rule::Gamma => "gamma",
            Rule::Beta => "beta",
            Rule::Zero => "zero",
            Rule::One => "one",
            Rule::Bilinear => "bilinear",
            Rule::LocBias => "loc_bias",
            Rule::QuantizedWeight => "quantized_weight",
            Rule::QuantizedBias => "quantized_bias",
        }
    }
}

fn unknown_pattern(name: &str) -> Error {
    Error::Input(format!(
        "unknown initialization pattern for {name:?}: without an __init__ attribute only \
         names ending in weight, bias, gamma (1.0), beta (0.0), min (0.0) or max (1.0) are \
         initialized; give the variable an initializer (its __init__ attribute)"
    ))
}

/// The rule `Initializer.__call__` applies to `desc` (the `InitDesc` path).
pub fn rule(desc: &InitDesc) -> Result<Rule> {
    if let Some(init) = desc.attrs.get("__init__").filter(|s| !s.is_empty()) {
        return Ok(Rule::Attr(init.clone()));
    }
    let n = desc.name.as_str();
    // The order is MXNet's: `weight` before `weight_quantize` never shadows it, since
    // "x_weight_quantize" does not end in "weight".
    Ok(if n.ends_with("weight") {
        Rule::Weight
    } else if n.ends_with("bias") {
        Rule::Bias
    } else if n.ends_with("gamma") {
        Rule::Gamma
    } else if n.ends_with("beta") {
        Rule::Beta
    } else if n.ends_with("min") {
        Rule::Zero
    } else if n.ends_with("max") {
        Rule::One
    } else if n.ends_with("weight_quantize") {
        Rule::QuantizedWeight
    } else if n.ends_with("bias_quantize") {
        Rule::QuantizedBias
    } else {
        return Err(unknown_pattern(n));
    })
}

/// The rule of MXNet's legacy name-only path (`init(name, arr)`).
pub fn legacy_rule(name: &str) -> Result<Rule> {
    let n = name;
    Ok(if n.starts_with("upsampling") {
        Rule::Bilinear
    } else if n.starts_with("stn_loc") && n.ends_with("weight") {
        Rule::Zero
    } else if n.starts_with("stn_loc") && n.ends_with("bias") {
        Rule::LocBias
    } else if n.ends_with("bias") {
        Rule::Bias
    } else if n.ends_with("gamma") {
        Rule::Gamma
    } else if n.ends_with("beta") {
        Rule::Beta
    } else if n.ends_with("weight") {
        Rule::Weight
    } else if n.ends_with("moving_mean")
        || n.ends_with("moving_inv_var")
        || n.ends_with("moving_avg")
    {
        Rule::Zero
    } else if n.ends_with("moving_var") {
        Rule::One
    } else if n.ends_with("min") {
        Rule::Zero
    } else if n.ends_with("max") {
        Rule::One
    } else {
        return Err(unknown_pattern(n));
    })
}

/// An initializer: MXNet's `Initializer` with its `_init_*` methods. Implementors give
/// the weight rule (and their name and arguments); the other rules have MXNet's defaults.
pub trait Initializer: fmt::Debug + Send + Sync {
    /// The registry name (`xavier`), as `dumps` writes it.
    fn name(&self) -> &'static str;

    /// The constructor's arguments as MXNet's `_kwargs` holds them, each value as JSON
    /// text, in MXNet's order.
    fn kwargs(&self) -> Vec<(&'static str, String)>;

    /// MXNet's `Initializer.dumps()`: `["xavier", {"rnd_type": "uniform", ...}]`, the form
    /// of a variable's `__init__` attribute.
    fn dumps(&self) -> String {
        let args: Vec<String> = self
            .kwargs()
            .into_iter()
            .map(|(k, v)| format!("\"{k}\": {v}"))
            .collect();
        format!("[\"{}\", {{{}}}]", self.name(), args.join(", "))
    }

    /// The weight rule (`_init_weight`).
    fn init_weight(&self, desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()>;

    fn init_bias(&self, _desc: &InitDesc, arr: &NDArray, _rng: &mut Rng) -> Result<()> {
        fill(arr, 0.0)
    }

    fn init_gamma(&self, _desc: &InitDesc, arr: &NDArray, _rng: &mut Rng) -> Result<()> {
        fill(arr, 1.0)
    }

    fn init_beta(&self, _desc: &InitDesc, arr: &NDArray, _rng: &mut Rng) -> Result<()> {
        fill(arr, 0.0)
    }

    /// Initializes `arr` for `desc` (MXNet's `__call__` with an `InitDesc`).
    fn init(&self, desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        apply(self, &rule(desc)?, desc, arr, rng)
    }

    /// Initializes `arr` by its name alone (MXNet's legacy `__call__(str, arr)`).
    fn init_legacy(&self, name: &str, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        let desc = InitDesc::new(name);
        apply(self, &legacy_rule(name)?, &desc, arr, rng)
    }
}

/// Runs `rule` of `init` on `arr`.
pub fn apply<I: Initializer + ?Sized>(
    init: &I,
    rule: &Rule,
    desc: &InitDesc,
    arr: &NDArray,
    rng: &mut Rng,
) -> Result<()> {
    match rule {
        Rule::Attr(spec) => create_from_attr(spec)?.init_weight(desc, arr, rng),
        Rule::Weight => init.init_weight(desc, arr, rng),
        Rule::Bias => init.init_bias(desc, arr, rng),
        Rule::Gamma => init.init_gamma(desc, arr, rng),
        Rule::Beta => init.init_beta(desc, arr, rng),
        Rule::Zero | Rule::QuantizedBias => fill(arr, 0.0),
        Rule::One => fill(arr, 1.0),
        Rule::Bilinear => Bilinear.init_weight(desc, arr, rng),
        Rule::LocBias => {
            if arr.shape().first() != Some(&6) || arr.len() != 6 {
                return Err(shape_error(
                    "stn_loc bias",
                    desc,
                    arr,
                    "needs 6 values (a 2x3 affine transform)",
                ));
            }
            write(arr, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0])
        }
        Rule::QuantizedWeight => {
            // MXNet draws one integer in [-127, 127) (`random.randint` without a shape)
            // and fills the whole array with it.
            let key = rng.key();
            let v = (kiln_ops::random::uniform(key, 0, 0) * 254.0).floor() - 127.0;
            fill(arr, v)
        }
    }
}

/// An error about `arr`'s shape for `what` (an initializer) and `desc`'s variable.
pub(crate) fn shape_error(what: &str, desc: &InitDesc, arr: &NDArray, why: &str) -> Error {
    Error::Input(format!(
        "initializer {what}: {} of shape {} {why}",
        if desc.name.is_empty() {
            "an array".to_string()
        } else {
            format!("{:?}", desc.name)
        },
        fmt_shape(arr.shape())
    ))
}

/// Fills `arr` with `value` (converted to its dtype).
pub fn fill(arr: &NDArray, value: f64) -> Result<()> {
    let src = NDArray::full(arr.shape(), value, arr.dtype(), Device::Cpu)?;
    arr.copy_from(&src)?;
    Ok(())
}

/// Writes `values` (row-major, as many as `arr` holds) into `arr`, converted to its dtype.
pub fn write(arr: &NDArray, values: &[f64]) -> Result<()> {
    let src = NDArray::from_slice(values, arr.shape())?;
    arr.copy_from(&src)?;
    Ok(())
}
