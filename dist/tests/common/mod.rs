//! What the multi-rank tests share: deterministic data, training a module, and running
//! this test binary's `worker` under `mpirun` with a deadline.

#![allow(dead_code)] // each test file uses its part

use kiln_dist::launch::Launch;
use kiln_io::NDArrayIter;
use kiln_runtime::{Device, NDArray};
use kiln_train::module::{Fit, OptimizerChoice};
use kiln_train::{Module, StoreChoice};
use std::io::Read;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub struct Case {
    pub name: &'static str,
    pub model: &'static str,
    /// One sample's shape.
    pub sample: &'static [usize],
    pub optimizer: &'static str,
    pub kwargs: &'static [(&'static str, &'static str)],
}

pub const MLP_SGD: Case = Case {
    name: "mlp-sgd",
    model: "mlp",
    sample: &[20],
    optimizer: "sgd",
    kwargs: &[
        ("learning_rate", "0.1"),
        ("momentum", "0.9"),
        ("wd", "0.001"),
    ],
};

/// Row `i` of the job's data and its label: the same in every process.
pub fn row(case: &Case, i: usize) -> (Vec<f32>, f32) {
    let n: usize = case.sample.iter().product();
    let values = (0..n)
        .map(|j| {
            let h = (i * 7919 + j * 104729 + 17).wrapping_mul(2654435761) % 1000;
            h as f32 / 1000.0 - 0.5
        })
        .collect();
    (values, (i % 10) as f32)
}

/// An iterator over `rows` of the job's data in batches of `batch`.
pub fn iterator(case: &Case, rows: &[usize], batch: usize) -> NDArrayIter {
    let (mut data, mut labels) = (Vec::new(), Vec::new());
    for &i in rows {
        let (values, label) = row(case, i);
        data.extend(values);
        labels.push(label);
    }
    let shape: Vec<usize> = [rows.len()].iter().chain(case.sample).copied().collect();
    let data = NDArray::from_slice(&data, &shape).unwrap();
    let labels = NDArray::from_slice(&labels, &[rows.len()]).unwrap();
    let data = vec![("data".to_string(), data)];
    NDArrayIter::new(data, vec![("softmax_label".into(), labels)], batch).unwrap()
}

/// `fit`'s settings for `case` over `epochs` epochs through `store`.
pub fn fit_args<'a>(case: &Case, epochs: usize, store: Option<StoreChoice>) -> Fit<'a> {
    let mut fit = Fit::new(epochs);
    fit.kvstore = store;
    fit.seed = 11;
    fit.initializer = kiln_train::initializer::create("xavier").unwrap();
    let kwargs = (case.kwargs.iter())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    fit.optimizer = OptimizerChoice::Named(case.optimizer.into(), kwargs);
    fit
}

/// A module for `case` on `devices` CPU devices.
pub fn module(case: &Case, devices: usize) -> Module {
    let symbol = kiln_models::get_with_classes(case.model, 10).unwrap();
    let devices = vec![Device::Cpu; devices];
    Module::new(&symbol, &["data"], &["softmax_label"], &devices).unwrap()
}

/// Writes the module's parameters where the test reads them.
pub fn save(module: &Module, path: &Path) {
    let (args, _) = module.get_params().unwrap();
    let named: Vec<(&str, &NDArray)> = args.iter().map(|(k, v)| (k.as_str(), v)).collect();
    NDArray::save(path, &named).unwrap();
}

/// How a job of this test binary's `worker` ended.
pub struct Ended {
    pub status: ExitStatus,
    pub took: Duration,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `worker` of this test binary on `ranks` ranks with `env`; a job still running after
/// `deadline` is killed and the test fails (it hung).
pub fn run_job(ranks: usize, env: &[(&str, &std::ffi::OsStr)], deadline: Duration) -> Ended {
    run_job_with_servers(ranks, 0, env, deadline)
}

/// As [`run_job`], with `servers` more ranks, which the `worker` has serve.
pub fn run_job_with_servers(
    ranks: usize,
    servers: usize,
    env: &[(&str, &std::ffi::OsStr)],
    deadline: Duration,
) -> Ended {
    let exe = std::env::current_exe().unwrap();
    let job = Launch {
        ranks,
        servers,
        hostfile: None,
        command: vec![
            exe.into(),
            "--ignored".into(),
            "--exact".into(),
            "worker".into(),
            "--nocapture".into(),
        ],
        wrapper: Vec::new(),
    };
    let mut mpirun = job.mpirun();
    for (k, v) in env {
        mpirun.env(k, v);
    }
    let start = Instant::now();
    let mut child = mpirun
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let read = |mut stream: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stream.read_to_string(&mut text);
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the job hung: still running after {deadline:?}\n{}",
                stderr.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ended {
        status,
        took: start.elapsed(),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}
