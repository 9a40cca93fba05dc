//! Initializers made of others: `Mixed(patterns, initializers)` (the first pattern
//! matching a parameter's name chooses) and `Load(param, default_init)` (arrays from a
//! `.params` file or a map, `arg:`/`aux:` prefixes dropped, the default initializer for
//! the rest). Both pass the whole call on — name dispatch included — as MXNet's do.

use super::{InitDesc, Initializer, Rng};
use crate::{Error, Result};
use kiln_ops::shape::fmt_shape;
use kiln_runtime::NDArray;
use regex::Regex;
use std::collections::BTreeMap;
use std::path::Path;

/// One initializer per regular expression; a name takes the first whose pattern matches
/// at its start (Python's `re.match`).
#[derive(Debug)]
pub struct Mixed {
    map: Vec<(String, Regex, Box<dyn Initializer>)>,
}

impl Mixed {
    pub fn new(patterns: &[&str], initializers: Vec<Box<dyn Initializer>>) -> Result<Mixed> {
        if patterns.len() != initializers.len() {
            return Err(Error::Input(format!(
                "initializer mixed: {} patterns for {} initializers",
                patterns.len(),
                initializers.len()
            )));
        }
        let map = patterns
            .iter()
            .zip(initializers)
            .map(|(p, init)| {
                // Anchored at the start only, as `re.match` is.
                let re = Regex::new(&format!(r"\A(?:{p})"))
                    .map_err(|e| Error::Input(format!("initializer mixed: pattern {p:?}: {e}")))?;
                Ok((p.to_string(), re, init))
            })
            .collect::<Result<_>>()?;
        Ok(Mixed { map })
    }

    fn choose(&self, name: &str) -> Result<&dyn Initializer> {
        self.map
            .iter()
            .find(|(_, re, _)| re.is_match(name))
            .map(|(_, _, init)| init.as_ref())
            .ok_or_else(|| {
                Error::Input(format!(
                    "initializer mixed: parameter {name:?} matches none of the patterns {:?}; \
                     add \".*\" last with a default initializer",
                    self.map
                        .iter()
                        .map(|(p, _, _)| p.as_str())
                        .collect::<Vec<_>>()
                ))
            })
    }
}

impl Initializer for Mixed {
    fn name(&self) -> &'static str {
        "mixed"
    }
    fn kwargs(&self) -> Vec<(&'static str, String)> {
        let patterns: Vec<String> = self
            .map
            .iter()
            .map(|(p, _, _)| serde_json::Value::from(p.as_str()).to_string())
            .collect();
        let inits: Vec<String> = self.map.iter().map(|(_, _, i)| i.dumps()).collect();
        vec![
            ("patterns", format!("[{}]", patterns.join(", "))),
            ("initializers", format!("[{}]", inits.join(", "))),
        ]
    }
    fn init_weight(&self, desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        self.choose(&desc.name)?.init_weight(desc, arr, rng)
    }
    fn init(&self, desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        self.choose(&desc.name)?.init(desc, arr, rng)
    }
    fn init_legacy(&self, name: &str, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        self.choose(name)?.init_legacy(name, arr, rng)
    }
}

/// Arrays loaded by name, a default initializer for the others.
#[derive(Debug)]
pub struct Load {
    params: BTreeMap<String, NDArray>,
    default_init: Option<Box<dyn Initializer>>,
    /// Where the arrays came from, for `dumps` and errors.
    source: String,
}

impl Load {
    /// From named arrays; `arg:`/`aux:` prefixes are dropped.
    pub fn new(
        params: impl IntoIterator<Item = (String, NDArray)>,
        default_init: Option<Box<dyn Initializer>>,
    ) -> Load {
        let params = params
            .into_iter()
            .map(|(name, arr)| {
                let name = match name.strip_prefix("arg:").or(name.strip_prefix("aux:")) {
                    Some(rest) => rest.to_string(),
                    None => name,
                };
                (name, arr)
            })
            .collect();
        Load {
            params,
            default_init,
            source: "arrays".into(),
        }
    }

    /// From a `.params` file (`mx.nd.save`'s format).
    pub fn from_file(
        path: impl AsRef<Path>,
        default_init: Option<Box<dyn Initializer>>,
    ) -> Result<Load> {
        let path = path.as_ref();
        let mut load = Load::new(NDArray::load(path)?, default_init);
        load.source = path.display().to_string();
        Ok(load)
    }

    fn call(
        &self,
        name: &str,
        arr: &NDArray,
        fallback: impl FnOnce(&dyn Initializer) -> Result<()>,
    ) -> Result<()> {
        match self.params.get(name) {
            Some(src) => {
                if src.shape() != arr.shape() {
                    return Err(Error::Input(format!(
                        "initializer load: parameter {name:?} cannot be initialized from {}: \
                         shape mismatch, target {} vs loaded {}",
                        self.source,
                        fmt_shape(arr.shape()),
                        fmt_shape(src.shape())
                    )));
                }
                arr.copy_from(src)?;
                Ok(())
            }
            None => match &self.default_init {
                Some(init) => fallback(init.as_ref()),
                None => Err(Error::Input(format!(
                    "initializer load: cannot initialize {name:?}: not found in {} and no \
                     default initializer is given",
                    self.source
                ))),
            },
        }
    }
}

impl Initializer for Load {
    fn name(&self) -> &'static str {
        "load"
    }
    fn kwargs(&self) -> Vec<(&'static str, String)> {
        let mut kw = vec![(
            "param",
            serde_json::Value::from(self.source.as_str()).to_string(),
        )];
        if let Some(d) = &self.default_init {
            kw.push(("default_init", d.dumps()));
        }
        kw
    }
    fn init_weight(&self, desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        self.call(&desc.name, arr, |d| d.init_weight(desc, arr, rng))
    }
    fn init(&self, desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        self.call(&desc.name, arr, |d| d.init(desc, arr, rng))
    }
    fn init_legacy(&self, name: &str, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        self.call(name, arr, |d| d.init_legacy(name, arr, rng))
    }
}
