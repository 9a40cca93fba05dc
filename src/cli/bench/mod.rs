//! `kiln bench WORKLOAD [--json]`: timings of kiln against a baseline measured in the same
//! run. Each variant reports the median and minimum of its runs after a warm-up.
//!
//! - `engine`: the dependency engine's overhead per pushed no-op operation, against a plain
//!   sequential loop calling the same function (target: ≤ 2 µs per operation).
//! - `elementwise` (W1): `y = a*b + 1` over 2^24 f32 through a bound executor, in GB/s
//!   against the machine's copy bandwidth measured in the same run (target: ≥ 0.9×).
//! - `gemm`: kiln's matrix product on one core against the core's measured peak, with the
//!   caches, tile and blocking it took from this machine, and the former fixed blocking
//!   as an ablation (`gemm.rs`).
//! - `jit`: compile latency per fused kernel of a zoo model's training graph, cold and
//!   cached (target: ≤ 20 ms cold); with `--device cuda`, NVRTC's for the GPU program
//!   (`jit_cuda.rs`).
//! - `mlp-train` (W2: 784-512-512-10 ReLU MLP, batch 128), `lenet-train` (W3: LeNet,
//!   batch 64): one whole SGD training step; `resnet18-infer` (W4: resnet18_v1 at
//!   224×224, `--batch N`, default 1); `resnet18-train` (W6: resnet18_v1 at 224×224,
//!   batch 8, BatchNorm in training mode, SGD with momentum 0.9 through the Module). Peers
//!   run the same workloads in `benches/peers/compare.sh`.
//! - `image-train`: LeNet fed by ImageRecordIter against the same batches in memory —
//!   whether decoding overlaps training.
//! - `gpu-elementwise` (W1 on a GPU) and `gpu-resnet50`: `gpu.rs`, on GPU 0 or the
//!   emulated device (`--device emulated`).
//! - `dist`: the distributed store on 1-4 ranks of this machine — its reduction's cost
//!   and bandwidth, LeNet's step, bytes and time in communication, the overlap with
//!   computation — and a scaling model from them (`dist.rs`).

mod aot;
#[cfg(feature = "mpi")]
mod dist;
mod elementwise;
mod engine;
mod gemm;
#[cfg(feature = "cuda")]
mod gpu;
mod image_train;
mod infer;
#[cfg(feature = "llvm")]
mod jit;
#[cfg(feature = "cuda")]
mod jit_cuda;
mod train;

use kiln::{Error, Result};
use serde_json::{json, Value};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// What to measure: `engine`, `elementwise`, `gemm`, `jit`, `mlp-train`, `lenet-train`,
    /// `resnet18-infer`, `resnet18-train`, `image-train`, `dist`, `gpu-elementwise` or
    /// `gpu-resnet50`.
    workload: String,
    /// One JSON object per line instead of a table.
    #[arg(long)]
    json: bool,
    /// Timed runs per variant (after one warm-up run).
    #[arg(long, default_value_t = 10, value_parser = at_least_one)]
    runs: usize,
    /// The zoo model whose kernels `jit` compiles.
    #[arg(long, default_value = "resnet18_v1")]
    model: String,
    /// `jit`: the kernels of the CPU program (`cpu`, the default: LLVM) or the GPU
    /// program (`cuda`: NVRTC, for GPU 0's architecture, or sm_90 where no GPU is
    /// present). `gpu-*`: GPU 0 (`cuda`, the default) or the emulated device (`emulated`).
    #[arg(long, value_parser = ["cpu", "cuda", "emulated"])]
    device: Option<String>,
    /// `gpu-elementwise`: 2 to this power elements.
    #[arg(long, default_value_t = 28, value_parser = clap::value_parser!(u32).range(1..=31))]
    log2_size: u32,
    /// `gpu-resnet50`: a training step too.
    #[arg(long)]
    train: bool,
    /// Batch size (default: 128 for mlp-train, 64 for lenet-train, 1 for resnet18-infer,
    /// 8 for resnet18-train).
    #[arg(long, value_parser = at_least_one)]
    batch: Option<usize>,
    /// Writes a Chrome trace of the engine's operations to this file (as
    /// `KILN_PROFILE=FILE`); for `dist`, a folder for each job's rank-0 trace.
    #[arg(long)]
    profile: Option<std::path::PathBuf>,
    /// `dist`: the rank counts to run, comma-separated.
    #[arg(long, default_value = "1,2,3,4")]
    ranks: String,
    /// `dist`: also compress the gradients with MXNet's 2-bit rule at this threshold.
    #[arg(long)]
    gc_threshold: Option<f64>,
    /// `dist`: the job a rank runs (`reduce` or `train`), as the bench starts them.
    #[arg(long, hide = true)]
    dist_job: Option<String>,
    /// `elementwise` also runs `a * b + 1.0` as imperative NDArray code (lazily fused).
    #[arg(long)]
    imperative: bool,
    /// `mlp-train` and `lenet-train` also through kiln-train's Module (forward_backward and
    /// update), against the executor's step.
    #[arg(long)]
    module: bool,
    /// `mlp-train`, `lenet-train` and `resnet18-infer` through code generated ahead of time
    /// by `network!` (at the declared batch sizes), against the JIT.
    #[arg(long)]
    aot: bool,
}

/// Median and minimum of `runs` timed calls of `f` (in seconds), after one warm-up call.
fn time(runs: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let t: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    median_and_min(&t)
}

/// The median and the minimum of `times`.
fn median_and_min(times: &[f64]) -> (f64, f64) {
    let mut t = times.to_vec();
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[0])
}

/// Quartiles (first, median, third) of `times` over `first`, run by run: variants that
/// take turns run by run compared within each round, so the machine's slow minutes
/// cancel out of the ratio.
fn paired_quartiles(times: &[f64], first: &[f64]) -> [f64; 3] {
    let mut ratios: Vec<f64> = times.iter().zip(first).map(|(t, f)| t / f).collect();
    ratios.sort_by(f64::total_cmp);
    let quartile = |q: usize| ratios[(ratios.len() - 1) * q / 4];
    [quartile(1), quartile(2), quartile(3)]
}

/// A count of at least 1 (a batch or a number of runs of 0 measures nothing).
fn at_least_one(s: &str) -> std::result::Result<usize, super::ArgError> {
    match s.parse::<usize>() {
        Ok(0) => Err(super::ArgError::Zero),
        Ok(n) => Ok(n),
        // The integer error says no more than this.
        Err(_) => Err(super::ArgError::Form {
            expected: "a positive integer",
            got: s.to_string(),
        }),
    }
}

pub fn run(args: Args) -> Result<()> {
    // The process's configuration before any work (which reads it): the `KILN_*`
    // variables checked, the instruction set limited (`KILN_ISA`), the profile set.
    // `dist` leaves it to its jobs' ranks, and profiles their rank 0 itself.
    if args.workload != "dist" {
        let mut config = kiln::runtime::Config::from_env()?;
        if let Some(path) = &args.profile {
            super::output::check_writable("--profile", path)?;
            config = config.profile(path);
        }
        config.install()?;
    }
    workload(&args)?;
    match kiln::runtime::profiler::write() {
        Ok(Some(path)) => eprintln!("profile written to {}", path.display()),
        Ok(None) => {}
        Err(e) => return Err(Error::Input(format!("writing the profile: {e}"))),
    }
    Ok(())
}

fn workload(args: &Args) -> Result<()> {
    if args.aot {
        return aot::run(args);
    }
    let device = args.device.as_deref();
    let refused = |workload: &str| {
        Err(Error::Input(format!(
            "`bench {workload}` does not run on --device {}",
            device.unwrap_or_default()
        )))
    };
    match args.workload.as_str() {
        "jit" if device == Some("emulated") => refused("jit"),
        w if w.starts_with("gpu-") && device == Some("cpu") => refused(w),
        "engine" => engine::run(args),
        "elementwise" => elementwise::run(args),
        "gemm" => gemm::run(args),
        #[cfg(feature = "cuda")]
        "jit" if device == Some("cuda") => jit_cuda::run(args),
        #[cfg(not(feature = "cuda"))]
        "jit" if device == Some("cuda") => Err(Error::Input(
            "`bench jit --device cuda` needs kiln built with the `cuda` feature".into(),
        )),
        #[cfg(feature = "llvm")]
        "jit" => jit::run(args),
        #[cfg(not(feature = "llvm"))]
        "jit" => Err(Error::Input(
            "`bench jit` needs kiln built with the `llvm` feature".into(),
        )),
        "mlp-train" => {
            let batch = args.batch.unwrap_or(128);
            train::run(args, &train::mlp()?, &[batch, 784], 10, None)
        }
        "lenet-train" => {
            let batch = args.batch.unwrap_or(64);
            let net = kiln::models::get("lenet")?;
            train::run(args, &net, &[batch, 1, 28, 28], 10, None)
        }
        "resnet18-train" => {
            let batch = args.batch.unwrap_or(8);
            let net = kiln::models::get("resnet18_v1")?;
            train::run(args, &net, &[batch, 3, 224, 224], 1000, Some(0.9))
        }
        "resnet18-infer" => infer::run(args),
        "image-train" => image_train::run(args),
        #[cfg(feature = "cuda")]
        "gpu-elementwise" => gpu::elementwise(args),
        #[cfg(feature = "cuda")]
        "gpu-resnet50" => gpu::resnet50(args),
        #[cfg(feature = "mpi")]
        "dist" => dist::run(args),
        other => Err(Error::Input(format!(
            "unknown workload `{other}` (known: engine, elementwise, gemm, jit, mlp-train, \
             lenet-train, resnet18-infer, resnet18-train, image-train, dist, gpu-elementwise, \
             gpu-resnet50)"
        ))),
    }
}

/// Prints compile-latency variants (whole runs over `count` kernels) per kernel, each row
/// with `extra` and `count`, the text naming `what` was compiled.
#[cfg(any(feature = "llvm", feature = "cuda"))]
fn report_per_kernel(
    args: &Args,
    variants: &[(&str, (f64, f64))],
    count: usize,
    mut extra: Value,
    what: &str,
) {
    if let Value::Object(fields) = &mut extra {
        fields.insert("kernels".into(), json!(count));
        fields.insert("per".into(), json!("kernel"));
    }
    for &(variant, (median, min)) in variants {
        let per = (median / count as f64, min / count as f64);
        let text = format!("per kernel, {count} kernels of {what}");
        report(args, variant, per, extra.clone(), &text);
    }
}

/// Prints one variant's result: a JSON object (the common fields plus `extra`) or a line
/// of text.
fn report(args: &Args, variant: &str, (median, min): (f64, f64), extra: Value, text: &str) {
    if args.json {
        let mut row = json!({
            "workload": args.workload,
            "variant": variant,
            "median_ms": median * 1e3,
            "min_ms": min * 1e3,
            "runs": args.runs,
        });
        if let (Some(row), Value::Object(extra)) = (row.as_object_mut(), extra) {
            row.extend(extra);
        }
        println!("{row}");
    } else {
        println!(
            "{}/{variant:<12} median {:9.3} ms  min {:9.3} ms  {text}",
            args.workload,
            median * 1e3,
            min * 1e3
        );
    }
}
