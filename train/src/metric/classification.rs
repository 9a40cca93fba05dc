//! Classification metrics: `Accuracy` (`acc`), `TopKAccuracy` (`top_k_accuracy`), and the
//! binary `F1` and `MCC` built on true/false positive/negative counts.

use super::{check_count, ratio, shape_error, EvalMetric, HostArray, Stats};
use crate::{Error, Result};
use std::collections::BTreeSet;

/// How F1, MCC and PearsonCorrelation aggregate over updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Average {
    /// The mean of each update's score.
    Macro,
    /// One score over every instance.
    Micro,
}

/// MXNet's cast of a float label or class index to int32 (truncation toward zero).
fn class(v: f64) -> i64 {
    v as i32 as i64
}

/// The index of the first largest value along `axis` (MXNet's `argmax`), and the shape
/// without that axis.
fn argmax(metric: &str, pred: &HostArray, axis: i64) -> Result<Vec<f64>> {
    let nd = pred.shape.len() as i64;
    let ax = if axis < 0 { axis + nd } else { axis };
    if !(0..nd).contains(&ax) {
        return Err(Error::Input(format!(
            "metric {metric}: axis {axis} is out of range for predictions of {nd} dimensions"
        )));
    }
    let ax = ax as usize;
    let (outer, d, inner) = (
        pred.shape[..ax].iter().product::<usize>(),
        pred.shape[ax],
        pred.shape[ax + 1..].iter().product::<usize>(),
    );
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| pred.data[(o * d + j) * inner + i];
            let best = (0..d).fold(0, |b, j| if at(j) > at(b) { j } else { b });
            out.push(best as f64);
        }
    }
    Ok(out)
}

/// The fraction of predictions equal to the label; a prediction of another shape than
/// its label is reduced by argmax over `axis` (default 1).
#[derive(Clone, Debug)]
pub struct Accuracy {
    axis: i64,
    name: String,
    stats: Stats,
}

impl Accuracy {
    pub fn new(axis: i64) -> Accuracy {
        Accuracy {
            axis,
            name: "accuracy".into(),
            stats: Stats::default(),
        }
    }

    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

impl Default for Accuracy {
    fn default() -> Accuracy {
        Accuracy::new(1)
    }
}

impl EvalMetric for Accuracy {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn update_host(&mut self, labels: &[HostArray], preds: &[HostArray]) -> Result<()> {
        check_count(&self.name, labels.len(), preds.len())?;
        let mut counts = Vec::with_capacity(labels.len());
        for (label, pred) in labels.iter().zip(preds) {
            let pred_label = if pred.shape != label.shape {
                argmax(&self.name, pred, self.axis)?
            } else {
                pred.data.clone()
            };
            if pred_label.len() != label.len() {
                return Err(shape_error(
                    &self.name,
                    label,
                    pred,
                    &format!(
                        "{} labels for {} predicted classes",
                        label.len(),
                        pred_label.len()
                    ),
                ));
            }
            let correct = label
                .data
                .iter()
                .zip(&pred_label)
                .filter(|(l, p)| class(**l) == class(**p))
                .count();
            counts.push((correct as f64, label.len() as f64));
        }
        // Checked every pair before counting any: a bad batch leaves the counts alone.
        counts.into_iter().for_each(|(s, n)| self.stats.add(s, n));
        Ok(())
    }

    mean_metric_readings!();
}

/// The fraction of samples whose label is among the `top_k` highest predictions of a
/// (samples, classes) array (ties broken toward the lower class index).
#[derive(Clone, Debug)]
pub struct TopKAccuracy {
    top_k: usize,
    name: String,
    stats: Stats,
}

impl TopKAccuracy {
    /// `top_k` must exceed 1 (MXNet: use Accuracy otherwise).
    pub fn new(top_k: i64) -> std::result::Result<TopKAccuracy, String> {
        if top_k <= 1 {
            return Err("must be more than 1 (use accuracy for top_k = 1)".into());
        }
        Ok(TopKAccuracy {
            top_k: top_k as usize,
            name: format!("top_k_accuracy_{top_k}"),
            stats: Stats::default(),
        })
    }

    /// With the display name `name` (used as given).
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }
}

impl EvalMetric for TopKAccuracy {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn update_host(&mut self, labels: &[HostArray], preds: &[HostArray]) -> Result<()> {
        check_count(&self.name, labels.len(), preds.len())?;
        let mut counts = Vec::new();
        for (label, pred) in labels.iter().zip(preds) {
            let &[n, k] = pred.shape.as_slice() else {
                return Err(shape_error(
                    &self.name,
                    label,
                    pred,
                    "predictions must be (samples, classes)",
                ));
            };
            if self.top_k > k {
                return Err(shape_error(
                    &self.name,
                    label,
                    pred,
                    &format!("top_k = {} is more than the {k} classes", self.top_k),
                ));
            }
            if label.len() != n {
                return Err(shape_error(
                    &self.name,
                    label,
                    pred,
                    "one label per sample expected",
                ));
            }
            let mut correct = 0usize;
            let mut order: Vec<usize> = (0..k).collect();
            for (row, &l) in pred.data.chunks_exact(k.max(1)).zip(&label.data) {
                // MXNet ranks the predictions as float32.
                let v = |j: usize| row[j] as f32;
                order.sort_by(|&a, &b| v(b).total_cmp(&v(a)).then(a.cmp(&b)));
                let l = class(l);
                correct += order[..self.top_k].iter().any(|&j| j as i64 == l) as usize;
            }
            counts.push((correct as f64, n as f64));
        }
        counts.into_iter().for_each(|(s, n)| self.stats.add(s, n));
        Ok(())
    }

    mean_metric_readings!();
}

/// True/false positive/negative counts (MXNet's `_BinaryClassificationMetrics`), local
/// and global.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    tp: f64,
    fp: f64,
    fneg: f64,
    tn: f64,
}

impl Counts {
    fn total(&self) -> f64 {
        self.tp + self.fp + self.fneg + self.tn
    }

    fn precision(&self) -> f64 {
        if self.tp + self.fp > 0.0 {
            self.tp / (self.tp + self.fp)
        } else {
            0.0
        }
    }

    fn recall(&self) -> f64 {
        if self.tp + self.fneg > 0.0 {
            self.tp / (self.tp + self.fneg)
        } else {
            0.0
        }
    }

    fn fscore(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        }
    }

    /// Matthews' coefficient; zero factors of the denominator count as 1 (MXNet).
    fn mcc(&self) -> f64 {
        if self.total() == 0.0 {
            return 0.0;
        }
        let terms = [
            self.tp + self.fp,
            self.tp + self.fneg,
            self.tn + self.fp,
            self.tn + self.fneg,
        ];
        let denom: f64 = terms.iter().filter(|&&t| t != 0.0).product();
        (self.tp * self.tn - self.fp * self.fneg) / denom.sqrt()
    }

    fn add(&mut self, o: &Counts) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fneg += o.fneg;
        self.tn += o.tn;
    }
}

/// The counts of one (labels, (samples, 2) predictions) pair: the predicted class is the
/// argmax, class 1 is positive.
fn binary_counts(metric: &str, label: &HostArray, pred: &HostArray) -> Result<Counts> {
    if pred.shape.len() != 2 || label.len() != pred.shape[0] {
        return Err(shape_error(
            metric,
            label,
            pred,
            "expected one label per row of (samples, classes) predictions",
        ));
    }
    let labels: Vec<i64> = label.data.iter().map(|&l| class(l)).collect();
    let distinct: BTreeSet<i64> = labels.iter().copied().collect();
    if distinct.len() > 2 {
        return Err(Error::Input(format!(
            "metric {metric}: only binary classification is supported, but the labels hold \
             {} classes",
            distinct.len()
        )));
    }
    let predicted = argmax(metric, pred, 1)?;
    let mut c = Counts::default();
    for (&l, &p) in labels.iter().zip(&predicted) {
        match (p as i64 == 1, l == 1) {
            (true, true) => c.tp += 1.0,
            (true, false) => c.fp += 1.0,
            (false, true) => c.fneg += 1.0,
            (false, false) => c.tn += 1.0,
        }
    }
    Ok(c)
}

/// The state F1 and MCC share: counts and MXNet's sums over them.
#[derive(Clone, Debug)]
struct Binary {
    average: Average,
    local: Counts,
    global: Counts,
    stats: Stats,
}

impl Binary {
    fn new(average: Average) -> Binary {
        Binary {
            average,
            local: Counts::default(),
            global: Counts::default(),
            stats: Stats::default(),
        }
    }

    fn update(
        &mut self,
        metric: &str,
        labels: &[HostArray],
        preds: &[HostArray],
        score: fn(&Counts) -> f64,
    ) -> Result<()> {
        check_count(metric, labels.len(), preds.len())?;
        let batch = labels
            .iter()
            .zip(preds)
            .map(|(l, p)| binary_counts(metric, l, p))
            .collect::<Result<Vec<_>>>()?;
        for c in &batch {
            self.local.add(c);
            self.global.add(c);
        }
        match self.average {
            Average::Macro => {
                self.stats.sum += score(&self.local);
                self.stats.num += 1.0;
                self.stats.global_sum += score(&self.global);
                self.stats.global_num += 1.0;
                // MXNet clears the global counts too (`reset_stats`) after each update;
                // the global sums stay.
                self.local = Counts::default();
                self.global = Counts::default();
            }
            Average::Micro => {
                self.stats.sum = score(&self.local) * self.local.total();
                self.stats.num = self.local.total();
                self.stats.global_sum = score(&self.global) * self.global.total();
                self.stats.global_num = self.global.total();
            }
        }
        Ok(())
    }

    fn reset(&mut self) {
        *self = Binary::new(self.average);
    }

    fn reset_local(&mut self) {
        self.stats.reset_local();
        self.local = Counts::default();
    }
}

macro_rules! binary_metric {
    ($(#[$doc:meta])* $ty:ident, $name:literal, $score:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $ty {
            name: String,
            state: Binary,
        }

        impl $ty {
            pub fn new(average: Average) -> $ty {
                $ty {
                    name: $name.into(),
                    state: Binary::new(average),
                }
            }

            pub fn named(mut self, name: impl Into<String>) -> Self {
                self.name = name.into();
                self
            }
        }

        impl Default for $ty {
            fn default() -> $ty {
                $ty::new(Average::Macro)
            }
        }

        impl EvalMetric for $ty {
            fn name(&self) -> String {
                self.name.clone()
            }

            fn update_host(&mut self, labels: &[HostArray], preds: &[HostArray]) -> Result<()> {
                self.state.update(&self.name, labels, preds, $score)
            }

            fn get(&self) -> Vec<(String, f64)> {
                vec![(self.name.clone(), ratio(self.state.stats.sum, self.state.stats.num))]
            }

            fn get_global(&self) -> Vec<(String, f64)> {
                vec![(self.name.clone(), self.state.stats.global())]
            }

            fn reset(&mut self) {
                self.state.reset();
            }

            fn reset_local(&mut self) {
                self.state.reset_local();
            }
        }
    };
}

binary_metric!(
    /// F1 = 2·precision·recall/(precision + recall) of a binary classification (class 1
    /// positive), per update (`macro`, the default) or over all instances (`micro`).
    F1,
    "f1",
    Counts::fscore
);

binary_metric!(
    /// Matthews' correlation coefficient (TP·TN − FP·FN)/sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))
    /// of a binary classification, zero factors of the denominator taken as 1.
    MCC,
    "mcc",
    Counts::mcc
);
