//! ImageRecordIter's parameters by MXNet's names, from `KEY=VALUE` pairs as Python writes
//! them (`data_shape=(3,224,224)`, `shuffle=True`, `mean_r=123.68`).

use crate::{Error, Result};
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
        }
    }
}

const ITER: &str = "ImageRecordIter";

fn parse<T: std::str::FromStr>(key: &str, value: &str) -> Result<T> {
    Ok(kiln_io::kwargs::value(ITER, key, value)?)
}

fn boolean(key: &str, value: &str) -> Result<bool> {
    Ok(kiln_io::kwargs::boolean(ITER, key, value)?)
}

/// Parameters MXNet's iterator has that kiln's does not apply yet: refused by name rather
/// than ignored.
const NOT_BUILT: &[&str] = &[
    "mean_img",
    "max_random_scale",
    "min_random_scale",
    "max_aspect_ratio",
    "max_rotate_angle",
    "max_shear_ratio",
    "rotate",
    "rotate_list",
    "max_crop_size",
    "min_crop_size",
    "max_random_contrast",
    "max_random_illumination",
    "random_h",
    "random_s",
    "random_l",
    "brightness",
    "contrast",
    "saturation",
    "pca_noise",
    "random_resized_crop",
    "max_random_area",
    "min_random_area",
    "max_img_size",
    "min_img_size",
    "shuffle_chunk_size",
    "dtype",
];

impl ImageRecordParams {
    /// The parameters `pairs` set over the defaults; `path_imgrec`, `data_shape` and
    /// `batch_size` are required.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Result<ImageRecordParams> {
        let mut p = ImageRecordParams::default();
        let (mut rec, mut shape, mut batch) = (false, false, false);
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
        if p.batch_size == 0 || p.num_parts == 0 || p.part_index >= p.num_parts {
            return Err(Error::Input(format!(
                "ImageRecordIter: batch_size {} must be positive and part_index {} below num_parts {}",
                p.batch_size, p.part_index, p.num_parts
            )));
        }
        if p.inter_method != 1 {
            return Err(Error::Input(format!(
                "ImageRecordIter: inter_method={} (kiln resizes bilinearly, inter_method=1, so far)",
                p.inter_method
            )));
        }
        Ok(p)
    }
}
