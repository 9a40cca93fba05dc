//! A matrix product of the kernel IR ([`MatMul`]) as cuBLAS calls: cuBLAS reads each
//! operand column-major or transposed at a leading dimension ([`MatMul::blas_a`] and the
//! like, which the compiler's `Target::blas` guarantees by packing), so a row-major output
//! is computed as its transpose, `Cᵀ = Bᵀ·Aᵀ`.

use crate::device::{DevicePtr, Gemm};
use crate::error::{GpuError, Result};
use kiln_compiler::kir::matmul::{MatMul, OuterLoop};

/// The cuBLAS calls of product `mm` on operands at `a` and `b` into `c`: its innermost
/// outer loop as a strided batch, a call per index of its other outer and summed loops,
/// summed loops after the first index accumulating.
pub(crate) fn gemms(
    step: &str,
    mm: &MatMul,
    a: DevicePtr,
    b: DevicePtr,
    c: DevicePtr,
) -> Result<Vec<Gemm>> {
    let unfit = |what: &str, s: (i64, i64)| {
        GpuError::Bind(format!(
            "product `{step}`: {what} has strides {s:?}, neither of them 1; cuBLAS cannot read it"
        ))
    };
    let (m, n, k) = (mm.m, mm.n, mm.k);
    let (a_layout, b_layout, c_layout) = (mm.blas_a(), mm.blas_b(), mm.blas_output());
    let a_layout = a_layout.ok_or_else(|| unfit("operand a", (mm.a.stride, mm.a.depth)))?;
    let b_layout = b_layout.ok_or_else(|| unfit("operand b", (mm.b.depth, mm.b.stride)))?;
    let (c_t, ldc) = c_layout.ok_or_else(|| unfit("the output", (mm.out_rows, mm.out_cols)))?;
    // C (m × n) column-major, or Cᵀ (n × m) = Bᵀ·Aᵀ where C is row-major: an operand
    // transposed for one is as it is for the other. The match gives cuBLAS's A and B.
    let flip = |(t, ld): (bool, i64)| (!t, ld);
    let ((ta, lda), (tb, ldb), (gm, gn)) = match c_t {
        false => (a_layout, b_layout, (m, n)),
        true => (flip(b_layout), flip(a_layout), (n, m)),
    };
    let (lda, ldb, ldc) = (lda as usize, ldb as usize, ldc as usize);
    let size = mm.dtype.size();
    // The innermost outer loop is cuBLAS's batch (strided batches), where its strides are
    // not negative; the other loops, summed ones last, are a call each.
    let batched = (mm.loops.last()).filter(|l| l.a >= 0 && l.b >= 0 && l.out > 0);
    let (batch, strides) = match batched {
        Some(l) => {
            let (a, b) = if c_t { (l.b, l.a) } else { (l.a, l.b) };
            (l.extent as usize, [a as usize, b as usize, l.out as usize])
        }
        None => (1, [0; 3]),
    };
    let outer = &mm.loops[..mm.loops.len() - usize::from(batched.is_some())];
    let loops: Vec<OuterLoop> = outer.iter().chain(&mm.sums).copied().collect();
    let sums = mm.sums.len();
    let total: i64 = loops.iter().map(|l| l.extent).product();
    let mut out = Vec::with_capacity(total.max(0) as usize);
    for mut i in 0..total {
        let (mut ao, mut bo, mut co, mut first) = (mm.a.offset, mm.b.offset, 0, true);
        for (d, l) in loops.iter().enumerate().rev() {
            let x = i % l.extent;
            i /= l.extent;
            (ao, bo, co) = (ao + x * l.a, bo + x * l.b, co + x * l.out);
            first &= d < loops.len() - sums || x == 0;
        }
        let at = |p: DevicePtr, off: i64| p.offset(off as usize * size);
        let (pa, pb) = (at(a, ao), at(b, bo));
        let (x, y) = if c_t { (pb, pa) } else { (pa, pb) };
        out.push(Gemm {
            dtype: mm.dtype,
            trans_a: ta,
            trans_b: tb,
            m: gm as usize,
            n: gn as usize,
            k: k as usize,
            alpha: 1.0,
            a: x,
            lda,
            b: y,
            ldb,
            beta: if first { 0.0 } else { 1.0 },
            c: at(c, co),
            ldc,
            batch,
            strides,
        });
    }
    Ok(out)
}
