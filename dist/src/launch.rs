//! Starting a job: `mpirun` with what a machine needs, each rank's output prefixed by its
//! rank, and the rank that failed first named (`kiln launch`, the tests' jobs).
//!
//! Roles and ranks come from MPI; hosts from an MPI hostfile when one is given. On one
//! machine (no hostfile) ranks may outnumber the cores (`--oversubscribe`), and unless
//! `KILN_CPU_THREADS` says otherwise each rank's kernels get an equal share of the cores.
//! Ranks are not bound to a core (`--bind-to none`): a kiln process runs its engine, its
//! kernels' pool and its MPI thread, which one core would serialize. Open MPI's
//! shared-memory transport is told not to use cross-memory attach, which containers often
//! forbid (`btl_vader_single_copy_mechanism none`), and, run by root, Open MPI's run-as-root
//! variables are set, as a container's root user needs.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};

/// A job to start.
pub struct Launch {
    /// Worker processes.
    pub ranks: usize,
    /// Server processes for an asynchronous store: the job's last ranks
    /// ([`crate::SERVERS_VAR`]), which the wrapper has serve.
    pub servers: usize,
    /// An MPI hostfile naming the machines.
    pub hostfile: Option<PathBuf>,
    /// The program and its arguments, run by every rank.
    pub command: Vec<OsString>,
    /// A program every rank's command runs under, such as [`run_rank`]'s (`kiln launch
    /// --rank`); empty for none.
    pub wrapper: Vec<OsString>,
}

impl Launch {
    /// The `mpirun` command line (`KILN_MPIRUN` names another launcher binary).
    pub fn mpirun(&self) -> Command {
        let mut cmd = Command::new(std::env::var_os("KILN_MPIRUN").unwrap_or("mpirun".into()));
        let total = self.ranks + self.servers;
        cmd.arg("-n").arg(total.to_string());
        cmd.env(crate::SERVERS_VAR, self.servers.to_string());
        cmd.args(["-x", crate::SERVERS_VAR]);
        match &self.hostfile {
            Some(hosts) => cmd.arg("--hostfile").arg(hosts),
            None => cmd.arg("--oversubscribe"),
        };
        if self.hostfile.is_none() && std::env::var_os("KILN_CPU_THREADS").is_none() {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let share = (cores / total.max(1)).max(1);
            cmd.env("KILN_CPU_THREADS", share.to_string());
        }
        cmd.args(["--bind-to", "none", "--tag-output"]);
        cmd.args(["--mca", "btl_vader_single_copy_mechanism", "none"]);
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        }
        cmd.args(&self.wrapper).args(&self.command);
        cmd
    }

    /// Runs the job: every line a rank prints goes to this process's stdout or stderr as
    /// `[rank R] line`; `mpirun`'s own messages pass as they are. When the job fails, a
    /// last line names the rank that failed first and how. Returns `mpirun`'s status.
    pub fn run(&self) -> std::io::Result<Outcome> {
        let mut child = self
            .mpirun()
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("cannot start mpirun ({e}): install Open MPI (openmpi-bin)"),
                )
            })?;
        let stdout = child.stdout.take().map(relay);
        let stderr = child.stderr.take().map(relay);
        let status = child.wait()?;
        let mut text = String::new();
        for relay in [stdout, stderr].into_iter().flatten() {
            text.push_str(&relay.join().unwrap_or_default());
        }
        let failed = (!status.success()).then(|| first_failure(&text)).flatten();
        match &failed {
            Some(failure) => eprintln!("kiln launch: {failure}; the other ranks were stopped"),
            None if !status.success() => eprintln!("kiln launch: the job failed ({status})"),
            None => {}
        }
        Ok(Outcome { status, failed })
    }
}

/// How a job ended.
pub struct Outcome {
    pub status: ExitStatus,
    /// The first rank to fail and how, where `mpirun` said.
    pub failed: Option<Failure>,
}

/// A failed rank and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub rank: usize,
    pub how: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rank {} {}", self.rank, self.how)
    }
}

/// Copies a stream line by line, each rank's line to the stream it came from as
/// `[rank RANK] line`; returns `mpirun`'s own lines and kiln's reports of a failed rank.
fn relay(stream: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut untagged = String::new();
        let mut lines = Assembler::default();
        for line in BufReader::new(stream).split(b'\n').map_while(|l| l.ok()) {
            for piece in lines.feed(&String::from_utf8_lossy(&line)) {
                match piece {
                    Line::Rank { rank, stderr, text } => {
                        let line = format!("[rank {rank}] {text}\n");
                        let _ = match stderr {
                            true => std::io::stderr().lock().write_all(line.as_bytes()),
                            false => std::io::stdout().lock().write_all(line.as_bytes()),
                        };
                        if stderr && text.starts_with("kiln") {
                            untagged.push_str(&text);
                            untagged.push('\n');
                        }
                    }
                    Line::Mpirun(text) => {
                        let _ = writeln!(std::io::stderr().lock(), "{text}");
                        untagged.push_str(&text);
                        untagged.push('\n');
                    }
                }
            }
        }
        untagged
    })
}

/// A line of the job's output.
#[derive(Debug, PartialEq)]
enum Line {
    Rank {
        rank: usize,
        stderr: bool,
        text: String,
    },
    Mpirun(String),
}

/// Reassembles the ranks' lines from `mpirun --tag-output`, which tags every piece it
/// reads from a rank (`[JOB,RANK]<stdout>:`): a line a rank writes in pieces (a progress
/// bar's) arrives cut by other ranks' pieces, each rank's part of it behind its tag.
#[derive(Default)]
struct Assembler {
    /// Per rank and stream, the line begun and not yet ended.
    partial: HashMap<(usize, bool), String>,
}

impl Assembler {
    /// The lines one line of `mpirun`'s output completes.
    fn feed(&mut self, line: &str) -> Vec<Line> {
        let tags = tags(line);
        if tags.first().is_none_or(|t| t.at != 0) {
            return vec![Line::Mpirun(line.to_string())];
        }
        let mut done = Vec::new();
        for (i, tag) in tags.iter().enumerate() {
            let end = tags.get(i + 1).map_or(line.len(), |next| next.at);
            let key = (tag.rank, tag.stderr);
            let partial = self.partial.entry(key).or_default();
            partial.push_str(&line[tag.text..end]);
            // Only the last piece ends with the line's newline.
            if i + 1 == tags.len() {
                let text = std::mem::take(partial);
                done.push(Line::Rank {
                    rank: tag.rank,
                    stderr: tag.stderr,
                    text,
                });
            }
        }
        done
    }
}

/// A tag in a line of `mpirun`'s output: where it starts, whose piece follows, and where
/// that piece's text starts.
struct Tag {
    at: usize,
    rank: usize,
    stderr: bool,
    text: usize,
}

/// The tags `[JOB,RANK]<stdout>:` and `[JOB,RANK]<stderr>:` in `line`, in order.
fn tags(line: &str) -> Vec<Tag> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = line[from..].find('[') {
        let at = from + offset;
        match untag(&line[at..]) {
            Some((rank, stderr, text)) => {
                found.push(Tag {
                    at,
                    rank,
                    stderr,
                    text: line.len() - text.len(),
                });
                from = line.len() - text.len();
            }
            None => from = at + 1,
        }
    }
    found
}

/// `[1,3]<stderr>:text` → (3, true, "text").
fn untag(line: &str) -> Option<(usize, bool, &str)> {
    let rest = line.strip_prefix('[')?;
    let (ids, rest) = rest.split_once(']')?;
    let rank = ids.split_once(',')?.1.parse().ok()?;
    if let Some(text) = rest.strip_prefix("<stdout>:") {
        return Some((rank, false, text));
    }
    Some((rank, true, rest.strip_prefix("<stderr>:")?))
}

/// Runs one rank's `command` and exits with its status (a signal's as a shell gives it,
/// 128 + the signal); when it fails, says which rank and how (`kiln launch: rank R exited
/// with status S`), which `mpirun` does not always say. The command dies with this process
/// (`PR_SET_PDEATHSIG`), so stopping the rank stops it. A server rank
/// ([`crate::this_rank_serves`]) serves instead of running the command.
pub fn run_rank(command: &[OsString]) -> std::io::Result<std::convert::Infallible> {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    if crate::this_rank_serves() {
        match crate::serve() {
            Ok(_) => std::process::exit(0),
            Err(e) => return Err(std::io::Error::other(format!("a server: {e}"))),
        }
    }
    let Some((program, args)) = command.split_first() else {
        return Err(std::io::Error::other("no command to run"));
    };
    let mut child = Command::new(program);
    child.args(args);
    // SAFETY: prctl is async-signal-safe and touches no memory of this process.
    unsafe {
        child.pre_exec(
            || match libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            },
        );
    }
    let status = child.status()?;
    let rank = std::env::var("OMPI_COMM_WORLD_RANK").unwrap_or_else(|_| "?".into());
    let (how, code) = match (status.code(), status.signal()) {
        (Some(0), _) => std::process::exit(0),
        (Some(code), _) => (format!("exited with status {code}"), code),
        (None, Some(signal)) => (format!("was killed by signal {signal}"), 128 + signal),
        (None, None) => ("ended".to_string(), 1),
    };
    let line = format!("kiln launch: rank {rank} {how}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
    std::process::exit(code)
}

/// The rank that failed first: the one that reported its own error (`kiln: rank R of N
/// failed: ...`), else the first a rank's wrapper reported (`kiln launch: rank R exited
/// with status S`), else the one `mpirun` reports: exited non-zero, killed by a signal, or
/// called MPI_Abort.
pub fn first_failure(output: &str) -> Option<Failure> {
    let lines: Vec<&str> = output.lines().map(str::trim).collect();
    let reported = lines.iter().find_map(|line| {
        let rest = line.split_once("kiln: rank ")?.1;
        let (rank, rest) = rest.split_once(" of ")?;
        let error = rest.split_once(" failed: ")?.1;
        let error = error.strip_suffix("; stopping the job").unwrap_or(error);
        Some(Failure {
            rank: rank.parse().ok()?,
            how: format!("failed: {error}"),
        })
    });
    let wrapped = || {
        lines.iter().find_map(|line| {
            let rest = line.split_once("kiln launch: rank ")?.1;
            let (rank, how) = rest.split_once(' ')?;
            Some(Failure {
                rank: rank.parse().ok()?,
                how: how.to_string(),
            })
        })
    };
    if let Some(failure) = reported.or_else(wrapped) {
        return Some(failure);
    }
    for (i, line) in lines.iter().enumerate() {
        if let Some(name) = line.strip_prefix("Process name: [[") {
            let rank = name.split(',').nth(1)?.trim_end_matches(']').parse().ok()?;
            let code = (lines.get(i + 1)?.strip_prefix("Exit code:"))
                .map(str::trim)
                .unwrap_or("?");
            let how = format!("exited with status {code}");
            return Some(Failure { rank, how });
        }
        if let Some(rest) = line.strip_prefix("mpirun noticed that process rank ") {
            let (rank, rest) = rest.split_once(' ')?;
            let how = rest
                .split_once(" exited on ")
                .map_or("died".to_string(), |(_, s)| {
                    format!("was killed by {}", s.trim_end_matches('.'))
                });
            return Some(Failure {
                rank: rank.parse().ok()?,
                how,
            });
        }
        if let Some(rest) = line.strip_prefix("MPI_ABORT was invoked on rank ") {
            let rank = rest.split_once(' ')?.0.parse().ok()?;
            let how = "called MPI_Abort".to_string();
            return Some(Failure { rank, how });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_become_rank_prefixes() {
        assert_eq!(untag("[1,3]<stderr>:a: b"), Some((3, true, "a: b")));
        assert_eq!(untag("[12,0]<stdout>:"), Some((0, false, "")));
        assert_eq!(untag("[rank] text"), None);
        assert_eq!(untag("-----"), None);
    }

    #[test]
    fn lines_written_in_pieces_are_reassembled_per_rank() {
        let rank = |rank, text: &str| Line::Rank {
            rank,
            stderr: true,
            text: text.into(),
        };
        let mut lines = Assembler::default();
        // Rank 0's line cut by rank 1's whole line, then ended.
        let cut = "[1,0]<stderr>:Epoch[0] acc=0.25[1,1]<stderr>:Epoch[0] acc=0.5";
        assert_eq!(lines.feed(cut), [rank(1, "Epoch[0] acc=0.5")]);
        assert_eq!(
            lines.feed("[1,0]<stderr>: [x]"),
            [rank(0, "Epoch[0] acc=0.25 [x]")]
        );
        let own = "Primary job  terminated normally";
        assert_eq!(lines.feed(own), [Line::Mpirun(own.into())]);
    }

    #[test]
    fn the_first_failed_rank_is_read_from_mpiruns_reports() {
        // As Open MPI 4.1 prints them.
        let exited = "mpirun detected that one or more processes exited with non-zero status, thus causing\n\
                      the job to be terminated. The first process to do so was:\n\n  \
                      Process name: [[2605,1],1]\n  Exit code:    3\n";
        let failure = first_failure(exited).unwrap();
        assert_eq!(failure.to_string(), "rank 1 exited with status 3");
        let killed =
            "mpirun noticed that process rank 2 with PID 0 on node vm exited on signal 9 (Killed).";
        let failure = first_failure(killed).unwrap();
        assert_eq!(
            failure.to_string(),
            "rank 2 was killed by signal 9 (Killed)"
        );
        let aborted =
            "MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD\nwith errorcode 1.";
        assert_eq!(first_failure(aborted).unwrap().rank, 0);
        assert_eq!(first_failure("all good"), None);
        // A rank's own report comes first, whichever rank mpirun saw exit first.
        let both =
            format!("{exited}[1,2]<stderr>:kiln: rank 2 of 3 failed: bad batch; stopping the job");
        let failure = first_failure(&both).unwrap();
        assert_eq!(failure.to_string(), "rank 2 failed: bad batch");
    }
}
