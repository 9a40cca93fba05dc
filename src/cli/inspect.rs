//! `kiln inspect MODEL-symbol.json [--shape NAME=D0,D1,...]... [--dot FILE] [--json]`:
//! every operator node with its output shape, dtype, parameter count and FLOPs, FLOPs by
//! operator and the totals; as text, or with `--json` as one JSON object holding the same
//! (shapes as arrays, an unknown dimension or shape `null`). The `--dot` path is checked
//! before anything is computed and written whole or not at all.

use super::output::{check_writable, write};
use super::parse_shape_arg;
use kiln::compiler::infer::Inferred;
use kiln::compiler::summary::Summary;
use kiln::compiler::{dot, infer, summary, Entry, Graph, NodeId};
use kiln::{Error, Result, Symbol};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
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
    /// One JSON object instead of the table: model, outputs, nodes, FLOPs by operator
    /// and the totals.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    if let Some(path) = &args.dot {
        check_writable("--dot", path)?;
    }
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
    let inputs: HashSet<String> = known.keys().cloned().collect();
    let s = summary::summarize(&g, &inferred, &inputs);
    if let Some(path) = &args.dot {
        write(path, dot::to_dot(&g, Some(&inferred.shapes)).as_bytes())?;
    }
    if args.json {
        println!("{}", to_json(&args, &sym, &g, &inferred, &s));
        return Ok(());
    }
    println!(
        "{}: {} outputs ({})",
        args.model.display(),
        g.heads.len(),
        sym.list_outputs().join(", ")
    );
    print!("{s}");
    if let Some(path) = &args.dot {
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// A shape as a JSON array, `null` where MXNet's convention says unknown (an empty shape,
/// a 0 dimension).
fn shape_json(shape: &[usize]) -> Value {
    if shape.is_empty() {
        return Value::Null;
    }
    shape
        .iter()
        .map(|&d| if d == 0 { Value::Null } else { json!(d) })
        .collect()
}

fn to_json(args: &Args, sym: &Symbol, g: &Graph, inferred: &Inferred, s: &Summary) -> Value {
    let nodes: Vec<Value> = (s.rows.iter())
        .map(|r| {
            let out = Entry {
                node: NodeId::new(r.id),
                index: 0,
            };
            json!({
                "id": r.id, "op": r.op, "name": r.name,
                "shape": shape_json(inferred.shape(out)),
                "dtype": inferred.dtype(out).map(|d| d.name()),
                "params": r.params, "flops": r.flops,
            })
        })
        .collect();
    let by_op: serde_json::Map<String, Value> = (s.by_op.iter())
        .map(|(op, (count, flops))| (op.to_string(), json!({"nodes": count, "flops": flops})))
        .collect();
    json!({
        "model": args.model.display().to_string(),
        "outputs": sym.list_outputs(),
        "nodes": nodes,
        "flops_by_op": by_op,
        "num_nodes": g.len(),
        "num_operators": s.rows.len(),
        "parameters": s.params,
        "aux_states": s.aux,
        "flops": s.flops,
        "unknown_shapes": {"operators": s.unknown_flops, "parameters": s.unknown_params},
    })
}
