//! Products that are not worth packing: an empty depth, one row, few rows with both
//! operands along the depth.

use super::{mul_add, Product, Real, Strided};

/// `C = 0` (or unchanged when accumulating): the product of an empty depth.
pub(super) unsafe fn zero_depth<T: Real>(p: &Product<T>) {
    if p.accumulate {
        return;
    }
    for i in 0..p.m {
        for j in 0..p.n {
            // SAFETY: i < m and j < n: an element of C (`run`'s contract).
            unsafe { *p.c.offset(i as isize * p.c_rs + j as isize * p.c_cs) = T::default() };
        }
    }
}

/// The shorter side of C up to which products whose operands both run along the depth
/// are computed as dot products rather than packed.
pub(super) const DOT_MAX_SIDE: usize = 32;

/// C's blocks of `R × C` outputs, each as dot products of A's rows and B's columns (both
/// contiguous along the depth) summed in `L` vector lanes: no packing, which a product
/// with few rows could not pay back.
#[inline(always)]
pub(super) unsafe fn dot_blocks<
    T: Real,
    const R: usize,
    const C: usize,
    const L: usize,
    const FMA: bool,
>(
    p: &Product<T>,
) {
    let whole = p.k / L * L;
    for i0 in (0..p.m).step_by(R) {
        let rows = R.min(p.m - i0);
        // Lines past the edge repeat the last one; their sums are not stored.
        // SAFETY: i0 + min(i, rows - 1) < m: the start (depth 0, k > 0) of one of A's rows.
        let a: [*const T; R] = std::array::from_fn(|i| unsafe {
            p.a.ptr.offset((i0 + i.min(rows - 1)) as isize * p.a.rs)
        });
        for j0 in (0..p.n).step_by(C) {
            let cols = C.min(p.n - j0);
            // SAFETY: j0 + min(j, cols - 1) < n: the start (depth 0, k > 0) of one of B's columns.
            let b: [*const T; C] = std::array::from_fn(|j| unsafe {
                p.b.ptr.offset((j0 + j.min(cols - 1)) as isize * p.b.cs)
            });
            let mut acc = [[[T::default(); L]; C]; R];
            for d in (0..whole).step_by(L) {
                // SAFETY: d + L ≤ whole ≤ k, and the lines are contiguous along the depth
                // (`blocked` checked a.cs == 1 and b.rs == 1).
                let lanes = |x: *const T| unsafe { (x.add(d) as *const [T; L]).read_unaligned() };
                let (av, bv): ([[T; L]; R], [[T; L]; C]) = (
                    std::array::from_fn(|i| lanes(a[i])),
                    std::array::from_fn(|j| lanes(b[j])),
                );
                for i in 0..R {
                    for j in 0..C {
                        for l in 0..L {
                            acc[i][j][l] = mul_add::<T, FMA>(av[i][l], bv[j][l], acc[i][j][l]);
                        }
                    }
                }
            }
            for i in 0..rows {
                for j in 0..cols {
                    let mut sum = T::default();
                    for lane in acc[i][j] {
                        sum = sum + lane;
                    }
                    for d in whole..p.k {
                        // SAFETY: d < k along lines contiguous along the depth.
                        sum = unsafe { mul_add::<T, FMA>(*a[i].add(d), *b[j].add(d), sum) };
                    }
                    // SAFETY: element (i0 + i, j0 + j) of C, i0 + i < m and j0 + j < n; distinct
                    // from every other and apart from A and B (`run`'s contract).
                    let out = unsafe {
                        &mut *p
                            .c
                            .offset((i0 + i) as isize * p.c_rs + (j0 + j) as isize * p.c_cs)
                    };
                    *out = if p.accumulate { *out + sum } else { sum };
                }
            }
        }
    }
}

/// A product with one row whose operands do not both run along the depth: B's rows
/// contiguous, `C += a[d] · B[d, ..]` row by row; else one strided sum per output.
#[inline(always)]
pub(super) unsafe fn row_product<T: Real, const FMA: bool>(p: &Product<T>) {
    // SAFETY: called below only for A's (0, d) and B's (d, 0) or (d, j), d < k and j < n:
    // elements `run`'s contract makes valid.
    let at = |x: Strided<T>, i: usize, j: usize| unsafe {
        x.ptr.offset(i as isize * x.rs + j as isize * x.cs)
    };
    // SAFETY: called below only for j < n: C's element (0, j) (m == 1 here), distinct from
    // the others and apart from A and B (`run`'s contract).
    let c = |j: usize| unsafe { &mut *p.c.offset(j as isize * p.c_cs) };
    if p.b.cs == 1 {
        if !p.accumulate {
            (0..p.n).for_each(|j| *c(j) = T::default());
        }
        for d in 0..p.k {
            // SAFETY: d < k: A's element (0, d) and B's row d.
            let (x, row) = unsafe { (*at(p.a, 0, d), at(p.b, d, 0)) };
            for j in 0..p.n {
                let out = c(j);
                // SAFETY: b.cs == 1 and j < n: B's element (d, j).
                *out = mul_add::<T, FMA>(x, unsafe { *row.add(j) }, *out);
            }
        }
        return;
    }
    for j in 0..p.n {
        let mut sum = T::default();
        for d in 0..p.k {
            // SAFETY: d < k and j < n: A's (0, d) and B's (d, j).
            sum = unsafe { mul_add::<T, FMA>(*at(p.a, 0, d), *at(p.b, d, j), sum) };
        }
        let out = c(j);
        *out = if p.accumulate { *out + sum } else { sum };
    }
}
