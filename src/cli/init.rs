//! `kiln init MODEL --shape NAME=DIMS... --initializer SPEC [--seed S] --output FILE.params`
//!
//! Writes a network's initial parameters as MXNet's Module would draw them: arguments
//! given a `--shape` are inputs, every other argument is a parameter and every aux state
//! is initialized too, each by the initializer's name dispatch (a variable's `__init__`
//! attribute first). The file has MXNet's checkpoint keys (`arg:NAME`, `aux:NAME`), so
//! `kiln train --arg-params` and MXNet read it; it is written whole or not at all.

use super::output::check_writable;
use super::parse_shape_arg;
use super::train::load_model;
use kiln::runtime::{Device, NDArray};
use kiln::train::initializer::{self, Rng};
use kiln::train::module::init_desc;
use kiln::{Error, Result};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The network: a symbol file, or a model of the zoo by name.
    model: String,
    /// An input's shape, NAME=D0,D1,... (repeatable): the arguments that are not
    /// parameters.
    #[arg(long = "shape", value_parser = parse_shape_arg, required = true)]
    shapes: Vec<(String, Vec<usize>)>,
    /// The initializer: `xavier(rnd_type=gaussian,factor_type=in,magnitude=2)`, `uniform(0.07)`.
    #[arg(long, default_value = "uniform(0.01)")]
    initializer: String,
    /// The seed random values are drawn from.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The .params file to write.
    #[arg(long)]
    output: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let symbol = load_model(&args.model)?;
    let init = initializer::create(&args.initializer).map_err(|e| Error::Input(e.to_string()))?;
    check_writable("--output", &args.output)?;
    let arguments = symbol.list_arguments();
    if let Some((name, _)) = args.shapes.iter().find(|(n, _)| !arguments.contains(n)) {
        return Err(Error::Input(format!(
            "--shape {name}: the network has no argument `{name}` (arguments: {})",
            arguments.join(", ")
        )));
    }
    let known: Vec<(&str, &[usize])> = args
        .shapes
        .iter()
        .map(|(n, s)| (n.as_str(), s.as_slice()))
        .collect();
    let inferred = symbol.infer_shape(&known)?;
    let (arg_types, _, aux_types) = symbol.infer_type(&[])?;
    let attrs = symbol.attr_dict();
    let mut rng = Rng::new(args.seed);
    let mut arrays = Vec::new();
    let params = (arguments.iter().zip(&inferred.arguments).zip(&arg_types))
        .filter(|((n, _), _)| !args.shapes.iter().any(|(s, _)| s == *n))
        .map(|((n, s), t)| ("arg", n.clone(), s, *t));
    let aux = (symbol
        .list_auxiliary_states()
        .into_iter()
        .zip(&inferred.aux_states)
        .zip(&aux_types))
    .map(|((n, s), t)| ("aux", n, s, *t));
    for (kind, name, shape, dtype) in params.chain(aux) {
        if kind == "arg" && name.ends_with("label") {
            return Err(Error::Input(format!(
                "`{name}` looks like an input, not a parameter: give its shape with --shape {name}=..."
            )));
        }
        let array = NDArray::zeros(shape, dtype, Device::Cpu)?;
        init.init(&init_desc(&attrs, &name), &array, &mut rng)
            .map_err(|e| Error::Input(e.to_string()))?;
        arrays.push((format!("{kind}:{name}"), array));
    }
    let named: Vec<(&str, &NDArray)> = arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
    NDArray::save(&args.output, &named)?;
    eprintln!("wrote {} arrays to {}", named.len(), args.output.display());
    Ok(())
}
