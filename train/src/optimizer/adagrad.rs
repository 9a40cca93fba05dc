//! The AdaGrad family: AdaGrad, AdaDelta, GroupAdaGrad and RMSProp (plain and centered),
//! with MXNet 1.9.1's exact arithmetic (`src/operator/optimizer_op-inl.h`,
//! `python/mxnet/optimizer/optimizer.py`, `optimizer/contrib.py`).
//!
//! Traps kept on purpose:
//! - AdaGrad, AdaDelta and GroupAdaGrad on dense gradients are Python NDArray arithmetic
//!   (each operation rounds to the dtype); they clip the rescaled gradient *without* wd
//!   and add wd outside the adaptive step: AdaGrad `w ← w + (g/√(h+ε) + w·wd)·(−lr)`,
//!   AdaDelta `w ← w − (Δ + wd·w)` (AdaDelta has no learning rate at all). They clip
//!   whenever `clip_gradient` is given (not only when positive).
//! - GroupAdaGrad keeps one accumulator per row (the mean of the row's squared gradients)
//!   and refuses weight decay and anything but 2-D weights, as MXNet asserts.
//! - RMSProp (`rmsprop_update`, `rmspropalex_update` when centered) adds `wd·w` *before*
//!   clipping, and may clip the new weights (`clip_weights`, when positive).
//! - MXNet's AdaDelta rescales the caller's gradient array in place; kiln leaves the
//!   gradient untouched (the next backward pass overwrites it anyway).

use super::kernel::{clip, for_each, Real};
use super::rule::{Buffers, Common, Step};

/// AdaGrad (`adagrad`).
#[derive(Clone, Debug, PartialEq)]
pub struct AdaGrad {
    pub c: Common,
    pub eps: f64,
}

impl AdaGrad {
    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let (r, eps) = (T::scalar(self.c.rescale_grad), T::scalar(self.eps));
        let (wd, neg_lr) = (T::scalar(s.wd), T::scalar(-s.lr));
        let bound = self.c.python_clip().map(T::scalar);
        let [history, _, _] = b.states;
        for_each(b.weight, b.grad, [history], move |w, g, [h]| {
            let g = g * r;
            let g = bound.map_or(g, |c| clip(g, c));
            *h = *h + g * g;
            let div = g / (*h + eps).sqrt();
            w + (div + w * wd) * neg_lr
        });
    }
}

/// AdaDelta (`adadelta`).
#[derive(Clone, Debug, PartialEq)]
pub struct AdaDelta {
    pub c: Common,
    pub rho: f64,
    pub epsilon: f64,
}

impl AdaDelta {
    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let (r, eps, wd) = (
            T::scalar(self.c.rescale_grad),
            T::scalar(self.epsilon),
            T::scalar(s.wd),
        );
        let (rho, one_minus_rho) = (T::scalar(self.rho), T::scalar(1.0 - self.rho));
        let bound = self.c.python_clip().map(T::scalar);
        let [acc_g, acc_delta, _] = b.states;
        for_each(
            b.weight,
            b.grad,
            [acc_g, acc_delta],
            move |w, g, [acc_g, acc_delta]| {
                let g = g * r;
                let g = bound.map_or(g, |c| clip(g, c));
                *acc_g = *acc_g * rho;
                *acc_g = *acc_g + g * one_minus_rho * g;
                let delta = (*acc_delta + eps).sqrt() / (*acc_g + eps).sqrt() * g;
                *acc_delta = *acc_delta * rho;
                *acc_delta = *acc_delta + delta * one_minus_rho * delta;
                w - (delta + w * wd)
            },
        );
    }
}

/// AdaGrad with one accumulator per row (`groupadagrad`).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupAdaGrad {
    pub c: Common,
    pub eps: f64,
}

impl GroupAdaGrad {
    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let (r, eps, lr) = (
            T::scalar(self.c.rescale_grad),
            T::scalar(self.eps),
            T::scalar(s.lr),
        );
        let bound = self.c.python_clip().map(T::scalar);
        let rescaled = |g: T| {
            let g = g * r;
            bound.map_or(g, |c| clip(g, c))
        };
        let [history, _, _] = b.states;
        let rows = b.rows.min(history.len());
        let cols = b.weight.len().checked_div(rows).unwrap_or(0);
        if cols == 0 {
            return;
        }
        let count = T::scalar(cols as f64);
        // Rows are short next to what a pool task is worth: one pass per row, in order.
        for ((w, g), h) in b
            .weight
            .chunks_exact_mut(cols)
            .zip(b.grad.chunks_exact(cols))
            .zip(history.iter_mut())
        {
            // mean(square(g), axis=1): a sum in the dtype, then a division by the count.
            let sum = g.iter().fold(T::ZERO, |sum, &g| {
                let g = rescaled(g);
                sum + g * g
            });
            *h = *h + sum / count;
            let denom = (*h + eps).sqrt();
            for (w, &g) in w.iter_mut().zip(g) {
                // `lr * grad / sqrt(…)`: the scalar product first.
                *w = *w - rescaled(g) * lr / denom;
            }
        }
    }
}

/// RMSProp, plain and centered (`rmsprop`).
#[derive(Clone, Debug, PartialEq)]
pub struct RmsProp {
    pub c: Common,
    pub gamma1: f64,
    pub gamma2: f64,
    pub epsilon: f64,
    pub centered: bool,
    pub clip_weights: Option<f64>,
}

impl RmsProp {
    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let (lr, wd, r) = (
            T::param(s.lr),
            T::param(s.wd),
            T::param(self.c.rescale_grad),
        );
        let (g1, eps) = (T::param(self.gamma1), T::param(self.epsilon));
        let bound = self.c.kernel_clip().map(T::param);
        let clip_weights = self.clip_weights.filter(|&c| c > 0.0).map(T::param);
        let rescaled = move |w: T, g: T| {
            let g = r * g + wd * w;
            bound.map_or(g, |c| clip(g, c))
        };
        let clip_w = move |w: T| clip_weights.map_or(w, |c| clip(w, c));
        let [n, g_avg, delta] = b.states;
        if self.centered {
            let g2 = T::param(self.gamma2);
            for_each(
                b.weight,
                b.grad,
                [n, g_avg, delta],
                move |w, g, [n, g_avg, delta]| {
                    let g = rescaled(w, g);
                    *n = (T::ONE - g1) * g * g + g1 * *n;
                    *g_avg = (T::ONE - g1) * g + g1 * *g_avg;
                    *delta = g2 * *delta - lr * g / (*n - *g_avg * *g_avg + eps).sqrt();
                    clip_w(w + *delta)
                },
            );
        } else {
            for_each(b.weight, b.grad, [n], move |w, g, [n]| {
                let g = rescaled(w, g);
                *n = (T::ONE - g1) * (g * g) + g1 * *n;
                clip_w(w - lr * (g / (*n + eps).sqrt()))
            });
        }
    }
}
