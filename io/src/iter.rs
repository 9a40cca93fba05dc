//! MXNet's data iterator protocol.

use crate::{Error, Result};
use kiln_ops::DType;
use kiln_runtime::NDArray;
use std::str::FromStr;

/// A named input of a batch and its shape (the batch size first), as MXNet's `DataDesc`.
#[derive(Clone, Debug, PartialEq)]
pub struct DataDesc {
    pub name: String,
    pub shape: Vec<usize>,
    pub dtype: DType,
}

/// One batch: arrays in the order of `provide_data` and `provide_label`, and how many rows
/// at its end are padding (MXNet's `pad`: to be dropped from predictions).
#[derive(Clone, Debug)]
pub struct DataBatch {
    pub data: Vec<NDArray>,
    pub label: Vec<NDArray>,
    pub pad: usize,
}

/// MXNet's `DataIter`: batches of one size, an epoch at a time.
pub trait DataIter: Send {
    fn provide_data(&self) -> Vec<DataDesc>;
    fn provide_label(&self) -> Vec<DataDesc>;
    fn batch_size(&self) -> usize;
    /// Starts the next epoch.
    fn reset(&mut self);
    /// The next batch of this epoch, or `None` at its end.
    fn next_batch(&mut self) -> Result<Option<DataBatch>>;
}

/// What an iterator does with the rows that do not fill a last batch (MXNet's
/// `last_batch_handle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastBatch {
    /// Fill the batch with rows from the start, and say how many in `pad`.
    Pad,
    /// Drop them.
    Discard,
    /// Keep them for the first batch of the next epoch.
    RollOver,
}

impl FromStr for LastBatch {
    type Err = Error;

    fn from_str(s: &str) -> Result<LastBatch> {
        match s {
            "pad" => Ok(LastBatch::Pad),
            "discard" => Ok(LastBatch::Discard),
            "roll_over" => Ok(LastBatch::RollOver),
            _ => Err(Error::Input(format!(
                "last_batch_handle `{s}`: expected pad, discard or roll_over"
            ))),
        }
    }
}
