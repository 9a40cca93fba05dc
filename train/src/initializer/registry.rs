//! Creating initializers by MXNet's registry names (lowercased, as its registry does) from
//! a spec or an `__init__` attribute.

use super::orthogonal::RandType;
use super::{
    Bilinear, Constant, FactorType, Initializer, LSTMBias, Load, MSRAPrelu, Mixed, Normal, One,
    Orthogonal, RndType, Uniform, Xavier, Zero,
};
use crate::spec::{Args, Spec, Value};
use crate::{Error, Result};

/// Every name [`create`] accepts: MXNet 1.9.1's registry and aliases (less `fusedrnn`),
/// then `mixed` and `load`, which MXNet builds only in Python.
pub const NAMES: &[&str] = &[
    "bilinear",
    "constant",
    "lstmbias",
    "msraprelu",
    "normal",
    "one",
    "ones",
    "orthogonal",
    "uniform",
    "xavier",
    "zero",
    "zeros",
    "mixed",
    "load",
];

const KIND: &str = "initializer";

/// An initializer from a spec: `xavier(rnd_type=gaussian,factor_type=in,magnitude=2)`,
/// `uniform(0.1)`, a bare name, or MXNet's JSON (`["zero", {}]`).
pub fn create(spec: &str) -> Result<Box<dyn Initializer>> {
    from_spec(&Spec::parse(spec, KIND)?)
}

/// The initializer of a variable's `__init__` attribute: MXNet's JSON or a registered
/// name; `mixed` and `load` are not registered in MXNet, so not accepted here.
pub fn create_from_attr(attr: &str) -> Result<Box<dyn Initializer>> {
    let spec = Spec::parse(attr, KIND)?;
    if matches!(spec.name.to_lowercase().as_str(), "mixed" | "load") {
        return Err(unregistered(&spec.name));
    }
    from_spec(&spec)
}

fn unregistered(name: &str) -> Error {
    Error::Input(format!(
        "initializer {name:?} is not registered (known: {})",
        NAMES.join(", ")
    ))
}

fn number_text(a: &Args, key: &str) -> Result<Option<String>> {
    Ok(a.text(key)?.map(str::to_string))
}

/// A positive-or-zero finite number (scales and deviations).
fn non_negative(a: &Args, key: &str, default: f64) -> Result<f64> {
    let x = a.number(key, default)?;
    if x < 0.0 {
        return Err(a.invalid(key, "must not be negative"));
    }
    Ok(x)
}

/// An initializer from a parsed spec.
pub fn from_spec(spec: &Spec) -> Result<Box<dyn Initializer>> {
    let name = spec.name.to_lowercase();
    Ok(match name.as_str() {
        "zero" | "zeros" => {
            spec.args(KIND, &[])?;
            Box::new(Zero)
        }
        "one" | "ones" => {
            spec.args(KIND, &[])?;
            Box::new(One)
        }
        "uniform" => {
            let a = spec.args(KIND, &["scale"])?;
            Box::new(Uniform {
                scale: non_negative(&a, "scale", 0.07)?,
                text: number_text(&a, "scale")?,
            })
        }
        "normal" => {
            let a = spec.args(KIND, &["sigma"])?;
            Box::new(Normal {
                sigma: non_negative(&a, "sigma", 0.01)?,
                text: number_text(&a, "sigma")?,
            })
        }
        "constant" => {
            let a = spec.args(KIND, &["value"])?;
            Box::new(constant(&a)?)
        }
        "xavier" => Box::new(Xavier::from_spec(spec)?),
        "msraprelu" => Box::new(MSRAPrelu::from_spec(spec)?),
        "orthogonal" => {
            let a = spec.args(KIND, &["scale", "rand_type"])?;
            let rand_type = match a.choice("rand_type", &["uniform", "normal"], "uniform")? {
                "normal" => RandType::Normal,
                _ => RandType::Uniform,
            };
            Box::new(Orthogonal {
                scale: a.number("scale", 1.414)?,
                rand_type,
                scale_text: number_text(&a, "scale")?,
            })
        }
        "bilinear" => {
            spec.args(KIND, &[])?;
            Box::new(Bilinear)
        }
        "lstmbias" => {
            let a = spec.args(KIND, &["forget_bias"])?;
            Box::new(LSTMBias {
                forget_bias: a.number("forget_bias", 1.0)?,
                text: number_text(&a, "forget_bias")?,
            })
        }
        "mixed" => {
            let a = spec.args(KIND, &["patterns", "initializers"])?;
            let patterns = match a.require("patterns")? {
                Value::List(items) => items
                    .iter()
                    .map(|v| match v {
                        Value::Text(t) => Ok(t.as_str()),
                        _ => Err(a.invalid("patterns", "expected a list of patterns")),
                    })
                    .collect::<Result<Vec<_>>>()?,
                _ => return Err(a.invalid("patterns", "expected a list [PATTERN, ...]")),
            };
            let inits = match a.require("initializers")? {
                Value::List(items) => items.iter().map(nested).collect::<Result<Vec<_>>>()?,
                _ => return Err(a.invalid("initializers", "expected a list [INITIALIZER, ...]")),
            };
            Box::new(Mixed::new(&patterns, inits)?)
        }
        "load" => {
            let a = spec.args(KIND, &["param", "default_init", "verbose"])?;
            let Some(path) = a.text("param")? else {
                return Err(a.invalid("param", "missing: the .params file to load"));
            };
            a.bool("verbose", false)?;
            let default = a.get("default_init").map(nested).transpose()?;
            Box::new(Load::from_file(path, default)?)
        }
        _ => return Err(unregistered(&spec.name)),
    })
}

/// An initializer given as an argument: a nested spec or a bare name.
fn nested(v: &Value) -> Result<Box<dyn Initializer>> {
    match v {
        Value::Spec(s) => from_spec(s),
        Value::Text(name) => from_spec(&Spec {
            name: name.clone(),
            args: Vec::new(),
        }),
        Value::List(_) => Err(Error::Input(format!(
            "initializer: expected an initializer, got the list {v}"
        ))),
    }
}

fn rnd_type(a: &Args) -> Result<RndType> {
    Ok(
        match a.choice("rnd_type", &["uniform", "gaussian"], "uniform")? {
            "gaussian" => RndType::Gaussian,
            _ => RndType::Uniform,
        },
    )
}

fn factor_type(a: &Args) -> Result<FactorType> {
    Ok(
        match a.choice("factor_type", &["avg", "in", "out"], "avg")? {
            "in" => FactorType::In,
            "out" => FactorType::Out,
            _ => FactorType::Avg,
        },
    )
}

/// `value`: a number, or a nested list of numbers (an array value).
fn constant(a: &Args) -> Result<Constant> {
    fn flatten(v: &Value, shape: &mut Vec<usize>, depth: usize, out: &mut Vec<f64>) -> Option<()> {
        match v {
            Value::Text(t) => {
                if depth != shape.len() {
                    return None;
                }
                out.push(t.parse::<f64>().ok().filter(|x| x.is_finite())?);
            }
            Value::List(items) => {
                if depth == shape.len() {
                    if !out.is_empty() {
                        return None;
                    }
                    shape.push(items.len());
                } else if shape.get(depth) != Some(&items.len()) {
                    return None;
                }
                for item in items {
                    flatten(item, shape, depth + 1, out)?;
                }
            }
            Value::Spec(_) => return None,
        }
        Some(())
    }
    let v = a.require("value")?;
    let (mut shape, mut values) = (Vec::new(), Vec::new());
    if flatten(v, &mut shape, 0, &mut values).is_none() || values.is_empty() {
        return Err(a.invalid(
            "value",
            "expected a finite number or a rectangular list of numbers",
        ));
    }
    let mut c = Constant::array(&shape, values)?;
    if let Value::Text(t) = v {
        c.text = Some(t.clone());
    }
    Ok(c)
}

impl Xavier {
    /// From `xavier(rnd_type=..., factor_type=..., magnitude=...)` (the name is not
    /// checked).
    pub fn from_spec(spec: &Spec) -> Result<Xavier> {
        let a = spec.args(KIND, &["rnd_type", "factor_type", "magnitude"])?;
        let mut x = Xavier::new(
            rnd_type(&a)?,
            factor_type(&a)?,
            non_negative(&a, "magnitude", 3.0)?,
        );
        if let Some(t) = number_text(&a, "magnitude")? {
            x.magnitude_text = Some(t);
        }
        Ok(x)
    }
}

impl MSRAPrelu {
    /// From `msraprelu(factor_type=..., slope=...)` (the name is not checked).
    pub fn from_spec(spec: &Spec) -> Result<MSRAPrelu> {
        let a = spec.args(KIND, &["factor_type", "slope"])?;
        Ok(MSRAPrelu {
            factor_type: factor_type(&a)?,
            slope: a.number("slope", 0.25)?,
            slope_text: number_text(&a, "slope")?,
        })
    }
}
