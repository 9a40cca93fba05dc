//! Winograd's minimal filtering F(2x2, 3x3) for 3x3 convolutions of stride 1 (Lavin &
//! Gray, 2015): each 2x2 output tile comes from a 4x4 input tile with 16 multiplications
//! per (filter, channel) pair instead of im2col's 36, as 16 matrix products of
//! transformed weights and transformed inputs on kiln's [`gemm`](super::gemm).
//!
//! `U = G g Gᵀ` per (filter, channel) — 16 matrices in strips of filters, computed once per
//! version of the weights by the caller's cache; `V = Bᵀ d B` per (channel, tile) —
//! 16 matrices channels × tiles; `M = U · V` per element of the 4x4 tile; the output
//! tile is `Aᵀ m A`. Channel-first and channel-last layouts share the transforms: they
//! differ in which axis runs along the transforms' lanes (tiles along a row, or
//! channels) and in the strides of the products. F(2x2, 3x3)'s transforms are exact in
//! binary up to halvings, so the result stays within a few ulps of the direct sum (the
//! larger F(4x4, 3x3) loses about two digits in f32).

use super::gemm::{self, Product, Strided};
use super::pool;
use super::scratch::Scratch;
pub use kiln_compiler::kir::Conv3x3;
use kiln_compiler::kir::TILE;
/// Transform lanes processed together (tiles along a row, or channels).
const LANES: usize = 16;

/// The algorithm on a convolution's geometry.
pub trait Winograd {
    /// `U = G g Gᵀ` of every (filter, channel) pair into `u` (16 matrices, each in strips
    /// of filters, channels × filters within a strip: filters contiguous, so a product
    /// with few tiles, which runs with filters along its vectors, reads them in place and
    /// in order), split over the kernels' pool.
    fn transform_weights(&self, weight: &[f32], u: &mut [f32]);
    /// The convolution of `data` by the transformed weights `u` into `out` (no bias),
    /// split over the kernels' pool, with `scratch` (of [`Conv3x3::scratch_len`]) for the
    /// transformed inputs and the products.
    fn run(&self, data: &[f32], u: &[f32], out: &mut [f32], scratch: &mut [f32]);
}

/// Filters per strip of the transformed weights: each matrix `U[e]` is stored as strips
/// of this many filters, channels × filters within a strip (filters contiguous), so a
/// product reads a strip in order, which streams it from memory well (at batch 1 the
/// weights are most of what a layer reads).
const STRIP: usize = 64;

/// Where the transformed weights of filter `f` and channel `c` lie in each matrix.
trait WeightLayout {
    /// Filters per strip: [`STRIP`] where the filters divide into such strips, else all.
    fn strip(&self) -> usize;
    fn weight_at(&self, f: usize, c: usize) -> usize;
}

impl WeightLayout for Conv3x3 {
    fn strip(&self) -> usize {
        if self.filters.is_multiple_of(STRIP) {
            STRIP
        } else {
            self.filters
        }
    }

    fn weight_at(&self, f: usize, c: usize) -> usize {
        let strip = self.strip();
        (f / strip * self.channels + c) * strip + f % strip
    }
}

/// The phases of [`Winograd::run`].
trait Phases {
    fn for_tasks(&self, units: usize, work: &(dyn Fn(usize, usize) + Sync));
    fn input_units(&self) -> usize;
    fn output_units(&self) -> usize;
    unsafe fn transform_inputs(&self, data: &[f32], v: *mut f32, lo: usize, hi: usize);
    unsafe fn product(&self, e: usize, u: &[f32], v: *const f32, m: *mut f32);
    unsafe fn transform_outputs(&self, m: *const f32, out: *mut f32, lo: usize, hi: usize);
}

impl Winograd for Conv3x3 {
    /// `U = G g Gᵀ` of every (filter, channel) pair into `u` (16 matrices in strips of
    /// filters), split over the kernels' pool.
    fn transform_weights(&self, weight: &[f32], u: &mut [f32]) {
        let (f_n, c_n) = (self.filters, self.channels);
        let plane = f_n * c_n;
        assert!(weight.len() >= 9 * plane && u.len() >= self.weights_len());
        let u = Shared::new(u.as_mut_ptr());
        // By channel: a channel's row of each matrix is contiguous, the task's alone.
        self.for_tasks(c_n, &|lo, hi| {
            let mut g = [[0f32; LANES]; 9];
            for c in lo..hi {
                for f0 in (0..f_n).step_by(LANES) {
                    let lanes = LANES.min(f_n - f0);
                    for (k, row) in g.iter_mut().enumerate() {
                        for (l, slot) in row.iter_mut().enumerate().take(lanes) {
                            let f = f0 + l;
                            *slot = weight[if self.channel_last {
                                (f * 9 + k) * c_n + c
                            } else {
                                (f * c_n + c) * 9 + k
                            }];
                        }
                    }
                    let at = self.weight_at(f0, c);
                    // SAFETY: channel c's rows are this task's alone; in bounds (above).
                    unsafe { store(&weight_tile(&g), u.get(), plane, at, lanes) };
                }
            }
        });
    }

    fn run(&self, data: &[f32], u: &[f32], out: &mut [f32], scratch: &mut [f32]) {
        let [ho, wo] = self.out_dims();
        let (f_n, c_n, p) = (self.filters, self.channels, self.tiles());
        assert!(
            data.len() >= self.batch * c_n * self.height * self.width
                && u.len() >= self.weights_len()
                && out.len() >= self.batch * f_n * ho * wo
                && scratch.len() >= self.scratch_len()
        );
        let (v, m) = scratch.split_at_mut(TILE * c_n * p);
        let v = Shared::new(v.as_mut_ptr());
        let m = Shared::new(m.as_mut_ptr());
        let out = Shared::new(out.as_mut_ptr());
        // The three phases run one after another; each task writes its own disjoint part of
        // `v`, `m` or `out`, whose lengths the geometry fixes (checked above).
        // SAFETY: units lo..hi are this task's; `data` is a slice and `v` holds the
        // transforms of all units (scratch length checked above).
        self.for_tasks(self.input_units(), &|lo, hi| unsafe {
            self.transform_inputs(data, v.get(), lo, hi)
        });
        let tasks = (2 * pool::global().threads()).min(TILE);
        pool::global().run(tasks, &|t| {
            for e in (t * TILE / tasks)..((t + 1) * TILE / tasks) {
                // SAFETY: element e < TILE is this task's alone (the ranges split 0..TILE);
                // `u` and `v` are complete, and `m` holds TILE products (lengths checked above).
                unsafe { self.product(e, u, v.get(), m.get()) };
            }
        });
        // SAFETY: units lo..hi are this task's, their 2x2 tiles disjoint parts of `out`
        // (length checked above); `m` is complete (the products ran before).
        self.for_tasks(self.output_units(), &|lo, hi| unsafe {
            self.transform_outputs(m.get(), out.get(), lo, hi)
        });
    }
}

impl Phases for Conv3x3 {
    /// Runs `work(lo, hi)` over blocks of `0..units` on the pool.
    fn for_tasks(&self, units: usize, work: &(dyn Fn(usize, usize) + Sync)) {
        let size = self.batch * self.channels.max(self.filters) * self.height * self.width;
        let tasks = if size < 1 << 14 {
            units.min(1)
        } else {
            (4 * pool::global().threads()).min(units)
        };
        pool::global().run(tasks, &|t| work(t * units / tasks, (t + 1) * units / tasks));
    }

    /// Work units of the input transform: (image, channel) planes, or tiles.
    fn input_units(&self) -> usize {
        if self.channel_last {
            self.tiles()
        } else {
            self.batch * self.channels
        }
    }

    /// Work units of the output transform: (image, filter) planes, or tiles.
    fn output_units(&self) -> usize {
        if self.channel_last {
            self.tiles()
        } else {
            self.batch * self.filters
        }
    }

    /// `V = Bᵀ d B` for units `[lo, hi)`: V is 16 matrices channels × tiles (channel-first)
    /// or tiles × channels (channel-last), each block of lanes contiguous.
    unsafe fn transform_inputs(&self, data: &[f32], v: *mut f32, lo: usize, hi: usize) {
        let [ty_n, tx_n] = self.tile_dims();
        let (h, w, c_n, p_n) = (self.height, self.width, self.channels, self.tiles());
        let [py, px] = self.pad;
        let plane = c_n * p_n;
        let mut d = [[0f32; LANES]; TILE];
        if self.channel_last {
            for unit in lo..hi {
                let (n, rest) = (unit / (ty_n * tx_n), unit % (ty_n * tx_n));
                let (y0, x0) = (2 * (rest / tx_n), 2 * (rest % tx_n));
                for c0 in (0..c_n).step_by(LANES) {
                    let lanes = LANES.min(c_n - c0);
                    for (ij, row) in d.iter_mut().enumerate() {
                        // Padded coordinates: inside where they are at least the padding.
                        let (y, x) = (y0 + ij / 4, x0 + ij % 4);
                        if (py..h + py).contains(&y) && (px..w + px).contains(&x) {
                            let at = ((n * h + y - py) * w + x - px) * c_n + c0;
                            row[..lanes].copy_from_slice(&data[at..at + lanes]);
                        } else {
                            row.fill(0.0);
                        }
                    }
                    store(&input_tile(&d), v, plane, unit * c_n + c0, lanes);
                }
            }
            return;
        }
        // Channel-first: each plane copied into a zero-padded one first, wide enough for
        // whole blocks of lanes, so the tiles are read without bounds checks.
        let (ph, pw) = (2 * ty_n + 2, 2 * tx_n + 2 * LANES + 2);
        let mut padded = Scratch::take(ph * pw * 4);
        let padded = std::slice::from_raw_parts_mut(padded.as_mut_ptr() as *mut f32, ph * pw);
        padded.fill(0.0);
        for unit in lo..hi {
            let src = &data[unit * h * w..(unit + 1) * h * w];
            for (y, row) in src.chunks_exact(w).enumerate().take(ph - py) {
                let at = (y + py) * pw + px;
                let len = w.min(pw - 2 * LANES - px);
                padded[at..at + len].copy_from_slice(&row[..len]);
            }
            let (n, c) = (unit / c_n, unit % c_n);
            for ty in 0..ty_n {
                for tx0 in (0..tx_n).step_by(LANES) {
                    for (ij, row) in d.iter_mut().enumerate() {
                        let at = (2 * ty + ij / 4) * pw + 2 * tx0 + ij % 4;
                        let src = &padded[at..at + 2 * LANES];
                        for (l, slot) in row.iter_mut().enumerate() {
                            *slot = src[2 * l];
                        }
                    }
                    let tile = (n * ty_n + ty) * tx_n + tx0;
                    store(
                        &input_tile(&d),
                        v,
                        plane,
                        c * p_n + tile,
                        LANES.min(tx_n - tx0),
                    );
                }
            }
        }
    }

    /// `M[e] = U[e] · V[e]` for element `e` of the tile: filters × tiles (channel-first) or
    /// tiles × filters (channel-last).
    unsafe fn product(&self, e: usize, u: &[f32], v: *const f32, m: *mut f32) {
        let (f_n, c_n, p_n) = (self.filters, self.channels, self.tiles());
        // Strides (row, column) of V (channels × tiles) and M (filters × tiles).
        let (v_rs, v_cs, m_rs, m_cs) = if self.channel_last {
            (1, c_n, 1, f_n)
        } else {
            (p_n, 1, p_n, 1)
        };
        // One product per strip of filters, each reading its strip of U in order.
        let strip = self.strip();
        for f0 in (0..f_n).step_by(strip) {
            gemm::run(&Product {
                m: strip,
                n: p_n,
                k: c_n,
                a: Strided {
                    ptr: u.as_ptr().add(e * f_n * c_n + self.weight_at(f0, 0)),
                    rs: 1,
                    cs: strip as isize,
                },
                b: Strided {
                    ptr: v.add(e * c_n * p_n),
                    rs: v_rs as isize,
                    cs: v_cs as isize,
                },
                c: m.add(e * f_n * p_n + f0 * m_rs),
                c_rs: m_rs as isize,
                c_cs: m_cs as isize,
                accumulate: false,
            });
        }
    }

    /// `Aᵀ m A` for units `[lo, hi)`, each 2x2 tile written where it lies in the output.
    unsafe fn transform_outputs(&self, m: *const f32, out: *mut f32, lo: usize, hi: usize) {
        let [ty_n, tx_n] = self.tile_dims();
        let [ho, wo] = self.out_dims();
        let (f_n, p_n) = (self.filters, self.tiles());
        let plane = f_n * p_n;
        let mut t = [[0f32; LANES]; TILE];
        for unit in lo..hi {
            if self.channel_last {
                let (n, rest) = (unit / (ty_n * tx_n), unit % (ty_n * tx_n));
                let (y0, x0) = (2 * (rest / tx_n), 2 * (rest % tx_n));
                for f0 in (0..f_n).step_by(LANES) {
                    let lanes = LANES.min(f_n - f0);
                    load(&mut t, m, plane, unit * f_n + f0, lanes);
                    for (ij, row) in output_tile(&t).iter().enumerate() {
                        let (y, x) = (y0 + ij / 2, x0 + ij % 2);
                        if y < ho && x < wo {
                            let at = ((n * ho + y) * wo + x) * f_n + f0;
                            std::ptr::copy_nonoverlapping(row.as_ptr(), out.add(at), lanes);
                        }
                    }
                }
                continue;
            }
            let (n, f) = (unit / f_n, unit % f_n);
            let base = (n * f_n + f) * ho * wo;
            for ty in 0..ty_n {
                for tx0 in (0..tx_n).step_by(LANES) {
                    let lanes = LANES.min(tx_n - tx0);
                    load(
                        &mut t,
                        m,
                        plane,
                        f * p_n + (n * ty_n + ty) * tx_n + tx0,
                        lanes,
                    );
                    for (ij, row) in output_tile(&t).iter().enumerate() {
                        let (y, j) = (2 * ty + ij / 2, ij % 2);
                        // Lanes whose column 2·(tx0 + l) + j lies inside the output.
                        let inside = ((wo - j).div_ceil(2)).saturating_sub(tx0).min(lanes);
                        if y < ho {
                            let at = out.add(base + y * wo + 2 * tx0 + j);
                            for (l, &x) in row.iter().enumerate().take(inside) {
                                *at.add(2 * l) = x;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Stores lanes `..lanes` of every element `e` of `t` at `dst[e·plane + at + l]`.
///
/// # Safety
/// `dst` must hold those indices.
#[inline(always)]
unsafe fn store<const N: usize>(
    t: &[[f32; LANES]; N],
    dst: *mut f32,
    plane: usize,
    at: usize,
    lanes: usize,
) {
    for (e, row) in t.iter().enumerate() {
        std::ptr::copy_nonoverlapping(row.as_ptr(), dst.add(e * plane + at), lanes);
    }
}

/// Loads lanes `..lanes` of every element `e` of `t` from `src[e·plane + at + l]`.
///
/// # Safety
/// `src` must hold those indices.
#[inline(always)]
unsafe fn load(
    t: &mut [[f32; LANES]; TILE],
    src: *const f32,
    plane: usize,
    at: usize,
    lanes: usize,
) {
    for (e, row) in t.iter_mut().enumerate() {
        std::ptr::copy_nonoverlapping(src.add(e * plane + at), row.as_mut_ptr(), lanes);
    }
}

/// Applies the 1-D transform `f` lane by lane: `out[k][l] = f(x[..][l])[k]`.
#[inline(always)]
fn lanewise<const N: usize, const K: usize>(
    x: [&[f32; LANES]; N],
    f: impl Fn([f32; N]) -> [f32; K],
) -> [[f32; LANES]; K] {
    let mut out = [[0f32; LANES]; K];
    for l in 0..LANES {
        for (k, v) in f(x.map(|r| r[l])).into_iter().enumerate() {
            out[k][l] = v;
        }
    }
    out
}

/// A 2-D transform of LANES row-major tiles: `f` applied down each column of the
/// `rows` × `cols` tile, then along each row of the result.
#[inline(always)]
fn separable<const R: usize, const C: usize, const K: usize, const IN: usize, const OUT: usize>(
    x: &[[f32; LANES]; IN],
    f_col: impl Fn([f32; R]) -> [f32; K],
    f_row: impl Fn([f32; C]) -> [f32; K],
) -> [[f32; LANES]; OUT] {
    // Columns: K rows of C.
    let mut mid = [[[0f32; LANES]; C]; K];
    for j in 0..C {
        let col: [&[f32; LANES]; R] = std::array::from_fn(|i| &x[i * C + j]);
        for (k, r) in lanewise(col, &f_col).into_iter().enumerate() {
            mid[k][j] = r;
        }
    }
    let mut out = [[0f32; LANES]; OUT];
    for (k, row) in mid.iter().enumerate() {
        let row: [&[f32; LANES]; C] = std::array::from_fn(|j| &row[j]);
        for (c, r) in lanewise(row, &f_row).into_iter().enumerate() {
            out[k * K + c] = r;
        }
    }
    out
}

/// `G x` for a column of 3: G's rows are (1, 0, 0), (½, ½, ½), (½, −½, ½), (0, 0, 1).
fn g_col([a, b, c]: [f32; 3]) -> [f32; 4] {
    [a, 0.5 * (a + b + c), 0.5 * (a - b + c), c]
}

/// `Bᵀ x`: Bᵀ's rows are (1, 0, −1, 0), (0, 1, 1, 0), (0, −1, 1, 0), (0, 1, 0, −1).
fn bt_col([a, b, c, d]: [f32; 4]) -> [f32; 4] {
    [a - c, b + c, c - b, b - d]
}

/// `Aᵀ x`: Aᵀ's rows are (1, 1, 1, 0), (0, 1, −1, −1).
fn at_col([a, b, c, d]: [f32; 4]) -> [f32; 2] {
    [a + b + c, b - c - d]
}

/// `G g Gᵀ` of LANES 3x3 filters (element `3i + j` is row i, column j) into 4x4 tiles.
fn weight_tile(g: &[[f32; LANES]; 9]) -> [[f32; LANES]; TILE] {
    separable::<3, 3, 4, 9, 16>(g, g_col, g_col)
}

/// `Bᵀ d B` of LANES 4x4 tiles (element `4i + j` of `d` is row i, column j).
fn input_tile(d: &[[f32; LANES]; TILE]) -> [[f32; LANES]; TILE] {
    separable::<4, 4, 4, 16, 16>(d, bt_col, bt_col)
}

/// `Aᵀ m A` of LANES 4x4 tiles into 2x2 ones (element `2i + j` is row i, column j).
fn output_tile(m: &[[f32; LANES]; TILE]) -> [[f32; LANES]; 4] {
    separable::<4, 4, 2, 16, 4>(m, at_col, at_col)
}

/// A buffer the pool's tasks write disjoint parts of.
#[derive(Clone, Copy)]
struct Shared(*mut f32);
// SAFETY: tasks write disjoint parts (see `Conv3x3::run`).
unsafe impl Send for Shared {}
// SAFETY: as for Send: tasks share the pointer but write disjoint parts.
unsafe impl Sync for Shared {}

impl Shared {
    fn new(p: *mut f32) -> Shared {
        Shared(p)
    }

    fn get(&self) -> *mut f32 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_ops::compare;

    /// The direct sum, in f64.
    fn direct(c: &Conv3x3, x: &[f32], w: &[f32]) -> Vec<f64> {
        let [ho, wo] = c.out_dims();
        let (cn, fn_) = (c.channels, c.filters);
        let mut out = vec![0.0; c.batch * fn_ * ho * wo];
        for n in 0..c.batch {
            for f in 0..fn_ {
                for y in 0..ho {
                    for xo in 0..wo {
                        let mut acc = 0.0;
                        for ch in 0..cn {
                            for ky in 0..3 {
                                for kx in 0..3 {
                                    let (iy, ix) = (
                                        (y + ky) as isize - c.pad[0] as isize,
                                        (xo + kx) as isize - c.pad[1] as isize,
                                    );
                                    if iy < 0
                                        || ix < 0
                                        || iy >= c.height as isize
                                        || ix >= c.width as isize
                                    {
                                        continue;
                                    }
                                    let (iy, ix) = (iy as usize, ix as usize);
                                    let (xi, wi) = if c.channel_last {
                                        (
                                            ((n * c.height + iy) * c.width + ix) * cn + ch,
                                            ((f * 3 + ky) * 3 + kx) * cn + ch,
                                        )
                                    } else {
                                        (
                                            ((n * cn + ch) * c.height + iy) * c.width + ix,
                                            (f * cn + ch) * 9 + ky * 3 + kx,
                                        )
                                    };
                                    acc += x[xi] as f64 * w[wi] as f64;
                                }
                            }
                        }
                        let oi = if c.channel_last {
                            ((n * ho + y) * wo + xo) * fn_ + f
                        } else {
                            ((n * fn_ + f) * ho + y) * wo + xo
                        };
                        out[oi] = acc;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn matches_the_direct_sum_in_both_layouts() {
        let mut seed = 7u64;
        let mut rand = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as f64 / (1u64 << 31) as f64 - 0.5) as f32
        };
        // Odd and even sizes, each padding, more lanes than a block, batch > 1, weights
        // in two strips.
        for (batch, channels, height, width, filters, pad) in [
            (1, 3, 5, 5, 2, [1, 1]),
            (2, 17, 7, 9, 19, [0, 2]),
            (1, 4, 3, 40, 5, [2, 0]),
            (3, 20, 6, 6, 33, [1, 1]),
            (1, 5, 4, 6, 2 * STRIP, [1, 0]),
        ] {
            for channel_last in [false, true] {
                let c = Conv3x3 {
                    batch,
                    channels,
                    height,
                    width,
                    filters,
                    pad,
                    channel_last,
                };
                let x: Vec<f32> = (0..batch * channels * height * width)
                    .map(|_| rand())
                    .collect();
                let w: Vec<f32> = (0..filters * channels * 9).map(|_| rand()).collect();
                let mut u = vec![0.0; c.weights_len()];
                c.transform_weights(&w, &mut u);
                let [ho, wo] = c.out_dims();
                let mut out = vec![f32::NAN; batch * filters * ho * wo];
                c.run(&x, &u, &mut out, &mut vec![f32::NAN; c.scratch_len()]);
                let want = direct(&c, &x, &w);
                let bound = 1e-5 * compare::scale(&want).max(1.0);
                if let Err(e) = compare::within(&out, &want, |_| bound) {
                    panic!("{c:?}: {e}");
                }
            }
        }
    }
}
