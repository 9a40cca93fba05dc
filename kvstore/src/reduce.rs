//! The store's one kernel: the sum of the arrays pushed for a key, in MXNet's order and
//! grouping (CommCPU's `ReduceSumCPU`: the first array, plus the others four at a time,
//! `s0 + (((s1 + s2) + s3) + s4)`, ...), so the sums equal MXNet's bit for bit. One source
//! is a copy.

use kiln_ops::DType;
use kiln_runtime::cpu::pool;
use kiln_runtime::{Engine, Error, FnProperty, NDArray, Operator, Result};
use std::ops::Add;
use std::sync::Arc;

/// Elements below which a reduction runs on the engine's thread alone.
const PARALLEL: usize = 1 << 16;

/// The operation writing the sum of `sources` into `dest` (same shape and dtype, checked
/// by the caller), to push any number of times.
pub fn operator(name: &str, sources: &[NDArray], dest: &NDArray) -> Result<Arc<Operator>> {
    if !summable(dest.dtype()) {
        return Err(Error::Input(format!(
            "{name}: {} arrays cannot be summed (f32, f64, f16, bf16)",
            dest.dtype()
        )));
    }
    // The kernel reads the sources while it writes the destination: they must not share
    // memory (an updater may hand the store's own arrays back to it).
    if sources.iter().any(|a| a.var().id() == dest.var().id()) {
        return Err(Error::Input(format!(
            "{name}: an array given is the store's own (the destination of this operation)"
        )));
    }
    let reads: Vec<_> = sources.iter().map(|a| a.var().clone()).collect();
    let (srcs, dst) = (sources.to_vec(), dest.clone());
    let bytes = (sources.len() + 1) * dest.nbytes();
    let op = Engine::global().new_operator(
        name,
        &reads,
        &[dest.var().clone()],
        FnProperty::Normal,
        move || match dst.dtype() {
            DType::F32 => sum::<f32>(&srcs, &dst),
            DType::F64 => sum::<f64>(&srcs, &dst),
            DType::F16 => sum::<half::f16>(&srcs, &dst),
            DType::BF16 => sum::<half::bf16>(&srcs, &dst),
            other => Err(format!("{other} arrays cannot be summed")),
        },
    );
    Ok(op.with_bytes(bytes))
}

/// The dtypes a store sums: MXNet's stores hold float arrays (weights and gradients).
fn summable(dtype: DType) -> bool {
    matches!(dtype, DType::F32 | DType::F64 | DType::F16 | DType::BF16)
}

/// The destination's address, shared by the tasks writing disjoint ranges of it.
struct Dest<T>(*mut T);
// SAFETY: tasks write disjoint ranges (`sum`), and the engine holds the array for them.
unsafe impl<T> Sync for Dest<T> {}

impl<T> Dest<T> {
    /// # Safety
    /// `lo..hi` lies within the destination, and no other task uses it.
    #[allow(clippy::mut_from_ref)]
    unsafe fn range(&self, lo: usize, hi: usize) -> &mut [T] {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.0.add(lo), hi - lo) }
    }
}

fn sum<T>(sources: &[NDArray], dest: &NDArray) -> Result<(), String>
where
    T: kiln_runtime::Element + Add<Output = T>,
{
    let mismatch = || format!("arrays of {} expected", T::DTYPE);
    // SAFETY: the engine runs this operation after every write of the sources and
    // exclusively for the destination, whose variable (so whose memory) no source shares
    // (`operator` refuses one that does).
    let srcs: Vec<&[T]> = unsafe {
        sources
            .iter()
            .map(|a| a.elements::<T>())
            .collect::<Option<_>>()
    }
    .ok_or_else(mismatch)?;
    // SAFETY: as above: the operation writes the destination alone.
    let out = unsafe { dest.elements_mut::<T>() }.ok_or_else(mismatch)?;
    let n = out.len();
    if srcs.iter().any(|s| s.len() != n) {
        return Err(format!("arrays of {n} elements expected"));
    }
    let chunk = n.div_ceil(4 * pool::global().threads()).max(PARALLEL);
    let dest = Dest(out.as_mut_ptr());
    pool::global().run(n.div_ceil(chunk), &|t| {
        let (lo, hi) = (t * chunk, ((t + 1) * chunk).min(n));
        // SAFETY: tasks write disjoint ranges `lo..hi` of the destination's `n` elements.
        let out = unsafe { dest.range(lo, hi) };
        sum_in_order(&srcs, lo, out);
    });
    Ok(())
}

/// Writes into `out[j]` the sum of `sources[k][start + j]` over the sources, in MXNet's
/// order and grouping (the module's doc): the one definition of it, for a process's
/// devices and for the workers of a distributed store (kiln-dist).
pub fn sum_in_order<T: Copy + Add<Output = T>>(sources: &[&[T]], start: usize, out: &mut [T]) {
    let Some((first, rest)) = sources.split_first() else {
        return;
    };
    let end = start + out.len();
    if rest.is_empty() {
        out.copy_from_slice(&first[start..end]);
        return;
    }
    for (j, o) in out.iter_mut().enumerate() {
        let i = start + j;
        let mut acc = first[i];
        for group in rest.chunks(4) {
            let mut g = group[0][i];
            for s in &group[1..] {
                g = g + s[i];
            }
            acc = acc + g;
        }
        *o = acc;
    }
}
