//! Helpers shared by the integration tests: fixture paths and tolerant comparison.

#![allow(dead_code)]

use kiln::compiler::formats::params::{read_params, ParamFile};
use kiln::ops::compare;
use kiln::{DType, Tensor};
use std::path::PathBuf;

pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

pub fn params(rel: &str) -> ParamFile {
    read_params(fixture(rel)).unwrap_or_else(|e| panic!("{e}"))
}

/// Relative tolerance for comparing the f64 oracle (rounded to `dtype`) with MXNet, which
/// computes in the storage dtype.
pub fn tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::F64 => 1e-9,
        DType::F32 => 1e-4,
        DType::F16 => 4e-3,
        DType::BF16 => 3e-2,
        _ => 0.0,
    }
}

/// `None` when `got` matches `want` elementwise within `rtol` (relative to each value, with
/// an absolute floor of `rtol` times the output's scale); otherwise a description.
pub fn compare(got: &Tensor, want: &Tensor, rtol: f64) -> Option<String> {
    let scale = compare::scale(&want.data).max(1e-6);
    compare::same_shape(&got.shape, &want.shape)
        .and_then(|()| compare::within(&got.data, &want.data, |w| rtol * (w.abs() + scale)))
        .err()
        .map(|e| format!("{e} (scale {scale:.3e}, rtol {rtol:.0e})"))
}
