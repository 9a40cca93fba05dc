//! `kiln inspect MODEL-symbol.json [--shape NAME=D0,D1,...]... [--dot FILE]`.

use super::parse_shape_arg;
use kiln::compiler::{dot, infer, Entry, Graph};
use kiln::ops::shape::{fmt_shape, is_known, size};
use kiln::{Error, Result, Symbol};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The symbol file.
    model: PathBuf,
    /// An input's shape, e.g. `data=1,3,224,224` (repeatable).
    #[arg(long = "shape", value_parser = parse_shape_arg)]
    shapes: Vec<(String, Vec<usize>)>,
    /// Write the graph as Graphviz dot.
    #[arg(long)]
    dot: Option<PathBuf>,
}

fn human(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2} G", x / 1e9),
        x if x >= 1e6 => format!("{:.2} M", x / 1e6),
        x if x >= 1e3 => format!("{:.2} K", x / 1e3),
        x => format!("{x:.0} "),
    }
}

pub fn run(args: Args) -> Result<()> {
    let sym = Symbol::load(&args.model)?;
    let g = sym.to_graph()?;
    let known: HashMap<_, _> = args.shapes.iter().cloned().collect();
    for name in known.keys() {
        if g.variable(name).is_none() {
            return Err(Error::Input(format!(
                "--shape {name}: the model has no input named `{name}` (inputs: {})",
                sym.list_inputs().join(", ")
            )));
        }
    }
    let inferred = infer::infer(&g, &known, &HashMap::new())?;
    let aux: HashSet<_> = g.aux_ids();
    let is_param = |e: Entry| {
        let n = g.node(e.node);
        n.is_variable() && !known.contains_key(&n.name) && !n.name.ends_with("label")
    };
    println!(
        "{}: {} nodes, {} operators, {} outputs",
        args.model.display(),
        g.len(),
        g.node_ids().filter(|&i| !g.node(i).is_variable()).count(),
        g.heads.len()
    );
    println!(
        "{:>5}  {:<22} {:<34} {:<22} {:<8} {:>10} {:>12}",
        "id", "op", "name", "output", "dtype", "params", "FLOPs"
    );
    let mut by_op: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
    let (mut total_flops, mut unknown_flops) = (0u64, 0usize);
    for id in g.node_ids() {
        let n = g.node(id);
        let Some(op) = n.op else { continue };
        let out = Entry { node: id, index: 0 };
        let params: usize = n
            .inputs
            .iter()
            .filter(|&&e| is_param(e))
            .map(|&e| size(inferred.shape(e)))
            .sum();
        let ins: Vec<_> = n
            .inputs
            .iter()
            .map(|&e| inferred.shape(e).clone())
            .collect();
        let outs = &inferred.shapes[id.index()];
        let flops = (ins.iter().chain(outs).all(|s| is_known(s)))
            .then(|| (op.cost)(n.params.as_ref().expect("parsed"), &ins, outs));
        match flops {
            Some(f) => total_flops += f,
            None => unknown_flops += 1,
        }
        let entry = by_op.entry(op.name).or_default();
        entry.0 += 1;
        entry.1 += flops.unwrap_or(0);
        let dtype = inferred.dtype(out).map_or("?", |d| d.name());
        let flops = flops.map_or_else(|| "?".to_string(), |f| human(f as f64));
        println!(
            "{:>5}  {:<22} {:<34} {:<22} {:<8} {:>10} {:>12}",
            id.index(),
            op.name,
            n.name,
            fmt_shape(inferred.shape(out)),
            dtype,
            params,
            flops
        );
    }
    println!("\nFLOPs by operator:");
    for (op, (count, flops)) in &by_op {
        println!(
            "  {op:<22} {count:>5} nodes {:>12}FLOPs",
            human(*flops as f64)
        );
    }
    let var_size = |pred: &dyn Fn(Entry) -> bool| -> (usize, usize) {
        let ids: Vec<Entry> = g
            .node_ids()
            .map(|id| Entry { node: id, index: 0 })
            .filter(|&e| pred(e))
            .collect();
        let unknown = ids
            .iter()
            .filter(|&&e| !is_known(inferred.shape(e)))
            .count();
        (ids.iter().map(|&e| size(inferred.shape(e))).sum(), unknown)
    };
    let (n_params, unknown_params) = var_size(&|e| is_param(e) && !aux.contains(&e.node));
    let (n_aux, _) = var_size(&|e| aux.contains(&e.node));
    println!(
        "\nparameters: {n_params} ({:.1} MB as float32); aux states: {n_aux}",
        n_params as f64 * 4.0 / 1e6
    );
    if unknown_params > 0 {
        println!(
            "  ({unknown_params} parameters have unknown shapes: pass --shape for every input)"
        );
    }
    println!(
        "total: {}FLOPs{}",
        human(total_flops as f64),
        if unknown_flops > 0 {
            format!(" (+{unknown_flops} operators with unknown shapes)")
        } else {
            String::new()
        }
    );
    if let Some(path) = args.dot {
        write_dot(&g, &inferred.shapes, &path)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn write_dot(g: &Graph, shapes: &[Vec<Vec<usize>>], path: &std::path::Path) -> Result<()> {
    std::fs::write(path, dot::to_dot(g, Some(shapes))).map_err(|e| Error::Io {
        path: path.display().to_string(),
        source: e,
    })
}
