//! MXNet's evaluation metrics (`python/mxnet/metric.py`, 1.9.1), by MXNet's names,
//! arguments and accumulation rules, run on the host.
//!
//! Contract (MXNet's `EvalMetric`): [`EvalMetric::update`] takes lists of label and
//! prediction arrays (kiln NDArrays, read back to the host) and adds to a running
//! `sum_metric` and `num_inst`, and to global copies of both; [`EvalMetric::get`] returns
//! `(name, sum/num)` (NaN before any instance), [`EvalMetric::get_global`] the same over
//! the global counts; [`EvalMetric::reset_local`] clears the local counts only,
//! [`EvalMetric::reset`] both. `get` returns a list of pairs (MXNet's
//! `get_name_value()`): one for a metric, one per child for a [`Composite`].
//!
//! What is averaged per what is MXNet's, quirks included: Accuracy, TopKAccuracy,
//! CrossEntropy, NegativeLogLikelihood and Loss count instances; MAE, MSE and RMSE average
//! each *batch* (array pair) and count batches (so RMSE is a mean of per-batch roots);
//! Perplexity is exp(sum/num) over non-ignored labels; F1, MCC and PearsonCorrelation
//! average per update (`macro`) or over all instances (`micro`).
//!
//! Decisions where MXNet is silent or accidental: bad shapes and unknown names are
//! [`Error::Input`] naming the metric and the shapes (never a panic); a metric
//! argument outside MXNet's documented choices (`average=foo`, which MXNet silently
//! treats as micro) is rejected; TopKAccuracy rejects 1-d predictions (MXNet compares the
//! labels with numpy's partition *indices*, a result of its selection algorithm) and a
//! `top_k` above the number of classes (an error in MXNet too); F1/MCC pair a (n, 1) label
//! with its n predictions elementwise (numpy broadcasting makes MXNet compare every label
//! with every prediction); PearsonCorrelation `micro` reports the same value globally as
//! locally (MXNet's global value stays 0 there). Computations are in f64 where MXNet's
//! are partly in f32, so values agree to about 1e-6 relative.

/// `get`, `get_global`, `reset` and `reset_local` of a metric whose state is a `name` and
/// `stats` (the mean of what its updates add), its value the mean or a function of it.
macro_rules! mean_metric_readings {
    () => {
        mean_metric_readings!(|mean| mean);
    };
    (|$mean:ident| $value:expr) => {
        fn get(&self) -> Vec<(String, f64)> {
            let $mean = self.stats.local();
            vec![(self.name.clone(), $value)]
        }

        fn get_global(&self) -> Vec<(String, f64)> {
            let $mean = self.stats.global();
            vec![(self.name.clone(), $value)]
        }

        fn reset(&mut self) {
            self.stats = Stats::default();
        }

        fn reset_local(&mut self) {
            self.stats.reset_local();
        }
    };
}

mod classification;
mod composite;
mod probability;
mod regression;

pub use classification::{Accuracy, Average, TopKAccuracy, F1, MCC};
pub use composite::{Composite, CustomMetric, CustomValue, Loss};
pub use probability::{CrossEntropy, NegativeLogLikelihood, Perplexity};
pub use regression::{PearsonCorrelation, MAE, MSE, RMSE};

use crate::spec::{Args, Spec};
use crate::{Error, Result};
use kiln_ops::shape::fmt_shape;
use kiln_runtime::NDArray;

/// An array read back to the host: its shape and its values (as f64), row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct HostArray {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

impl HostArray {
    pub fn new(shape: &[usize], data: Vec<f64>) -> Result<HostArray> {
        if shape.iter().product::<usize>() != data.len() {
            return Err(Error::Input(format!(
                "{} values cannot fill shape {}",
                data.len(),
                fmt_shape(shape)
            )));
        }
        Ok(HostArray {
            shape: shape.to_vec(),
            data,
        })
    }

    /// Waits for `arr` and copies its values.
    pub fn read(arr: &NDArray) -> Result<HostArray> {
        Ok(HostArray {
            shape: arr.shape().to_vec(),
            data: arr.to_vec::<f64>()?,
        })
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

/// An evaluation metric (MXNet's `EvalMetric`).
pub trait EvalMetric: Send {
    /// The display name (`accuracy`, `top_k_accuracy_3`); a composite's children's names
    /// joined by commas.
    fn name(&self) -> String;

    /// Adds a batch given as host arrays.
    fn update_host(&mut self, labels: &[HostArray], preds: &[HostArray]) -> Result<()>;

    /// Adds a batch: lists of label and prediction arrays.
    fn update(&mut self, labels: &[NDArray], preds: &[NDArray]) -> Result<()> {
        let labels = labels
            .iter()
            .map(HostArray::read)
            .collect::<Result<Vec<_>>>()?;
        let preds = preds
            .iter()
            .map(HostArray::read)
            .collect::<Result<Vec<_>>>()?;
        self.update_host(&labels, &preds)
    }

    /// (name, value) pairs over the instances since the last reset of either kind.
    fn get(&self) -> Vec<(String, f64)>;

    /// (name, value) pairs over the instances since the last [`EvalMetric::reset`].
    fn get_global(&self) -> Vec<(String, f64)>;

    /// Clears every count.
    fn reset(&mut self);

    /// Clears the local counts, keeping the global ones.
    fn reset_local(&mut self);
}

/// The running sums of MXNet's `EvalMetric`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Stats {
    pub sum: f64,
    pub num: f64,
    pub global_sum: f64,
    pub global_num: f64,
}

impl Stats {
    pub fn add(&mut self, sum: f64, num: f64) {
        self.sum += sum;
        self.num += num;
        self.global_sum += sum;
        self.global_num += num;
    }

    pub fn local(&self) -> f64 {
        ratio(self.sum, self.num)
    }

    pub fn global(&self) -> f64 {
        ratio(self.global_sum, self.global_num)
    }

    pub fn reset_local(&mut self) {
        self.sum = 0.0;
        self.num = 0.0;
    }
}

pub(crate) fn ratio(sum: f64, num: f64) -> f64 {
    if num == 0.0 {
        f64::NAN
    } else {
        sum / num
    }
}

/// MXNet's `check_label_shapes`: as many label arrays as prediction arrays.
pub(crate) fn check_count(metric: &str, labels: usize, preds: usize) -> Result<()> {
    if labels != preds {
        return Err(Error::Input(format!(
            "metric {metric}: {labels} label arrays but {preds} prediction arrays"
        )));
    }
    Ok(())
}

pub(crate) fn shape_error(metric: &str, label: &HostArray, pred: &HostArray, why: &str) -> Error {
    Error::Input(format!(
        "metric {metric}: labels of shape {} and predictions of shape {}: {why}",
        fmt_shape(&label.shape),
        fmt_shape(&pred.shape)
    ))
}

/// Every name [`create`] accepts (MXNet 1.9.1's registry names and aliases, less `pcc`,
/// `torch`'s and `caffe`'s criterions aside).
pub const NAMES: &[&str] = &[
    "acc",
    "accuracy",
    "top_k_accuracy",
    "top_k_acc",
    "topkaccuracy",
    "f1",
    "mcc",
    "perplexity",
    "mae",
    "mse",
    "rmse",
    "ce",
    "crossentropy",
    "nll_loss",
    "negativeloglikelihood",
    "pearsonr",
    "pearsoncorrelation",
    "loss",
    "torch",
    "caffe",
    "composite",
    "compositeevalmetric",
];

const KIND: &str = "metric";

/// A metric from a spec: `acc`, `top_k_accuracy(top_k=3)`, `f1(average=micro)`,
/// `perplexity(ignore_label=-1)`; a comma-separated list (`acc,ce`) makes a [`Composite`]
/// (MXNet's `create(['acc', 'ce'])`). Names are case-insensitive, as in MXNet.
pub fn create(spec: &str) -> Result<Box<dyn EvalMetric>> {
    let specs = Spec::parse_list(spec)?;
    if specs.len() == 1 {
        return from_spec(&specs[0]);
    }
    let mut c = Composite::new("composite");
    for s in &specs {
        c.add(from_spec(s)?);
    }
    Ok(Box::new(c))
}

fn name_or(a: &Args, default: &str) -> Result<String> {
    Ok(a.text("name")?.unwrap_or(default).to_string())
}

fn average(a: &Args) -> Result<Average> {
    Ok(match a.choice("average", &["macro", "micro"], "macro")? {
        "micro" => Average::Micro,
        _ => Average::Macro,
    })
}

fn eps(a: &Args) -> Result<f64> {
    a.number("eps", 1e-12)
}

/// A metric from one parsed spec.
pub fn from_spec(spec: &Spec) -> Result<Box<dyn EvalMetric>> {
    // Every MXNet metric also takes output_names/label_names (for update_dict, which kiln
    // does not have): they are not accepted here.
    Ok(match spec.name.to_lowercase().as_str() {
        "acc" | "accuracy" => {
            let a = spec.args(KIND, &["axis", "name"])?;
            let axis = a.opt_int("axis")?.unwrap_or(1);
            Box::new(Accuracy::new(axis).named(name_or(&a, "accuracy")?))
        }
        "top_k_accuracy" | "top_k_acc" | "topkaccuracy" => {
            let a = spec.args(KIND, &["top_k", "name"])?;
            let top_k = a.opt_int("top_k")?.unwrap_or(1);
            let m = TopKAccuracy::new(top_k).map_err(|e| a.invalid("top_k", e))?;
            match a.text("name")? {
                // MXNet appends `_<top_k>` to whatever name it is given.
                Some(n) => Box::new(m.named(&format!("{n}_{top_k}"))),
                None => Box::new(m),
            }
        }
        "f1" => {
            let a = spec.args(KIND, &["name", "average"])?;
            Box::new(F1::new(average(&a)?).named(name_or(&a, "f1")?))
        }
        "mcc" => {
            let a = spec.args(KIND, &["name", "average"])?;
            Box::new(MCC::new(average(&a)?).named(name_or(&a, "mcc")?))
        }
        "perplexity" => {
            let a = spec.args(KIND, &["ignore_label", "axis", "name"])?;
            // Required, as in MXNet's constructor: an integer or None.
            a.require("ignore_label")?;
            let ignore = a.opt_int("ignore_label")?;
            let axis = a.opt_int("axis")?.unwrap_or(-1);
            Box::new(Perplexity::new(ignore, axis).named(name_or(&a, "perplexity")?))
        }
        "mae" => {
            let a = spec.args(KIND, &["name"])?;
            Box::new(MAE::default().named(name_or(&a, "mae")?))
        }
        "mse" => {
            let a = spec.args(KIND, &["name"])?;
            Box::new(MSE::default().named(name_or(&a, "mse")?))
        }
        "rmse" => {
            let a = spec.args(KIND, &["name"])?;
            Box::new(RMSE::default().named(name_or(&a, "rmse")?))
        }
        "ce" | "crossentropy" => {
            let a = spec.args(KIND, &["eps", "name"])?;
            Box::new(CrossEntropy::new(eps(&a)?).named(name_or(&a, "cross-entropy")?))
        }
        "nll_loss" | "negativeloglikelihood" => {
            let a = spec.args(KIND, &["eps", "name"])?;
            Box::new(NegativeLogLikelihood::new(eps(&a)?).named(name_or(&a, "nll-loss")?))
        }
        "pearsonr" | "pearsoncorrelation" => {
            let a = spec.args(KIND, &["name", "average"])?;
            Box::new(PearsonCorrelation::new(average(&a)?).named(name_or(&a, "pearsonr")?))
        }
        n @ ("loss" | "torch" | "caffe") => {
            let a = spec.args(KIND, &["name"])?;
            Box::new(Loss::new(&name_or(&a, n)?))
        }
        "composite" | "compositeevalmetric" => {
            let a = spec.args(KIND, &["metrics", "name"])?;
            let mut c = Composite::new(&name_or(&a, "composite")?);
            if let Some(v) = a.get("metrics") {
                let crate::spec::Value::List(items) = v else {
                    return Err(a.invalid("metrics", "expected a list [METRIC, ...]"));
                };
                for item in items {
                    let child = match item {
                        crate::spec::Value::Spec(s) => from_spec(s)?,
                        crate::spec::Value::Text(t) => create(t)?,
                        crate::spec::Value::List(_) => {
                            return Err(a.invalid("metrics", "expected metrics, not a list"))
                        }
                    };
                    c.add(child);
                }
            }
            Box::new(c)
        }
        _ => {
            return Err(Error::Input(format!(
                "metric {:?} is not registered (known: {})",
                spec.name,
                NAMES.join(", ")
            )))
        }
    })
}
