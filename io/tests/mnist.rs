//! MNISTIter against MXNet 1.9.1's (tests/fixtures/data/mnist/, made by
//! make_mnist_fixtures.py): batches of images, flat images and a part of the file, over
//! two epochs; bad idx files named.

use kiln_io::{read_idx, DataIter, MNISTIter, MnistParams};
use kiln_runtime::NDArray;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/data/mnist")
        .join(name)
}

fn params(extra: &serde_json::Value) -> MnistParams {
    let get = |k: &str| extra.get(k);
    MnistParams {
        image: fixture("images-idx3-ubyte"),
        label: fixture("labels-idx1-ubyte"),
        batch_size: get("batch_size").and_then(|v| v.as_u64()).unwrap() as usize,
        shuffle: false,
        flat: get("flat").and_then(|v| v.as_bool()).unwrap_or(false),
        num_parts: get("num_parts").and_then(|v| v.as_u64()).unwrap_or(1) as usize,
        part_index: get("part_index").and_then(|v| v.as_u64()).unwrap_or(0) as usize,
        ..MnistParams::default()
    }
}

#[test]
fn batches_equal_mxnets() {
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("cases.json")).unwrap()).unwrap();
    for (case, extra) in cases.as_object().unwrap() {
        let mut it = MNISTIter::new(&params(extra)).unwrap();
        for epoch in 0..2 {
            let mut b = 0;
            while let Some(batch) = it.next_batch().unwrap() {
                let stem = format!("{case}_e{epoch}_b{b}");
                let data = NDArray::load_npy(fixture(&format!("{stem}_data.npy"))).unwrap();
                let label = NDArray::load_npy(fixture(&format!("{stem}_label.npy"))).unwrap();
                assert_eq!(batch.data[0].shape(), data.shape(), "{stem}");
                assert_eq!(
                    batch.data[0].to_vec::<f32>().unwrap(),
                    data.to_vec::<f32>().unwrap(),
                    "{stem}"
                );
                assert_eq!(
                    batch.label[0].to_vec::<f32>().unwrap(),
                    label.to_vec::<f32>().unwrap(),
                    "{stem}"
                );
                assert_eq!(batch.pad, 0);
                b += 1;
            }
            assert!(
                !fixture(&format!("{case}_e{epoch}_b{b}_data.npy")).exists(),
                "{case}: MXNet has more batches"
            );
            it.reset();
        }
    }
}

#[test]
fn shuffling_permutes_once_and_bad_files_are_named() {
    let labels = |shuffle: bool, seed: u64| -> Vec<f32> {
        let p = MnistParams {
            image: fixture("images-idx3-ubyte"),
            label: fixture("labels-idx1-ubyte"),
            batch_size: 10,
            shuffle,
            seed,
            ..MnistParams::default()
        };
        let mut it = MNISTIter::new(&p).unwrap();
        let mut out = Vec::new();
        while let Some(b) = it.next_batch().unwrap() {
            out.extend(b.label[0].to_vec::<f32>().unwrap());
        }
        it.reset();
        let again: Vec<f32> = std::iter::from_fn(|| it.next_batch().unwrap())
            .flat_map(|b| b.label[0].to_vec::<f32>().unwrap())
            .collect();
        assert_eq!(out, again, "the same order every epoch");
        out
    };
    let (plain, shuffled) = (labels(false, 0), labels(true, 0));
    assert_ne!(plain, shuffled);
    let sorted = |mut v: Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v
    };
    assert_eq!(sorted(plain), sorted(shuffled.clone()), "a permutation");
    assert_eq!(shuffled, labels(true, 0), "from its seed");
    assert_ne!(shuffled, labels(true, 1));
    let path = Path::new("x-idx3-ubyte");
    for (bytes, message) in [
        (
            &b"\x00\x00\x08"[..],
            "x-idx3-ubyte: 3 bytes: not an idx file",
        ),
        (
            b"\x00\x00\x0d\x03\x00\x00\x00\x01",
            "magic 0x00000d03 is not an idx file of bytes",
        ),
        (
            b"\x00\x00\x08\x03\x00\x00\x00\x01",
            "truncated: the header's 3 dimensions",
        ),
        (
            b"\x00\x00\x08\x01\xff\xff\xff\xff\x01",
            "dimensions [4294967295] need more than the 1 bytes after the header",
        ),
    ] {
        let err = read_idx(bytes, path).unwrap_err().to_string();
        assert!(err.contains(message), "{err}");
    }
}
