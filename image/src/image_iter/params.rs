//! ImageIter's parameters by MXNet's names (`mx.image.ImageIter` and the keyword arguments
//! it hands to `mx.image.CreateAugmenter`), from `KEY=VALUE` pairs as Python writes them
//! (`data_shape=(3,224,224)`, `shuffle=True`, `mean=(123.68,116.28,103.53)`, `mean=True`).
//!
//! MXNet's names kiln does not apply are refused by name: reading `.rec` files (that is
//! ImageRecordIter), Python objects (`imglist`, `aug_list`), and the random colour
//! augmenters and random-sized crops (accepted at their defaults, which do nothing).
//! `inter_method` takes the codes `_get_interp_method` knows (0–4, 9, 10); MXNet fails on
//! another only when an image is resized, kiln refuses it here.

use crate::{Error, Result};
use kiln_io::{kwargs, LastBatch};
use std::path::PathBuf;

/// ImageIter's parameters, MXNet's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageIterParams {
    /// The `.lst` file: `index<TAB>label(s)<TAB>path` per image.
    pub path_imglist: PathBuf,
    /// The folder the list's paths are relative to.
    pub path_root: PathBuf,
    pub batch_size: usize,
    /// (channels, height, width); MXNet's ImageIter reads RGB: channels 3.
    pub data_shape: [usize; 3],
    pub label_width: usize,
    pub shuffle: bool,
    /// kiln's: the seed of the shuffles and random augmenters (MXNet draws from Python's
    /// global `random`).
    pub seed: u64,
    pub part_index: usize,
    pub num_parts: usize,
    pub data_name: String,
    pub label_name: String,
    pub last_batch_handle: LastBatch,
    /// The shorter edge's length after resizing (`resize=0`: none).
    pub resize: Option<usize>,
    pub rand_crop: bool,
    pub rand_mirror: bool,
    /// Per channel (r, g, b), subtracted then divided by, in single precision.
    pub mean: Option<[f32; 3]>,
    pub std: Option<[f32; 3]>,
    /// The interpolation of both resizes, `_get_interp_method`'s code: OpenCV's 0–4
    /// (nearest, bilinear, bicubic, area, Lanczos-4), 9 (bicubic to enlarge both edges,
    /// area to shrink both, bilinear otherwise), 10 (one of 0–4 drawn per resize, from
    /// kiln's seeded draws). MXNet's default is 2, bicubic.
    pub inter_method: u8,
}

impl Default for ImageIterParams {
    fn default() -> ImageIterParams {
        ImageIterParams {
            path_imglist: PathBuf::new(),
            path_root: PathBuf::new(),
            batch_size: 0,
            data_shape: [0; 3],
            label_width: 1,
            shuffle: false,
            seed: 0,
            part_index: 0,
            num_parts: 1,
            data_name: "data".into(),
            label_name: "softmax_label".into(),
            last_batch_handle: LastBatch::Pad,
            resize: None,
            rand_crop: false,
            rand_mirror: false,
            mean: None,
            std: None,
            inter_method: 2,
        }
    }
}

const ITER: &str = "ImageIter";

/// The parameters this iterator reads.
const KNOWN: &[&str] = &[
    "path_imglist",
    "path_root",
    "batch_size",
    "data_shape",
    "label_width",
    "shuffle",
    "seed",
    "part_index",
    "num_parts",
    "data_name",
    "label_name",
    "last_batch_handle",
    "dtype",
    "resize",
    "rand_crop",
    "rand_mirror",
    "mean",
    "std",
    "inter_method",
];

/// CreateAugmenter's random augmenters kiln does not have, accepted at their default.
const AUGMENTERS_NOT_BUILT: &[&str] = &[
    "rand_resize",
    "brightness",
    "contrast",
    "saturation",
    "hue",
    "pca_noise",
    "rand_gray",
];

/// ImageNet's mean and standard deviation, what `mean=True` and `std=True` mean.
const IMAGENET_MEAN: [f32; 3] = [123.68, 116.28, 103.53];
const IMAGENET_STD: [f32; 3] = [58.395, 57.12, 57.375];

fn parse<T: std::str::FromStr>(key: &str, value: &str) -> Result<T> {
    Ok(kwargs::value(ITER, key, value)?)
}

fn boolean(key: &str, value: &str) -> Result<bool> {
    Ok(kwargs::boolean(ITER, key, value)?)
}

fn refused(why: String) -> Error {
    Error::Input(format!("{ITER}: {why}"))
}

/// `mean` or `std`: `True` (ImageNet's), `None`, or one value or three, `(r,g,b)`.
fn per_channel(key: &str, value: &str, imagenet: [f32; 3]) -> Result<Option<[f32; 3]>> {
    match value.trim() {
        "True" | "true" => return Ok(Some(imagenet)),
        "None" => return Ok(None),
        _ => {}
    }
    let values: Vec<f32> = (value.trim_matches(|c| "()[] ".contains(c)).split(','))
        .filter(|v| !v.trim().is_empty())
        .map(|v| parse(key, v))
        .collect::<Result<_>>()
        .map_err(|_| {
            refused(format!(
                "{key}={value}: True, None, or 1 or 3 numbers such as (123.68,116.28,103.53)"
            ))
        })?;
    match values[..] {
        [v] => Ok(Some([v; 3])),
        [r, g, b] => Ok(Some([r, g, b])),
        _ => Err(refused(format!(
            "{key}={value}: {} values; MXNet takes 1 or 3 (one per channel)",
            values.len()
        ))),
    }
}

impl ImageIterParams {
    /// The parameters `pairs` set over the defaults; `path_imglist`, `path_root`,
    /// `data_shape` and `batch_size` are required.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Result<ImageIterParams> {
        let mut p = ImageIterParams::default();
        let mut given = Vec::new();
        for &(key, value) in pairs {
            given.push(key);
            match key {
                "path_imglist" => p.path_imglist = value.into(),
                "path_root" => p.path_root = value.into(),
                "batch_size" => p.batch_size = parse(key, value)?,
                "data_shape" => {
                    p.data_shape = match kwargs::shape(ITER, key, value)?[..] {
                        [3, h, w] => [3, h, w],
                        _ => {
                            return Err(refused(format!(
                                "data_shape={value}: (3, height, width): MXNet's ImageIter reads RGB images only"
                            )))
                        }
                    }
                }
                "label_width" => p.label_width = parse(key, value)?,
                "shuffle" => p.shuffle = boolean(key, value)?,
                "seed" => p.seed = parse(key, value)?,
                "part_index" => p.part_index = parse(key, value)?,
                "num_parts" => p.num_parts = parse(key, value)?,
                "data_name" => p.data_name = value.into(),
                "label_name" => p.label_name = value.into(),
                "last_batch_handle" => {
                    p.last_batch_handle = (value.trim().parse())
                        .map_err(|e: kiln_io::Error| refused(e.to_string()))?
                }
                // Labels are float32 whatever it says in MXNet too (its batch is
                // float32); other types only change how the list's text is parsed.
                "dtype" if value.trim() == "float32" => {}
                "dtype" => {
                    return Err(refused(format!(
                        "dtype={value}: kiln reads the list's labels as float32 only"
                    )))
                }
                "resize" => {
                    let r: i64 = parse(key, value)?;
                    p.resize = (r > 0).then_some(r as usize);
                }
                "rand_crop" => p.rand_crop = boolean(key, value)?,
                "rand_mirror" => p.rand_mirror = boolean(key, value)?,
                "mean" => p.mean = per_channel(key, value, IMAGENET_MEAN)?,
                "std" => p.std = per_channel(key, value, IMAGENET_STD)?,
                "inter_method" => p.inter_method = parse(key, value)?,
                _ if AUGMENTERS_NOT_BUILT.contains(&key) => {
                    let off = match value.trim() {
                        "False" | "false" => true,
                        v => v.parse::<f64>().is_ok_and(|v| v == 0.0),
                    };
                    if !off {
                        return Err(refused(format!(
                            "`{key}` is a CreateAugmenter parameter kiln does not apply yet (only at its default, 0/False)"
                        )));
                    }
                }
                "path_imgrec" | "path_imgidx" => {
                    return Err(refused(format!(
                        "`{key}`: kiln's ImageIter reads a .lst and image files; ImageRecordIter reads .rec files"
                    )))
                }
                "imglist" | "aug_list" => {
                    return Err(refused(format!(
                        "`{key}` is a Python object: give path_imglist and the augmenter's parameters"
                    )))
                }
                _ => return Err(kwargs::unknown(ITER, key, KNOWN).into()),
            }
        }
        for name in ["path_imglist", "path_root", "data_shape", "batch_size"] {
            if !given.contains(&name) {
                return Err(kwargs::required(ITER, name).into());
            }
        }
        p.check()?;
        Ok(p)
    }

    fn check(&self) -> Result<()> {
        if self.batch_size == 0 || self.label_width == 0 {
            return Err(refused(format!(
                "batch_size {} and label_width {} must be positive",
                self.batch_size, self.label_width
            )));
        }
        if self.num_parts == 0 || self.part_index >= self.num_parts {
            return Err(refused(format!(
                "part_index {} must be below num_parts {}",
                self.part_index, self.num_parts
            )));
        }
        if let Some(c) = (self.std.iter().flatten()).position(|&s| s == 0.0) {
            return Err(refused(format!("std of channel {c} is 0")));
        }
        if !matches!(self.inter_method, 0..=4 | 9 | 10) {
            return Err(refused(format!(
                "inter_method={} is not 0-4, 9 or 10 (MXNet's _get_interp_method: Unknown interp method)",
                self.inter_method
            )));
        }
        Ok(())
    }
}
