//! cuBLAS's gemm on the emulated device: column-major operands at their leading
//! dimensions, transposes, `alpha` and `beta` (with `beta = 0` never reading `C`, so
//! uninitialized output memory holding NaN does not leak in, as cuBLAS guarantees),
//! strided batches, accumulated in f64 and stored in the operands' dtype.

use super::{Op, State};
use crate::device::Gemm;
use crate::error::Result;
use kiln_ops::Tensor;

pub(super) fn run(st: &mut State, op: &Op, g: &Gemm) -> Result<()> {
    let reads_c = g.beta != 0.0;
    let places = st.access(
        op,
        &[
            (g.a, g.extent(0), false),
            (g.b, g.extent(1), false),
            (g.c, g.extent(2), true),
        ],
    )?;
    let read = |st: &State, i: usize| {
        let bytes = st.bytes(&places[i]);
        let n = bytes.len() / g.dtype.size();
        Tensor::from_bytes(g.dtype, vec![n], bytes).map(|t| t.data)
    };
    let invalid = |e| crate::GpuError::invalid(op.name, format!("{e}"));
    let (av, bv) = (read(st, 0).map_err(invalid)?, read(st, 1).map_err(invalid)?);
    let mut cv = read(st, 2).map_err(invalid)?;
    // Element (i, j) of op(X), for X stored column-major with leading dimension ld.
    let at = |x: &[f64], ld: usize, trans: bool, i: usize, j: usize| {
        if trans {
            x[i * ld + j]
        } else {
            x[j * ld + i]
        }
    };
    let [sa, sb, sc] = g.strides;
    for batch in 0..g.batch {
        let (a, b) = (&av[batch * sa..], &bv[batch * sb..]);
        let c = &mut cv[batch * sc..];
        for j in 0..g.n {
            for i in 0..g.m {
                let mut sum = 0.0;
                for p in 0..g.k {
                    sum += at(a, g.lda, g.trans_a, i, p) * at(b, g.ldb, g.trans_b, p, j);
                }
                let slot = &mut c[j * g.ldc + i];
                let old = if reads_c { g.beta * *slot } else { 0.0 };
                *slot = g.dtype.round(g.alpha * sum + old);
            }
        }
    }
    let mut bytes = Vec::with_capacity(cv.len() * g.dtype.size());
    cv.iter().for_each(|&v| g.dtype.write(v, &mut bytes));
    st.bytes_mut(&places[2]).copy_from_slice(&bytes);
    Ok(())
}
