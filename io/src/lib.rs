//! Data IO of the MXNet paper: iterators yield batches of NDArrays for a Module to train
//! on. [`DataIter`] is MXNet's iterator protocol (`provide_data`, `provide_label`, `reset`,
//! `next` with a batch's `pad`); [`NDArrayIter`] iterates arrays held in memory, with
//! MXNet's batching exactly (`pad`, `discard`, `roll_over`); [`PrefetchingIter`] makes
//! another iterator's next batch on a thread of its own. [`recordio`] reads and
//! writes MXNet's packed record files and their image records byte for byte.

mod csv_iter;
pub mod fuzz;
pub mod im2rec;
mod iter;
pub mod kwargs;
mod lst;
mod mnist;
mod ndarray_iter;
mod prefetch;
pub mod recordio;
pub mod round_batch;
mod text;

pub use csv_iter::{CSVIter, CsvParams};
pub use iter::{DataBatch, DataDesc, DataIter, LastBatch};
pub use lst::{read_list, read_list_lines, write_list, ListEntry};
pub use mnist::{read_idx, MNISTIter, MnistParams};
pub use ndarray_iter::{permutation, NDArrayIter};
pub use prefetch::PrefetchingIter;

/// What an iterator refuses or fails at.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Arrays or arguments that do not fit, named.
    #[error("{0}")]
    Input(String),
    /// A record that cannot be read: the file, the record's number in file order where
    /// known, the byte offset of the part at fault.
    #[error("{}: {}: {what}", path.display(), match record {
        Some(r) => format!("record {r}, starting at byte {offset}"),
        None => format!("the record at byte {offset}"),
    })]
    Record {
        path: std::path::PathBuf,
        record: Option<usize>,
        offset: u64,
        what: recordio::Corrupt,
    },
    /// A line of a text file (`.lst`, `.idx`, CSV) that cannot be read, numbered from 1.
    #[error("{}:{line}: {what}", path.display())]
    Line {
        path: std::path::PathBuf,
        line: usize,
        what: String,
    },
    /// The runtime failed (gathering a batch).
    #[error(transparent)]
    Runtime(#[from] kiln_runtime::Error),
    /// An image of an im2rec list that could not be packed.
    #[error(transparent)]
    Image(Box<im2rec::ImageError>),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
