//! Metrics on predicted probabilities: `Perplexity` (`perplexity`), `CrossEntropy`
//! (`ce`) and `NegativeLogLikelihood` (`nll_loss`).

use super::{check_count, shape_error, EvalMetric, HostArray, Stats};
use crate::{Error, Result};

/// exp of the mean negative log-probability of the labels, over labels other than
/// `ignore_label`. Predictions are (samples, classes) with the classes along `axis`
/// (default -1); a label outside the classes is clipped to the nearest (MXNet's `pick`),
/// probabilities below 1e-10 count as 1e-10.
#[derive(Clone, Debug)]
pub struct Perplexity {
    ignore_label: Option<i64>,
    axis: i64,
    name: String,
    stats: Stats,
}

impl Perplexity {
    pub fn new(ignore_label: Option<i64>, axis: i64) -> Perplexity {
        Perplexity {
            ignore_label,
            axis,
            name: "perplexity".into(),
            stats: Stats::default(),
        }
    }

    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    fn batch(&self, label: &HostArray, pred: &HostArray) -> Result<(f64, f64)> {
        let bad = |why: &str| shape_error(&self.name, label, pred, why);
        let &[rows, cols] = pred.shape.as_slice() else {
            return Err(bad("predictions must be (samples, classes)"));
        };
        let axis = match self.axis {
            -1 | 1 => 1,
            -2 | 0 => 0,
            a => {
                return Err(Error::Input(format!(
                    "metric {}: axis {a} is out of range for 2-d predictions",
                    self.name
                )))
            }
        };
        // MXNet asserts one label per row, and `pick` one label per index of the other
        // axis.
        let picks = if axis == 1 { rows } else { cols };
        if label.len() != rows || label.len() != picks {
            return Err(bad("one label per sample expected"));
        }
        let classes = if axis == 1 { cols } else { rows };
        let (mut loss, mut num) = (0.0, 0.0);
        for (i, &l) in label.data.iter().enumerate() {
            let c = (l as i32 as i64).clamp(0, classes as i64 - 1) as usize;
            let p = if axis == 1 {
                pred.data[i * cols + c]
            } else {
                pred.data[c * cols + i]
            };
            // MXNet compares the float label with the integer ignore_label.
            let p = if self.ignore_label.is_some_and(|ig| l == ig as f64) {
                num -= 1.0;
                1.0
            } else {
                p
            };
            loss -= p.max(1e-10).ln();
            num += 1.0;
        }
        Ok((loss, num))
    }
}

impl EvalMetric for Perplexity {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn update_host(&mut self, labels: &[HostArray], preds: &[HostArray]) -> Result<()> {
        check_count(&self.name, labels.len(), preds.len())?;
        let (mut loss, mut num) = (0.0, 0.0);
        for (label, pred) in labels.iter().zip(preds) {
            if pred.shape.last() == Some(&0) {
                return Err(shape_error(&self.name, label, pred, "no classes"));
            }
            let (l, n) = self.batch(label, pred)?;
            loss += l;
            num += n;
        }
        self.stats.add(loss, num);
        Ok(())
    }

    mean_metric_readings!(|mean| mean.exp());
}

/// Sum of -ln(p[label] + eps) over (samples, classes) predictions, and the sample count.
/// Labels index the classes as numpy does (a negative label counts from the end).
fn picked_nll(metric: &str, eps: f64, label: &HostArray, pred: &HostArray) -> Result<(f64, f64)> {
    let &[rows, cols] = pred.shape.as_slice() else {
        return Err(shape_error(
            metric,
            label,
            pred,
            "predictions must be (samples, classes)",
        ));
    };
    if label.len() != rows {
        return Err(shape_error(
            metric,
            label,
            pred,
            "one label per sample expected",
        ));
    }
    let mut sum = 0.0;
    for (i, &l) in label.data.iter().enumerate() {
        let c = l as i64;
        let c = if c < 0 { c + cols as i64 } else { c };
        if !(0..cols as i64).contains(&c) {
            return Err(Error::Input(format!(
                "metric {metric}: label {l} is out of range for {cols} classes"
            )));
        }
        sum -= (pred.data[i * cols + c as usize] + eps).ln();
    }
    Ok((sum, rows as f64))
}

macro_rules! nll_metric {
    ($(#[$doc:meta])* $ty:ident, $name:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $ty {
            eps: f64,
            name: String,
            stats: Stats,
        }

        impl $ty {
            pub fn new(eps: f64) -> $ty {
                $ty {
                    eps,
                    name: $name.into(),
                    stats: Stats::default(),
                }
            }

            pub fn named(mut self, name: impl Into<String>) -> Self {
                self.name = name.into();
                self
            }
        }

        impl Default for $ty {
            fn default() -> $ty {
                $ty::new(1e-12)
            }
        }

        impl EvalMetric for $ty {
            fn name(&self) -> String {
                self.name.clone()
            }

            fn update_host(&mut self, labels: &[HostArray], preds: &[HostArray]) -> Result<()> {
                check_count(&self.name, labels.len(), preds.len())?;
                let batch = labels
                    .iter()
                    .zip(preds)
                    .map(|(l, p)| picked_nll(&self.name, self.eps, l, p))
                    .collect::<Result<Vec<_>>>()?;
                batch.into_iter().for_each(|(s, n)| self.stats.add(s, n));
                Ok(())
            }

            mean_metric_readings!();
        }
    };
}

nll_metric!(
    /// Cross entropy: the mean over samples of -ln(p[label] + eps) (eps = 1e-12), named
    /// `cross-entropy`.
    CrossEntropy,
    "cross-entropy"
);

nll_metric!(
    /// Negative log-likelihood: the same sum as CrossEntropy, named `nll-loss`.
    NegativeLogLikelihood,
    "nll-loss"
);
