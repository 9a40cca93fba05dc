//! MXNet's Python `mx.image.ImageIter` over a `.lst` file and a folder of images
//! (`path_imglist`, `path_root`): batches of float32 NCHW RGB images with their labels.
//!
//! - **Order.** The list's lines in file order (`part_index` of `num_parts` shares of
//!   `n / num_parts` lines each, as MXNet cuts them), shuffled per epoch with `shuffle`
//!   from the Philox stream of (`seed`, epoch) — MXNet shuffles its list in place with
//!   Python's `random` — where epoch 0 is the one a new iterator starts.
//! - **Batches.** MXNet's reading state machine (`batching.rs`), so `pad`, `discard` and
//!   `roll_over` give MXNet's rows and `pad`, quirks included. Rows MXNet leaves unfilled
//!   (a padded batch more than twice the list) are zeros, with label 0 where MXNet's is
//!   uninitialized memory.
//! - **Each image** is read from `path_root/path`, decoded to RGB (`decode`), and run
//!   through CreateAugmenter's augmenters (`augmenter.rs`). An image that cannot be read,
//!   decoded or augmented is an error naming the list, its line and the image's path, at
//!   the batch that holds it (a batch carried over with `roll_over` reads its images when
//!   the next epoch hands it out, not when MXNet would).
//! - **Labels** come from the list: every line must hold `label_width` of them (MXNet
//!   broadcasts one label over a wider row and fails on other counts), and indices must be
//!   unique (MXNet keeps the last line of an index for every line that has it). A label of
//!   width 1 is squeezed to shape (batch,), as MXNet's.
//!
//! Images are made one after the other on the caller's thread, as MXNet's Python iterator
//! makes them; wrap it in kiln-io's `PrefetchingIter` to make the next batch while the
//! current one is used.

mod augmenter;
mod batching;
mod params;

pub use params::ImageIterParams;

use crate::augment::Draws;
use crate::{decode, Error, Result};
use batching::{Batcher, Sample};
use kiln_io::{DataBatch, DataDesc, DataIter};
use kiln_ops::DType;
use kiln_runtime::NDArray;
use std::collections::HashMap;

/// A line of the list.
struct Entry {
    /// Its line number in the list, from 1.
    line: usize,
    labels: Vec<f32>,
    /// The image's path relative to `path_root`.
    path: String,
}

pub struct ImageIter {
    params: ImageIterParams,
    entries: Vec<Entry>,
    batcher: Batcher,
}

impl ImageIter {
    /// Reads the list (every line checked now); images are read as batches need them.
    pub fn new(params: ImageIterParams) -> Result<ImageIter> {
        let list = &params.path_imglist;
        let text =
            std::fs::read(list).map_err(|e| Error::Input(format!("{}: {e}", list.display())))?;
        let at = |line: usize, what: String| {
            Error::Io(kiln_io::Error::Line {
                path: list.clone(),
                line,
                what,
            })
        };
        let mut entries = Vec::new();
        let mut lines_by_index: HashMap<i64, usize> = HashMap::new();
        for (line, entry) in kiln_io::read_list_lines(&text, list)? {
            if entry.labels.len() != params.label_width {
                return Err(at(
                    line,
                    format!(
                        "{} label(s) but label_width is {}",
                        entry.labels.len(),
                        params.label_width
                    ),
                ));
            }
            if let Some(first) = lines_by_index.insert(entry.index, line) {
                return Err(at(
                    line,
                    format!("index {} is on line {first} too", entry.index),
                ));
            }
            entries.push(Entry {
                line,
                labels: entry.labels,
                path: entry.path,
            });
        }
        let (part, parts) = (params.part_index, params.num_parts);
        if parts > 1 {
            // MXNet's cut: equal shares of n / parts lines, the remainder dropped.
            let share = entries.len() / parts;
            entries = entries.drain(..).skip(part * share).take(share).collect();
        }
        if entries.is_empty() {
            return Err(Error::Input(format!(
                "{}: no images (in part {part} of {parts})",
                list.display()
            )));
        }
        let [c, h, w] = params.data_shape;
        let batch_values = [params.batch_size, c, h, w]
            .iter()
            .try_fold(1usize, |n, &d| {
                n.checked_mul(d)
                    .filter(|&n| n <= kiln_ops::shape::MAX_ELEMENTS)
            });
        if batch_values.is_none() {
            return Err(Error::Input(format!(
                "ImageIter: a batch of {} images of {:?} is too large",
                params.batch_size, params.data_shape
            )));
        }
        let order = order(&params, entries.len(), 0);
        let batcher = Batcher::new(params.batch_size, params.last_batch_handle, order);
        Ok(ImageIter {
            params,
            entries,
            batcher,
        })
    }

    /// The images an epoch reads (this part's lines).
    pub fn num_images(&self) -> usize {
        self.entries.len()
    }

    /// Reads, decodes and augments `sample`'s image into `out`, its labels into `label`.
    fn make(&self, sample: Sample, out: &mut [f32], label: &mut [f32]) -> kiln_io::Result<()> {
        let p = &self.params;
        let entry = &self.entries[sample.entry];
        let path = p.path_root.join(&entry.path);
        let at = |what: String| kiln_io::Error::Line {
            path: p.path_imglist.clone(),
            line: entry.line,
            what: format!("image {}: {what}", path.display()),
        };
        let bytes = std::fs::read(&path).map_err(|e| at(e.to_string()))?;
        let image = decode(&bytes, 3).map_err(|e| at(e.to_string()))?;
        let mut draws = Draws::new(p.seed, sample.epoch, sample.position);
        augmenter::augment(&image, p, &mut draws, out)
            .map_err(|e| at(format!("{}×{}: {e}", image.width, image.height)))?;
        label.copy_from_slice(&entry.labels);
        Ok(())
    }
}

/// The entries' order in epoch `epoch`.
fn order(p: &ImageIterParams, n: usize, epoch: u64) -> Vec<usize> {
    match p.shuffle {
        true => kiln_io::permutation(n, p.seed, epoch),
        false => (0..n).collect(),
    }
}

/// `len` zeros, reserved fallibly (the sizes come from the parameters).
fn zeros(len: usize) -> kiln_io::Result<Vec<f32>> {
    let mut values = Vec::new();
    values.try_reserve_exact(len).map_err(|_| {
        kiln_io::Error::Input(format!(
            "ImageIter: cannot allocate a batch of {len} values"
        ))
    })?;
    values.resize(len, 0.0);
    Ok(values)
}

impl DataIter for ImageIter {
    fn provide_data(&self) -> Vec<DataDesc> {
        let p = &self.params;
        let [c, h, w] = p.data_shape;
        vec![DataDesc {
            name: p.data_name.clone(),
            shape: vec![p.batch_size, c, h, w],
            dtype: DType::F32,
        }]
    }

    fn provide_label(&self) -> Vec<DataDesc> {
        let p = &self.params;
        let shape = match p.label_width {
            1 => vec![p.batch_size],
            w => vec![p.batch_size, w],
        };
        vec![DataDesc {
            name: p.label_name.clone(),
            shape,
            dtype: DType::F32,
        }]
    }

    fn batch_size(&self) -> usize {
        self.params.batch_size
    }

    fn reset(&mut self) {
        let epoch = self.batcher.epoch() + 1;
        let order = order(&self.params, self.entries.len(), epoch);
        self.batcher.reset(order);
    }

    fn next_batch(&mut self) -> kiln_io::Result<Option<DataBatch>> {
        let Some((samples, pad)) = self.batcher.next_batch() else {
            return Ok(None);
        };
        let (data_desc, label_desc) = (&self.provide_data()[0], &self.provide_label()[0]);
        let width = self.params.label_width;
        let mut data = zeros(data_desc.shape.iter().product())?;
        let mut label = zeros(self.params.batch_size * width)?;
        let image_len = data.len() / self.params.batch_size;
        let rows = data
            .chunks_exact_mut(image_len)
            .zip(label.chunks_exact_mut(width));
        for ((out, label), &sample) in rows.zip(&samples) {
            self.make(sample, out, label)?;
        }
        Ok(Some(DataBatch {
            data: vec![NDArray::from_slice(&data, &data_desc.shape)?],
            label: vec![NDArray::from_slice(&label, &label_desc.shape)?],
            pad,
        }))
    }
}
