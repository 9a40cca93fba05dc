//! The augmenters `mx.image.CreateAugmenter` lists, in its order, as ImageIter applies them
//! to each decoded RGB image: `ResizeAug` (the shorter edge to `resize`, the other
//! `resize·long/short` truncated), `CenterCropAug` or `RandomCropAug` (mx.image's
//! `center_crop` and `random_crop`: the crop scaled down to fit the image by
//! `scale_down`, taken at `int((w − new_w)/2)` or at a random offset, resized to
//! `data_shape` where it had to be scaled down), `HorizontalFlipAug(0.5)` with
//! `rand_mirror`, `CastAug` and `ColorNormalizeAug` (`(pixel − mean) / std` in single
//! precision); then HWC becomes CHW, as `postprocess_data` transposes.
//!
//! Both resizes are OpenCV's `cv::resize` by [`crate::resize`] with the method
//! `_get_interp_method` makes of `inter_method`: 0–4 as they are, 9 by the resize's sizes
//! (bicubic to enlarge both edges, area to shrink both, bilinear otherwise), 10 one of 0–4
//! drawn per resize.
//!
//! Random draws come from the Philox stream of (seed, epoch) at the sample's position in
//! its epoch (MXNet draws from Python's global `random`), in MXNet's order: the resize's
//! method (`inter_method=10`), x and y (`rand_crop`), the crop resize's method
//! (`inter_method=10`, only where the crop is resized), then the mirror's coin. With
//! `inter_method=10` the methods are kiln's draws, not MXNet's.

use super::params::ImageIterParams;
use crate::augment::{choose_interpolation, crop, shorter_edge_size, Draws};
use crate::resize::{resize_window, Window};
use crate::{resize, Error, Image, Interpolation, Result};

/// `image` augmented into `out` (channels × height × width of `data_shape`), or why it
/// cannot be.
pub fn augment(
    image: &Image,
    p: &ImageIterParams,
    draws: &mut Draws,
    out: &mut [f32],
) -> Result<()> {
    let [_, height, width] = p.data_shape;
    let resized = match p.resize {
        Some(size) => resize_short(image, size, p.inter_method, draws)?,
        None => None,
    };
    let (sw, sh) = resized.map_or((image.width, image.height), |(size, _)| size);
    let (cw, ch) = scale_down((sw, sh), (width, height));
    if cw == 0 || ch == 0 {
        return Err(Error::Input(format!(
            "a {width}×{height} crop scaled down to fit a {sw}×{sh} image is {cw}×{ch} pixels"
        )));
    }
    let (x, y) = match p.rand_crop {
        true => (draws.up_to(sw - cw), draws.up_to(sh - ch)),
        false => ((sw - cw) / 2, (sh - ch) / 2),
    };
    let window = Window {
        x,
        y,
        width: cw,
        height: ch,
    };
    let cropped = match resized {
        // Bilinear values depend only on their own coordinates: only the crop is resized.
        Some((size, Interpolation::Bilinear)) => resize_window(image, size, window),
        Some(((w, h), method)) => crop(&resize(image, w, h, method), window),
        None => crop(image, window),
    };
    let cropped = match (cw, ch) == (width, height) {
        true => cropped,
        false => {
            let method = interp_method(p.inter_method, (ch, cw, height, width), draws)?;
            resize(&cropped, width, height, method)
        }
    };
    let mirrored = p.rand_mirror && draws.coin();
    to_chw(&cropped, p, mirrored, out);
    Ok(())
}

/// A resize: the size (width, height) and the method.
type Resize = ((usize, usize), Interpolation);

/// mx.image's `resize_short`: the size (width, height) whose shorter edge is `size` and
/// the method it is resized by, or `None` where that size is the image's own (OpenCV then
/// copies; `inter_method=10` still draws its method, as MXNet does).
fn resize_short(
    image: &Image,
    size: usize,
    inter_method: u8,
    draws: &mut Draws,
) -> Result<Option<Resize>> {
    let (h, w) = (image.height, image.width);
    let (nw, nh) = shorter_edge_size((w, h), size)?;
    let method = interp_method(inter_method, (h, w, nh, nw), draws)?;
    Ok(((nw, nh) != (w, h)).then_some(((nw, nh), method)))
}

/// mx.image's `scale_down`: the crop `size` (width, height) scaled down, keeping its
/// aspect ratio, to fit `src` (width, height), in Python's double precision.
fn scale_down(src: (usize, usize), size: (usize, usize)) -> (usize, usize) {
    let (sw, sh) = (src.0 as f64, src.1 as f64);
    let (mut w, mut h) = (size.0 as f64, size.1 as f64);
    if sh < h {
        (w, h) = (w * sh / h, sh);
    }
    if sw < w {
        (w, h) = (sw, h * sw / w);
    }
    (w as usize, h as usize)
}

/// mx.image's `_get_interp_method` for a resize of (old height, old width) to (new
/// height, new width) ([`choose_interpolation`]); another code is an error, as MXNet's
/// (`from_pairs` refuses it before).
fn interp_method(
    method: u8,
    (oh, ow, nh, nw): (usize, usize, usize, usize),
    draws: &mut Draws,
) -> Result<Interpolation> {
    choose_interpolation(method, (ow, oh), (nw, nh), draws).ok_or(Error::InterMethod(method))
}

/// `image`'s values as float32 CHW, mirrored or not, `(v − mean) / std` per channel.
fn to_chw(image: &Image, p: &ImageIterParams, mirrored: bool, out: &mut [f32]) {
    let (h, w, c) = (image.height, image.width, image.channels);
    let (mean, std) = (p.mean.unwrap_or([0.0; 3]), p.std.unwrap_or([1.0; 3]));
    for (k, plane) in out.chunks_exact_mut(h * w).take(c).enumerate() {
        for (out, row) in plane
            .chunks_exact_mut(w)
            .zip(image.data.chunks_exact(w * c))
        {
            let values = row.iter().skip(k).step_by(c);
            let value = |v: &u8| (f32::from(*v) - mean[k]) / std[k];
            match mirrored {
                false => out.iter_mut().zip(values).for_each(|(o, v)| *o = value(v)),
                true => (out.iter_mut().rev().zip(values)).for_each(|(o, v)| *o = value(v)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_down_is_mxnets() {
        // mx.image.scale_down's docstring, and each branch.
        assert_eq!(scale_down((640, 480), (720, 120)), (640, 106));
        assert_eq!(scale_down((14, 10), (16, 12)), (13, 10));
        assert_eq!(scale_down((10, 14), (16, 12)), (10, 7));
        assert_eq!(scale_down((50, 50), (20, 30)), (20, 30));
        assert_eq!(scale_down((1, 1), (2, 1000)), (0, 1));
    }

    #[test]
    fn method_nine_picks_by_direction() {
        let draws = &mut Draws::new(0, 0, 0);
        use Interpolation::*;
        assert_eq!(interp_method(9, (10, 10, 20, 20), draws).unwrap(), Cubic);
        assert_eq!(interp_method(9, (10, 10, 5, 5), draws).unwrap(), Area);
        assert_eq!(interp_method(9, (10, 10, 20, 5), draws).unwrap(), Bilinear);
        assert_eq!(interp_method(9, (10, 10, 10, 20), draws).unwrap(), Bilinear);
        assert_eq!(interp_method(9, (10, 10, 10, 10), draws).unwrap(), Bilinear);
        for code in 0..=4 {
            let method = interp_method(code, (10, 10, 20, 20), draws).unwrap();
            assert_eq!(Some(method), Interpolation::from_opencv(code));
        }
    }

    #[test]
    fn method_ten_draws_each_of_zero_to_four() {
        // Seeded: the same draws make the same methods, and over 200 draws all five
        // come up, none of them much more often than a fifth of the time.
        let methods = |seed| {
            let draws = &mut Draws::new(seed, 0, 3);
            (0..200)
                .map(|_| interp_method(10, (10, 10, 20, 20), draws).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(methods(7), methods(7));
        assert_ne!(methods(7), methods(8));
        for code in 0..=4 {
            let method = Interpolation::from_opencv(code).unwrap();
            let n = methods(7).iter().filter(|&&m| m == method).count();
            assert!((20..=60).contains(&n), "{method:?} drawn {n} times of 200");
        }
        let e = interp_method(7, (10, 10, 20, 20), &mut Draws::new(0, 0, 0)).unwrap_err();
        assert!(matches!(e, Error::InterMethod(7)), "{e}");
        assert_eq!(e.to_string(), "inter_method=7 is not 0-4, 9 or 10");
    }
}
