//! Subcommands of the `kiln` tool, one file each.

mod bench;
mod inspect;
mod ops;
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
    /// Run a forward pass in inference mode on the reference interpreter.
    Run(run::Args),
    /// Measure a workload against a baseline from the same run.
    Bench(bench::Args),
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Ops(a) => ops::run(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Run(a) => run::run(a),
        Command::Bench(a) => bench::run(a),
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
