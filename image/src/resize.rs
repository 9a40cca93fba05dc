//! OpenCV's `cv::resize(..., INTER_LINEAR)` of 8-bit images, bit for bit: source
//! coordinates `(d + 0.5)·scale − 0.5` in single precision, 11-bit fixed-point weights
//! rounded each on its own, a horizontal pass into 32-bit rows and a vertical pass that
//! rounds as OpenCV's SIMD kernel does (on 16-bit products of the rows' top bits; its
//! exact scalar rounding would differ by one in a few values). An exact halving takes
//! OpenCV's area path instead (the mean of each 2×2 block). Checked against the OpenCV
//! inside MXNet 1.9.1 on upscales, downscales and halvings.

use crate::Image;

/// OpenCV's INTER_RESIZE_COEF_BITS: every fixed-point interpolation weighs in 1/2048ths.
pub(crate) const COEF_BITS: u32 = 11;
pub(crate) const COEF_SCALE: f32 = (1 << COEF_BITS) as f32;

/// OpenCV's `saturate_cast<uchar>(float)`: round half to even, then clamp.
pub(crate) fn saturate_u8(v: f32) -> u8 {
    v.round_ties_even().clamp(0.0, 255.0) as u8
}

/// OpenCV's `saturate_cast<short>(float)`: round half to even, then clamp. The other
/// fixed-point interpolations (interpolation.rs) round their weights the same way.
pub(crate) fn weight(v: f32) -> i32 {
    (v.round_ties_even() as i32).clamp(i16::MIN as i32, i16::MAX as i32)
}

/// Along one axis, per destination index: the first source index and its two weights.
pub(crate) type LinearTap = (isize, i32, i32);

/// Per destination index along one axis: the first source index and the two weights.
/// Along rows (`edges_weighted`) OpenCV keeps the weights of a coordinate outside the
/// image and clamps the rows it reads; along a row it moves the coordinate inside and
/// weighs the edge value alone.
fn taps(src: usize, dst: usize, edges_weighted: bool) -> Vec<LinearTap> {
    // OpenCV's scale: the inverse of dst/src in double (not src/dst, which can differ in
    // the last bit).
    let scale = 1.0 / (dst as f64 / src as f64);
    (0..dst)
        .map(|d| {
            let f = ((d as f64 + 0.5) * scale - 0.5) as f32;
            let mut s = f.floor();
            let mut frac = f - s;
            if !edges_weighted {
                if s < 0.0 {
                    (s, frac) = (0.0, 0.0);
                }
                if s >= (src - 1) as f32 {
                    (s, frac) = ((src - 1) as f32, 0.0);
                }
            }
            let (w0, w1) = (weight((1.0 - frac) * COEF_SCALE), weight(frac * COEF_SCALE));
            (s as isize, w0, w1)
        })
        .collect()
}

/// `image` resized to `width` × `height` (both at least 1).
pub fn resize_bilinear(image: &Image, width: usize, height: usize) -> Image {
    resize_window(image, (width, height), Window::whole(width, height))
}

/// A rectangle of an image: its first column and row, its width and height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub x: usize,
    pub y: usize,
    pub width: usize,
    pub height: usize,
}

impl Window {
    pub fn whole(width: usize, height: usize) -> Window {
        Window {
            x: 0,
            y: 0,
            width,
            height,
        }
    }
}

/// The `window` of `image` resized to `size` (width, height): the same values as
/// cropping the whole resize, without computing the rest (each value depends only on its
/// own coordinates).
pub fn resize_window(image: &Image, size: (usize, usize), window: Window) -> Image {
    let (sw, sh) = (image.width, image.height);
    let (width, height) = size;
    if sw == 2 * width && sh == 2 * height {
        return crate::interpolation::area::block_means(image, window, (2, 2));
    }
    let xs = &taps(sw, width, false)[window.x..window.x + window.width];
    let ys = &taps(sh, height, true)[window.y..window.y + window.height];
    linear(image, xs, ys)
}

/// OpenCV's two linear passes over `image` with the given taps, one per output column
/// (`xs`, whose first source column must lie inside the image) and row (`ys`, whose rows
/// are clamped to the image). INTER_AREA's enlargement runs them with its own weights.
pub(crate) fn linear(image: &Image, xs: &[LinearTap], ys: &[LinearTap]) -> Image {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { linear_avx2(image, xs, ys) };
    }
    linear_passes(image, xs, ys)
}

/// [`linear_passes`] compiled for AVX2: the vertical pass's 32-bit products in lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn linear_avx2(image: &Image, xs: &[LinearTap], ys: &[LinearTap]) -> Image {
    linear_passes(image, xs, ys)
}

/// One source row's horizontal pass: value · 2048 per destination value, `xs` the byte
/// offsets of each output pixel's two source pixels and their weights.
#[inline(always)]
fn horizontal(src: &[u8], cn: usize, xs: &[(usize, usize, i32, i32)], out: &mut [i32]) {
    for (o, &(p0, p1, a0, a1)) in out.chunks_exact_mut(cn).zip(xs) {
        let (v0, v1) = (&src[p0..p0 + cn], &src[p1..p1 + cn]);
        for ((o, &v0), &v1) in o.iter_mut().zip(v0).zip(v1) {
            *o = i32::from(v0) * a0 + i32::from(v1) * a1;
        }
    }
}

#[inline(always)]
fn linear_passes(image: &Image, xs: &[LinearTap], ys: &[LinearTap]) -> Image {
    let (sw, sh, cn) = (image.width, image.height, image.channels);
    let window = Window::whole(xs.len(), ys.len());
    let xs: Vec<(usize, usize, i32, i32)> = (xs.iter())
        .map(|&(s, a0, a1)| {
            let s = s as usize;
            (s * cn, (s + 1).min(sw - 1) * cn, a0, a1)
        })
        .collect();
    let row_len = window.width * cn;
    let horizontal = |y: usize, out: &mut [i32]| {
        let src = &image.data[y * sw * cn..(y + 1) * sw * cn];
        // The common channel counts as constants, so that their pixel loops unroll.
        match cn {
            1 => horizontal(src, 1, &xs, out),
            3 => horizontal(src, 3, &xs, out),
            4 => horizontal(src, 4, &xs, out),
            _ => horizontal(src, cn, &xs, out),
        }
    };
    let mut data = vec![0u8; window.height * row_len];
    let (mut row0, mut row1) = (vec![0i32; row_len], vec![0i32; row_len]);
    let mut loaded: [Option<usize>; 2] = [None, None];
    for (out, &(sy, b0, b1)) in data.chunks_exact_mut(row_len).zip(ys) {
        let row = |y: isize| y.clamp(0, sh as isize - 1) as usize;
        let (y0, y1) = (row(sy), row(sy + 1));
        if loaded[0] != Some(y0) {
            if loaded[1] == Some(y0) {
                std::mem::swap(&mut row0, &mut row1);
                loaded.swap(0, 1);
            } else {
                horizontal(y0, &mut row0);
                loaded[0] = Some(y0);
            }
        }
        if loaded[1] != Some(y1) {
            horizontal(y1, &mut row1);
            loaded[1] = Some(y1);
        }
        for ((o, &r0), &r1) in out.iter_mut().zip(&row0).zip(&row1) {
            // OpenCV's vector kernel: 16-bit products of the rows' top bits, then rounding.
            let v = ((((r0 >> 4) * b0) >> 16) + (((r1 >> 4) * b1) >> 16) + 2) >> 2;
            *o = v.clamp(0, 255) as u8;
        }
    }
    Image {
        height: window.height,
        width: window.width,
        channels: cn,
        data,
    }
}
