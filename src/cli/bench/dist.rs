//! `kiln bench dist [--ranks 1,2,3,4] [--batch B] [--runs R] [--gc-threshold T]`: the
//! distributed store on this machine, each rank count a job started through `mpirun`.
//!
//! Per rank count N, two jobs of this command (`--dist-job reduce|train`):
//! - `reduce`: one key pushed and pulled (no updater) for sizes of 4 KB to 16 MB, the
//!   median time of each; the smallest gives the per-message cost α, the largest the
//!   bandwidth β of kiln's reduction here (`t = α + 2(N-1)/N · bytes / β`).
//! - `train`: LeNet (batch B per worker, SGD with momentum) through a `dist_sync` store
//!   (2-bit compressed with `--gc-threshold`): the step's median time, bytes sent and time
//!   in collectives per step, and the overlap of communication with computation, read from
//!   rank 0's engine profile (written beside, for chrome://tracing): the share of the
//!   reductions' time (from a gradient being ready to its sum being written) during which
//!   an engine worker was computing.
//!
//! Then a model predicts the scaling efficiency of ResNet-50 and Inception-v3 (their
//! parameter arrays counted from kiln's zoo) on M machines of 8 GPUs, from the fitted α
//! and the overlap measured here, with the assumptions it prints.

use super::Args;
use kiln::compiler::autodiff::GradReq;
use kiln::dist::launch::Launch;
use kiln::io::{DataBatch, DataDesc};
use kiln::runtime::{Device, Engine, NDArray};
use kiln::train::{initializer, Module, StoreChoice};
use kiln::{DType, Error, Result};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// Floats per pushed key in the `reduce` job: 4 KB to 16 MB.
const SIZES: [usize; 7] = [
    1 << 10,
    1 << 12,
    1 << 14,
    1 << 16,
    1 << 18,
    1 << 20,
    1 << 22,
];

fn bench_err(e: impl std::fmt::Display) -> Error {
    Error::Input(e.to_string())
}

pub fn run(args: &Args) -> Result<()> {
    match args.dist_job.as_deref() {
        Some("reduce") => return reduce_job(args),
        Some("train") => return train_job(args),
        Some(other) => return Err(bench_err(format!("unknown --dist-job {other}"))),
        None => {}
    }
    let ranks: Vec<usize> = (args.ranks.split(','))
        .map(|r| r.trim().parse().ok().filter(|&r| r > 0))
        .collect::<Option<_>>()
        .ok_or_else(|| bench_err(format!("--ranks {}: counts such as 1,2,3,4", args.ranks)))?;
    let traces = match &args.profile {
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join("kiln-bench-dist"),
    };
    std::fs::create_dir_all(&traces).map_err(bench_err)?;
    println!("{}", machine());
    let mut fits = Vec::new();
    let mut overlaps = Vec::new();
    for &n in &ranks {
        let reduce = job(n, "reduce", args, &traces)?;
        let points: Vec<(f64, f64)> = (reduce["points"].as_array().into_iter().flatten())
            .filter_map(|p| Some((p[0].as_f64()?, p[1].as_f64()?)))
            .collect();
        let mpi: Vec<(f64, f64)> = (reduce["mpi"].as_array().into_iter().flatten())
            .filter_map(|p| Some((p[0].as_f64()?, p[1].as_f64()?)))
            .collect();
        let fit = (n > 1).then(|| (fit_cost(n, &points), fit_cost(n, &mpi)));
        let train = job(n, "train", args, &traces)?;
        print_rank_count(args, n, (&points, &mpi), fit, &train);
        if let Some((fit, _)) = fit {
            fits.push(fit);
        }
        if let Some(overlap) = train["overlap"].as_f64().filter(|_| n > 1) {
            overlaps.push(overlap);
        }
    }
    if let (Some(&(alpha, beta)), Some(&overlap)) = (fits.last(), overlaps.last()) {
        model(args, alpha, beta, overlap)?;
    }
    Ok(())
}

/// The CPU this runs on and its core count, for the record beside the figures.
fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = (cpuinfo.lines())
        .find_map(|l| {
            l.strip_prefix("model name")?
                .split_once(':')
                .map(|(_, m)| m.trim())
        })
        .unwrap_or("an unknown CPU");
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{model}, {cores} cores; every rank on this machine")
}

/// Runs one job of `n` ranks and returns the JSON line its rank 0 printed.
fn job(n: usize, kind: &str, args: &Args, traces: &Path) -> Result<Value> {
    let exe = std::env::current_exe().map_err(bench_err)?;
    let mut command: Vec<std::ffi::OsString> = vec![
        exe.into(),
        "bench".into(),
        "dist".into(),
        "--dist-job".into(),
        kind.into(),
        "--runs".into(),
        args.runs.to_string().into(),
        "--batch".into(),
        args.batch.unwrap_or(32).to_string().into(),
        "--profile".into(),
        traces.join(format!("{kind}-{n}-ranks.json")).into(),
    ];
    if let Some(t) = args.gc_threshold {
        command.extend(["--gc-threshold".into(), t.to_string().into()]);
    }
    let launch = Launch {
        servers: 0,
        ranks: n,
        hostfile: None,
        command,
        wrapper: Vec::new(),
    };
    let out = launch.mpirun().output().map_err(bench_err)?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(bench_err(format!(
            "the {kind} job of {n} ranks failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    (stdout.lines())
        .find_map(|l| serde_json::from_str(l.split_once("<stdout>:")?.1).ok())
        .ok_or_else(|| bench_err(format!("the {kind} job of {n} ranks printed no result")))
}

/// α (seconds per message: the least time of the three smallest messages) and β (bytes per second: the
/// largest message's share, 2(N-1)/N of its bytes, over its time beyond α) of
/// `t = α + 2(N-1)/N · bytes / β`.
fn fit_cost(n: usize, points: &[(f64, f64)]) -> (f64, f64) {
    let share = 2.0 * (n as f64 - 1.0) / n as f64;
    let alpha = points
        .iter()
        .take(3)
        .map(|p| p.1)
        .fold(f64::INFINITY, f64::min);
    let last = points[points.len() - 1];
    (
        alpha,
        share * last.0 / (last.1 - alpha).max(f64::MIN_POSITIVE),
    )
}

type Fit = (f64, f64);
/// (bytes, seconds) per message size.
type Timings = [(f64, f64)];

fn print_rank_count(
    args: &Args,
    n: usize,
    (points, mpi): (&Timings, &Timings),
    fit: Option<(Fit, Fit)>,
    train: &Value,
) {
    if args.json {
        let fit = fit.map(|((a, b), (ma, mb))| {
            json!({"alpha_us": a * 1e6, "beta_gb_s": b / 1e9, "mpi_alpha_us": ma * 1e6, "mpi_beta_gb_s": mb / 1e9})
        });
        println!(
            "{}",
            json!({"workload": "dist", "ranks": n, "reduce": points, "mpi_allreduce": mpi, "fit": fit, "train": train})
        );
        return;
    }
    let ms = |key: &str| train[key].as_f64().unwrap_or(f64::NAN) * 1e3;
    println!(
        "{n} rank(s): LeNet step {:.2} ms (median), {:.0} KB sent in {} collectives per step, {:.2} ms in them, overlap with computation {:.0}%",
        ms("step_s"),
        train["bytes_per_step"].as_f64().unwrap_or(f64::NAN) / 1e3,
        train["collectives_per_step"].as_f64().unwrap_or(f64::NAN),
        ms("comm_s_per_step"),
        train["overlap"].as_f64().unwrap_or(f64::NAN) * 100.0,
    );
    let sizes: Vec<String> = (points.iter())
        .map(|(b, t)| format!("{:.0} KB {:.3} ms", b / 1e3, t * 1e3))
        .collect();
    println!("  push+pull of one key: {}", sizes.join(", "));
    let sizes: Vec<String> = (mpi.iter())
        .map(|(b, t)| format!("{:.0} KB {:.3} ms", b / 1e3, t * 1e3))
        .collect();
    println!("  MPI_Allreduce alone:  {}", sizes.join(", "));
    if let Some(((alpha, beta), (mpi_alpha, mpi_beta))) = fit {
        println!(
            "  fit: α = {:.1} µs per message, β = {:.2} GB/s (MPI_Allreduce: {:.1} µs, {:.2} GB/s)",
            alpha * 1e6,
            beta / 1e9,
            mpi_alpha * 1e6,
            mpi_beta / 1e9
        );
    }
}

/// Starts this rank's store and, on rank 0, its engine profile (before any engine work).
fn start(args: &Args) -> Result<kiln::kvstore::KVStore> {
    let mut store = kiln::dist::create("dist_sync").map_err(bench_err)?;
    if let Some(t) = args.gc_threshold {
        let threshold = t.to_string();
        (store.set_gradient_compression(&[("type", "2bit"), ("threshold", &threshold)]))
            .map_err(bench_err)?;
    }
    if let (0, Some(path)) = (store.rank(), &args.profile) {
        kiln::runtime::Config::from_env()?.profile(path).install()?;
    }
    Ok(store)
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn reduce_job(args: &Args) -> Result<()> {
    let mut store = start(args)?;
    let mut points = Vec::new();
    for (key, &floats) in SIZES.iter().enumerate() {
        let value = NDArray::full(&[floats], 1.0, DType::F32, Device::Cpu)?;
        store.init(key as i64, &value).map_err(bench_err)?;
        let mut times = Vec::new();
        for run in 0..args.runs + 2 {
            let start = Instant::now();
            store
                .pushpull(key as i64, std::slice::from_ref(&value), &[], 0)
                .map_err(bench_err)?;
            value.wait_to_read()?;
            if run >= 2 {
                times.push(start.elapsed().as_secs_f64());
            }
        }
        points.push((floats as f64 * 4.0, median(times)));
    }
    let worker = kiln::dist::Worker::current().ok_or_else(|| bench_err("no MPI job"))?;
    let mpi: Vec<(f64, f64)> = (SIZES.iter())
        .map(|&floats| {
            Ok((
                floats as f64 * 4.0,
                worker.time_mpi_allreduce(floats, args.runs)?,
            ))
        })
        .collect::<std::result::Result<_, kiln::kvstore::Error>>()
        .map_err(bench_err)?;
    if store.rank() == 0 {
        println!("{}", json!({ "points": points, "mpi": mpi }));
    }
    Ok(())
}

fn train_job(args: &Args) -> Result<()> {
    let store = start(args)?;
    let rank = store.rank();
    let worker = kiln::dist::Worker::current().ok_or_else(|| bench_err("no MPI job"))?;
    let train_err = |e: kiln::train::Error| bench_err(e);
    let batch = args.batch.unwrap_or(32);
    let symbol = kiln::models::get("lenet")?;
    let mut module =
        Module::new(&symbol, &["data"], &["softmax_label"], &[Device::Cpu]).map_err(train_err)?;
    let shapes = [
        ("data", vec![batch, 1, 28, 28]),
        ("softmax_label", vec![batch]),
    ]
    .map(|(name, shape)| DataDesc {
        name: name.into(),
        shape,
        dtype: DType::F32,
    });
    (module.bind(&shapes[..1], &shapes[1..], true, false, GradReq::Write)).map_err(train_err)?;
    let init = initializer::create("xavier").map_err(train_err)?;
    let mut rng = kiln::train::initializer::Rng::new(0);
    (module.init_params(init.as_ref(), &mut rng, None, None, false, false)).map_err(train_err)?;
    let kwargs = [("learning_rate", "0.01"), ("momentum", "0.9")];
    (module.init_optimizer_by_name(Some(StoreChoice::Value(store)), "sgd", &kwargs))
        .map_err(train_err)?;
    let data: Vec<f32> = (0..batch * 784).map(|i| (i % 255) as f32 / 255.0).collect();
    let labels: Vec<f32> = (0..batch).map(|i| (i % 10) as f32).collect();
    let step = DataBatch {
        data: vec![NDArray::from_slice(&data, &[batch, 1, 28, 28])?],
        label: vec![NDArray::from_slice(&labels, &[batch])?],
        pad: 0,
    };
    let mut one_step = || -> Result<f64> {
        let start = Instant::now();
        module.forward_backward(&step).map_err(train_err)?;
        module.update().map_err(train_err)?;
        Engine::global().wait_all()?;
        Ok(start.elapsed().as_secs_f64())
    };
    for _ in 0..2 {
        one_step()?;
    }
    let before = worker.traffic();
    let times = (0..args.runs)
        .map(|_| one_step())
        .collect::<Result<Vec<_>>>()?;
    let after = worker.traffic();
    let steps = args.runs as f64;
    if rank == 0 {
        let overlap = match kiln::runtime::profiler::write().map_err(bench_err)? {
            Some(trace) => overlap(&trace)?,
            None => f64::NAN,
        };
        let result = json!({
            "step_s": median(times),
            "bytes_per_step": (after.bytes_sent - before.bytes_sent) as f64 / steps,
            "comm_s_per_step": (after.busy - before.busy).as_secs_f64() / steps,
            "collectives_per_step": (after.collectives - before.collectives) as f64 / steps,
            "overlap": overlap,
        });
        println!("{result}");
    }
    Ok(())
}

/// From an engine profile: the share of the reductions' time (`dist_*` operations, from
/// their data being ready to their result written) during which an engine worker ran an
/// operation.
fn overlap(trace: &Path) -> Result<f64> {
    let text = std::fs::read_to_string(trace).map_err(bench_err)?;
    let trace: Value = serde_json::from_str(&text).map_err(bench_err)?;
    let events = trace["traceEvents"].as_array().cloned().unwrap_or_default();
    let workers: Vec<u64> = (events.iter())
        .filter(|e| e["ph"] == "M")
        .filter(|e| {
            (e["args"]["name"].as_str()).is_some_and(|n| n.starts_with("kiln-engine-worker"))
        })
        .filter_map(|e| e["tid"].as_u64())
        .collect();
    let span = |e: &Value| Some((e["ts"].as_f64()?, e["ts"].as_f64()? + e["dur"].as_f64()?));
    let spans = |keep: &dyn Fn(&Value) -> bool| -> Vec<(f64, f64)> {
        union(
            events
                .iter()
                .filter(|e| e["ph"] == "X" && keep(e))
                .filter_map(span)
                .collect(),
        )
    };
    let comm = spans(&|e| e["name"].as_str().is_some_and(|n| n.starts_with("dist_")));
    let compute = spans(&|e| e["tid"].as_u64().is_some_and(|t| workers.contains(&t)));
    let total: f64 = comm.iter().map(|(a, b)| b - a).sum();
    let shared: f64 = (comm.iter())
        .flat_map(|c| {
            compute
                .iter()
                .map(move |w| (c.1.min(w.1) - c.0.max(w.0)).max(0.0))
        })
        .sum();
    Ok(if total > 0.0 { shared / total } else { 0.0 })
}

/// The union of intervals, as disjoint sorted intervals.
fn union(mut spans: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut merged: Vec<(f64, f64)> = Vec::new();
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// A network the model scales: its parameter arrays (messages) and bytes, from kiln's zoo,
/// and a P100's training throughput (TensorFlow's published benchmarks, batch 64,
/// synthetic data), the GPUs of Horovod's published run.
struct Network {
    name: &'static str,
    zoo: &'static str,
    images_per_s: f64,
}

const NETWORKS: [Network; 2] = [
    Network {
        name: "ResNet-50",
        zoo: "resnet50_v1",
        images_per_s: 219.0,
    },
    Network {
        name: "Inception-v3",
        zoo: "inception_v3",
        images_per_s: 142.0,
    },
];

/// Assumptions of the model, printed with it.
const GPUS: f64 = 8.0;
const BATCH_PER_GPU: f64 = 64.0;
/// Backward's share of a step, during which reductions can overlap.
const BACKWARD_SHARE: f64 = 2.0 / 3.0;
/// NVLink all-reduce bandwidth inside a machine (level 1), bytes/s.
const INTRA_BYTES_S: f64 = 40e9;
/// Network latency per message hop between machines, seconds.
const NET_LATENCY_S: f64 = 10e-6;
/// The buffer small arrays would be fused into (Horovod's tensor fusion), bytes.
const FUSION_BYTES: f64 = 64e6;

/// Predicted scaling efficiency on M machines of 8 GPUs: the step is compute (the GPU's
/// published throughput) plus the reduction not hidden behind backward. The reduction is
/// kiln's two levels: inside a machine at NVLink speed, then a reduce-scatter and
/// all-gather across machines, 2(M-1)/M of the bytes at the link's speed, plus per
/// message kiln's measured per-message cost α and 2(M-1) network hops — one message per
/// parameter array (as MXNet sends them), per bucket of up to 1 MiB (as kiln's Module
/// sends them), or per 64 MB buffer with arrays fused.
fn model(args: &Args, alpha: f64, beta: f64, overlap: f64) -> Result<()> {
    println!();
    println!(
        "Scaling model (α = {:.1} µs per message and overlap {:.0}% measured here, β = {:.2} GB/s here; assumed: \
         {GPUS} P100s per machine at TensorFlow's published images/s, batch {BATCH_PER_GPU} per GPU, backward {:.0}% of a step, \
         NVLink all-reduce {:.0} GB/s, {:.0} µs per network hop):",
        alpha * 1e6,
        overlap * 100.0,
        beta / 1e9,
        BACKWARD_SHARE * 100.0,
        INTRA_BYTES_S / 1e9,
        NET_LATENCY_S * 1e6
    );
    let machines = [8.0, 16.0, 32.0, 64.0, 128.0, 256.0];
    let header: Vec<String> = machines
        .iter()
        .map(|m| format!("{:>6}", m * GPUS))
        .collect();
    println!(
        "{:<14} {:>9} {:>10}  GPUs: {}",
        "network",
        "link",
        "messages",
        header.join(" ")
    );
    for net in &NETWORKS {
        let symbol = kiln::models::get(net.zoo)?;
        let data = [1usize, 3, 224, 224];
        let data = match net.zoo {
            "inception_v3" => [1, 3, 299, 299],
            _ => data,
        };
        let shapes = symbol.infer_shape(&[("data", &data)])?;
        let params: Vec<usize> = (symbol.list_arguments().iter().zip(&shapes.arguments))
            .filter(|(n, _)| *n != "data" && !n.ends_with("label"))
            .map(|(_, s)| s.iter().product())
            .collect();
        let bytes = params.iter().sum::<usize>() as f64 * 4.0;
        let keys = params.len() as f64;
        // The Module's buckets: consecutive arrays, last first, up to 1 MiB.
        let (mut buckets, mut filled) = (0.0, None);
        for &n in params.iter().rev() {
            filled = match filled {
                Some(f) if f + 4 * n <= 1 << 20 => Some(f + 4 * n),
                _ => {
                    buckets += 1.0;
                    Some(4 * n)
                }
            };
        }
        let compute = BATCH_PER_GPU / net.images_per_s;
        for gbit in [25.0, 100.0] {
            let link = gbit * 1e9 / 8.0;
            for messages in [keys, buckets, (bytes / FUSION_BYTES).ceil()] {
                let row: Vec<String> = (machines.iter())
                    .map(|&m| {
                        let intra = 2.0 * (GPUS - 1.0) / GPUS * bytes / INTRA_BYTES_S;
                        let inter = 2.0 * (m - 1.0) / m * bytes / link
                            + messages * (alpha + 2.0 * (m - 1.0) * NET_LATENCY_S);
                        let hidden = overlap * BACKWARD_SHARE * compute;
                        let exposed = (intra + inter - hidden).max(0.0);
                        format!("{:>5.0}%", 100.0 * compute / (compute + exposed))
                    })
                    .collect();
                println!(
                    "{:<14} {:>4} Gb/s {:>10}        {}",
                    net.name,
                    gbit,
                    messages,
                    row.join(" ")
                );
            }
        }
        println!(
            "{:<14} ({keys} arrays, {:.1} MB of f32 gradients)",
            "",
            bytes / 1e6
        );
    }
    if args.json {
        println!(
            "{}",
            json!({"model": {"alpha_s": alpha, "beta_bytes_s": beta, "overlap": overlap}})
        );
    }
    Ok(())
}
