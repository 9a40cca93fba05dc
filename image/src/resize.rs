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
    let pixels = pixel_taps(image, xs);
    linear_passes(image, &pixels, ys, |y, out| {
        scalar_row(image, &pixels, y, out)
    })
}

/// [`linear_passes`] compiled for AVX2: the vertical pass's 32-bit products in lanes, and
/// the horizontal pass by [`chunked_row`] where its taps allow.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn linear_avx2(image: &Image, xs: &[LinearTap], ys: &[LinearTap]) -> Image {
    let cn = image.channels;
    let pixels = pixel_taps(image, xs);
    // Eight values at a time need each value's second source `cn` bytes after its first
    // (or weighing nothing) and `cn` below 4, so that one 32-bit word holds both; and
    // offsets that fit `i32`.
    let chunked = (1..4).contains(&cn)
        && image.data.len() < i32::MAX as usize
        && (pixels.iter()).all(|&(p0, p1, _, a1)| p1 == p0 + cn || a1 == 0);
    if !chunked {
        return linear_passes(image, &pixels, ys, |y, out| {
            scalar_row(image, &pixels, y, out)
        });
    }
    let chunks = Chunks::new(&pixels, cn);
    linear_passes(image, &pixels, ys, |y, out| {
        chunked_row(image, &pixels, &chunks, y, out)
    })
}

/// The horizontal pass's taps arranged for AVX2, eight destination values (a chunk) at a
/// time.
#[cfg(target_arch = "x86_64")]
struct Chunks {
    /// Per value: its first source's offset in the row.
    offsets: Vec<i32>,
    /// Per value: its two weights as the low and high 16 bits of one lane (what
    /// `_mm256_madd_epi16` multiplies).
    weights: Vec<i32>,
    /// Per chunk: how far into the row its gathered words reach (offsets need not rise
    /// within a chunk: a pixel's last channel can lie past the next pixel's first).
    reaches: Vec<usize>,
    /// Per chunk whose sources lie within 16 bytes: the offset of the first, and the byte
    /// shuffle that moves each value's two sources to the halves of its lane.
    windows: Vec<Option<(usize, [i8; 32])>>,
    /// The shuffle for gathered words: byte 0 of each lane to its low half, byte `cn` to
    /// its high half.
    gathered: [i8; 32],
}

#[cfg(target_arch = "x86_64")]
impl Chunks {
    /// For pixels whose second source lies `cn` bytes after the first or weighs nothing.
    fn new(pixels: &[PixelTap], cn: usize) -> Chunks {
        let (offsets, weights): (Vec<i32>, Vec<i32>) = (pixels.iter())
            .flat_map(|&(p0, _, a0, a1)| {
                (0..cn).map(move |c| ((p0 + c) as i32, (a0 & 0xFFFF) | (a1 << 16)))
            })
            .unzip();
        let reaches = (offsets.chunks_exact(8))
            .map(|chunk| chunk.iter().max().map_or(0, |&o| o as usize + 4))
            .collect();
        let windows = (offsets.chunks_exact(8))
            .map(|chunk| {
                let base = *chunk.iter().min()? as usize;
                let mut spread = [-1i8; 32];
                for (i, &offset) in chunk.iter().enumerate() {
                    let first = offset as usize - base;
                    if first + cn > 15 {
                        return None;
                    }
                    // Lane i; the 16 bytes are in both halves of the register, which the
                    // shuffle indexes each on its own.
                    spread[4 * i] = first as i8;
                    spread[4 * i + 2] = (first + cn) as i8;
                }
                Some((base, spread))
            })
            .collect();
        let gathered = std::array::from_fn(|b| match b % 4 {
            0 => (b % 16) as i8,
            2 => (b % 16 - 2 + cn) as i8,
            _ => -1,
        });
        Chunks {
            offsets,
            weights,
            reaches,
            windows,
            gathered,
        }
    }
}

/// Per output pixel: the byte offsets in a source row of its two source pixels, and
/// their weights.
type PixelTap = (usize, usize, i32, i32);

fn pixel_taps(image: &Image, xs: &[LinearTap]) -> Vec<PixelTap> {
    let (sw, cn) = (image.width, image.channels);
    (xs.iter())
        .map(|&(s, a0, a1)| {
            let s = s as usize;
            (s * cn, (s + 1).min(sw - 1) * cn, a0, a1)
        })
        .collect()
}

/// Channel `c` of a destination pixel from its source row: value · 2048.
#[inline(always)]
fn tap(src: &[u8], (p0, p1, a0, a1): PixelTap, c: usize) -> i32 {
    i32::from(src[p0 + c]) * a0 + i32::from(src[p1 + c]) * a1
}

/// One source row's horizontal pass: value · 2048 per destination value.
#[inline(always)]
fn scalar_row(image: &Image, pixels: &[PixelTap], y: usize, out: &mut [i32]) {
    let cn = image.channels;
    let row = image.width * cn;
    let src = &image.data[y * row..(y + 1) * row];
    let pass = |cn: usize, out: &mut [i32]| {
        for (o, &pixel) in out.chunks_exact_mut(cn).zip(pixels) {
            for (c, o) in o.iter_mut().enumerate() {
                *o = tap(src, pixel, c);
            }
        }
    };
    // The common channel counts as constants, so that their pixel loops unroll.
    match cn {
        1 => pass(1, out),
        3 => pass(3, out),
        4 => pass(4, out),
        _ => pass(cn, out),
    }
}

/// [`scalar_row`] eight values at a time: each value's two sources (bytes 0 and `cn` of
/// the word at its first) in the halves of a 32-bit lane, one multiply-add by the weight
/// pair. The eight words come from one 16-byte load spread by a shuffle where the chunk's
/// sources fit in it, else from a gather. The values past the last whole eight, and those
/// whose read would reach past the image's data (the last row's end), one at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn chunked_row(image: &Image, pixels: &[PixelTap], chunks: &Chunks, y: usize, out: &mut [i32]) {
    use std::arch::x86_64::*;
    let cn = image.channels;
    let start = y * image.width * cn;
    let readable = image.data.len() - start;
    // SAFETY: `gathered` is the 32 bytes the load reads.
    let gathered = unsafe { _mm256_loadu_si256(chunks.gathered.as_ptr().cast()) };
    let mut done = 0;
    for ((((o, offset), weight), window), &reach) in (out.chunks_exact_mut(8))
        .zip(chunks.offsets.chunks_exact(8))
        .zip(chunks.weights.chunks_exact(8))
        .zip(&chunks.windows)
        .zip(&chunks.reaches)
    {
        // SAFETY: the loads and the store touch the 16 or 32 bytes of the slices and
        // arrays named; the window's 16 bytes and every gathered word lie inside the
        // image's data, as checked.
        let words = unsafe {
            let row = image.data.as_ptr().add(start);
            match window {
                Some((base, spread)) if base + 16 <= readable => {
                    let bytes = _mm256_broadcastsi128_si256(_mm_loadu_si128(row.add(*base).cast()));
                    _mm256_shuffle_epi8(bytes, _mm256_loadu_si256(spread.as_ptr().cast()))
                }
                _ if reach <= readable => {
                    let offsets = _mm256_loadu_si256(offset.as_ptr().cast());
                    let words = _mm256_i32gather_epi32::<1>(row.cast(), offsets);
                    _mm256_shuffle_epi8(words, gathered)
                }
                _ => break,
            }
        };
        // SAFETY: as above.
        unsafe {
            let sums = _mm256_madd_epi16(words, _mm256_loadu_si256(weight.as_ptr().cast()));
            _mm256_storeu_si256(o.as_mut_ptr().cast(), sums);
        }
        done += 8;
    }
    let src = &image.data[start..start + image.width * cn];
    for (j, o) in out.iter_mut().enumerate().skip(done) {
        *o = tap(src, pixels[j / cn], j % cn);
    }
}

#[inline(always)]
fn linear_passes(
    image: &Image,
    pixels: &[PixelTap],
    ys: &[LinearTap],
    horizontal: impl Fn(usize, &mut [i32]),
) -> Image {
    let (sh, cn) = (image.height, image.channels);
    let window = Window::whole(pixels.len(), ys.len());
    let row_len = window.width * cn;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The AVX2 passes (shuffled and gathered chunks, their tails and the last row's
    /// guarded end) against the portable ones, on noise of 1 to 4 channels, enlarged and
    /// shrunk.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_avx2_passes_equal_the_portable_ones() {
        if !std::is_x86_feature_detected!("avx2") {
            eprintln!("skipped: the CPU lacks AVX2");
            return;
        }
        let mut state = 99u32;
        for channels in 1..=4 {
            for (sw, sh, w, h) in [(37, 5, 61, 7), (61, 9, 37, 4), (9, 3, 3, 2), (2, 2, 17, 3)] {
                let data = (0..sw * sh * channels)
                    .map(|_| {
                        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                        (state >> 16) as u8
                    })
                    .collect();
                let image = Image {
                    height: sh,
                    width: sw,
                    channels,
                    data,
                };
                let (xs, ys) = (taps(sw, w, false), taps(sh, h, true));
                let pixels = pixel_taps(&image, &xs);
                let portable = linear_passes(&image, &pixels, &ys, |y, out| {
                    scalar_row(&image, &pixels, y, out)
                });
                // SAFETY: the CPU has AVX2 (checked above).
                let vector = unsafe { linear_avx2(&image, &xs, &ys) };
                assert_eq!(
                    portable, vector,
                    "{channels} channels, {sw}×{sh} to {w}×{h}"
                );
            }
        }
    }
}
