//! Regression metrics: `MAE`, `MSE`, `RMSE` (each the mean over a batch, averaged over
//! batches) and `PearsonCorrelation` (`pearsonr`).

use super::classification::Average;
use super::{check_count, ratio, shape_error, EvalMetric, HostArray, Stats};
use crate::host::{broadcast_shape, broadcast_to};
use crate::Result;

/// The mean of `f(label - pred)` over one pair, 1-d arrays taken as columns and the two
/// broadcast against each other (numpy's `label - pred`).
fn batch_mean(metric: &str, label: &HostArray, pred: &HostArray, f: fn(f64) -> f64) -> Result<f64> {
    let column = |a: &HostArray| match a.shape.as_slice() {
        &[n] => vec![n, 1],
        s => s.to_vec(),
    };
    let (ls, ps) = (column(label), column(pred));
    let Some(out) = broadcast_shape(&ls, &ps) else {
        return Err(shape_error(
            metric,
            label,
            pred,
            "they do not broadcast together",
        ));
    };
    let (Some(l), Some(p)) = (
        broadcast_to(&ls, &label.data, &out),
        broadcast_to(&ps, &pred.data, &out),
    ) else {
        return Err(shape_error(
            metric,
            label,
            pred,
            "they do not broadcast together",
        ));
    };
    let n = l.len() as f64;
    Ok(l.iter().zip(&p).map(|(a, b)| f(a - b)).sum::<f64>() / n)
}

macro_rules! mean_metric {
    ($(#[$doc:meta])* $ty:ident, $name:literal, $f:expr, $post:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $ty {
            name: String,
            stats: Stats,
        }

        impl Default for $ty {
            fn default() -> $ty {
                $ty {
                    name: $name.into(),
                    stats: Stats::default(),
                }
            }
        }

        impl $ty {
            pub fn named(mut self, name: impl Into<String>) -> Self {
                self.name = name.into();
                self
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
                    .map(|(l, p)| batch_mean(&self.name, l, p, $f).map($post))
                    .collect::<Result<Vec<_>>>()?;
                // One instance per array pair, as MXNet counts.
                batch.into_iter().for_each(|v| self.stats.add(v, 1.0));
                Ok(())
            }

            mean_metric_readings!();
        }
    };
}

mean_metric!(
    /// Mean absolute error, per batch, averaged over batches.
    MAE,
    "mae",
    f64::abs,
    |v| v
);

mean_metric!(
    /// Mean squared error, per batch, averaged over batches.
    MSE,
    "mse",
    |d| d * d,
    |v| v
);

mean_metric!(
    /// Root mean squared error *of each batch*, averaged over batches (MXNet's RMSE is
    /// not the root of the overall MSE).
    RMSE,
    "rmse",
    |d| d * d,
    f64::sqrt
);

/// Pearson's correlation of predictions with labels (same shape, flattened): per update
/// (`macro`: numpy's `corrcoef` of each pair, averaged) or over all values since the
/// last reset (`micro`: MXNet's running means and sums of squares, updated a batch at a
/// time).
#[derive(Clone, Debug)]
pub struct PearsonCorrelation {
    average: Average,
    name: String,
    stats: Stats,
    micro: Micro,
}

/// MXNet's running statistics for `micro` (its `_sse_p`, `_mean_p`, ... names).
#[derive(Clone, Debug, Default)]
struct Micro {
    count_l: f64,
    mean_l: f64,
    sse_l: f64,
    count_p: f64,
    mean_p: f64,
    sse_p: f64,
    cov: f64,
}

/// MXNet's batch update of (count, mean, sum of squared deviations).
fn welford(values: &[f64], count: &mut f64, mean: &mut f64, m2: &mut f64) {
    *count += values.len() as f64;
    let delta: Vec<f64> = values.iter().map(|v| v - *mean).collect();
    *mean += delta.iter().map(|d| d / *count).sum::<f64>();
    *m2 += values
        .iter()
        .zip(&delta)
        .map(|(v, d)| d * (v - *mean))
        .sum::<f64>();
}

impl Micro {
    fn value(&self) -> f64 {
        let n = self.count_l;
        self.cov / ((n - 1.0) * (self.sse_p / (n - 1.0)).sqrt() * (self.sse_l / (n - 1.0)).sqrt())
    }
}

/// numpy's `corrcoef(x, y)[0, 1]`: NaN when either is constant, clipped to [-1, 1].
fn corrcoef(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxy / (sxx.sqrt() * syy.sqrt())).clamp(-1.0, 1.0)
}

impl PearsonCorrelation {
    pub fn new(average: Average) -> PearsonCorrelation {
        PearsonCorrelation {
            average,
            name: "pearsonr".into(),
            stats: Stats::default(),
            micro: Micro::default(),
        }
    }

    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

impl Default for PearsonCorrelation {
    fn default() -> PearsonCorrelation {
        PearsonCorrelation::new(Average::Macro)
    }
}

impl EvalMetric for PearsonCorrelation {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn update_host(&mut self, labels: &[HostArray], preds: &[HostArray]) -> Result<()> {
        check_count(&self.name, labels.len(), preds.len())?;
        for (l, p) in labels.iter().zip(preds) {
            if l.shape != p.shape {
                return Err(shape_error(&self.name, l, p, "shapes must be equal"));
            }
        }
        for (l, p) in labels.iter().zip(preds) {
            match self.average {
                Average::Macro => self.stats.add(corrcoef(&p.data, &l.data), 1.0),
                Average::Micro => {
                    self.stats.num += 1.0;
                    self.stats.global_num += 1.0;
                    let m = &mut self.micro;
                    welford(&l.data, &mut m.count_l, &mut m.mean_l, &mut m.sse_l);
                    // MXNet's order: the label mean already updated, the prediction mean
                    // not yet.
                    m.cov += l
                        .data
                        .iter()
                        .zip(&p.data)
                        .map(|(a, b)| (a - m.mean_l) * (b - m.mean_p))
                        .sum::<f64>();
                    welford(&p.data, &mut m.count_p, &mut m.mean_p, &mut m.sse_p);
                }
            }
        }
        Ok(())
    }

    fn get(&self) -> Vec<(String, f64)> {
        let v = match self.average {
            _ if self.stats.num == 0.0 => f64::NAN,
            Average::Macro => ratio(self.stats.sum, self.stats.num),
            Average::Micro => self.micro.value(),
        };
        vec![(self.name.clone(), v)]
    }

    fn get_global(&self) -> Vec<(String, f64)> {
        let v = match self.average {
            _ if self.stats.global_num == 0.0 => f64::NAN,
            Average::Macro => self.stats.global(),
            // The running statistics cover everything since the last full reset.
            Average::Micro => self.micro.value(),
        };
        vec![(self.name.clone(), v)]
    }

    fn reset(&mut self) {
        self.stats = Stats::default();
        self.micro = Micro::default();
    }

    fn reset_local(&mut self) {
        self.stats.reset_local();
    }
}
