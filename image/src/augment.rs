//! MXNet's default augmenter, as ImageRecordIter applies it to each decoded image:
//! resize of the shorter edge to `resize` (the other edge `resize·long/short`, truncated),
//! `pad` pixels of `fill_value` on every side, a crop of `data_shape` (centred, or at a
//! random offset with `rand_crop`); then the values as (pixel − mean)·(scale/std) in
//! channel-major order, mirrored with `mirror` or, with `rand_mirror`, on a fair coin.
//!
//! Random draws come from the Philox stream of (seed, epoch) at the record's position in
//! the epoch, so a batch is the same whatever the thread count (MXNet draws from one
//! generator per decoding thread).

use crate::params::ImageRecordParams;
use crate::resize::{resize_window, Window};
use crate::{resize_bilinear, Error, Image, Result};
use kiln_ops::random::{key, philox4x32};

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
}

/// The augmented image, or why the record cannot be used.
pub fn augment(image: Image, p: &ImageRecordParams, draws: &mut Draws) -> Result<Image> {
    let [_, h, w] = p.data_shape;
    // The size after resizing and padding, which the crop is drawn in.
    let resized = match p.resize {
        Some(r) => {
            let (ih, iw) = (image.height, image.width);
            let (nh, nw) = if ih > iw {
                (r * ih / iw, r)
            } else {
                (r, r * iw / ih)
            };
            Some((nw.max(1), nh.max(1)))
        }
        None => None,
    };
    let (rw, rh) = resized.unwrap_or((image.width, image.height));
    let (fw, fh) = (rw + 2 * p.pad, rh + 2 * p.pad);
    if fh < h || fw < w {
        return Err(Error::TooSmall {
            width: fw,
            height: fh,
            crop_width: w,
            crop_height: h,
        });
    }
    let (mut y, mut x) = ((fh - h) / 2, (fw - w) / 2);
    if p.rand_crop {
        y = draws.up_to(fh - h);
        x = draws.up_to(fw - w);
    }
    let window = Window {
        x,
        y,
        width: w,
        height: h,
    };
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

fn pad_with(image: &Image, pad: usize, fill: u8) -> Image {
    let (h, w, c) = (
        image.height + 2 * pad,
        image.width + 2 * pad,
        image.channels,
    );
    let mut data = vec![fill; h * w * c];
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

/// Writes `image` into `out` (channels × height × width) normalized as MXNet's
/// `ProcessImage`: `(pixel − mean_c) · (scale / std_c)` in single precision.
pub fn normalize(image: &Image, p: &ImageRecordParams, mirrored: bool, out: &mut [f32]) {
    let (h, w, c) = (image.height, image.width, image.channels);
    let plane = h * w;
    for k in 0..c {
        let (mean, mult) = (p.mean[k], p.scale / p.std[k]);
        let out = &mut out[k * plane..(k + 1) * plane];
        for (out, row) in out.chunks_exact_mut(w).zip(image.data.chunks_exact(w * c)) {
            let values = row.iter().skip(k).step_by(c);
            match mirrored {
                false => (out.iter_mut().zip(values))
                    .for_each(|(o, &v)| *o = (f32::from(v) - mean) * mult),
                true => (out.iter_mut().rev().zip(values))
                    .for_each(|(o, &v)| *o = (f32::from(v) - mean) * mult),
            }
        }
    }
}

/// Whether the record's image is mirrored.
pub fn mirrored(p: &ImageRecordParams, draws: &mut Draws) -> bool {
    p.mirror || (p.rand_mirror && draws.coin())
}
