//! `kiln plan MODEL-symbol.json --shape data=32,3,224,224 [--train] [--json]`: the fusion
//! groups (members and why each ends), the kernel count, and memory for each planning
//! strategy next to the lower bound. Memory counts intermediate entries and kernel
//! workspace (as MXNet's "Total N MB allocated" plus temporary space); arguments, their
//! gradients and aux states are external. With `--train`, every argument gets a gradient
//! except `data` and the labels, as MXNet's `simple_bind` for training.

use super::parse_shape_arg;
use kiln::compiler::autodiff::{differentiate, GradReq};
use kiln::compiler::passes::{fuse, Pipeline};
use kiln::compiler::plan::{plan, Strategy};
use kiln::compiler::{infer, Entry};
use kiln::{Error, Result, Symbol};
use serde_json::json;
use std::collections::{HashMap, HashSet};
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
}

const STRATEGIES: [(&str, Strategy); 5] = [
    ("naive", Strategy::Naive),
    ("inplace", Strategy::InPlace),
    ("coshare", Strategy::CoShare),
    ("both", Strategy::Both),
    ("kiln", Strategy::Kiln),
];

pub fn run(args: Args) -> Result<()> {
    let sym = Symbol::load(&args.model)?;
    let forward = sym.to_graph()?;
    let (graph, num_external_from) = if args.train {
        let reqs: HashMap<String, GradReq> = sym
            .list_arguments()
            .into_iter()
            .filter(|n| n != "data" && !n.ends_with("label"))
            .map(|n| (n, GradReq::Write))
            .collect();
        let tg = differentiate(&forward, &reqs, true)?;
        (tg.graph, tg.num_outputs)
    } else {
        let n = forward.heads.len();
        (forward, n)
    };
    let pipeline = if args.train {
        Pipeline::standard()
    } else {
        Pipeline::inference()
    };
    let (out, report) = pipeline.run(&graph)?;
    let g = out.graph;
    // Gradients and aux updates are written into bound arrays.
    let external: HashSet<Entry> = g.heads[num_external_from..].iter().copied().collect();
    let known: HashMap<String, Vec<usize>> = args.shapes.iter().cloned().collect();
    for name in known.keys() {
        if g.variable(name).is_none() {
            return Err(Error::Input(format!(
                "--shape {name}: the model has no input named `{name}`"
            )));
        }
    }
    let inferred = infer::infer(&g, &known, &HashMap::new())?;
    let fusion = fuse(&g);
    let plans: Vec<(&str, _)> = STRATEGIES
        .iter()
        .map(|&(name, s)| (name, plan(&g, &inferred, Some(&fusion), &external, s)))
        .collect();
    let mb = |b: usize| b as f64 / (1 << 20) as f64;
    let lower_bound = plans
        .iter()
        .find(|(n, _)| *n == "kiln")
        .map_or(0, |(_, p)| p.lower_bound);
    let group_json: Vec<_> = fusion
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
    if args.json {
        let mut memory = serde_json::Map::new();
        for (name, p) in &plans {
            memory.insert(name.to_string(), json!(mb(p.bytes)));
        }
        memory.insert("lower_bound".into(), json!(mb(lower_bound)));
        let timings: Vec<_> = report
            .timings
            .iter()
            .map(|(n, d)| json!({"pass": n, "ms": d.as_secs_f64() * 1e3}))
            .collect();
        println!(
            "{}",
            json!({ "kernels": fusion.groups.len(), "groups": group_json, "memory_mb": memory, "passes": timings })
        );
        return Ok(());
    }
    println!(
        "{}: {} nodes after passes, {} kernels",
        args.model.display(),
        g.len(),
        fusion.groups.len()
    );
    for (i, grp) in fusion.groups.iter().enumerate() {
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
    for (name, p) in &plans {
        println!("  {name:<12} {:>10.2}", mb(p.bytes));
    }
    println!("  {:<12} {:>10.2}", "lower bound", mb(lower_bound));
    if args.timings {
        for (name, d) in &report.timings {
            println!("  pass {name:<16} {:.3} ms", d.as_secs_f64() * 1e3);
        }
    }
    Ok(())
}
