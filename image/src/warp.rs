//! OpenCV's `cv::warpAffine` of 8-bit images with a constant border, bit for bit as the
//! OpenCV inside MXNet 1.9.1 (3.4.2) computes it: the forward matrix inverted in double,
//! each destination pixel's source position in 1/32 pixel steps from 10-bit fixed-point
//! row and column terms (each rounded half to even), and the four neighbours weighed by
//! OpenCV's 15-bit bilinear table (or the nearest one taken). Neighbours outside the image
//! read the border value.

use crate::Image;

/// Fixed-point bits of the per-row and per-column position terms.
const AB_BITS: u32 = 10;
const AB_SCALE: f64 = (1 << AB_BITS) as f64;
/// Sub-pixel steps of a bilinear position.
const INTER_BITS: u32 = 5;
const INTER_TAB_SIZE: i32 = 1 << INTER_BITS;
/// Bits of the bilinear weights.
const REMAP_BITS: u32 = 15;

/// How a warped pixel is computed from its source neighbourhood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpInterpolation {
    Nearest,
    Bilinear,
}

/// OpenCV's `saturate_cast<int>(double)`: round half to even, then clamp.
fn round_to_int(v: f64) -> i32 {
    v.round_ties_even().clamp(i32::MIN as f64, i32::MAX as f64) as i32
}

/// OpenCV's `BilinearTab_i` entry for the sub-pixel offsets `(tx, ty)` in 1/32 pixel: the
/// weights of the four neighbours (top-left, top-right, bottom-left, bottom-right). At
/// offset (0, 0) the top-left weight 1.0 saturates to 32767 in a short, and OpenCV's
/// correction of the sum moves the missing unit to the bottom-right weight.
fn bilinear_weights(tx: i32, ty: i32) -> [i32; 4] {
    if tx == 0 && ty == 0 {
        return [32767, 0, 0, 1];
    }
    // (1 − t)·32768 and t·32768 products, exact in OpenCV's single precision.
    let (ux, uy) = (INTER_TAB_SIZE - tx, INTER_TAB_SIZE - ty);
    let unit = (1 << REMAP_BITS) / (INTER_TAB_SIZE * INTER_TAB_SIZE);
    [
        uy * ux * unit,
        uy * tx * unit,
        ty * ux * unit,
        ty * tx * unit,
    ]
}

/// The inverse of the 2×3 forward matrix `m` (row-major), as `cv::warpAffine` computes it
/// when not given `WARP_INVERSE_MAP`.
fn invert(m: [f32; 6]) -> [f64; 6] {
    let m = m.map(f64::from);
    let d = m[0] * m[4] - m[1] * m[3];
    let d = if d != 0.0 { 1.0 / d } else { 0.0 };
    let (a11, a22) = (m[4] * d, m[0] * d);
    let (a12, a21) = (m[1] * -d, m[3] * -d);
    let b1 = -a11 * m[2] - a12 * m[5];
    let b2 = -a21 * m[2] - a22 * m[5];
    [a11, a12, b1, a21, a22, b2]
}

/// `image` mapped by the forward affine matrix `m` (destination = m · source) into a
/// `width` × `height` image; pixels from outside the source take `border` (per channel).
pub fn warp_affine(
    image: &Image,
    m: [f32; 6],
    (width, height): (usize, usize),
    interpolation: WarpInterpolation,
    border: &[u8],
) -> Image {
    let c = image.channels;
    let inv = invert(m);
    let column_terms = |k: usize| -> Vec<i32> {
        (0..width)
            .map(|x| round_to_int(inv[k] * x as f64 * AB_SCALE))
            .collect()
    };
    let (adelta, bdelta) = (column_terms(0), column_terms(3));
    let round_delta = match interpolation {
        WarpInterpolation::Nearest => (AB_SCALE / 2.0) as i32,
        WarpInterpolation::Bilinear => (AB_SCALE as i32) / INTER_TAB_SIZE / 2,
    };
    let (sw, sh) = (image.width as i32, image.height as i32);
    // A source pixel, or the border where (x, y) lies outside.
    let pixel = |x: i32, y: i32| -> &[u8] {
        if (0..sw).contains(&x) && (0..sh).contains(&y) {
            let at = (y as usize * image.width + x as usize) * c;
            &image.data[at..at + c]
        } else {
            border
        }
    };
    let mut data = vec![0u8; width * height * c];
    for (y, row) in data.chunks_exact_mut(width * c).enumerate() {
        let x0 = round_to_int((inv[1] * y as f64 + inv[2]) * AB_SCALE).wrapping_add(round_delta);
        let y0 = round_to_int((inv[4] * y as f64 + inv[5]) * AB_SCALE).wrapping_add(round_delta);
        for (x, out) in row.chunks_exact_mut(c).enumerate() {
            let (fx, fy) = (x0.wrapping_add(adelta[x]), y0.wrapping_add(bdelta[x]));
            match interpolation {
                WarpInterpolation::Nearest => {
                    let (sx, sy) = (short(fx >> AB_BITS), short(fy >> AB_BITS));
                    out.copy_from_slice(pixel(sx, sy));
                }
                WarpInterpolation::Bilinear => {
                    let (fx, fy) = (fx >> (AB_BITS - INTER_BITS), fy >> (AB_BITS - INTER_BITS));
                    let (sx, sy) = (short(fx >> INTER_BITS), short(fy >> INTER_BITS));
                    let w = bilinear_weights(fx & (INTER_TAB_SIZE - 1), fy & (INTER_TAB_SIZE - 1));
                    let corners = [
                        pixel(sx, sy),
                        pixel(sx + 1, sy),
                        pixel(sx, sy + 1),
                        pixel(sx + 1, sy + 1),
                    ];
                    for (k, value) in out.iter_mut().enumerate() {
                        let sum: i32 = corners
                            .iter()
                            .zip(w)
                            .map(|(p, w)| i32::from(p[k]) * w)
                            .sum();
                        *value =
                            ((sum + (1 << (REMAP_BITS - 1))) >> REMAP_BITS).clamp(0, 255) as u8;
                    }
                }
            }
        }
    }
    Image {
        height,
        width,
        channels: c,
        data,
    }
}

/// OpenCV's `saturate_cast<short>` of a source coordinate.
fn short(v: i32) -> i32 {
    v.clamp(i32::from(i16::MIN), i32::from(i16::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry of the bilinear table sums to 32768, and equals the float weights
    /// (1 − tx)(1 − ty) … scaled, except OpenCV's corrected first entry.
    #[test]
    fn bilinear_table_is_opencvs() {
        for ty in 0..32 {
            for tx in 0..32 {
                let w = bilinear_weights(tx, ty);
                assert_eq!(w.iter().sum::<i32>(), 32768, "({tx}, {ty})");
                let (fx, fy) = (tx as f32 / 32.0, ty as f32 / 32.0);
                let float = [
                    (1.0 - fx) * (1.0 - fy),
                    fx * (1.0 - fy),
                    (1.0 - fx) * fy,
                    fx * fy,
                ];
                if (tx, ty) != (0, 0) {
                    assert_eq!(w, float.map(|v| (v * 32768.0) as i32), "({tx}, {ty})");
                }
            }
        }
    }

    /// The identity matrix copies the image; a translation by whole pixels shifts it and
    /// fills the uncovered edge with the border.
    #[test]
    fn whole_pixel_moves_copy_values() {
        let image = Image {
            height: 3,
            width: 4,
            channels: 1,
            data: (0..12).map(|v| v * 20).collect(),
        };
        for method in [WarpInterpolation::Nearest, WarpInterpolation::Bilinear] {
            let same = warp_affine(&image, [1.0, 0.0, 0.0, 0.0, 1.0, 0.0], (4, 3), method, &[7]);
            assert_eq!(same, image, "{method:?}");
            let moved = warp_affine(&image, [1.0, 0.0, 1.0, 0.0, 1.0, 0.0], (4, 3), method, &[7]);
            for y in 0..3 {
                assert_eq!(moved.at(y, 0, 0), 7, "{method:?}");
                for x in 1..4 {
                    assert_eq!(moved.at(y, x, 0), image.at(y, x - 1, 0), "{method:?}");
                }
            }
        }
    }
}
