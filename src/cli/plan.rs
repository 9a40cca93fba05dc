//! `kiln plan MODEL --shape data=32,3,224,224 [--train] [--json] [--steps]
//! [--timings] [--kernels loops|rust|cuda]`: the program an executor runs for the model (a
//! symbol file, or a model of the zoo by name) (the same compile step: passes, steps, order, layout), its step counts, and its memory
//! next to MXNet's heuristics on the same graph and the lower bound; then an executor is
//! bound and the memory it allocated is printed beside the plan (`executed`).
//!
//! Memory counts internal memory: intermediate values, the steps' workspace, arrays kept
//! beside the arena (as MXNet's "Total N MB allocated" plus temporary space); arguments,
//! their gradients, aux states and outputs are external. With `--train`, every argument
//! gets a gradient except `data` and the labels, as MXNet's `simple_bind` for training.
//! `--steps` prints the fusion groups (and why each ends) and the whole program; `--kernels` each compiled kernel as a loop nest,
//! Rust or CUDA C.

use super::parse_shape_arg;
use kiln::compiler::kir;
use kiln::compiler::program::{compile, mxnet_strategies, Mode, Program, StepKind};
use kiln::runtime::{Device, Executor, GradReqs};
use kiln::{Result, Symbol};
use serde_json::json;
use std::collections::HashMap;

#[derive(clap::Args)]
pub struct Args {
    /// The network: a symbol file, or a model of the zoo by name.
    model: String,
    /// An input's shape, e.g. `data=32,3,224,224` (repeatable).
    #[arg(long = "shape", value_parser = parse_shape_arg)]
    shapes: Vec<(String, Vec<usize>)>,
    /// Plan the training program (forward and backward).
    #[arg(long)]
    train: bool,
    /// One JSON object.
    #[arg(long)]
    json: bool,
    /// Print the program: every step, where its values live, the segments.
    #[arg(long)]
    steps: bool,
    /// Print each pass's time.
    #[arg(long)]
    timings: bool,
    /// Print each compiled kernel: `loops` (the kernel IR's loop nest), `rust` or `cuda`.
    #[arg(long, value_parser = ["loops", "rust", "cuda"])]
    kernels: Option<String>,
}

/// Each compiled kernel of the program as a loop nest, Rust or CUDA C.
fn print_kernels(p: &Program, form: &str) -> Result<()> {
    for step in p.programs().iter().flat_map(|p| &p.steps) {
        let kernels: Vec<&kir::Kernel> = match &step.kind {
            StepKind::Kernel { ir, .. } => vec![ir],
            StepKind::Product(prod) => (prod.packs.iter().chain(&prod.epilogue))
                .map(|(ir, _)| ir)
                .collect(),
            _ => continue,
        };
        for k in kernels {
            let nest = || kir::lower(k, &kir::Schedule::cpu(k));
            let text = match form {
                "cuda" => kir::cuda::render(k),
                "rust" => nest().and_then(|n| kir::rust::render(&n)),
                _ => nest().map(|n| n.to_string()),
            };
            println!("{}", text?);
        }
    }
    Ok(())
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// The internal memory of an executor bound for `mode` (on the CPU, the default backend).
fn executed_bytes(sym: &Symbol, shapes: &[(String, Vec<usize>)], mode: &Mode) -> Result<usize> {
    let reqs = GradReqs::of(mode);
    let shapes: Vec<(&str, &[usize])> = shapes.iter().map(|(n, s)| (n.as_str(), &s[..])).collect();
    let exe = Executor::simple_bind(sym, Device::Cpu, &shapes, reqs)?;
    Ok(exe.memory().internal())
}

pub fn run(args: Args) -> Result<()> {
    let sym = super::train::load_model(&args.model)?;
    let shapes: HashMap<String, Vec<usize>> = args.shapes.iter().cloned().collect();
    let mode = if args.train {
        Mode::train_parameters(&sym)
    } else {
        Mode::Inference
    };
    let spec = kiln::runtime::Config::global().spec(shapes, mode.clone());
    let p = compile(&sym, &spec)?;
    let mxnet = mxnet_strategies(&sym, &spec)?;
    let executed = executed_bytes(&sym, &args.shapes, &mode)?;
    let planned = p.internal_bytes();
    let counts = p.counts();
    if args.json {
        let mut memory = serde_json::Map::new();
        for (name, bytes) in &mxnet {
            memory.insert(name.to_string(), json!(mb(*bytes)));
        }
        memory.insert("kiln".into(), json!(mb(planned)));
        memory.insert("executed".into(), json!(mb(executed)));
        memory.insert("arena".into(), json!(mb(p.arena_bytes())));
        memory.insert("lower_bound".into(), json!(mb(p.lower_bound())));
        let timings: Vec<_> = (p.report.timings.iter())
            .map(|(n, d)| json!({"pass": n, "ms": d.as_secs_f64() * 1e3}))
            .collect();
        let groups: Vec<_> = (p.programs().into_iter())
            .flat_map(|p| p.fusion.groups.iter().map(move |grp| (p.graph(), grp)))
            .map(|(g, grp)| {
                json!({
                    "ops": grp.nodes.iter().map(|&n| g.node(n).op_name()).collect::<Vec<_>>(),
                    "nodes": grp.nodes.iter().map(|&n| g.node(n).name.clone()).collect::<Vec<_>>(),
                    "reason": grp.reason,
                })
            })
            .collect();
        println!(
            "{}",
            json!({
                "groups": groups,
                "steps": p.programs().iter().map(|p| p.steps.len()).sum::<usize>(),
                "kernels": counts.kernels, "products": counts.products,
                "winograd": counts.winograd, "large_tiles": counts.large_tiles, "native": counts.native,
                "reference": counts.reference,
                "segments": p.segments.len(),
                "memory_mb": memory, "passes": timings
            })
        );
        return Ok(());
    }
    println!(
        "{}: {} nodes after passes, {} steps ({counts})",
        args.model,
        p.programs().iter().map(|p| p.graph().len()).sum::<usize>(),
        p.programs().iter().map(|p| p.steps.len()).sum::<usize>()
    );
    if args.steps {
        let groups = (p.programs().into_iter())
            .flat_map(|p| p.fusion.groups.iter().map(move |grp| (p.graph(), grp)));
        for (i, (g, grp)) in groups.enumerate() {
            let members: Vec<String> = (grp.nodes.iter())
                .map(|&n| format!("{} ({})", g.node(n).name, g.node(n).op_name()))
                .collect();
            println!(
                "  group {i}: {} — ends: {}",
                members.join(" + "),
                grp.reason
            );
        }
        print!("{p}");
    }
    println!("memory (MB):");
    for (name, bytes) in &mxnet {
        println!("  {name:<12} {:>10.2}", mb(*bytes));
    }
    println!(
        "  {:<12} {:>10.2}  (arena {:.2}, lower bound {:.2})",
        "kiln",
        mb(planned),
        mb(p.arena_bytes()),
        mb(p.lower_bound())
    );
    println!("  {:<12} {:>10.2}", "executed", mb(executed));
    if args.timings {
        for (name, d) in &p.report.timings {
            println!("  pass {name:<16} {:.3} ms", d.as_secs_f64() * 1e3);
        }
    }
    if let Some(form) = &args.kernels {
        print_kernels(&p, form)?;
    }
    Ok(())
}
