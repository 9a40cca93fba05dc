//! `kiln launch -n N [--servers S] [--hostfile FILE] -- COMMAND...`: a distributed job
//! through `mpirun` (MXNet's `tools/launch.py`), each rank's output prefixed by its rank;
//! when a rank fails the job stops and the rank that failed first is named. Exits with the
//! job's status. Every rank runs under `kiln launch --rank`: a worker runs COMMAND and is
//! named when it fails; the last S ranks serve the asynchronous stores (`dist_async`)
//! instead.

use kiln::dist::launch::Launch;
use kiln::{Error, Result};
use std::ffi::OsString;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Processes to start (workers; MXNet's -n).
    #[arg(short = 'n', long = "num-workers", required_unless_present = "rank")]
    num_workers: Option<usize>,
    /// Server processes for `--kvstore dist_async`, the job's last ranks (MXNet's -s).
    #[arg(short = 's', long = "servers", default_value_t = 0)]
    servers: usize,
    /// Run COMMAND as one rank of a job (what `kiln launch` has each rank do).
    #[arg(long, hide = true)]
    rank: bool,
    /// An MPI hostfile: the machines and their slots (MXNet's -H). Without one, every
    /// rank runs on this machine.
    #[arg(short = 'H', long)]
    hostfile: Option<PathBuf>,
    /// The command every rank runs, after `--`.
    #[arg(last = true, required = true)]
    command: Vec<OsString>,
}

pub fn run(args: Args) -> Result<()> {
    let io = |e: std::io::Error| Error::Input(e.to_string());
    if args.rank {
        kiln::dist::launch::run_rank(&args.command).map_err(io)?;
    }
    let ranks = args.num_workers.unwrap_or_default();
    if ranks == 0 {
        return Err(Error::Input("-n: at least one worker".into()));
    }
    let exe = std::env::current_exe().map_err(io)?;
    let job = Launch {
        ranks,
        servers: args.servers,
        hostfile: args.hostfile,
        command: args.command,
        wrapper: vec![exe.into(), "launch".into(), "--rank".into(), "--".into()],
    };
    let outcome = job.run().map_err(io)?;
    if !outcome.status.success() {
        std::process::exit(outcome.status.code().unwrap_or(1));
    }
    Ok(())
}
