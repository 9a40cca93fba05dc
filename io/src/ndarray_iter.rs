//! MXNet's `NDArrayIter`: batches of arrays held in memory.
//!
//! The batching follows MXNet 1.9.1's cursor arithmetic step for step, so the batches, their
//! rows and their `pad` are MXNet's in every `last_batch_handle` mode, including the
//! rolled-over batch's `pad` (the number of rows carried from the previous epoch). A batch
//! of consecutive rows is a view of the arrays; any other (padded, rolled over, shuffled)
//! is gathered by the `take` operator on the engine.
//!
//! Shuffling differs from MXNet on purpose: MXNet reshuffles its copy of the data with
//! numpy's global generator at each reset (so the order depends on everything else that
//! drew from it); kiln draws epoch `e`'s order from the Philox stream of (seed, e), a
//! Fisher-Yates permutation of the rows, so an order can be recomputed from the epoch alone
//! (a resumed run sees the batches an uninterrupted one would). MXNet shuffles at
//! construction too: the first epoch is epoch 0.

use crate::iter::{DataBatch, DataDesc, DataIter, LastBatch};
use crate::{Error, Result};
use kiln_ops::random::{key, philox4x32};
use kiln_ops::shape::fmt_shape;
use kiln_runtime::NDArray;

/// Iterates named arrays (the first axis is the batch axis) in batches.
pub struct NDArrayIter {
    data: Vec<(String, NDArray)>,
    label: Vec<(String, NDArray)>,
    batch_size: usize,
    last_batch: LastBatch,
    shuffle: Option<u64>,
    epoch: u64,
    /// The rows in this epoch's order.
    order: Vec<usize>,
    /// MXNet's cursor: the first row of the current batch, negative while a batch rolled
    /// over from the previous epoch is being filled.
    cursor: i64,
    /// The rows of the short batch the previous epoch ended on (MXNet's cache).
    carried: Option<Vec<usize>>,
}

impl NDArrayIter {
    /// Iterates `data` and `label` (named arrays with as many rows each) in batches of
    /// `batch_size`, padding the last batch, in order: MXNet's defaults.
    pub fn new(
        data: Vec<(String, NDArray)>,
        label: Vec<(String, NDArray)>,
        batch_size: usize,
    ) -> Result<NDArrayIter> {
        let Some((first, rows)) = data.first().map(|(n, a)| (n, a.shape().first())) else {
            return Err(Error::Input("NDArrayIter: no data arrays".into()));
        };
        let rows = match rows {
            Some(&r) if r > 0 => r,
            _ => {
                return Err(Error::Input(format!(
                    "NDArrayIter: `{first}` has no rows (shape {})",
                    fmt_shape(data[0].1.shape())
                )))
            }
        };
        if batch_size == 0 {
            return Err(Error::Input(
                "NDArrayIter: batch_size must be positive".into(),
            ));
        }
        let all = data.iter().chain(&label);
        for (i, (name, array)) in all.clone().enumerate() {
            if array.shape().first() != Some(&rows) {
                return Err(Error::Input(format!(
                    "NDArrayIter: `{name}` has shape {} but `{first}` has {rows} rows",
                    fmt_shape(array.shape())
                )));
            }
            if all.clone().take(i).any(|(other, _)| other == name) {
                return Err(Error::Input(format!(
                    "NDArrayIter: two arrays are named `{name}`"
                )));
            }
        }
        Ok(NDArrayIter {
            data,
            label,
            batch_size,
            last_batch: LastBatch::Pad,
            shuffle: None,
            epoch: 0,
            order: (0..rows).collect(),
            cursor: -(batch_size as i64),
            carried: None,
        })
    }

    /// What to do with a short last batch (MXNet's `last_batch_handle`).
    pub fn with_last_batch(mut self, last_batch: LastBatch) -> NDArrayIter {
        self.last_batch = last_batch;
        self.restart();
        self
    }

    /// Shuffles the rows each epoch, from `seed` (MXNet's `shuffle=True`).
    pub fn with_shuffle(mut self, seed: u64) -> NDArrayIter {
        self.shuffle = Some(seed);
        self.restart();
        self
    }

    /// Starts at epoch `epoch`, as a run resumed there needs: the iterator is where one
    /// reset `epoch` times after iterating each epoch would be — that epoch's shuffled
    /// order, and with roll_over the rows the epoch before carried.
    pub fn with_epoch(mut self, epoch: u64) -> NDArrayIter {
        self.epoch = epoch;
        self.restart();
        self
    }

    /// Goes to the start of epoch `self.epoch` from the first, replaying each epoch's
    /// cursor arithmetic (gathering only the rows a roll_over carries). A setting that
    /// fails to iterate (roll_over of too few rows) stops where the iteration would fail,
    /// so the next batch reports it.
    fn restart(&mut self) {
        let target = self.epoch;
        let bs = self.batch_size as i64;
        self.epoch = 0;
        self.order = self.order_of(0);
        self.cursor = -bs;
        self.carried = None;
        while self.epoch < target {
            loop {
                self.cursor += bs;
                if self.cursor >= self.rows() {
                    break;
                }
                if self.cursor < 0 || self.cursor + bs > self.rows() {
                    match self.batch_rows() {
                        Ok(rows) if rows.len() != self.batch_size => {
                            self.carried = Some(rows);
                            break;
                        }
                        Ok(_) => {}
                        // Not dropped: the cursor stops where iterating fails, so the
                        // next batch raises this error again, with its message.
                        Err(_) => {
                            self.cursor -= bs;
                            return;
                        }
                    }
                }
            }
            self.reset();
        }
    }

    /// The rows in epoch `epoch`'s order.
    fn order_of(&self, epoch: u64) -> Vec<usize> {
        let n = self.order.len();
        match self.shuffle {
            Some(seed) => permutation(n, seed, epoch),
            None => (0..n).collect(),
        }
    }

    /// The number of rows (samples) iterated.
    pub fn num_data(&self) -> usize {
        self.order.len()
    }

    /// The batches of an epoch: with `pad` every row's, else the full ones (a roll_over
    /// epoch that completes a carried batch has one more).
    pub fn batches_per_epoch(&self) -> usize {
        match self.last_batch {
            LastBatch::Pad => self.order.len().div_ceil(self.batch_size),
            _ => self.order.len() / self.batch_size,
        }
    }

    fn rows(&self) -> i64 {
        self.order.len() as i64
    }

    /// The rows of the batch at the cursor, as MXNet's `_batchify`.
    fn batch_rows(&mut self) -> Result<Vec<usize>> {
        let (n, bs, cursor) = (self.rows(), self.batch_size as i64, self.cursor);
        let order = &self.order;
        if self.last_batch == LastBatch::RollOver && -bs < cursor && cursor < 0 {
            let end = (cursor + bs) as usize;
            if end > order.len() {
                return Err(Error::Input(format!(
                    "NDArrayIter: roll_over cannot fill a batch of {bs} from {n} rows (MXNet fails here too)"
                )));
            }
            let mut rows = self.carried.take().ok_or_else(|| {
                Error::Input("NDArrayIter: a rolled-over batch without carried rows".into())
            })?;
            rows.extend_from_slice(&order[..end]);
            return Ok(rows);
        }
        let start = cursor as usize;
        if self.last_batch == LastBatch::Pad && cursor + bs > n {
            let pad = (cursor + bs - n) as usize;
            let mut rows = order[start..].to_vec();
            for _ in 0..pad / order.len() {
                rows.extend_from_slice(order);
            }
            rows.extend_from_slice(&order[..pad % order.len()]);
            return Ok(rows);
        }
        Ok(order[start..(cursor + bs).min(n) as usize].to_vec())
    }

    fn pad(&self) -> usize {
        let (n, bs, cursor) = (self.rows(), self.batch_size as i64, self.cursor);
        match self.last_batch {
            LastBatch::Pad if cursor + bs > n => (cursor + bs - n) as usize,
            LastBatch::RollOver if -bs < cursor && cursor < 0 => (-cursor) as usize,
            _ => 0,
        }
    }
}

/// `array`'s rows `rows`, in that order: a view where they are consecutive.
fn gather(array: &NDArray, rows: &[usize]) -> Result<NDArray> {
    let first = rows[0];
    if rows.iter().enumerate().all(|(i, &r)| r == first + i) {
        return Ok(array.slice(first, first + rows.len())?);
    }
    let indices: Vec<i64> = rows.iter().map(|&r| r as i64).collect();
    let indices = NDArray::from_slice(&indices, &[rows.len()])?;
    let mut out = NDArray::op("take")
        .arg(array)
        .arg(&indices)
        .attr("axis", "0")
        .build()
        .map_err(kiln_runtime::Error::from)?;
    Ok(out.swap_remove(0))
}

fn describe(arrays: &[(String, NDArray)], batch_size: usize) -> Vec<DataDesc> {
    (arrays.iter())
        .map(|(name, a)| {
            let mut shape = a.shape().to_vec();
            shape[0] = batch_size;
            DataDesc {
                name: name.clone(),
                shape,
                dtype: a.dtype(),
            }
        })
        .collect()
}

/// A Fisher-Yates permutation of `0..n` drawn from the Philox stream of (`seed`, `epoch`):
/// how kiln's iterators shuffle an epoch.
pub fn permutation(n: usize, seed: u64, epoch: u64) -> Vec<usize> {
    let key = key(seed, epoch);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let r = philox4x32([i as u32, (i as u64 >> 32) as u32, 0, 0], key);
        let draw = (u64::from(r[0]) << 32) | u64::from(r[1]);
        let j = ((u128::from(draw) * (i as u128 + 1)) >> 64) as usize;
        order.swap(i, j);
    }
    order
}

impl DataIter for NDArrayIter {
    fn provide_data(&self) -> Vec<DataDesc> {
        describe(&self.data, self.batch_size)
    }

    fn provide_label(&self) -> Vec<DataDesc> {
        describe(&self.label, self.batch_size)
    }

    fn batch_size(&self) -> usize {
        self.batch_size
    }

    fn reset(&mut self) {
        self.epoch += 1;
        self.order = self.order_of(self.epoch);
        let (n, bs, cursor) = (self.rows(), self.batch_size as i64, self.cursor);
        self.cursor = match self.last_batch {
            LastBatch::RollOver if n - bs < cursor && cursor < n => cursor - n - bs,
            _ => -bs,
        };
    }

    fn next_batch(&mut self) -> Result<Option<DataBatch>> {
        self.cursor += self.batch_size as i64;
        if self.cursor >= self.rows() {
            return Ok(None);
        }
        let rows = self.batch_rows()?;
        if rows.len() != self.batch_size {
            // A short batch ends the epoch; roll_over carries its rows to the next one.
            self.carried = Some(rows);
            return Ok(None);
        }
        let take = |arrays: &[(String, NDArray)]| -> Result<Vec<NDArray>> {
            arrays.iter().map(|(_, a)| gather(a, &rows)).collect()
        };
        Ok(Some(DataBatch {
            data: take(&self.data)?,
            label: take(&self.label)?,
            pad: self.pad(),
        }))
    }
}
