//! Where `kiln train` reads its samples: arrays from `.npy` files (NDArrayIter, labels
//! checked against the network before anything is bound) or images from a RecordIO file
//! (ImageRecordIter), positioned at the epoch a run starts or resumes at.

use super::{input, Args};
use kiln::image::{ImageRecordIter, ImageRecordParams};
use kiln::io::{DataIter, NDArrayIter};
use kiln::ops::shape::fmt_shape;
use kiln::runtime::NDArray;
use kiln::{Result, Symbol};
use std::path::{Path, PathBuf};

pub(super) fn load_npy(flag: &str, path: &Path) -> Result<NDArray> {
    NDArray::load_npy(path).map_err(|e| input(format!("{flag} {}: {e}", path.display())))
}

pub(super) fn is_rec(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rec")
}

/// A training or validation iterator: arrays from .npy files, or images from a RecordIO
/// file.
pub(super) enum Data {
    Arrays(NDArrayIter),
    Images(ImageRecordIter),
}

impl Data {
    pub(super) fn iter(&self) -> &dyn DataIter {
        match self {
            Data::Arrays(it) => it,
            Data::Images(it) => it,
        }
    }

    /// The iterator scoring after every epoch: arrays as they are, images rewound to the
    /// first record for every pass.
    pub(super) fn for_validation(self) -> Box<dyn DataIter> {
        match self {
            Data::Images(it) => Box::new(Validation(it)),
            arrays => arrays.start_at(0, None).0,
        }
    }

    /// The iterator at the start of epoch `begin` (arrays shuffled from `shuffle`'s seed;
    /// images shuffle as their parameters say), and its batches per epoch.
    pub(super) fn start_at(self, begin: u64, shuffle: Option<u64>) -> (Box<dyn DataIter>, usize) {
        match self {
            Data::Arrays(mut it) => {
                if let Some(seed) = shuffle {
                    it = it.with_shuffle(seed);
                }
                let it = it.with_epoch(begin);
                let batches = it.batches_per_epoch();
                (Box::new(it), batches)
            }
            Data::Images(it) => {
                let batches = it.num_records().div_ceil(it.batch_size());
                (Box::new(it.with_epoch(begin)), batches)
            }
        }
    }
}

/// Validation images: every pass from the first record (Module.score resets the
/// iterator before a pass; moving on to the next epoch would start after the records the
/// last pass's wrapped batch took).
struct Validation(ImageRecordIter);

impl DataIter for Validation {
    fn provide_data(&self) -> Vec<kiln::io::DataDesc> {
        self.0.provide_data()
    }
    fn provide_label(&self) -> Vec<kiln::io::DataDesc> {
        self.0.provide_label()
    }
    fn batch_size(&self) -> usize {
        self.0.batch_size()
    }
    fn reset(&mut self) {
        self.0.rewind();
    }
    fn next_batch(&mut self) -> kiln::io::Result<Option<kiln::io::DataBatch>> {
        self.0.next_batch()
    }
}

/// ImageRecordIter over `path` (its `.idx` beside it when there is one) with the run's
/// batch size, --image-shape and --iter-param; validation data without the random
/// augmentations (crops, mirrors, shuffling, affine, colour and lighting jitter).
pub(super) fn image_iterator(
    args: &Args,
    flag: &str,
    path: &Path,
    training: bool,
    shard: Shard,
) -> Result<ImageRecordIter> {
    let shape = args.image_shape.as_deref().ok_or_else(|| {
        input(format!(
            "{flag} {}: images need --image-shape C,H,W",
            path.display()
        ))
    })?;
    let idx = path.with_extension("idx");
    let mut pairs: Vec<(String, String)> = vec![
        ("path_imgrec".into(), path.to_string_lossy().into_owned()),
        ("data_shape".into(), format!("({shape})")),
        ("batch_size".into(), args.batch_size.to_string()),
        ("seed".into(), args.seed.to_string()),
    ];
    if idx.exists() {
        pairs.push(("path_imgidx".into(), idx.to_string_lossy().into_owned()));
    }
    if training && args.shuffle {
        pairs.push(("shuffle".into(), "True".into()));
    }
    // Augmentations drawn at random, which validation data goes without.
    let random = [
        "rand_crop",
        "rand_mirror",
        "shuffle",
        "max_rotate_angle",
        "rotate_list",
        "max_shear_ratio",
        "max_random_scale",
        "min_random_scale",
        "max_aspect_ratio",
        "min_aspect_ratio",
        "min_crop_size",
        "max_crop_size",
        "random_resized_crop",
        "min_random_area",
        "max_random_area",
        "brightness",
        "contrast",
        "saturation",
        "pca_noise",
        "max_random_contrast",
        "max_random_illumination",
        "random_h",
        "random_s",
        "random_l",
    ];
    pairs.extend(
        (args.iter_params.iter())
            .filter(|(k, _)| training || !random.contains(&k.as_str()))
            .cloned(),
    );
    // A distributed worker reads its part, unless told which.
    let given = |name: &str| args.iter_params.iter().any(|(k, _)| k == name);
    if shard.parts > 1 && !given("num_parts") && !given("part_index") {
        pairs.push(("num_parts".into(), shard.parts.to_string()));
        pairs.push(("part_index".into(), shard.part.to_string()));
    }
    let pairs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let params = ImageRecordParams::from_pairs(&pairs)
        .map_err(|e| input(format!("{flag} {}: {e}", path.display())))?;
    ImageRecordIter::new(params).map_err(|e| input(format!("{flag}: {e}")))
}

/// The part of the data a worker of a distributed job trains on: part `part` of `parts`
/// contiguous ones, as MXNet's iterators' `part_index` and `num_parts`.
#[derive(Clone, Copy)]
pub(super) struct Shard {
    pub part: usize,
    pub parts: usize,
}

impl Shard {
    /// Rows `part · rows / parts` to `(part + 1) · rows / parts` of `array`.
    pub fn rows(self, array: &NDArray) -> Result<NDArray> {
        let rows = array.shape().first().copied().unwrap_or(0);
        let (begin, end) = (
            self.part * rows / self.parts,
            (self.part + 1) * rows / self.parts,
        );
        if begin == end {
            return Err(input(format!(
                "{rows} rows leave worker {} of {} none",
                self.part, self.parts
            )));
        }
        array.slice(begin, end)
    }
}

/// Checks that the labels (given by `flag`) have the shape the network infers for them
/// from the data's, so a wrong file is named before anything is bound.
pub(super) fn check_label(
    symbol: &Symbol,
    train: &NDArrayIter,
    given: Option<(&str, &PathBuf)>,
) -> Result<()> {
    let (Some((flag, path)), Some(label)) = (given, train.provide_label().first().cloned()) else {
        return Ok(());
    };
    let data = &train.provide_data()[0];
    let Ok(inferred) = symbol.infer_shape_partial(&[(data.name.as_str(), &data.shape)]) else {
        return Ok(()); // binding reports the network's own shape error
    };
    let position = symbol
        .list_arguments()
        .iter()
        .position(|a| *a == label.name);
    let needed = position
        .map(|i| &inferred.arguments[i])
        .filter(|s| !s.is_empty());
    match needed {
        Some(needed) if needed.as_slice() != label.shape.as_slice() => Err(input(format!(
            "{flag} {}: `{}` would be batches of shape {} but the network needs {} for data batches of {}",
            path.display(),
            label.name,
            fmt_shape(&label.shape),
            fmt_shape(needed),
            fmt_shape(&data.shape)
        ))),
        _ => Ok(()),
    }
}
