//! Matrix products ([`MatMul`], recognized in the kernel IR) on kiln's [`gemm`], split over
//! the kernels' pool (along an outer loop, or the larger operand's side), each block's
//! epilogue applied right after its products are stored where the split follows the
//! epilogue's outer loop, else once after all of them.

use super::gemm::{self, Product, Real, Strided};
use super::pool;
use kiln_compiler::kir::matmul::{MatMul, OuterLoop, Split, MAX_LOOPS, PARALLEL_FLOPS};
use kiln_compiler::DType;

/// Raw pointers handed to the pool's tasks.
struct Buffers {
    a: *const u8,
    b: *const u8,
    out: *mut u8,
    /// Add the products into `out`, even the first of a sum's (a streamed sum's later
    /// indices).
    add: bool,
}
// SAFETY: tasks write disjoint blocks of the output and only read the operands.
unsafe impl Send for Buffers {}
// SAFETY: as for Send: tasks share the pointers but write disjoint output blocks.
unsafe impl Sync for Buffers {}

/// Multiply-adds per gemm call below which the compiled kernel is faster than gemm's
/// packing (a 3x3 convolution without padding is a sum of products of a few columns).
const LEAST_CALL_FLOPS: i64 = 1 << 14;

/// Whether `mm` is better run on gemm than as its compiled kernel.
pub fn pays(mm: &MatMul) -> bool {
    mm.m * mm.n * mm.k >= LEAST_CALL_FLOPS
}

/// The blocks of the split axis a run splits into.
pub fn tasks(mm: &MatMul) -> usize {
    if matches!(mm.split, Split::None) || mm.flops() < PARALLEL_FLOPS {
        return 1;
    }
    (2 * pool::global().threads()).min(mm.split_extent as usize)
}

/// Runs `mm`: `inputs` are its kernel's input buffers, `out` its output. Where the split
/// is aligned with the epilogue's outer loop, `epilogue(Some((lo, hi)))` runs after the
/// products of block `[lo, hi)` are stored; else `epilogue(None)` runs once at the end.
///
/// # Safety
/// Every pointer must hold its buffer (the kernel's lengths, in `mm.dtype`), and `out`
/// must not overlap the operands.
pub unsafe fn run(
    mm: &MatMul,
    inputs: &[*const u8],
    out: *mut u8,
    epilogue: &(dyn Fn(Option<(i64, i64)>) + Sync),
) {
    let bufs = Buffers {
        a: inputs[mm.a.input],
        b: inputs[mm.b.input],
        out,
        add: false,
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
    let bufs = Buffers { a, b, out, add };
    // SAFETY: as the caller promised.
    unsafe { run_buffers(mm, &bufs, &|_| {}) }
}

unsafe fn run_buffers(mm: &MatMul, bufs: &Buffers, epilogue: &(dyn Fn(Option<(i64, i64)>) + Sync)) {
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
/// addressed by `mm`'s offsets and strides.
///
/// # Safety
/// As [`run`], for the buffers these addresses start.
pub unsafe fn run_here(mm: &MatMul, a: *const u8, b: *const u8, out: *mut u8) {
    let bufs = Buffers {
        a,
        b,
        out,
        add: false,
    };
    // SAFETY: as the caller promised.
    unsafe {
        match mm.dtype {
            DType::F64 => block::<f64>(mm, &bufs, 0, mm.split_extent),
            _ => block::<f32>(mm, &bufs, 0, mm.split_extent),
        }
    }
}

/// The products of block `[lo, hi)` of the split axis.
unsafe fn block<T: Real>(mm: &MatMul, bufs: &Buffers, lo: i64, hi: i64) {
    let (a, b, out) = (bufs.a as *const T, bufs.b as *const T, bufs.out as *mut T);
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
        // SAFETY: the offsets stay inside the buffers (the kernel's own index ranges).
        unsafe {
            gemm::run(&Product {
                m: (rows.1 - rows.0) as usize,
                n: (cols.1 - cols.0) as usize,
                k: mm.k as usize,
                a: Strided {
                    ptr: a.offset((ao + rows.0 * mm.a.stride) as isize),
                    rs: mm.a.stride as isize,
                    cs: mm.a.depth as isize,
                },
                b: Strided {
                    ptr: b.offset((bo + cols.0 * mm.b.stride) as isize),
                    rs: mm.b.depth as isize,
                    cs: mm.b.stride as isize,
                },
                c: out.offset((oo + rows.0 * mm.out_rows + cols.0 * mm.out_cols) as isize),
                c_rs: mm.out_rows as isize,
                c_cs: mm.out_cols as isize,
                accumulate: bufs.add || !first,
            });
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
