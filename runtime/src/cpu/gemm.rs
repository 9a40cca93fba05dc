//! kiln's matrix product on the CPU: `C = A·B` or `C += A·B` over strided f32 or f64
//! matrices, single-threaded (callers split it over the pool).
//!
//! The classic blocking (Goto & van de Geijn): B in `KC × NC` blocks and A in `MC × KC`
//! blocks, each packed into panels that an `MR × NR` register tile runs along; the tile's
//! loop is plain Rust that the compiler vectorizes for the widest instruction set the
//! machine has, chosen once at run time. Operands already laid out as panels are read in
//! place (A with its depth contiguous, B with its rows contiguous); the product runs as
//! given or transposed (`Cᵀ = Bᵀ·Aᵀ`), whichever a cost of padded tiles, packing and
//! strided stores says is cheaper. Products with few rows (or one) whose operands both
//! run along the depth are dot products instead: packing would not pay back.
//!
//! The packed blocks live in the calling thread's workspace, sized once for the largest
//! blocks: after a thread's first product, products allocate nothing. That is why kiln
//! has its own product: the gemm crate allocates its packing buffers on every call, so a
//! warm training step could not be allocation-free. `cargo bench -p kiln-runtime --bench
//! gemm` compares the two on the benchmark networks' shapes.

use std::cell::RefCell;
use std::sync::OnceLock;

/// A strided matrix operand: element `(i, j)` at `ptr + i·rs + j·cs`.
#[derive(Clone, Copy)]
pub struct Strided<T> {
    pub ptr: *const T,
    pub rs: isize,
    pub cs: isize,
}

/// One product: `c` (`m × n`, strides `c_rs`, `c_cs`) becomes `a · b` (`m × k` by
/// `k × n`), or `c + a · b` when `accumulate`.
#[derive(Clone)]
pub struct Product<T> {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: Strided<T>,
    pub b: Strided<T>,
    pub c: *mut T,
    pub c_rs: isize,
    pub c_cs: isize,
    pub accumulate: bool,
}

/// Element types with a product.
pub trait Real:
    Copy + Default + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> + 'static
{
    /// `self · a + b` in one rounding (a single instruction where FMA is compiled in).
    fn fused_mul_add(self, a: Self, b: Self) -> Self;
    /// Runs `p` with the tile and instruction set chosen for this type.
    ///
    /// # Safety
    /// As [`run`].
    unsafe fn dispatch(p: &Product<Self>);
}

/// Runs `p`.
///
/// # Safety
/// Every element of `a`, `b` and `c` the strides reach for the given sizes must be valid,
/// `c`'s elements distinct and not overlapping `a` or `b`.
pub unsafe fn run<T: Real>(p: &Product<T>) {
    if p.m == 0 || p.n == 0 {
        return;
    }
    unsafe { T::dispatch(p) }
}

/// The instruction sets the tile is compiled for.
#[derive(Clone, Copy, PartialEq)]
enum Isa {
    Avx512,
    Avx2,
    Baseline,
}

fn isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("fma") {
                return Isa::Avx512;
            }
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                return Isa::Avx2;
            }
        }
        Isa::Baseline
    })
}

/// The product's loops compiled with instruction set `$features` for tile `$mr × $nr`.
macro_rules! compiled_for {
    ($name:ident, $t:ty, $features:literal, $mr:literal, $nr:literal, $rw:literal, $l:literal) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe fn $name(p: &Product<$t>) {
            unsafe { blocked::<$t, $mr, $nr, $rw, $l, true>(p) }
        }
    };
}

compiled_for!(f32_avx512, f32, "avx512f,fma", 6, 64, 32, 16);
compiled_for!(f32_avx2, f32, "avx2,fma", 4, 24, 8, 8);
compiled_for!(f64_avx512, f64, "avx512f,fma", 6, 32, 16, 8);
compiled_for!(f64_avx2, f64, "avx2,fma", 4, 12, 4, 4);

impl Real for f32 {
    #[inline(always)]
    fn fused_mul_add(self, a: f32, b: f32) -> f32 {
        self.mul_add(a, b)
    }
    unsafe fn dispatch(p: &Product<f32>) {
        unsafe {
            match isa() {
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => f32_avx512(p),
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => f32_avx2(p),
                _ => blocked::<f32, 4, 8, 4, 4, false>(p),
            }
        }
    }
}

impl Real for f64 {
    #[inline(always)]
    fn fused_mul_add(self, a: f64, b: f64) -> f64 {
        self.mul_add(a, b)
    }
    unsafe fn dispatch(p: &Product<f64>) {
        unsafe {
            match isa() {
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => f64_avx512(p),
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => f64_avx2(p),
                _ => blocked::<f64, 4, 4, 2, 2, false>(p),
            }
        }
    }
}

/// Depth of a packed block: a `KC × NR` panel of B stays in L1 while A's panels stream.
const KC: usize = 512;
/// Rows of A packed at once (an `MC × KC` block stays in L2).
const MC: usize = 192;
/// Columns of B packed at once (with `MC` and `KC`, what each thread's workspace holds:
/// 2.4 MB in f64).
const NC: usize = 1024;

thread_local! {
    /// The calling thread's packing space, in cache lines: reserved capacity (its length
    /// stays 0).
    static WORKSPACE: RefCell<Vec<CacheLine>> = const { RefCell::new(Vec::new()) };
}

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct CacheLine([u8; 64]);

/// `x · y + z`, fused where FMA instructions are compiled in (a software fused
/// multiply-add elsewhere would be a library call per element).
#[inline(always)]
fn mul_add<T: Real, const FMA: bool>(x: T, y: T, z: T) -> T {
    if FMA {
        x.fused_mul_add(y, z)
    } else {
        x * y + z
    }
}

/// The blocked product with an `MR × NR` tile, and `MR × RW` tiles for the columns past
/// the last whole `NR`; `L` is the vector's lanes.
#[inline(always)]
unsafe fn blocked<
    T: Real,
    const MR: usize,
    const NR: usize,
    const RW: usize,
    const L: usize,
    const FMA: bool,
>(
    p: &Product<T>,
) {
    if p.k == 0 {
        return unsafe { zero_depth(p) };
    }
    if p.m == 1 || p.n == 1 {
        let p = &if p.m == 1 { p.clone() } else { p.transposed() };
        return if p.a.cs == 1 && p.b.rs == 1 {
            unsafe { dot_blocks::<T, 1, 1, L, FMA>(p) }
        } else {
            unsafe { row_product::<T, FMA>(p) }
        };
    }
    if p.a.cs == 1 && p.b.rs == 1 && p.m.min(p.n) <= DOT_MAX_SIDE {
        return unsafe { dot_blocks::<T, 4, 4, L, FMA>(p) };
    }
    let t = p.transposed();
    let cost = |p: &Product<T>| p.cost([MR, NR, RW], 2 * L);
    if cost(&t) < cost(p) {
        unsafe { blocked_as_given::<T, MR, NR, RW, FMA>(&t) }
    } else {
        unsafe { blocked_as_given::<T, MR, NR, RW, FMA>(p) }
    }
}

impl<T: Copy> Product<T> {
    /// `Cᵀ = Bᵀ·Aᵀ`: the same product, columns for rows.
    fn transposed(&self) -> Product<T> {
        Product {
            m: self.n,
            n: self.m,
            a: self.b.transposed(),
            b: self.a.transposed(),
            c_rs: self.c_cs,
            c_cs: self.c_rs,
            ..*self
        }
    }

    /// A rough count of the cycles the blocked product takes as given, with `mr × nr`
    /// tiles, `mr × rw` ones past the last whole `nr`, and `lanes` multiply-adds per cycle:
    /// padded tiles, packing (B unless its rows are contiguous; A unless its depth is, a
    /// quarter as much where its rows are), and element-wise stores where C's columns
    /// are strided.
    fn cost(&self, [mr, nr, rw]: [usize; 3], lanes: usize) -> usize {
        let (m, n, k) = (self.m, self.n, self.k);
        // Narrow tiles (columns past the last whole `nr`) broadcast A as often for half
        // the multiply-adds: a fifth slower per column.
        let (whole, rest) = (n / nr * nr, (n % nr).next_multiple_of(rw));
        let tiles = m.next_multiple_of(mr) * (whole + rest * 6 / 5) * k / lanes;
        let pack_b = if self.b.cs == 1 { 0 } else { k * n };
        let pack_a = match (self.a.cs, self.a.rs) {
            (1, _) => 0,
            (_, 1) => m * k / 4 * n.div_ceil(NC),
            _ => m * k * n.div_ceil(NC),
        };
        let stores = if self.c_cs == 1 {
            0
        } else {
            m * n * k.div_ceil(KC)
        };
        tiles + pack_b + pack_a + stores
    }
}

/// The blocked product, as given: A's depth contiguous, its whole panels are read in
/// place (else packed); B's rows contiguous, its whole panels are read in place (else
/// packed).
#[inline(always)]
unsafe fn blocked_as_given<
    T: Real,
    const MR: usize,
    const NR: usize,
    const RW: usize,
    const FMA: bool,
>(
    p: &Product<T>,
) {
    let (packed_a, packed_b) = workspace::<T>();
    let (a_in_place, b_in_place) = (p.a.cs == 1, p.b.cs == 1);
    for jc in (0..p.n).step_by(NC) {
        let nc = NC.min(p.n - jc);
        let whole_cols = nc / NR * NR;
        for pc in (0..p.k).step_by(KC) {
            let kc = KC.min(p.k - pc);
            let packed_rest = unsafe { packed_b.add(whole_cols * kc) };
            unsafe {
                if !b_in_place {
                    pack::<T, NR>(p.b, pc, jc, kc, whole_cols, packed_b);
                }
                pack::<T, RW>(p.b, pc, jc + whole_cols, kc, nc - whole_cols, packed_rest);
            }
            let block = Block {
                p,
                kc,
                // The first depth block stores (or adds to C as asked); later ones add.
                add: p.accumulate || pc > 0,
            };
            for ic in (0..p.m).step_by(MC) {
                let mc = MC.min(p.m - ic);
                let whole_rows = if a_in_place { mc / MR * MR } else { 0 };
                unsafe {
                    pack::<T, MR>(
                        p.a.transposed(),
                        pc,
                        ic + whole_rows,
                        kc,
                        mc - whole_rows,
                        packed_a,
                    )
                };
                let rows = Rows {
                    first: ic,
                    count: mc,
                    in_place: whole_rows,
                    a: p.a.ptr.wrapping_offset(ic as isize * p.a.rs + pc as isize),
                    packed: packed_a,
                };
                for jr in (0..whole_cols).step_by(NR) {
                    let panel = if b_in_place {
                        let at = pc as isize * p.b.rs + (jc + jr) as isize;
                        unsafe { p.b.ptr.offset(at) }
                    } else {
                        unsafe { packed_b.add(jr * kc) }
                    };
                    let b_stride = if b_in_place { p.b.rs } else { NR as isize };
                    unsafe { block.column::<MR, NR, FMA>(&rows, jc + jr, NR, panel, b_stride) };
                }
                for jr in (whole_cols..nc).step_by(RW) {
                    let panel = unsafe { packed_rest.add((jr - whole_cols) * kc) };
                    let cols = RW.min(nc - jr);
                    unsafe {
                        block.column::<MR, RW, FMA>(&rows, jc + jr, cols, panel, RW as isize)
                    };
                }
            }
        }
    }
}

/// A block of A's rows: `count` from `first`, the first `in_place` of them read where
/// they are (`a`: row `first` at the block's depth), the rest from packed panels.
struct Rows<T> {
    first: usize,
    count: usize,
    in_place: usize,
    a: *const T,
    packed: *const T,
}

/// One depth block of a product.
struct Block<'a, T> {
    p: &'a Product<T>,
    kc: usize,
    add: bool,
}

impl<T: Real> Block<'_, T> {
    /// A tile of this block, stored to `out`.
    #[inline(always)]
    unsafe fn tile<const MR: usize, const W: usize, const FMA: bool>(
        &self,
        (a, a_rs, a_ds): (*const T, isize, isize),
        b: *const T,
        b_stride: isize,
        out: Out<T>,
    ) {
        let tile = unsafe { tile::<T, MR, W, FMA>(self.kc, a, a_rs, a_ds, b, b_stride) };
        unsafe { store(tile, out) };
    }

    /// The tiles down C's columns `col .. col + cols` (at most `W`) for a block of A's
    /// rows, from B's panel `b` (`kc` rows of `W` contiguous elements, `b_stride` apart).
    #[inline(always)]
    unsafe fn column<const MR: usize, const W: usize, const FMA: bool>(
        &self,
        rows: &Rows<T>,
        col: usize,
        cols: usize,
        b: *const T,
        b_stride: isize,
    ) {
        let p = self.p;
        for ir in (0..rows.count).step_by(MR) {
            let out = Out {
                c: unsafe {
                    p.c.offset((rows.first + ir) as isize * p.c_rs + col as isize * p.c_cs)
                },
                rs: p.c_rs,
                cs: p.c_cs,
                rows: (rows.count - ir).min(MR),
                cols,
                add: self.add,
            };
            let a = if ir < rows.in_place {
                (unsafe { rows.a.offset(ir as isize * p.a.rs) }, p.a.rs, 1)
            } else {
                let panel = unsafe { rows.packed.add((ir - rows.in_place) * self.kc) };
                (panel, 1, MR as isize)
            };
            // A last, packed panel of few rows runs a shorter tile (zeros past them).
            unsafe {
                match out.rows {
                    1 | 2 if MR > 4 => self.tile::<2, W, FMA>(a, b, b_stride, out),
                    3 | 4 if MR > 4 => self.tile::<4, W, FMA>(a, b, b_stride, out),
                    _ => self.tile::<MR, W, FMA>(a, b, b_stride, out),
                }
            }
        }
    }
}

impl<T: Copy> Strided<T> {
    fn transposed(self) -> Strided<T> {
        Strided {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
        }
    }
}

/// Bytes of the largest packed blocks (in f64).
const WORKSPACE_BYTES: usize = (MC + NC) * KC * size_of::<f64>();

/// Reserves the calling thread's workspace for any product (address space only: pages
/// are touched as blocks are packed). The kernels' pool threads and the engine's CPU
/// workers call it as they start, so which thread runs a product never makes a training
/// step allocate.
pub fn reserve_workspace() {
    WORKSPACE.with(|ws| {
        let mut ws = ws.borrow_mut();
        let lines = WORKSPACE_BYTES.div_ceil(64);
        if ws.capacity() < lines {
            ws.reserve_exact(lines);
        }
    });
}

/// The calling thread's packed blocks of A (`MC × KC`) and B (`KC × NC`), valid until
/// the next product on this thread (products do not nest).
fn workspace<T>() -> (*mut T, *mut T) {
    reserve_workspace();
    let a_lines = (MC * KC * size_of::<T>()).div_ceil(64);
    WORKSPACE.with(|ws| {
        // The blocks live in the reserved capacity: packing writes every element a tile
        // reads.
        let a = ws.borrow_mut().as_mut_ptr();
        // SAFETY: B's block starts after A's lines, inside the reserved capacity.
        (a as *mut T, unsafe { a.add(a_lines) } as *mut T)
    })
}

/// Packs a `depth × width` block of `src` (positions along its columns, depth along its
/// rows), from depth `d0` and position `w0`, into panels of `W` positions: panel `q`
/// holds, for each depth, positions `q·W .. q·W + W` contiguously, zero past the width.
#[inline(always)]
unsafe fn pack<T: Real, const W: usize>(
    src: Strided<T>,
    d0: usize,
    w0: usize,
    depth: usize,
    width: usize,
    dst: *mut T,
) {
    let (w_stride, d_stride) = (src.cs, src.rs);
    for q in (0..width).step_by(W) {
        let panel = unsafe { dst.add(q * depth) };
        let valid = W.min(width - q);
        let origin = src
            .ptr
            .wrapping_offset(d0 as isize * d_stride + (w0 + q) as isize * w_stride);
        if valid < W {
            // The block's last, partial panel: zeros past its width.
            for d in 0..depth {
                for w in 0..W {
                    let v = if w < valid {
                        unsafe { *origin.offset(w as isize * w_stride + d as isize * d_stride) }
                    } else {
                        T::default()
                    };
                    unsafe { *panel.add(d * W + w) = v };
                }
            }
        } else if w_stride == 1 {
            // Positions contiguous: copy W at a time.
            for d in 0..depth {
                unsafe {
                    let from = origin.offset(d as isize * d_stride) as *const [T; W];
                    *(panel.add(d * W) as *mut [T; W]) = from.read_unaligned();
                }
            }
        } else {
            // A transposition: W lines read along the depth, one element of each per
            // packed row (separate line pointers keep the compiler from gathers).
            let lines: [*const T; W] =
                std::array::from_fn(|w| origin.wrapping_offset(w as isize * w_stride));
            // Depths contiguous along the lines: 16 × 16 blocks transposed in registers.
            let blocked = if d_stride == 1 {
                unsafe { transpose_blocks(&lines, depth, panel) }
            } else {
                0
            };
            for d in blocked..depth {
                let at = d as isize * d_stride;
                let row: [T; W] = std::array::from_fn(|w| unsafe { *lines[w].offset(at) });
                unsafe { *(panel.add(d * W) as *mut [T; W]) = row };
            }
        }
    }
}

/// Packs the first depths of `W` lines (each contiguous along the depth) into `panel`
/// (`W` per depth) in 16 × 16 blocks transposed in AVX-512 registers, where the machine
/// has them and `T` is f32; returns how many depths it packed (a multiple of 16, or 0).
#[inline(always)]
unsafe fn transpose_blocks<T: 'static, const W: usize>(
    lines: &[*const T; W],
    depth: usize,
    panel: *mut T,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if W.is_multiple_of(16)
        && std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>()
        && isa() == Isa::Avx512
    {
        let blocks = depth / 16 * 16;
        for w0 in (0..W).step_by(16) {
            let rows: [*const f32; 16] = std::array::from_fn(|i| lines[w0 + i] as *const f32);
            for d0 in (0..blocks).step_by(16) {
                // SAFETY: the lines hold `depth` elements, the panel `depth` rows of W;
                // AVX-512 is there (checked above).
                unsafe { transpose16(&rows, d0, (panel as *mut f32).add(d0 * W + w0), W) };
            }
        }
        return blocks;
    }
    0
}

/// `dst[j·stride + i] = rows[i][d0 + j]` for `i, j < 16`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn transpose16(rows: &[*const f32; 16], d0: usize, dst: *mut f32, stride: usize) {
    use std::arch::x86_64::*;
    let r: [__m512; 16] = std::array::from_fn(|i| unsafe { _mm512_loadu_ps(rows[i].add(d0)) });
    // Within each 128-bit lane: pairs of rows interleaved, then 4 × 4 transposes.
    let t: [__m512; 16] = std::array::from_fn(|i| {
        let (a, b) = (r[i / 2 * 2], r[i / 2 * 2 + 1]);
        if i % 2 == 0 {
            _mm512_unpacklo_ps(a, b)
        } else {
            _mm512_unpackhi_ps(a, b)
        }
    });
    // u[4g + c], lane l: column 4l + c of rows 4g .. 4g + 4.
    let u: [__m512; 16] = std::array::from_fn(|i| {
        let (g, c) = (i / 4, i % 4);
        let (a, b) = (t[4 * g + c / 2], t[4 * g + 2 + c / 2]);
        if c % 2 == 0 {
            _mm512_shuffle_ps::<0x44>(a, b)
        } else {
            _mm512_shuffle_ps::<0xEE>(a, b)
        }
    });
    // Gather lane l of u[c], u[4 + c], u[8 + c], u[12 + c] into output row 4l + c.
    for c in 0..4 {
        let v0 = _mm512_shuffle_f32x4::<0x88>(u[c], u[4 + c]);
        let v1 = _mm512_shuffle_f32x4::<0xDD>(u[c], u[4 + c]);
        let w0 = _mm512_shuffle_f32x4::<0x88>(u[8 + c], u[12 + c]);
        let w1 = _mm512_shuffle_f32x4::<0xDD>(u[8 + c], u[12 + c]);
        let out = [
            (c, _mm512_shuffle_f32x4::<0x88>(v0, w0)),
            (4 + c, _mm512_shuffle_f32x4::<0x88>(v1, w1)),
            (8 + c, _mm512_shuffle_f32x4::<0xDD>(v0, w0)),
            (12 + c, _mm512_shuffle_f32x4::<0xDD>(v1, w1)),
        ];
        for (j, row) in out {
            unsafe { _mm512_storeu_ps(dst.add(j * stride), row) };
        }
    }
}

/// Where a tile goes: its `rows × cols` corner at `c` (strides `rs`, `cs`), stored or
/// added.
#[derive(Clone, Copy)]
struct Out<T> {
    c: *mut T,
    rs: isize,
    cs: isize,
    rows: usize,
    cols: usize,
    add: bool,
}

/// The `MR × NR` tile of the products of `MR` rows of A (`a_rs` apart, their depth
/// `a_ds` apart: A in place, or a packed panel) and `kc` rows of B of `NR` contiguous
/// elements, `b_stride` apart.
#[inline(always)]
unsafe fn tile<T: Real, const MR: usize, const NR: usize, const FMA: bool>(
    kc: usize,
    a: *const T,
    a_rs: isize,
    a_ds: isize,
    b: *const T,
    b_stride: isize,
) -> [[T; NR]; MR] {
    let rows: [*const T; MR] = std::array::from_fn(|i| a.wrapping_offset(i as isize * a_rs));
    let mut acc = [[T::default(); NR]; MR];
    for d in 0..kc {
        // SAFETY: the caller's rows hold `kc` elements of depth, B's panel `kc` rows.
        let (a, b) = unsafe {
            let at = d as isize * a_ds;
            let b = b.offset(d as isize * b_stride) as *const [T; NR];
            let a: [T; MR] = std::array::from_fn(|i| *rows[i].offset(at));
            (a, b.read_unaligned())
        };
        for i in 0..MR {
            for j in 0..NR {
                acc[i][j] = mul_add::<T, FMA>(a[i], b[j], acc[i][j]);
            }
        }
    }
    acc
}

/// Stores (or adds) a tile to `out`.
#[inline(always)]
unsafe fn store<T: Real, const MR: usize, const NR: usize>(acc: [[T; NR]; MR], out: Out<T>) {
    if out.cs == 1 && out.rows == MR && out.cols == NR {
        // A whole tile along contiguous rows: vector stores straight from the registers.
        for (i, sums) in acc.iter().enumerate() {
            let row = unsafe { out.c.offset(i as isize * out.rs) } as *mut [T; NR];
            let old = if out.add {
                unsafe { row.read_unaligned() }
            } else {
                [T::default(); NR]
            };
            unsafe { row.write_unaligned(std::array::from_fn(|j| old[j] + sums[j])) };
        }
    } else {
        unsafe { store_corner(&acc, out) };
    }
}

/// Stores (or adds) the top-left corner of a tile: the edges of C, or C with strided rows.
#[inline(never)]
unsafe fn store_corner<T: Real, const MR: usize, const NR: usize>(
    tile: &[[T; NR]; MR],
    out: Out<T>,
) {
    for (i, row) in tile.iter().enumerate().take(out.rows) {
        for (j, &v) in row.iter().enumerate().take(out.cols) {
            let c = unsafe { &mut *out.c.offset(i as isize * out.rs + j as isize * out.cs) };
            *c = if out.add { *c + v } else { v };
        }
    }
}

/// `C = 0` (or unchanged when accumulating): the product of an empty depth.
unsafe fn zero_depth<T: Real>(p: &Product<T>) {
    if p.accumulate {
        return;
    }
    for i in 0..p.m {
        for j in 0..p.n {
            unsafe { *p.c.offset(i as isize * p.c_rs + j as isize * p.c_cs) = T::default() };
        }
    }
}

/// The shorter side of C up to which products whose operands both run along the depth
/// are computed as dot products rather than packed.
const DOT_MAX_SIDE: usize = 32;

/// C's blocks of `R × C` outputs, each as dot products of A's rows and B's columns (both
/// contiguous along the depth) summed in `L` vector lanes: no packing, which a product
/// with few rows could not pay back.
#[inline(always)]
unsafe fn dot_blocks<T: Real, const R: usize, const C: usize, const L: usize, const FMA: bool>(
    p: &Product<T>,
) {
    let whole = p.k / L * L;
    for i0 in (0..p.m).step_by(R) {
        let rows = R.min(p.m - i0);
        // Lines past the edge repeat the last one; their sums are not stored.
        let a: [*const T; R] = std::array::from_fn(|i| unsafe {
            p.a.ptr.offset((i0 + i.min(rows - 1)) as isize * p.a.rs)
        });
        for j0 in (0..p.n).step_by(C) {
            let cols = C.min(p.n - j0);
            let b: [*const T; C] = std::array::from_fn(|j| unsafe {
                p.b.ptr.offset((j0 + j.min(cols - 1)) as isize * p.b.cs)
            });
            let mut acc = [[[T::default(); L]; C]; R];
            for d in (0..whole).step_by(L) {
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
                        sum = unsafe { mul_add::<T, FMA>(*a[i].add(d), *b[j].add(d), sum) };
                    }
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
unsafe fn row_product<T: Real, const FMA: bool>(p: &Product<T>) {
    let at = |x: Strided<T>, i: usize, j: usize| unsafe {
        x.ptr.offset(i as isize * x.rs + j as isize * x.cs)
    };
    let c = |j: usize| unsafe { &mut *p.c.offset(j as isize * p.c_cs) };
    if p.b.cs == 1 {
        if !p.accumulate {
            (0..p.n).for_each(|j| *c(j) = T::default());
        }
        for d in 0..p.k {
            let (x, row) = unsafe { (*at(p.a, 0, d), at(p.b, d, 0)) };
            for j in 0..p.n {
                let out = c(j);
                *out = mul_add::<T, FMA>(x, unsafe { *row.add(j) }, *out);
            }
        }
        return;
    }
    for j in 0..p.n {
        let mut sum = T::default();
        for d in 0..p.k {
            sum = unsafe { mul_add::<T, FMA>(*at(p.a, 0, d), *at(p.b, d, j), sum) };
        }
        let out = c(j);
        *out = if p.accumulate { *out + sum } else { sum };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Layouts of an operand: row-major, column-major, or both strides padded.
    #[derive(Clone, Copy, Debug)]
    enum Layout {
        Rows,
        Cols,
        Padded,
    }

    /// `(rs, cs, len)` of a `rows × cols` matrix in `layout`.
    fn strides(rows: usize, cols: usize, layout: Layout) -> (isize, isize, usize) {
        match layout {
            Layout::Rows => (cols as isize, 1, rows * cols),
            Layout::Cols => (1, rows as isize, rows * cols),
            Layout::Padded => (2 * cols as isize + 1, 2, rows * (2 * cols + 1)),
        }
    }

    /// Runs `m × n × k` products in every layout of A, B and C, with and without
    /// accumulation, against the f64 sum of the products (C starts at a known value).
    fn check<T: Real + Into<f64> + From<f32>>(m: usize, n: usize, k: usize, tolerance: f64) {
        let layouts = [Layout::Rows, Layout::Cols, Layout::Padded];
        for la in layouts {
            for lb in layouts {
                for lc in [Layout::Rows, Layout::Cols] {
                    for accumulate in [false, true] {
                        let (a_rs, a_cs, a_len) = strides(m, k, la);
                        let (b_rs, b_cs, b_len) = strides(k, n, lb);
                        let (c_rs, c_cs, c_len) = strides(m, n, lc);
                        let value = |i: usize, salt: usize| {
                            T::from((((i * 37 + salt * 11) % 23) as f32 - 11.0) / 8.0)
                        };
                        let a: Vec<T> = (0..a_len).map(|i| value(i, 1)).collect();
                        let b: Vec<T> = (0..b_len).map(|i| value(i, 2)).collect();
                        let mut c: Vec<T> = (0..c_len).map(|i| value(i, 3)).collect();
                        let before = c.clone();
                        let at = |rs: isize, cs: isize, i: usize, j: usize| {
                            (i as isize * rs + j as isize * cs) as usize
                        };
                        unsafe {
                            run(&Product {
                                m,
                                n,
                                k,
                                a: Strided {
                                    ptr: a.as_ptr(),
                                    rs: a_rs,
                                    cs: a_cs,
                                },
                                b: Strided {
                                    ptr: b.as_ptr(),
                                    rs: b_rs,
                                    cs: b_cs,
                                },
                                c: c.as_mut_ptr(),
                                c_rs,
                                c_cs,
                                accumulate,
                            })
                        };
                        for i in 0..m {
                            for j in 0..n {
                                let mut want: f64 = if accumulate {
                                    before[at(c_rs, c_cs, i, j)].into()
                                } else {
                                    0.0
                                };
                                for d in 0..k {
                                    let (x, y): (f64, f64) = (
                                        a[at(a_rs, a_cs, i, d)].into(),
                                        b[at(b_rs, b_cs, d, j)].into(),
                                    );
                                    want += x * y;
                                }
                                let got: f64 = c[at(c_rs, c_cs, i, j)].into();
                                assert!(
                                    (got - want).abs() <= tolerance * (1.0 + want.abs()),
                                    "{m}x{n}x{k} A {la:?} B {lb:?} C {lc:?} accumulate \
                                     {accumulate}: C[{i}, {j}] = {got}, expected {want}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Shapes that reach each path: vector products (both forms), dot blocks, whole and
    /// partial tiles (and the shorter ones for 1 to 4 last rows) in both orientations,
    /// several depth, row and column blocks.
    const SHAPES: [(usize, usize, usize); 14] = [
        (1, 37, 19),
        (29, 1, 40),
        (1, 1, 5),
        (5, 3, 0),
        (7, 9, 33),
        (13, 70, 17),
        (70, 13, 17),
        (31, 130, 300),
        (200, 66, 9),
        (3, 300, 64),
        (64, 100, 2),
        (40, 4200, 3),
        (16, 40, 20),
        (9, 70, 600),
    ];

    #[test]
    fn products_in_f32_match_the_f64_sum() {
        for (m, n, k) in SHAPES {
            check::<f32>(m, n, k, 1e-5);
        }
    }

    #[test]
    fn products_in_f64_match_the_f64_sum() {
        for (m, n, k) in SHAPES {
            check::<f64>(m, n, k, 1e-12);
        }
    }

    #[test]
    fn a_warm_thread_multiplies_without_allocating() {
        let (m, n, k) = (50, 90, 300);
        let (a, b) = (vec![1.0f32; m * k], vec![0.5f32; k * n]);
        let mut c = vec![0.0f32; m * n];
        let product = |c: &mut Vec<f32>| unsafe {
            run(&Product {
                m,
                n,
                k,
                a: Strided {
                    ptr: a.as_ptr(),
                    rs: 1,
                    cs: m as isize,
                },
                b: Strided {
                    ptr: b.as_ptr(),
                    rs: 1,
                    cs: k as isize,
                },
                c: c.as_mut_ptr(),
                c_rs: n as isize,
                c_cs: 1,
                accumulate: false,
            })
        };
        product(&mut c);
        let lines = WORKSPACE.with(|ws| ws.borrow().capacity());
        product(&mut c);
        assert_eq!(WORKSPACE.with(|ws| ws.borrow().capacity()), lines);
        assert!(lines * 64 >= WORKSPACE_BYTES);
        assert!(c.iter().all(|&v| v == 150.0));
    }
}
