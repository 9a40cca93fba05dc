//! Optimizer updates as engine operations, created once per parameter and pushed every
//! step (no allocation per step): MXNet's `sgd_update` math for now.

use crate::cpu::pool;
use crate::engine::{FnProperty, Operator};
use crate::ndarray::NDArray;
use crate::{Error, Result};
use kiln_compiler::DType;
use std::sync::Arc;

/// Plain SGD: `w ← (1 − lr·wd)·w − lr·rescale_grad·g` (MXNet's `sgd_update` without
/// gradient clipping or momentum).
#[derive(Clone, Copy, Debug)]
pub struct Sgd {
    pub lr: f64,
    pub wd: f64,
    pub rescale_grad: f64,
}

/// Elements below which an update runs on the calling thread.
const PARALLEL: usize = 1 << 16;

impl Sgd {
    /// The operation updating `weight` from `grad` (reads the gradient, writes the
    /// weight), for f32 and f64 arrays of one shape.
    pub fn operator(&self, weight: &NDArray, grad: &NDArray) -> Result<Arc<Operator>> {
        if weight.shape() != grad.shape() || weight.dtype() != grad.dtype() {
            return Err(Error::Input(format!(
                "sgd update: weight {:?} {} and gradient {:?} {} differ",
                weight.shape(),
                weight.dtype(),
                grad.shape(),
                grad.dtype()
            )));
        }
        if !matches!(weight.dtype(), DType::F32 | DType::F64) {
            return Err(Error::Input(format!(
                "sgd update: {} weights are not supported (f32, f64)",
                weight.dtype()
            )));
        }
        let (w, g, sgd) = (weight.clone(), grad.clone(), *self);
        let reads = [grad.var().clone()];
        let writes = [weight.var().clone()];
        let bytes = 2 * weight.nbytes() + grad.nbytes();
        Ok(crate::engine::Engine::global()
            .new_operator(
                "sgd_update",
                &reads,
                &writes,
                FnProperty::Normal,
                move || {
                    // SAFETY: the engine runs this after the gradient's writes and exclusively
                    // for the weight; the two are distinct arrays of one shape and dtype.
                    unsafe {
                        match w.dtype() {
                            DType::F64 => sgd.apply::<f64>(w.bytes_mut(), g.bytes()),
                            _ => sgd.apply::<f32>(w.bytes_mut(), g.bytes()),
                        }
                    }
                    Ok(())
                },
            )
            .with_bytes(bytes))
    }

    fn apply<T: Float>(&self, w: &mut [u8], g: &[u8]) {
        // SAFETY: NDArray storage is aligned for its dtype; any bits are valid floats.
        let (_, w, _) = unsafe { w.align_to_mut::<T>() };
        // SAFETY: as for the weights: aligned storage, any bits a valid float.
        let (_, g, _) = unsafe { g.align_to::<T>() };
        let keep = T::from_f64(1.0 - self.lr * self.wd);
        let step = T::from_f64(self.lr * self.rescale_grad);
        let n = w.len().min(g.len());
        let chunk = n.div_ceil(4 * pool::global().threads()).max(PARALLEL);
        let weights = Weights(w.as_mut_ptr());
        pool::global().run(n.div_ceil(chunk), &|t| {
            let (lo, hi) = (t * chunk, ((t + 1) * chunk).min(n));
            // SAFETY: tasks update disjoint ranges of the weights.
            let w = unsafe { weights.range(lo, hi) };
            for (w, &g) in w.iter_mut().zip(&g[lo..hi]) {
                *w = keep * *w - step * g;
            }
        });
    }
}

/// The weights' address, shared by the tasks that update disjoint ranges of them.
struct Weights<T>(*mut T);
// SAFETY: see `Sgd::apply`.
unsafe impl<T> Sync for Weights<T> {}

impl<T> Weights<T> {
    /// # Safety
    /// `lo..hi` within the weights, and no other task using it.
    #[allow(clippy::mut_from_ref)]
    unsafe fn range(&self, lo: usize, hi: usize) -> &mut [T] {
        // SAFETY: the caller keeps lo..hi within the weights and its task alone uses it (`range`'s
        // contract).
        unsafe { std::slice::from_raw_parts_mut(self.0.add(lo), hi - lo) }
    }
}

/// The float types an update computes in.
trait Float: Copy + Sync + std::ops::Mul<Output = Self> + std::ops::Sub<Output = Self> {
    fn from_f64(v: f64) -> Self;
}
impl Float for f32 {
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
}
impl Float for f64 {
    fn from_f64(v: f64) -> f64 {
        v
    }
}
