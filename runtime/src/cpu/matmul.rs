//! Matrix products ([`MatMul`], recognized in the kernel IR) on kiln's [`gemm`], split over
//! the kernels' pool (along an outer loop, or the larger operand's side; a small output
//! with a long depth along the depth, its partial products then added), each block's
//! epilogue applied right after its products are stored where the split follows the
//! epilogue's outer loop, else once after all of them.

use super::gemm::{self, Product, Real, Strided};
use super::pool;
use super::windows::Gather;
use kiln_compiler::kir::matmul::{MatMul, OuterLoop, Split, MAX_LOOPS, PARALLEL_FLOPS};
use kiln_compiler::DType;

/// Raw pointers handed to the pool's tasks.
struct Buffers<'a> {
    a: *const u8,
    b: *const u8,
    out: *mut u8,
    /// Add the products into `out`, even the first of a sum's (a streamed sum's later
    /// indices).
    add: bool,
    /// Operands `a` and `b` gathered from their input into gemm's panels instead of
    /// read at `a` and `b` (at most one).
    gathers: [Option<&'a Gather>; 2],
}
// SAFETY: tasks write disjoint blocks of the output and only read the operands.
unsafe impl Send for Buffers<'_> {}
// SAFETY: as for Send: tasks share the pointers but write disjoint output blocks.
unsafe impl Sync for Buffers<'_> {}

/// Multiply-adds per gemm call below which the compiled kernel is faster than gemm's
/// packing (a 3x3 convolution without padding is a sum of products of a few columns).
const LEAST_CALL_FLOPS: i64 = 1 << 14;

/// Whether `mm` is better run on gemm than as its compiled kernel.
pub fn pays(mm: &MatMul) -> bool {
    mm.m * mm.n * mm.k >= LEAST_CALL_FLOPS
}

/// The blocks of the split axis a run splits into: one a thread. (Two a thread, each
/// packing its own part of the packed operand and reading all of the other, ran the
/// MLP's training step 2.5% and LeNet's 2–4% slower on a Zen 3, ResNet-18 at batch 1
/// 2%, each variant's steps taking turns in one process.)
pub fn tasks(mm: &MatMul) -> usize {
    if matches!(mm.split, Split::None) || mm.flops() < PARALLEL_FLOPS {
        return 1;
    }
    pool::global().threads().min(mm.split_extent as usize)
}

/// The least depth a part of a split depth gets: a few of gemm's own depth blocks, so each
/// part's tiles run long.
const LEAST_PART_DEPTH: i64 = 2048;

/// The parts a product's depth splits into over the pool, or 1: where its output is too
/// small to give every thread whole register tiles (`tile`: rows × columns) and its depth
/// is long — a weight gradient summed over a batch's positions, LeNet's first convolution
/// 20 × 25 deep 36,864: split by columns, each task ran 6 columns of a 64-wide tile.
fn depth_parts(mm: &MatMul, tile: (usize, usize)) -> usize {
    let threads = pool::global().threads();
    let plain = mm.loops.is_empty() && mm.sums.is_empty();
    let small = (mm.m * mm.n) < (threads * tile.0 * tile.1) as i64;
    if !plain || !small || threads < 2 || mm.flops() < PARALLEL_FLOPS {
        return 1;
    }
    threads.min((mm.k / LEAST_PART_DEPTH) as usize).max(1)
}

/// Runs `mm`: `inputs` are its kernel's input buffers, `out` its output; `gathers`, the
/// operands (`a`, `b`; at most one) gathered from their input instead of read from
/// theirs. Where the split is aligned with the epilogue's outer loop,
/// `epilogue(Some((lo, hi)))` runs after the products of block `[lo, hi)` are stored;
/// else `epilogue(None)` runs once at the end.
///
/// # Safety
/// Every pointer must hold its buffer (the kernel's lengths, in `mm.dtype`), and `out`
/// must not overlap the operands.
pub unsafe fn run(
    mm: &MatMul,
    inputs: &[*const u8],
    gathers: [Option<&Gather>; 2],
    out: *mut u8,
    epilogue: &(dyn Fn(Option<(i64, i64)>) + Sync),
) {
    for g in gathers.iter().flatten() {
        g.stage();
    }
    let bufs = Buffers {
        a: inputs[mm.a.input],
        b: inputs[mm.b.input],
        out,
        add: false,
        gathers,
    };
    // SAFETY: as the caller promised.
    unsafe { run_buffers(mm, &bufs, epilogue) }
}

/// Runs `mm` split over the pool as [`run`] does, its operands at `a` and `b` (each
/// addressed by `mm`'s offsets and strides), adding its products into `out` where `add`
/// (a streamed sum's later indices), without an epilogue.
///
/// # Safety
/// As [`run`], for the buffers these addresses start.
pub unsafe fn run_adding(mm: &MatMul, a: *const u8, b: *const u8, out: *mut u8, add: bool) {
    let bufs = Buffers {
        a,
        b,
        out,
        add,
        gathers: [None; 2],
    };
    // SAFETY: as the caller promised.
    unsafe { run_buffers(mm, &bufs, &|_| {}) }
}

unsafe fn run_buffers(mm: &MatMul, bufs: &Buffers, epilogue: &(dyn Fn(Option<(i64, i64)>) + Sync)) {
    let parts = match mm.dtype {
        DType::F64 => depth_parts(mm, <f64 as Real>::tile()),
        _ => depth_parts(mm, <f32 as Real>::tile()),
    };
    if parts > 1 {
        // SAFETY: as the caller promised.
        unsafe {
            match mm.dtype {
                DType::F64 => by_depth::<f64>(mm, bufs, parts),
                _ => by_depth::<f32>(mm, bufs, parts),
            }
        }
        return epilogue(None);
    }
    let tasks = tasks(mm);
    let extent = mm.split_extent;
    let in_blocks = mm.split_aligned && tasks > 1;
    pool::global().run(tasks, &|t| {
        let (lo, hi) = (
            extent * t as i64 / tasks as i64,
            extent * (t as i64 + 1) / tasks as i64,
        );
        // SAFETY: as the caller promised; blocks of the split axis are disjoint.
        unsafe {
            match mm.dtype {
                DType::F64 => block::<f64>(mm, bufs, lo, hi),
                _ => block::<f32>(mm, bufs, lo, hi),
            }
        }
        if in_blocks {
            epilogue(Some((lo, hi)));
        }
    });
    if !in_blocks {
        epilogue(None);
    }
}

/// Runs all of `mm` on the calling thread (a streamed product's one index,
/// [`MatMul::per_index`]), its operands at `a` and `b` and its output at `out`, each
/// addressed by `mm`'s offsets and strides, added to what `out` holds where `add`.
///
/// # Safety
/// As [`run`], for the buffers these addresses start.
pub unsafe fn run_here(mm: &MatMul, a: *const u8, b: *const u8, out: *mut u8, add: bool) {
    let bufs = Buffers {
        a,
        b,
        out,
        add,
        gathers: [None; 2],
    };
    // SAFETY: as the caller promised.
    unsafe {
        match mm.dtype {
            DType::F64 => block::<f64>(mm, &bufs, 0, mm.split_extent),
            _ => block::<f32>(mm, &bufs, 0, mm.split_extent),
        }
    }
}

/// Adds the partial products at `partials`, each laid out as `mm`'s output, into its
/// output at `out` (a summed loop's indices shared among tasks), in order.
///
/// # Safety
/// `mm` has no outer loops; `out` and every partial hold its `m × n` outputs at its
/// output strides.
pub unsafe fn add_partials(mm: &MatMul, out: *mut u8, partials: &[*mut u8]) {
    // SAFETY: as the caller promised.
    unsafe {
        match mm.dtype {
            DType::F64 => add_partials_of::<f64>(mm, out, partials),
            _ => add_partials_of::<f32>(mm, out, partials),
        }
    }
}

/// [`add_partials`] in the product's dtype.
///
/// # Safety
/// As [`add_partials`].
unsafe fn add_partials_of<T: Real>(mm: &MatMul, out: *mut u8, partials: &[*mut u8]) {
    for i in 0..mm.m {
        for j in 0..mm.n {
            let at = (i * mm.out_rows + j * mm.out_cols) as usize;
            // SAFETY: (i, j) lies inside the output and every partial (the caller's
            // contract).
            unsafe {
                let sum = (out as *mut T).add(at);
                for &p in partials {
                    *sum = *sum + *(p as *const T).add(at);
                }
            }
        }
    }
}

thread_local! {
    /// The calling thread's space for the partial products of a split depth (reserved
    /// capacity, in f64s; its length stays 0), so warm steps allocate nothing.
    static PARTIALS: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Reserves the calling thread's space for the partial products of any split depth
/// ([`depth_parts`] splits only outputs under `threads` register tiles, into at most
/// `threads` parts). The engine's CPU workers call it as they start, so which worker runs
/// a product never makes a training step allocate.
pub fn reserve_partials() {
    let threads = pool::global().threads();
    let tile_bytes = |(rows, cols): (usize, usize), size: usize| rows * cols * size;
    let tile = tile_bytes(<f32 as Real>::tile(), 4).max(tile_bytes(<f64 as Real>::tile(), 8));
    let bytes = threads.saturating_sub(1) * threads * tile;
    PARTIALS.with(|p| p.borrow_mut().reserve(bytes.div_ceil(size_of::<f64>())));
}

/// A plain product (no loops) with its depth in `parts` parts over the pool: the first
/// into the output (added where `bufs.add`), each other into a dense partial product of
/// its own, which are then added into the output in order.
///
/// # Safety
/// As [`run`]; `mm` has no outer or summed loops.
unsafe fn by_depth<T: Real>(mm: &MatMul, bufs: &Buffers, parts: usize) {
    let (m, n) = (mm.m as usize, mm.n as usize);
    let per_part = m * n;
    let words = ((parts - 1) * per_part * size_of::<T>()).div_ceil(size_of::<f64>());
    let partials = PARTIALS.with(|p| {
        let mut p = p.borrow_mut();
        p.reserve(words);
        p.as_mut_ptr() as *mut T
    });
    let shared = Partials(partials);
    // SAFETY: as the caller promised; each task writes the output or its own partial.
    pool::global().run(parts, &|t| unsafe {
        depth_part(mm, bufs, &shared, (t, parts))
    });
    let out = bufs.out as *mut T;
    for part in 1..parts {
        for i in 0..m {
            for j in 0..n {
                // SAFETY: (i, j) is inside the output and inside part `part`'s partial product.
                unsafe {
                    let at = out.offset(
                        i as isize * mm.out_rows as isize + j as isize * mm.out_cols as isize,
                    );
                    *at = *at + *partials.add((part - 1) * per_part + i * n + j);
                }
            }
        }
    }
}

/// The partial products of a split depth, one after another (`m × n` each, dense).
struct Partials<T>(*mut T);
// SAFETY: each task writes its own partial product only.
unsafe impl<T> Sync for Partials<T> {}

/// Part `t` of `parts` of a plain product's depth: into the output for the first, else
/// into its partial product.
///
/// # Safety
/// As [`by_depth`], `partials` holding `parts - 1` partial products.
unsafe fn depth_part<T: Real>(
    mm: &MatMul,
    bufs: &Buffers,
    partials: &Partials<T>,
    (t, parts): (usize, usize),
) {
    let (m, n, k) = (mm.m as usize, mm.n as usize, mm.k as usize);
    let (k0, k1) = (k * t / parts, k * (t + 1) / parts);
    let (c, c_rs, c_cs, accumulate) = match t {
        0 => (
            bufs.out as *mut T,
            mm.out_rows as isize,
            mm.out_cols as isize,
            bufs.add,
        ),
        // SAFETY: part t ≥ 1 has its own m × n elements of the partials.
        _ => (
            unsafe { partials.0.add((t - 1) * m * n) },
            n as isize,
            1,
            false,
        ),
    };
    let depth = k0 as i64;
    let at = [
        mm.a.offset + depth * mm.a.depth,
        mm.b.offset + depth * mm.b.depth,
    ];
    // SAFETY: the depth range k0..k1 lies inside both operands (the kernel's own index
    // ranges), and C is the output (part 0) or this part's partial product.
    unsafe { multiply::<T>(mm, bufs, (m, n, k1 - k0), at, (c, c_rs, c_cs), accumulate) };
}

/// One gemm call of `mm`'s operands from element `at` of each (`a`'s, `b`'s), `m × n`
/// and `k` deep, into `c` at its strides; an operand gathered from its input becomes
/// B's panels (the product transposed where it is `a`: `Cᵀ = Bᵀ·Aᵀ`).
///
/// # Safety
/// The operands' elements from `at` lie in their buffers (or gathers), C's in its own.
unsafe fn multiply<T: Real>(
    mm: &MatMul,
    bufs: &Buffers,
    (m, n, k): (usize, usize, usize),
    at: [i64; 2],
    (c, c_rs, c_cs): (*mut T, isize, isize),
    accumulate: bool,
) {
    let a = Strided {
        ptr: (bufs.a as *const T).wrapping_offset(at[0] as isize),
        rs: mm.a.stride as isize,
        cs: mm.a.depth as isize,
    };
    let b = Strided {
        ptr: (bufs.b as *const T).wrapping_offset(at[1] as isize),
        rs: mm.b.depth as isize,
        cs: mm.b.stride as isize,
    };
    let product = Product {
        m,
        n,
        k,
        a,
        b,
        c,
        c_rs,
        c_cs,
        accumulate,
    };
    // SAFETY: as the caller promised; a gathered operand is read through its gather only,
    // the transposed product reaching exactly the same elements.
    unsafe {
        match bufs.gathers {
            [None, Some(g)] => gemm::run_packing_b(&product, &g.operand::<T>(at[1], mm.b.depth)),
            [Some(g), None] => {
                let transposed = product.transposed();
                gemm::run_packing_b(&transposed, &g.operand::<T>(at[0], mm.a.depth))
            }
            [None, None] => gemm::run(&product),
            [Some(_), Some(_)] => unreachable!("the compiler gathers one operand a product"),
        }
    }
}

/// The products of block `[lo, hi)` of the split axis.
unsafe fn block<T: Real>(mm: &MatMul, bufs: &Buffers, lo: i64, hi: i64) {
    let out = bufs.out as *mut T;
    let (mut rows, mut cols) = ((0, mm.m), (0, mm.n));
    // Outer loops, then the summed ones (innermost, so each output block accumulates in
    // turn), as one odometer of (loop, first index) on the stack.
    let count = mm.loops.len() + mm.sums.len();
    let none = OuterLoop {
        extent: 1,
        a: 0,
        b: 0,
        out: 0,
    };
    let mut loops = [(none, 0i64); MAX_LOOPS];
    for (slot, l) in loops.iter_mut().zip(mm.loops.iter().chain(&mm.sums)) {
        *slot = (*l, 0);
    }
    let loops = &mut loops[..count];
    match mm.split {
        Split::Loop(l) => {
            loops[l].0.extent = hi;
            loops[l].1 = lo;
        }
        Split::Rows { inner } => rows = (lo * inner, hi * inner),
        Split::Cols { inner } => cols = (lo * inner, hi * inner),
        Split::None => {}
    }
    let mut index = [0i64; MAX_LOOPS];
    let index = &mut index[..count];
    for (i, (_, start)) in index.iter_mut().zip(loops.iter()) {
        *i = *start;
    }
    if loops.iter().any(|(l, start)| l.extent <= *start) {
        return;
    }
    let sums = mm.sums.len();
    loop {
        let (mut ao, mut bo, mut oo) = (mm.a.offset, mm.b.offset, 0);
        for ((l, _), &i) in loops.iter().zip(index.iter()) {
            (ao, bo, oo) = (ao + i * l.a, bo + i * l.b, oo + i * l.out);
        }
        let first = index[count - sums..].iter().all(|&i| i == 0);
        let size = (
            (rows.1 - rows.0) as usize,
            (cols.1 - cols.0) as usize,
            mm.k as usize,
        );
        let at = [ao + rows.0 * mm.a.stride, bo + cols.0 * mm.b.stride];
        // SAFETY: the offsets stay inside the buffers (the kernel's own index ranges).
        unsafe {
            let c = out.offset((oo + rows.0 * mm.out_rows + cols.0 * mm.out_cols) as isize);
            let c = (c, mm.out_rows as isize, mm.out_cols as isize);
            multiply::<T>(mm, bufs, size, at, c, bufs.add || !first);
        }
        // Next index, innermost first.
        let mut d = count;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < loops[d].0.extent {
                break;
            }
            index[d] = loops[d].1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_compiler::kir::matmul::Operand;

    /// A product's depth in parts, each into the output or a partial product added after,
    /// against the sum over the depth in f64: A depth-major and B row-major as a weight
    /// gradient's packs are, the output column-major and added to.
    #[test]
    fn a_split_depth_sums_to_the_whole_product() {
        let (m, n, k) = (20usize, 25usize, 5000usize);
        let a: Vec<f32> = (0..m * k)
            .map(|i| ((i * 7 % 13) as f32 - 6.0) * 0.1)
            .collect();
        let b: Vec<f32> = (0..k * n)
            .map(|i| ((i * 5 % 11) as f32 - 5.0) * 0.1)
            .collect();
        let mm = MatMul {
            m: m as i64,
            n: n as i64,
            k: k as i64,
            a: Operand {
                input: 0,
                offset: 0,
                stride: 1,
                depth: m as i64,
            },
            b: Operand {
                input: 1,
                offset: 0,
                stride: 1,
                depth: n as i64,
            },
            out_rows: 1,
            out_cols: m as i64,
            loops: vec![],
            sums: vec![],
            split: Split::None,
            split_extent: 1,
            split_aligned: false,
            split_axis: None,
            dtype: DType::F32,
            packs: vec![],
            epilogue: None,
        };
        let before: Vec<f32> = (0..m * n).map(|i| i as f32).collect();
        for parts in [2, 3] {
            let mut out = before.clone();
            let bufs = Buffers {
                a: a.as_ptr() as *const u8,
                b: b.as_ptr() as *const u8,
                out: out.as_mut_ptr() as *mut u8,
                add: true,
                gathers: [None; 2],
            };
            // SAFETY: the buffers hold the product's operands and output as `mm` addresses
            // them.
            unsafe { by_depth::<f32>(&mm, &bufs, parts) };
            for i in 0..m {
                for j in 0..n {
                    let sum: f64 = (0..k)
                        .map(|d| a[d * m + i] as f64 * b[d * n + j] as f64)
                        .sum();
                    let want = before[j * m + i] as f64 + sum;
                    let got = out[j * m + i] as f64;
                    assert!(
                        (got - want).abs() <= 1e-3,
                        "{parts} parts: ({i}, {j}) {got} against {want}"
                    );
                }
            }
        }
    }
}
