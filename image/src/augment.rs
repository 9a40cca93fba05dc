//! MXNet's default augmenter, as ImageRecordIter applies it to each decoded image:
//! resize of the shorter edge to `resize` (the other edge `resize·long/short`, truncated),
//! a random affine warp (shear, rotation, scale, aspect ratio: `DefaultImageAugmenter`'s
//! matrix, OpenCV's `warpAffine`) when any of its parameters asks for one, `pad` pixels of
//! `fill_value` on every side, then a crop: a random resized crop (`random_resized_crop`),
//! a random square of `min_crop_size..=max_crop_size` resized to `data_shape`, or a
//! `data_shape` crop (centred, or at a random offset with `rand_crop`) of the image,
//! enlarged first where it is smaller (as MXNet 1.9.1 does); then the colour jitter and
//! PCA noise ([`crate::color_aug`]); then the values as (pixel − mean)·(contrast/std) +
//! illumination/std in channel-major order, mirrored with `mirror` or, with
//! `rand_mirror`, on a fair coin.
//!
//! Random draws come from the Philox stream of (seed, epoch) at the record's position in
//! the epoch, so a batch is the same whatever the thread count (MXNet draws from one
//! generator per decoding thread).

use crate::color_aug::color_augment;
use crate::decode::MAX_PIXELS;
use crate::interpolation::{resize, Interpolation};
use crate::params::ImageRecordParams;
use crate::resize::{resize_window, Window};
use crate::warp::{warp_affine, WarpInterpolation};
use crate::{resize_bilinear, Error, Image, Result};
use kiln_ops::random::{key, philox4x32};
use kiln_ops::DType;

/// The random numbers of one record.
pub struct Draws {
    key: [u32; 2],
    position: u64,
    next: u32,
}

impl Draws {
    pub fn new(seed: u64, epoch: u64, position: u64) -> Draws {
        Draws {
            key: key(seed, epoch),
            position,
            next: 0,
        }
    }

    fn word(&mut self) -> u32 {
        let p = self.position;
        let r = philox4x32([p as u32, (p >> 32) as u32, self.next, 0], self.key);
        self.next += 1;
        r[0]
    }

    /// Uniform in `0..=high`.
    pub(crate) fn up_to(&mut self, high: usize) -> usize {
        ((u64::from(self.word()) * (high as u64 + 1)) >> 32) as usize
    }

    pub(crate) fn coin(&mut self) -> bool {
        self.word() >> 31 == 1
    }

    /// Uniform in `[0, 1)` with single precision's 24 bits.
    pub(crate) fn uniform(&mut self) -> f32 {
        (self.word() >> 8) as f32 / (1u32 << 24) as f32
    }

    /// Standard normal (Box–Muller).
    pub(crate) fn normal(&mut self) -> f32 {
        let u1 = 1.0 - self.uniform(); // in (0, 1]: its logarithm is finite
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f32::consts::PI * u2).cos()
    }

    /// Uniform in `low..=high`.
    fn between(&mut self, low: i32, high: i32) -> i32 {
        let span = i64::from(high) - i64::from(low);
        (i64::from(low) + self.up_to(span as usize) as i64) as i32
    }
}

/// The size (width, height) MXNet's shorter-edge resize to `r` gives an image of `(width,
/// height)`: the other edge scaled and truncated (at least 1); refused above
/// [`MAX_PIXELS`] like any size a parameter asks for.
pub(crate) fn shorter_edge_size((w, h): (usize, usize), r: usize) -> Result<(usize, usize)> {
    let (nw, nh) = if h > w {
        (r, r.saturating_mul(h) / w)
    } else {
        (r.saturating_mul(w) / h, r)
    };
    checked_size((nw.max(1), nh.max(1)), "resize")
}

/// A size (width, height) a step asks for, refused above [`MAX_PIXELS`]: parameters such
/// as `resize`, `pad` or `max_img_size` can ask for more than memory holds.
fn checked_size((w, h): (usize, usize), what: &str) -> Result<(usize, usize)> {
    match w.checked_mul(h) {
        Some(pixels) if pixels <= MAX_PIXELS => Ok((w, h)),
        _ => Err(Error::Input(format!(
            "{what} asks for an image of {w}×{h} pixels (at most {MAX_PIXELS})"
        ))),
    }
}

/// The augmented image, or why the record cannot be used.
pub fn augment(image: Image, p: &ImageRecordParams, draws: &mut Draws) -> Result<Image> {
    let mut image = reshape(image, p, draws)?;
    color_augment(&mut image, p, draws);
    Ok(image)
}

/// The geometric steps: the image cut and scaled to `data_shape`.
fn reshape(image: Image, p: &ImageRecordParams, draws: &mut Draws) -> Result<Image> {
    let [_, h, w] = p.data_shape;
    // The size after resizing and padding, which the crop is drawn in.
    let size = (image.width, image.height);
    let resized = p.resize.map(|r| shorter_edge_size(size, r)).transpose()?;
    let (rw, rh) = resized.unwrap_or(size);
    let pad = p.pad.saturating_mul(2);
    let (fw, fh) = checked_size((rw.saturating_add(pad), rh.saturating_add(pad)), "pad")?;
    if p.affine.active(p.random_resized_crop)
        || p.crop_size.is_some()
        || p.random_resized_crop
        || p.inter_method != 1
        || fw < w
        || fh < h
    {
        return augment_in_steps(image, p, draws);
    }
    let window = crop_window((fw, fh), (w, h), p.rand_crop, draws)?;
    Ok(match (resized, p.pad) {
        // Only the crop is resized: the same values, a fraction of the work.
        (Some(size), 0) => resize_window(&image, size, window),
        (Some((nw, nh)), pad) => crop(
            &pad_with(&resize_bilinear(&image, nw, nh), pad, p.fill_value),
            window,
        ),
        (None, 0) => crop(&image, window),
        (None, pad) => crop(&pad_with(&image, pad, p.fill_value), window),
    })
}

/// A `size` window of an image of `full` size (width, height): centred, or at a random
/// offset.
fn crop_window(
    (fw, fh): (usize, usize),
    (w, h): (usize, usize),
    random: bool,
    draws: &mut Draws,
) -> Result<Window> {
    if fh < h || fw < w {
        return Err(Error::TooSmall {
            width: fw,
            height: fh,
            crop_width: w,
            crop_height: h,
        });
    }
    let (mut y, mut x) = ((fh - h) / 2, (fw - w) / 2);
    if random {
        y = draws.up_to(fh - h);
        x = draws.up_to(fw - w);
    }
    Ok(Window {
        x,
        y,
        width: w,
        height: h,
    })
}

/// MXNet's `GetInterMethod` (and Python's `_get_interp_method`, the same rule): the
/// interpolation of a resize from `from` to `to` (width, height) — `code` itself, or with 9
/// cubic to enlarge both sides, area to shrink both and bilinear otherwise, or with 10 one
/// of the five at random (kiln's draw, not MXNet's generator); `None` for another code.
pub(crate) fn choose_interpolation(
    code: u8,
    from: (usize, usize),
    to: (usize, usize),
    draws: &mut Draws,
) -> Option<Interpolation> {
    let code = match code {
        9 if to.0 > from.0 && to.1 > from.1 => 2,
        9 if to.0 < from.0 && to.1 < from.1 => 3,
        9 => 1,
        10 => draws.up_to(4) as u8,
        code => code,
    };
    Interpolation::from_opencv(code)
}

/// [`choose_interpolation`] for ImageRecordIter's `inter_method`.
fn interpolation(
    p: &ImageRecordParams,
    from: (usize, usize),
    to: (usize, usize),
    draws: &mut Draws,
) -> Result<Interpolation> {
    choose_interpolation(p.inter_method, from, to, draws).ok_or(Error::InterMethod(p.inter_method))
}

/// `image` resized to `to` by the interpolation `inter_method` gives.
fn resize_to(
    image: &Image,
    to: (usize, usize),
    p: &ImageRecordParams,
    draws: &mut Draws,
) -> Result<Image> {
    let method = interpolation(p, (image.width, image.height), to, draws)?;
    Ok(resize(image, to.0, to.1, method))
}

/// MXNet's augmenter step by step, for the settings the fused path does not cover: resize,
/// affine warp, pad, then a crop of `data_shape` or of a random square resized to it.
fn augment_in_steps(image: Image, p: &ImageRecordParams, draws: &mut Draws) -> Result<Image> {
    let [_, h, w] = p.data_shape;
    let mut res = match p.resize {
        Some(r) => {
            let size = shorter_edge_size((image.width, image.height), r)?;
            resize_to(&image, size, p, draws)?
        }
        None => image,
    };
    if p.affine.active(p.random_resized_crop) {
        res = warp(&res, p, draws)?;
    }
    if p.pad > 0 {
        res = pad_with(&res, p.pad, p.fill_value);
    }
    if p.random_resized_crop {
        if let Some(cropped) = random_resized_crop(&res, p, draws)? {
            return Ok(cropped);
        }
    } else if let Some((min, max)) = p.crop_size {
        let (fw, fh) = (res.width, res.height);
        if fw < max || fh < max {
            return Err(Error::TooSmall {
                width: fw,
                height: fh,
                crop_width: max,
                crop_height: max,
            });
        }
        let side = min + draws.up_to(max - min);
        let window = crop_window((fw, fh), (side, side), p.rand_crop, draws)?;
        return resize_to(&crop(&res, window), (w, h), p, draws);
    }
    // MXNet 1.9.1 enlarges an image smaller than the crop (height first), keeping its
    // aspect ratio in single precision, truncated; one interpolation for both, chosen
    // for the image's size against the crop's.
    if res.height < h || res.width < w {
        let method = interpolation(p, (res.width, res.height), (w, h), draws)?;
        if res.height < h {
            let cols = (h as f32 / res.height as f32 * res.width as f32) as usize;
            res = resize(&res, cols.max(1), h, method);
        }
        if res.width < w {
            let rows = (w as f32 / res.width as f32 * res.height as f32) as usize;
            res = resize(&res, w, rows.max(1), method);
        }
    }
    let window = crop_window((res.width, res.height), (w, h), p.rand_crop, draws)?;
    Ok(crop(&res, window))
}

/// MXNet's `random_resized_crop`: up to ten tries at a crop of a random fraction of the
/// image's area and a random aspect ratio (its sides rounded, swapped on a coin) that fits
/// the image, at a random place, resized to `data_shape`; `None` when no try fits or no
/// area or aspect range is set (then the plain crop follows, as in MXNet).
fn random_resized_crop(
    image: &Image,
    p: &ImageRecordParams,
    draws: &mut Draws,
) -> Result<Option<Image>> {
    let (min_ar, max_ar) = p.affine.aspect_range();
    let (min_area, max_area) = (p.min_random_area, p.max_random_area);
    if min_area == 1.0 && max_area == 1.0 && min_ar == 1.0 && max_ar == 1.0 {
        return Ok(None);
    }
    let [_, h, w] = p.data_shape;
    let area = (image.height * image.width) as f32;
    for _ in 0..10 {
        let fraction = min_area + draws.uniform() * (max_area - min_area);
        let ratio = min_ar + draws.uniform() * (max_ar - min_ar);
        let target = area * fraction;
        let mut rows = (target / ratio).sqrt().round() as usize;
        let mut cols = (target * ratio).sqrt().round() as usize;
        if draws.uniform() > 0.5 {
            (rows, cols) = (cols, rows);
        }
        if (1..=image.height).contains(&rows) && (1..=image.width).contains(&cols) {
            let window = Window {
                x: draws.up_to(image.width - cols),
                y: draws.up_to(image.height - rows),
                width: cols,
                height: rows,
            };
            return resize_to(&crop(image, window), (w, h), p, draws).map(Some);
        }
    }
    Ok(None)
}

/// MXNet's random affine transformation (`DefaultImageAugmenter`): shear, rotation, scale
/// and aspect ratio drawn from their ranges, the matrix built in single precision as MXNet
/// builds it, the image warped into `scale ×` its size (truncated, within
/// `min_img_size..=max_img_size`) with `fill_value` where the source does not reach.
fn warp(image: &Image, p: &ImageRecordParams, draws: &mut Draws) -> Result<Image> {
    let a = &p.affine;
    let shear = draws.uniform() * a.max_shear_ratio * 2.0 - a.max_shear_ratio;
    let mut angle = draws.between(-a.max_rotate_angle, a.max_rotate_angle);
    if a.rotate > 0 {
        angle = a.rotate;
    }
    if !a.rotate_list.is_empty() {
        angle = a.rotate_list[draws.up_to(a.rotate_list.len() - 1)];
    }
    let radians = f64::from(angle) / 180.0 * std::f64::consts::PI;
    let (cos, sin) = (radians.cos() as f32, radians.sin() as f32);
    let scale = draws.uniform() * (a.max_random_scale - a.min_random_scale) + a.min_random_scale;
    let (min_ar, max_ar) = a.aspect_range();
    let ratio = draws.uniform() * (max_ar - min_ar) + min_ar;
    let hs = 2.0 * scale / (1.0 + ratio);
    let ws = ratio * hs;
    let (cols, rows) = (image.width as f32, image.height as f32);
    let new_width = a.min_img_size.max(a.max_img_size.min(scale * cols));
    let new_height = a.min_img_size.max(a.max_img_size.min(scale * rows));
    let m00 = hs * cos - shear * sin * ws;
    let m10 = -sin * ws;
    let m01 = hs * sin + shear * cos * ws;
    let m11 = cos * ws;
    let centre_x = m00 * cols + m01 * rows;
    let centre_y = m10 * cols + m11 * rows;
    let m = [
        m00,
        m01,
        (new_width - centre_x) / 2.0,
        m10,
        m11,
        (new_height - centre_y) / 2.0,
    ];
    // The size is cv::Size's truncation of the floats; OpenCV warps INTER_AREA bilinearly.
    let size = ((new_width as usize).max(1), (new_height as usize).max(1));
    let size = checked_size(size, "the affine augmentation")?;
    let method = match interpolation(p, (image.width, image.height), size, draws)? {
        Interpolation::Nearest => WarpInterpolation::Nearest,
        Interpolation::Bilinear | Interpolation::Area => WarpInterpolation::Bilinear,
        other => {
            return Err(Error::Input(format!(
                "inter_method={} chose {other:?} for the affine warp of a {}×{} image to {}×{}; kiln warps by nearest or bilinear interpolation only",
                p.inter_method, image.width, image.height, size.0, size.1
            )))
        }
    };
    Ok(warp_affine(
        image,
        m,
        size,
        method,
        &border(p.fill_value, image.channels),
    ))
}

/// MXNet's border colour `cv::Scalar(v, v, v)` for `channels`: the fourth channel's is 0.
fn border(fill: u8, channels: usize) -> Vec<u8> {
    (0..channels)
        .map(|c| if c < 3 { fill } else { 0 })
        .collect()
}

fn pad_with(image: &Image, pad: usize, fill: u8) -> Image {
    let (h, w, c) = (
        image.height + 2 * pad,
        image.width + 2 * pad,
        image.channels,
    );
    let mut data = border(fill, c).repeat(h * w);
    for y in 0..image.height {
        let from = &image.data[y * image.width * c..(y + 1) * image.width * c];
        let at = ((y + pad) * w + pad) * c;
        data[at..at + from.len()].copy_from_slice(from);
    }
    Image {
        height: h,
        width: w,
        channels: c,
        data,
    }
}

pub(crate) fn crop(image: &Image, window: Window) -> Image {
    let (c, w) = (image.channels, window.width);
    let mut data = Vec::with_capacity(window.height * w * c);
    for row in window.y..window.y + window.height {
        let start = (row * image.width + window.x) * c;
        data.extend_from_slice(&image.data[start..start + w * c]);
    }
    Image {
        height: window.height,
        width: w,
        channels: c,
        data,
    }
}

/// Writes `image` into `out` (channels × height × width) as MXNet's `ProcessImage` does
/// for the iterator's dtype: for float32 `(pixel − mean) · (contrast / std_c) +
/// illumination / std_c` in single precision, `(contrast, illumination)` from `lighting`
/// (`(scale, 0)` without random lighting; see `crate::color_aug::lighting`); for uint8 the pixel; for int8 the pixel less
/// the mean rounded, saturated to −128..=127 (each held exactly in `out`). The mean is
/// `mean_c`, or the mean image's value at the pixel (before mirroring) where there is one.
pub fn normalize(
    image: &Image,
    p: &ImageRecordParams,
    mean_image: Option<&[f32]>,
    mirrored: bool,
    (contrast, illumination): (f32, f32),
    out: &mut [f32],
) {
    let (h, w, c) = (image.height, image.width, image.channels);
    let plane = h * w;
    for k in 0..c {
        let (mult, bias) = (contrast / p.std[k], illumination / p.std[k]);
        let value = |v: u8, mean: f32| -> f32 {
            match p.dtype {
                DType::U8 => f32::from(v),
                DType::I8 => (f32::from(v) - mean.round()).clamp(-128.0, 127.0),
                _ => (f32::from(v) - mean) * mult + bias,
            }
        };
        let out = &mut out[k * plane..(k + 1) * plane];
        let rows = out.chunks_exact_mut(w).zip(image.data.chunks_exact(w * c));
        for (i, (out, row)) in rows.enumerate() {
            let values = row.iter().skip(k).step_by(c);
            let mean = |j: usize| mean_image.map_or(p.mean[k], |m| m[k * plane + i * w + j]);
            for (j, &v) in values.enumerate() {
                let at = if mirrored { w - 1 - j } else { j };
                out[at] = value(v, mean(j));
            }
        }
    }
}

/// Whether the record's image is mirrored.
pub fn mirrored(p: &ImageRecordParams, draws: &mut Draws) -> bool {
    p.mirror || (p.rand_mirror && draws.coin())
}
