//! `im2rec`: image lists from a folder, and record files packed from a list, as MXNet's
//! `tools/im2rec.py` makes them — the same `.lst` text (a shuffled list in the same order:
//! [`python_random`] is Python's generator) and, for the same images, the same `.rec` and
//! `.idx` bytes.
//!
//! Decided differently from `im2rec.py`: an image that cannot be read is an error naming
//! the list, the entry and the file, unless the caller asks to skip such images (then they
//! are counted; `im2rec.py` prints and skips); with several threads the records keep the
//! list's order (as `im2rec.py`'s writer does); the files are written whole or not at all.
//! What becomes of an image's bytes (kept as they are with `--pass-through`, or decoded
//! and encoded again) is the caller's [`Encode`].

mod list;
mod python_random;

pub use list::{list_images, lists_for_prefix, make_lists, Folders, ListOptions};

use crate::recordio::{write_index, ImageRecord, IndexEntry, Label, RecordWriter};
use crate::{read_list, Error, ListEntry, Result};
use kiln_compiler::formats::atomic::AtomicFile;
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

/// An image file's bytes to the bytes its record stores, or why it cannot.
pub type Encode<'a> = dyn Fn(&Path, Vec<u8>) -> std::result::Result<Vec<u8>, String> + Sync + 'a;

/// How a list is packed.
#[derive(Clone, Debug)]
pub struct PackOptions {
    /// Every label column into the record (`--pack-label`); else the first only.
    pub pack_label: bool,
    /// Threads reading and encoding images (`--num-thread`).
    pub num_thread: usize,
    /// Skip images that cannot be read or encoded, counting them, instead of failing.
    pub skip_errors: bool,
}

impl Default for PackOptions {
    fn default() -> PackOptions {
        PackOptions {
            pack_label: false,
            num_thread: 1,
            skip_errors: false,
        }
    }
}

/// What packing a list wrote.
#[derive(Debug)]
pub struct Packed {
    pub rec: PathBuf,
    pub idx: PathBuf,
    pub records: usize,
    /// Images skipped (with `skip_errors`), with why.
    pub skipped: Vec<ImageError>,
}

/// An image of a list that could not be packed: the list, the entry, and why.
#[derive(Debug, thiserror::Error)]
#[error("{}: image {index} ({path}): {why}", list.display())]
pub struct ImageError {
    pub list: PathBuf,
    /// The entry's index column.
    pub index: i64,
    /// The entry's path, relative to the root.
    pub path: String,
    pub why: Unpackable,
}

/// Why an image could not be packed.
#[derive(Debug, thiserror::Error)]
pub enum Unpackable {
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The caller's [`Encode`] refused the bytes, in its words.
    #[error("{0}")]
    Encode(String),
    #[error("the list entry has no label")]
    NoLabel,
    #[error("index {0} is negative: a record's id is unsigned")]
    NegativeIndex(i64),
}

/// Images encoded at a time: bounds the memory a pack holds.
const WINDOW: usize = 256;

/// Packs the images of the list `list` (paths relative to `root`) into `.rec` and `.idx`
/// files beside it (same stem), each image's bytes through `encode`; `progress` is told
/// of each image done.
pub fn pack_list(
    list: &Path,
    root: &Path,
    options: &PackOptions,
    encode: &Encode,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Packed> {
    let io = |path: &Path, e: std::io::Error| Error::Input(format!("{}: {e}", path.display()));
    let text = std::fs::read(list).map_err(|e| io(list, e))?;
    let entries = read_list(&text, list)?;
    let (rec, idx) = (list.with_extension("rec"), list.with_extension("idx"));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.num_thread.max(1))
        .build()
        .map_err(|e| {
            Error::Input(format!(
                "im2rec: cannot start {} threads: {e}",
                options.num_thread
            ))
        })?;
    let mut writer = RecordWriter::new(AtomicFile::create(&rec).map_err(|e| io(&rec, e))?);
    let mut index = Vec::with_capacity(entries.len());
    let mut skipped = Vec::new();
    let encode_window = |window: &[ListEntry]| -> Vec<Result<Vec<u8>, ImageError>> {
        (window.par_iter())
            .map(|entry| {
                let payload =
                    record(entry, root, options.pack_label, encode).map_err(|why| ImageError {
                        list: list.to_path_buf(),
                        index: entry.index,
                        path: entry.path.clone(),
                        why,
                    });
                progress(1);
                payload
            })
            .collect()
    };
    // Each window is written while the next is encoded, so that writing (the one serial
    // part) overlaps the work; a last empty window writes the last full one.
    let mut encoded: Vec<(&ListEntry, Result<Vec<u8>, ImageError>)> = Vec::new();
    for window in entries.chunks(WINDOW).chain([&[][..]]) {
        let previous = std::mem::take(&mut encoded);
        let write = || -> Result<()> {
            for (entry, payload) in previous {
                match payload {
                    Ok(payload) => {
                        let offset = writer.write(&payload).map_err(|e| io(&rec, e))?;
                        index.push(IndexEntry {
                            key: entry.index,
                            offset,
                        });
                    }
                    Err(why) if options.skip_errors => skipped.push(why),
                    Err(why) => return Err(Error::Image(Box::new(why))),
                }
            }
            Ok(())
        };
        let (payloads, written) = pool.install(|| rayon::join(|| encode_window(window), write));
        written?;
        encoded = window.iter().zip(payloads).collect();
    }
    let mut idx_file = AtomicFile::create(&idx).map_err(|e| io(&idx, e))?;
    write_index(&mut idx_file, &index).map_err(|e| io(&idx, e))?;
    // The index last: an `.idx` beside a `.rec` describes that `.rec`.
    let mut rec_file = writer.into_inner().map_err(|e| io(&rec, e))?;
    rec_file.flush().map_err(|e| io(&rec, e))?;
    rec_file.persist().map_err(|e| io(&rec, e))?;
    idx_file.persist().map_err(|e| io(&idx, e))?;
    Ok(Packed {
        rec,
        idx,
        records: index.len(),
        skipped,
    })
}

/// The record of one list entry: `IRHeader(0, label, index, 0)` and the encoded image.
fn record(
    entry: &ListEntry,
    root: &Path,
    pack_label: bool,
    encode: &Encode,
) -> Result<Vec<u8>, Unpackable> {
    let path = root.join(&entry.path);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(source) => return Err(Unpackable::Read { path, source }),
    };
    let image = encode(&path, bytes).map_err(Unpackable::Encode)?;
    // im2rec.py packs the label columns as an array only when there are several.
    let label = match &entry.labels[..] {
        [first] => Label::Scalar(*first),
        all if pack_label => Label::Multi(all.to_vec()),
        [first, ..] => Label::Scalar(*first),
        [] => return Err(Unpackable::NoLabel),
    };
    let id = u64::try_from(entry.index).map_err(|_| Unpackable::NegativeIndex(entry.index))?;
    let record = ImageRecord {
        label,
        id,
        id2: 0,
        image: &image,
    };
    Ok(record.pack())
}
