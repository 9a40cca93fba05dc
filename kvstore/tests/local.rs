//! The local store against MXNet 1.9.1 (its sums, bit for bit) and its contract: push
//! replaces by the sum or hands it to the updater, pull copies, lists group by key, and
//! every misuse is an error naming the key.

use kiln_kvstore::{KVStore, Key, Kind};
use kiln_ops::DType;
use kiln_runtime::{Device, NDArray};
use std::sync::{Arc, Mutex};

fn arr(data: &[f32]) -> NDArray {
    NDArray::from_slice(data, &[data.len()]).unwrap()
}

fn read(a: &NDArray) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn from_bits(bits: &serde_json::Value) -> Vec<f32> {
    let bits = bits.as_array().unwrap();
    bits.iter()
        .map(|b| f32::from_bits(b.as_u64().unwrap() as u32))
        .collect()
}

#[test]
fn sums_of_one_to_nine_devices_equal_mxnets_bit_for_bit() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/train/kvstore/sums.json"
    );
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 9);
    for case in cases {
        let values: Vec<NDArray> = (case["values"].as_array().unwrap().iter())
            .map(|v| arr(&from_bits(v)))
            .collect();
        let expected = from_bits(&case["sum"]);
        let mut kv = KVStore::create("local").unwrap();
        kv.init(3, &NDArray::zeros(&[64], DType::F32, Device::Cpu).unwrap())
            .unwrap();
        kv.push(3, &values, 0).unwrap();
        let out = NDArray::zeros(&[64], DType::F32, Device::Cpu).unwrap();
        kv.pull(3, std::slice::from_ref(&out), 0).unwrap();
        let got = read(&out);
        let n = values.len();
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(
                g.to_bits(),
                e.to_bits(),
                "{n} devices, element {i}: {g} vs MXNet's {e}"
            );
        }
    }
}

#[test]
fn push_replaces_by_the_sum_and_pull_fills_every_output() {
    let mut kv = KVStore::create("device").unwrap();
    assert_eq!((kv.kind(), kv.type_name()), (Kind::Device, "device"));
    assert_eq!((kv.rank(), kv.num_workers()), (0, 1));
    kv.init("w", &arr(&[1.0, 2.0])).unwrap();
    let outs = [arr(&[0.0, 0.0]), arr(&[9.0, 9.0])];
    kv.pull("w", &outs, 0).unwrap();
    assert_eq!(
        (read(&outs[0]), read(&outs[1])),
        (vec![1.0, 2.0], vec![1.0, 2.0])
    );
    // Pushed and pulled repeatedly with the same arrays: the operations are reused, and
    // each step sees the previous one's sum (not an average, not an accumulation).
    let grads = [arr(&[1.0, 1.0]), arr(&[2.0, 3.0])];
    for step in 1..=3 {
        let scale = step as f32;
        grads[0].copy_from(&arr(&[scale, scale])).unwrap();
        kv.pushpull("w", &grads, &outs, -1).unwrap();
        assert_eq!(read(&outs[1]), [scale + 2.0, scale + 3.0], "step {step}");
    }
    // Without outputs, pushpull writes back into the pushed arrays.
    kv.pushpull("w", &grads, &[], 0).unwrap();
    assert_eq!(
        (read(&grads[0]), read(&grads[1])),
        (vec![5.0, 6.0], vec![5.0, 6.0])
    );
}

#[test]
fn an_updater_gets_the_sum_and_the_stored_value() {
    let mut kv = KVStore::create("local").unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    kv.set_updater(Box::new(
        move |key: &Key, merged: &NDArray, stored: &NDArray| {
            log.lock().unwrap().push((key.clone(), read(merged)));
            // SGD with learning rate 0.5, as an updater would push it.
            // (A clone is another handle to the stored memory.)
            let mut weight = stored.clone();
            weight -= merged * 0.5;
            Ok(())
        },
    ))
    .unwrap();
    kv.init(7, &arr(&[10.0, 20.0])).unwrap();
    kv.push(7, &[arr(&[2.0, 4.0]), arr(&[2.0, 0.0])], 0)
        .unwrap();
    kv.push(7, &[arr(&[1.0, 1.0])], 0).unwrap();
    let out = arr(&[0.0, 0.0]);
    kv.pull(7, std::slice::from_ref(&out), 0).unwrap();
    assert_eq!(read(&out), [10.0 - 2.0 - 0.5, 20.0 - 2.0 - 0.5]);
    let seen = seen.lock().unwrap();
    assert_eq!(
        *seen,
        [(Key::Int(7), vec![4.0, 4.0]), (Key::Int(7), vec![1.0, 1.0])]
    );
}

#[test]
fn lists_group_the_values_of_a_key() {
    let mut kv = KVStore::create("local").unwrap();
    let keys: Vec<Key> = vec!["a".into(), "b".into()];
    kv.init_many(&keys, &[arr(&[0.0]), arr(&[0.0])]).unwrap();
    let pushed: Vec<Key> = vec!["b".into(), "a".into(), "b".into()];
    kv.push_many(&pushed, &[arr(&[1.0]), arr(&[5.0]), arr(&[2.0])], 0)
        .unwrap();
    let outs = [arr(&[0.0]), arr(&[0.0]), arr(&[0.0])];
    let pulled: Vec<Key> = vec!["a".into(), "b".into(), "a".into()];
    kv.pull_many(&pulled, &outs, 0).unwrap();
    assert_eq!(
        outs.iter().map(read).collect::<Vec<_>>(),
        [[5.0], [3.0], [5.0]]
    );
}

#[test]
fn broadcast_initializes_and_pulls() {
    let mut kv = KVStore::create("local").unwrap();
    let outs = [arr(&[0.0, 0.0]), arr(&[0.0, 0.0])];
    kv.broadcast(0, &arr(&[3.0, 4.0]), &outs).unwrap();
    assert_eq!(read(&outs[1]), [3.0, 4.0]);
}

#[test]
fn misuse_is_an_error_naming_the_key() {
    let message = |r: kiln_kvstore::Result<()>| r.unwrap_err().to_string();
    let mut kv = KVStore::create("local").unwrap();
    kv.init(1, &arr(&[0.0, 0.0])).unwrap();
    let cases = [
        (message(kv.init(1, &arr(&[0.0]))), "duplicate init of key 1"),
        (
            message(kv.init("s", &arr(&[0.0]))),
            "key 's' is a str but the store's keys are ints",
        ),
        (
            message(kv.push(2, &[arr(&[0.0])], 0)),
            "key 2 has not been initialized",
        ),
        (
            message(kv.pull(2, &[arr(&[0.0])], 0)),
            "key 2 has not been initialized",
        ),
        (message(kv.push(1, &[], 0)), "push to key 1: no values"),
        (
            message(kv.push(1, &[arr(&[0.0; 3])], 0)),
            "push of key 1: an array of shape (3,) float32 where the store holds (2,) float32",
        ),
        (
            message(kv.pull(1, &[arr(&[0.0])], 0)),
            "pull of key 1: an array of shape (1,)",
        ),
        (
            message(kv.push_many(&[Key::Int(1)], &[], 0)),
            "push: 1 keys but 0 arrays",
        ),
    ];
    for (got, expected) in cases {
        assert!(got.contains(expected), "{got:?} lacks {expected:?}");
    }
    let bools = NDArray::from_slice(&[true], &[1]).unwrap();
    assert!(message(kv.init(9, &bools)).contains("bool arrays cannot be summed"));
    for (name, expected) in [
        ("dist_sync", "a distributed store is made by kiln-dist"),
        ("nccl", "NCCL needs kiln's GPU backend"),
        ("shared", "unknown kvstore type `shared`"),
    ] {
        let got = KVStore::create(name).err().unwrap().to_string();
        assert!(got.contains(expected), "{got:?} lacks {expected:?}");
    }
}

#[test]
fn the_stores_own_arrays_handed_back_are_refused() {
    let mut kv = KVStore::create("local").unwrap();
    let kept: Arc<Mutex<Option<NDArray>>> = Arc::default();
    let keep = kept.clone();
    kv.set_updater(Box::new(move |_: &Key, _: &NDArray, stored: &NDArray| {
        *keep.lock().unwrap() = Some(stored.clone());
        Ok(())
    }))
    .unwrap();
    kv.init(0, &arr(&[1.0, 2.0])).unwrap();
    kv.push(0, &[arr(&[1.0, 1.0])], 0).unwrap();
    let stored = kept.lock().unwrap().clone().unwrap();
    let err = kv.pull(0, &[stored], 0).unwrap_err().to_string();
    assert!(err.contains("is the store's own"), "{err}");
}
