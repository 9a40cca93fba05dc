//! The arithmetic every update rule is written in: [`Real`] (f32 and f64, one generic
//! body per rule), MXNet's clip, and loops over the runtime's pool that split a parameter's
//! arrays into disjoint ranges (allocation-free: the ranges are raw-pointer views made per
//! task, never buffers).
//!
//! Scalars reach the element loops the way MXNet's do, so that the same operations round
//! the same way: a fused kernel's parameters are `float` fields of its parameter struct
//! ([`Real::param`] rounds through f32), a Python-side scalar operation casts its double to
//! the array's dtype ([`Real::scalar`]).

use kiln_runtime::cpu::pool;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A float type an update computes in.
pub trait Real:
    Copy
    + Send
    + Sync
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + kiln_runtime::Element
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    /// A fused kernel's parameter: MXNet's parameter structs hold `float`s.
    fn param(v: f64) -> Self;
    /// A Python scalar in an NDArray expression (`grad * 0.5`): cast to the dtype.
    fn scalar(v: f64) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn powf(self, e: Self) -> Self;
    fn to_f32(self) -> f32;
    fn from_f32(v: f32) -> Self;
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn param(v: f64) -> f32 {
        v as f32
    }
    fn scalar(v: f64) -> f32 {
        v as f32
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    fn powf(self, e: f32) -> f32 {
        f32::powf(self, e)
    }
    fn to_f32(self) -> f32 {
        self
    }
    fn from_f32(v: f32) -> f32 {
        v
    }
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn param(v: f64) -> f64 {
        v as f32 as f64
    }
    fn scalar(v: f64) -> f64 {
        v
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn powf(self, e: f64) -> f64 {
        f64::powf(self, e)
    }
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn from_f32(v: f32) -> f64 {
        v as f64
    }
}

/// MXNet's `mshadow_op::clip` (and the `clip` operator with ±bound): NaN passes through.
#[inline(always)]
pub fn clip<T: Real>(x: T, bound: T) -> T {
    if x > bound {
        bound
    } else if x < -bound {
        -bound
    } else {
        x
    }
}

/// `(x > 0) − (x < 0)`, as MXNet's sign kernels compute it (0 for 0 and NaN).
#[inline(always)]
pub fn sign<T: Real>(x: T) -> T {
    if x > T::ZERO {
        T::ONE
    } else if x < T::ZERO {
        -T::ONE
    } else {
        T::ZERO
    }
}

/// Element operations per range below which a loop stays on the calling thread.
const WORK_PER_ELEMENT: i64 = 16;

/// A buffer's address shared by tasks that each use a disjoint range of it.
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);
// SAFETY: tasks only make slices of disjoint ranges from it (see `for_each`).
unsafe impl<T> Sync for Shared<T> {}
// SAFETY: as Sync: the pointer is only turned into disjoint ranges.
unsafe impl<T> Send for Shared<T> {}

impl<T> Shared<T> {
    /// Elements `lo..hi` as a slice.
    ///
    /// # Safety
    /// `lo..hi` lies within the buffer and no other live slice overlaps it.
    #[allow(clippy::mut_from_ref)]
    unsafe fn range(&self, lo: usize, hi: usize) -> &mut [T] {
        // SAFETY: forwarded to the caller.
        unsafe { std::slice::from_raw_parts_mut(self.0.add(lo), hi - lo) }
    }
}

/// Runs `f(weight, grad, states)` for every element, writing the new weight and states
/// back: the body of every element-wise rule. The `K` state arrays are as long as the
/// weight; the loop runs in ranges over the pool when the arrays are large. `f` is a
/// `move` closure holding its scalars by value (a closure of references is `Copy` too,
/// but its loop reloads every scalar per element).
pub fn for_each<T: Real, const K: usize>(
    weight: &mut [T],
    grad: &[T],
    mut states: [&mut [T]; K],
    f: impl Fn(T, T, &mut [T; K]) -> T + Sync + Copy,
) {
    let n = weight.len().min(grad.len());
    let n = states.iter().fold(n, |n, s| n.min(s.len()));
    let w = Shared(weight.as_mut_ptr());
    let s: [Shared<T>; K] = std::array::from_fn(|k| Shared(states[k].as_mut_ptr()));
    // `states` is not used again: its exclusive borrows are now the pointers in `s`.
    pool::global().run_rows(n as i64, n as i64 * WORK_PER_ELEMENT, &|lo, hi| {
        let (lo, hi) = (lo as usize, hi as usize);
        // SAFETY: `lo..hi` lies within every array (all hold at least `n` elements), the
        // pool gives each task a disjoint range, and the caller's exclusive borrows of the
        // weight and states last for this call.
        let w = unsafe { w.range(lo, hi) };
        // SAFETY: as for the weight; each state array is a distinct buffer.
        let st: [&mut [T]; K] = std::array::from_fn(|k| unsafe { s[k].range(lo, hi) });
        let g = &grad[lo..hi];
        // The rule copied onto this task's stack keeps its scalars in registers, and the
        // loop vectorizes; read through the shared closure, they could change with every
        // store to the weights (SGD 5× slower).
        let rule = f;
        for i in 0..hi - lo {
            let mut local: [T; K] = std::array::from_fn(|k| st[k][i]);
            w[i] = rule(w[i], g[i], &mut local);
            for (k, v) in local.into_iter().enumerate() {
                st[k][i] = v;
            }
        }
    });
}

/// Σ x² into an f32 accumulator in index order, each square in the dtype, as MXNet's
/// `multi_sum_sq` does on the CPU (`float sum; sum += a[j] * a[j]`).
pub fn sum_sq<T: Real>(x: &[T]) -> f32 {
    x.iter()
        .fold(0.0f32, |sum, &v| (T::from_f32(sum) + v * v).to_f32())
}

/// [`sum_sq`] of f16 values: each square rounded to f16 as mshadow's `half_t` product is.
pub fn sum_sq_f16(x: &[half::f16]) -> f32 {
    x.iter().fold(0.0f32, |sum, &v| {
        let square = half::f16::from_f32(v.to_f32() * v.to_f32());
        sum + square.to_f32()
    })
}
