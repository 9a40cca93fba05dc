//! FTRL-proximal (`ftrl`), MXNet 1.9.1's `ftrl_update` (`src/operator/optimizer_op-inl.h`).
//!
//! Clipping applies to the rescaled gradient without wd; wd enters the denominator of the
//! closed-form weight, `w = (sign(z)·λ1 − z) / ((β + √n)/lr + wd)` where `|z| > λ1`, else 0.
//! Its learning rate defaults to 0.1 and, unlike the other optimizers', never overrides a
//! scheduler's base rate (MXNet's `Ftrl.__init__` sets it after the base class).

use super::kernel::{clip, for_each, sign, Real};
use super::rule::{Buffers, Common, Step};

#[derive(Clone, Debug, PartialEq)]
pub struct Ftrl {
    pub c: Common,
    pub lamda1: f64,
    pub beta: f64,
}

impl Ftrl {
    pub fn apply<T: Real>(&self, s: &Step, b: Buffers<'_, T>) {
        let (lr, wd, r) = (
            T::param(s.lr),
            T::param(s.wd),
            T::param(self.c.rescale_grad),
        );
        let (beta, lamda1) = (T::param(self.beta), T::param(self.lamda1));
        let bound = self.c.kernel_clip().map(T::param);
        let [z, n, _] = b.states;
        for_each(b.weight, b.grad, [z, n], move |w, g, [z, n]| {
            let g = g * r;
            let g = bound.map_or(g, |c| clip(g, c));
            *z = *z + (g - ((*n + g * g).sqrt() - n.sqrt()) * w / lr);
            *n = *n + g * g;
            let active = if z.abs() > lamda1 { T::ONE } else { T::ZERO };
            (sign(*z) * lamda1 - *z) / ((beta + n.sqrt()) / lr + wd) * active
        });
    }
}
