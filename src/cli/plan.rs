//! `kiln plan MODEL-symbol.json --shape data=32,3,224,224 [--train] [--json]
//! [--kernels loops|rust|cuda]`: the fusion
//! groups (members and why each ends), the kernel count, and memory for each planning
//! strategy next to the lower bound. Memory counts intermediate entries and kernel
//! workspace (as MXNet's "Total N MB allocated" plus temporary space); arguments, their
//! gradients and aux states are external. With `--train`, every argument gets a gradient
//! except `data` and the labels, as MXNet's `simple_bind` for training. `--kernels` prints
//! each group lowered to the kernel IR, as a loop nest, Rust or CUDA C, or why it is not.

use super::parse_shape_arg;
use kiln::compiler::kir;
use kiln::compiler::plan::plan_symbol;
use kiln::{Result, Symbol};
use serde_json::json;
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    model: PathBuf,
    /// An input's shape, e.g. `data=32,3,224,224` (repeatable).
    #[arg(long = "shape", value_parser = parse_shape_arg)]
    shapes: Vec<(String, Vec<usize>)>,
    /// Plan the training graph (forward and backward).
    #[arg(long)]
    train: bool,
    /// One JSON object.
    #[arg(long)]
    json: bool,
    /// Print each pass's time.
    #[arg(long)]
    timings: bool,
    /// Print each fused kernel: `loops` (the kernel IR's loop nest), `rust` or `cuda`.
    #[arg(long, value_parser = ["loops", "rust", "cuda"])]
    kernels: Option<String>,
}

/// Each group as a loop nest, Rust or CUDA C, or the reason it is not lowered yet.
fn print_kernels(p: &kiln::compiler::plan::ModelPlan, form: &str) {
    for (i, grp) in p.fusion.groups.iter().enumerate() {
        let name = format!("kernel{i}");
        let render = |k: &kir::Kernel| {
            let nest = || kir::lower(k, &kir::Schedule::cpu(k));
            match form {
                "cuda" => kir::cuda::render(k),
                "rust" => nest().and_then(|n| kir::rust::render(&n)),
                _ => nest().map(|n| n.to_string()),
            }
        };
        let text = kir::from_group(&p.graph, &p.inferred, &grp.nodes, &name).and_then(|ks| {
            ks.iter()
                .map(|l| render(&l.kernel))
                .collect::<Result<String, _>>()
        });
        match text {
            Ok(t) => println!("{t}"),
            Err(e) => println!("// {name}: {e}\n"),
        }
    }
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

pub fn run(args: Args) -> Result<()> {
    let sym = Symbol::load(&args.model)?;
    let shapes: HashMap<String, Vec<usize>> = args.shapes.iter().cloned().collect();
    let p = plan_symbol(&sym, &shapes, args.train)?;
    let g = &p.graph;
    if args.json {
        let groups: Vec<_> = p
            .fusion
            .groups
            .iter()
            .map(|grp| {
                json!({
                    "ops": grp.nodes.iter().map(|&n| g.node(n).op_name()).collect::<Vec<_>>(),
                    "nodes": grp.nodes.iter().map(|&n| g.node(n).name.clone()).collect::<Vec<_>>(),
                    "reason": grp.reason,
                })
            })
            .collect();
        let mut memory = serde_json::Map::new();
        for (name, plan) in &p.plans {
            memory.insert(name.to_string(), json!(mb(plan.bytes)));
        }
        memory.insert("lower_bound".into(), json!(mb(p.lower_bound())));
        if let Some(m) = &p.mirror {
            memory.insert(
                "mirror".into(),
                json!({"mb": mb(m.bytes), "lower_bound": mb(m.lower_bound), "extra_flops": m.extra_flops, "recomputed": m.recomputed}),
            );
        }
        let timings: Vec<_> = p
            .report
            .timings
            .iter()
            .map(|(n, d)| json!({"pass": n, "ms": d.as_secs_f64() * 1e3}))
            .collect();
        println!(
            "{}",
            json!({ "kernels": p.fusion.groups.len(), "groups": groups, "memory_mb": memory, "passes": timings })
        );
        return Ok(());
    }
    println!(
        "{}: {} nodes after passes, {} kernels",
        args.model.display(),
        g.len(),
        p.fusion.groups.len()
    );
    for (i, grp) in p.fusion.groups.iter().enumerate() {
        let members: Vec<String> = grp
            .nodes
            .iter()
            .map(|&n| format!("{} ({})", g.node(n).name, g.node(n).op_name()))
            .collect();
        println!(
            "  kernel {i}: {} — ends: {}",
            members.join(" + "),
            grp.reason
        );
    }
    println!("memory (MB):");
    for (name, plan) in &p.plans {
        println!("  {name:<12} {:>10.2}", mb(plan.bytes));
    }
    println!("  {:<12} {:>10.2}", "lower bound", mb(p.lower_bound()));
    if let Some(m) = &p.mirror {
        println!(
            "  with recomputation in backward (off by default): {:.2} MB, {} nodes recomputed, +{:.3} GFLOPs per step",
            mb(m.bytes),
            m.recomputed,
            m.extra_flops as f64 / 1e9
        );
    }
    if args.timings {
        for (name, d) in &p.report.timings {
            println!("  pass {name:<16} {:.3} ms", d.as_secs_f64() * 1e3);
        }
    }
    if let Some(form) = &args.kernels {
        print_kernels(&p, form);
    }
    Ok(())
}
