//! Winograd's weight gradient ([`Conv3x3::weight_gradient`], channel-first): per image,
//! the data transformed as the forward transforms it (`V = Bᵀ d B`, channels × tiles) and
//! the output gradient as `Y = A dY Aᵀ` (filters × tiles), then a product
//! `Σ_tiles Y[e] · V[e]ᵀ` (filters × channels) per element `e` of a transformed tile,
//! summed over the images, and `Gᵀ m G` back to 3x3 — the forward's
//! `Aᵀ [(G g Gᵀ) ⊙ V] A` transposed in the weight `g`. Its products do 16 (F(2x2, 3x3))
//! or 36 (F(4x4, 3x3)) multiplications per tile and (filter, channel) pair where
//! im2col's do 36 or 144, and read no im2col columns.
//!
//! Where an image has enough tiles each thread takes whole images into its own sum of
//! products, the sums added as the last transform reads them; else chunks of a few images
//! are transformed in turn, each chunk's products (over its images' tiles) split over
//! the threads and added into one sum.

use super::{compiled, pool, Band, Conv3x3, F2x2, F4x4, Phases, Shared, Span, Tiling};
use super::{gemm, store, Product, Strided, LANES};

/// The weight gradient `dw` (filters × channels × 3 × 3) of convolution `c` from its
/// output gradient `dy` and its data: by images on as many threads as `scratch` holds
/// tasks' working space for, at most one an image, or by chunks of images
/// ([`Conv3x3::weight_gradient_by_images`], [`Conv3x3::weight_gradient_scratch_len`]).
pub(super) fn weight_gradient(
    c: &Conv3x3,
    dy: &[f32],
    data: &[f32],
    dw: &mut [f32],
    scratch: &mut [f32],
) {
    let [ho, wo] = c.out_dims();
    let (f_n, c_n) = (c.filters, c.channels);
    assert!(
        !c.channel_last
            && !c.data_gradient
            && matches!(c.output_tile, 2 | 4)
            && dy.len() >= c.batch * f_n * ho * wo
            && data.len() >= c.batch * c_n * c.height * c.width
            && dw.len() >= f_n * c_n * 9
    );
    let dw = Shared::new(dw.as_mut_ptr());
    match c.weight_gradient_by_images() {
        true => by_images(c, dy, data, dw, scratch),
        false => by_chunks(c, dy, data, dw, scratch),
    }
}

/// Each task its images: their `V` and `Y` one image at a time, its products summed over
/// them into its own sum; then the sums added and transformed.
fn by_images(c: &Conv3x3, dy: &[f32], data: &[f32], dw: Shared, scratch: &mut [f32]) {
    let [ty_n, tx_n] = c.tile_dims();
    let (f_n, c_n, tiles, elements) = (c.filters, c.channels, ty_n * tx_n, c.elements());
    let per_task = c.weight_gradient_scratch_len(1);
    let tasks = (pool::global().threads())
        .min(c.batch)
        .min(scratch.len() / per_task)
        .max(1);
    assert!(scratch.len() >= tasks * per_task);
    let code = compiled();
    let space = Shared::new(scratch.as_mut_ptr());
    pool::global().run(tasks, &|t| {
        // SAFETY: task t's working space is its own part of `scratch` (tasks × per_task
        // within it, checked above); the images are read only.
        unsafe {
            let v = space.get().add(t * per_task);
            let y = v.add(elements * c_n * tiles);
            let sum = y.add(elements * f_n * tiles);
            let (lo, hi) = (t * c.batch / tasks, (t + 1) * c.batch / tasks);
            for image in lo..hi {
                let span = Span {
                    first: image * tiles,
                    count: tiles,
                };
                (code.weight_image)(c, dy, data, [v, y], span, image);
                for e in 0..elements {
                    products(c, e, [v, y, sum], tiles, image > lo);
                }
            }
        }
    });
    let sums = elements * (c_n + f_n) * tiles;
    // SAFETY: each task's sum lies `sums` into its working space.
    let sums: Vec<*const f32> = (0..tasks)
        .map(|t| unsafe { space.get().add(t * per_task + sums) } as *const f32)
        .collect();
    // SAFETY: the sums are complete (the pool's run returned), each elements × filters ×
    // channels; `dw` holds the gradient (checked by the caller).
    unsafe { tiled!(c; finish(c, &sums, dw)) };
}

/// Chunks of images ([`Conv3x3::weight_gradient_chunk`]) one after another: a chunk's `V`
/// and `Y` (its images over the threads), then its products over the chunk's tiles,
/// split over the threads by element, added into one sum.
fn by_chunks(c: &Conv3x3, dy: &[f32], data: &[f32], dw: Shared, scratch: &mut [f32]) {
    let [ty_n, tx_n] = c.tile_dims();
    let (f_n, c_n, tiles, elements) = (c.filters, c.channels, ty_n * tx_n, c.elements());
    let chunk = c.weight_gradient_chunk();
    assert!(scratch.len() >= c.weight_gradient_scratch_len(1));
    let code = compiled();
    let v = Shared::new(scratch.as_mut_ptr());
    // SAFETY: V, Y and the sum follow one another within `scratch` (length checked).
    let (y, sum) = unsafe {
        let y = v.get().add(elements * c_n * chunk * tiles);
        (
            Shared::new(y),
            Shared::new(y.add(elements * f_n * chunk * tiles)),
        )
    };
    for first in (0..c.batch).step_by(chunk) {
        let images = first..(first + chunk).min(c.batch);
        let span = Span {
            first: first * tiles,
            count: images.len() * tiles,
        };
        let tasks = pool::global().threads().min(images.len());
        pool::global().run(tasks, &|t| {
            let n = images.len();
            for image in (first + t * n / tasks)..(first + (t + 1) * n / tasks) {
                // SAFETY: each image's tiles are its own columns of the chunk's V and Y.
                unsafe { (code.weight_image)(c, dy, data, [v.get(), y.get()], span, image) };
            }
        });
        let tasks = (2 * pool::global().threads()).min(elements);
        pool::global().run(tasks, &|t| {
            for e in (t * elements / tasks)..((t + 1) * elements / tasks) {
                let buffers = [v.get(), y.get(), sum.get()];
                // SAFETY: element e's product is this task's alone; V and Y are complete.
                unsafe { products(c, e, buffers, span.count, first > 0) };
            }
        });
    }
    // SAFETY: the sum is complete; `dw` holds the gradient (checked by the caller).
    unsafe { tiled!(c; finish(c, &[sum.get() as *const f32], dw)) };
}

/// Element `e`'s product `Y[e] · V[e]ᵀ` (filters × channels) over `tiles` tiles, into
/// (added to, where `add`) its matrix of the sum.
///
/// # Safety
/// `v`, `y` and `sum` must hold a matrix per element of channels × `tiles`, filters ×
/// `tiles` and filters × channels.
unsafe fn products(c: &Conv3x3, e: usize, [v, y, sum]: [*mut f32; 3], tiles: usize, add: bool) {
    let (f_n, c_n) = (c.filters, c.channels);
    // SAFETY: the caller's.
    unsafe {
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
            accumulate: add,
        })
    };
}

/// `dw = Gᵀ (Σ sums) G` for every (filter, channel) pair by the tiling `T`, filters over
/// the threads.
///
/// # Safety
/// Every sum must hold a matrix per element of filters × channels; `dw` filters ×
/// channels × 9.
unsafe fn finish<T: Tiling>(c: &Conv3x3, sums: &[*const f32], dw: Shared) {
    let (f_n, c_n) = (c.filters, c.channels);
    let sums: Vec<Shared> = sums.iter().map(|&p| Shared::new(p as *mut f32)).collect();
    let tasks = pool::global().threads().min(f_n);
    // SAFETY: the caller's; each task writes the taps of its own filters.
    pool::global().run(tasks, &|t| unsafe {
        let mut m = T::zero();
        for f in (t * f_n / tasks)..((t + 1) * f_n / tasks) {
            for c0 in (0..c_n).step_by(LANES) {
                let lanes = LANES.min(c_n - c0);
                for row in m.as_mut() {
                    row.fill(0.0);
                }
                for sum in &sums {
                    for (e, row) in m.as_mut().iter_mut().enumerate() {
                        let from = sum.get().add((e * f_n + f) * c_n + c0);
                        for (l, slot) in row.iter_mut().enumerate().take(lanes) {
                            *slot += *from.add(l);
                        }
                    }
                }
                for (k, row) in T::weight_gradient_tile(&m).iter().enumerate() {
                    for (l, &g) in row.iter().enumerate().take(lanes) {
                        *dw.get().add((f * c_n + c0 + l) * 9 + k) = g;
                    }
                }
            }
        }
    });
}

/// The transformed data `V` (a matrix per element, channels × the span's tiles) and
/// output gradient `Y` (a matrix per element, filters × the span's tiles) of image
/// `image`'s tiles, by the tiling `T`.
///
/// # Safety
/// `v` and `y` must hold those matrices, the span covering the image's tiles; `dy` and
/// `data` the convolution's whole output gradient and data.
#[inline(always)]
pub(super) unsafe fn image_transforms<T: Tiling>(
    c: &Conv3x3,
    dy: &[f32],
    data: &[f32],
    [v, y]: [*mut f32; 2],
    span: Span,
    image: usize,
) {
    let [ho, wo] = c.out_dims();
    let [ty_n, tx_n] = c.tile_dims();
    let (f_n, tiles) = (c.filters, ty_n * tx_n);
    let band = Band {
        image,
        rows: 0..ty_n,
    };
    // SAFETY: `v` holds the span's V (the caller's contract); the data is whole.
    unsafe { c.input_band::<T>(data, v, span, band, 0..c.channels) };
    let side = T::OUT;
    let mut d = T::zero_output();
    for f in 0..f_n {
        let plane = &dy[(image * f_n + f) * ho * wo..][..ho * wo];
        for ty in 0..ty_n {
            for tx0 in (0..tx_n).step_by(LANES) {
                let lanes = LANES.min(tx_n - tx0);
                // The tile's gradient, zero past the output's edge.
                for (ij, row) in d.as_mut().iter_mut().enumerate() {
                    let (oy, j) = (side * ty + ij / side, ij % side);
                    for (l, slot) in row.iter_mut().enumerate() {
                        let ox = side * (tx0 + l) + j;
                        *slot = match l < lanes && oy < ho && ox < wo {
                            true => plane[oy * wo + ox],
                            false => 0.0,
                        };
                    }
                }
                let at = f * span.count + image * tiles + ty * tx_n + tx0 - span.first;
                // SAFETY: element e's lanes lie in Y's matrix e (filters × the span's
                // tiles).
                unsafe {
                    store(
                        T::gradient_tile(&d).as_ref(),
                        y,
                        f_n * span.count,
                        at,
                        lanes,
                    )
                };
            }
        }
    }
}
