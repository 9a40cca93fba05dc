//! `kiln run MODEL-symbol.json --params FILE.params --input NAME=FILE.npy... --output FILE.npy...`

use super::parse_named_path;
use kiln::compiler::formats::{npy, params};
use kiln::compiler::{infer, interpret, Graph, RunOptions};
use kiln::ops::shape::{fmt_shape, is_known};
use kiln::{DType, Error, Result, Symbol, Tensor};
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The symbol file.
    model: PathBuf,
    /// Parameters (`arg:`/`aux:` prefixed names as MXNet checkpoints, or plain names).
    #[arg(long)]
    params: Option<PathBuf>,
    /// An input as NAME=FILE.npy (repeatable).
    #[arg(long = "input", value_parser = parse_named_path)]
    inputs: Vec<(String, PathBuf)>,
    /// Where to write each output, in the model's output order (repeatable).
    #[arg(long = "output")]
    outputs: Vec<PathBuf>,
}

/// Strips MXNet checkpoint prefixes (`arg:fc1_weight` → `fc1_weight`).
fn param_name(key: &str) -> &str {
    key.strip_prefix("arg:")
        .or_else(|| key.strip_prefix("aux:"))
        .unwrap_or(key)
}

/// Loss heads read a label even in inference, where it does not affect the output: labels
/// the caller did not give are zeros of their inferred shape (as MXNet's predictor binds them).
fn fill_labels(g: &Graph, values: &mut HashMap<String, Tensor>) -> Result<()> {
    let shapes = values
        .iter()
        .map(|(k, t)| (k.clone(), t.shape.clone()))
        .collect();
    let inferred = infer::infer_shapes(g, &shapes)?;
    for id in g.node_ids() {
        let n = g.node(id);
        if n.is_variable() && n.name.ends_with("label") && !values.contains_key(&n.name) {
            let shape = inferred[id.index()][0].clone();
            if is_known(&shape) {
                values.insert(n.name.clone(), Tensor::zeros(DType::F32, shape));
            }
        }
    }
    Ok(())
}

pub fn run(args: Args) -> Result<()> {
    let sym = Symbol::load(&args.model)?;
    let g = sym.to_graph()?;
    let mut values: HashMap<String, Tensor> = HashMap::new();
    if let Some(path) = &args.params {
        let file = params::read_params(path)?;
        let named = file.named().ok_or_else(|| {
            Error::Input(format!(
                "{}: holds an unnamed list of arrays, not named parameters",
                path.display()
            ))
        })?;
        for (key, t) in named {
            values.insert(param_name(key).to_string(), t.clone());
        }
    }
    for (name, path) in &args.inputs {
        if g.variable(name).is_none() {
            return Err(Error::Input(format!(
                "--input {name}: the model has no input named `{name}` (inputs: {})",
                sym.list_inputs().join(", ")
            )));
        }
        values.insert(name.clone(), npy::read_npy(path)?);
    }
    if args.outputs.len() > g.heads.len() {
        return Err(Error::Input(format!(
            "{} --output files given but the model has {} outputs ({})",
            args.outputs.len(),
            g.heads.len(),
            sym.list_outputs().join(", ")
        )));
    }
    fill_labels(&g, &mut values)?;
    let outs = interpret(&g, &values, RunOptions::default())?;
    for ((name, t), path) in sym
        .list_outputs()
        .iter()
        .zip(&outs)
        .zip(args.outputs.iter().map(Some).chain(std::iter::repeat(None)))
    {
        let preview: Vec<String> = t.data.iter().take(5).map(|v| format!("{v:.6}")).collect();
        println!(
            "{name}: {} {} [{}{}]",
            fmt_shape(&t.shape),
            t.dtype,
            preview.join(", "),
            if t.len() > 5 { ", ..." } else { "" }
        );
        if let Some(path) = path {
            npy::write_npy(path, t)?;
            println!("  wrote {}", path.display());
        }
    }
    Ok(())
}
