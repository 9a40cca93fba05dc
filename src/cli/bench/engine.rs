//! The engine's overhead per pushed no-op operation.

use super::{time, Args};
use kiln::runtime::{Engine, FnProperty, Var};
use kiln::Result;
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;

pub fn run(args: &Args) -> Result<()> {
    const OPS: usize = 100_000;
    let kind = kiln::runtime::Config::global().engine;
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
