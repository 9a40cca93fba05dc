//! MXNet's MNISTIter over MNIST's idx files: images (`0x0803`: count, rows, columns, then
//! bytes) scaled by 1/256 as MXNet scales them, labels (`0x0801`), batches of
//! (batch, 1, rows, columns) — (batch, rows·columns) with `flat` — of which only full ones
//! are served (MXNet drops the remainder), `part_index` of `num_parts` as MXNet splits the
//! file. `shuffle` (MXNet's default) permutes the images once, when the iterator is made,
//! as MXNet does — from kiln's Philox stream of the seed, so the order is not MXNet's.

use crate::{DataBatch, DataDesc, DataIter, Error, LastBatch, NDArrayIter, Result};
use kiln_runtime::NDArray;
use std::path::{Path, PathBuf};

/// An idx file of bytes: its dimensions and values; errors name `path`.
pub fn read_idx<'a>(bytes: &'a [u8], path: &Path) -> Result<(Vec<usize>, &'a [u8])> {
    let bad = |what: String| Error::Input(format!("{}: {what}", path.display()));
    let word = |i: usize| -> Option<u32> {
        let b = bytes.get(4 * i..4 * i + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let magic = word(0).ok_or_else(|| bad(format!("{} bytes: not an idx file", bytes.len())))?;
    let (kind, rank) = (magic >> 8, (magic & 0xFF) as usize);
    if kind != 0x08 || rank == 0 || rank > 4 {
        return Err(bad(format!(
            "magic {magic:#010x} is not an idx file of bytes (0x00000801 to 0x00000804)"
        )));
    }
    let dims: Vec<usize> = (1..=rank)
        .map(|i| word(i).map(|d| d as usize))
        .collect::<Option<_>>()
        .ok_or_else(|| bad(format!("truncated: the header's {rank} dimensions")))?;
    let start = 4 * (rank + 1);
    let count = dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| start.checked_add(n).is_some_and(|end| end <= bytes.len()))
        .ok_or_else(|| {
            bad(format!(
                "dimensions {dims:?} need more than the {} bytes after the header",
                bytes.len() - start
            ))
        })?;
    Ok((dims, &bytes[start..start + count]))
}

/// MNISTIter's parameters, MXNet's names and defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct MnistParams {
    pub image: PathBuf,
    pub label: PathBuf,
    pub batch_size: usize,
    pub shuffle: bool,
    pub flat: bool,
    pub seed: u64,
    pub num_parts: usize,
    pub part_index: usize,
}

impl Default for MnistParams {
    fn default() -> MnistParams {
        MnistParams {
            image: "./train-images-idx3-ubyte".into(),
            label: "./train-labels-idx1-ubyte".into(),
            batch_size: 128,
            shuffle: true,
            flat: false,
            seed: 0,
            num_parts: 1,
            part_index: 0,
        }
    }
}

impl MnistParams {
    /// The parameters `pairs` set over the defaults (MXNet's names).
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Result<MnistParams> {
        use crate::kwargs::{boolean, unknown, value};
        const ITER: &str = "MNISTIter";
        let mut p = MnistParams::default();
        for &(key, v) in pairs {
            match key {
                "image" => p.image = v.into(),
                "label" => p.label = v.into(),
                "batch_size" => p.batch_size = value(ITER, key, v)?,
                "shuffle" => p.shuffle = boolean(ITER, key, v)?,
                "flat" => p.flat = boolean(ITER, key, v)?,
                "seed" => p.seed = value(ITER, key, v)?,
                "num_parts" => p.num_parts = value(ITER, key, v)?,
                "part_index" => p.part_index = value(ITER, key, v)?,
                // Logging and prefetching do not change the batches.
                "silent" | "prefetch_buffer" => {}
                _ => {
                    let known = [
                        "image",
                        "label",
                        "batch_size",
                        "shuffle",
                        "flat",
                        "seed",
                        "num_parts",
                        "part_index",
                    ];
                    return Err(unknown(ITER, key, &known));
                }
            }
        }
        Ok(p)
    }
}

/// MXNet's MNISTIter.
pub struct MNISTIter(NDArrayIter);

impl MNISTIter {
    pub fn new(p: &MnistParams) -> Result<MNISTIter> {
        if p.num_parts == 0 || p.part_index >= p.num_parts || p.batch_size == 0 {
            return Err(Error::Input(format!(
                "MNISTIter: batch_size {} must be positive and part_index {} below num_parts {}",
                p.batch_size, p.part_index, p.num_parts
            )));
        }
        let read = |path: &Path| {
            std::fs::read(path).map_err(|e| Error::Input(format!("{}: {e}", path.display())))
        };
        let (image_bytes, label_bytes) = (read(&p.image)?, read(&p.label)?);
        let (dims, pixels) = read_idx(&image_bytes, &p.image)?;
        let [count, rows, cols] = dims[..] else {
            return Err(Error::Input(format!(
                "{}: images are count × rows × columns, not {dims:?}",
                p.image.display()
            )));
        };
        let (label_dims, labels) = read_idx(&label_bytes, &p.label)?;
        if label_dims != [count] {
            return Err(Error::Input(format!(
                "{}: {label_dims:?} labels for {count} images",
                p.label.display()
            )));
        }
        // MXNet's split: start = count / parts · index, in double precision.
        let bound = |k: usize| (count as f64 / p.num_parts as f64 * k as f64) as usize;
        let (start, end) = (bound(p.part_index), bound(p.part_index + 1));
        let n = end - start;
        let size = rows * cols;
        let mut order: Vec<usize> = (start..end).collect();
        if p.shuffle {
            let permuted = crate::permutation(n, p.seed, 0);
            order = permuted.into_iter().map(|i| start + i).collect();
        }
        let data: Vec<f32> = (order.iter())
            .flat_map(|&i| &pixels[i * size..(i + 1) * size])
            .map(|&v| f32::from(v) * (1.0 / 256.0))
            .collect();
        let label: Vec<f32> = order.iter().map(|&i| f32::from(labels[i])).collect();
        let shape = match p.flat {
            true => vec![n, size],
            false => vec![n, 1, rows, cols],
        };
        let data = NDArray::from_slice(&data, &shape)?;
        let label = NDArray::from_slice(&label, &[n])?;
        let it = NDArrayIter::new(
            vec![("data".into(), data)],
            vec![("softmax_label".into(), label)],
            p.batch_size,
        )?;
        Ok(MNISTIter(it.with_last_batch(LastBatch::Discard)))
    }
}

impl DataIter for MNISTIter {
    fn provide_data(&self) -> Vec<DataDesc> {
        self.0.provide_data()
    }
    fn provide_label(&self) -> Vec<DataDesc> {
        self.0.provide_label()
    }
    fn batch_size(&self) -> usize {
        self.0.batch_size()
    }
    fn reset(&mut self) {
        self.0.reset()
    }
    fn next_batch(&mut self) -> Result<Option<DataBatch>> {
        self.0.next_batch()
    }
}
