//! INTER_AREA of 8-bit images as OpenCV 3.4.2 computes it, by three paths:
//! - shrinking both axes by integers (`1 / (dst / src)` within `f64::EPSILON` of one):
//!   the mean of each block, in integers;
//! - shrinking both axes otherwise: each source pixel weighted by the part of it a
//!   destination pixel covers, summed in single precision;
//! - enlarging along either axis: OpenCV's linear passes (resize.rs) with weights from
//!   the pixel areas, which make it close to nearest-neighbour.

use super::opencv_scale;
use crate::resize::{linear, saturate_u8, weight, LinearTap, Window, COEF_SCALE};
use crate::Image;

pub(super) fn resize(image: &Image, width: usize, height: usize) -> Image {
    let scale_x = opencv_scale(image.width, width);
    let scale_y = opencv_scale(image.height, height);
    if scale_x < 1.0 || scale_y < 1.0 {
        let xs = linear_taps(image.width, width, true);
        let ys = linear_taps(image.height, height, false);
        return linear(image, &xs, &ys);
    }
    let (block_x, block_y) = (scale_x.round(), scale_y.round());
    if (scale_x - block_x).abs() < f64::EPSILON && (scale_y - block_y).abs() < f64::EPSILON {
        let blocks = (block_x as usize, block_y as usize);
        return block_means(image, Window::whole(width, height), blocks);
    }
    covered_means(image, (width, height), (scale_x, scale_y))
}

/// Enlarging: per destination index, source index `⌊d · scale⌋` and the fraction of the
/// way to the next pixel that the destination pixel's right (bottom) edge lies, as the
/// linear weights. `inside`: along a row OpenCV keeps the index inside the image and
/// weighs the edge pixel alone; down the columns it clamps the rows it reads instead.
fn linear_taps(src: usize, dst: usize, inside: bool) -> Vec<LinearTap> {
    let scale = opencv_scale(src, dst);
    let inv_scale = dst as f64 / src as f64;
    (0..dst)
        .map(|d| {
            let mut s = (d as f64 * scale).floor() as isize;
            let f = ((d + 1) as f64 - (s + 1) as f64 * inv_scale) as f32;
            let mut f = if f <= 0.0 { 0.0 } else { f - f.floor() };
            if inside && s >= src as isize - 1 {
                (s, f) = (src as isize - 1, 0.0);
            }
            (s, weight((1.0 - f) * COEF_SCALE), weight(f * COEF_SCALE))
        })
        .collect()
}

/// Shrinking by whole blocks of `block` (x, y) pixels, the `window` of the result: each
/// value the block's sum over its area, as OpenCV rounds it. Its vector kernel for 2×2 blocks of 1, 3 or 4 channels
/// rounds half up in integers; its scalar kernel multiplies by `1 / area` in single
/// precision and rounds half to even (4·0.5 sums round to even there).
pub(crate) fn block_means(image: &Image, window: Window, block: (usize, usize)) -> Image {
    let (bx, by) = block;
    let (width, height) = (window.width, window.height);
    let cn = image.channels;
    let halving = bx == 2 && by == 2 && matches!(cn, 1 | 3 | 4);
    let inv_area = 1.0 / (bx * by) as f32;
    let (src_len, out_len) = (image.width * cn, width * cn);
    let mut sums = vec![0u32; out_len];
    let mut data = Vec::with_capacity(height * out_len);
    for y in 0..height {
        sums.fill(0);
        let first = (window.y + y) * by * src_len + window.x * bx * cn;
        for row in image.data[first..]
            .chunks(src_len)
            .take(by)
            .map(|row| &row[..out_len * bx])
        {
            // The block's pixels of this row: bx consecutive pixels per output pixel.
            for (sums, pixels) in sums.chunks_exact_mut(cn).zip(row.chunks_exact(bx * cn)) {
                for pixel in pixels.chunks_exact(cn) {
                    for (sum, &v) in sums.iter_mut().zip(pixel) {
                        *sum += u32::from(v);
                    }
                }
            }
        }
        data.extend(sums.iter().map(|&sum| {
            if halving {
                ((sum + 2) >> 2) as u8
            } else {
                saturate_u8(sum as f32 * inv_area)
            }
        }));
    }
    Image {
        height,
        width,
        channels: cn,
        data,
    }
}

/// One source pixel's part in one destination pixel along an axis.
struct Cover {
    dst: usize,
    src: usize,
    weight: f32,
}

/// OpenCV's `computeResizeAreaTab`: per destination pixel `[d·scale, (d+1)·scale)`, the
/// partly covered source pixel before (if more than 1/1000 of it), the whole ones, and the
/// partly covered one after, each weighted by its covered length over the cell's width.
fn covers(src: usize, dst: usize, scale: f64) -> Vec<Cover> {
    let mut covers = Vec::with_capacity(2 * src);
    for d in 0..dst {
        let start = d as f64 * scale;
        let end = start + scale;
        let cell = scale.min(src as f64 - start);
        let last = (end.floor() as usize).min(src - 1);
        let first = (start.ceil() as usize).min(last);
        if first as f64 - start > 1e-3 {
            let weight = ((first as f64 - start) / cell) as f32;
            covers.push(Cover {
                dst: d,
                src: first - 1,
                weight,
            });
        }
        for s in first..last {
            let weight = (1.0 / cell) as f32;
            covers.push(Cover {
                dst: d,
                src: s,
                weight,
            });
        }
        if end - last as f64 > 1e-3 {
            let weight = ((end - last as f64).min(1.0).min(cell) / cell) as f32;
            covers.push(Cover {
                dst: d,
                src: last,
                weight,
            });
        }
    }
    covers
}

/// Shrinking by other ratios (OpenCV's `ResizeArea_Invoker`): per source row, the row
/// weighted along x into `row_sum`, in single precision in OpenCV's order; per destination
/// row, those weighted by the rows' parts and summed, then rounded half to even.
fn covered_means(image: &Image, (width, height): (usize, usize), scale: (f64, f64)) -> Image {
    let cn = image.channels;
    let xs = covers(image.width, width, scale.0);
    let ys = covers(image.height, height, scale.1);
    let row_len = width * cn;
    let mut row_sum = vec![0f32; row_len];
    let mut sum = vec![0f32; row_len];
    let mut data = vec![0u8; height * row_len];
    let mut ys = ys.iter().peekable();
    for (dy, out) in data.chunks_exact_mut(row_len).enumerate() {
        sum.fill(0.0);
        while let Some(y) = ys.next_if(|y| y.dst == dy) {
            let src = &image.data[y.src * image.width * cn..][..image.width * cn];
            row_sum.fill(0.0);
            for x in &xs {
                let (s, d) = (&src[x.src * cn..][..cn], &mut row_sum[x.dst * cn..][..cn]);
                for (d, &s) in d.iter_mut().zip(s) {
                    *d += f32::from(s) * x.weight;
                }
            }
            for (sum, &r) in sum.iter_mut().zip(&row_sum) {
                *sum += y.weight * r;
            }
        }
        for (out, &v) in out.iter_mut().zip(&sum) {
            *out = saturate_u8(v);
        }
    }
    Image {
        height,
        width,
        channels: cn,
        data,
    }
}
