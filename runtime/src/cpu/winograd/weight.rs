//! Winograd's weight gradient ([`Conv3x3::weight_gradient`], channel-first): per image,
//! the data transformed as the forward transforms it (`V = Bᵀ d B`, channels × tiles) and
//! the output gradient as `Y = A dY Aᵀ` (filters × tiles), then 16 products
//! `Σ_tiles Y[e] · V[e]ᵀ` (filters × channels) summed over the images, and `Gᵀ m G` back
//! to 3x3 — the forward's `Aᵀ [(G g Gᵀ) ⊙ V] A` transposed in the weight `g`. Its products
//! do 16 multiplications per tile and (filter, channel) pair where im2col's do 36, and
//! read no im2col columns.
//!
//! Each thread takes whole images into its own sum of products; the sums are added as the
//! last transform reads them.

use super::{compiled, pool, separable, store, Band, Conv3x3, Phases, Shared, Span, LANES};
use super::{gemm, Product, Strided, TILE};

/// `A x` for a column of 2: A's rows are (1, 0), (1, 1), (1, −1), (0, −1) — the forward's
/// `Aᵀ` transposed.
fn a_col([a, b]: [f32; 2]) -> [f32; 4] {
    [a, a + b, a - b, -b]
}

/// `Gᵀ x`: Gᵀ's rows are (1, ½, ½, 0), (0, ½, −½, 0), (0, ½, ½, 1).
fn gt_col([a, b, c, d]: [f32; 4]) -> [f32; 3] {
    [a + 0.5 * (b + c), 0.5 * (b - c), 0.5 * (b + c) + d]
}

/// `A dY Aᵀ` of LANES 2x2 tiles (element `2i + j` is row i, column j) into 4x4 ones.
#[inline(always)]
fn gradient_tile(d: &[[f32; LANES]; 4]) -> [[f32; LANES]; TILE] {
    separable::<2, 2, 4, 4, 16>(d, a_col, a_col)
}

/// `Gᵀ m G` of LANES 4x4 tiles into 3x3 ones (element `3i + j` is tap (i, j)).
#[inline(always)]
fn weight_tile(m: &[[f32; LANES]; TILE]) -> [[f32; LANES]; 9] {
    separable::<4, 4, 3, 16, 9>(m, gt_col, gt_col)
}

/// Length of one task's working space: an image's `V` and `Y`, and its sum of products.
fn task_len(c: &Conv3x3) -> usize {
    c.weight_gradient_scratch_len(1)
}

/// The weight gradient `dw` (filters × channels × 3 × 3) of convolution `c` from its
/// output gradient `dy` and its data, on as many threads as `scratch` holds tasks'
/// working space for ([`Conv3x3::weight_gradient_scratch_len`]), at most one an image.
pub(super) fn weight_gradient(
    c: &Conv3x3,
    dy: &[f32],
    data: &[f32],
    dw: &mut [f32],
    scratch: &mut [f32],
) {
    let [ho, wo] = c.out_dims();
    let [ty_n, tx_n] = c.tile_dims();
    let (f_n, c_n, tiles) = (c.filters, c.channels, ty_n * tx_n);
    let per_task = task_len(c);
    let tasks = (pool::global().threads())
        .min(c.batch)
        .min(scratch.len() / per_task)
        .max(1);
    assert!(
        !c.channel_last
            && !c.data_gradient
            && dy.len() >= c.batch * f_n * ho * wo
            && data.len() >= c.batch * c_n * c.height * c.width
            && dw.len() >= f_n * c_n * 9
            && scratch.len() >= tasks * per_task
    );
    let code = compiled();
    let space = Shared::new(scratch.as_mut_ptr());
    pool::global().run(tasks, &|t| {
        // SAFETY: task t's working space is its own part of `scratch` (tasks × per_task
        // within it, checked above); the images are read only.
        unsafe {
            let v = space.get().add(t * per_task);
            let y = v.add(TILE * c_n * tiles);
            let sum = y.add(TILE * f_n * tiles);
            let (lo, hi) = (t * c.batch / tasks, (t + 1) * c.batch / tasks);
            for image in lo..hi {
                (code.weight_image)(c, dy, data, v, image);
                for e in 0..TILE {
                    gemm::run(&Product {
                        m: f_n,
                        n: c_n,
                        k: tiles,
                        a: Strided {
                            ptr: y.add(e * f_n * tiles),
                            rs: tiles as isize,
                            cs: 1,
                        },
                        b: Strided {
                            ptr: v.add(e * c_n * tiles),
                            rs: 1,
                            cs: tiles as isize,
                        },
                        c: sum.add(e * f_n * c_n),
                        c_rs: c_n as isize,
                        c_cs: 1,
                        accumulate: image > lo,
                    });
                }
            }
        }
    });
    let dw = Shared::new(dw.as_mut_ptr());
    let sums = TILE * (c_n + f_n) * tiles;
    // SAFETY: the tasks' sums are complete (the pool's run returned); each task writes
    // the taps of its own filters.
    pool::global().run(tasks, &|t| unsafe {
        let mut m = [[0f32; LANES]; TILE];
        for f in (t * f_n / tasks)..((t + 1) * f_n / tasks) {
            for c0 in (0..c_n).step_by(LANES) {
                let lanes = LANES.min(c_n - c0);
                for row in m.iter_mut() {
                    row.fill(0.0);
                }
                for task in 0..tasks {
                    let sum = space.get().add(task * per_task + sums);
                    for (e, row) in m.iter_mut().enumerate() {
                        let from = sum.add((e * f_n + f) * c_n + c0);
                        for (l, slot) in row.iter_mut().enumerate().take(lanes) {
                            *slot += *from.add(l);
                        }
                    }
                }
                for (k, row) in weight_tile(&m).iter().enumerate() {
                    for (l, &g) in row.iter().enumerate().take(lanes) {
                        *dw.get().add((f * c_n + c0 + l) * 9 + k) = g;
                    }
                }
            }
        }
    });
}

/// The transformed data `V` (16 matrices, channels × tiles) and output gradient `Y` (16
/// matrices, filters × tiles) of image `image`, one after the other from `v`.
///
/// # Safety
/// `v` must hold `16 · (channels + filters) · tiles` floats of an image; `dy` and `data`
/// the convolution's whole output gradient and data.
#[inline(always)]
pub(super) unsafe fn image_transforms(
    c: &Conv3x3,
    dy: &[f32],
    data: &[f32],
    v: *mut f32,
    image: usize,
) {
    let [ho, wo] = c.out_dims();
    let [ty_n, tx_n] = c.tile_dims();
    let (f_n, tiles) = (c.filters, ty_n * tx_n);
    let span = Span {
        first: image * tiles,
        count: tiles,
    };
    let band = Band {
        image,
        rows: 0..ty_n,
    };
    // SAFETY: `v` holds the image's V (the caller's contract); the data is whole.
    unsafe { c.input_band(data, v, span, band, 0..c.channels) };
    // SAFETY: Y follows V within the caller's space.
    let y = unsafe { v.add(TILE * c.channels * tiles) };
    let mut d = [[0f32; LANES]; 4];
    for f in 0..f_n {
        let plane = &dy[(image * f_n + f) * ho * wo..][..ho * wo];
        for ty in 0..ty_n {
            for tx0 in (0..tx_n).step_by(LANES) {
                let lanes = LANES.min(tx_n - tx0);
                // The tile's 2x2 gradient, zero past the output's edge.
                for (ij, row) in d.iter_mut().enumerate() {
                    let (oy, j) = (2 * ty + ij / 2, ij % 2);
                    for (l, slot) in row.iter_mut().enumerate() {
                        let ox = 2 * (tx0 + l) + j;
                        *slot = match l < lanes && oy < ho && ox < wo {
                            true => plane[oy * wo + ox],
                            false => 0.0,
                        };
                    }
                }
                let at = f * tiles + ty * tx_n + tx0;
                // SAFETY: element e's lanes lie in Y's matrix e (filters × tiles).
                unsafe { store(&gradient_tile(&d), y, f_n * tiles, at, lanes) };
            }
        }
    }
}
