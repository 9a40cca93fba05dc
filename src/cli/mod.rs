//! Subcommands of the `kiln` tool, one file each.

mod bench;
mod grad;
mod inspect;
mod ops;
mod output;
mod plan;
mod run;
mod values;

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
    /// One forward and backward pass in training mode on the reference interpreter; writes
    /// the gradient of every argument given in --params.
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

/// Parses `NAME=D0,D1,...`. Every dimension is at least 1 (MXNet's shapes read 0 as
/// "unknown", which a user's shape cannot mean) and their product fits kiln's bound on
/// sizes.
pub fn parse_shape_arg(s: &str) -> std::result::Result<(String, Vec<usize>), String> {
    let (name, dims) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=D0,D1,..., got {s:?}"))?;
    if name.is_empty() {
        return Err(format!("no input name before `=` in {s:?}"));
    }
    let dims = dims
        .split(',')
        .map(|d| match d.trim().parse::<usize>() {
            Ok(0) => Err(format!(
                "dimension 0 in {s:?}: every dimension of `{name}` must be at least 1"
            )),
            Ok(d) => Ok(d),
            Err(_) => Err(format!(
                "bad dimension {d:?} in {s:?}: expected a positive integer"
            )),
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if kiln::ops::shape::checked_size(&dims).is_none() {
        return Err(format!(
            "the shape of `{name}`, {}, {}",
            kiln::ops::shape::fmt_shape(&dims),
            kiln::ops::shape::TOO_LARGE
        ));
    }
    Ok((name.to_string(), dims))
}

/// Parses `NAME=PATH`.
pub fn parse_named_path(s: &str) -> std::result::Result<(String, std::path::PathBuf), String> {
    match s.split_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => {
            Ok((name.to_string(), path.into()))
        }
        _ => Err(format!("expected NAME=FILE.npy, got {s:?}")),
    }
}
