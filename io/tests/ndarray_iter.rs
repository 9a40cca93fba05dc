//! NDArrayIter against MXNet 1.9.1's batches (rows, labels and pad over three epochs in
//! every last_batch_handle mode), its shuffling, and its errors.

use kiln_io::{DataIter, LastBatch, NDArrayIter};
use kiln_runtime::NDArray;

type Named = Vec<(String, NDArray)>;
/// A batch's rows, labels and pad.
type Batch = (Vec<usize>, Vec<usize>, usize);

/// Data whose row r is [r, r + 0.5], labels r: a batch's rows can be read back.
fn arrays(rows: usize) -> (Named, Named) {
    let data: Vec<f32> = (0..rows).flat_map(|r| [r as f32, r as f32 + 0.5]).collect();
    let label: Vec<f32> = (0..rows).map(|r| r as f32).collect();
    (
        vec![(
            "data".into(),
            NDArray::from_slice(&data, &[rows, 2]).unwrap(),
        )],
        vec![(
            "softmax_label".into(),
            NDArray::from_slice(&label, &[rows]).unwrap(),
        )],
    )
}

/// The batches of an epoch.
fn epoch(it: &mut NDArrayIter) -> kiln_io::Result<Vec<Batch>> {
    let mut batches = Vec::new();
    while let Some(b) = it.next_batch()? {
        let data = b.data[0].to_vec::<f32>().unwrap();
        assert!(data.chunks(2).all(|r| r[1] == r[0] + 0.5), "{data:?}");
        let rows = data.chunks(2).map(|r| r[0] as usize).collect();
        let labels = b.label[0].to_vec::<f32>().unwrap();
        batches.push((rows, labels.iter().map(|&l| l as usize).collect(), b.pad));
    }
    it.reset();
    Ok(batches)
}

fn numbers(v: &serde_json::Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

#[test]
fn batches_equal_mxnets_in_every_last_batch_mode() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/train/iter/batches.json"
    );
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 18);
    for case in cases {
        let rows = case["rows"].as_u64().unwrap() as usize;
        let batch = case["batch_size"].as_u64().unwrap() as usize;
        let mode = case["last_batch_handle"].as_str().unwrap();
        let name = format!("{rows} rows, batches of {batch}, {mode}");
        let (data, label) = arrays(rows);
        let mut it = NDArrayIter::new(data, label, batch)
            .unwrap()
            .with_last_batch(mode.parse().unwrap());
        assert_eq!(it.provide_data()[0].shape, [batch, 2], "{name}");
        assert_eq!(it.provide_label()[0].shape, [batch], "{name}");
        let got: kiln_io::Result<Vec<_>> = (0..3).map(|_| epoch(&mut it)).collect();
        if case.get("mxnet_fails").is_some() {
            let message = got.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(
                message.contains("roll_over cannot fill"),
                "{name}: {message}"
            );
            continue;
        }
        let got = got.unwrap();
        let expected: Vec<Vec<_>> = (case["epochs"].as_array().unwrap().iter())
            .map(|e| {
                (e.as_array().unwrap().iter())
                    .map(|b| {
                        (
                            numbers(&b["rows"]),
                            numbers(&b["label"]),
                            b["pad"].as_u64().unwrap() as usize,
                        )
                    })
                    .collect()
            })
            .collect();
        assert_eq!(got, expected, "{name}");
    }
}

#[test]
fn shuffling_permutes_each_epoch_from_its_seed() {
    let order = |seed: u64| {
        let (data, label) = arrays(50);
        let mut it = NDArrayIter::new(data, label, 10)
            .unwrap()
            .with_shuffle(seed);
        (0..3)
            .map(|_| {
                epoch(&mut it)
                    .unwrap()
                    .into_iter()
                    .flat_map(|b| b.0)
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let epochs = order(7);
    for rows in &epochs {
        let mut sorted = rows.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            (0..50).collect::<Vec<_>>(),
            "every row once per epoch"
        );
        assert_ne!(*rows, sorted, "shuffled");
    }
    assert_ne!(epochs[0], epochs[1], "a new order each epoch");
    assert_eq!(epochs, order(7), "the same seed, the same orders");
    let (data, label) = arrays(50);
    let mut resumed = NDArrayIter::new(data, label, 10)
        .unwrap()
        .with_shuffle(7)
        .with_epoch(2);
    let rows: Vec<usize> = epoch(&mut resumed)
        .unwrap()
        .into_iter()
        .flat_map(|b| b.0)
        .collect();
    assert_eq!(
        rows, epochs[2],
        "an iterator started at epoch 2 gives epoch 2's order"
    );
    assert_ne!(epochs, order(8));
}

#[test]
fn an_iterator_started_at_an_epoch_continues_as_one_that_iterated_there() {
    let modes = [LastBatch::Pad, LastBatch::Discard, LastBatch::RollOver];
    // 23 rows in batches of 5 and 10: carries of 3 rows, and rolled-over batches
    // whose pad differs from epoch to epoch.
    for (mode, batch_size, shuffle) in modes
        .into_iter()
        .flat_map(|m| [(m, 5, None), (m, 10, None), (m, 5, Some(3))])
    {
        let iter = || {
            let (data, label) = arrays(23);
            let it = NDArrayIter::new(data, label, batch_size).unwrap();
            let it = match shuffle {
                Some(seed) => it.with_shuffle(seed),
                None => it,
            };
            it.with_last_batch(mode)
        };
        let mut through = iter();
        let epochs: Vec<Vec<Batch>> = (0..5).map(|_| epoch(&mut through).unwrap()).collect();
        for start in 1..5 {
            let mut resumed = iter().with_epoch(start as u64);
            for (e, want) in epochs.iter().enumerate().skip(start) {
                let got = epoch(&mut resumed).unwrap();
                assert_eq!(
                    &got, want,
                    "{mode:?}, batch {batch_size}, shuffle {shuffle:?}: started at epoch {start}, epoch {e}"
                );
            }
        }
    }
}

#[test]
fn bad_arrays_and_arguments_are_named() {
    let (data, label) = arrays(4);
    let short = vec![(
        "softmax_label".to_string(),
        NDArray::from_slice(&[0f32; 3], &[3]).unwrap(),
    )];
    let cases = [
        (NDArrayIter::new(vec![], vec![], 2).err(), "no data arrays"),
        (
            NDArrayIter::new(data.clone(), label.clone(), 0).err(),
            "batch_size must be positive",
        ),
        (
            NDArrayIter::new(data.clone(), short, 2).err(),
            "`softmax_label` has shape (3,) but `data` has 4 rows",
        ),
        (
            NDArrayIter::new(data.clone(), data.clone(), 2).err(),
            "two arrays are named `data`",
        ),
    ];
    for (error, expected) in cases {
        let message = error.map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains(expected), "{message:?} lacks {expected:?}");
    }
    let mode = "wrap".parse::<LastBatch>().unwrap_err().to_string();
    assert!(mode.contains("last_batch_handle `wrap`"), "{mode}");
}
