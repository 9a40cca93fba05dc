//! The Adam family: Adam, AdaMax, Nadam, AdamW, LAMB and FTML, with MXNet 1.9.1's exact
//! arithmetic (`src/operator/optimizer_op-inl.h`, `contrib/adamw-inl.h`,
//! `contrib/multi_lamb.cc`, `python/mxnet/optimizer/optimizer.py`).
//!
//! Traps kept on purpose:
//! - Adam folds bias correction into lr on the Python side (`lr·√(1−β2ᵗ)/(1−β1ᵗ)`, ε not
//!   corrected) and adds `wd·w` to the gradient *before* clipping.
//! - AdaMax and Nadam are Python NDArray arithmetic (each operation rounds to the dtype);
//!   both add `wd·w` before clipping. Nadam's momentum schedule product is one value for
//!   the whole optimizer, multiplied at *every parameter's* update (so with several
//!   parameters it advances several times per step), as MXNet's `self.m_schedule` does.
//! - AdamW is MXNet's `contrib.adamw_update`: no bias correction, decay decoupled and
//!   scaled by `eta` but not by lr: `w ← w − η·(lr·m/(√v+ε) + wd·w)`; a `rescale_grad`
//!   of 0 or not finite skips the update (the operator's contract). kiln's `adamw`
//!   optimizer feeds it the scheduled lr and `eta` (default 1).
//! - LAMB runs MXNet's aggregated `multi_lamb_update` (the Updater batches LAMB): clip
//!   *without* wd, wd added to the adapted step, trust ratio `‖w‖/‖g'‖` in f32 with
//!   `lower_bound`/`upper_bound` on `‖w‖`, ratio 1 when either norm is 0.
//! - FTML adds `wd·w` before clipping; `t` is the parameter's update count.

use super::kernel::{clip, for_each, sum_sq, Real};
use super::rule::{Buffers, Common, Globals, Step};

/// Adam (`adam`).
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    pub c: Common,
    pub beta1: f64,
    pub beta2: f64,
    pub epsilon: f64,
}

impl Adam {
    pub fn prepare(&self, mut s: Step) -> Step {
        let t = s.t as f64;
        let (coef1, coef2) = (1.0 - self.beta1.powf(t), 1.0 - self.beta2.powf(t));
        s.lr *= coef2.sqrt() / coef1;
        s
    }

    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let (lr, wd, r) = (
            T::param(s.lr),
            T::param(s.wd),
            T::param(self.c.rescale_grad),
        );
        let (b1, b2, eps) = (
            T::param(self.beta1),
            T::param(self.beta2),
            T::param(self.epsilon),
        );
        let bound = self.c.kernel_clip().map(T::param);
        let [mean, var, _] = b.states;
        for_each(b.weight, b.grad, [mean, var], move |w, g, [m, v]| {
            let g = g * r + w * wd;
            let g = bound.map_or(g, |c| clip(g, c));
            *m = b1 * *m + (T::ONE - b1) * g;
            *v = b2 * *v + (T::ONE - b2) * g * g;
            w - lr * *m / (v.sqrt() + eps)
        });
    }
}

/// AdaMax (`adamax`).
#[derive(Clone, Debug, PartialEq)]
pub struct Adamax {
    pub c: Common,
    pub beta1: f64,
    pub beta2: f64,
}

impl Adamax {
    pub fn prepare(&self, mut s: Step) -> Step {
        s.lr /= 1.0 - self.beta1.powf(s.t as f64);
        s
    }

    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let (lr, wd, r) = (
            T::scalar(s.lr),
            T::scalar(s.wd),
            T::scalar(self.c.rescale_grad),
        );
        let (b1, b2) = (T::scalar(self.beta1), T::scalar(self.beta2));
        let one_minus_b1 = T::scalar(1.0 - self.beta1);
        let bound = self.c.python_clip().map(T::scalar);
        let [mean, inf_norm, _] = b.states;
        for_each(b.weight, b.grad, [mean, inf_norm], move |w, g, [m, u]| {
            let g = g * r + w * wd;
            let g = bound.map_or(g, |c| clip(g, c));
            *m = *m * b1;
            *m = *m + g * one_minus_b1;
            // mshadow's maximum: `a > b ? a : b`.
            let (decayed, size) = (*u * b2, g.abs());
            *u = if decayed > size { decayed } else { size };
            w - *m * lr / *u
        });
    }
}

/// Nadam (`nadam`).
#[derive(Clone, Debug, PartialEq)]
pub struct Nadam {
    pub c: Common,
    pub beta1: f64,
    pub beta2: f64,
    pub epsilon: f64,
    pub schedule_decay: f64,
}

/// `Step::extra` slots Nadam fills.
const MOMENTUM_T: usize = 0;
const MOMENTUM_T_1: usize = 1;
const M_SCHEDULE: usize = 2;
const M_SCHEDULE_NEXT: usize = 3;

impl Nadam {
    pub fn prepare(&self, globals: &mut Globals, mut s: Step) -> Step {
        let t = s.t as f64;
        let momentum_t = self.beta1 * (1.0 - 0.5 * 0.96f64.powf(t * self.schedule_decay));
        let momentum_t_1 = self.beta1 * (1.0 - 0.5 * 0.96f64.powf((t + 1.0) * self.schedule_decay));
        globals.m_schedule *= momentum_t;
        s.extra[MOMENTUM_T] = momentum_t;
        s.extra[MOMENTUM_T_1] = momentum_t_1;
        s.extra[M_SCHEDULE] = globals.m_schedule;
        s.extra[M_SCHEDULE_NEXT] = globals.m_schedule * momentum_t_1;
        s
    }

    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let x = |v: f64| T::scalar(v);
        let (lr, wd, r) = (x(s.lr), x(s.wd), x(self.c.rescale_grad));
        let (b1, b2, eps) = (x(self.beta1), x(self.beta2), x(self.epsilon));
        let (one_minus_b1, one_minus_b2) = (x(1.0 - self.beta1), x(1.0 - self.beta2));
        let grad_div = x(1.0 - s.extra[M_SCHEDULE]);
        let m_div = x(1.0 - s.extra[M_SCHEDULE_NEXT]);
        let v_div = x(1.0 - self.beta2.powf(s.t as f64));
        let (grad_coef, m_coef) = (x(1.0 - s.extra[MOMENTUM_T]), x(s.extra[MOMENTUM_T_1]));
        let bound = self.c.python_clip().map(x);
        let [mean, var, _] = b.states;
        for_each(b.weight, b.grad, [mean, var], move |w, g, [m, v]| {
            let g = g * r + w * wd;
            let g = bound.map_or(g, |c| clip(g, c));
            *m = *m * b1;
            *m = *m + g * one_minus_b1;
            *v = *v * b2;
            *v = *v + g * one_minus_b2 * g;
            let grad_prime = g / grad_div;
            let m_prime = *m / m_div;
            let v_prime = *v / v_div;
            let m_bar = grad_prime * grad_coef + m_prime * m_coef;
            w - m_bar * lr / (v_prime.sqrt() + eps)
        });
    }
}

/// AdamW as `contrib.adamw_update` defines it (`adamw`).
#[derive(Clone, Debug, PartialEq)]
pub struct AdamW {
    pub c: Common,
    pub beta1: f64,
    pub beta2: f64,
    pub epsilon: f64,
    pub eta: f64,
}

impl AdamW {
    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        // The operator reads rescale_grad from a float32 array and skips the update when
        // it is 0 or not finite.
        let rescale = self.c.rescale_grad as f32;
        if rescale == 0.0 || !rescale.is_finite() {
            return;
        }
        let r = T::from_f32(rescale);
        let (lr, wd, eta) = (T::param(s.lr), T::param(s.wd), T::param(self.eta));
        let (b1, b2, eps) = (
            T::param(self.beta1),
            T::param(self.beta2),
            T::param(self.epsilon),
        );
        let (one_minus_b1, one_minus_b2) = (
            T::param(f64::from(1.0f32 - self.beta1 as f32)),
            T::param(f64::from(1.0f32 - self.beta2 as f32)),
        );
        let bound = self.c.kernel_clip().map(T::param);
        let [mean, var, _] = b.states;
        for_each(b.weight, b.grad, [mean, var], move |w, g, [m, v]| {
            let g = r * g;
            let g = bound.map_or(g, |c| clip(g, c));
            *m = b1 * *m + one_minus_b1 * g;
            *v = b2 * *v + one_minus_b2 * (g * g);
            w - eta * (lr * *m / (v.sqrt() + eps) + wd * w)
        });
    }
}

/// LAMB (`lamb`).
#[derive(Clone, Debug, PartialEq)]
pub struct Lamb {
    pub c: Common,
    pub beta1: f64,
    pub beta2: f64,
    pub epsilon: f64,
    pub lower_bound: Option<f64>,
    pub upper_bound: Option<f64>,
    pub bias_correction: bool,
}

impl Lamb {
    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let (r, wd) = (T::param(self.c.rescale_grad), T::param(s.wd));
        let (b1, b2, eps) = (
            T::param(self.beta1),
            T::param(self.beta2),
            T::param(self.epsilon),
        );
        let bound = self.c.kernel_clip().map(T::param);
        let t = T::param(s.t as f64);
        let (mean_div, var_div) = (T::ONE - b1.powf(t), T::ONE - b2.powf(t));
        let bias_correction = self.bias_correction;
        // ‖w‖ before the step (of the stored weights: f16 ones under multi_precision).
        let w_sum_sq = b.weight_sum_sq.unwrap_or_else(|| sum_sq(b.weight));
        let [mean, var, _] = b.states;
        let adapted = b.work;
        // Step 1: the moments and the adapted step g' (MXNet keeps it in a float32
        // workspace), the weight passed through unchanged as a read-only state.
        for_each(
            adapted,
            b.grad,
            [mean, var, &mut *b.weight],
            move |_, g, [m, v, w]| {
                let g = g * r;
                let g = bound.map_or(g, |c| clip(g, c));
                *m = b1 * *m + (T::ONE - b1) * g;
                *v = b2 * *v + (T::ONE - b2) * g * g;
                let step = if bias_correction {
                    *m / mean_div / ((*v / var_div).sqrt() + eps) + wd * *w
                } else {
                    *m / (v.sqrt() + eps) + wd * *w
                };
                T::from_f32(step.to_f32())
            },
        );
        // Step 2: the trust ratio, in f32.
        let mut r1 = w_sum_sq.sqrt();
        let r2 = sum_sq(adapted).sqrt();
        if let Some(lower) = self.lower_bound.filter(|&l| l > 0.0) {
            r1 = r1.max(lower as f32);
        }
        if let Some(upper) = self.upper_bound.filter(|&u| u > 0.0) {
            r1 = r1.min(upper as f32);
        }
        let ratio = if r1 == 0.0 || r2 == 0.0 { 1.0 } else { r1 / r2 };
        let lr = T::param(s.lr) * T::from_f32(ratio);
        for_each(b.weight, adapted, [], move |w, g, []| w - lr * g);
    }
}

/// FTML (`ftml`).
#[derive(Clone, Debug, PartialEq)]
pub struct Ftml {
    pub c: Common,
    pub beta1: f64,
    pub beta2: f64,
    pub epsilon: f64,
}

impl Ftml {
    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let (lr, wd, r) = (
            T::param(s.lr),
            T::param(s.wd),
            T::param(self.c.rescale_grad),
        );
        let (b1, b2, eps) = (
            T::param(self.beta1),
            T::param(self.beta2),
            T::param(self.epsilon),
        );
        let t = T::param(s.t as f64);
        let bias1 = (T::ONE - b1.powf(t)) / lr;
        let bias2 = T::ONE - b2.powf(t);
        let bound = self.c.kernel_clip().map(T::param);
        let [d, v, z] = b.states;
        for_each(b.weight, b.grad, [d, v, z], move |w, g, [d, v, z]| {
            let g = r * g + wd * w;
            let g = bound.map_or(g, |c| clip(g, c));
            *v = b2 * *v + (T::ONE - b2) * (g * g);
            let d_t = bias1 * ((*v / bias2).sqrt() + eps);
            *z = b1 * *z + (T::ONE - b1) * g - (d_t - b1 * *d) * w;
            *d = d_t;
            -*z / d_t
        });
    }
}
