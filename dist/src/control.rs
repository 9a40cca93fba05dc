//! The job's control messages: how ranks learn, without hanging, that a peer failed or
//! left, and how they agree to finish.
//!
//! Every collective is started non-blocking and waited for by polling ([`Link::wait`]), and
//! between polls (and while the MPI thread is idle) a rank reads the control messages
//! peers sent it:
//! - `FAILED`: the peer hit an error and is exiting; this rank exits too, naming it.
//! - `FINISHING n`: the peer is done after `n` collectives. A worker waiting in collective
//!   `k >= n` will never see the peer in it (the ranks ran different steps): it exits,
//!   naming the peer and the collective.
//!
//! Finishing, a rank sends `FINISHING n` to every peer and waits for theirs; when every
//! peer finished (every worker after the same `n`), MPI is finalized (which no peer can
//! then be waiting on). A worker first tells each server it is done, after its last
//! message to it (`servers`), and a server finishes once every worker has. A rank that
//! exits sends `FAILED` first, so its peers stop within a poll rather than waiting on it;
//! `mpirun` stops the ones that remain when it sees the exit.
//!
//! Roles: the last `KILN_NUM_SERVERS` ranks of the job are servers (`kiln launch
//! --servers`), the others workers. Collectives run among the workers (`Link::workers`);
//! what workers and servers say to each other goes over a communicator of its own
//! (`Link::data`), apart from the control messages.

use mpi::point_to_point::{Destination, Source};
use mpi::request::Request;
use mpi::topology::{Communicator, SimpleCommunicator};
use std::cell::Cell;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The tag of control messages: `[kind, value]`. `FAILED`'s value is the rank the failure
/// began at, plus one (0: the sender's own), so every rank names the same cause.
const CONTROL: i32 = 0x6b696c;
const FAILED: u64 = 1;
const FINISHING: u64 = 2;

/// MPI moves a non-blocking collective's data only inside MPI calls, so a wait tests its
/// request without pause (as MPI's own blocking calls spin), reading control messages
/// every `CONTROL_EVERY` tests; a wait that has lasted `PATIENCE` (a peer still
/// computing) naps between tests instead of holding a core.
const CONTROL_EVERY: u32 = 64;
const PATIENCE: Duration = Duration::from_millis(20);
const NAP: Duration = Duration::from_micros(50);

/// An error the process's other threads ask the MPI thread to end the job with.
pub type AbortRequest = Arc<Mutex<Option<String>>>;

/// What this rank's collectives sent and how long it waited for them.
#[derive(Clone, Debug, Default)]
pub struct Traffic {
    /// Bytes of data this rank sent to the others.
    pub bytes_sent: u64,
    /// Collectives completed.
    pub collectives: u64,
    /// Messages sent to or received from servers.
    pub messages: u64,
    /// Time from each collective's or message's start to its completion, summed.
    pub busy: Duration,
    /// Each collective's start and completion, while recorded.
    pub spans: Option<Vec<(Instant, Instant)>>,
}

/// The MPI thread's view of the job.
pub struct Link {
    pub world: SimpleCommunicator,
    /// This rank's group: the workers, or the servers.
    pub workers: SimpleCommunicator,
    /// The workers' requests to the servers and their replies.
    pub data: SimpleCommunicator,
    servers: usize,
    /// Collectives completed.
    done: Cell<u64>,
    /// What each peer said when finishing.
    finishing: Vec<Cell<Option<u64>>>,
    abort: AbortRequest,
    traffic: Arc<Mutex<Traffic>>,
}

impl Link {
    /// The job's view from this rank: the last `servers` ranks are servers. Every rank
    /// calls it (it makes communicators, a collective); `None` where MPI gives this rank
    /// no communicator of its group.
    pub fn new(
        world: SimpleCommunicator,
        servers: usize,
        abort: AbortRequest,
        traffic: Arc<Mutex<Traffic>>,
    ) -> Option<Link> {
        use mpi::topology::Color;
        let finishing = (0..world.size()).map(|_| Cell::new(None)).collect();
        let is_server = world.rank() as usize + servers >= world.size() as usize;
        // Every rank gives a defined color, so every rank gets a communicator back.
        let workers = world.split_by_color(Color::with_value(is_server.into()))?;
        let data = world.duplicate();
        Some(Link {
            world,
            workers,
            data,
            servers,
            done: Cell::new(0),
            finishing,
            abort,
            traffic,
        })
    }

    /// Counts `bytes` of data sent to the others.
    pub fn sent(&self, bytes: usize) {
        if let Ok(mut traffic) = self.traffic.lock() {
            traffic.bytes_sent += bytes as u64;
        }
    }

    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    /// The job's workers: ranks 0 to `num_workers() - 1`.
    pub fn num_workers(&self) -> usize {
        self.world.size() as usize - self.servers
    }

    /// The world ranks of the servers.
    pub fn servers(&self) -> std::ops::Range<usize> {
        self.num_workers()..self.world.size() as usize
    }

    pub fn is_server(&self, rank: usize) -> bool {
        rank >= self.num_workers()
    }

    fn peers(&self) -> impl Iterator<Item = usize> + '_ {
        let me = self.rank();
        (0..self.world.size() as usize).filter(move |&r| r != me)
    }

    /// Waits for the collective `request` (`what` it carries), reading control messages
    /// between polls; counts it done.
    pub fn wait<'a, D: ?Sized, S: mpi::request::Scope<'a>>(
        &self,
        request: Request<'a, D, S>,
        what: &dyn Fn() -> String,
    ) {
        let start = self.spin(request, Some(what));
        self.done.set(self.done.get() + 1);
        self.count(start, true);
    }

    /// Waits for the message `request` sends or receives, reading control messages between
    /// polls.
    pub fn wait_message<'a, D: ?Sized, S: mpi::request::Scope<'a>>(
        &self,
        request: Request<'a, D, S>,
    ) {
        let start = self.spin(request, None);
        self.count(start, false);
    }

    /// Tests `request` until it completes; returns when it started.
    fn spin<'a, D: ?Sized, S: mpi::request::Scope<'a>>(
        &self,
        mut request: Request<'a, D, S>,
        collective: Option<&dyn Fn() -> String>,
    ) -> Instant {
        let start = Instant::now();
        let mut tests = 0u32;
        loop {
            match request.test() {
                Ok(_) => break,
                Err(pending) => request = pending,
            }
            tests = tests.wrapping_add(1);
            if tests.is_multiple_of(CONTROL_EVERY) {
                self.poll(collective);
                self.pause_after(start);
            }
        }
        start
    }

    /// Naps when a wait begun at `start` has lasted `PATIENCE` (a peer still computing).
    pub fn pause_after(&self, start: Instant) {
        if start.elapsed() > PATIENCE {
            std::thread::sleep(NAP);
        }
    }

    /// Counts a wait begun at `start` and ending now, as a collective or not.
    fn count(&self, start: Instant, collective: bool) {
        if let Ok(mut traffic) = self.traffic.lock() {
            let end = Instant::now();
            traffic.collectives += u64::from(collective);
            traffic.messages += u64::from(!collective);
            traffic.busy += end - start;
            if let Some(spans) = &mut traffic.spans {
                spans.push((start, end));
            }
        }
    }

    /// Reads the control messages that have arrived and acts on them; `waiting_in` is the
    /// collective this rank is in, if any. Ends the process where the job cannot go on.
    pub fn poll(&self, waiting_in: Option<&dyn Fn() -> String>) {
        let requested = self.abort.lock().map(|a| a.clone()).unwrap_or_default();
        if requested.is_some() {
            self.fail(None);
        }
        while let Some((message, status)) =
            (self.world.any_process()).immediate_matched_probe_with_tag(CONTROL)
        {
            let mut body = [0u64; 2];
            message.matched_receive_into(&mut body[..]);
            let peer = status.source_rank() as usize;
            match body {
                [FAILED, 0] => self.stop(&format!("rank {peer} failed"), peer),
                [FAILED, cause] => {
                    let cause = (cause - 1) as usize;
                    let why = match cause == self.rank() {
                        true => format!("rank {peer} stopped the job because of this rank"),
                        false => format!("rank {cause} failed (as rank {peer} reports)"),
                    };
                    self.stop(&why, cause)
                }
                [FINISHING, after] => {
                    self.finishing[peer].set(Some(after));
                    let in_step = !self.is_server(peer) && self.done.get() >= after;
                    if let Some(what) = waiting_in.filter(|_| in_step) {
                        self.stop(
                            &format!(
                                "rank {peer} finished after {after} collectives while this rank waits in collective {} ({}): the ranks ran different steps",
                                self.done.get() + 1,
                                what()
                            ),
                            peer,
                        );
                    }
                }
                _ => self.stop(
                    &format!("rank {peer} sent an unknown control message"),
                    peer,
                ),
            }
        }
    }

    /// Tells every peer this rank is done and waits until each says the same, every worker
    /// after as many collectives (then MPI may be finalized). A worker tells the servers
    /// first, after its last message to them.
    pub fn finish(&self) {
        let after = self.done.get();
        let me = self.rank();
        if !self.is_server(me) {
            for server in self.servers() {
                crate::protocol::say_done(self, server);
            }
        }
        for peer in self.peers() {
            self.world
                .process_at_rank(peer as i32)
                .send_with_tag(&[FINISHING, after][..], CONTROL);
        }
        loop {
            self.poll(None);
            let mut all = true;
            for peer in self.peers() {
                let counted = !self.is_server(me) && !self.is_server(peer);
                match self.finishing[peer].get() {
                    Some(n) if n == after || !counted => {}
                    Some(n) => self.stop(
                        &format!(
                            "rank {peer} finished after {n} collectives, this rank after {after}: the ranks ran different steps"
                        ),
                        peer,
                    ),
                    None => all = false,
                }
            }
            if all {
                return;
            }
            std::thread::sleep(NAP);
        }
    }

    /// Sends `FAILED` to every peer and exits; `cause` is the rank the failure began at
    /// when not this one (whose error was printed by whoever asked for the abort).
    fn fail(&self, cause: Option<usize>) -> ! {
        let cause = cause.map_or(0, |rank| rank as u64 + 1);
        for peer in self.peers() {
            self.world
                .process_at_rank(peer as i32)
                .send_with_tag(&[FAILED, cause][..], CONTROL);
        }
        std::process::exit(1)
    }

    /// Ends the job from the MPI thread: the engine never delivered the data of `what` (an
    /// operation it depends on failed on this rank), so this rank cannot take part in the
    /// collective the others are in.
    pub fn abort_undelivered(&self, what: &str) -> ! {
        say(&format!(
            "kiln: rank {} of {} failed: {what} was never computed (an error on this rank); stopping the job",
            self.rank(),
            self.world.size()
        ));
        self.fail(None)
    }

    /// Ends this rank because of rank `cause`: says why, tells the others, exits.
    fn stop(&self, why: &str, cause: usize) -> ! {
        say(&format!(
            "kiln: rank {} of {}: stopping: {why}",
            self.rank(),
            self.world.size()
        ));
        self.fail(Some(cause))
    }
}

/// Writes `line` to stderr in one write: `mpirun` interleaves the ranks' output by the
/// piece, and a line printed in pieces would be cut by another rank's.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
}
