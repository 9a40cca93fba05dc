//! OpenCV's `cv::resize` of 8-bit images in each of its interpolations, bit for bit with
//! the OpenCV 3.4.2 inside MXNet 1.9.1 (`mx.image.imresize`, ImageRecordIter, ImageIter):
//! nearest (here), bilinear (resize.rs), bicubic and Lanczos-4 (`separable.rs`: fixed-point
//! taps with replicated borders) and area (`area.rs`: block means when shrinking, linear
//! interpolation with area weights when enlarging).
//!
//! OpenCV derives every coordinate from the scale `1 / (dst / src)` in double precision,
//! not `src / dst`: the two differ in the last bit for some sizes, enough to move a
//! nearest-neighbour pick or to turn an integer ratio (49) into a non-integer one.

pub(crate) mod area;
mod separable;

use crate::{resize_bilinear, Image};

/// OpenCV's interpolation methods, with its numbering (MXNet's `interp` and
/// `inter_method` pass these codes to OpenCV unchanged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Nearest,
    Bilinear,
    Cubic,
    Area,
    Lanczos4,
}

impl Interpolation {
    /// The method of OpenCV's code: 0 nearest, 1 linear, 2 cubic, 3 area, 4 Lanczos-4.
    pub fn from_opencv(code: u8) -> Option<Interpolation> {
        Some(match code {
            0 => Interpolation::Nearest,
            1 => Interpolation::Bilinear,
            2 => Interpolation::Cubic,
            3 => Interpolation::Area,
            4 => Interpolation::Lanczos4,
            _ => return None,
        })
    }
}

/// `image` resized to `width` × `height` (both at least 1) as `cv::resize` does with
/// `method`.
pub fn resize(image: &Image, width: usize, height: usize, method: Interpolation) -> Image {
    // cv::resize copies an image of the requested size whatever the method.
    if (image.width, image.height) == (width, height) {
        return image.clone();
    }
    match method {
        Interpolation::Nearest => nearest(image, width, height),
        Interpolation::Bilinear => resize_bilinear(image, width, height),
        Interpolation::Cubic => separable::cubic(image, width, height),
        Interpolation::Area => area::resize(image, width, height),
        Interpolation::Lanczos4 => separable::lanczos4(image, width, height),
    }
}

/// OpenCV's source step per destination pixel along an axis: `1 / (dst / src)`.
fn opencv_scale(src: usize, dst: usize) -> f64 {
    1.0 / (dst as f64 / src as f64)
}

/// Per destination index: the source index `⌊d · scale⌋`, kept inside the source.
fn nearest_indices(src: usize, dst: usize) -> Vec<usize> {
    let scale = opencv_scale(src, dst);
    (0..dst)
        .map(|d| ((d as f64 * scale).floor() as usize).min(src - 1))
        .collect()
}

/// INTER_NEAREST: each destination pixel a copy of the source pixel at `⌊d · scale⌋`.
fn nearest(image: &Image, width: usize, height: usize) -> Image {
    let cn = image.channels;
    let row_len = image.width * cn;
    let xs: Vec<usize> = (nearest_indices(image.width, width).into_iter())
        .map(|x| x * cn)
        .collect();
    let out_len = width * cn;
    let ys = nearest_indices(image.height, height);
    let mut data = vec![0u8; height * out_len];
    for (dy, &y) in ys.iter().enumerate() {
        let start = dy * out_len;
        // Enlarging repeats source rows: copy the row just made from the same one.
        if dy > 0 && ys[dy - 1] == y {
            data.copy_within(start - out_len..start, start);
            continue;
        }
        let row = &image.data[y * row_len..(y + 1) * row_len];
        let out = &mut data[start..start + out_len];
        for (pixel, &x) in out.chunks_exact_mut(cn).zip(&xs) {
            pixel.copy_from_slice(&row[x..x + cn]);
        }
    }
    Image {
        height,
        width,
        channels: cn,
        data,
    }
}
