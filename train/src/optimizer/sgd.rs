//! The SGD family: SGD, NAG, Signum/signSGD, LARS and DCASGD, with MXNet 1.9.1's exact
//! arithmetic (`src/operator/optimizer_op-inl.h`, `contrib/multi_lars-inl.h`,
//! `python/mxnet/optimizer/optimizer.py`).
//!
//! Traps kept on purpose:
//! - SGD runs MXNet's aggregated `multi_sgd(_mom)_update` (the Updater batches SGD and
//!   LARS): `mom ← μ·mom − lr·wd·w − lr·clip(r·g)`, `w ← w + mom`; weight decay is never
//!   clipped and lr lives inside the momentum buffer. With momentum 0 the same formula runs
//!   with a zero buffer. `lazy_update` only matters for row-sparse gradients, which kiln
//!   does not have: dense gradients update every row either way.
//! - NAG without momentum is `sgd_update` (`(1 − lr·wd)·w − lr·clip(r·g)`); with momentum,
//!   `nag_mom_update` runs in place, so its momentum update decays by the weight it has
//!   just written: `mom ← μ·mom; w' ← w − mom + (1+μ)·(mom − lr·(clip(r·g) + wd·w));
//!   mom ← mom − lr·(clip(r·g) + wd·w')`.
//! - Signum puts `wd` into the momentum scaled by `1 − μ` and applies `wd_lh` decoupled;
//!   signSGD (momentum 0) ignores `rescale_grad` and `clip_gradient` entirely.
//! - LARS scales lr by `η·‖w‖ / (‖g‖·r + wd·‖w‖ + eps)` (f32, norms of the raw arrays)
//!   except for names ending in `gamma`, `beta` or `bias`, decays only `_weight` names,
//!   and multiplies momentum by `lr_now / lr_before` (scheduled lr, once per update call).
//! - DCASGD is Python NDArray arithmetic (each operation rounds). MXNet 1.9.1 cannot run
//!   it with momentum (`if mom:` on an array raises), so kiln's momentum path applies the
//!   evident formula (`mom ← μ·mom − lr·(...)`) without an MXNet trajectory to match.

use super::kernel::{clip, for_each, sign, sum_sq, Real};
use super::rule::{Buffers, Common, Globals, Init, StateSpec, Step};

/// SGD (`sgd`, `ccsgd`).
#[derive(Clone, Debug, PartialEq)]
pub struct Sgd {
    pub c: Common,
    pub momentum: f64,
}

impl Sgd {
    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        multi_sgd(&self.c, self.momentum, T::param(s.lr), T::param(s.wd), b);
    }
}

/// MXNet's `MultiSGDKernel` (and the preloaded variant LARS uses), with or without a
/// momentum buffer (`momentum > 0`, as the Python side decides).
fn multi_sgd<T: Real>(c: &Common, momentum: f64, lr: T, wd: T, b: Buffers<'_, T>) {
    let r = T::param(c.rescale_grad);
    let clip_bound = c.kernel_clip().map(T::param);
    let grad_step = move |g: T| match clip_bound {
        Some(bound) => lr * clip(r * g, bound),
        None => lr * r * g,
    };
    let [mom, _, _] = b.states;
    if momentum > 0.0 {
        let mu = T::param(momentum);
        for_each(b.weight, b.grad, [mom], move |w, g, [m]| {
            *m = mu * *m - lr * wd * w - grad_step(g);
            w + *m
        });
    } else {
        // MultiSGDParam's momentum defaults to 0: `0·0 − lr·wd·w − …`.
        let mu = T::ZERO;
        for_each(b.weight, b.grad, [], move |w, g, []| {
            let m = mu * T::ZERO - lr * wd * w - grad_step(g);
            w + m
        });
    }
}

/// Nesterov momentum (`nag`).
#[derive(Clone, Debug, PartialEq)]
pub struct Nag {
    pub c: Common,
    pub momentum: f64,
}

impl Nag {
    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let (lr, wd) = (T::param(s.lr), T::param(s.wd));
        let r = T::param(self.c.rescale_grad);
        let bound = self.c.kernel_clip().map(T::param);
        let rescaled = move |g: T| match bound {
            Some(bound) => clip(r * g, bound),
            None => r * g,
        };
        let [mom, _, _] = b.states;
        if self.momentum > 0.0 {
            let mu = T::param(self.momentum);
            for_each(b.weight, b.grad, [mom], move |w, g, [m]| {
                *m = mu * *m;
                let out = w - *m + (mu + T::ONE) * (*m - lr * (rescaled(g) + wd * w));
                // The kernel runs in place (out = weight): the momentum's decay term reads
                // the weight it has just written.
                *m = *m - lr * (rescaled(g) + wd * out);
                out
            });
        } else {
            // sgd_update (SGDKernel): `(1 − lr·wd)·w − lr·clip(r·g)`, or `(lr·r)·g`.
            for_each(b.weight, b.grad, [], move |w, g, []| match bound {
                Some(bound) => (T::ONE - lr * wd) * w - lr * clip(r * g, bound),
                None => (T::ONE - lr * wd) * w - (lr * r) * g,
            });
        }
    }
}

/// Signum, and signSGD when momentum is 0 (`signum`).
#[derive(Clone, Debug, PartialEq)]
pub struct Signum {
    pub c: Common,
    pub momentum: f64,
    pub wd_lh: f64,
}

impl Signum {
    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let (lr, wd) = (T::param(s.lr), T::param(s.wd));
        let [mom, _, _] = b.states;
        if !mom.is_empty() {
            // signum_update; its momentum parameter is passed only when positive.
            let mu = T::param(self.momentum.max(0.0));
            let r = T::param(self.c.rescale_grad);
            let bound = self.c.kernel_clip().map(T::param);
            let wd_lh = T::param(self.wd_lh);
            let one_minus = T::ONE - mu;
            for_each(b.weight, b.grad, [mom], move |w, g, [m]| {
                *m = match bound {
                    Some(bound) => mu * *m - one_minus * wd * w - one_minus * clip(r * g, bound),
                    None => mu * *m - one_minus * wd * w - one_minus * r * g,
                };
                (T::ONE - lr * wd_lh) * w + lr * sign(*m)
            });
        } else {
            // signsgd_update: no rescaling, no clipping.
            for_each(b.weight, b.grad, [], move |w, g, []| {
                (T::ONE - lr * wd) * w - lr * sign(g)
            });
        }
    }
}

/// Layer-wise adaptive rate scaling (`lars`).
#[derive(Clone, Debug, PartialEq)]
pub struct Lars {
    pub c: Common,
    pub momentum: f64,
    pub eta: f64,
    pub eps: f64,
    pub momentum_correction: bool,
}

/// `Step::extra` slots LARS fills.
const LARS_MOMENTUM: usize = 0;
const LARS_SCALES: usize = 1;

impl Lars {
    /// MXNet's `_get_lrs` bookkeeping: the scheduled lr of this call and of the last.
    pub fn begin_call(globals: &mut Globals, lr: f64) {
        if let Some(cur) = globals.cur_lr {
            globals.last_lr = Some(cur);
        }
        if globals.cur_lr.is_none() {
            globals.last_lr = Some(lr);
        }
        globals.cur_lr = Some(lr);
    }

    pub fn prepare(&self, globals: &Globals, mut step: Step, name: &str) -> Step {
        let (cur, last) = (
            globals.cur_lr.unwrap_or(step.lr),
            globals.last_lr.unwrap_or(step.lr),
        );
        step.extra[LARS_MOMENTUM] = if self.momentum_correction && last != 0.0 {
            self.momentum * (cur / last)
        } else {
            self.momentum
        };
        let excluded = name.ends_with("gamma") || name.ends_with("beta") || name.ends_with("bias");
        step.extra[LARS_SCALES] = if excluded { 0.0 } else { 1.0 };
        step
    }

    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        // multi_lars, in f32 whatever the weight's dtype (its lrs array is float32).
        let mut lr = s.lr as f32;
        let wd = s.wd as f32;
        if s.extra[LARS_SCALES] != 0.0 {
            let w_norm = b.weight_sum_sq.unwrap_or_else(|| sum_sq(b.weight)).sqrt();
            let g_sum_sq = sum_sq(b.grad);
            if w_norm > 0.0 && g_sum_sq > 0.0 {
                let (eta, eps, r) = (self.eta as f32, self.eps as f32, self.c.rescale_grad as f32);
                lr = lr * eta * w_norm / (g_sum_sq.sqrt() * r + wd * w_norm + eps);
            }
        }
        let momentum = if self.momentum > 0.0 {
            s.extra[LARS_MOMENTUM]
        } else {
            0.0
        };
        multi_sgd(&self.c, momentum, T::from_f32(lr), T::from_f32(wd), b);
    }
}

/// Delay-compensated asynchronous SGD (`dcasgd`).
#[derive(Clone, Debug, PartialEq)]
pub struct Dcasgd {
    pub c: Common,
    pub momentum: f64,
    pub lamda: f64,
}

impl Dcasgd {
    /// (momentum if any, previous weight).
    pub fn states(&self, shape: &[usize]) -> Vec<StateSpec> {
        let mut states = Vec::with_capacity(2);
        if self.momentum != 0.0 {
            states.push(StateSpec::zeros_like(shape));
        }
        states.push(StateSpec {
            shape: shape.to_vec(),
            init: Init::Weight,
        });
        states
    }

    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let r = T::scalar(self.c.rescale_grad);
        let bound = self.c.python_clip().map(T::scalar);
        let (neg_lr, wd, lamda) = (T::scalar(-s.lr), T::scalar(s.wd), T::scalar(self.lamda));
        let step = move |w: T, g: T, prev: T| {
            let g = g * r;
            let g = bound.map_or(g, |c| clip(g, c));
            ((g + w * wd) + g * lamda * g * (w - prev)) * neg_lr
        };
        let [first, second, _] = b.states;
        if self.momentum != 0.0 {
            let mu = T::scalar(self.momentum);
            for_each(b.weight, b.grad, [first, second], move |w, g, [m, prev]| {
                *m = *m * mu + step(w, g, *prev);
                *prev = w;
                w + *m
            });
        } else {
            for_each(b.weight, b.grad, [first], move |w, g, [prev]| {
                let m = step(w, g, *prev);
                *prev = w;
                w + m
            });
        }
    }
}
