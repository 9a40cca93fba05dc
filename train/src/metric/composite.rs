//! Metrics that are not about labels: `Composite` (several metrics updated together),
//! `Loss` (the mean of the outputs themselves) and `CustomMetric` (a Rust closure with
//! MXNet's `feval` semantics).

use super::{check_count, EvalMetric, HostArray, Stats};
use crate::{Error, Result};
use std::fmt;

/// Several metrics updated with the same batches; `get` lists each child's pairs.
#[derive(Default)]
pub struct Composite {
    name: String,
    metrics: Vec<Box<dyn EvalMetric>>,
}

impl fmt::Debug for Composite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Composite")
            .field("name", &self.name)
            .field(
                "metrics",
                &self.metrics.iter().map(|m| m.name()).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Composite {
    pub fn new(name: &str) -> Composite {
        Composite {
            name: name.into(),
            metrics: Vec::new(),
        }
    }

    pub fn add(&mut self, metric: Box<dyn EvalMetric>) {
        self.metrics.push(metric);
    }

    pub fn metrics(&self) -> &[Box<dyn EvalMetric>] {
        &self.metrics
    }
}

impl EvalMetric for Composite {
    fn name(&self) -> String {
        self.metrics
            .iter()
            .map(|m| m.name())
            .collect::<Vec<_>>()
            .join(",")
    }

    fn update_host(&mut self, labels: &[HostArray], preds: &[HostArray]) -> Result<()> {
        self.metrics
            .iter_mut()
            .try_for_each(|m| m.update_host(labels, preds))
    }

    fn get(&self) -> Vec<(String, f64)> {
        self.metrics.iter().flat_map(|m| m.get()).collect()
    }

    fn get_global(&self) -> Vec<(String, f64)> {
        self.metrics.iter().flat_map(|m| m.get_global()).collect()
    }

    fn reset(&mut self) {
        self.metrics.iter_mut().for_each(|m| m.reset());
    }

    fn reset_local(&mut self) {
        self.metrics.iter_mut().for_each(|m| m.reset_local());
    }
}

/// The mean of the prediction arrays' values (a network whose outputs are losses);
/// labels are ignored. Also registered as `torch` and `caffe`.
#[derive(Clone, Debug)]
pub struct Loss {
    name: String,
    stats: Stats,
}

impl Loss {
    pub fn new(name: &str) -> Loss {
        Loss {
            name: name.into(),
            stats: Stats::default(),
        }
    }
}

impl Default for Loss {
    fn default() -> Loss {
        Loss::new("loss")
    }
}

impl EvalMetric for Loss {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn update_host(&mut self, _labels: &[HostArray], preds: &[HostArray]) -> Result<()> {
        for p in preds {
            self.stats.add(p.data.iter().sum(), p.len() as f64);
        }
        Ok(())
    }

    mean_metric_readings!();
}

/// What a custom evaluation function returns for one (label, prediction) pair, as
/// MXNet's `feval` may: a value (counted as one instance) or a sum with its count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CustomValue {
    Value(f64),
    SumCount(f64, f64),
}

impl From<f64> for CustomValue {
    fn from(v: f64) -> CustomValue {
        CustomValue::Value(v)
    }
}

impl From<(f64, f64)> for CustomValue {
    fn from((s, n): (f64, f64)) -> CustomValue {
        CustomValue::SumCount(s, n)
    }
}

/// The closure's failure is a message; `update` returns it as an input error naming the
/// metric.
type Feval = Box<dyn FnMut(&HostArray, &HostArray) -> Result<CustomValue, String> + Send>;

/// A metric computed by a closure `feval(label, pred)` on each pair of a batch.
pub struct CustomMetric {
    name: String,
    feval: Feval,
    allow_extra_outputs: bool,
    stats: Stats,
}

impl fmt::Debug for CustomMetric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CustomMetric")
            .field("name", &self.name)
            .finish()
    }
}

impl CustomMetric {
    /// `feval` returns a value or `(sum, count)` (anything `Into<CustomValue>`), or a
    /// message that `update` returns as [`Error::Input`] naming the metric.
    pub fn new<F, R>(name: &str, mut feval: F) -> CustomMetric
    where
        F: FnMut(&HostArray, &HostArray) -> Result<R, String> + Send + 'static,
        R: Into<CustomValue>,
    {
        CustomMetric {
            name: name.into(),
            feval: Box::new(move |l, p| feval(l, p).map(Into::into)),
            allow_extra_outputs: false,
            stats: Stats::default(),
        }
    }

    /// Allows more prediction arrays than label arrays (an RNN's states among its
    /// outputs): the extra ones are not evaluated.
    pub fn allow_extra_outputs(mut self, allow: bool) -> Self {
        self.allow_extra_outputs = allow;
        self
    }
}

impl EvalMetric for CustomMetric {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn update_host(&mut self, labels: &[HostArray], preds: &[HostArray]) -> Result<()> {
        if !self.allow_extra_outputs {
            check_count(&self.name, labels.len(), preds.len())?;
        }
        for (label, pred) in labels.iter().zip(preds) {
            let value = (self.feval)(label, pred)
                .map_err(|e| Error::Input(format!("metric {}: {e}", self.name)))?;
            match value {
                CustomValue::Value(v) => self.stats.add(v, 1.0),
                CustomValue::SumCount(s, n) => self.stats.add(s, n),
            }
        }
        Ok(())
    }

    mean_metric_readings!();
}
