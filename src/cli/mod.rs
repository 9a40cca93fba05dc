//! Subcommands of the `kiln` tool, one file each.

mod bench;
mod data;
mod grad;
mod im2rec;
mod init;
mod inspect;
#[cfg(feature = "mpi")]
mod launch;
mod ops;
mod output;
mod plan;
mod plot;
mod progress;
mod run;
mod train;
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
    /// Train a network on arrays (MXNet's Module.fit): checkpoints after every epoch,
    /// resumable.
    Train(Box<train::Args>),
    /// Write a network's initial parameters (MXNet's initializers and name dispatch).
    Init(init::Args),
    /// Make image lists from a folder, or pack a list's images into RecordIO files (as
    /// MXNet's im2rec.py).
    Im2rec(im2rec::Args),
    /// What an iterator feeds a network: batches, shapes, labels, speed; a record's image.
    Data(data::Args),
    /// Start a distributed job through mpirun: `kiln launch -n 2 -- kiln train ... --kvstore
    /// dist_sync`, each rank's output prefixed by its rank.
    #[cfg(feature = "mpi")]
    Launch(launch::Args),
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Ops(a) => ops::run(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Run(a) => run::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Grad(a) => grad::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Train(a) => train::run(*a),
        Command::Init(a) => init::run(a),
        Command::Im2rec(a) => im2rec::run(a),
        Command::Data(a) => data::run(a),
        #[cfg(feature = "mpi")]
        Command::Launch(a) => launch::run(a),
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

/// A command-line value kiln cannot use (clap prints it after the argument it was given
/// for).
#[derive(Debug, thiserror::Error)]
pub enum ArgError {
    #[error("expected {expected}, got {got:?}")]
    Form { expected: &'static str, got: String },
    #[error("no input name before `=` in {0:?}")]
    NoName(String),
    #[error("dimension 0 in {arg:?}: every dimension of `{name}` must be at least 1")]
    ZeroDimension { arg: String, name: String },
    #[error("bad dimension {dim:?} in {arg:?}: expected a positive integer")]
    Dimension {
        arg: String,
        dim: String,
        source: std::num::ParseIntError,
    },
    #[error("the shape of `{name}`, {shape}, {}", kiln::ops::shape::TOO_LARGE)]
    TooLarge { name: String, shape: String },
    #[error("must be at least 1")]
    Zero,
}

/// Parses `NAME=D0,D1,...`. Every dimension is at least 1 (MXNet's shapes read 0 as
/// "unknown", which a user's shape cannot mean) and their product fits kiln's bound on
/// sizes.
pub fn parse_shape_arg(s: &str) -> std::result::Result<(String, Vec<usize>), ArgError> {
    let (name, dims) = s.split_once('=').ok_or_else(|| ArgError::Form {
        expected: "NAME=D0,D1,...",
        got: s.to_string(),
    })?;
    if name.is_empty() {
        return Err(ArgError::NoName(s.to_string()));
    }
    let dims = dims
        .split(',')
        .map(|d| match d.trim().parse::<usize>() {
            Ok(0) => Err(ArgError::ZeroDimension {
                arg: s.to_string(),
                name: name.to_string(),
            }),
            Ok(d) => Ok(d),
            Err(source) => Err(ArgError::Dimension {
                arg: s.to_string(),
                dim: d.to_string(),
                source,
            }),
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if kiln::ops::shape::checked_size(&dims).is_none() {
        return Err(ArgError::TooLarge {
            name: name.to_string(),
            shape: kiln::ops::shape::fmt_shape(&dims),
        });
    }
    Ok((name.to_string(), dims))
}

/// Parses `NAME=PATH`.
pub fn parse_named_path(s: &str) -> std::result::Result<(String, std::path::PathBuf), ArgError> {
    match s.split_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => {
            Ok((name.to_string(), path.into()))
        }
        _ => Err(ArgError::Form {
            expected: "NAME=FILE.npy",
            got: s.to_string(),
        }),
    }
}
