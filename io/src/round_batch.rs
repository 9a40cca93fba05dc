//! MXNet's BatchLoader arithmetic, shared by the iterators that follow it (CSVIter,
//! ImageRecordIter): an epoch serves its order's samples in batches, starting after the
//! `skip` samples the previous epoch's last batch already took; with `round` that last
//! batch is completed with the next epoch's first samples (its `pad` counts them, and the
//! next epoch starts after them), without it the batch is short (`pad` counts the
//! missing rows).

/// A sample of a batch: its index in this epoch's order, or in the next epoch's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    This(usize),
    Next(usize),
}

/// One batch: its samples, and how many of them are padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchPlan {
    pub samples: Vec<Position>,
    pub pad: usize,
}

/// `samples` per epoch in batches of `batch_size`, rounded or not.
#[derive(Clone, Copy, Debug)]
pub struct RoundBatch {
    pub samples: usize,
    pub batch_size: usize,
    pub round: bool,
}

impl RoundBatch {
    /// Where the epoch after one that started after `skip` samples starts.
    pub fn next_skip(&self, skip: usize) -> usize {
        match (self.round, (self.samples - skip) % self.batch_size) {
            (true, left @ 1..) => self.batch_size - left,
            _ => 0,
        }
    }

    /// Where epoch `epoch` starts, counted from the first.
    pub fn skip_at(&self, epoch: u64) -> usize {
        (0..epoch).fold(0, |skip, _| self.next_skip(skip))
    }

    /// The batches of an epoch that starts after `skip` samples. `samples` must be at
    /// least `batch_size` when rounding (the wrap takes from one next epoch only).
    pub fn plan(&self, skip: usize) -> Vec<BatchPlan> {
        let bs = self.batch_size;
        let this: Vec<Position> = (skip..self.samples).map(Position::This).collect();
        let mut plans: Vec<BatchPlan> = this
            .chunks(bs)
            .map(|c| BatchPlan {
                samples: c.to_vec(),
                pad: bs - c.len(),
            })
            .collect();
        if let Some(last) = plans.last_mut().filter(|l| l.pad > 0 && self.round) {
            let fill = last.pad;
            last.samples.extend((0..fill).map(Position::Next));
        }
        plans
    }
}
