//! Compile latency per fused kernel: every kernel of a zoo model's training graph (batch
//! 1), compiled by a fresh JIT per run.
//!
//! - `cold`: no cache: the IR is rendered, optimized (LLVM O3) and compiled to machine code,
//!   one kernel after another;
//! - `cold-pool`: the same over the kernels' thread pool, as an executor's bind compiles
//!   (the time per kernel is the wall time over the count);
//! - `disk`: a fresh JIT whose cache folder holds the object files (a second process);
//! - `memory`: the same JIT again (a kernel seen before in this process).
//!
//! Times are per kernel: each run's total divided by the number of kernels.

use super::{report_per_kernel, time, Args};
use kiln::compiler::kir::{lower, Kernel, LoopNest, Schedule};
use kiln::compiler::program::{compile, Mode, Spec, StepKind, Target};
use kiln::llvm::Jit;
use kiln::{Error, Result};
use serde_json::json;
use std::collections::HashMap;

pub fn run(args: &Args) -> Result<()> {
    let info = kiln::models::info(&args.model)?;
    let sym = info.build()?;
    let shapes = HashMap::from([("data".to_string(), info.input_shape.to_vec())]);
    let mode = Mode::train_parameters(&sym);
    let program = compile(&sym, &Spec::new(shapes, mode, Target::cpu()))?;
    let mut nests: Vec<LoopNest> = Vec::new();
    let mut add = |k: &Kernel| -> Result<()> {
        nests.push(lower(k, &Schedule::cpu(k))?);
        Ok(())
    };
    for step in &program.steps {
        match &step.kind {
            StepKind::Kernel { ir, .. } => add(ir)?,
            StepKind::Product(p) => {
                for (ir, _) in p.packs.iter().chain(&p.epilogue) {
                    add(ir)?;
                }
            }
            _ => {}
        }
    }
    if nests.is_empty() {
        return Err(Error::Input(format!(
            "`{}` has no fused kernels",
            args.model
        )));
    }
    let count = nests.len();
    let dir = std::env::temp_dir().join(format!("kiln-bench-jit-{}", std::process::id()));
    let compile_all = |jit: &Jit| -> kiln::llvm::Result<()> {
        nests.iter().try_for_each(|n| jit.compile(n).map(drop))
    };
    let mut failure = None;
    let mut record = |r: kiln::llvm::Result<()>| {
        if let Err(e) = r {
            failure.get_or_insert(e);
        }
    };
    let cold = time(args.runs, || {
        record(Jit::new(None).and_then(|j| compile_all(&j)))
    });
    let pool = kiln::runtime::cpu::pool::global();
    let cold_pool = time(args.runs, || {
        let failed = std::sync::Mutex::new(None);
        match Jit::new(None) {
            Ok(jit) => pool.run(count, &|t| {
                if let Err(e) = jit.compile(&nests[t]) {
                    failed
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get_or_insert(e);
                }
            }),
            Err(e) => record(Err(e)),
        }
        if let Some(e) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
            record(Err(e));
        }
    });
    // Fill the folder once; each run then starts a fresh JIT on it.
    record(Jit::new(Some(dir.clone())).and_then(|j| compile_all(&j)));
    let disk = time(args.runs, || {
        record(Jit::new(Some(dir.clone())).and_then(|j| compile_all(&j)))
    });
    let warm = Jit::new(None)?;
    record(compile_all(&warm));
    let memory = time(args.runs, || record(compile_all(&warm)));
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(e) = failure {
        return Err(Error::from(e));
    }
    let variants = [
        ("cold", cold),
        ("cold-pool", cold_pool),
        ("disk", disk),
        ("memory", memory),
    ];
    let extra = json!({ "model": args.model });
    report_per_kernel(args, &variants, count, extra, &args.model);
    Ok(())
}
