//! The random generator behind imperative sampling: a seed and a counter, held as an engine
//! variable that every random operation writes. Each operation's Philox key is drawn at
//! push time, in program order, so a seed gives the same numbers whatever the thread count.

use super::NDArray;
use crate::engine::Var;
use crate::Result;
use kiln_compiler::builders;
use kiln_ops::{DType, Value};
use std::sync::{Mutex, OnceLock};

struct Generator {
    /// (seed, operations keyed so far).
    state: Mutex<(u64, u64)>,
    var: Var,
}

fn generator() -> &'static Generator {
    static GEN: OnceLock<Generator> = OnceLock::new();
    GEN.get_or_init(|| Generator {
        state: Mutex::new((0, 0)),
        var: super::engine().new_var(),
    })
}

/// Restarts the stream from `seed` (MXNet's `mx.random.seed`).
pub fn seed(seed: u64) {
    *generator().state.lock().unwrap_or_else(|e| e.into_inner()) = (seed, 0);
}

/// The key of the next random operation, and the generator's variable.
pub(crate) fn next_key() -> ([u32; 2], Var) {
    let g = generator();
    let mut state = g.state.lock().unwrap_or_else(|e| e.into_inner());
    let key = kiln_ops::random::key(state.0, state.1);
    state.1 += 1;
    (key, g.var.clone())
}

fn shape_value(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&d| d as i64).collect()
}

fn only(mut v: Vec<NDArray>) -> NDArray {
    v.swap_remove(0)
}

/// Uniform samples in [low, high).
pub fn uniform(low: f64, high: f64, shape: &[usize], dtype: DType) -> Result<NDArray> {
    builders::random_uniform::<NDArray>()
        .low(low)
        .high(high)
        .shape(&shape_value(shape))
        .dtype(Value::DType(dtype).to_mxnet_string().as_str())
        .build()
        .map(only)
        .map_err(Into::into)
}

/// Normal samples with mean `loc` and standard deviation `scale`.
pub fn normal(loc: f64, scale: f64, shape: &[usize], dtype: DType) -> Result<NDArray> {
    builders::random_normal::<NDArray>()
        .loc(loc)
        .scale(scale)
        .shape(&shape_value(shape))
        .dtype(Value::DType(dtype).to_mxnet_string().as_str())
        .build()
        .map(only)
        .map_err(Into::into)
}
