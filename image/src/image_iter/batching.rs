//! Which list lines make each batch: MXNet 1.9.1's `ImageIter.next`, `_batchify` and
//! `next_sample` step for step (a cursor into the epoch's order, a flag that stops reading
//! after a padded batch, a batch cached across the end of an epoch with `roll_over`), over
//! line numbers only; the images are read once a batch's lines are known.
//!
//! Its quirks are MXNet's: `pad` reads the missing rows from the start of the same epoch's
//! order, and leaves rows unfilled when the batch is more than twice the list; `roll_over`
//! carries a short last batch into the next epoch, reports as `pad` the rows the new epoch
//! filled, and an epoch that carried rows in may read its order more than once. One
//! difference: once an epoch has ended, kiln's returns nothing more until `reset` (MXNet's
//! may start reading again from its cursor).

use kiln_io::LastBatch;

/// A sample: a line of the list (an index into the entries), and where it was read —
/// the epoch and its position in that epoch — which keys its random augmentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub entry: usize,
    pub epoch: u64,
    pub position: u64,
}

/// MXNet's ImageIter's reading state.
pub struct Batcher {
    batch_size: usize,
    last_batch: LastBatch,
    /// This epoch's order of the entries (MXNet's `seq`).
    order: Vec<usize>,
    epoch: u64,
    /// Samples read this epoch (the next one's position).
    read: u64,
    /// MXNet's `cur`: the next position in `order`.
    cursor: usize,
    /// MXNet's `_allow_read`: false after a padded batch, until `reset`.
    allow_read: bool,
    /// MXNet's `_cache_data`: the short batch `roll_over` carries to the next epoch.
    carried: Option<Vec<Sample>>,
    ended: bool,
}

impl Batcher {
    /// The first epoch over `order` (not empty).
    pub fn new(batch_size: usize, last_batch: LastBatch, order: Vec<usize>) -> Batcher {
        Batcher {
            batch_size,
            last_batch,
            order,
            epoch: 0,
            read: 0,
            cursor: 0,
            allow_read: true,
            carried: None,
            ended: false,
        }
    }

    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// MXNet's `reset`: the next epoch, over `order`.
    pub fn reset(&mut self, order: Vec<usize>) {
        (self.epoch, self.read, self.order, self.ended) = (self.epoch + 1, 0, order, false);
        if self.last_batch != LastBatch::RollOver || self.carried.is_none() {
            (self.cursor, self.allow_read) = (0, true);
        }
    }

    /// MXNet's `next_sample`; `None` where it raises StopIteration.
    fn next_sample(&mut self) -> Option<Sample> {
        if !self.allow_read {
            return None;
        }
        let Some(&entry) = self.order.get(self.cursor) else {
            if self.last_batch != LastBatch::Discard {
                self.cursor = 0;
            }
            return None;
        };
        self.cursor += 1;
        self.read += 1;
        Some(Sample {
            entry,
            epoch: self.epoch,
            position: self.read - 1,
        })
    }

    /// MXNet's `_batchify`: fills `rows` up to the batch size; false where it raises
    /// StopIteration (nothing to read and `rows` empty).
    fn fill(&mut self, rows: &mut Vec<Sample>) -> bool {
        while rows.len() < self.batch_size {
            match self.next_sample() {
                Some(sample) => rows.push(sample),
                None => return !rows.is_empty(),
            }
        }
        true
    }

    /// MXNet's `next`: the next batch's samples (fewer than the batch size where MXNet
    /// leaves rows unfilled) and its pad, or `None` at the end of the epoch.
    pub fn next_batch(&mut self) -> Option<(Vec<Sample>, usize)> {
        if self.ended {
            return None;
        }
        let (mut rows, carried) = match self.carried.take() {
            Some(rows) => (rows, true),
            None => {
                let mut rows = Vec::with_capacity(self.batch_size);
                if !self.fill(&mut rows) {
                    self.ended = true;
                    return None;
                }
                (rows, false)
            }
        };
        let pad = self.batch_size - rows.len();
        if pad != 0 {
            match self.last_batch {
                LastBatch::Discard => {
                    self.ended = true;
                    return None;
                }
                LastBatch::RollOver if !carried => {
                    self.carried = Some(rows);
                    self.ended = true;
                    return None;
                }
                _ => {}
            }
            // Rows already in: this cannot be a StopIteration.
            self.fill(&mut rows);
            if self.last_batch == LastBatch::Pad {
                self.allow_read = false;
            }
        }
        Some((rows, pad))
    }
}
