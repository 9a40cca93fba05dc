//! Implicit gemm: a product's packed operand gathered from its input straight into
//! kiln-gemm's panels ([`kiln_gemm::PackB`]), block by block as the product runs, instead
//! of a pack kernel writing the whole operand first — for a convolution's windows,
//! im2col's buffer (7.4 MB for ResNet's first layer, one image) is never written and its
//! panels are packed from the input while in cache.
//!
//! The operand is `pack[base + d·rs + w]` for gemm's B (row `d`, column `w`), where the
//! pack is [`Windows`] over its input; the compiler admits it only where columns span
//! the pack's trailing axes and every row step is whole spans ([`Windows::fit`]), so a
//! panel row's columns run along the trailing axes in runs of the innermost one: each
//! run is a strided copy of the input (or zeros) except where a bound cuts through it.
//!
//! Where a panel's columns lie in one run, its rows need no copy at all: gemm reads them
//! where they are, through a table of their addresses ([`PackB::rows`]): for a step of 2,
//! in the input's two phases (even and odd elements, split once per product by
//! [`Gather::stage`]), and only rows cut by a bound are gathered, into the spill gemm
//! gives. ResNet's first convolution (rows of 112 in AVX2's 16-wide panels) is read so,
//! all but the rows its padding cuts: 8% faster than gathered. A step of 1, whose gather
//! is a plain copy, keeps its packed panels: read in place, a 5x5 and a dilated 3x3
//! layer ran no faster or 2–8% slower.

use kiln_compiler::kir::Windows;
use kiln_compiler::DType;
use kiln_gemm::{Isa, PackB, Real};

const MAX_BOUNDS: usize = Windows::MAX_BOUNDS;

/// A pack's windows over its input, ready to pack panels of B.
pub struct Gather {
    windows: Windows,
    /// The input's first element.
    src: *const u8,
    /// Axes `..lead` are the rows', `lead..` the columns' (spanning `span` elements).
    lead: usize,
    span: i64,
    /// Where the innermost step is 2 and gemm's panels fit its runs, the input's
    /// elements (of `dtype`) split into its even ones, then its odd ones
    /// ([`Gather::stage`]), `half` apart, in the pack's workspace
    /// ([`Windows::phases_len`]): a run along the innermost axis is contiguous in one of
    /// them. Null where unused.
    phases: *mut u8,
    dtype: DType,
    half: i64,
}

// SAFETY: a gather reads its input and writes its phases (its pack's workspace), both held
// by the product's operation, which the engine runs once at a time; `stage` writes them
// before any task of the product reads them.
unsafe impl Send for Gather {}
// SAFETY: as for Send.
unsafe impl Sync for Gather {}

impl Gather {
    /// `windows` over the input at `src`, for a product whose columns span `span`
    /// elements of the pack (the trailing axes of that size; [`Windows::fit`] found them).
    /// `phases` is the pack's workspace, of [`Windows::phases_len`] elements of `dtype`.
    ///
    /// # Panics
    /// Where no trailing axes span `span` (`fit` would not have admitted the pack).
    pub fn new(
        windows: Windows,
        src: *const u8,
        span: i64,
        phases: *mut u8,
        dtype: DType,
    ) -> Gather {
        let lead = (windows.lead(span)).expect("a gathered pack's columns span its trailing axes");
        // Panels lie in runs where the runs are whole panels (ResNet's rows of 112 in AVX2's
        // 16 columns, not AVX-512's 64: there the phases would go unread).
        let panel = match dtype {
            DType::F64 => <f64 as Real>::tile().1,
            _ => <f32 as Real>::tile().1,
        };
        let runs = windows
            .extents
            .last()
            .is_some_and(|&e| e % panel as i64 == 0);
        let split = windows.phases_len() > 0 && runs;
        Gather {
            half: windows.phases_len() / 2,
            windows,
            src,
            lead,
            span,
            phases: if split { phases } else { std::ptr::null_mut() },
            dtype,
        }
    }

    /// Splits the input into its phases, where gemm reads rows of a step of 2 from them:
    /// before each product, once the input is written.
    pub fn stage(&self) {
        if self.phases.is_null() {
            return;
        }
        let (len, half) = (self.windows.input_len as usize, self.half as usize);
        let phases = self.phases;
        // SAFETY: the input holds `len` elements; the phases `2 · half ≥ len`, and only this
        // product's operation uses them (its workspace), before its panels are read.
        unsafe {
            match self.dtype {
                DType::F64 => split_phases(self.src as *const u64, len, phases as *mut u64, half),
                _ => split_phases(self.src as *const u32, len, phases as *mut u32, half),
            }
        }
    }

    /// The terms of coordinates over axes `axes` of linear position `at` within them.
    fn terms(&self, at: i64, axes: std::ops::Range<usize>) -> Terms {
        let w = &self.windows;
        let mut t = Terms::default();
        let mut rest = at;
        for a in axes.rev() {
            let e = w.extents[a];
            let c = rest % e;
            rest /= e;
            t.src += c * w.strides[a];
            for (v, b) in t.bounds.iter_mut().zip(&w.bounds) {
                *v += c * b.coefficients[a];
            }
        }
        t
    }

    /// B as this pack at `base + d·rs + w` (elements of the pack), in `T`.
    pub fn operand<T>(&self, base: i64, rs: i64) -> GatherB<'_, T> {
        GatherB {
            gather: self,
            base,
            rs,
            _t: std::marker::PhantomData,
        }
    }
}

/// B's elements `pack[base + d·rs + w]`, gathered from the input of `gather`.
pub struct GatherB<'a, T> {
    gather: &'a Gather,
    base: i64,
    rs: i64,
    _t: std::marker::PhantomData<T>,
}

// SAFETY: reads only (see `Gather`).
unsafe impl<T> Sync for GatherB<'_, T> {}

/// A point's source offset and bound values, from its coordinates over some axes.
#[derive(Clone, Copy, Default)]
struct Terms {
    src: i64,
    bounds: [i64; MAX_BOUNDS],
}

/// A run of a panel row: `len` columns from panel column `at`, along the innermost axis,
/// with the terms of its first column; and for each bound, the row values (a row's
/// terms) for which the bound holds at every column of the run, `[lo, hi)`, and those for
/// which it holds at none (below the first or from the second).
#[derive(Clone, Copy, Default)]
struct Run {
    at: usize,
    len: usize,
    terms: Terms,
    inside: [(i64, i64); MAX_BOUNDS],
    outside: [(i64, i64); MAX_BOUNDS],
}

impl Run {
    fn new(w: &Windows, at: usize, len: usize, terms: Terms) -> Run {
        let last = w.extents.len() - 1;
        let mut run = Run {
            at,
            len,
            terms,
            // Slots past the pack's bounds hold at every column.
            inside: [(i64::MIN, i64::MAX); MAX_BOUNDS],
            outside: [(i64::MIN, i64::MAX); MAX_BOUNDS],
        };
        for (b, bound) in w.bounds.iter().enumerate() {
            // Along the run the bound's value moves from v to v + reach (a row adds r).
            let v = terms.bounds[b];
            let reach = bound.coefficients[last] * (len as i64 - 1);
            let (low, high) = (v + reach.min(0), v + reach.max(0));
            run.inside[b] = (bound.lo.saturating_sub(low), bound.hi.saturating_sub(high));
            run.outside[b] = (bound.lo.saturating_sub(high), bound.hi.saturating_sub(low));
        }
        run
    }

    /// Whether every bound holds at every column of this run in a row of terms `row`.
    fn holds(&self, row: &Terms) -> bool {
        (row.bounds.iter().zip(&self.inside)).all(|(r, (lo, hi))| (*lo..*hi).contains(r))
    }
}

impl<T: Real> PackB<T> for GatherB<'_, T> {
    unsafe fn pack(
        &self,
        d0: usize,
        w0: usize,
        depth: usize,
        width: usize,
        panel: usize,
        dst: *mut T,
    ) {
        let at = (d0, w0, depth, width, panel);
        // SAFETY: as the caller promised; each instruction set only where the CPU has it
        // (`isa` says so only then).
        unsafe {
            match kiln_gemm::isa() {
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => pack_avx512(self, at, dst),
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => pack_avx2(self, at, dst),
                _ => self.pack_panels(at, dst),
            }
        }
    }

    unsafe fn rows(
        &self,
        d0: usize,
        w0: usize,
        depth: usize,
        (width, panel): (usize, usize),
        rows: *mut *const T,
        spill: *mut T,
    ) -> bool {
        let g = self.gather;
        // Phases are staged only for rows of a step of 2 whose runs are whole panels.
        if g.phases.is_null() {
            return false;
        }
        let phases = g.phases as *const T;
        let w = &g.windows;
        let rank = w.extents.len();
        let inner = w.extents[rank - 1];
        let first_column = |q: usize| self.column(w0 + q * panel);
        // Each panel's columns in one run of the innermost axis.
        if (0..width / panel).any(|q| first_column(q) % inner + panel as i64 > inner) {
            return false;
        }
        let mut terms = [Terms::default(); 64];
        for first in (0..depth).step_by(terms.len()) {
            let block = terms.len().min(depth - first);
            for (d, t) in terms[..block].iter_mut().enumerate() {
                *t = self.row_terms(d0 + first + d);
            }
            for q in 0..width / panel {
                let at = first_column(q);
                let run = Run::new(w, 0, panel, g.terms(at, g.lead..rank));
                for (d, row) in terms[..block].iter().enumerate() {
                    let d = first + d;
                    let whole = run.holds(row);
                    let start = w.offset + row.src + run.terms.src;
                    // SAFETY: row d of panel q's slots in `rows` and `spill` (the caller's
                    // contract); a whole run's elements are the pack's, inside the input's
                    // phases (`half` apart); a cut one is gathered as `pack` would.
                    unsafe {
                        let address = match whole {
                            true => phases.offset((start % 2 * g.half + start / 2) as isize),
                            false => {
                                let slot = spill.add((q * depth + d) * panel);
                                gather_run(w, g.src as *const T, row, &run, slot);
                                slot as *const T
                            }
                        };
                        *rows.add(q * depth + d) = address;
                    }
                }
            }
        }
        true
    }
}

/// Element `i` of `src` (`len` long) to `dst[i mod 2 · half + i / 2]`.
///
/// # Safety
/// `src` holds `len` elements, `dst` `2 · half ≥ len`.
unsafe fn split_phases<E: Copy>(src: *const E, len: usize, dst: *mut E, half: usize) {
    // SAFETY: as the caller promised.
    unsafe {
        let (src, dst) = (
            std::slice::from_raw_parts(src, len),
            std::slice::from_raw_parts_mut(dst, 2 * half),
        );
        let (even, odd) = dst.split_at_mut(half);
        for (pair, (e, o)) in src.chunks_exact(2).zip(even.iter_mut().zip(odd)) {
            (*e, *o) = (pair[0], pair[1]);
        }
        if len % 2 == 1 {
            even[len / 2] = src[len - 1];
        }
    }
}

/// The packing compiled for AVX2 (its copies of steps 1 and 2 in 256-bit vectors).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn pack_avx2<T: Real>(b: &GatherB<T>, at: Block, dst: *mut T) {
    // SAFETY: as `pack`'s caller promised.
    unsafe { b.pack_panels(at, dst) }
}

/// The packing compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn pack_avx512<T: Real>(b: &GatherB<T>, at: Block, dst: *mut T) {
    // SAFETY: as `pack`'s caller promised.
    unsafe { b.pack_panels(at, dst) }
}

/// A block of B to pack: first row, first column, rows, columns, panel width.
type Block = (usize, usize, usize, usize, usize);

impl<T: Real> GatherB<'_, T> {
    /// The terms of B's row `d` (its point over the pack's leading axes).
    #[inline(always)]
    fn row_terms(&self, d: usize) -> Terms {
        let g = self.gather;
        let row = self.base.div_euclid(g.span) + d as i64 * (self.rs / g.span);
        g.terms(row, 0..g.lead)
    }

    /// B's column `c` as a position over the pack's trailing axes.
    #[inline(always)]
    fn column(&self, c: usize) -> i64 {
        self.base.rem_euclid(self.gather.span) + c as i64
    }

    /// [`PackB::pack`], inlined into each instruction set's form.
    ///
    /// # Safety
    /// As [`PackB::pack`].
    #[inline(always)]
    unsafe fn pack_panels(&self, (d0, w0, depth, width, panel): Block, dst: *mut T) {
        let g = self.gather;
        let w = &g.windows;
        let rank = w.extents.len();
        let last = rank - 1;
        let src = g.src as *const T;
        let inner = w.extents[last];
        let mut runs = [Run::default(); 64];
        let mut rows = [Terms::default(); 64];
        // Rows in blocks whose terms are found once, then every panel's runs for them.
        for first in (0..depth).step_by(rows.len()) {
            let block = rows.len().min(depth - first);
            for (d, row) in rows[..block].iter_mut().enumerate() {
                *row = self.row_terms(d0 + first + d);
            }
            for q in (0..width).step_by(panel) {
                let cols = panel.min(width - q);
                // SAFETY: row `first` of panel q / panel of `dst`, which holds `width` rounded
                // up to `panel` by `depth` elements (the caller's contract).
                let out = unsafe { dst.add(q * depth + first * panel) };
                // The panel's columns as runs along the innermost axis (a panel of more
                // than 64 columns in pieces of 64).
                for piece in (0..cols).step_by(runs.len()) {
                    let piece_cols = runs.len().min(cols - piece);
                    let (mut count, mut c) = (0, 0);
                    while c < piece_cols {
                        let at = self.column(w0 + q + piece + c);
                        let len = ((inner - at % inner) as usize).min(piece_cols - c);
                        runs[count] = Run::new(w, piece + c, len, g.terms(at, g.lead..rank));
                        (count, c) = (count + 1, c + len);
                    }
                    for (d, row) in rows[..block].iter().enumerate() {
                        for run in &runs[..count] {
                            // SAFETY: the run's columns lie in row d of this block of the
                            // panel; the input holds every element of the pack's points
                            // whose bounds hold (the pack kernel reads the same ones), the
                            // only ones read.
                            unsafe { gather_run(w, src, row, run, out.add(d * panel + run.at)) };
                        }
                    }
                }
                if cols < panel {
                    for d in 0..block {
                        // SAFETY: columns cols..panel of row d of this block of the panel.
                        unsafe {
                            std::ptr::write_bytes(out.add(d * panel + cols), 0, panel - cols)
                        };
                    }
                }
            }
        }
    }
}

/// One run of a panel row into `out`: a strided copy, zeros, or element by element
/// where a bound cuts through it.
///
/// # Safety
/// `out` holds the run's `len` elements; the input holds every point of it that its
/// bounds keep.
#[inline(always)]
unsafe fn gather_run<T: Real>(w: &Windows, src: *const T, row: &Terms, run: &Run, out: *mut T) {
    let last = w.extents.len() - 1;
    let step = w.strides[last];
    let start = w.offset + row.src + run.terms.src;
    // Every slot checked (those past the bounds always pass): a fixed loop, unrolled.
    let rows = &row.bounds;
    let all = run.holds(row);
    let none = || (rows.iter().zip(&run.outside)).any(|(r, (lo, hi))| !(*lo..*hi).contains(r));
    // SAFETY: as the caller promised.
    unsafe {
        if all {
            copy(src, (start, w.input_len), step, out, run.len)
        } else if none() {
            std::ptr::write_bytes(out, 0, run.len)
        } else {
            // Cut by a bound: the columns every bound keeps are one range (each bound's
            // value is affine along the run), zeros either side.
            let (mut first, mut end) = (0, run.len as i64);
            for (b, bound) in w.bounds.iter().enumerate() {
                let (v, c) = (rows[b] + run.terms.bounds[b], bound.coefficients[last]);
                let (lo, hi) = kept(v, c, (bound.lo, bound.hi), run.len as i64);
                (first, end) = (first.max(lo), end.min(hi));
            }
            let len = run.len as i64;
            let first = first.min(len);
            let end = end.clamp(first, len);
            std::ptr::write_bytes(out, 0, first as usize);
            let from = start + first * step;
            copy(
                src,
                (from, w.input_len),
                step,
                out.add(first as usize),
                (end - first) as usize,
            );
            std::ptr::write_bytes(out.add(end as usize), 0, run.len - end as usize);
        }
    }
}

/// The points `t` in `0..len` with `lo ≤ v + c·t < hi`, as a range `[first, end)` (empty
/// where `first ≥ end`).
fn kept(v: i64, c: i64, (lo, hi): (i64, i64), len: i64) -> (i64, i64) {
    // Ceiling division by a positive divisor.
    let ceil = |x: i64, d: i64| {
        x.div_euclid(d)
            .saturating_add(i64::from(x.rem_euclid(d) != 0))
    };
    match c.signum() {
        0 => match (lo..hi).contains(&v) {
            true => (0, len),
            false => (0, 0),
        },
        // v + c·t ≥ lo from t ≥ ⌈(lo − v)/c⌉, < hi below ⌈(hi − v)/c⌉.
        1 => (
            ceil(lo.saturating_sub(v), c).max(0),
            ceil(hi.saturating_sub(v), c).min(len),
        ),
        // Decreasing: v + c·t < hi from t > (v − hi)/|c|, ≥ lo up to (v − lo)/|c|.
        _ => {
            let d = -c;
            let first = (v.saturating_sub(hi)).div_euclid(d).saturating_add(1);
            let end = (v.saturating_sub(lo)).div_euclid(d).saturating_add(1);
            (first.max(0), end.min(len))
        }
    }
}

/// `out[t] = src[start + t·step]` for `t < len`, the input `src_len` long, with the
/// common steps compiled apart: unit steps eight at a time, steps of 2 (strided
/// convolutions) as sixteen contiguous elements read and every other one kept.
///
/// # Safety
/// The elements read are inside the input, `out` holds `len` elements.
#[inline(always)]
unsafe fn copy<T: Real>(
    src: *const T,
    (start, src_len): (i64, i64),
    step: i64,
    out: *mut T,
    len: usize,
) {
    const CHUNK: usize = 8;
    if len == 0 {
        // Nothing to read, and `start` may lie outside the input (a run no column of
        // which its bounds keep).
        return;
    }
    // SAFETY: as the caller promised; a chunk of step 2 reads 2·CHUNK elements from its
    // first, inside the input where the run's last read plus one is.
    unsafe {
        let from = src.offset(start as isize);
        let mut t = 0;
        match step {
            1 => {
                while t + CHUNK <= len {
                    let chunk = (from.add(t) as *const [T; CHUNK]).read_unaligned();
                    (out.add(t) as *mut [T; CHUNK]).write_unaligned(chunk);
                    t += CHUNK;
                }
            }
            2 if start + 2 * len as i64 <= src_len => {
                while t + CHUNK <= len {
                    let pairs = (from.add(2 * t) as *const [T; 2 * CHUNK]).read_unaligned();
                    let evens: [T; CHUNK] = std::array::from_fn(|i| pairs[2 * i]);
                    (out.add(t) as *mut [T; CHUNK]).write_unaligned(evens);
                    t += CHUNK;
                }
            }
            _ => {}
        }
        for t in t..len {
            *out.add(t) = *from.offset(t as isize * step as isize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{kept, DType, Gather};
    use kiln_compiler::kir::{Bound, Windows};
    use kiln_gemm::{PackB, Real};

    /// im2col of a `channels × size × size` input by `k × k` taps, stride `s`, padding
    /// `p`, dilation `dil`, as the compiler describes it.
    fn im2col(channels: i64, size: i64, k: i64, (s, p, dil): (i64, i64, i64)) -> Windows {
        let o = (size + 2 * p - dil * (k - 1) - 1) / s + 1;
        Windows {
            input: 0,
            input_len: channels * size * size,
            extents: vec![channels, k, k, o, o],
            offset: -p * size - p,
            strides: vec![size * size, dil * size, dil, s * size, s],
            bounds: vec![
                Bound {
                    coefficients: vec![0, dil, 0, s, 0],
                    lo: p,
                    hi: size + p,
                },
                Bound {
                    coefficients: vec![0, 0, dil, 0, s],
                    lo: p,
                    hi: size + p,
                },
            ],
        }
    }

    /// A gather of `w` over `input` for columns spanning `span`, its phases in `phases`
    /// ([`Windows::phases_len`] long).
    fn gather_of<T: Real>(w: &Windows, input: &[T], span: i64, phases: &mut [T]) -> Gather {
        let dtype = if size_of::<T>() == 8 {
            DType::F64
        } else {
            DType::F32
        };
        let (src, phases) = (input.as_ptr() as *const u8, phases.as_mut_ptr() as *mut u8);
        Gather::new(w.clone(), src, span, phases, dtype)
    }

    /// Element `at` of the pack `w` describes, from its formula.
    fn element<T: Real>(w: &Windows, input: &[T], at: i64) -> T {
        let mut coords = vec![0; w.extents.len()];
        let mut rest = at;
        for (c, e) in coords.iter_mut().zip(&w.extents).rev() {
            (*c, rest) = (rest % e, rest / e);
        }
        let dot = |k: &[i64]| k.iter().zip(&coords).map(|(k, c)| k * c).sum::<i64>();
        let kept = (w.bounds.iter()).all(|b| (b.lo..b.hi).contains(&dot(&b.coefficients)));
        match kept {
            true => input[(w.offset + dot(&w.strides)) as usize],
            false => T::default(),
        }
    }

    /// Blocks of B packed by a gather, at odd first rows and columns, widths and panel
    /// widths, from a base offset by whole spans and columns: each panel element as the
    /// pack's formula gives it, zeros past the width.
    fn check<T: Real + From<f32> + PartialEq + std::fmt::Debug>() {
        for (what, w) in [
            ("7x7/2 pad 3", im2col(2, 20, 7, (2, 3, 1))),
            ("3x3 dilation 2 pad 2", im2col(3, 9, 3, (1, 2, 2))),
            ("3x3/3 pad 1", im2col(2, 11, 3, (3, 1, 1))),
        ] {
            let input: Vec<T> = (0..w.input_len).map(|i| T::from(i as f32 + 1.0)).collect();
            let span = w.extents[3] * w.extents[4];
            let rows = w.elements() / span;
            let mut phases = vec![T::default(); w.phases_len() as usize];
            let gather = gather_of(&w, &input, span, &mut phases);
            // A block's columns stay within one span (as `Windows::fit` ensures).
            for (base, d0, w0, depth, width, panel) in [
                (0, 0, 0, rows, span, 16),
                (span + 3, 1, 5, rows - 2, span - 9, 8),
                (7, 3, 0, 5, (span - 7).min(37), 64),
            ] {
                let (depth, width) = (depth as usize, width as usize);
                let b = gather.operand::<T>(base, span);
                let mut dst = vec![T::from(-7.0); width.next_multiple_of(panel) * depth];
                // SAFETY: dst holds width rounded up to the panel by depth elements; the rows
                // and columns lie inside the pack.
                unsafe { b.pack(d0, w0, depth, width, panel, dst.as_mut_ptr()) };
                for q in (0..width).step_by(panel) {
                    for d in 0..depth {
                        for c in 0..panel {
                            let at = base + (d0 + d) as i64 * span + (w0 + q + c) as i64;
                            let want = match q + c < width {
                                true => element(&w, &input, at),
                                false => T::default(),
                            };
                            let got = dst[q * depth + d * panel + c];
                            assert_eq!(got, want, "{what}: base {base} row {d} column {}", q + c);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn gathered_panels_hold_the_packs_elements() {
        check::<f32>();
        check::<f64>();
    }

    /// Panels of this machine's gemm read where their rows lie (rows of a step of 2 in
    /// the input's phases; rows cut by the padding spilled): each row's columns as the
    /// pack's formula gives them. No table where a panel would cross a run, where runs
    /// are no whole panels (no phases are staged), or for any other step.
    fn check_rows<T: Real + From<f32> + PartialEq + std::fmt::Debug>() {
        let nr = T::tile().1;
        let size = nr as i64;
        let stem = im2col(2, 4 * size - 1, 7, (2, 3, 1));
        for (what, w, shift, tabled) in [
            ("7x7/2 pad 3", stem.clone(), 0, true),
            ("panels across runs", stem, nr / 2, false),
            (
                "runs of no whole panels",
                im2col(2, 4 * size + 1, 7, (2, 3, 1)),
                0,
                false,
            ),
            ("a step of 1", im2col(2, 2 * size, 3, (1, 2, 2)), 0, false),
            ("3x3/3 pad 1", im2col(2, 6 * size, 3, (3, 1, 1)), 0, false),
        ] {
            let panel = nr;
            let input: Vec<T> = (0..w.input_len).map(|i| T::from(i as f32 + 1.0)).collect();
            let span = w.extents[3] * w.extents[4];
            let rows = (w.elements() / span) as usize;
            let mut phases = vec![T::default(); w.phases_len() as usize];
            let gather = gather_of(&w, &input, span, &mut phases);
            gather.stage();
            // From the second row and panel, at a base of one span and one panel.
            let (base, d0, w0) = (span + panel as i64, 1, panel + shift);
            let (depth, width) = (rows - 1, (span as usize - 3 * panel) / panel * panel);
            let b = gather.operand::<T>(base, span);
            let mut table = vec![std::ptr::null(); width / panel * depth];
            let mut spill = vec![T::from(-7.0); width * depth];
            // SAFETY: the table and spill hold a panel's rows, the rows and columns lie inside
            // the pack.
            let got = unsafe {
                b.rows(
                    d0,
                    w0,
                    depth,
                    (width, panel),
                    table.as_mut_ptr(),
                    spill.as_mut_ptr(),
                )
            };
            assert_eq!(got, tabled, "{what}");
            if !tabled {
                continue;
            }
            for q in 0..width / panel {
                for d in 0..depth {
                    for c in 0..panel {
                        let at = base + (d0 + d) as i64 * span + (w0 + q * panel + c) as i64;
                        // SAFETY: the table's rows hold `panel` elements each.
                        let got = unsafe { *table[q * depth + d].add(c) };
                        let want = element(&w, &input, at);
                        assert_eq!(got, want, "{what}: row {d} column {}", q * panel + c);
                    }
                }
            }
        }
    }

    #[test]
    fn panels_read_by_rows_hold_the_packs_elements() {
        check_rows::<f32>();
        check_rows::<f64>();
    }

    /// The kept range of a run against counting point by point, for rising, falling and
    /// flat values and bounds that cut, hold or miss a run.
    #[test]
    fn a_runs_kept_points_are_those_its_bound_holds_at() {
        for c in -3..=3 {
            for v in -12..12 {
                for (lo, hi) in [(0, 5), (-4, 9), (3, 4), (i64::MIN, 2), (-1, i64::MAX)] {
                    let len = 7;
                    let holds: Vec<i64> = (0..len)
                        .filter(|t| (lo..hi).contains(&(v + c * t)))
                        .collect();
                    let (first, end) = kept(v, c, (lo, hi), len);
                    let got: Vec<i64> = (first.max(0)..end.min(len)).collect();
                    assert_eq!(got, holds, "v {v}, c {c}, bound [{lo}, {hi})");
                }
            }
        }
    }
}
