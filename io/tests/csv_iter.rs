//! CSVIter against MXNet 1.9.1's (tests/fixtures/data/csv/, made by make_csv_fixtures.py):
//! rows as vectors and as matrices, with and without round_batch, without labels, over two
//! epochs; bad files named.

use kiln_io::{CSVIter, CsvParams, DataIter};
use kiln_runtime::NDArray;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/data/csv")
        .join(name)
}

#[test]
fn batches_equal_mxnets() {
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("cases.json")).unwrap()).unwrap();
    for (case, p) in cases.as_object().unwrap() {
        let dims = |v: &serde_json::Value| -> Vec<usize> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect()
        };
        let params = CsvParams {
            data_csv: fixture("data.csv"),
            data_shape: dims(&p["data_shape"]),
            label_csv: p.get("label_csv").map(|l| fixture(l.as_str().unwrap())),
            batch_size: p["batch_size"].as_u64().unwrap() as usize,
            round_batch: p
                .get("round_batch")
                .and_then(|r| r.as_bool())
                .unwrap_or(true),
            ..CsvParams::default()
        };
        let (bs, round) = (params.batch_size, params.round_batch);
        let mut it = CSVIter::new(params).unwrap();
        for epoch in 0..2 {
            let mut b = 0;
            while let Some(batch) = it.next_batch().unwrap() {
                let stem = format!("{case}_e{epoch}_b{b}");
                let data = NDArray::load_npy(fixture(&format!("{stem}_data.npy"))).unwrap();
                let label = NDArray::load_npy(fixture(&format!("{stem}_label.npy"))).unwrap();
                let pad: usize = std::fs::read_to_string(fixture(&format!("{stem}_pad.txt")))
                    .unwrap()
                    .trim()
                    .parse()
                    .unwrap();
                assert_eq!(batch.data[0].shape(), data.shape(), "{stem}");
                assert_eq!(batch.label[0].shape(), label.shape(), "{stem}");
                assert_eq!(batch.pad, pad, "{stem}");
                // Without round_batch MXNet leaves stale rows in the tail.
                let real = if round { bs } else { bs - pad };
                let width = data.shape().iter().skip(1).product::<usize>();
                let (got, want) = (
                    batch.data[0].to_vec::<f32>().unwrap(),
                    data.to_vec::<f32>().unwrap(),
                );
                assert_eq!(got[..real * width], want[..real * width], "{stem}: data");
                let (got, want) = (
                    batch.label[0].to_vec::<f32>().unwrap(),
                    label.to_vec::<f32>().unwrap(),
                );
                assert_eq!(got[..real], want[..real], "{stem}: labels");
                b += 1;
            }
            assert!(
                !fixture(&format!("{case}_e{epoch}_b{b}_data.npy")).exists(),
                "{case}: MXNet has more batches in epoch {epoch}"
            );
            it.reset();
        }
    }
}

#[test]
fn bad_files_are_named() {
    let dir = std::env::temp_dir().join(format!("kiln-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let params = |data: PathBuf, label: Option<PathBuf>| CsvParams {
        data_csv: data,
        data_shape: vec![2],
        label_csv: label,
        batch_size: 2,
        ..CsvParams::default()
    };
    let good = write("good.csv", "1,2\n3,4\n5,6\n");
    for (p, message) in [
        (
            params(write("short.csv", "1,2\n3\n"), None),
            "short.csv:2: 1 values where a row holds 2",
        ),
        (
            params(write("word.csv", "1,x\n"), None),
            "word.csv:1: `x` is not a number",
        ),
        (
            params(good.clone(), Some(write("labels.csv", "1\n2\n"))),
            "labels.csv has 2 rows but",
        ),
        (
            params(write("one.csv", "1,2\n"), None),
            "has 1 rows, fewer than a batch of 2",
        ),
    ] {
        let err = CSVIter::new(p)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains(message), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
