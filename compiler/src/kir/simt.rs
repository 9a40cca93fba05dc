//! A SIMT emulator: runs a [`Kernel`] under the element-wise GPU schedule that
//! [`cuda::render`](super::cuda::render) emits — a grid of `grid` blocks of `block`
//! threads, each thread striding over the flattened domain and recovering its coordinates
//! by division — so the CUDA kernel's indexing is checked against the oracle without a
//! GPU. Threads run one after another; that is exact while the schedule has no shared
//! memory or barriers (those arrive with GPU reductions). Out-of-bounds loads, two threads
//! storing to one element, and elements no thread stores are reported as errors.

use super::interp::{allocate_outputs, idx, val, Env};
use super::ir::Kernel;
use kiln_ops::Tensor;

/// Runs `k` on a `grid` × `block` launch with symbolic dimensions bound to `dims`.
pub fn run(
    k: &Kernel,
    grid: u32,
    block: u32,
    inputs: &[&Tensor],
    dims: &[i64],
    out_shapes: &[Vec<usize>],
) -> Result<Vec<Tensor>, String> {
    if grid == 0 || block == 0 {
        return Err(format!(
            "kernel `{}`: empty launch {grid} x {block}",
            k.name
        ));
    }
    let mut env = Env {
        coords: vec![0; k.domain.len()],
        temps: vec![0.0; k.temps.len()],
        red: vec![],
        dims,
        inputs,
    };
    let mut outs = allocate_outputs(&k.outputs, &env, out_shapes)?;
    let extents = k
        .domain
        .iter()
        .map(|e| idx(e, &env))
        .collect::<Result<Vec<_>, _>>()?;
    let n: i64 = extents.iter().product();
    // The thread that stored each element, to report races and gaps.
    let mut writer: Vec<Option<(u32, u32)>> = vec![None; n.max(0) as usize];
    let stride = i64::from(grid) * i64::from(block);
    for b in 0..grid {
        for t in 0..block {
            let mut lin = i64::from(b) * i64::from(block) + i64::from(t);
            while lin < n {
                let mut rest = lin;
                for axis in (1..extents.len()).rev() {
                    env.coords[axis] = rest % extents[axis];
                    rest /= extents[axis];
                }
                if let Some(c) = env.coords.first_mut() {
                    *c = rest;
                }
                let at = |e: String| {
                    format!(
                        "kernel `{}`, block {b} thread {t}, element {lin}: {e}",
                        k.name
                    )
                };
                if let Some((b0, t0)) = writer[lin as usize].replace((b, t)) {
                    return Err(at(format!("race: block {b0} thread {t0} stored it too")));
                }
                for (t, v) in k.temps.iter().enumerate() {
                    env.temps[t] = val(v, &env).map_err(at)?;
                }
                for (o, v) in k.values.iter().enumerate() {
                    let x = val(v, &env).map_err(at)?;
                    let out = &mut outs[o];
                    let slot = out
                        .data
                        .get_mut(lin as usize)
                        .ok_or_else(|| at(format!("out{o} is out of bounds")))?;
                    *slot = out.dtype.round(x);
                }
                lin += stride;
            }
        }
    }
    if let Some(gap) = writer.iter().position(Option::is_none) {
        return Err(format!(
            "kernel `{}`: no thread of the {grid} x {block} launch stored element {gap}",
            k.name
        ));
    }
    Ok(outs)
}
