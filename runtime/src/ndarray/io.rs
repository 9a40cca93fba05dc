//! Arrays to and from files (MXNet `.params`, NumPy `.npy`) and the `ndarray` crate.

use super::{Element, NDArray};
use crate::device::Device;
use crate::{Error, Result};
use kiln_compiler::formats::{npy, params};
use kiln_compiler::ParamFile;
use std::path::Path;

impl NDArray {
    /// Saves named arrays in MXNet's `.params` format (`mx.nd.save` with a dict); pass
    /// `arg:`/`aux:` prefixed names for a checkpoint.
    pub fn save(path: impl AsRef<Path>, arrays: &[(&str, &NDArray)]) -> Result<()> {
        let mut file = ParamFile::default();
        for (name, a) in arrays {
            file.names.push(name.to_string());
            file.arrays.push(a.to_tensor()?);
        }
        Ok(params::write_params(path, &file)?)
    }

    /// Loads a `.params` file onto the CPU: `(name, array)` pairs (names are empty when an
    /// unnamed list was saved).
    pub fn load(path: impl AsRef<Path>) -> Result<Vec<(String, NDArray)>> {
        let file = params::read_params(path)?;
        let names = file
            .names
            .iter()
            .cloned()
            .chain(std::iter::repeat(String::new()));
        file.arrays
            .iter()
            .zip(names)
            .map(|(t, n)| Ok((n, NDArray::from_tensor(t, Device::Cpu)?)))
            .collect()
    }

    pub fn save_npy(&self, path: impl AsRef<Path>) -> Result<()> {
        Ok(npy::write_npy(path, &self.to_tensor()?)?)
    }

    pub fn load_npy(path: impl AsRef<Path>) -> Result<NDArray> {
        NDArray::from_tensor(&npy::read_npy(path)?, Device::Cpu)
    }

    /// The values as an `ndarray` array (waits for pending writes).
    pub fn to_ndarray<T: Element>(&self) -> Result<ndarray::ArrayD<T>> {
        let values = self.to_vec::<T>()?;
        ndarray::ArrayD::from_shape_vec(self.shape().to_vec(), values)
            .map_err(|e| Error::Input(e.to_string()))
    }

    /// An array holding an `ndarray` array's values (any memory layout) on the CPU.
    pub fn from_ndarray<T: Element>(a: &ndarray::ArrayD<T>) -> Result<NDArray> {
        let values: Vec<T> = a.iter().copied().collect();
        NDArray::from_slice(&values, a.shape())
    }
}
