//! `kiln bench WORKLOAD [--json]`: timings of kiln against a baseline measured in the same
//! run. Each variant reports the median and minimum of its runs after a warm-up.
//!
//! - `engine`: the dependency engine's overhead per pushed no-op operation, against a plain
//!   sequential loop calling the same function (target: ≤ 2 µs per operation).

use kiln::runtime::{Engine, EngineKind, FnProperty, Var};
use kiln::{Error, Result};
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// What to measure: `engine`.
    workload: String,
    /// One JSON object per line instead of a table.
    #[arg(long)]
    json: bool,
    /// Timed runs per variant (after one warm-up run).
    #[arg(long, default_value_t = 10)]
    runs: usize,
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
        "engine" => engine(&args),
        other => Err(Error::Input(format!(
            "unknown workload `{other}` (known: engine)"
        ))),
    }
}

fn engine(args: &Args) -> Result<()> {
    const OPS: usize = 100_000;
    let kind = EngineKind::from_env();
    let e = Engine::new(kind);
    let noop: Arc<dyn Fn() -> std::result::Result<(), String> + Send + Sync> = Arc::new(|| Ok(()));
    let (seq_median, _) = time(args.runs, || {
        for _ in 0..OPS {
            black_box(black_box(&noop)()).ok();
        }
    });
    let seq_us = seq_median / OPS as f64 * 1e6;
    // Independent operations (each writes its own variable) and a dependency chain (all
    // write one variable).
    let vars: Vec<Var> = (0..64).map(|_| e.new_var()).collect();
    let variants: [(&str, Vec<Var>); 2] = [("independent", vars), ("chain", vec![e.new_var()])];
    for (variant, vars) in variants {
        let ops: Vec<_> = vars
            .iter()
            .map(|v| {
                let f = noop.clone();
                e.new_operator(
                    "noop",
                    &[],
                    std::slice::from_ref(v),
                    FnProperty::Normal,
                    move || f(),
                )
            })
            .collect();
        let (median, min) = time(args.runs, || {
            for i in 0..OPS {
                e.push(&ops[i % ops.len()], 0);
            }
            e.wait_all().ok();
        });
        let us = median / OPS as f64 * 1e6;
        if args.json {
            let row = json!({
                "workload": "engine",
                "variant": variant,
                "engine": format!("{kind:?}"),
                "ops": OPS,
                "median_ms": median * 1e3,
                "min_ms": min * 1e3,
                "runs": args.runs,
                "us_per_op": us,
                "sequential_us_per_op": seq_us,
            });
            println!("{row}");
        } else {
            println!(
                "engine/{variant:<11} {kind:?}: {us:.3} µs per pushed no-op (median of {} runs of {OPS}; min {:.3} µs); sequential loop {seq_us:.4} µs",
                args.runs,
                min / OPS as f64 * 1e6
            );
        }
    }
    Ok(())
}
