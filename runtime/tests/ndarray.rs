//! NDArray on the engine: creation, views, lazy operators with errors at sync points,
//! arithmetic, random generation, files and the ndarray crate.

use kiln_compiler::builders as sym;
use kiln_compiler::{interpret, RunOptions, Symbol};
use kiln_ops::{DType, Tensor};
use kiln_runtime::storage::pool_stats;
use kiln_runtime::{random, Device, NDArray};
use std::collections::HashMap;

fn arr(data: &[f32], shape: &[usize]) -> NDArray {
    NDArray::from_slice(data, shape).unwrap()
}

#[test]
fn round_trips_every_element_type() {
    assert_eq!(
        arr(&[1.5, -2.0], &[2]).to_vec::<f32>().unwrap(),
        [1.5, -2.0]
    );
    assert_eq!(
        NDArray::from_slice(&[1i64 << 40, -3], &[2])
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        [1 << 40, -3]
    );
    assert_eq!(
        NDArray::from_slice(&[7u8, 255], &[2])
            .unwrap()
            .to_vec::<u8>()
            .unwrap(),
        [7, 255]
    );
    assert_eq!(
        NDArray::from_slice(&[true, false], &[2])
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        [true, false]
    );
    let h = NDArray::from_slice(&[half::f16::from_f32(0.5)], &[1]).unwrap();
    assert_eq!(
        (h.dtype(), h.to_vec::<f32>().unwrap()),
        (DType::F16, vec![0.5])
    );
    let e = NDArray::from_slice(&[1.0f32; 5], &[2, 3])
        .unwrap_err()
        .to_string();
    assert_eq!(e, "5 values cannot fill shape (2, 3)");
    let z = NDArray::zeros(&[2, 2], DType::I32, Device::Cpu).unwrap();
    assert_eq!(z.to_vec::<i32>().unwrap(), [0; 4]);
}

#[test]
fn arithmetic_runs_lazily_and_matches_by_hand() {
    let a = arr(&[1.0, 2.0, 3.0], &[3]);
    let b = arr(&[4.0, 5.0, -6.0], &[3]);
    let y = &(&a * &b) + 1.0;
    assert_eq!(y.to_vec::<f32>().unwrap(), [5.0, 11.0, -17.0]);
    assert_eq!((2.0 - &a).to_vec::<f32>().unwrap(), [1.0, 0.0, -1.0]);
    assert_eq!((1.0 / &b).to_vec::<f32>().unwrap(), [0.25, 0.2, -1.0 / 6.0]);
    let col = arr(&[1.0, 2.0], &[2, 1]);
    let row = arr(&[10.0, 20.0, 30.0], &[1, 3]);
    let sum = &col + &row;
    assert_eq!(sum.shape(), [2, 3]);
    assert_eq!(
        sum.to_vec::<f32>().unwrap(),
        [11.0, 21.0, 31.0, 12.0, 22.0, 32.0]
    );
}

#[test]
fn assignment_operators_update_in_place() {
    let mut a = arr(&[1.0, 2.0, 3.0], &[3]);
    let view = a.clone();
    a += &arr(&[1.0, 1.0, 1.0], &[3]);
    a *= 2.0;
    a -= 1.0;
    a /= &arr(&[1.0, 2.0, 5.0], &[3]);
    assert_eq!(a.to_vec::<f32>().unwrap(), [3.0, 2.5, 1.4]);
    assert_eq!(
        view.to_vec::<f32>().unwrap(),
        [3.0, 2.5, 1.4],
        "handles share memory"
    );
    // `a *= &a`: one operation reads and writes the same array.
    let mut b = arr(&[2.0, -3.0], &[2]);
    b *= b.clone();
    b *= b.clone();
    assert_eq!(b.to_vec::<f32>().unwrap(), [16.0, 81.0]);
}

#[test]
fn errors_surface_when_the_result_is_read() {
    let a = arr(&[1.0, 2.0, 3.0], &[3]);
    let b = arr(&[1.0, 2.0], &[2]);
    let bad = &a + &b;
    // The failure flows to dependents pushed before anyone waited.
    let later = &bad * 2.0;
    let e = bad.to_vec::<f32>().unwrap_err().to_string();
    assert!(
        e.contains("broadcast_add") && e.contains("(3,)") && e.contains("(2,)"),
        "{e}"
    );
    assert_eq!(later.wait_to_read().unwrap_err().message, bad_message(&e));
    // Waiting reported the error and cleared it, as MXNet does: the array is usable again.
    assert!(bad.wait_to_read().is_ok());
    // An operator call with a bad shape fails at the call.
    let x = arr(&[0.0; 6], &[2, 3]);
    let w = arr(&[0.0; 8], &[2, 4]);
    let e = sym::fully_connected()
        .data(&x)
        .weight(&w)
        .no_bias(true)
        .num_hidden(2)
        .build()
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "FullyConnected `FullyConnected`: input `weight` has shape (2, 4) but (2, 3) is required"
    );
    let e = sym::fully_connected()
        .data(&x)
        .num_hidden(2)
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("input `weight` is not given"), "{e}");
}

/// The engine error's message inside the `Error` text that `to_vec` returns.
fn bad_message(e: &str) -> std::sync::Arc<str> {
    e.split_once("failed: ").map_or(e, |(_, m)| m).into()
}

#[test]
fn every_operator_runs_imperatively_like_the_interpreter() {
    let x = Tensor::new(
        DType::F32,
        vec![2, 3, 5, 5],
        (0..150)
            .map(|i| ((i * 37 % 23) as f64 - 11.0) / 7.0)
            .collect(),
    );
    let w = Tensor::new(
        DType::F32,
        vec![4, 3, 3, 3],
        (0..108)
            .map(|i| ((i * 13 % 17) as f64 - 8.0) / 9.0)
            .collect(),
    );
    let b = Tensor::new(DType::F32, vec![4], vec![0.1, -0.2, 0.3, 0.0]);
    let (xa, wa, ba) = (
        NDArray::from_tensor(&x, Device::Cpu).unwrap(),
        NDArray::from_tensor(&w, Device::Cpu).unwrap(),
        NDArray::from_tensor(&b, Device::Cpu).unwrap(),
    );
    let conv = sym::convolution()
        .data(&xa)
        .weight(&wa)
        .bias(&ba)
        .kernel(&[3, 3])
        .pad(&[1, 1])
        .num_filter(4)
        .build()
        .unwrap();
    let pooled = sym::pooling()
        .data(&conv[0])
        .kernel(&[2, 2])
        .stride(&[2, 2])
        .pool_type("max")
        .build()
        .unwrap();
    let got = pooled[0].to_tensor().unwrap();
    // The same through the Symbol API and the interpreter.
    let (xs, ws, bs) = (Symbol::var("x"), Symbol::var("w"), Symbol::var("b"));
    let c = sym::convolution()
        .data(&xs)
        .weight(&ws)
        .bias(&bs)
        .kernel(&[3, 3])
        .pad(&[1, 1])
        .num_filter(4)
        .build()
        .unwrap();
    let p = sym::pooling()
        .data(&c)
        .kernel(&[2, 2])
        .stride(&[2, 2])
        .pool_type("max")
        .build()
        .unwrap();
    let inputs = HashMap::from([
        ("x".to_string(), x),
        ("w".to_string(), w),
        ("b".to_string(), b),
    ]);
    let want = interpret(&p.to_graph().unwrap(), &inputs, RunOptions::default()).unwrap();
    assert_eq!(got, want[0]);
}

#[test]
fn views_share_memory_without_copies() {
    let a = arr(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[3, 2]);
    let rows = a.slice(1, 3).unwrap();
    assert_eq!(rows.shape(), [2, 2]);
    assert_eq!(rows.to_vec::<f32>().unwrap(), [2.0, 3.0, 4.0, 5.0]);
    let flat = a.reshape(&[6]).unwrap();
    let mut r = rows.clone();
    r += 10.0;
    assert_eq!(
        flat.to_vec::<f32>().unwrap(),
        [0.0, 1.0, 12.0, 13.0, 14.0, 15.0]
    );
    assert!(a.slice(2, 4).is_err());
    assert_eq!(
        a.reshape(&[4]).unwrap_err().to_string(),
        "cannot reshape (3, 2) to (4,)"
    );
}

#[test]
fn copies_and_synchronization() {
    let a = arr(&[1.0, 2.0], &[2]);
    let b = a.copy_to(Device::Cpu).unwrap();
    let mut a2 = a.clone();
    a2 += 1.0;
    assert_eq!(
        b.to_vec::<f32>().unwrap(),
        [1.0, 2.0],
        "a copy is independent"
    );
    assert!(a
        .copy_to(Device::Cuda(0))
        .unwrap_err()
        .to_string()
        .contains("CUDA backend"));
    a.wait_to_write().unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), [2.0, 3.0]);
}

#[test]
fn freed_memory_is_reused() {
    let before = pool_stats(Device::Cpu).reused;
    for _ in 0..10 {
        let t = NDArray::zeros(&[1000, 37], DType::F32, Device::Cpu).unwrap();
        t.wait_to_read().unwrap();
    }
    assert!(pool_stats(Device::Cpu).reused >= before + 9);
}

/// The generator is process-wide: tests that seed it take turns.
static GENERATOR: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Values of a fixed random program; printed for the thread-count comparison below.
fn random_values() -> Vec<f32> {
    let _turn = GENERATOR.lock().unwrap_or_else(|e| e.into_inner());
    random::seed(7);
    let u = random::uniform(-1.0, 1.0, &[50], DType::F32).unwrap();
    let n = random::normal(0.0, 1.0, &[50], DType::F32).unwrap();
    let y = &u + &n;
    y.to_vec::<f32>().unwrap()
}

#[test]
fn random_values_depend_only_on_the_seed() {
    let first = random_values();
    assert_eq!(random_values(), first, "re-seeding repeats the stream");
    // The first draw after seeding is the Philox stream of key(7, 0).
    let _turn = GENERATOR.lock().unwrap_or_else(|e| e.into_inner());
    random::seed(7);
    let u = random::uniform(-1.0, 1.0, &[5], DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    let key = kiln_ops::random::key(7, 0);
    let want: Vec<f64> = (0..5)
        .map(|i| -1.0 + 2.0 * kiln_ops::random::uniform(key, 0, i))
        .collect();
    assert_eq!(u, want);
}

#[test]
fn print_random_values() {
    if std::env::var_os("KILN_PRINT_RANDOM").is_some() {
        println!("VALUES {:?}", random_values());
    }
}

#[test]
fn random_values_are_identical_whatever_the_engine() {
    let exe = std::env::current_exe().unwrap();
    let outputs: Vec<String> = [("threaded", "1"), ("threaded", "4"), ("naive", "1")]
        .iter()
        .map(|(engine, threads)| {
            let out = std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "print_random_values",
                    "--nocapture",
                    "--test-threads",
                    "1",
                ])
                .env("KILN_PRINT_RANDOM", "1")
                .env("KILN_ENGINE", engine)
                .env("KILN_CPU_WORKER_NTHREADS", threads)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let line = text
                .lines()
                .find_map(|l| l.split_once("VALUES"))
                .unwrap_or_else(|| panic!("no values in {text}"));
            line.1.to_string()
        })
        .collect();
    assert!(outputs.iter().all(|o| *o == outputs[0]), "{outputs:?}");
    assert_eq!(outputs[0], format!(" {:?}", random_values()));
}

#[test]
fn files_and_the_ndarray_crate() {
    let dir = std::env::temp_dir().join(format!("kiln-nd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = arr(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let b = NDArray::from_slice(&[7i32, 8], &[2]).unwrap();
    NDArray::save(dir.join("x.params"), &[("arg:a", &a), ("aux:b", &b)]).unwrap();
    let loaded = NDArray::load(dir.join("x.params")).unwrap();
    assert_eq!(loaded[0].0, "arg:a");
    assert_eq!(
        loaded[0].1.to_vec::<f32>().unwrap(),
        a.to_vec::<f32>().unwrap()
    );
    assert_eq!(
        (loaded[1].1.dtype(), loaded[1].1.to_vec::<i32>().unwrap()),
        (DType::I32, vec![7, 8])
    );
    a.save_npy(dir.join("a.npy")).unwrap();
    assert_eq!(
        NDArray::load_npy(dir.join("a.npy"))
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        a.to_vec::<f32>().unwrap()
    );
    let nd = a.to_ndarray::<f32>().unwrap();
    assert_eq!(nd[[1, 2]], 6.0);
    let t = nd.t().to_owned().into_dyn();
    let back = NDArray::from_ndarray(&nd.t().into_owned().into_dyn()).unwrap();
    assert_eq!(back.shape(), [3, 2]);
    assert_eq!(
        back.to_vec::<f32>().unwrap(),
        t.iter().copied().collect::<Vec<_>>()
    );
    assert_eq!(
        back.to_vec::<f32>().unwrap(),
        [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
    );
    let _ = std::fs::remove_dir_all(dir);
}
