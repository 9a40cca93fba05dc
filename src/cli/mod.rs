//! Subcommands of the `kiln` tool, one file each.

mod bench;
mod grad;
mod inspect;
mod ops;
mod plan;
mod run;

use clap::{Parser, Subcommand};
use kiln::Result;

#[derive(Parser)]
#[command(
    name = "kiln",
    version,
    about = "kiln: a deep-learning compiler for MXNet-style Symbol graphs"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every operator: aliases, pattern, inputs, parameters, dtypes.
    Ops(ops::Args),
    /// Show a model's nodes, inferred shapes and dtypes, parameter count and FLOPs.
    Inspect(inspect::Args),
    /// Run a forward pass in inference mode (kernels compiled by the CPU JIT;
    /// KILN_BACKEND=interp runs the reference kernels).
    Run(run::Args),
    /// One forward and backward pass in training mode; writes the parameters' gradients.
    Grad(grad::Args),
    /// The compiled program: its steps, and its memory planned and as executed.
    Plan(plan::Args),
    /// Measure a workload against a baseline from the same run.
    Bench(bench::Args),
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Ops(a) => ops::run(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Run(a) => run::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Grad(a) => grad::run(a),
        Command::Plan(a) => plan::run(a),
    }
}

/// Memory for `what` that could not be had, as kiln's allocation error.
pub fn allocation(a: kiln::ops::tensor::AllocError, what: &str) -> kiln::Error {
    kiln::Error::Allocation {
        bytes: a.bytes,
        device: kiln::runtime::Device::Cpu.to_string(),
        reason: format!(
            "{what}, of shape {}{}",
            kiln::ops::shape::fmt_shape(&a.shape),
            a.cause()
        ),
    }
}

/// Parses `NAME=D0,D1,...`.
pub fn parse_shape_arg(s: &str) -> std::result::Result<(String, Vec<usize>), String> {
    let (name, dims) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=D0,D1,..., got {s:?}"))?;
    let dims = dims
        .split(',')
        .map(|d| {
            d.trim()
                .parse::<usize>()
                .map_err(|_| format!("bad dimension {d:?} in {s:?}"))
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok((name.to_string(), dims))
}

/// Parses `NAME=PATH`.
pub fn parse_named_path(s: &str) -> std::result::Result<(String, std::path::PathBuf), String> {
    let (name, path) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=FILE, got {s:?}"))?;
    Ok((name.to_string(), path.into()))
}

/// The values a command runs a model on: parameters from a `.params` file (MXNet's
/// `arg:`/`aux:` prefixes stripped), inputs from `.npy` files, and zeros for labels the
/// caller did not give. Also returns the names the params file provided.
pub fn load_inputs(
    sym: &kiln::Symbol,
    g: &kiln::compiler::Graph,
    params: Option<&std::path::Path>,
    inputs: &[(String, std::path::PathBuf)],
) -> Result<(std::collections::HashMap<String, kiln::Tensor>, Vec<String>)> {
    use kiln::compiler::formats::{npy, params as params_format};
    use kiln::Error;
    let mut values = std::collections::HashMap::new();
    let mut from_params = Vec::new();
    if let Some(path) = params {
        let file = params_format::read_params(path)?;
        let named = file.named().ok_or_else(|| {
            Error::Input(format!(
                "{}: holds an unnamed list of arrays, not named parameters",
                path.display()
            ))
        })?;
        for (key, t) in named {
            let name = key
                .strip_prefix("arg:")
                .or_else(|| key.strip_prefix("aux:"))
                .unwrap_or(key);
            from_params.push(name.to_string());
            values.insert(name.to_string(), t.clone());
        }
    }
    for (name, path) in inputs {
        if g.variable(name).is_none() {
            return Err(Error::Input(format!(
                "--input {name}: the model has no input named `{name}` (inputs: {})",
                sym.list_inputs().join(", ")
            )));
        }
        values.insert(name.clone(), npy::read_npy(path)?);
    }
    // Loss heads read a label even where it does not matter (inference): labels not
    // given are zeros of their inferred shape, as MXNet's predictor binds them.
    let shapes = values
        .iter()
        .map(|(k, t)| (k.clone(), t.shape.clone()))
        .collect();
    let inferred = kiln::compiler::infer::infer_shapes(g, &shapes)?;
    for id in g.node_ids() {
        let n = g.node(id);
        let shape = &inferred[id.index()][0];
        if n.is_variable()
            && n.name.ends_with("label")
            && !values.contains_key(&n.name)
            && kiln::ops::shape::is_known(shape)
        {
            let zeros = kiln::Tensor::try_full(kiln::DType::F32, shape.clone(), 0.0)
                .map_err(|a| allocation(a, &format!("the label `{}`", n.name)))?;
            values.insert(n.name.clone(), zeros);
        }
    }
    Ok((values, from_params))
}
