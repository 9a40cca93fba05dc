//! An optimizer as text, for the servers of an asynchronous store, which run it in their
//! own processes (MXNet pickles the optimizer it sends them).
//!
//! The text is JSON: the registered name and the keyword arguments as given to
//! [`Optimizer::create`], the learning rate now, the parameters' names and their lr/wd
//! multipliers from every source. It carries no states or update counts: the servers'
//! copy starts from `begin_num_update` with fresh states, as MXNet's does.

use super::{Mults, Optimizer};
use crate::{Error, Result};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

impl Optimizer {
    /// This optimizer's description, from which [`Optimizer::from_spec`] makes the same.
    pub fn spec(&self) -> String {
        let names: Map<String, Value> = (self.names.iter())
            .map(|(i, n)| (i.to_string(), json!(n)))
            .collect();
        json!({
            "optimizer": self.def.name,
            "kwargs": self.kwargs,
            "learning_rate": self.lr,
            "names": names,
            "lr_mult": mults_json(&self.lr_mult),
            "wd_mult": mults_json(&self.wd_mult),
        })
        .to_string()
    }

    /// The optimizer [`Optimizer::spec`] describes.
    pub fn from_spec(spec: &str) -> Result<Optimizer> {
        let bad = |why: &str| Error::Input(format!("an optimizer's description: {why}"));
        let value: Value = serde_json::from_str(spec).map_err(|e| bad(&e.to_string()))?;
        let name = value["optimizer"].as_str().ok_or_else(|| bad("no name"))?;
        let kwargs: Vec<(String, String)> = serde_json::from_value(value["kwargs"].clone())
            .map_err(|e| bad(&format!("kwargs: {e}")))?;
        let kwargs: Vec<(&str, &str)> = (kwargs.iter())
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let mut optimizer = Optimizer::create(name, &kwargs)?;
        optimizer.lr = value["learning_rate"]
            .as_f64()
            .ok_or_else(|| bad("no learning rate"))?;
        let names: HashMap<String, String> = serde_json::from_value(value["names"].clone())
            .map_err(|e| bad(&format!("names: {e}")))?;
        for (index, name) in names {
            let index = index.parse().map_err(|_| bad("a name's index"))?;
            optimizer.names.insert(index, name);
        }
        optimizer.lr_mult = mults_from(&value["lr_mult"]).ok_or_else(|| bad("lr_mult"))?;
        optimizer.wd_mult = mults_from(&value["wd_mult"]).ok_or_else(|| bad("wd_mult"))?;
        Ok(optimizer)
    }
}

fn mults_json(mults: &Mults) -> Value {
    let by_index: Map<String, Value> = (mults.by_index.iter())
        .map(|(i, m)| (i.to_string(), json!(m)))
        .collect();
    json!({
        "by_index": by_index,
        "by_name": mults.by_name,
        "from_attrs": mults.from_attrs,
    })
}

fn mults_from(value: &Value) -> Option<Mults> {
    let by_index: HashMap<String, f64> = serde_json::from_value(value["by_index"].clone()).ok()?;
    Some(Mults {
        by_index: (by_index.into_iter())
            .map(|(i, m)| Some((i.parse().ok()?, m)))
            .collect::<Option<_>>()?,
        by_name: serde_json::from_value(value["by_name"].clone()).ok()?,
        from_attrs: serde_json::from_value(value["from_attrs"].clone()).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_runtime::NDArray;

    #[test]
    fn a_spec_makes_the_same_optimizer() {
        let kwargs = [
            ("learning_rate", "0.01"),
            ("wd", "0.1"),
            ("clip_gradient", "0.5"),
            ("lr_scheduler", "factor(step=2,factor=0.5)"),
        ];
        let mut sent = Optimizer::create("adam", &kwargs).unwrap();
        sent.set_param_names([(0, "fc_weight"), (1, "fc_bias"), (2, "bn_gamma")]);
        sent.set_lr_mult("fc_bias", 2.0);
        sent.set_wd_mult_index(0, 0.5);
        let mut made = Optimizer::from_spec(&sent.spec()).unwrap();
        assert_eq!(made.name(), "adam");
        assert_eq!(made.learning_rate(), sent.learning_rate());
        for i in 0..4 {
            assert_eq!(made.lr_mult(i), sent.lr_mult(i), "lr_mult {i}");
            assert_eq!(made.wd_mult(i), sent.wd_mult(i), "wd_mult {i}");
        }
        // The same updates, step after step (the schedule included).
        let start = [0.5f32, -1.0, 2.0, 0.25];
        let (a, b) = (
            NDArray::from_slice(&start, &[4]).unwrap(),
            NDArray::from_slice(&start, &[4]).unwrap(),
        );
        for step in 0..4 {
            let g: Vec<f32> = (0..4).map(|i| (i + step) as f32 * 0.3 - 0.4).collect();
            let g = NDArray::from_slice(&g, &[4]).unwrap();
            sent.update(1, &a, &g).unwrap();
            made.update(1, &b, &g).unwrap();
        }
        assert_eq!(a.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap());
        assert!(Optimizer::from_spec("{}").is_err());
        assert!(Optimizer::from_spec("not json").is_err());
    }
}
