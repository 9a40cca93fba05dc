//! MXNet's colour augmentations of ImageRecordIter (`DefaultImageAugmenter`, after the
//! crop): colour jitter — brightness, contrast and saturation factors `1 + U(−v, v)` applied
//! in a random order, each rounded to 8 bits as OpenCV's `convertTo` and `addWeighted` do —,
//! random hue, lightness and saturation offsets in OpenCV's 8-bit HLS (`random_h`,
//! `random_s`, `random_l`), and PCA lighting noise (`pca_noise`: AlexNet's eigenvectors scaled by their eigenvalues,
//! weighted by normal draws, added and truncated). The per-image contrast and illumination
//! of `max_random_contrast` and `max_random_illumination` enter the normalization
//! ([`lighting`]).
//!
//! MXNet works on BGR pixels and computes the gray of contrast and saturation with
//! `CV_RGB2GRAY`, so its "red" weight falls on blue; kiln's pixels are RGB and it weighs
//! them as MXNet does. The draws are kiln's (Philox), so values match MXNet's in
//! distribution, not draw for draw. Images of 1 or 4 channels are left alone by the
//! jitter and noise, which MXNet defines for 3.

use crate::augment::Draws;
use crate::params::ImageRecordParams;
use crate::resize::saturate_u8;
use crate::Image;

/// AlexNet's RGB eigenvectors (rows R, G, B) times their eigenvalues, as MXNet holds them.
const EIGVEC: [[f32; 3]; 3] = [
    [55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
    [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
    [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203],
];

/// OpenCV's 8-bit `CV_RGB2GRAY` (14-bit fixed point) applied to MXNet's BGR pixel, i.e.
/// with red's weight on blue.
fn gray(px: &[u8]) -> u8 {
    let (r, g, b) = (u32::from(px[0]), u32::from(px[1]), u32::from(px[2]));
    ((b * 4899 + g * 9617 + r * 1868 + (1 << 13)) >> 14) as u8
}

/// One step of the colour jitter.
#[derive(Clone, Copy, Debug)]
enum Jitter {
    Brightness,
    Contrast,
    Saturation,
}

/// Applies the colour jitter and PCA noise that `p` asks for.
pub fn color_augment(image: &mut Image, p: &ImageRecordParams, draws: &mut Draws) {
    if image.channels != 3 {
        return;
    }
    let (b, c, s) = (p.brightness, p.contrast, p.saturation);
    if b > 0.0 || c > 0.0 || s > 0.0 {
        let factor = |draws: &mut Draws, v: f32| 1.0 + (draws.uniform() * 2.0 - 1.0) * v;
        let mut steps = [
            (Jitter::Brightness, factor(draws, b)),
            (Jitter::Contrast, factor(draws, c)),
            (Jitter::Saturation, factor(draws, s)),
        ];
        for i in (1..3).rev() {
            steps.swap(i, draws.up_to(i));
        }
        for (step, alpha) in steps {
            jitter(image, step, alpha);
        }
    }
    let (rh, rs, rl) = (p.random_h, p.random_s, p.random_l);
    if rh != 0 || rs != 0 || rl != 0 {
        // MXNet's approximation of a normal draw in [0, 1): (u + 4u') / 5.
        let mut offset = |range: i32| {
            let r = (draws.uniform() + 4.0 * draws.uniform()) / 5.0;
            (r * range as f32 * 2.0 - range as f32) as i32
        };
        let (h, s, l) = (offset(rh), offset(rs), offset(rl));
        shift_hls(image, [h, l, s]);
    }
    if p.pca_noise > 0.0 {
        let alpha = [(); 3].map(|_| draws.normal() * p.pca_noise);
        pca_noise(image, alpha);
    }
}

/// Each pixel to OpenCV's 8-bit HLS (hue halved to 0..180), `offsets` (h, l, s) added
/// and clamped, and back, as `cvtColor` computes both ways in single precision.
fn shift_hls(image: &mut Image, offsets: [i32; 3]) {
    const LIMITS: [i32; 3] = [180, 255, 255];
    // OpenCV converts each row 8 pixels at a time with SSE2, the rest one by one; the two
    // round the saturation's denominator differently.
    let vectorized = image.width / 8 * 8;
    for row in image.data.chunks_exact_mut(image.width * 3) {
        for (x, px) in row.chunks_exact_mut(3).enumerate() {
            let hls = rgb_to_hls(px, x < vectorized);
            let shifted: [u8; 3] =
                std::array::from_fn(|k| (i32::from(hls[k]) + offsets[k]).clamp(0, LIMITS[k]) as u8);
            px.copy_from_slice(&hls_to_rgb(shifted));
        }
    }
}

/// OpenCV's `RGB2HLS_b`: hue (degrees / 2), lightness and saturation, each rounded to 8
/// bits; `vectorized`: as its SSE2 path computes `2 − max − min`, in one subtraction.
fn rgb_to_hls(px: &[u8], vectorized: bool) -> [u8; 3] {
    let [r, g, b] = [px[0], px[1], px[2]].map(|v| f32::from(v) * (1.0 / 255.0));
    let vmax = r.max(g).max(b);
    let vmin = r.min(g).min(b);
    let diff = vmax - vmin;
    let l = (vmax + vmin) * 0.5;
    let (mut h, mut s) = (0.0f32, 0.0f32);
    if diff > f32::EPSILON {
        s = match (l < 0.5, vectorized) {
            (true, _) => diff / (vmax + vmin),
            (false, true) => diff / (2.0 - (vmax + vmin)),
            (false, false) => diff / (2.0 - vmax - vmin),
        };
        let scale = 60.0 / diff;
        h = if vmax == r {
            (g - b) * scale
        } else if vmax == g {
            (b - r) * scale + 120.0
        } else {
            (r - g) * scale + 240.0
        };
        if h < 0.0 {
            h += 360.0;
        }
    }
    [
        saturate_u8(h * 0.5),
        saturate_u8(l * 255.0),
        saturate_u8(s * 255.0),
    ]
}

/// OpenCV's `HLS2RGB_b`, the inverse of [`rgb_to_hls`].
fn hls_to_rgb([h, l, s]: [u8; 3]) -> [u8; 3] {
    let (mut h, l, s) = (
        f32::from(h),
        f32::from(l) * (1.0 / 255.0),
        f32::from(s) * (1.0 / 255.0),
    );
    let (r, g, b) = if s == 0.0 {
        (l, l, l)
    } else {
        const SECTORS: [[usize; 3]; 6] = [
            [1, 3, 0],
            [1, 0, 2],
            [3, 0, 1],
            [0, 2, 1],
            [0, 1, 3],
            [2, 1, 0],
        ];
        let p2 = if l <= 0.5 {
            l * (1.0 + s)
        } else {
            l + s - l * s
        };
        let p1 = 2.0 * l - p2;
        h *= 6.0 / 180.0;
        while h >= 6.0 {
            h -= 6.0;
        }
        let sector = h.floor() as usize;
        h -= sector as f32;
        let tab = [p2, p1, p1 + (p2 - p1) * (1.0 - h), p1 + (p2 - p1) * h];
        let [bi, gi, ri] = SECTORS[sector];
        (tab[ri], tab[gi], tab[bi])
    };
    [r, g, b].map(|v| saturate_u8(v * 255.0))
}

/// One jitter step with factor `alpha`: brightness scales the values, contrast moves them
/// towards the image's mean gray, saturation each pixel towards its own gray.
fn jitter(image: &mut Image, step: Jitter, alpha: f32) {
    match step {
        Jitter::Brightness => {
            let data = image.data.iter_mut();
            data.for_each(|v| *v = saturate_u8(f32::from(*v) * alpha));
        }
        Jitter::Contrast => {
            let pixels = (image.data.len() / 3) as f64;
            let sum: f64 = image
                .data
                .chunks_exact(3)
                .map(|px| f64::from(gray(px)))
                .sum();
            let beta = (1.0 - alpha) * (sum / pixels) as f32;
            let data = image.data.iter_mut();
            data.for_each(|v| *v = saturate_u8(f32::from(*v) * alpha + beta));
        }
        Jitter::Saturation => {
            for px in image.data.chunks_exact_mut(3) {
                let g = f32::from(gray(px)) * (1.0 - alpha);
                px.iter_mut()
                    .for_each(|v| *v = saturate_u8(f32::from(*v) * alpha + g));
            }
        }
    }
}

/// Adds AlexNet's PCA lighting noise of weights `alpha` (normal draws × `pca_noise`).
fn pca_noise(image: &mut Image, alpha: [f32; 3]) {
    let noise: [f32; 3] =
        std::array::from_fn(|row| (0..3).map(|k| EIGVEC[row][k] * alpha[k]).sum());
    for px in image.data.chunks_exact_mut(3) {
        for (v, n) in px.iter_mut().zip(noise) {
            // C++'s `int += float`: the sum truncated toward zero, then clamped.
            *v = ((f32::from(*v) + n) as i32).clamp(0, 255) as u8;
        }
    }
}

/// The contrast factor and illumination offset of one image (`max_random_contrast`,
/// `max_random_illumination`), both already times `scale`: normalization computes
/// `(v − mean) · contrast / std + illumination / std`.
pub fn lighting(p: &ImageRecordParams, draws: &mut Draws) -> (f32, f32) {
    let (c, i) = (p.max_random_contrast, p.max_random_illumination);
    let contrast = if c > 0.0 {
        draws.uniform() * c * 2.0 - c + 1.0
    } else {
        1.0
    };
    let illumination = if i > 0.0 {
        draws.uniform() * i * 2.0 - i
    } else {
        0.0
    };
    (contrast * p.scale, illumination * p.scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(data: Vec<u8>) -> Image {
        Image {
            height: 1,
            width: data.len() / 3,
            channels: 3,
            data,
        }
    }

    /// Hand-computed: gray of (r, g, b) = (10, 20, 30) with red's weight on blue is
    /// (30·4899 + 20·9617 + 10·1868 + 8192) >> 14 = 22; of (30, 40, 50), 42; mean 32.
    #[test]
    fn jitter_steps_round_as_opencv() {
        let mut img = image(vec![101, 103, 255]);
        jitter(&mut img, Jitter::Brightness, 1.5);
        assert_eq!(img.data, [152, 154, 255], "151.5 and 154.5 round to even");
        let mut img = image(vec![10, 20, 30, 30, 40, 50]);
        jitter(&mut img, Jitter::Contrast, 0.5);
        assert_eq!(img.data, [21, 26, 31, 31, 36, 41], "v / 2 + 16");
        let mut img = image(vec![10, 20, 30, 30, 40, 50]);
        jitter(&mut img, Jitter::Saturation, 0.0);
        assert_eq!(img.data, [22, 22, 22, 42, 42, 42]);
    }

    /// Noise of weights (1, 0, 0): the first eigenvector times 55.46, i.e. −31.47, −32.21,
    /// −32.37 on red, green and blue, sums truncated toward zero and clamped.
    #[test]
    fn pca_noise_adds_the_weighted_eigenvectors() {
        let mut img = image(vec![100, 100, 100, 10, 250, 40]);
        pca_noise(&mut img, [1.0, 0.0, 0.0]);
        assert_eq!(img.data, [68, 67, 67, 0, 217, 7]);
    }
}
