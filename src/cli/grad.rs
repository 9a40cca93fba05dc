//! `kiln grad MODEL-symbol.json --params FILE.params --input NAME=FILE.npy...
//! --output-grads GRADS.params`: one forward and backward in training mode on the reference
//! interpreter; the gradient of every argument that has a value in `--params` is written
//! under the argument's name (MXNet's `.params` format).
//!
//! Every name in `--params` must be an argument or aux state of the model (a misspelt one
//! would silently get no gradient), and at least one must be an argument. The output path
//! is checked before anything is computed and written whole or not at all.

use super::output::check_writable;
use super::parse_named_path;
use super::values::{self, Extra};
use kiln::compiler::autodiff::{differentiate, GradReq};
use kiln::compiler::formats::params::{write_params, ParamFile};
use kiln::compiler::infer::infer;
use kiln::compiler::{interpret, RunOptions};
use kiln::{Error, Result, Symbol, Tensor};
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The symbol file.
    model: PathBuf,
    /// Parameters (`arg:`/`aux:` prefixed names as MXNet checkpoints, or plain names),
    /// each an argument or aux state of the model; every argument given gets a gradient.
    #[arg(long)]
    params: PathBuf,
    /// An input as NAME=FILE.npy (repeatable).
    #[arg(long = "input", value_parser = parse_named_path)]
    inputs: Vec<(String, PathBuf)>,
    /// Where to write the gradients (MXNet's `.params` format, by argument name).
    #[arg(long = "output-grads")]
    output_grads: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let sym = Symbol::load(&args.model)?;
    let g = sym.to_graph()?;
    check_writable("--output-grads", &args.output_grads)?;
    let loaded = values::load(&sym, &g, Some(&args.params), &args.inputs, Extra::Refuse)?;
    let (mut values, param_names) = (loaded.values, loaded.from_params);
    values::check_complete(&g, &values)?;
    let args_with_values: Vec<String> = sym
        .list_arguments()
        .into_iter()
        .filter(|n| param_names.contains(n))
        .collect();
    if args_with_values.is_empty() {
        return Err(Error::Input(format!(
            "--params {}: gives no argument of the model a value, so there is no gradient \
             to compute (arguments: {})",
            args.params.display(),
            sym.list_arguments().join(", ")
        )));
    }
    let reqs: HashMap<String, GradReq> = args_with_values
        .iter()
        .map(|n| (n.clone(), GradReq::Write))
        .collect();
    let tg = differentiate(&g, &reqs, true)?;
    // Head gradients of ones for outputs that are not losses.
    let shapes = values
        .iter()
        .map(|(k, t)| (k.clone(), t.shape.clone()))
        .collect();
    let dtypes = values.iter().map(|(k, t)| (k.clone(), t.dtype)).collect();
    let inferred = infer(&g, &shapes, &dtypes)?;
    for (head, &e) in tg.head_grads.iter().zip(&g.heads) {
        if let Some(id) = head {
            let dtype = inferred.dtype(e).unwrap_or(kiln::DType::F32);
            let name = tg.graph.node(*id).name.clone();
            let ones = Tensor::try_full(dtype, inferred.shape(e).clone(), 1.0)
                .map_err(|a| super::allocation(a, &format!("the head gradient `{name}`")))?;
            values.insert(name, ones);
        }
    }
    let results = interpret(
        &tg.graph,
        &values,
        RunOptions {
            is_train: true,
            seed: 0,
        },
    )?;
    let mut file = ParamFile::default();
    for (i, (id, _)) in tg.grads.iter().enumerate() {
        file.names.push(tg.graph.node(*id).name.clone());
        file.arrays.push(results[tg.num_outputs + i].clone());
    }
    write_params(&args.output_grads, &file)?;
    println!(
        "wrote the gradients of {} arguments to {}",
        file.names.len(),
        args.output_grads.display()
    );
    Ok(())
}
