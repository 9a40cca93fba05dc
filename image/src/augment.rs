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
use crate::{resize_bilinear, Image};
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
    fn up_to(&mut self, high: usize) -> usize {
        ((u64::from(self.word()) * (high as u64 + 1)) >> 32) as usize
    }

    fn coin(&mut self) -> bool {
        self.word() >> 31 == 1
    }
}

/// The augmented image, or why the record cannot be used.
pub fn augment(image: Image, p: &ImageRecordParams, draws: &mut Draws) -> Result<Image, String> {
    let mut image = match p.resize {
        Some(r) => {
            let (h, w) = (image.height, image.width);
            let (nh, nw) = if h > w {
                (r * h / w, r)
            } else {
                (r, r * w / h)
            };
            resize_bilinear(&image, nw.max(1), nh.max(1))
        }
        None => image,
    };
    if p.pad > 0 {
        image = pad(&image, p.pad, p.fill_value);
    }
    let [_, h, w] = p.data_shape;
    if image.height < h || image.width < w {
        return Err(format!(
            "the image is {}×{} (after resize and pad), smaller than data_shape's {h}×{w}",
            image.height, image.width
        ));
    }
    let (mut y, mut x) = ((image.height - h) / 2, (image.width - w) / 2);
    if p.rand_crop {
        y = draws.up_to(image.height - h);
        x = draws.up_to(image.width - w);
    }
    Ok(crop(&image, y, x, h, w))
}

fn pad(image: &Image, pad: usize, fill: u8) -> Image {
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

fn crop(image: &Image, y: usize, x: usize, h: usize, w: usize) -> Image {
    let c = image.channels;
    let mut data = Vec::with_capacity(h * w * c);
    for row in y..y + h {
        let start = (row * image.width + x) * c;
        data.extend_from_slice(&image.data[start..start + w * c]);
    }
    Image {
        height: h,
        width: w,
        channels: c,
        data,
    }
}

/// Writes `image` into `out` (channels × height × width) normalized as MXNet's
/// `ProcessImage`: `(pixel − mean_c) · (scale / std_c)` in single precision.
pub fn normalize(image: &Image, p: &ImageRecordParams, mirrored: bool, out: &mut [f32]) {
    let (h, w, c) = (image.height, image.width, image.channels);
    for k in 0..c {
        let (mean, mult) = (p.mean[k], p.scale / p.std[k]);
        let plane = &mut out[k * h * w..(k + 1) * h * w];
        for y in 0..h {
            for x in 0..w {
                let to = if mirrored { w - 1 - x } else { x };
                plane[y * w + to] = (f32::from(image.at(y, x, k)) - mean) * mult;
            }
        }
    }
}

/// Whether the record's image is mirrored.
pub fn mirrored(p: &ImageRecordParams, draws: &mut Draws) -> bool {
    p.mirror || (p.rand_mirror && draws.coin())
}
