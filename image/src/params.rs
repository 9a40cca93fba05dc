//! ImageRecordIter's parameters by MXNet's names, from `KEY=VALUE` pairs as Python writes
//! them (`data_shape=(3,224,224)`, `shuffle=True`, `mean_r=123.68`).

use crate::{Error, Result};
use kiln_ops::DType;
use std::path::PathBuf;

/// ImageRecordIter's parameters, MXNet's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageRecordParams {
    pub path_imgrec: PathBuf,
    pub path_imgidx: Option<PathBuf>,
    /// A `.lst` whose labels replace the records' (looked up by the record's id).
    pub path_imglist: Option<PathBuf>,
    /// (channels, height, width); channels 1, 3 or 4.
    pub data_shape: [usize; 3],
    pub batch_size: usize,
    pub label_width: usize,
    /// The shorter edge's length after resizing (`-1`: none).
    pub resize: Option<usize>,
    pub rand_crop: bool,
    pub rand_mirror: bool,
    pub mirror: bool,
    /// Per channel (r, g, b, a).
    pub mean: [f32; 4],
    pub std: [f32; 4],
    pub scale: f32,
    pub shuffle: bool,
    pub seed: u64,
    pub round_batch: bool,
    pub part_index: usize,
    pub num_parts: usize,
    pub preprocess_threads: usize,
    pub prefetch_buffer: usize,
    /// Pixels of `fill_value` added on every side before cropping.
    pub pad: usize,
    pub fill_value: u8,
    pub inter_method: u8,
    /// The random affine transformation after the resize (MXNet's shear, rotation, scale
    /// and aspect parameters).
    pub affine: Affine,
    /// A square crop of a random side in `min..=max` (`min_crop_size`, `max_crop_size`),
    /// resized to `data_shape`, instead of a `data_shape` crop.
    pub crop_size: Option<(usize, usize)>,
    /// A crop of random area (`min_random_area..=max_random_area` of the image's) and
    /// aspect ratio resized to `data_shape` (`random_resized_crop`).
    pub random_resized_crop: bool,
    pub min_random_area: f32,
    pub max_random_area: f32,
    /// Colour jitter: factors `1 + U(−v, v)`.
    pub brightness: f32,
    pub contrast: f32,
    pub saturation: f32,
    /// The standard deviation of AlexNet's PCA lighting noise.
    pub pca_noise: f32,
    /// Per-image contrast and illumination in the normalization.
    pub max_random_contrast: f32,
    pub max_random_illumination: f32,
    /// A mean image file subtracted instead of `mean_r/g/b`, made where it does not exist.
    pub mean_img: Option<PathBuf>,
    /// The batches' element type (MXNet's `dtype`): float32 normalized; uint8 the pixels
    /// as they are; int8 the pixels less the rounded means, saturated.
    pub dtype: DType,
    /// Random offsets of hue, saturation and lightness in OpenCV's 8-bit HLS.
    pub random_h: i32,
    pub random_s: i32,
    pub random_l: i32,
}

/// MXNet's affine augmentation parameters, its defaults (which leave the image alone).
#[derive(Clone, Debug, PartialEq)]
pub struct Affine {
    pub max_rotate_angle: i32,
    /// A fixed angle in degrees when positive (over `max_rotate_angle`).
    pub rotate: i32,
    /// Angles to pick from (over both others).
    pub rotate_list: Vec<i32>,
    pub max_shear_ratio: f32,
    pub max_random_scale: f32,
    pub min_random_scale: f32,
    pub max_aspect_ratio: f32,
    /// With it, the aspect ratio is drawn from `min..=max_aspect_ratio`; without, from
    /// `1 ± max_aspect_ratio`.
    pub min_aspect_ratio: Option<f32>,
    pub max_img_size: f32,
    pub min_img_size: f32,
}

impl Default for Affine {
    fn default() -> Affine {
        Affine {
            max_rotate_angle: 0,
            rotate: -1,
            rotate_list: Vec::new(),
            max_shear_ratio: 0.0,
            max_random_scale: 1.0,
            min_random_scale: 1.0,
            max_aspect_ratio: 0.0,
            min_aspect_ratio: None,
            max_img_size: 1e10,
            min_img_size: 0.0,
        }
    }
}

impl Affine {
    /// The aspect ratio's range (MXNet: `[min_aspect_ratio, max_aspect_ratio]` when the
    /// minimum is given, else `[1 − max, 1 + max]`).
    pub fn aspect_range(&self) -> (f32, f32) {
        match self.min_aspect_ratio {
            Some(min) => (min, self.max_aspect_ratio),
            None => (1.0 - self.max_aspect_ratio, 1.0 + self.max_aspect_ratio),
        }
    }

    /// Whether MXNet's augmenter warps the image at all (its condition, word for word;
    /// under `random_resized_crop` the aspect ratio belongs to the crop).
    pub fn active(&self, random_resized_crop: bool) -> bool {
        let (min_ar, max_ar) = self.aspect_range();
        self.max_rotate_angle > 0
            || self.max_shear_ratio > 0.0
            || self.rotate > 0
            || !self.rotate_list.is_empty()
            || self.max_random_scale != 1.0
            || self.min_random_scale != 1.0
            || (!random_resized_crop && (min_ar != 1.0 || max_ar != 1.0))
            || self.max_img_size != 1e10
            || self.min_img_size != 0.0
    }
}

impl Default for ImageRecordParams {
    fn default() -> ImageRecordParams {
        ImageRecordParams {
            path_imgrec: PathBuf::new(),
            path_imgidx: None,
            path_imglist: None,
            data_shape: [0; 3],
            batch_size: 0,
            label_width: 1,
            resize: None,
            rand_crop: false,
            rand_mirror: false,
            mirror: false,
            mean: [0.0; 4],
            std: [1.0; 4],
            scale: 1.0,
            shuffle: false,
            seed: 0,
            round_batch: true,
            part_index: 0,
            num_parts: 1,
            preprocess_threads: 4,
            prefetch_buffer: 4,
            pad: 0,
            fill_value: 255,
            inter_method: 1,
            affine: Affine::default(),
            crop_size: None,
            random_resized_crop: false,
            min_random_area: 1.0,
            max_random_area: 1.0,
            brightness: 0.0,
            contrast: 0.0,
            saturation: 0.0,
            pca_noise: 0.0,
            max_random_contrast: 0.0,
            max_random_illumination: 0.0,
            mean_img: None,
            dtype: DType::F32,
            random_h: 0,
            random_s: 0,
            random_l: 0,
        }
    }
}

const ITER: &str = "ImageRecordIter";

fn parse<T: std::str::FromStr>(key: &str, value: &str) -> Result<T> {
    Ok(kiln_io::kwargs::value(ITER, key, value)?)
}

/// An HLS offset bound, within the channel's range (hue 0..=180, the others 0..=255).
fn hls_range(key: &str, value: &str, max: i32) -> Result<i32> {
    let v: i32 = parse(key, value)?;
    if !(0..=max).contains(&v) {
        return Err(Error::Input(format!(
            "ImageRecordIter: {key}={v}: within 0..={max}"
        )));
    }
    Ok(v)
}

fn boolean(key: &str, value: &str) -> Result<bool> {
    Ok(kiln_io::kwargs::boolean(ITER, key, value)?)
}

/// Parameters MXNet's iterator has that kiln's does not apply: refused by name rather than
/// ignored. (`shuffle_chunk_size` shuffles chunks of a file read in pieces; kiln maps the
/// whole file.)
const NOT_BUILT: &[&str] = &["shuffle_chunk_size"];

impl ImageRecordParams {
    /// The parameters `pairs` set over the defaults; `path_imgrec`, `data_shape` and
    /// `batch_size` are required.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Result<ImageRecordParams> {
        let mut p = ImageRecordParams::default();
        let (mut rec, mut shape, mut batch) = (false, false, false);
        let (mut min_crop, mut max_crop) = (-1i64, -1i64);
        for &(key, value) in pairs {
            match key {
                "path_imgrec" => (p.path_imgrec, rec) = (value.into(), true),
                "path_imgidx" => p.path_imgidx = (!value.is_empty()).then(|| value.into()),
                "path_imglist" => p.path_imglist = (!value.is_empty()).then(|| value.into()),
                "data_shape" => {
                    match kiln_io::kwargs::shape(ITER, key, value)?[..] {
                        [c @ (1 | 3 | 4), h, w] => p.data_shape = [c, h, w],
                        _ => {
                            return Err(Error::Input(format!(
                                "ImageRecordIter: data_shape={value}: (channels, height, width) with 1, 3 or 4 channels"
                            )))
                        }
                    }
                    shape = true;
                }
                "batch_size" => (p.batch_size, batch) = (parse(key, value)?, true),
                "label_width" => p.label_width = parse(key, value)?,
                "resize" => {
                    let r: i64 = parse(key, value)?;
                    p.resize = (r > 0).then_some(r as usize);
                }
                "rand_crop" => p.rand_crop = boolean(key, value)?,
                "rand_mirror" => p.rand_mirror = boolean(key, value)?,
                "mirror" => p.mirror = boolean(key, value)?,
                "mean_r" => p.mean[0] = parse(key, value)?,
                "mean_g" => p.mean[1] = parse(key, value)?,
                "mean_b" => p.mean[2] = parse(key, value)?,
                "mean_a" => p.mean[3] = parse(key, value)?,
                "std_r" => p.std[0] = parse(key, value)?,
                "std_g" => p.std[1] = parse(key, value)?,
                "std_b" => p.std[2] = parse(key, value)?,
                "std_a" => p.std[3] = parse(key, value)?,
                "scale" => p.scale = parse(key, value)?,
                "shuffle" => p.shuffle = boolean(key, value)?,
                "seed" => p.seed = parse(key, value)?,
                "round_batch" => p.round_batch = boolean(key, value)?,
                "part_index" => p.part_index = parse(key, value)?,
                "num_parts" => p.num_parts = parse(key, value)?,
                "preprocess_threads" => p.preprocess_threads = parse(key, value)?,
                "prefetch_buffer" => p.prefetch_buffer = parse(key, value)?,
                "pad" => p.pad = parse(key, value)?,
                "fill_value" => p.fill_value = parse(key, value)?,
                "inter_method" => p.inter_method = parse(key, value)?,
                "max_rotate_angle" => p.affine.max_rotate_angle = parse(key, value)?,
                "rotate" => p.affine.rotate = parse(key, value)?,
                "rotate_list" => {
                    p.affine.rotate_list = value
                        .split(',')
                        .filter(|a| !a.trim().is_empty())
                        .map(|a| parse(key, a.trim()))
                        .collect::<Result<_>>()?
                }
                "max_shear_ratio" => p.affine.max_shear_ratio = parse(key, value)?,
                "max_random_scale" => p.affine.max_random_scale = parse(key, value)?,
                "min_random_scale" => p.affine.min_random_scale = parse(key, value)?,
                "max_aspect_ratio" => p.affine.max_aspect_ratio = parse(key, value)?,
                "min_aspect_ratio" => {
                    p.affine.min_aspect_ratio = match value {
                        "None" | "" => None,
                        v => Some(parse(key, v)?),
                    }
                }
                "max_img_size" => p.affine.max_img_size = parse(key, value)?,
                "min_img_size" => p.affine.min_img_size = parse(key, value)?,
                "max_crop_size" => max_crop = parse(key, value)?,
                "random_resized_crop" => p.random_resized_crop = boolean(key, value)?,
                "min_random_area" => p.min_random_area = parse(key, value)?,
                "max_random_area" => p.max_random_area = parse(key, value)?,
                "brightness" => p.brightness = parse(key, value)?,
                "contrast" => p.contrast = parse(key, value)?,
                "saturation" => p.saturation = parse(key, value)?,
                "pca_noise" => p.pca_noise = parse(key, value)?,
                "max_random_contrast" => p.max_random_contrast = parse(key, value)?,
                "max_random_illumination" => p.max_random_illumination = parse(key, value)?,
                "mean_img" => p.mean_img = (!value.is_empty()).then(|| value.into()),
                "dtype" => {
                    p.dtype = match value.trim_matches(|c| c == '\'' || c == '"') {
                        "float32" => DType::F32,
                        "uint8" => DType::U8,
                        "int8" => DType::I8,
                        other => {
                            return Err(Error::Input(format!(
                                "ImageRecordIter: dtype={other}: float32, uint8 or int8"
                            )))
                        }
                    }
                }
                "random_h" => p.random_h = hls_range(key, value, 180)?,
                "random_s" => p.random_s = hls_range(key, value, 255)?,
                "random_l" => p.random_l = hls_range(key, value, 255)?,
                "min_crop_size" => min_crop = parse(key, value)?,
                // Logging does not change the batches.
                "verbose" => {
                    boolean(key, value)?;
                }
                _ if NOT_BUILT.contains(&key) => {
                    return Err(Error::Input(format!(
                        "ImageRecordIter: `{key}` is an MXNet parameter kiln does not apply yet"
                    )))
                }
                _ => {
                    return Err(Error::Input(format!(
                        "ImageRecordIter has no parameter `{key}`"
                    )))
                }
            }
        }
        for (given, name) in [
            (rec, "path_imgrec"),
            (shape, "data_shape"),
            (batch, "batch_size"),
        ] {
            if !given {
                return Err(kiln_io::kwargs::required(ITER, name).into());
            }
        }
        let [_, h, w] = p.data_shape;
        if h.checked_mul(w)
            .is_none_or(|pixels| pixels > crate::decode::MAX_PIXELS)
        {
            return Err(Error::Input(format!(
                "ImageRecordIter: data_shape {:?}: at most {} pixels an image",
                p.data_shape,
                crate::decode::MAX_PIXELS
            )));
        }
        if p.batch_size == 0 || p.num_parts == 0 || p.part_index >= p.num_parts {
            return Err(Error::Input(format!(
                "ImageRecordIter: batch_size {} must be positive and part_index {} below num_parts {}",
                p.batch_size, p.part_index, p.num_parts
            )));
        }
        if min_crop != -1 || max_crop != -1 {
            if min_crop < 1 || max_crop < min_crop {
                return Err(Error::Input(format!(
                    "ImageRecordIter: min_crop_size={min_crop}, max_crop_size={max_crop}: both positive, min at most max"
                )));
            }
            p.crop_size = Some((min_crop as usize, max_crop as usize));
        }
        let (min_ar, max_ar) = p.affine.aspect_range();
        let a = &p.affine;
        if a.max_rotate_angle < 0
            || a.min_random_scale > a.max_random_scale
            || min_ar > max_ar
            || a.min_random_scale <= 0.0
            || min_ar <= 0.0
        {
            return Err(Error::Input(format!(
                "ImageRecordIter: max_rotate_angle {} must not be negative, min_random_scale {} positive and at most max_random_scale {}, and the aspect ratio range {min_ar}..{max_ar} positive and ordered",
                a.max_rotate_angle, a.min_random_scale, a.max_random_scale
            )));
        }
        if p.random_resized_crop
            && (a.min_random_scale != 1.0
                || a.max_random_scale != 1.0
                || p.crop_size.is_some()
                || p.rand_crop
                || p.min_random_area > p.max_random_area
                || p.min_random_area <= 0.0)
        {
            return Err(Error::Input(
                "ImageRecordIter: random_resized_crop conflicts with min_random_scale, max_random_scale, min_crop_size, max_crop_size and rand_crop, and needs 0 < min_random_area <= max_random_area".into(),
            ));
        }
        if !matches!(p.inter_method, 0..=4 | 9 | 10) {
            return Err(Error::Input(format!(
                "ImageRecordIter: inter_method={}: 0 (nearest), 1 (bilinear), 2 (cubic), 3 (area), 4 (Lanczos), 9 (by size) or 10 (random)",
                p.inter_method
            )));
        }
        if p.affine.active(p.random_resized_crop) && matches!(p.inter_method, 0 | 2 | 4 | 10) {
            // MXNet refuses 0 here; kiln's warp is bilinear (area warps bilinearly in
            // OpenCV too), so the cubic and Lanczos choices are refused.
            return Err(Error::Input(format!(
                "ImageRecordIter: inter_method={} with an affine augmentation: 1, 3 or 9 (kiln's warp is bilinear; MXNet refuses 0)",
                p.inter_method
            )));
        }
        Ok(p)
    }
}
