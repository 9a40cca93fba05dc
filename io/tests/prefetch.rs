//! PrefetchingIter: the inner iterator's batches over epochs (shuffled, every
//! last_batch_handle mode, resets mid-epoch), its errors as they were, panics as errors,
//! how far ahead it runs, and its thread joined when dropped.

use kiln_io::{DataBatch, DataDesc, DataIter, Error, LastBatch, NDArrayIter, PrefetchingIter};
use kiln_ops::DType;
use kiln_runtime::NDArray;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Rows r of [r, r + 0.5, r + 0.25], labels 10·r.
fn ndarray_iter(rows: usize, batch: usize, last: LastBatch, seed: u64) -> NDArrayIter {
    let data: Vec<f32> = (0..rows)
        .flat_map(|r| [r as f32, r as f32 + 0.5, r as f32 + 0.25])
        .collect();
    let label: Vec<f32> = (0..rows).map(|r| 10.0 * r as f32).collect();
    NDArrayIter::new(
        vec![(
            "data".into(),
            NDArray::from_slice(&data, &[rows, 3]).unwrap(),
        )],
        vec![(
            "softmax_label".into(),
            NDArray::from_slice(&label, &[rows]).unwrap(),
        )],
        batch,
    )
    .unwrap()
    .with_last_batch(last)
    .with_shuffle(seed)
}

/// A batch's data, labels and pad.
type Values = (Vec<f32>, Vec<f32>, usize);

fn values(batch: &DataBatch) -> Values {
    (
        batch.data[0].to_vec::<f32>().unwrap(),
        batch.label[0].to_vec::<f32>().unwrap(),
        batch.pad,
    )
}

/// The rest of the epoch's batches, then a reset.
fn epoch(it: &mut dyn DataIter) -> Vec<Values> {
    let mut batches = Vec::new();
    while let Some(b) = it.next_batch().unwrap() {
        batches.push(values(&b));
    }
    it.reset();
    batches
}

#[test]
fn batches_equal_the_inner_iterators_over_epochs() {
    for last in [LastBatch::Pad, LastBatch::Discard, LastBatch::RollOver] {
        for prefetch in [1, 3] {
            let mut direct = ndarray_iter(10, 3, last, 7);
            let mut wrapped =
                PrefetchingIter::with_prefetch(Box::new(ndarray_iter(10, 3, last, 7)), prefetch)
                    .unwrap();
            assert_eq!(wrapped.provide_data(), direct.provide_data());
            assert_eq!(wrapped.provide_label(), direct.provide_label());
            assert_eq!(wrapped.batch_size(), 3);
            for e in 0..3 {
                let want = epoch(&mut direct);
                assert!(!want.is_empty());
                assert_eq!(
                    epoch(&mut wrapped),
                    want,
                    "{last:?}, prefetch {prefetch}, epoch {e}"
                );
            }
        }
    }
}

#[test]
fn a_reset_mid_epoch_drops_what_was_made_ahead() {
    for prefetch in [1, 2] {
        let mut direct = ndarray_iter(11, 2, LastBatch::Pad, 3);
        let mut wrapped = PrefetchingIter::with_prefetch(
            Box::new(ndarray_iter(11, 2, LastBatch::Pad, 3)),
            prefetch,
        )
        .unwrap();
        // Reset at once, after one batch, after all but one, twice in a row.
        for taken in [0, 1, 5, 0] {
            for _ in 0..taken {
                let (d, w) = (direct.next_batch().unwrap(), wrapped.next_batch().unwrap());
                assert_eq!(values(&w.unwrap()), values(&d.unwrap()));
            }
            direct.reset();
            wrapped.reset();
        }
        for e in 0..2 {
            assert_eq!(epoch(&mut wrapped), epoch(&mut direct), "epoch {e}");
        }
    }
}

/// Batches of one value each, counting its `next_batch` calls; fails, panics or never ends
/// as told.
struct Scripted {
    batches: usize,
    served: usize,
    calls: Arc<AtomicUsize>,
    alive: Arc<AtomicUsize>,
    fail_at: Option<usize>,
    panic_at: Option<usize>,
    panic_on_reset: bool,
}

impl Scripted {
    fn new(batches: usize) -> Scripted {
        Scripted {
            batches,
            served: 0,
            calls: Arc::default(),
            alive: Arc::new(AtomicUsize::new(1)),
            fail_at: None,
            panic_at: None,
            panic_on_reset: false,
        }
    }
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.alive.fetch_sub(1, Ordering::SeqCst);
    }
}

impl DataIter for Scripted {
    fn provide_data(&self) -> Vec<DataDesc> {
        vec![DataDesc {
            name: "data".into(),
            shape: vec![1],
            dtype: DType::F32,
        }]
    }

    fn provide_label(&self) -> Vec<DataDesc> {
        Vec::new()
    }

    fn batch_size(&self) -> usize {
        1
    }

    fn reset(&mut self) {
        assert!(!self.panic_on_reset, "reset refused");
        self.served = 0;
    }

    fn next_batch(&mut self) -> kiln_io::Result<Option<DataBatch>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let n = self.served;
        self.served += 1;
        if self.panic_at == Some(n) {
            panic!("batch {n} is cursed");
        }
        if self.fail_at == Some(n) {
            return Err(Error::Line {
                path: "list.lst".into(),
                line: n + 1,
                what: "no such image".into(),
            });
        }
        if n >= self.batches {
            return Ok(None);
        }
        Ok(Some(DataBatch {
            data: vec![NDArray::from_slice(&[n as f32], &[1]).unwrap()],
            label: Vec::new(),
            pad: 0,
        }))
    }
}

fn served(batch: kiln_io::Result<Option<DataBatch>>) -> Option<f32> {
    batch
        .unwrap()
        .map(|b| b.data[0].to_vec::<f32>().unwrap()[0])
}

#[test]
fn an_inner_error_comes_out_as_that_error_where_it_happened() {
    let mut inner = Scripted::new(4);
    inner.fail_at = Some(1);
    let mut it = PrefetchingIter::new(Box::new(inner)).unwrap();
    assert_eq!(served(it.next_batch()), Some(0.0));
    match it.next_batch() {
        Err(Error::Line { path, line, what }) => {
            assert_eq!(
                (path.to_str(), line, what.as_str()),
                (Some("list.lst"), 2, "no such image")
            );
        }
        other => panic!("{:?}", other.map(|b| b.map(|b| b.pad))),
    }
    // As a direct caller that goes on: the inner iterator's next results.
    assert_eq!(served(it.next_batch()), Some(2.0));
    assert_eq!(served(it.next_batch()), Some(3.0));
    assert_eq!(served(it.next_batch()), None);
    assert_eq!(served(it.next_batch()), None, "the epoch stays ended");
    it.reset();
    assert_eq!(served(it.next_batch()), Some(0.0));
}

#[test]
fn a_panic_becomes_an_error_and_never_a_hang() {
    let mut inner = Scripted::new(4);
    inner.panic_at = Some(2);
    let alive = inner.alive.clone();
    let mut it = PrefetchingIter::new(Box::new(inner)).unwrap();
    assert_eq!(served(it.next_batch()), Some(0.0));
    assert_eq!(served(it.next_batch()), Some(1.0));
    for _ in 0..2 {
        let err = it.next_batch().unwrap_err().to_string();
        assert!(
            err.contains("the inner iterator panicked: batch 2 is cursed"),
            "{err}"
        );
        it.reset();
    }
    assert_eq!(alive.load(Ordering::SeqCst), 0, "the thread dropped it");

    let mut inner = Scripted::new(2);
    inner.panic_on_reset = true;
    let mut it = PrefetchingIter::new(Box::new(inner)).unwrap();
    it.reset();
    let err = it.next_batch().unwrap_err().to_string();
    assert!(err.contains("reset panicked: reset refused"), "{err}");
}

#[test]
fn the_thread_runs_prefetch_batches_ahead_and_no_further() {
    for prefetch in [1, 3] {
        let inner = Scripted::new(100);
        let calls = inner.calls.clone();
        let mut it = PrefetchingIter::with_prefetch(Box::new(inner), prefetch).unwrap();
        assert_eq!(served(it.next_batch()), Some(0.0));
        // The batch taken and `prefetch` more: reached soon, never passed.
        wait_for_calls(&calls, 1 + prefetch);
    }
}

/// Waits until the inner iterator has been asked for `calls` batches, then checks it is
/// asked for no more.
fn wait_for_calls(calls: &AtomicUsize, want: usize) {
    let start = Instant::now();
    while calls.load(Ordering::SeqCst) < want {
        let elapsed = start.elapsed();
        assert!(elapsed < Duration::from_secs(20), "not {want} calls");
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(calls.load(Ordering::SeqCst), want);
}

#[test]
fn a_reset_mid_epoch_starts_the_next_epoch_at_once() {
    let inner = Scripted::new(100);
    let calls = inner.calls.clone();
    let mut it = PrefetchingIter::new(Box::new(inner)).unwrap();
    assert_eq!(served(it.next_batch()), Some(0.0));
    wait_for_calls(&calls, 2);
    // The batch made ahead is dropped, the inner reset, the next epoch's first made.
    it.reset();
    wait_for_calls(&calls, 3);
    assert_eq!(served(it.next_batch()), Some(0.0));
    assert_eq!(served(it.next_batch()), Some(1.0));
}

#[test]
fn dropping_it_joins_its_thread() {
    let alive = Arc::new(AtomicUsize::new(0));
    for round in 0..60 {
        let mut inner = Scripted::new(if round % 2 == 0 { usize::MAX } else { 2 });
        alive.fetch_add(1, Ordering::SeqCst);
        inner.alive = alive.clone();
        let mut it = PrefetchingIter::with_prefetch(Box::new(inner), 1 + round % 3).unwrap();
        // Dropped before any batch, mid-epoch, at an epoch's end, after a reset.
        for _ in 0..round % 4 {
            it.next_batch().unwrap();
        }
        if round % 5 == 0 {
            it.reset();
        }
        drop(it);
        assert_eq!(alive.load(Ordering::SeqCst), 0, "round {round}");
    }
}

#[test]
fn prefetch_zero_is_refused() {
    let err = PrefetchingIter::with_prefetch(Box::new(Scripted::new(1)), 0)
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("prefetch must be at least 1"),
        "{err}"
    );
}
