//! `kiln launch -n N [--hostfile FILE] -- COMMAND...`: a distributed job through `mpirun`
//! (MXNet's `tools/launch.py`), each rank's output prefixed by its rank; when a rank fails
//! the job stops and the rank that failed first is named. Exits with the job's status.

use kiln::dist::launch::Launch;
use kiln::{Error, Result};
use std::ffi::OsString;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Processes to start (workers; MXNet's -n).
    #[arg(short = 'n', long = "num-workers")]
    num_workers: usize,
    /// An MPI hostfile: the machines and their slots (MXNet's -H). Without one, every
    /// rank runs on this machine.
    #[arg(short = 'H', long)]
    hostfile: Option<PathBuf>,
    /// The command every rank runs, after `--`.
    #[arg(last = true, required = true)]
    command: Vec<OsString>,
}

pub fn run(args: Args) -> Result<()> {
    if args.num_workers == 0 {
        return Err(Error::Input("-n: at least one worker".into()));
    }
    let job = Launch {
        ranks: args.num_workers,
        hostfile: args.hostfile,
        command: args.command,
    };
    let outcome = job.run().map_err(|e| Error::Input(e.to_string()))?;
    if !outcome.status.success() {
        std::process::exit(outcome.status.code().unwrap_or(1));
    }
    Ok(())
}
