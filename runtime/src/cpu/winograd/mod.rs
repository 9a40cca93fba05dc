//! Winograd's minimal filtering F(2x2, 3x3) and F(4x4, 3x3) for 3x3 convolutions of
//! stride 1 (Lavin & Gray, 2015): each 2x2 output tile comes from a 4x4 input tile with
//! 16 multiplications per (filter, channel) pair instead of im2col's 36, each 4x4 one
//! from a 6x6 input tile with 36 instead of 144 — as 16 or 36 matrix products of
//! transformed weights and transformed inputs on kiln's [`gemm`](super::gemm), one per
//! element of a transformed tile.
//!
//! `U = G g Gᵀ` per (filter, channel) — a matrix per element, filters × channels,
//! computed once per version of the weights by the caller's cache; `V = Bᵀ d B` per
//! (channel, tile) — a matrix per element, channels × tiles; `M = U · V` per element;
//! the output tile is `Aᵀ m A`. [`Conv3x3::output_tile`] picks the algorithm, each a
//! `Tiling` the phases are generic over. Channel-first and channel-last layouts share
//! the transforms: they differ in which axis runs along the transforms' lanes (tiles
//! along a row, or channels) and in the strides of the products. F(2x2, 3x3)'s
//! transforms are exact in binary up to halvings, so the result stays within a few ulps
//! of the direct sum; F(4x4, 3x3)'s lose about two digits in f32.
//!
//! A run takes bands of tile rows through all three phases, each band on one thread
//! while its `V` is in that core's L2 cache, where a model of the cache says that pays
//! ([`Conv3x3::band_rows`]); else each phase runs over the whole layer in turn. The
//! transforms are loops over lanes the compiler vectorizes (a lane a tile along a row, or
//! along several rows where rows are short), compiled for each instruction set the
//! products may use. A data gradient ([`Conv3x3::data_gradient`]) is the same
//! algorithm on the forward's weight read with its taps reversed; a weight gradient
//! ([`Conv3x3::weight_gradient`], `weight`) its transpose in the weight.

/// `c.phase::<T>(args)`, or `path::<T>(args)` after `c;`, for the tiling `T` of the
/// convolution `c` (its `output_tile`, checked to be 2 or 4 where a run starts).
macro_rules! tiled {
    ($c:ident.$phase:ident($($arg:expr),*)) => {
        match $c.output_tile {
            4 => $c.$phase::<F4x4>($($arg),*),
            _ => $c.$phase::<F2x2>($($arg),*),
        }
    };
    ($c:ident; $($f:ident)::+($($arg:expr),*)) => {
        match $c.output_tile {
            4 => $($f)::+::<F4x4>($($arg),*),
            _ => $($f)::+::<F2x2>($($arg),*),
        }
    };
}

mod weight;

use super::gemm::{self, Product, Strided};
use super::scratch::Scratch;
use super::{cache, pool};
pub use kiln_compiler::kir::{Bands, Conv3x3};
use std::ops::Range;
/// Transform lanes processed together (tiles along a row, or channels).
const LANES: usize = 16;

/// The algorithm on a convolution's geometry.
pub trait Winograd {
    /// `U = G g Gᵀ` of every (filter, channel) pair into `u` (a matrix per element,
    /// filters × channels: each filter's channels contiguous, so the products read `U`
    /// in place, its rows along their depth), split over the kernels' pool.
    fn transform_weights(&self, weight: &[f32], u: &mut [f32]);
    /// The convolution of `data` by the transformed weights `u` into `out` (no bias),
    /// split over the kernels' pool, with `scratch` (of [`Conv3x3::scratch_len`]) for the
    /// transformed inputs and the products.
    fn run(&self, data: &[f32], u: &[f32], out: &mut [f32], scratch: &mut [f32]);
    /// As [`Winograd::run`], in the given bands of tile rows (`scratch` of
    /// [`Conv3x3::band_scratch_len`] at least), or each phase over the whole layer in turn.
    fn run_in(
        &self,
        data: &[f32],
        u: &[f32],
        out: &mut [f32],
        scratch: &mut [f32],
        bands: Option<Bands>,
    );
    /// The weight gradient `dw` (filters × channels × 3 × 3) of this forward convolution
    /// (channel-first) from its output gradient `dy` and its data, with `scratch` of
    /// [`Conv3x3::weight_gradient_scratch_len`] for as many threads as it holds (at most
    /// the pool's, one an image), split over the kernels' pool.
    fn weight_gradient(&self, dy: &[f32], data: &[f32], dw: &mut [f32], scratch: &mut [f32]);
}

/// The tiles a run's transformed inputs `V` and products `M` hold: `count` tiles from
/// `first` (over the batch, row by row within an image), as a matrix per element — channels ×
/// tiles and filters × tiles (channel-first), or tiles × channels and tiles × filters.
#[derive(Clone, Copy)]
struct Span {
    first: usize,
    count: usize,
}

/// Tile rows `rows` of image `image`.
#[derive(Clone, Debug)]
struct Band {
    image: usize,
    rows: Range<usize>,
}

/// Task `t`'s bands of `tasks`: the batch's tile rows, image after image, split evenly
/// among the tasks (their shares within a row of each other), each task's rows of an
/// image cut evenly into as few bands of at most `rows` as hold them. (Whole bands dealt
/// out in turn left one of two threads 8 of a 56×56 layer's 14 tile rows at batch 1:
/// 1.18 times as long as the layer's phases one after another on a Zen 3; evened, 1.05.)
fn task_bands(
    batch: usize,
    ty_n: usize,
    rows: usize,
    (t, tasks): (usize, usize),
) -> impl Iterator<Item = Band> {
    let total = batch * ty_n;
    let (lo, hi) = (t * total / tasks, (t + 1) * total / tasks);
    let images = (lo / ty_n)..hi.div_ceil(ty_n);
    images.flat_map(move |image| {
        let first = lo.max(image * ty_n) - image * ty_n;
        let last = hi.min((image + 1) * ty_n) - image * ty_n;
        let len = last - first;
        let n = len.div_ceil(rows);
        (0..n).map(move |i| Band {
            image,
            rows: first + i * len / n..first + (i + 1) * len / n,
        })
    })
}

impl Band {
    /// Its tiles, over the batch, for a layer of `[ty_n, tx_n]` tiles an image.
    fn tiles(&self, [ty_n, tx_n]: [usize; 2]) -> Range<usize> {
        let first = (self.image * ty_n + self.rows.start) * tx_n;
        first..first + self.rows.len() * tx_n
    }
}

/// Whether a channel-first layer whose rows hold `tx_n` tiles transforms them in
/// [`TileBlock`]s across rows: where a row holds at most a quarter of the lanes (the 7x7
/// and 14x14 outputs of F(2x2, 3x3) and F(4x4, 3x3): 4 tiles), blocks within a row would
/// leave three quarters of them idle. Measured on ResNet-18's layers at batch 8 (Zen 4,
/// two threads): 14×14×256 by F(4x4, 3x3) 6.0–6.1 → 5.2–5.3 ms, 7×7×512 by F(2x2, 3x3)
/// 7.6–7.7 → 7.2–7.4. Wider rows keep blocks within a row, whose lanes read at a constant
/// stride: across rows, 14×14 by F(2x2, 3x3) (7 tiles a row) and 28×28 by F(4x4, 3x3)
/// ran 5–10% slower.
fn across_rows(tx_n: usize) -> bool {
    4 * tx_n <= LANES
}

/// Up to [`LANES`] consecutive tiles of a band, row after row, a tile a lane: lane
/// `l < lanes` holds the band's tile `first + l`, at tile row `row[l]` and column
/// `col[l]`; the lanes past them repeat the last tile (read, never stored).
struct TileBlock {
    first: usize,
    lanes: usize,
    row: [usize; LANES],
    col: [usize; LANES],
}

/// The blocks of a band of `rows` tile rows of `tx_n` tiles, in order.
fn tile_blocks(rows: usize, tx_n: usize) -> impl Iterator<Item = TileBlock> {
    let tiles = rows * tx_n;
    (0..tiles).step_by(LANES).map(move |first| {
        let lanes = LANES.min(tiles - first);
        let (mut r, mut c) = (first / tx_n, first % tx_n);
        let (mut row, mut col) = ([r; LANES], [c; LANES]);
        for l in 1..lanes {
            (r, c) = if c + 1 == tx_n {
                (r + 1, 0)
            } else {
                (r, c + 1)
            };
            (row[l], col[l]) = (r, c);
        }
        row[lanes..].fill(r);
        col[lanes..].fill(c);
        TileBlock {
            first,
            lanes,
            row,
            col,
        }
    })
}

/// Units `units` of (image, plane) pairs, `planes` per image, as (the image's band of all
/// `tile_rows`, its planes) for each image they touch.
#[inline(always)]
fn whole_images(
    units: Range<usize>,
    planes: usize,
    tile_rows: usize,
) -> impl Iterator<Item = (Band, Range<usize>)> {
    (units.start / planes..units.end.div_ceil(planes)).map(move |image| {
        let first = image * planes;
        let band = Band {
            image,
            rows: 0..tile_rows,
        };
        (
            band,
            units.start.max(first) - first..units.end.min(first + planes) - first,
        )
    })
}

/// Image and top-left output coordinates (y, x) of tile `unit` (over the batch) for a
/// layer of `[ty_n, tx_n]` tiles an image, each `side` outputs a side.
#[inline(always)]
fn tile_origin(unit: usize, [ty_n, tx_n]: [usize; 2], side: usize) -> (usize, usize, usize) {
    let (n, rest) = (unit / (ty_n * tx_n), unit % (ty_n * tx_n));
    (n, side * (rest / tx_n), side * (rest % tx_n))
}

/// The phases of [`Winograd::run`], each writing or reading a [`Span`]'s `V` and `M`.
trait Phases {
    fn for_tasks(&self, units: usize, work: &(dyn Fn(usize, usize) + Sync));
    unsafe fn transform_weights_of<T: Tiling>(
        &self,
        weight: &[f32],
        u: *mut f32,
        lo: usize,
        hi: usize,
    );
    fn input_units(&self) -> usize;
    fn output_units(&self) -> usize;
    unsafe fn transform_inputs<T: Tiling>(
        &self,
        data: &[f32],
        v: *mut f32,
        span: Span,
        lo: usize,
        hi: usize,
    );
    unsafe fn input_band<T: Tiling>(
        &self,
        data: &[f32],
        v: *mut f32,
        span: Span,
        band: Band,
        c: Range<usize>,
    );
    unsafe fn input_band_across<T: Tiling>(
        &self,
        data: &[f32],
        v: *mut f32,
        span: Span,
        band: Band,
        c: Range<usize>,
    );
    unsafe fn product(&self, e: usize, u: &[f32], v: *const f32, m: *mut f32, span: Span);
    unsafe fn transform_outputs<T: Tiling>(
        &self,
        m: *const f32,
        out: *mut f32,
        span: Span,
        lo: usize,
        hi: usize,
    );
    unsafe fn output_band<T: Tiling>(
        &self,
        m: *const f32,
        out: *mut f32,
        span: Span,
        band: Band,
        f: Range<usize>,
    );
    unsafe fn output_band_across<T: Tiling>(
        &self,
        m: *const f32,
        out: *mut f32,
        span: Span,
        band: Band,
        f: Range<usize>,
    );
    unsafe fn all_phases<T: Tiling>(
        &self,
        data: &[f32],
        u: &[f32],
        out: *mut f32,
        space: *mut f32,
        band: Band,
    );
}

impl Winograd for Conv3x3 {
    /// `U = G g Gᵀ` of every (filter, channel) pair into `u` (a matrix per element,
    /// filters × channels), split over the kernels' pool.
    fn transform_weights(&self, weight: &[f32], u: &mut [f32]) {
        assert!(
            matches!(self.output_tile, 2 | 4)
                && weight.len() >= 9 * self.filters * self.channels
                && u.len() >= self.weights_len()
        );
        let u = Shared::new(u.as_mut_ptr());
        let code = compiled();
        // By filter: a task's filters' rows of each matrix, contiguous, its alone.
        // SAFETY: filters lo..hi are this task's; `weight` and `u` hold every filter's
        // (lengths checked above).
        self.for_tasks(self.filters, &|lo, hi| unsafe {
            (code.weights)(self, weight, u.get(), lo, hi)
        });
    }

    /// Bands of tiles through all three phases where [`Conv3x3::band_rows`] says they pay
    /// on this machine's L2 cache and the kernels' pool, else each phase over the whole
    /// layer in turn.
    fn run(&self, data: &[f32], u: &[f32], out: &mut [f32], scratch: &mut [f32]) {
        let threads = pool::global().threads();
        let bands =
            (self.band_rows(cache::l2_bytes(), threads)).map(|rows| Bands { rows, threads });
        self.run_in(data, u, out, scratch, bands)
    }

    fn run_in(
        &self,
        data: &[f32],
        u: &[f32],
        out: &mut [f32],
        scratch: &mut [f32],
        bands: Option<Bands>,
    ) {
        let [ho, wo] = self.out_dims();
        let [ty_n, tx_n] = self.tile_dims();
        let (f_n, c_n) = (self.filters, self.channels);
        assert!(
            matches!(self.output_tile, 2 | 4)
                && data.len() >= self.batch * c_n * self.height * self.width
                && u.len() >= self.weights_len()
                && out.len() >= self.batch * f_n * ho * wo
        );
        let code = compiled();
        let out = Shared::new(out.as_mut_ptr());
        if let Some(Bands { rows, threads }) = bands {
            let bands = ty_n.div_ceil(rows);
            let blocks = self.batch * bands;
            let tasks = pool::global().threads().min(threads).min(blocks);
            let space = self.elements() * (c_n + f_n) * rows * tx_n;
            assert!(
                tasks * space <= scratch.len(),
                "{rows} tile rows per band on {tasks} threads"
            );
            let scratch = Shared::new(scratch.as_mut_ptr());
            pool::global().run(tasks, &|t| {
                for band in task_bands(self.batch, ty_n, rows, (t, tasks)) {
                    // SAFETY: each task's space is its own part of `scratch` (tasks × space
                    // within it, checked above), its bands' tiles disjoint parts of
                    // `out`; lengths checked above.
                    unsafe {
                        (code.all_phases)(
                            self,
                            data,
                            u,
                            out.get(),
                            scratch.get().add(t * space),
                            band,
                        )
                    };
                }
            });
            return;
        }
        assert!(scratch.len() >= self.scratch_len());
        let span = Span {
            first: 0,
            count: self.tiles(),
        };
        let elements = self.elements();
        let (v, m) = scratch.split_at_mut(elements * c_n * span.count);
        let v = Shared::new(v.as_mut_ptr());
        let m = Shared::new(m.as_mut_ptr());
        // The three phases run one after another over the whole layer; each task writes its
        // own disjoint part of `v`, `m` or `out`, whose lengths the geometry fixes (checked
        // above).
        // SAFETY: units lo..hi are this task's; `data` is a slice and `v` holds the
        // transforms of all units (scratch length checked above).
        self.for_tasks(self.input_units(), &|lo, hi| unsafe {
            (code.inputs)(self, data, v.get(), span, lo, hi)
        });
        let tasks = (2 * pool::global().threads()).min(elements);
        pool::global().run(tasks, &|t| {
            for e in (t * elements / tasks)..((t + 1) * elements / tasks) {
                // SAFETY: element e is this task's alone (the ranges split the elements);
                // `u` and `v` are complete, and `m` holds every element's product (lengths
                // checked above).
                unsafe { self.product(e, u, v.get(), m.get(), span) };
            }
        });
        // SAFETY: units lo..hi are this task's, their tiles disjoint parts of `out`
        // (length checked above); `m` is complete (the products ran before).
        self.for_tasks(self.output_units(), &|lo, hi| unsafe {
            (code.outputs)(self, m.get(), out.get(), span, lo, hi)
        });
    }

    fn weight_gradient(&self, dy: &[f32], data: &[f32], dw: &mut [f32], scratch: &mut [f32]) {
        weight::weight_gradient(self, dy, data, dw, scratch)
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

    /// `U` of filters `lo..hi` into `u` (a matrix per element, filters × channels), its
    /// lanes along the channels.
    #[inline(always)]
    unsafe fn transform_weights_of<T: Tiling>(
        &self,
        weight: &[f32],
        u: *mut f32,
        lo: usize,
        hi: usize,
    ) {
        let (f_n, c_n) = (self.filters, self.channels);
        let mut g = [[0f32; LANES]; 9];
        for f in lo..hi {
            for c0 in (0..c_n).step_by(LANES) {
                let lanes = LANES.min(c_n - c0);
                for (k, row) in g.iter_mut().enumerate() {
                    for (l, slot) in row.iter_mut().enumerate().take(lanes) {
                        let c = c0 + l;
                        *slot = weight[match (self.data_gradient, self.channel_last) {
                            (false, true) => (f * 9 + k) * c_n + c,
                            (false, false) => (f * c_n + c) * 9 + k,
                            // The forward's weight: filter c, channel f, taps reversed.
                            (true, true) => (c * 9 + 8 - k) * f_n + f,
                            (true, false) => (c * f_n + f) * 9 + 8 - k,
                        }];
                    }
                }
                store(
                    T::weight_tile(&g).as_ref(),
                    u,
                    f_n * c_n,
                    f * c_n + c0,
                    lanes,
                );
            }
        }
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

    /// `V = Bᵀ d B` of the span's tiles for units `[lo, hi)`: (image, channel) planes
    /// (channel-first) or tiles (channel-last), each block of lanes contiguous.
    #[inline(always)]
    unsafe fn transform_inputs<T: Tiling>(
        &self,
        data: &[f32],
        v: *mut f32,
        span: Span,
        lo: usize,
        hi: usize,
    ) {
        let [ty_n, tx_n] = self.tile_dims();
        let (h, w, c_n) = (self.height, self.width, self.channels);
        if !self.channel_last {
            for (band, c) in whole_images(lo..hi, c_n, ty_n) {
                self.input_band::<T>(data, v, span, band, c);
            }
            return;
        }
        let [py, px] = self.pad;
        let plane = c_n * span.count;
        let mut d = T::zero();
        for unit in lo..hi {
            let (n, y0, x0) = tile_origin(unit, [ty_n, tx_n], T::OUT);
            for c0 in (0..c_n).step_by(LANES) {
                let lanes = LANES.min(c_n - c0);
                for (ij, row) in d.as_mut().iter_mut().enumerate() {
                    // Padded coordinates: inside where they are at least the padding.
                    let (y, x) = (y0 + ij / T::IN, x0 + ij % T::IN);
                    if (py..h + py).contains(&y) && (px..w + px).contains(&x) {
                        let at = ((n * h + y - py) * w + x - px) * c_n + c0;
                        row[..lanes].copy_from_slice(&data[at..at + lanes]);
                    } else {
                        row.fill(0.0);
                    }
                }
                store(
                    T::input_tile(&d).as_ref(),
                    v,
                    plane,
                    (unit - span.first) * c_n + c0,
                    lanes,
                );
            }
        }
    }

    /// `V` of a band's tiles for channels `c` (all channels, channel-last). Channel-first,
    /// each plane's rows are copied into a zero-padded band first, wide enough for whole
    /// blocks of lanes, so the tiles are read without bounds checks.
    #[inline(always)]
    unsafe fn input_band<T: Tiling>(
        &self,
        data: &[f32],
        v: *mut f32,
        span: Span,
        band: Band,
        c: Range<usize>,
    ) {
        let [_, tx_n] = self.tile_dims();
        let tiles = band.tiles(self.tile_dims());
        if self.channel_last {
            return self.transform_inputs::<T>(data, v, span, tiles.start, tiles.end);
        }
        if across_rows(tx_n) {
            return self.input_band_across::<T>(data, v, span, band, c);
        }
        let (h, w, c_n) = (self.height, self.width, self.channels);
        let [py, px] = self.pad;
        let side = T::OUT;
        let (ph, pw) = (side * band.rows.len() + 2, side * (tx_n + LANES) + 2);
        let mut padded = Scratch::take(ph * pw * 4);
        let padded = std::slice::from_raw_parts_mut(padded.as_mut_ptr() as *mut f32, ph * pw);
        padded.fill(0.0);
        // Row r of the band is row y0 + r of the zero-padded image.
        let y0 = side * band.rows.start;
        let len = w.min(pw - side * LANES - px);
        let mut d = T::zero();
        for c in c {
            let src = &data[(band.image * c_n + c) * h * w..][..h * w];
            for y in y0.max(py)..(y0 + ph).min(h + py) {
                let at = (y - y0) * pw + px;
                padded[at..at + len].copy_from_slice(&src[(y - py) * w..][..len]);
            }
            for r in 0..band.rows.len() {
                for tx0 in (0..tx_n).step_by(LANES) {
                    for (ij, row) in d.as_mut().iter_mut().enumerate() {
                        let at = (side * r + ij / T::IN) * pw + side * tx0 + ij % T::IN;
                        let src = &padded[at..at + side * LANES];
                        for (l, slot) in row.iter_mut().enumerate() {
                            *slot = src[side * l];
                        }
                    }
                    let tile = tiles.start + r * tx_n + tx0 - span.first;
                    let lanes = LANES.min(tx_n - tx0);
                    store(
                        T::input_tile(&d).as_ref(),
                        v,
                        c_n * span.count,
                        c * span.count + tile,
                        lanes,
                    );
                }
            }
        }
    }

    /// [`Self::input_band`] of a channel-first layer in [`TileBlock`]s across rows
    /// ([`across_rows`]). A function of its own: as a branch inside `input_band`'s loop,
    /// the wide layers' transforms, whose code did not change, ran 5–8% slower.
    #[inline(always)]
    unsafe fn input_band_across<T: Tiling>(
        &self,
        data: &[f32],
        v: *mut f32,
        span: Span,
        band: Band,
        c: Range<usize>,
    ) {
        let [_, tx_n] = self.tile_dims();
        let tiles = band.tiles(self.tile_dims());
        let (h, w, c_n) = (self.height, self.width, self.channels);
        let [py, px] = self.pad;
        let side = T::OUT;
        let (ph, pw) = (side * band.rows.len() + 2, side * tx_n + 2);
        let mut padded = Scratch::take(ph * pw * 4);
        let padded = std::slice::from_raw_parts_mut(padded.as_mut_ptr() as *mut f32, ph * pw);
        padded.fill(0.0);
        let y0 = side * band.rows.start;
        let len = w.min(pw - px);
        let mut d = T::zero();
        for c in c {
            let src = &data[(band.image * c_n + c) * h * w..][..h * w];
            for y in y0.max(py)..(y0 + ph).min(h + py) {
                let at = (y - y0) * pw + px;
                padded[at..at + len].copy_from_slice(&src[(y - py) * w..][..len]);
            }
            for block in tile_blocks(band.rows.len(), tx_n) {
                let origin: [usize; LANES] =
                    std::array::from_fn(|l| side * (block.row[l] * pw + block.col[l]));
                for (ij, row) in d.as_mut().iter_mut().enumerate() {
                    let at = ij / T::IN * pw + ij % T::IN;
                    for (slot, o) in row.iter_mut().zip(origin) {
                        *slot = padded[o + at];
                    }
                }
                store(
                    T::input_tile(&d).as_ref(),
                    v,
                    c_n * span.count,
                    c * span.count + tiles.start + block.first - span.first,
                    block.lanes,
                );
            }
        }
    }

    /// `M[e] = U[e] · V[e]` for element `e` of the tile: filters × tiles (channel-first) or
    /// tiles × filters (channel-last).
    unsafe fn product(&self, e: usize, u: &[f32], v: *const f32, m: *mut f32, span: Span) {
        let (f_n, c_n, p_n) = (self.filters, self.channels, span.count);
        // Strides (row, column) of V (channels × tiles) and M (filters × tiles).
        let (v_rs, v_cs, m_rs, m_cs) = if self.channel_last {
            (1, c_n, 1, f_n)
        } else {
            (p_n, 1, p_n, 1)
        };
        gemm::run(&Product {
            m: f_n,
            n: p_n,
            k: c_n,
            a: Strided {
                ptr: u.as_ptr().add(e * f_n * c_n),
                rs: c_n as isize,
                cs: 1,
            },
            b: Strided {
                ptr: v.add(e * c_n * p_n),
                rs: v_rs as isize,
                cs: v_cs as isize,
            },
            c: m.add(e * f_n * p_n),
            c_rs: m_rs as isize,
            c_cs: m_cs as isize,
            accumulate: false,
        });
    }

    /// `Aᵀ m A` of the span's tiles for units `[lo, hi)`: (image, filter) planes
    /// (channel-first) or tiles (channel-last), each tile written where it lies in the
    /// output.
    #[inline(always)]
    unsafe fn transform_outputs<T: Tiling>(
        &self,
        m: *const f32,
        out: *mut f32,
        span: Span,
        lo: usize,
        hi: usize,
    ) {
        let [ty_n, tx_n] = self.tile_dims();
        let [ho, wo] = self.out_dims();
        let f_n = self.filters;
        if !self.channel_last {
            for (band, f) in whole_images(lo..hi, f_n, ty_n) {
                self.output_band::<T>(m, out, span, band, f);
            }
            return;
        }
        let plane = f_n * span.count;
        let mut t = T::zero();
        for unit in lo..hi {
            let (n, y0, x0) = tile_origin(unit, [ty_n, tx_n], T::OUT);
            for f0 in (0..f_n).step_by(LANES) {
                let lanes = LANES.min(f_n - f0);
                load(t.as_mut(), m, plane, (unit - span.first) * f_n + f0, lanes);
                for (ij, row) in T::output_tile(&t).as_ref().iter().enumerate() {
                    let (y, x) = (y0 + ij / T::OUT, x0 + ij % T::OUT);
                    if y < ho && x < wo {
                        let at = ((n * ho + y) * wo + x) * f_n + f0;
                        copy_short(row.as_ptr(), out.add(at), lanes);
                    }
                }
            }
        }
    }

    /// The output of a band's tiles for filters `f` (all filters, channel-last).
    #[inline(always)]
    unsafe fn output_band<T: Tiling>(
        &self,
        m: *const f32,
        out: *mut f32,
        span: Span,
        band: Band,
        f: Range<usize>,
    ) {
        let [_, tx_n] = self.tile_dims();
        let [ho, wo] = self.out_dims();
        let f_n = self.filters;
        let tiles = band.tiles(self.tile_dims());
        if self.channel_last {
            return self.transform_outputs::<T>(m, out, span, tiles.start, tiles.end);
        }
        if across_rows(tx_n) {
            return self.output_band_across::<T>(m, out, span, band, f);
        }
        let side = T::OUT;
        let mut t = T::zero();
        for f in f {
            let base = (band.image * f_n + f) * ho * wo;
            for (r, ty) in band.rows.clone().enumerate() {
                for tx0 in (0..tx_n).step_by(LANES) {
                    let lanes = LANES.min(tx_n - tx0);
                    let tile = tiles.start + r * tx_n + tx0 - span.first;
                    load(
                        t.as_mut(),
                        m,
                        f_n * span.count,
                        f * span.count + tile,
                        lanes,
                    );
                    for (ij, row) in T::output_tile(&t).as_ref().iter().enumerate() {
                        let (y, j) = (side * ty + ij / side, ij % side);
                        // Lanes whose column side·(tx0 + l) + j lies inside the output.
                        let inside = (wo.saturating_sub(j).div_ceil(side))
                            .saturating_sub(tx0)
                            .min(lanes);
                        if y < ho {
                            let at = out.add(base + y * wo + side * tx0 + j);
                            for (l, &x) in row.iter().enumerate().take(inside) {
                                *at.add(side * l) = x;
                            }
                        }
                    }
                }
            }
        }
    }

    /// [`Self::output_band`] of a channel-first layer in [`TileBlock`]s across rows
    /// ([`across_rows`]), each lane's values stored where its tile lies.
    #[inline(always)]
    unsafe fn output_band_across<T: Tiling>(
        &self,
        m: *const f32,
        out: *mut f32,
        span: Span,
        band: Band,
        f: Range<usize>,
    ) {
        let [_, tx_n] = self.tile_dims();
        let [ho, wo] = self.out_dims();
        let f_n = self.filters;
        let tiles = band.tiles(self.tile_dims());
        let side = T::OUT;
        let mut t = T::zero();
        for f in f {
            let plane = out.add((band.image * f_n + f) * ho * wo);
            for block in tile_blocks(band.rows.len(), tx_n) {
                let tile = tiles.start + block.first - span.first;
                load(
                    t.as_mut(),
                    m,
                    f_n * span.count,
                    f * span.count + tile,
                    block.lanes,
                );
                for (ij, row) in T::output_tile(&t).as_ref().iter().enumerate() {
                    let (i, j) = (ij / side, ij % side);
                    for (l, &value) in row.iter().enumerate().take(block.lanes) {
                        let y = side * (band.rows.start + block.row[l]) + i;
                        let x = side * block.col[l] + j;
                        if y < ho && x < wo {
                            *plane.add(y * wo + x) = value;
                        }
                    }
                }
            }
        }
    }

    /// A band through all three phases on the calling thread, its `V` and `M` in `space`.
    #[inline(always)]
    unsafe fn all_phases<T: Tiling>(
        &self,
        data: &[f32],
        u: &[f32],
        out: *mut f32,
        space: *mut f32,
        band: Band,
    ) {
        let tiles = band.tiles(self.tile_dims());
        let span = Span {
            first: tiles.start,
            count: tiles.len(),
        };
        let (v, m) = (
            space,
            space.add(self.elements() * self.channels * span.count),
        );
        self.input_band::<T>(data, v, span, band.clone(), 0..self.channels);
        for e in 0..self.elements() {
            self.product(e, u, v, m, span);
        }
        self.output_band::<T>(m, out, span, band, 0..self.filters);
    }
}

/// The phases' loops compiled for one instruction set. They are plain loops over lanes
/// that the compiler vectorizes, so each is compiled for every set the products use
/// (baseline x86-64 would run them four lanes at a time).
struct Compiled {
    weights: unsafe fn(&Conv3x3, &[f32], *mut f32, usize, usize),
    inputs: unsafe fn(&Conv3x3, &[f32], *mut f32, Span, usize, usize),
    outputs: unsafe fn(&Conv3x3, *const f32, *mut f32, Span, usize, usize),
    all_phases: unsafe fn(&Conv3x3, &[f32], &[f32], *mut f32, *mut f32, Band),
    weight_image: WeightImage,
}

/// A weight gradient's transforms of one image's tiles (`weight::image_transforms`).
type WeightImage = unsafe fn(&Conv3x3, &[f32], &[f32], [*mut f32; 2], Span, usize);

/// [`Compiled`] with the target features `$features` (none: baseline).
macro_rules! compiled_for {
    ($($features:literal)?) => {{
        $(#[target_feature(enable = $features)])?
        unsafe fn weights(c: &Conv3x3, w: &[f32], u: *mut f32, lo: usize, hi: usize) {
            // SAFETY: the caller's, as `transform_weights_of` requires.
            unsafe { tiled!(c.transform_weights_of(w, u, lo, hi)) }
        }
        $(#[target_feature(enable = $features)])?
        unsafe fn inputs(c: &Conv3x3, d: &[f32], v: *mut f32, s: Span, lo: usize, hi: usize) {
            // SAFETY: the caller's, as `transform_inputs` requires.
            unsafe { tiled!(c.transform_inputs(d, v, s, lo, hi)) }
        }
        $(#[target_feature(enable = $features)])?
        unsafe fn outputs(c: &Conv3x3, m: *const f32, o: *mut f32, s: Span, lo: usize, hi: usize) {
            // SAFETY: the caller's, as `transform_outputs` requires.
            unsafe { tiled!(c.transform_outputs(m, o, s, lo, hi)) }
        }
        $(#[target_feature(enable = $features)])?
        unsafe fn all_phases(c: &Conv3x3, d: &[f32], u: &[f32], o: *mut f32, s: *mut f32, b: Band) {
            // SAFETY: the caller's, as `all_phases` requires.
            unsafe { tiled!(c.all_phases(d, u, o, s, b)) }
        }
        $(#[target_feature(enable = $features)])?
        unsafe fn weight_image(
            c: &Conv3x3,
            dy: &[f32],
            d: &[f32],
            vy: [*mut f32; 2],
            s: Span,
            image: usize,
        ) {
            // SAFETY: the caller's, as `weight::image_transforms` requires.
            unsafe { tiled!(c; weight::image_transforms(c, dy, d, vy, s, image)) }
        }
        Compiled { weights, inputs, outputs, all_phases, weight_image }
    }};
}

/// The phases compiled for the widest instruction set the products use.
fn compiled() -> &'static Compiled {
    static BASELINE: Compiled = compiled_for!();
    #[cfg(target_arch = "x86_64")]
    {
        static AVX512: Compiled = compiled_for!("avx512f,fma");
        static AVX2: Compiled = compiled_for!("avx2,fma");
        // `isa()` says Avx512 only where avx512f and fma were detected, Avx2 only where avx2
        // and fma were: only then are those forms called.
        match gemm::isa() {
            gemm::Isa::Avx512 => return &AVX512,
            gemm::Isa::Avx2 => return &AVX2,
            gemm::Isa::Baseline => {}
        }
    }
    &BASELINE
}

/// Stores lanes `..lanes` of every element `e` of `t` at `dst[e·plane + at + l]`.
///
/// # Safety
/// `dst` must hold those indices.
#[inline(always)]
unsafe fn store(t: &[[f32; LANES]], dst: *mut f32, plane: usize, at: usize, lanes: usize) {
    for (e, row) in t.iter().enumerate() {
        let to = dst.add(e * plane + at);
        // Whole rows as one vector move: a copy of a run-time length is a call per row.
        if lanes == LANES {
            to.cast::<[f32; LANES]>().write_unaligned(*row);
        } else {
            copy_short(row.as_ptr(), to, lanes);
        }
    }
}

/// Loads lanes `..lanes` of every element `e` of `t` from `src[e·plane + at + l]`.
///
/// # Safety
/// `src` must hold those indices.
#[inline(always)]
unsafe fn load(t: &mut [[f32; LANES]], src: *const f32, plane: usize, at: usize, lanes: usize) {
    for (e, row) in t.iter_mut().enumerate() {
        let from = src.add(e * plane + at);
        if lanes == LANES {
            *row = from.cast::<[f32; LANES]>().read_unaligned();
        } else {
            copy_short(from, row.as_mut_ptr(), lanes);
        }
    }
}

/// Copies `n ≤ LANES` values from `src` to `dst` as at most four moves of fixed sizes
/// (16, 8, 4, 2 and 1 values, by the bits of `n`): a copy of a run-time length is a
/// library call, and a layer's partial blocks of lanes all have one length.
///
/// # Safety
/// `src` and `dst` must hold `n` values.
#[inline(always)]
unsafe fn copy_short(src: *const f32, dst: *mut f32, n: usize) {
    #[inline(always)]
    unsafe fn copy<const N: usize>(src: *const f32, dst: *mut f32) {
        dst.cast::<[f32; N]>()
            .write_unaligned(src.cast::<[f32; N]>().read_unaligned())
    }
    debug_assert!(n <= LANES);
    if n == LANES {
        return copy::<LANES>(src, dst);
    }
    let mut at = 0;
    if n & 8 != 0 {
        copy::<8>(src, dst);
        at += 8;
    }
    if n & 4 != 0 {
        copy::<4>(src.add(at), dst.add(at));
        at += 4;
    }
    if n & 2 != 0 {
        copy::<2>(src.add(at), dst.add(at));
        at += 2;
    }
    if n & 1 != 0 {
        copy::<1>(src.add(at), dst.add(at));
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

/// One of Winograd's minimal filtering algorithms F(m×m, 3×3): the sides of its tiles and
/// its transforms of LANES tiles at a time, each tile's elements row by row, an element's
/// LANES values in a row of the arrays.
trait Tiling {
    /// Side of an output tile (m).
    const OUT: usize;
    /// Side of an input tile and of a transformed one (m + 2).
    const IN: usize;
    /// LANES input or transformed tiles.
    type Tile: Copy + AsRef<[[f32; LANES]]> + AsMut<[[f32; LANES]]>;
    /// LANES output tiles.
    type Output: Copy + AsRef<[[f32; LANES]]> + AsMut<[[f32; LANES]]>;
    fn zero() -> Self::Tile;
    fn zero_output() -> Self::Output;
    /// `G g Gᵀ` of LANES 3x3 filters (element `3i + j` is row i, column j).
    fn weight_tile(g: &[[f32; LANES]; 9]) -> Self::Tile;
    /// `Bᵀ d B`.
    fn input_tile(d: &Self::Tile) -> Self::Tile;
    /// `Aᵀ m A`.
    fn output_tile(m: &Self::Tile) -> Self::Output;
    /// `A dY Aᵀ` of output gradients, the transpose of [`Tiling::output_tile`].
    fn gradient_tile(dy: &Self::Output) -> Self::Tile;
    /// `Gᵀ m G` into LANES 3x3 weight gradients, the transpose of
    /// [`Tiling::weight_tile`].
    fn weight_gradient_tile(m: &Self::Tile) -> [[f32; LANES]; 9];
}

/// F(2x2, 3x3) on 4x4 input tiles, at the points 0, ±1 and ∞: its transforms are exact
/// in binary but for halvings.
struct F2x2;

impl Tiling for F2x2 {
    const OUT: usize = 2;
    const IN: usize = 4;
    type Tile = [[f32; LANES]; 16];
    type Output = [[f32; LANES]; 4];

    fn zero() -> Self::Tile {
        [[0.0; LANES]; 16]
    }

    fn zero_output() -> Self::Output {
        [[0.0; LANES]; 4]
    }

    #[inline(always)]
    fn weight_tile(g: &[[f32; LANES]; 9]) -> Self::Tile {
        // G's rows: (1, 0, 0), (½, ½, ½), (½, −½, ½), (0, 0, 1).
        let g_col = |[a, b, c]: [f32; 3]| [a, 0.5 * (a + b + c), 0.5 * (a - b + c), c];
        separable::<3, 3, 4, 9, 16>(g, g_col, g_col)
    }

    #[inline(always)]
    fn input_tile(d: &Self::Tile) -> Self::Tile {
        // Bᵀ's rows: (1, 0, −1, 0), (0, 1, 1, 0), (0, −1, 1, 0), (0, 1, 0, −1).
        let bt_col = |[a, b, c, d]: [f32; 4]| [a - c, b + c, c - b, b - d];
        separable::<4, 4, 4, 16, 16>(d, bt_col, bt_col)
    }

    #[inline(always)]
    fn output_tile(m: &Self::Tile) -> Self::Output {
        // Aᵀ's rows: (1, 1, 1, 0), (0, 1, −1, −1).
        let at_col = |[a, b, c, d]: [f32; 4]| [a + b + c, b - c - d];
        separable::<4, 4, 2, 16, 4>(m, at_col, at_col)
    }

    #[inline(always)]
    fn gradient_tile(dy: &Self::Output) -> Self::Tile {
        // A's rows: (1, 0), (1, 1), (1, −1), (0, −1).
        let a_col = |[a, b]: [f32; 2]| [a, a + b, a - b, -b];
        separable::<2, 2, 4, 4, 16>(dy, a_col, a_col)
    }

    #[inline(always)]
    fn weight_gradient_tile(m: &Self::Tile) -> [[f32; LANES]; 9] {
        // Gᵀ's rows: (1, ½, ½, 0), (0, ½, −½, 0), (0, ½, ½, 1).
        let gt_col = |[a, b, c, d]: [f32; 4]| [a + 0.5 * (b + c), 0.5 * (b - c), 0.5 * (b + c) + d];
        separable::<4, 4, 3, 16, 9>(m, gt_col, gt_col)
    }
}

/// F(4x4, 3x3) on 6x6 input tiles, at the points 0, ±1, ±2 and ∞ (Lavin & Gray's).
struct F4x4;

impl Tiling for F4x4 {
    const OUT: usize = 4;
    const IN: usize = 6;
    type Tile = [[f32; LANES]; 36];
    type Output = [[f32; LANES]; 16];

    fn zero() -> Self::Tile {
        [[0.0; LANES]; 36]
    }

    fn zero_output() -> Self::Output {
        [[0.0; LANES]; 16]
    }

    #[inline(always)]
    fn weight_tile(g: &[[f32; LANES]; 9]) -> Self::Tile {
        // G's rows: (¼, 0, 0), (−⅙, −⅙, −⅙), (−⅙, ⅙, −⅙), (1/24, 1/12, ⅙),
        // (1/24, −1/12, ⅙), (0, 0, 1).
        let g_col = |[a, b, c]: [f32; 3]| {
            let (outer, inner) = (a + c, a / 4.0 + c);
            [
                a / 4.0,
                -(outer + b) / 6.0,
                -(outer - b) / 6.0,
                (inner / 6.0) + b / 12.0,
                (inner / 6.0) - b / 12.0,
                c,
            ]
        };
        separable::<3, 3, 6, 9, 36>(g, g_col, g_col)
    }

    #[inline(always)]
    fn input_tile(d: &Self::Tile) -> Self::Tile {
        // Bᵀ's rows: (4, 0, −5, 0, 1, 0), (0, −4, −4, 1, 1, 0), (0, 4, −4, −1, 1, 0),
        // (0, −2, −1, 2, 1, 0), (0, 2, −1, −2, 1, 0), (0, 4, 0, −5, 0, 1).
        let bt_col = |[a, b, c, d, e, f]: [f32; 6]| {
            let (even1, odd1) = (e - 4.0 * c, d - 4.0 * b);
            let (even2, odd2) = (e - c, 2.0 * (d - b));
            [
                4.0 * a - 5.0 * c + e,
                even1 + odd1,
                even1 - odd1,
                even2 + odd2,
                even2 - odd2,
                4.0 * b - 5.0 * d + f,
            ]
        };
        separable::<6, 6, 6, 36, 36>(d, bt_col, bt_col)
    }

    #[inline(always)]
    fn output_tile(m: &Self::Tile) -> Self::Output {
        // Aᵀ's rows: (1, 1, 1, 1, 1, 0), (0, 1, −1, 2, −2, 0), (0, 1, 1, 4, 4, 0),
        // (0, 1, −1, 8, −8, 1).
        let at_col = |[a, b, c, d, e, f]: [f32; 6]| {
            let (sum1, diff1, sum2, diff2) = (b + c, b - c, d + e, d - e);
            [
                a + sum1 + sum2,
                diff1 + 2.0 * diff2,
                sum1 + 4.0 * sum2,
                diff1 + 8.0 * diff2 + f,
            ]
        };
        separable::<6, 6, 4, 36, 16>(m, at_col, at_col)
    }

    #[inline(always)]
    fn gradient_tile(dy: &Self::Output) -> Self::Tile {
        // A's rows: (1, 0, 0, 0), (1, 1, 1, 1), (1, −1, 1, −1), (1, 2, 4, 8),
        // (1, −2, 4, −8), (0, 0, 0, 1).
        let a_col = |[a, b, c, d]: [f32; 4]| {
            let (even1, odd1) = (a + c, b + d);
            let (even2, odd2) = (a + 4.0 * c, 2.0 * b + 8.0 * d);
            [a, even1 + odd1, even1 - odd1, even2 + odd2, even2 - odd2, d]
        };
        separable::<4, 4, 6, 16, 36>(dy, a_col, a_col)
    }

    #[inline(always)]
    fn weight_gradient_tile(m: &Self::Tile) -> [[f32; LANES]; 9] {
        // Gᵀ's rows: (¼, −⅙, −⅙, 1/24, 1/24, 0), (0, −⅙, ⅙, 1/12, −1/12, 0),
        // (0, −⅙, −⅙, ⅙, ⅙, 1).
        let gt_col = |[a, b, c, d, e, f]: [f32; 6]| {
            let (sum1, diff1, sum2, diff2) = (b + c, c - b, d + e, d - e);
            [
                a / 4.0 - sum1 / 6.0 + sum2 / 24.0,
                diff1 / 6.0 + diff2 / 12.0,
                (sum2 - sum1) / 6.0 + f,
            ]
        };
        separable::<6, 6, 3, 36, 9>(m, gt_col, gt_col)
    }
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

    /// Values in [−½, ½) from a linear congruential stream started at `seed`.
    fn randoms(mut seed: u64) -> impl FnMut() -> f32 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as f64 / (1u64 << 31) as f64 - 0.5) as f32
        }
    }

    /// The direct sum, in f64.
    fn direct(c: &Conv3x3, x: &[f32], w: &[f32]) -> Vec<f64> {
        let [ho, wo] = c.out_dims();
        let (cn, fn_) = (c.channels, c.filters);
        // Channels of the weight as stored.
        let w_channels = if c.data_gradient { fn_ } else { cn };
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
                                    let xi = if c.channel_last {
                                        ((n * c.height + iy) * c.width + ix) * cn + ch
                                    } else {
                                        ((n * cn + ch) * c.height + iy) * c.width + ix
                                    };
                                    // A data gradient's weight is the forward's: filter
                                    // ch, channel f, taps reversed.
                                    let (rf, rc, ry, rx) = match c.data_gradient {
                                        false => (f, ch, ky, kx),
                                        true => (ch, f, 2 - ky, 2 - kx),
                                    };
                                    let wi = if c.channel_last {
                                        ((rf * 3 + ry) * 3 + rx) * w_channels + rc
                                    } else {
                                        (rf * w_channels + rc) * 9 + ry * 3 + rx
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
    fn bands_split_the_tile_rows_evenly_among_tasks() {
        for (batch, ty_n, rows, tasks) in [(1, 14, 3, 2), (3, 7, 2, 2), (2, 5, 4, 3), (8, 14, 3, 2)]
        {
            let mut seen = vec![0; batch * ty_n];
            let mut shares = vec![];
            for t in 0..tasks {
                let mut share = 0;
                for band in task_bands(batch, ty_n, rows, (t, tasks)) {
                    let what =
                        format!("{batch}×{ty_n} rows in bands of {rows}: task {t}'s {band:?}");
                    assert!((1..=rows).contains(&band.rows.len()), "{what}");
                    assert!(band.image < batch && band.rows.end <= ty_n, "{what}");
                    band.rows
                        .clone()
                        .for_each(|r| seen[band.image * ty_n + r] += 1);
                    share += band.rows.len();
                }
                shares.push(share);
            }
            assert!(
                seen.iter().all(|&n| n == 1),
                "{batch}×{ty_n} by {rows}: {seen:?}"
            );
            let (least, most) = (shares.iter().min(), shares.iter().max());
            assert!(
                most.unwrap() - least.unwrap() <= 1,
                "{batch}×{ty_n} by {rows}: {shares:?}"
            );
        }
    }

    #[test]
    fn matches_the_direct_sum_in_both_layouts_forward_and_as_data_gradients() {
        let mut rand = randoms(7);
        // Odd and even sizes, each padding, more lanes than a block, batch > 1, weights
        // of many filters and of channels past two blocks of lanes, a layer large enough
        // to split its transforms over the pool.
        for (batch, channels, height, width, filters, pad) in [
            (1, 3, 5, 5, 2, [1, 1]),
            (2, 17, 7, 9, 19, [0, 2]),
            (1, 4, 3, 40, 5, [2, 0]),
            (3, 20, 6, 6, 33, [1, 1]),
            (1, 37, 4, 6, 128, [1, 0]),
            (1, 20, 16, 16, 72, [1, 1]),
            (2, 24, 13, 11, 20, [1, 1]),
        ] {
            let layouts = [(false, false), (true, false), (false, true), (true, true)];
            for ((channel_last, data_gradient), output_tile) in
                layouts.into_iter().flat_map(|l| [(l, 2), (l, 4)])
            {
                let c = Conv3x3 {
                    batch,
                    channels,
                    height,
                    width,
                    filters,
                    pad,
                    channel_last,
                    data_gradient,
                    weight_gradient: false,
                    output_tile,
                };
                let x: Vec<f32> = (0..batch * channels * height * width)
                    .map(|_| rand())
                    .collect();
                let w: Vec<f32> = (0..filters * channels * 9).map(|_| rand()).collect();
                let mut u = vec![0.0; c.weights_len()];
                c.transform_weights(&w, &mut u);
                let [ho, wo] = c.out_dims();
                let want = direct(&c, &x, &w);
                let bound = 1e-5 * compare::scale(&want).max(1.0);
                // The model's choice on this machine, the whole layer, bands of one and two
                // tile rows on the pool's threads and of three on one; each in working
                // space of the length it asks for, no more.
                let mut out = vec![f32::NAN; batch * filters * ho * wo];
                c.run(&x, &u, &mut out, &mut vec![f32::NAN; c.scratch_len()]);
                if let Err(e) = compare::within(&out, &want, |_| bound) {
                    panic!("{c:?} as the model chooses: {e}");
                }
                let threads = pool::global().threads();
                let bands = [(1, threads), (2, threads), (3, 1)];
                let bands = bands.map(|(rows, threads)| Some(Bands { rows, threads }));
                for bands in [None].into_iter().chain(bands) {
                    let len = bands.map_or(c.scratch_len(), |b| c.band_scratch_len(b));
                    let mut out = vec![f32::NAN; batch * filters * ho * wo];
                    c.run_in(&x, &u, &mut out, &mut vec![f32::NAN; len], bands);
                    if let Err(e) = compare::within(&out, &want, |_| bound) {
                        panic!("{c:?} in {bands:?}: {e}");
                    }
                }
            }
        }
    }

    /// The weight gradient's direct sum, in f64: `Σ dY[n, f, y, x] · d[n, c, y + ky − p,
    /// x + kx − p]`.
    fn direct_weight_gradient(c: &Conv3x3, dy: &[f32], x: &[f32]) -> Vec<f64> {
        let [ho, wo] = c.out_dims();
        let (cn, fn_, h, w) = (c.channels, c.filters, c.height, c.width);
        let mut dw = vec![0.0; fn_ * cn * 9];
        for n in 0..c.batch {
            for f in 0..fn_ {
                for ch in 0..cn {
                    for k in 0..9 {
                        let (ky, kx) = (k / 3, k % 3);
                        let mut acc = 0.0;
                        for y in 0..ho {
                            for xo in 0..wo {
                                let (iy, ix) = (
                                    (y + ky) as isize - c.pad[0] as isize,
                                    (xo + kx) as isize - c.pad[1] as isize,
                                );
                                if iy < 0 || ix < 0 || iy >= h as isize || ix >= w as isize {
                                    continue;
                                }
                                let xi = ((n * cn + ch) * h + iy as usize) * w + ix as usize;
                                let gi = ((n * fn_ + f) * ho + y) * wo + xo;
                                acc += dy[gi] as f64 * x[xi] as f64;
                            }
                        }
                        dw[(f * cn + ch) * 9 + k] += acc;
                    }
                }
            }
        }
        dw
    }

    #[test]
    fn weight_gradients_match_the_direct_sum() {
        let mut rand = randoms(11);
        // Odd and even sizes (a last tile partly outside the output), each padding, more
        // lanes than a block along a row and across the channels, batch > 1; each by
        // F(2x2, 3x3) and F(4x4, 3x3). In chunks of images (under 64 tiles an image: 49
        // an image in two chunks of three and two) and by images (64 and 72 tiles an
        // image by F(2x2, 3x3), 72 by F(4x4, 3x3)).
        let shapes = [
            (1, 3, 5, 5, 2, [1, 1]),
            (2, 17, 7, 9, 19, [0, 2]),
            (3, 20, 6, 40, 5, [2, 0]),
            (3, 16, 8, 8, 33, [1, 1]),
            (3, 17, 16, 16, 18, [1, 1]),
            (2, 5, 17, 18, 3, [0, 1]),
            (5, 16, 14, 14, 17, [1, 1]),
            (2, 16, 34, 32, 17, [1, 1]),
        ];
        let by_both = shapes.into_iter().flat_map(|s| [(s, 2), (s, 4)]);
        for ((batch, channels, height, width, filters, pad), output_tile) in by_both {
            let c = Conv3x3 {
                batch,
                channels,
                height,
                width,
                filters,
                pad,
                channel_last: false,
                data_gradient: false,
                weight_gradient: true,
                output_tile,
            };
            let [ho, wo] = c.out_dims();
            let x: Vec<f32> = (0..batch * channels * height * width)
                .map(|_| rand())
                .collect();
            let dy: Vec<f32> = (0..batch * filters * ho * wo).map(|_| rand()).collect();
            let want = direct_weight_gradient(&c, &dy, &x);
            let bound = 1e-5 * compare::scale(&want).max(1.0);
            // On the pool's threads and on one, each in the working space it asks for.
            for threads in [pool::global().threads(), 1] {
                let mut dw = vec![f32::NAN; filters * channels * 9];
                let len = c.weight_gradient_scratch_len(threads);
                c.weight_gradient(&dy, &x, &mut dw, &mut vec![f32::NAN; len]);
                if let Err(e) = compare::within(&dw, &want, |_| bound) {
                    panic!("{c:?} on {threads} threads: {e}");
                }
            }
        }
    }
}
