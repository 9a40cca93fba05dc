//! INTER_CUBIC and INTER_LANCZOS4 of 8-bit images as OpenCV 3.4.2 computes them: per
//! destination index the source coordinate `(d + 0.5)·scale − 0.5` in single precision,
//! the kernel's coefficients at its fraction in single precision, each rounded on its own
//! to 11 fixed-point bits (their sum may miss 2048 by a little; OpenCV does not correct
//! it); taps outside the image read the edge pixel. A horizontal pass makes 32-bit rows;
//! the vertical pass weighs 4 or 8 of them and rounds as OpenCV's kernel for 8-bit
//! output does (see `cubic_vertical`).

use super::opencv_scale;
use crate::resize::{weight, COEF_BITS, COEF_SCALE};
use crate::Image;

/// The shift that takes a sum of row values times vertical weights back to 8 bits.
const SUM_SHIFT: u32 = 2 * COEF_BITS;

/// `image` resized with OpenCV's bicubic kernel (a = −0.75) over 4×4 pixels.
pub(super) fn cubic(image: &Image, width: usize, height: usize) -> Image {
    separable(image, (width, height), cubic_coefficients, cubic_vertical)
}

/// `image` resized with OpenCV's Lanczos kernel over 8×8 pixels.
pub(super) fn lanczos4(image: &Image, width: usize, height: usize) -> Image {
    separable(
        image,
        (width, height),
        lanczos4_coefficients,
        fixed_vertical,
    )
}

/// OpenCV's `interpolateCubic`, operation for operation in single precision.
fn cubic_coefficients(x: f32) -> [f32; 4] {
    const A: f32 = -0.75;
    let c0 = ((A * (x + 1.0) - 5.0 * A) * (x + 1.0) + 8.0 * A) * (x + 1.0) - 4.0 * A;
    let c1 = ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0;
    let c2 = ((A + 2.0) * (1.0 - x) - (A + 3.0)) * (1.0 - x) * (1.0 - x) + 1.0;
    [c0, c1, c2, 1.0 - c0 - c1 - c2]
}

/// OpenCV's `interpolateLanczos4`: sines from one angle by the addition theorem in double
/// precision, each coefficient rounded to single precision, then normalized to sum 1 in
/// single precision (the order of those operations decides the last bit).
fn lanczos4_coefficients(x: f32) -> [f32; 8] {
    if x < f32::EPSILON {
        return [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
    }
    const S45: f64 = std::f64::consts::FRAC_1_SQRT_2;
    const SIN_COS: [[f64; 2]; 8] = [
        [1.0, 0.0],
        [-S45, -S45],
        [0.0, 1.0],
        [S45, -S45],
        [-1.0, 0.0],
        [S45, S45],
        [0.0, -1.0],
        [-S45, S45],
    ];
    let quarter_pi = |v: f32| -f64::from(v) * std::f64::consts::PI * 0.25;
    let y0 = quarter_pi(x + 3.0);
    let (s0, c0) = (y0.sin(), y0.cos());
    let mut coefficients = [0f32; 8];
    let mut sum = 0f32;
    for (i, (c, [a, b])) in coefficients.iter_mut().zip(SIN_COS).enumerate() {
        let y = quarter_pi(x + 3.0 - i as f32);
        *c = ((a * s0 + b * c0) / (y * y)) as f32;
        sum += *c;
    }
    let inverse = 1.0 / sum;
    coefficients.map(|c| c * inverse)
}

/// Per destination index along one axis: the source index of the first of the `N` taps
/// (not yet clamped to the image) and their fixed-point weights.
fn axis_taps<const N: usize>(
    src: usize,
    dst: usize,
    coefficients: fn(f32) -> [f32; N],
) -> Vec<(isize, [i32; N])> {
    let scale = opencv_scale(src, dst);
    (0..dst)
        .map(|d| {
            let f = ((d as f64 + 0.5) * scale - 0.5) as f32;
            let s = f.floor();
            let weights = coefficients(f - s).map(|c| weight(c * COEF_SCALE));
            (s as isize - (N / 2 - 1) as isize, weights)
        })
        .collect()
}

/// The source index `i` replicated from the nearest edge of an axis of `len` pixels.
fn clamped(i: isize, len: usize) -> usize {
    i.clamp(0, len as isize - 1) as usize
}

/// How the vertical pass makes one output row from `N` horizontal-pass rows and weights.
type Vertical<const N: usize> = fn(&[&[i32]; N], &[i32; N], &mut [u8]);

/// OpenCV's `resizeGeneric_` for an `N`-tap kernel: horizontal passes of the source rows
/// each output row needs (each computed once, kept in `N` slots while still needed),
/// then `vertical` over them.
fn separable<const N: usize>(
    image: &Image,
    (width, height): (usize, usize),
    coefficients: fn(f32) -> [f32; N],
    vertical: Vertical<N>,
) -> Image {
    let (sw, sh, cn) = (image.width, image.height, image.channels);
    // Per output column: the byte offsets of its taps in a source row, and their weights.
    let columns: Vec<([usize; N], [i32; N])> = axis_taps(sw, width, coefficients)
        .into_iter()
        .map(|(first, weights)| {
            let offsets = std::array::from_fn(|k| clamped(first + k as isize, sw) * cn);
            (offsets, weights)
        })
        .collect();
    let row_len = width * cn;
    let horizontal = |y: usize, out: &mut [i32]| {
        let src = &image.data[y * sw * cn..(y + 1) * sw * cn];
        for (out, (offsets, weights)) in out.chunks_exact_mut(cn).zip(&columns) {
            for (c, out) in out.iter_mut().enumerate() {
                *out = (offsets.iter().zip(weights))
                    .map(|(&o, &w)| i32::from(src[o + c]) * w)
                    .sum();
            }
        }
    };
    // Source row r lives in slot r % N: an output row's rows are consecutive (clamping
    // only repeats the edge rows), so they never compete for a slot.
    let mut slots = vec![vec![0i32; row_len]; N];
    let mut slot_rows: [Option<usize>; N] = [None; N];
    let mut data = vec![0u8; height * row_len];
    for (out, (first, weights)) in
        data.chunks_exact_mut(row_len)
            .zip(axis_taps(sh, height, coefficients))
    {
        let rows: [usize; N] = std::array::from_fn(|k| clamped(first + k as isize, sh));
        for &row in &rows {
            if slot_rows[row % N] != Some(row) {
                horizontal(row, &mut slots[row % N]);
                slot_rows[row % N] = Some(row);
            }
        }
        let inputs: [&[i32]; N] = std::array::from_fn(|k| slots[rows[k] % N].as_slice());
        vertical(&inputs, &weights, out);
    }
    Image {
        height,
        width,
        channels: cn,
        data,
    }
}

/// The exact fixed-point sum of the rows' values times the weights, rounded half up from
/// 22 fractional bits and saturated: OpenCV's scalar vertical pass (`FixedPtCast`).
fn fixed_value<const N: usize>(rows: &[&[i32]; N], weights: &[i32; N], x: usize) -> u8 {
    // 64 bits: OpenCV's 32-bit sum cannot overflow for these kernels, nor can this one.
    let sum: i64 = (rows.iter().zip(weights))
        .map(|(row, &w)| i64::from(row[x]) * i64::from(w))
        .sum();
    ((sum + (1 << (SUM_SHIFT - 1))) >> SUM_SHIFT).clamp(0, 255) as u8
}

/// The vertical pass in exact fixed point throughout (Lanczos-4: OpenCV has no vector
/// kernel for it).
fn fixed_vertical<const N: usize>(rows: &[&[i32]; N], weights: &[i32; N], out: &mut [u8]) {
    for (x, out) in out.iter_mut().enumerate() {
        *out = fixed_value(rows, weights, x);
    }
}

/// The bicubic vertical pass as OpenCV's SSE2 kernel runs it: in blocks of 8 values, in
/// single precision (each row value times weight / 2²², summed in row order, rounded half
/// to even); the values after the last whole block in exact fixed point. The two roundings
/// differ by one now and then, so which values a block covers matters.
fn cubic_vertical(rows: &[&[i32]; 4], weights: &[i32; 4], out: &mut [u8]) {
    let scale = 1.0 / (1u32 << SUM_SHIFT) as f32;
    let b = weights.map(|w| w as f32 * scale);
    let blocks_len = out.len() / 8 * 8;
    let (blocks, tail) = out.split_at_mut(blocks_len);
    for (x, out) in blocks.iter_mut().enumerate() {
        let mut sum = rows[0][x] as f32 * b[0] + rows[1][x] as f32 * b[1];
        sum += rows[2][x] as f32 * b[2];
        sum += rows[3][x] as f32 * b[3];
        *out = (sum.round_ties_even() as i32).clamp(0, 255) as u8;
    }
    for (x, out) in (blocks_len..).zip(tail) {
        *out = fixed_value(rows, weights, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook kernels at the taps' distances from `x`: Keys' cubic with a = −0.75,
    /// and sinc(t)·sinc(t/4) normalized to sum 1.
    fn textbook<const N: usize>(x: f64) -> [f64; N] {
        let distances: [f64; N] = std::array::from_fn(|k| x - (k as f64 - (N / 2 - 1) as f64));
        if N == 4 {
            let a = -0.75;
            return distances.map(|t: f64| {
                let t = t.abs();
                if t <= 1.0 {
                    ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0
                } else {
                    ((a * t - 5.0 * a) * t + 8.0 * a) * t - 4.0 * a
                }
            });
        }
        let sinc = |t: f64| {
            let t = t * std::f64::consts::PI;
            t.sin() / t
        };
        let raw = distances.map(|t| sinc(t) * sinc(t / 4.0));
        let sum: f64 = raw.iter().sum();
        raw.map(|v| v / sum)
    }

    #[test]
    fn coefficients_are_the_textbook_kernels() {
        for x in [0.1f32, 0.25, 0.5, 0.73, 0.999] {
            let cubic = cubic_coefficients(x);
            for (got, want) in cubic.iter().zip(textbook::<4>(x.into())) {
                assert!(
                    (f64::from(*got) - want).abs() < 1e-6,
                    "cubic {x}: {cubic:?}"
                );
            }
            let lanczos = lanczos4_coefficients(x);
            for (got, want) in lanczos.iter().zip(textbook::<8>(x.into())) {
                assert!(
                    (f64::from(*got) - want).abs() < 1e-6,
                    "lanczos {x}: {lanczos:?}"
                );
            }
        }
    }
}
