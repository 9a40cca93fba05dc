//! kiln's matrix product on the CPU: `C = A·B` or `C += A·B` over strided f32 or f64
//! matrices, single-threaded (kiln-runtime's `cpu::matmul` splits products over its pool).
//!
//! The classic blocking (Goto & van de Geijn): B in `KC × NC` blocks and A in `MC × KC`
//! blocks, each packed into panels that an `MR × NR` register tile runs along; the tile's
//! loop is plain Rust that the compiler vectorizes for the widest instruction set the
//! machine has, chosen once at run time. Operands already laid out as panels may be read
//! in place (A with its depth contiguous; B with its rows contiguous, where the cost of
//! packing it is more than its tiles lose in place on this machine,
//! [`in_place_b_slowdown`]); the product runs as given or transposed (`Cᵀ = Bᵀ·Aᵀ`),
//! whichever a cost of padded tiles, packing and strided stores says is cheaper. Products with few rows (or one) whose operands both
//! run along the depth are dot products instead: packing would not pay back. A right
//! operand that is no matrix in memory (a convolution's windows) packs its own panels,
//! or says where their rows lie to be read through a table of addresses ([`PackB`],
//! [`run_packing_b`]).
//!
//! Block sizes come from the caches of the CPU that runs it ([`machine`]: BLIS's
//! analytical model over Linux's cache sizes), not from constants. The packed blocks
//! live in the calling thread's workspace, sized once for the largest blocks: after a
//! thread's first product, products allocate nothing. That is why kiln
//! has its own product: the gemm crate allocates its packing buffers on every call, so a
//! warm training step could not be allocation-free. `cargo bench -p kiln-gemm` compares
//! the two on the benchmark networks' shapes. A crate of its own so that tests, on the
//! dev profile, run it optimized like the dependencies.

pub mod machine;
mod pack;
mod peak;
#[cfg(test)]
mod tests;
mod tile;
mod vector;

use machine::Blocking;
use pack::pack;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use tile::{store, tile, Out, PanelRows, RowTable};
use vector::{dot_blocks, row_product, zero_depth, DOT_MAX_SIDE};

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

impl<T> Product<T> {
    /// `C = A·B` over row-major `a` (`m × k`), `b` (`k × n`) and `c` (`m × n`), which must
    /// outlive every run of it.
    pub fn row_major(m: usize, n: usize, k: usize, a: &[T], b: &[T], c: &mut [T]) -> Product<T> {
        assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
        Product {
            m,
            n,
            k,
            a: Strided {
                ptr: a.as_ptr(),
                rs: k as isize,
                cs: 1,
            },
            b: Strided {
                ptr: b.as_ptr(),
                rs: n as isize,
                cs: 1,
            },
            c: c.as_mut_ptr(),
            c_rs: n as isize,
            c_cs: 1,
            accumulate: false,
        }
    }
}

/// A `k × n` right operand that is not a strided matrix (a convolution's windows over
/// its input, read with the padding's zeros): the product packs B's panels through it
/// instead of from memory — an implicit product, the operand never written whole.
pub trait PackB<T>: Sync {
    /// Packs B's rows `d0 .. d0 + depth` at columns `w0 .. w0 + width` into panels of
    /// `panel` columns: panel `q` holds, for each row, columns `q·panel .. q·panel +
    /// panel` contiguously, zeros past `width`.
    ///
    /// # Safety
    /// `dst` holds `width` rounded up to `panel`, times `depth`, elements; the rows and
    /// columns lie inside B.
    unsafe fn pack(
        &self,
        d0: usize,
        w0: usize,
        depth: usize,
        width: usize,
        panel: usize,
        dst: *mut T,
    );

    /// Where B's rows `d0 .. d0 + depth` lie as they are, for its panels of `panel`
    /// columns from `w0` (`width`, a multiple of `panel`, columns): writes each row's
    /// address for panel `q` to `rows[q·depth + d]`, its `panel` columns contiguous from
    /// there, and returns true; a tile then reads the panel's rows where they are instead
    /// of a packed copy (an implicit product's operand, never written at all). A row that
    /// lies nowhere (one cut by the operand's edges) is packed into `spill` where panel
    /// `q`'s row `d` would be packed (`q·depth·panel + d·panel`) and pointed at there.
    /// False, with nothing promised, where the panels do not lie so (then they are
    /// packed): the default.
    ///
    /// # Safety
    /// `rows` holds `width / panel · depth` addresses, `spill` `width · depth` elements;
    /// the rows and columns lie inside B.
    unsafe fn rows(
        &self,
        _d0: usize,
        _w0: usize,
        _depth: usize,
        _panels: (usize, usize),
        _rows: *mut *const T,
        _spill: *mut T,
    ) -> bool {
        false
    }
}

/// Element types with a product.
pub trait Real:
    Copy + Default + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> + 'static
{
    /// `self · a + b` in one rounding (a single instruction where FMA is compiled in).
    fn fused_mul_add(self, a: Self, b: Self) -> Self;
    /// Runs `p` with the tile and instruction set chosen for this type, B's panels
    /// packed by `packer` where it is given (`p.b` unread).
    ///
    /// # Safety
    /// As [`run`] (and [`run_packing_b`] with a packer).
    unsafe fn dispatch(p: &Product<Self>, packer: Option<&dyn PackB<Self>>);
    /// The register tile (`MR × NR`) products of this type run with on this machine.
    fn tile() -> (usize, usize);
    /// Runs `iters` rounds of independent fused multiply-add chains in this machine's
    /// product vectors ([`machine::peak_fmas`]); returns the multiply-adds done.
    fn fma_chains(iters: usize) -> usize;
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
    // SAFETY: `run`'s contract is `dispatch`'s, and m, n > 0 (checked above).
    unsafe { T::dispatch(p, None) }
}

/// Runs `p` with B's panels packed by `packer` (`p.b` is not read): always blocked as
/// given, never transposed or read in place, so B is only ever read through its panels.
///
/// # Safety
/// As [`run`] for `a` and `c`; `packer` packs any block of a `k × n` operand.
pub unsafe fn run_packing_b<T: Real>(p: &Product<T>, packer: &dyn PackB<T>) {
    if p.m == 0 || p.n == 0 {
        return;
    }
    // SAFETY: as the caller promised, and m, n > 0 (checked above).
    unsafe { T::dispatch(p, Some(packer)) }
}

/// The instruction sets the tile is compiled for, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// x86-64's SSE2 (no FMA), or any other machine.
    Baseline,
    /// AVX2 with FMA.
    Avx2,
    /// AVX-512 (F) with FMA.
    Avx512,
}

impl Isa {
    /// Its name as `KILN_ISA` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Baseline => "baseline",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    pub fn parse(s: &str) -> Option<Isa> {
        [Isa::Baseline, Isa::Avx2, Isa::Avx512]
            .into_iter()
            .find(|i| i.name() == s)
    }
}

/// The widest instruction set products may use (`u8` of [`Isa`]); the widest by default.
static CEILING: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(Isa::Avx512 as u8);
static ISA: OnceLock<Isa> = OnceLock::new();

/// [`in_place_b_slowdown`]'s value for the process (`f64` bits): 1 until set.
static IN_PLACE_B: AtomicU64 = AtomicU64::new(1f64.to_bits());

/// How many times as long a register tile takes reading B's panel where B lies (its rows
/// a row stride apart) as reading a packed copy, on this machine: what a product weighs
/// against the cost of packing B. 1 (read in place wherever B's rows are contiguous) until [`set_in_place_b_slowdown`] says otherwise; the runtime sets what
/// [`machine::measure_in_place_b`] measured on this CPU model. A whole panel's rows in
/// place sit in as many cache sets as their stride allows — at power-of-two strides a few —
/// where a packed panel's are contiguous: a narrow tile (AVX2's 16 columns, one cache line
/// a row) meant to keep its panel in L1 loses most.
pub fn in_place_b_slowdown() -> f64 {
    (IN_PLACE_B_HERE.with(Cell::get))
        .unwrap_or_else(|| f64::from_bits(IN_PLACE_B.load(Ordering::Relaxed)))
}

/// Sets [`in_place_b_slowdown`] for the process's products (at least 1).
pub fn set_in_place_b_slowdown(slowdown: f64) {
    IN_PLACE_B.store(slowdown.max(1.0).to_bits(), Ordering::Relaxed);
}

/// Runs `f` with this thread's products weighing B in place as `slowdown` says (infinite:
/// always packed), to measure one against the other.
pub fn with_in_place_b_slowdown<R>(slowdown: f64, f: impl FnOnce() -> R) -> R {
    let before = IN_PLACE_B_HERE.with(|c| c.replace(Some(slowdown.max(1.0))));
    let out = f();
    IN_PLACE_B_HERE.with(|c| c.set(before));
    out
}

/// Products use no instruction set wider than `max` (a machine without AVX-512 taken as
/// one, to measure the AVX2 code). Takes effect before the first product of the process
/// only: `false` where the instruction set was already chosen (and is not `max` or
/// narrower).
pub fn limit_isa(max: Isa) -> bool {
    CEILING.store(max as u8, std::sync::atomic::Ordering::Relaxed);
    isa() <= max
}

/// The instruction set this process's products use: the widest the CPU has (AVX-512 and
/// AVX2 with FMA), at most [`limit_isa`]'s.
pub fn isa() -> Isa {
    *ISA.get_or_init(|| {
        let ceiling = CEILING.load(std::sync::atomic::Ordering::Relaxed);
        #[cfg(target_arch = "x86_64")]
        {
            let fma = is_x86_feature_detected!("fma");
            if ceiling >= Isa::Avx512 as u8 && fma && is_x86_feature_detected!("avx512f") {
                return Isa::Avx512;
            }
            if ceiling >= Isa::Avx2 as u8 && fma && is_x86_feature_detected!("avx2") {
                return Isa::Avx2;
            }
        }
        let _ = ceiling;
        Isa::Baseline
    })
}

/// The product's loops compiled with instruction set `$features` for tile `$mr × $nr`.
macro_rules! compiled_for {
    ($name:ident, $t:ty, $features:literal,
     [$mr:literal, $nr:literal, $rw:literal, $l:literal, $d:literal]) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe fn $name(p: &Product<$t>, packer: Option<&dyn PackB<$t>>) {
            // SAFETY: `blocked` needs `run`'s contract, which this function's caller (`dispatch`)
            // forwards; the features are enabled here, not needed by `blocked` itself.
            unsafe { blocked::<$t, $mr, $nr, $rw, $l, $d, true>(p, packer) }
        }
    };
}

/// An element type's compiled forms — AVX-512 and AVX2 (with FMA), and one for any machine
/// (without FMA, whose software form is a library call per element) — each given its
/// tile `MR × NR`, narrow tile width `RW`, vector lanes `L` and dot-product block side
/// `D`; and the dispatch between them.
macro_rules! real {
    ($t:ty, $avx512:ident $avx512_chains:ident $a:tt, $avx2:ident $avx2_chains:ident $b:tt,
     $baseline:ident [$mr:literal, $nr:literal, $rw:literal, $l:literal, $d:literal]) => {
        compiled_for!($avx512, $t, "avx512f,fma", $a);
        compiled_for!($avx2, $t, "avx2,fma", $b);

        unsafe fn $baseline(p: &Product<$t>, packer: Option<&dyn PackB<$t>>) {
            // SAFETY: `blocked` needs `run`'s contract, forwarded by `dispatch`.
            unsafe { blocked::<$t, $mr, $nr, $rw, $l, $d, false>(p, packer) }
        }

        impl Real for $t {
            #[inline(always)]
            fn fused_mul_add(self, a: $t, b: $t) -> $t {
                self.mul_add(a, b)
            }
            fn tile() -> (usize, usize) {
                let tiles = [$a, $b, [$mr, $nr, $rw, $l, $d]];
                let [mr, nr, ..] = match isa() {
                    Isa::Avx512 => tiles[0],
                    Isa::Avx2 => tiles[1],
                    Isa::Baseline => tiles[2],
                };
                (mr, nr)
            }
            fn fma_chains(iters: usize) -> usize {
                // SAFETY: `isa()` says Avx512 only where avx512f and fma were detected, Avx2
                // only where avx2 and fma were.
                unsafe {
                    match isa() {
                        #[cfg(target_arch = "x86_64")]
                        Isa::Avx512 => peak::$avx512_chains(iters),
                        #[cfg(target_arch = "x86_64")]
                        Isa::Avx2 => peak::$avx2_chains(iters),
                        _ => peak::scalar_chains::<$t>(iters),
                    }
                }
            }
            unsafe fn dispatch(p: &Product<$t>, packer: Option<&dyn PackB<$t>>) {
                // SAFETY: p as `run` requires (`dispatch`'s contract); `isa()` says Avx512 only
                // where avx512f and fma were detected, Avx2 only where avx2 and fma were.
                unsafe {
                    match isa() {
                        #[cfg(target_arch = "x86_64")]
                        Isa::Avx512 => $avx512(p, packer),
                        #[cfg(target_arch = "x86_64")]
                        Isa::Avx2 => $avx2(p, packer),
                        _ => $baseline(p, packer),
                    }
                }
            }
        }
    };
}

// AVX2 has 16 vector registers: a 6 × 16 tile keeps 12 accumulators, 2 panel vectors and
// a broadcast in them (4 × 24 needed all 16 and spilled: 0.36 of peak on Zen 4 against
// 0.47–0.84 for 6 × 16, `KILN_ISA=avx2 kiln bench gemm`). Dot-product blocks of D × D
// keep D² accumulators and 2·D loaded vectors: 4 × 4 takes 24 of AVX-512's 32, 3 × 3 15
// of AVX2's and SSE's 16 (4 × 4 spilled there: 128×10×512 at 14 GFLOP/s against 64 on a
// Zen 3 core).
real!(f32, f32_avx512 f32_avx512_chains [6, 64, 32, 16, 4],
    f32_avx2 f32_avx2_chains [6, 16, 8, 8, 3], f32_baseline [4, 8, 4, 4, 3]);
real!(f64, f64_avx512 f64_avx512_chains [6, 32, 16, 8, 4],
    f64_avx2 f64_avx2_chains [6, 8, 4, 4, 3], f64_baseline [4, 4, 2, 2, 3]);

thread_local! {
    /// The calling thread's packing space, in cache lines: reserved capacity (its length
    /// stays 0).
    static WORKSPACE: RefCell<Vec<CacheLine>> = const { RefCell::new(Vec::new()) };
    /// A blocking this thread's products take instead of the machine's ([`with_blocking`]).
    static BLOCKING: Cell<Option<Blocking>> = const { Cell::new(None) };
    /// This thread's [`in_place_b_slowdown`] instead of the process's
    /// ([`with_in_place_b_slowdown`]).
    static IN_PLACE_B_HERE: Cell<Option<f64>> = const { Cell::new(None) };
}

/// The blocking of a `T` product with an `MR × NR` tile on this thread.
fn blocking<T>(mr: usize, nr: usize) -> Blocking {
    let derived = || Blocking::derive(&machine::caches(), size_of::<T>(), mr, nr);
    BLOCKING.with(Cell::get).unwrap_or_else(derived)
}

/// The blocking this machine's products of `T` take (its tile's, from its caches).
pub fn machine_blocking<T: Real>() -> Blocking {
    let (mr, nr) = T::tile();
    Blocking::derive(&machine::caches(), size_of::<T>(), mr, nr)
}

/// Runs `f` with this thread's products blocked as `b` says (an ablation against the
/// machine's blocking). `b`'s sizes are rounded to the tiles (`mc` down to a multiple
/// of MR, `nc` of NR, at least one tile) when a product runs.
pub fn with_blocking<R>(b: Blocking, f: impl FnOnce() -> R) -> R {
    let before = BLOCKING.with(|c| c.replace(Some(b)));
    let out = f();
    BLOCKING.with(|c| c.set(before));
    out
}

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

/// The blocked product with an `MR × NR` tile, and `MR × RW` tiles or dot products
/// ([`narrow_by_dots`]) for the columns past the last whole `NR`; `L` is the vector's
/// lanes, `D × D` the dot-product blocks. With a `packer`, B's panels come from it and
/// the product runs blocked as given.
#[inline(always)]
unsafe fn blocked<
    T: Real,
    const MR: usize,
    const NR: usize,
    const RW: usize,
    const L: usize,
    const D: usize,
    const FMA: bool,
>(
    p: &Product<T>,
    packer: Option<&dyn PackB<T>>,
) {
    if p.k == 0 {
        // SAFETY: C's m × n elements are valid (`run`'s contract, forwarded to `blocked`).
        return unsafe { zero_depth(p) };
    }
    let blocks = || {
        let b = blocking::<T>(MR, NR);
        Blocking {
            kc: b.kc.max(1),
            mc: (b.mc / MR * MR).max(MR),
            nc: (b.nc / NR * NR).max(NR),
        }
    };
    if let Some(packer) = packer {
        let panels = PanelsOfB::ByPacker(packer);
        // SAFETY: A and C valid by `run_packing_b`'s contract, B packed by `packer`; k > 0.
        return unsafe { blocked_as_given::<T, MR, NR, RW, L, FMA>(p, &blocks(), panels) };
    }
    if p.m == 1 || p.n == 1 {
        let p = &if p.m == 1 { p.clone() } else { p.transposed() };
        return if p.a.cs == 1 && p.b.rs == 1 {
            // SAFETY: a one-row product (transposed if need be reaches the same elements, valid by
            // `run`'s contract), k > 0, and A's rows and B's columns contiguous along the depth
            // (checked here), as `dot_blocks` reads them.
            unsafe { dot_blocks::<T, 1, 1, L, FMA>(p) }
        } else {
            // SAFETY: a one-row product whose elements are valid by `run`'s contract.
            unsafe { row_product::<T, FMA>(p) }
        };
    }
    if p.a.cs == 1 && p.b.rs == 1 && p.m.min(p.n) <= DOT_MAX_SIDE {
        // SAFETY: k > 0, A's rows and B's columns contiguous along the depth (checked here);
        // elements valid by `run`'s contract.
        return unsafe { dot_blocks::<T, D, D, L, FMA>(p) };
    }
    let b = blocks();
    // As given or transposed, whichever the cost model prefers with B read in place where
    // its rows are contiguous (as given on a tie); then B's panels in place or packed,
    // whichever it prefers for that orientation with in-place panels as slow as this
    // machine measured. (Orientations weighed with that slowdown swapped a convolution's
    // 64 × 224 × 576 product for its transpose, whose strided stores and transposing
    // packs the model underrates: 91 → 70 GFLOP/s on a Zen 3 core.)
    let cost = |p: &Product<T>, in_place: Option<f64>| {
        let read = in_place.filter(|_| p.b.cs == 1);
        p.cost([MR, NR, RW], 2 * L, &b, read)
    };
    let t = p.transposed();
    let p = if cost(&t, Some(1.0)) < cost(p, Some(1.0)) {
        &t
    } else {
        p
    };
    let slowdown = in_place_b_slowdown();
    let panels = match p.b.cs == 1 && cost(p, Some(slowdown)) <= cost(p, None) {
        true => PanelsOfB::InPlace,
        false => PanelsOfB::PackedHere,
    };
    // SAFETY: p (or its transpose, which reaches exactly p's elements) is valid by `run`'s
    // contract; m, n > 1 and k > 0 here; B in place only where its rows are contiguous.
    unsafe { blocked_as_given::<T, MR, NR, RW, L, FMA>(p, &b, panels) }
}

/// Where a blocked product's whole panels of B come from.
#[derive(Clone, Copy)]
enum PanelsOfB<'a, T> {
    /// Read where B is (its rows contiguous).
    InPlace,
    /// Packed from B's strided elements.
    PackedHere,
    /// Packed by a [`PackB`] (B's panels, the narrow ones too), or read through the
    /// tables of rows it fills ([`PackB::rows`]).
    ByPacker(&'a dyn PackB<T>),
}

impl<T: Copy> Product<T> {
    /// `Cᵀ = Bᵀ·Aᵀ`: the same product, columns for rows.
    pub fn transposed(&self) -> Product<T> {
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
    /// tiles, `mr × rw` ones past the last whole `nr` (or dot products,
    /// [`narrow_by_dots`]), and `lanes` multiply-adds per cycle:
    /// padded tiles (those of B's panels read in place `Some(slowdown)` times as long as
    /// from packed ones), packing (B unless read in place; A unless its depth is
    /// contiguous, a quarter as much where its rows are), and element-wise stores where
    /// C's columns are strided.
    fn cost(
        &self,
        [mr, nr, rw]: [usize; 3],
        lanes: usize,
        b: &Blocking,
        b_in_place: Option<f64>,
    ) -> f64 {
        let (m, n, k) = (self.m, self.n, self.k);
        // Narrow tiles (columns past the last whole `nr`) broadcast A as often for half
        // the multiply-adds: a fifth slower per column. They are always packed. Dot
        // products load both operands for each multiply-add vector: half as fast.
        let (whole, narrow) = (n / nr * nr, n % nr);
        let rest = match self.a.cs == 1 && narrow_by_dots(narrow, rw) {
            true => narrow as f64 * 2.0,
            false => narrow.next_multiple_of(rw) as f64 * 1.2,
        };
        let rows = (m.next_multiple_of(mr) * k) as f64 / lanes as f64;
        let tiles = rows * (whole as f64 * b_in_place.unwrap_or(1.0) + rest);
        let pack_b = if b_in_place.is_some() { 0 } else { k * n };
        let pack_a = match (self.a.cs, self.a.rs) {
            (1, _) => 0,
            (_, 1) => m * k / 4 * n.div_ceil(b.nc),
            _ => m * k * n.div_ceil(b.nc),
        };
        let stores = if self.c_cs == 1 {
            0
        } else {
            m * n * k.div_ceil(b.kc)
        };
        tiles + (pack_b + pack_a + stores) as f64
    }
}

/// Columns past a block's last whole panel up to which, where A's depth is contiguous,
/// they are dot products of A's rows and B's columns (packed along the depth) rather
/// than narrow tiles ([`narrow_by_dots`]). On a Zen 3 core (AVX2, `RW` 8) a 512 × 49 ×
/// 2304 product (a 7×7 convolution's at batch 1) took 1.20 times as long as 48 columns
/// with the 49th in a narrow tile, 1.05 as a dot product; 50 and 51 columns 1.07 and
/// 1.09; at 52 the two were even.
const NARROW_BY_DOTS: usize = 3;

/// Whether a block's `narrow` columns past its last whole panel run as dot products
/// rather than in a tile `rw` wide (A's depth contiguous): a narrow tile multiplies as
/// many vectors for one column as for `rw`, a dot product a vector per column for
/// every `L` of the depth but loads both operands for it, about twice the tile's
/// cost per column, so for fewer than half of `rw` columns, at most [`NARROW_BY_DOTS`].
fn narrow_by_dots(narrow: usize, rw: usize) -> bool {
    (1..=NARROW_BY_DOTS).contains(&narrow) && 2 * narrow < rw
}

/// The blocked product, as given, in `b`'s blocks (`mc` a multiple of MR, `nc` of NR): A's
/// depth contiguous, its whole panels are read in place (else packed); B's panels as
/// `panels` says (in place only where its rows are contiguous); the columns past the last
/// whole panel in narrow tiles, or as dot products ([`narrow_by_dots`]).
#[inline(always)]
unsafe fn blocked_as_given<
    T: Real,
    const MR: usize,
    const NR: usize,
    const RW: usize,
    const L: usize,
    const FMA: bool,
>(
    p: &Product<T>,
    b: &Blocking,
    panels: PanelsOfB<T>,
) {
    let b_in_place = matches!(panels, PanelsOfB::InPlace);
    let (kc_max, mc_max, nc_max) = (b.kc, b.mc, b.nc);
    let (packed_a, packed_b, tables) = workspace::<T>(b, NR);
    let a_in_place = p.a.cs == 1;
    for jc in (0..p.n).step_by(nc_max) {
        let nc = nc_max.min(p.n - jc);
        let whole_cols = nc / NR * NR;
        let narrow = nc - whole_cols;
        // The narrow columns as dot products, B's packed in panels one column wide;
        // else in narrow tiles.
        let dotted = a_in_place && narrow_by_dots(narrow, RW);
        for pc in (0..p.k).step_by(kc_max) {
            let kc = kc_max.min(p.k - pc);
            // SAFETY: whole_cols ≤ nc ≤ NC and kc ≤ KC, and B's block (after A's) holds NC × KC
            // elements (`workspace` reserved the blocks of `b` for `T`).
            let packed_rest = unsafe { packed_b.add(whole_cols * kc) };
            // Whole panels read where they lie, through a table of their rows' addresses,
            // where the packer has them so.
            let mut tabled = false;
            // SAFETY: both packs read B's rows pc..pc + kc and columns jc..jc + nc (< k, n: inside
            // B by `run`'s contract); whole panels fill whole_cols × kc of B's block, the rest
            // (under NR columns padded to RW, NR a multiple of RW, or in panels of one) starts
            // after them and, with NC a multiple of RW, stays within NC × KC.
            unsafe {
                match panels {
                    PanelsOfB::InPlace => {}
                    PanelsOfB::PackedHere => pack::<T, NR>(p.b, pc, jc, kc, whole_cols, packed_b),
                    PanelsOfB::ByPacker(packer) => {
                        tabled = whole_cols > 0
                            && packer.rows(pc, jc, kc, (whole_cols, NR), tables, packed_b);
                        if !tabled {
                            packer.pack(pc, jc, kc, whole_cols, NR, packed_b)
                        }
                    }
                }
                let at = jc + whole_cols;
                match panels {
                    PanelsOfB::ByPacker(packer) => {
                        let width = if dotted { 1 } else { RW };
                        packer.pack(pc, at, kc, narrow, width, packed_rest)
                    }
                    _ if dotted => pack::<T, 1>(p.b, pc, at, kc, narrow, packed_rest),
                    _ => pack::<T, RW>(p.b, pc, at, kc, narrow, packed_rest),
                }
            }
            let block = Block {
                p,
                kc,
                // The first depth block stores (or adds to C as asked); later ones add.
                add: p.accumulate || pc > 0,
            };
            for ic in (0..p.m).step_by(mc_max) {
                let mc = mc_max.min(p.m - ic);
                let whole_rows = if a_in_place { mc / MR * MR } else { 0 };
                // SAFETY: reads A's rows ic..ic + mc (< m) at depths pc..pc + kc (< k), valid by
                // `run`'s contract; writes at most mc rounded up to MR (MC is a multiple of MR) by
                // kc elements, within A's MC × KC block of the workspace.
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
                    if tabled {
                        // SAFETY: the packer wrote kc row addresses for each whole panel, each
                        // NR elements of B's rows pc.., columns jc + jr.. ; `rows` as below.
                        unsafe {
                            let table = RowTable(tables.add(jr / NR * kc));
                            block.column::<MR, NR, FMA, _>(&rows, jc + jr, NR, table)
                        };
                        continue;
                    }
                    let panel = if b_in_place {
                        let at = pc as isize * p.b.rs + (jc + jr) as isize;
                        // SAFETY: element (pc, jc + jr) of B, with pc < k and jc + jr < n.
                        unsafe { p.b.ptr.offset(at) }
                    } else {
                        // SAFETY: jr < whole_cols: one of the whole panels packed above.
                        unsafe { packed_b.add(jr * kc) }
                    };
                    let b_stride = if b_in_place { p.b.rs } else { NR as isize };
                    // SAFETY: C's columns jc + jr .. + NR are < n; the panel holds kc rows of NR
                    // (in place: B's rows pc.., columns jc + jr.. ; packed: above); `rows`
                    // addresses A's rows ic..ic + mc at depth pc, in place or packed above.
                    unsafe {
                        let panel = (panel, b_stride);
                        block.column::<MR, NR, FMA, _>(&rows, jc + jr, NR, panel)
                    };
                }
                if dotted {
                    // SAFETY: A's depth is contiguous (`dotted`) and `rows` addresses its rows
                    // ic..ic + mc at depth pc; C's columns jc + whole_cols .. + narrow are < n;
                    // `packed_rest` holds those columns of B's rows pc.., each kc long.
                    unsafe { block.dotted::<L, FMA>(&rows, jc + whole_cols, narrow, packed_rest) };
                    continue;
                }
                for jr in (whole_cols..nc).step_by(RW) {
                    // SAFETY: jr - whole_cols < nc - whole_cols, so this RW panel is one packed
                    // into `packed_rest` above.
                    let panel = unsafe { packed_rest.add((jr - whole_cols) * kc) };
                    let cols = RW.min(nc - jr);
                    // SAFETY: as for the whole panels; cols ≤ RW and C's columns jc + jr .. + cols
                    // are < n, the packed panel holding RW (zero-padded) columns kc deep.
                    unsafe {
                        block.column::<MR, RW, FMA, _>(
                            &rows,
                            jc + jr,
                            cols,
                            (panel as *const T, RW as isize),
                        )
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
    unsafe fn tile<const MR: usize, const W: usize, const FMA: bool, B: PanelRows<T>>(
        &self,
        (a, a_rs, a_ds): (*const T, isize, isize),
        b: B,
        out: Out<T>,
    ) {
        // SAFETY: `column`'s caller passes A's MR rows (in place, or a zero-padded packed panel)
        // and a B panel's rows, each `kc` deep.
        let tile = unsafe { tile::<T, MR, W, FMA, B>(self.kc, a, a_rs, a_ds, b) };
        // SAFETY: `out` is the tile's rows × cols corner of C, inside C (built by `column`).
        unsafe { store(tile, out) };
    }

    /// C's columns `col .. col + cols` (at most [`NARROW_BY_DOTS`]) for a block of A's
    /// rows, all read in place, as dot products with B's columns packed from `b`, each
    /// `kc` contiguous elements.
    #[inline(always)]
    unsafe fn dotted<const L: usize, const FMA: bool>(
        &self,
        rows: &Rows<T>,
        col: usize,
        cols: usize,
        b: *const T,
    ) {
        let p = self.p;
        let part = Product {
            m: rows.count,
            n: cols,
            k: self.kc,
            a: Strided {
                ptr: rows.a,
                rs: p.a.rs,
                cs: 1,
            },
            b: Strided {
                ptr: b,
                rs: 1,
                cs: self.kc as isize,
            },
            // SAFETY: element (rows.first, col) of C: rows.first < m, col < n.
            c: unsafe {
                p.c.offset(rows.first as isize * p.c_rs + col as isize * p.c_cs)
            },
            c_rs: p.c_rs,
            c_cs: p.c_cs,
            accumulate: self.add,
        };
        // Blocks of rows × columns whose vector sums, and the vectors of a step, fit in
        // AVX2's 16 registers; eight sums or more to hide the multiply-add's latency.
        // SAFETY: `part` reaches A's rows and C's elements inside the caller's block, B's
        // packed columns: the depth contiguous along both operands, as `dot_blocks` reads.
        unsafe {
            match cols {
                1 => dot_blocks::<T, 8, 1, L, FMA>(&part),
                2 => dot_blocks::<T, 4, 2, L, FMA>(&part),
                _ => dot_blocks::<T, 3, 3, L, FMA>(&part),
            }
        }
    }

    /// The tiles down C's columns `col .. col + cols` (at most `W`) for a block of A's
    /// rows, from B's panel `b` (`kc` rows of `W` contiguous elements).
    #[inline(always)]
    unsafe fn column<const MR: usize, const W: usize, const FMA: bool, B: PanelRows<T>>(
        &self,
        rows: &Rows<T>,
        col: usize,
        cols: usize,
        b: B,
    ) {
        let p = self.p;
        for ir in (0..rows.count).step_by(MR) {
            let out = Out {
                // SAFETY: element (rows.first + ir, col) of C: rows.first + ir < m, col < n.
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
                // SAFETY: `rows.a` is A's element (first, pc) and ir < rows.in_place ≤ rows.count,
                // so this is element (first + ir, pc) of A.
                (unsafe { rows.a.offset(ir as isize * p.a.rs) }, p.a.rs, 1)
            } else {
                // SAFETY: ir - in_place is a multiple of MR (both are), so this is a whole packed
                // panel of MR × kc, within what `blocked_as_given` packed for this block.
                let panel = unsafe { rows.packed.add((ir - rows.in_place) * self.kc) };
                (panel, 1, MR as isize)
            };
            // A last, packed panel of few rows runs a shorter tile (zeros past them).
            // SAFETY: the shorter tiles read fewer rows of a packed panel (stride MR, zeros past
            // its rows); in-place rows come in whole MR tiles only, so always take the last arm.
            // `out` is inside C (above), and A and B panels as `column`'s caller passes them.
            unsafe {
                match out.rows {
                    1 | 2 if MR > 4 => self.tile::<2, W, FMA, B>(a, b, out),
                    3 | 4 if MR > 4 => self.tile::<4, W, FMA, B>(a, b, out),
                    _ => self.tile::<MR, W, FMA, B>(a, b, out),
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

/// Reserves the calling thread's workspace for any product (address space only: pages
/// are touched as blocks are packed): the larger of the machine's f32 and f64 blocks.
/// The kernels' pool threads and the engine's CPU workers call it as they start, so which
/// thread runs a product never makes a training step allocate.
pub fn reserve_workspace() {
    static BYTES: OnceLock<usize> = OnceLock::new();
    let bytes = *BYTES.get_or_init(|| {
        let f32_bytes = machine_blocking::<f32>().workspace_bytes(size_of::<f32>(), f32::tile().1);
        let f64_bytes = machine_blocking::<f64>().workspace_bytes(size_of::<f64>(), f64::tile().1);
        f32_bytes.max(f64_bytes)
    });
    reserve(bytes);
}

/// Reserves at least `bytes` of the calling thread's workspace.
fn reserve(bytes: usize) {
    WORKSPACE.with(|ws| {
        let mut ws = ws.borrow_mut();
        let lines = bytes.div_ceil(64);
        if ws.capacity() < lines {
            ws.reserve_exact(lines);
        }
    });
}

/// The calling thread's packed blocks of A (`MC × KC`) and B (`KC × NC`) for blocking
/// `b`, and the row tables of B's panels of `nr` columns (`NC / nr × KC` addresses),
/// valid until the next product on this thread (products do not nest).
fn workspace<T>(b: &Blocking, nr: usize) -> (*mut T, *mut T, *mut *const T) {
    reserve_workspace();
    let a_lines = (b.mc * b.kc * size_of::<T>()).div_ceil(64);
    let b_lines = (b.nc * b.kc * size_of::<T>()).div_ceil(64);
    reserve(b.workspace_bytes(size_of::<T>(), nr));
    WORKSPACE.with(|ws| {
        // The blocks live in the reserved capacity: packing writes every element a tile
        // reads, and a packer every address of a table it fills.
        let a = ws.borrow_mut().as_mut_ptr();
        // SAFETY: B's block starts after A's lines, the tables after B's, inside the reserved
        // capacity.
        unsafe {
            let b = a.add(a_lines);
            (a as *mut T, b as *mut T, b.add(b_lines) as *mut *const T)
        }
    })
}
