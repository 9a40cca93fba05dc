//! `dist_async` on jobs of workers and servers started by `mpirun`:
//! - the store: worker 0's initial value everywhere, a small key on one server and a large
//!   one sliced across two (`MXNET_KVSTORE_BIGARRAY_BOUND`), string keys, a closure
//!   updater and pushes before `set_optimizer` refused, and a push applied by the servers
//!   at once: worker 0 pulls its own update while worker 1, the slow one, has not pushed
//!   yet (it waits at a barrier), then worker 1's lands on top; a bucket of keys pushed
//!   and pulled in one request per server; 2-bit compressed pushes apply what the
//!   quantizer sent, and send only the packed words;
//! - convergence: two workers training an MLP on a learnable task reach, after the same
//!   samples, a loss within 10% of `dist_sync`'s, both well under the initial loss.
//!
//! The job's ranks run this test binary again (`--ignored --exact worker`); the last ranks
//! serve (`kiln_dist::serve`), as `kiln launch --servers` has them do.

mod common;

use common::run_job_with_servers;
use kiln_io::NDArrayIter;
use kiln_kvstore::compression::{compressed_size, GradientCompression};
use kiln_kvstore::{KVStore, Key};
use kiln_runtime::{Device, NDArray};
use kiln_train::module::{Fit, OptimizerChoice};
use kiln_train::{Module, StoreChoice};
use std::path::PathBuf;
use std::time::Duration;

const SMALL: usize = 100;
/// Above the bound the job sets: sliced across the servers.
const LARGE: usize = 2500;
const BOUND: &str = "1000";

fn array(values: &[f32]) -> NDArray {
    NDArray::from_slice(values, &[values.len()]).unwrap()
}

fn pulled(kv: &mut KVStore, key: impl Into<Key>, len: usize) -> Vec<f32> {
    let out = NDArray::zeros(&[len], kiln_ops::DType::F32, Device::Cpu).unwrap();
    kv.pull(key, std::slice::from_ref(&out), 0).unwrap();
    out.to_vec::<f32>().unwrap()
}

fn gradient(rank: usize, len: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 13 + rank * 5) % 17) as f32 * 0.25 - 2.0)
        .collect()
}

/// `w - lr·g` for each of `gradients` in turn, as SGD without momentum or wd updates.
fn sgd(w: &[f32], gradients: &[Vec<f32>]) -> Vec<f32> {
    let mut w = w.to_vec();
    for g in gradients {
        w.iter_mut().zip(g).for_each(|(w, g)| *w -= 0.1 * g);
    }
    w
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    let worst = kiln_ops::compare::close_to_scale(got, want, 1e-6)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(worst <= 1e-6, "{what}: {worst:e}");
}

fn store_api() {
    let mut kv = kiln_dist::create("dist_async").unwrap();
    let rank = kv.rank();
    assert_eq!(
        (kv.num_workers(), kv.type_name(), kv.updates_on_servers()),
        (2, "dist_async", true)
    );
    let error = kv
        .set_updater(Box::new(|_: &Key, _: &NDArray, _: &NDArray| Ok(())))
        .unwrap_err();
    assert!(error.to_string().contains("cannot be sent"), "{error}");

    // Worker 0's initial values, on every worker.
    let w0 = |len: usize| (0..len).map(|i| i as f32 * 0.01).collect::<Vec<f32>>();
    let first = |len: usize| match rank {
        0 => w0(len),
        _ => vec![rank as f32 + 7.0; len],
    };
    kv.init(3, &array(&first(SMALL))).unwrap();
    kv.init(8, &array(&first(LARGE))).unwrap();
    assert_eq!(pulled(&mut kv, 3, SMALL), w0(SMALL), "rank {rank}: init");
    assert_eq!(
        pulled(&mut kv, 8, LARGE),
        w0(LARGE),
        "rank {rank}: init, sliced"
    );
    let error = kv.push(3, &[array(&gradient(rank, SMALL))], 0).unwrap_err();
    assert!(error.to_string().contains("set_optimizer first"), "{error}");

    let sgd_lr = kiln_train::Optimizer::create("sgd", &[("learning_rate", "0.1")]).unwrap();
    kv.set_optimizer(sgd_lr).unwrap();
    // Worker 0 pushes and sees its own update while worker 1 has not pushed.
    if rank == 0 {
        for (key, len) in [(3, SMALL), (8, LARGE)] {
            kv.push(key, &[array(&gradient(0, len))], 0).unwrap();
            let want = sgd(&w0(len), &[gradient(0, len)]);
            assert_close(&pulled(&mut kv, key, len), &want, "worker 0's push alone");
        }
    } else {
        // The slow worker.
        std::thread::sleep(Duration::from_millis(500));
    }
    kv.barrier().unwrap();
    if rank == 1 {
        for (key, len) in [(3, SMALL), (8, LARGE)] {
            kv.push(key, &[array(&gradient(1, len))], 0).unwrap();
        }
    }
    kv.barrier().unwrap();
    let mut now = Vec::new();
    for (key, len) in [(3, SMALL), (8, LARGE)] {
        let want = sgd(&w0(len), &[gradient(0, len), gradient(1, len)]);
        assert_close(&pulled(&mut kv, key, len), &want, "both pushes");
        now.push(want);
    }
    kv.barrier().unwrap();

    // A bucket of small keys: one request per server to push them, one to pull them.
    let keys = [4, 5, 6].map(Key::Int);
    for key in &keys {
        kv.init(key.clone(), &array(&first(SMALL))).unwrap();
    }
    kv.barrier().unwrap();
    if rank == 0 {
        let worker = kiln_dist::Worker::current().unwrap();
        let before = worker.traffic().messages;
        let gradients: Vec<NDArray> = (0..3).map(|k| array(&gradient(k, SMALL))).collect();
        let values: Vec<&[NDArray]> = gradients.iter().map(std::slice::from_ref).collect();
        kv.push_bucket(&keys, &values, 0).unwrap();
        let outs: Vec<NDArray> = (0..3)
            .map(|_| NDArray::zeros(&[SMALL], kiln_ops::DType::F32, Device::Cpu).unwrap())
            .collect();
        let into: Vec<&[NDArray]> = outs.iter().map(std::slice::from_ref).collect();
        kv.pull_bucket(&keys, &into, 0).unwrap();
        for (k, out) in outs.iter().enumerate() {
            let want = sgd(&w0(SMALL), &[gradient(k, SMALL)]);
            assert_close(&out.to_vec::<f32>().unwrap(), &want, "a bucket");
        }
        // Keys 4 and 6 live on server 0, key 5 on server 1 (MXNet's placement): a header
        // and a payload each way per server, where key by key would take 12.
        assert_eq!(worker.traffic().messages - before, 8);
    }
    kv.barrier().unwrap();

    // 2-bit compressed pushes: the servers apply what the quantizer sent.
    kv.set_gradient_compression(&[("type", "2bit"), ("threshold", "0.5")])
        .unwrap();
    if rank == 0 {
        let compression = GradientCompression::two_bit(0.5).unwrap();
        for ((key, len), before) in [(3, SMALL), (8, LARGE)].into_iter().zip(&now) {
            let worker = kiln_dist::Worker::current().unwrap();
            let sent = worker.traffic().bytes_sent;
            kv.push(key, &[array(&gradient(0, len))], 0).unwrap();
            let got = pulled(&mut kv, key, len);
            let mut packed = vec![0f32; compressed_size(len)];
            let mut dequantized = vec![0f32; len];
            let mut residual = vec![0f32; len];
            compression
                .quantize(&gradient(0, len), &mut residual, &mut packed)
                .unwrap();
            compression.dequantize(&packed, &mut dequantized).unwrap();
            assert_close(&got, &sgd(before, &[dequantized]), "a compressed push");
            // The packed words alone, per server slice.
            let bytes = worker.traffic().bytes_sent - sent;
            assert!(
                bytes as usize <= 4 * (compressed_size(len) + 2),
                "{bytes} bytes sent"
            );
        }
    }

    // String keys, in a second store (numbered apart on the servers): worker 0's value.
    let mut named = kiln_dist::create("dist_async").unwrap();
    named.init("w", &array(&first(SMALL))).unwrap();
    assert_eq!(
        pulled(&mut named, "w", SMALL),
        w0(SMALL),
        "rank {rank}: string key"
    );
    kv.barrier().unwrap();
}

/// Row `i` of the convergence task: 20 features and the class a fixed linear map scores
/// highest, replaced by another for a quarter of the rows (noise no model removes, so the
/// loss levels off where both stores can reach it).
fn row(i: usize) -> (Vec<f32>, f32) {
    let x: Vec<f32> = (0..20)
        .map(|j| {
            ((i * 7919 + j * 104_729 + 17).wrapping_mul(2_654_435_761) % 1000) as f32 / 500.0 - 1.0
        })
        .collect();
    let score = |c: usize| -> f32 {
        x.iter()
            .enumerate()
            .map(|(j, v)| v * (((c * 31 + j * 17) % 11) as f32 - 5.0))
            .sum()
    };
    // Noise in both workers' halves (rows of either parity).
    let label = match i / 2 % 4 {
        0 => (i * 7) % 10,
        _ => (0..10)
            .max_by(|&a, &b| score(a).total_cmp(&score(b)))
            .unwrap(),
    };
    (x, label as f32)
}

const ROWS: usize = 1024;
const BATCH: usize = 32;
const EPOCHS: usize = 8;

fn iterator(rows: impl Iterator<Item = usize>, batch: usize) -> NDArrayIter {
    let (mut data, mut labels) = (Vec::new(), Vec::new());
    for i in rows {
        let (x, label) = row(i);
        data.extend(x);
        labels.push(label);
    }
    let n = labels.len();
    let data = NDArray::from_slice(&data, &[n, 20]).unwrap();
    let labels = NDArray::from_slice(&labels, &[n]).unwrap();
    NDArrayIter::new(
        vec![("data".into(), data)],
        vec![("softmax_label".into(), labels)],
        batch,
    )
    .unwrap()
}

/// Trains the MLP on this worker's half of the rows through store `name`; worker 0 writes
/// the cross-entropy over every row of the weights the store holds once both are done.
fn converge(name: &str, out: &std::path::Path) {
    let store = kiln_dist::create(name).unwrap();
    let (rank, workers) = (store.rank(), store.num_workers());
    let symbol = kiln_models::get_with_classes("mlp", 10).unwrap();
    let mut module = Module::new(&symbol, &["data"], &["softmax_label"], &[Device::Cpu]).unwrap();
    let mut fit = Fit::new(EPOCHS);
    fit.kvstore = Some(StoreChoice::Value(store));
    fit.seed = 5;
    fit.initializer = kiln_train::initializer::create("xavier").unwrap();
    let kwargs = [("learning_rate", "0.03"), ("momentum", "0.9")];
    let kwargs = kwargs.iter().map(|(k, v)| (k.to_string(), v.to_string()));
    fit.optimizer = OptimizerChoice::Named("sgd".into(), kwargs.collect());
    let mut train = iterator((rank..ROWS).step_by(workers), BATCH);
    module.fit(&mut train, fit).unwrap();
    // Every worker's pushes applied, worker 0 takes the servers' values.
    let names = module.param_names().to_vec();
    let (mut args, aux) = module.get_params().unwrap();
    let kv = module.kvstore().unwrap();
    kv.barrier().unwrap();
    for (i, name) in names.iter().enumerate() {
        kv.pull(
            i as i64,
            std::slice::from_mut(args.get_mut(name).unwrap()),
            0,
        )
        .unwrap();
    }
    module.set_params(&args, &aux, false, false).unwrap();
    if rank == 0 {
        let mut metric = kiln_train::metric::create("ce").unwrap();
        let mut all = iterator(0..ROWS, BATCH);
        let loss = module.score(&mut all, metric.as_mut(), None, true).unwrap()[0].1;
        std::fs::write(out, loss.to_string()).unwrap();
    }
}

/// A rank of the jobs (run by `mpirun`, not by the test harness itself).
#[test]
#[ignore = "a rank of the jobs the tests below start"]
fn worker() {
    if kiln_dist::serve().unwrap() {
        return;
    }
    match std::env::var("KILN_ASYNC_TEST").unwrap().as_str() {
        "store" => store_api(),
        name => converge(
            name,
            &PathBuf::from(std::env::var("KILN_ASYNC_OUT").unwrap()),
        ),
    }
}

fn job(case: &str, servers: usize, env: &[(&str, &str)]) -> common::Ended {
    let mut vars: Vec<(&str, &std::ffi::OsStr)> = vec![("KILN_ASYNC_TEST", case.as_ref())];
    vars.extend(env.iter().map(|(k, v)| (*k, v.as_ref())));
    let ended = run_job_with_servers(2, servers, &vars, Duration::from_secs(300));
    assert!(
        ended.status.success(),
        "{case}: {}\n{}",
        ended.stdout,
        ended.stderr
    );
    ended
}

#[test]
fn dist_async_store_on_two_workers_and_two_servers() {
    job("store", 2, &[("MXNET_KVSTORE_BIGARRAY_BOUND", BOUND)]);
}

#[test]
fn dist_async_converges_as_dist_sync_does() {
    let dir = std::env::temp_dir().join(format!("kiln-dist-async-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut losses = Vec::new();
    for (name, servers) in [("dist_sync", 0), ("dist_async", 1)] {
        let out = dir.join(name);
        job(name, servers, &[("KILN_ASYNC_OUT", out.to_str().unwrap())]);
        let loss: f64 = std::fs::read_to_string(&out).unwrap().parse().unwrap();
        eprintln!(
            "{name}: cross-entropy {loss:.4} after {} samples",
            EPOCHS * ROWS
        );
        losses.push(loss);
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let (sync, asynchronous) = (losses[0], losses[1]);
    let initial = 10f64.ln();
    assert!(sync < 0.7 * initial, "dist_sync did not learn: {sync}");
    assert!(
        (asynchronous - sync).abs() <= 0.1 * sync,
        "dist_async's loss {asynchronous} is not within 10% of dist_sync's {sync}"
    );
}
