//! What kiln-image's tests share: the fixtures' folder and `.npy` reading through kiln's
//! own reader (`kiln_compiler::formats::npy`).

#![allow(dead_code)] // each test binary uses its part

use kiln_ops::DType;
use std::path::{Path, PathBuf};

/// A file of `tests/fixtures/data/images/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/data/images")
        .join(name)
}

/// The `.jpg` files of the fixtures' folder `folder`: (bytes, file stem), by name.
pub fn jpegs(folder: &str) -> Vec<(Vec<u8>, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture(folder))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "jpg"))
        .collect();
    files.sort();
    (files.iter())
        .map(|path| {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            (std::fs::read(path).unwrap(), stem)
        })
        .collect()
}

/// An .npy file of uint8 values: the values and the shape.
pub fn npy_u8(path: &Path) -> (Vec<u8>, Vec<usize>) {
    let t = kiln_compiler::formats::npy::read_npy(path).unwrap();
    assert_eq!(t.dtype, DType::U8, "{}", path.display());
    (t.data.iter().map(|&v| v as u8).collect(), t.shape)
}

/// An .npy file's values (float32, or whole numbers stored as uint8 or int8) as f32.
pub fn npy_f32(path: &Path) -> (Vec<f32>, Vec<usize>) {
    let t = kiln_compiler::formats::npy::read_npy(path).unwrap();
    assert!(
        matches!(t.dtype, DType::F32 | DType::U8 | DType::I8),
        "{}: {:?}",
        path.display(),
        t.dtype
    );
    (t.data.iter().map(|&v| v as f32).collect(), t.shape)
}
