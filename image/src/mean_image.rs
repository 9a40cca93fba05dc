//! MXNet's `mean_img`: a mean image (channels × height × width of `data_shape`) subtracted
//! pixel by pixel instead of `mean_r/g/b`. Read from an NDArray file holding that one
//! array; where the file does not exist, ImageRecordIter computes it once over every
//! record of its part — augmented and normalized as for training (with `mean_r/g/b`), in
//! file order, summed in single precision and scaled by `1/count` as MXNet does — and
//! saves it there (whole or not at all) under MXNet's key `mean_img`.

use crate::{Error, Result};
use kiln_compiler::formats::params::{read_params, write_params, ParamFile};
use kiln_ops::{DType, Tensor};
use std::path::Path;

/// The mean image in `path`, which must hold one array of `shape`.
pub fn load(path: &Path, shape: [usize; 3]) -> Result<Vec<f32>> {
    let bad = |what: String| Error::Input(format!("mean_img {}: {what}", path.display()));
    let file = read_params(path).map_err(|e| bad(e.to_string()))?;
    let [array] = &file.arrays[..] else {
        return Err(bad(format!(
            "{} arrays (a mean image file holds one)",
            file.arrays.len()
        )));
    };
    if array.shape != shape {
        return Err(bad(format!(
            "an array of shape {:?}, not data_shape's {shape:?}",
            array.shape
        )));
    }
    Ok(array.data.iter().map(|&v| v as f32).collect())
}

/// Saves `mean` (of `shape`) to `path` as MXNet does.
pub fn save(path: &Path, shape: [usize; 3], mean: &[f32]) -> Result<()> {
    let file = ParamFile {
        arrays: vec![Tensor::new(
            DType::F32,
            shape.to_vec(),
            mean.iter().map(|&v| f64::from(v)).collect(),
        )],
        names: vec!["mean_img".into()],
    };
    write_params(path, &file).map_err(|e| Error::Input(format!("mean_img {}: {e}", path.display())))
}
