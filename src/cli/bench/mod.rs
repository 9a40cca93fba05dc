//! `kiln bench WORKLOAD [--json]`: timings of kiln against a baseline measured in the same
//! run. Each variant reports the median and minimum of its runs after a warm-up.
//!
//! - `engine`: the dependency engine's overhead per pushed no-op operation, against a plain
//!   sequential loop calling the same function (target: ≤ 2 µs per operation).
//! - `elementwise` (W1): `y = a*b + 1` over 2^24 f32 through a bound executor, in GB/s
//!   against the machine's copy bandwidth measured in the same run (target: ≥ 0.9×).
//! - `jit`: compile latency per fused kernel of a zoo model's training graph, cold and
//!   cached (target: ≤ 20 ms cold).

mod elementwise;
mod engine;
#[cfg(feature = "llvm")]
mod jit;

use kiln::{Error, Result};
use serde_json::{json, Value};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// What to measure: `engine`, `elementwise` or `jit`.
    workload: String,
    /// One JSON object per line instead of a table.
    #[arg(long)]
    json: bool,
    /// Timed runs per variant (after one warm-up run).
    #[arg(long, default_value_t = 10)]
    runs: usize,
    /// The zoo model whose kernels `jit` compiles.
    #[arg(long, default_value = "resnet18_v1")]
    model: String,
}

/// Median and minimum of `runs` timed calls of `f` (in seconds), after one warm-up call.
fn time(runs: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let mut t: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[0])
}

pub fn run(args: Args) -> Result<()> {
    match args.workload.as_str() {
        "engine" => engine::run(&args),
        "elementwise" => elementwise::run(&args),
        #[cfg(feature = "llvm")]
        "jit" => jit::run(&args),
        #[cfg(not(feature = "llvm"))]
        "jit" => Err(Error::Input(
            "`bench jit` needs kiln built with the `llvm` feature".into(),
        )),
        other => Err(Error::Input(format!(
            "unknown workload `{other}` (known: engine, elementwise, jit)"
        ))),
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
