//! How a batch is split across devices: MXNet's `_split_input_slice`, by work load, with
//! Python's rounding (half to even), the remainder on the last device.

use crate::{Error, Result};
use std::ops::Range;

/// The rows of a `batch_size` batch each device takes, in proportion to `work_load`.
pub fn split_batch(batch_size: usize, work_load: &[f64]) -> Result<Vec<Range<usize>>> {
    let total: f64 = work_load.iter().sum();
    if work_load.is_empty() || total <= 0.0 || work_load.iter().any(|w| !w.is_finite() || *w < 0.0)
    {
        return Err(Error::Input(format!(
            "work_load_list {work_load:?}: positive loads, one per context"
        )));
    }
    let mut counts: Vec<usize> = (work_load.iter())
        .map(|w| (w * batch_size as f64 / total).round_ties_even() as usize)
        .collect();
    let sum: usize = counts.iter().sum();
    if sum < batch_size {
        *counts.last_mut().expect("non-empty") += batch_size - sum;
    }
    let mut slices = Vec::with_capacity(counts.len());
    let mut end = 0;
    for count in counts {
        let begin = end.min(batch_size);
        end = (begin + count).min(batch_size);
        if begin >= end {
            return Err(Error::Input(format!(
                "a batch of {batch_size} cannot be split over {} contexts: some would get no rows",
                work_load.len()
            )));
        }
        slices.push(begin..end);
    }
    Ok(slices)
}

#[cfg(test)]
mod tests {
    use super::split_batch;

    #[test]
    fn splits_as_mxnet_does() {
        // Values from MXNet 1.9.1's `_split_input_slice`.
        assert_eq!(split_batch(10, &[1.0, 1.0]).unwrap(), [0..5, 5..10]);
        assert_eq!(
            split_batch(10, &[1.0; 4]).unwrap(),
            [0..2, 2..4, 4..6, 6..10]
        );
        assert_eq!(split_batch(7, &[1.0; 3]).unwrap(), [0..2, 2..4, 4..7]);
        assert_eq!(split_batch(9, &[1.0, 2.0]).unwrap(), [0..3, 3..9]);
        let err = split_batch(2, &[1.0; 3]).unwrap_err().to_string();
        assert!(err.contains("cannot be split over 3 contexts"), "{err}");
    }
}
