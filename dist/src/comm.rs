//! The MPI thread: the one thread of a process that calls MPI.
//!
//! MPI is initialized on it at `MPI_THREAD_FUNNELED` (only the initializing thread calls
//! MPI, which every MPI library supports), so the engine's threads and the caller never
//! wait inside MPI. It runs jobs in the order they were submitted. Workers submit in
//! program order, the same on every rank, so their collectives match; a job whose data
//! the engine computes waits for it (its asynchronous operation hands the job its
//! completion) and holds back the jobs behind it. Every wait polls the job's control
//! messages (`control`), so no rank waits forever on a peer that failed or left.
//!
//! The thread is shared by every store of the process ([`shared`]: two modules training
//! side by side, as a GAN's). When the last handle is dropped, the jobs left run, the ranks
//! agree to finish, and MPI is finalized; MPI cannot start again in that process.

use crate::control::{AbortRequest, Link, Traffic};
use crate::fault::Fault;
use kiln_kvstore::{Error, Result};
use kiln_runtime::{Completion, Engine, NDArray};
use mpi::collective::{CommunicatorCollectives, SystemOperation};
use mpi::environment::Threading;
use mpi::topology::Communicator;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

/// Work for the MPI thread.
pub type Job = Box<dyn FnOnce(&Link) + Send>;

/// What work queued after the engine does with peers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Exchange {
    /// A collective: every worker takes part in the same order.
    Collective,
    /// Messages to and from servers: the workers need not be in step.
    Messages,
}

/// How often an idle MPI thread reads control messages, and a job waiting for its data
/// on the engine.
const IDLE_POLL: Duration = Duration::from_millis(5);

/// The variable naming how many of the job's last ranks are servers (`kiln launch
/// --servers`; MXNet's DMLC_NUM_SERVER).
pub const SERVERS_VAR: &str = "KILN_NUM_SERVERS";

/// How long a rank that failed waits for its MPI thread to tell the peers before exiting
/// on its own.
const ABORT_GRACE: Duration = Duration::from_secs(5);

static SHARED: Mutex<Weak<Comm>> = Mutex::new(Weak::new());

/// The MPI thread of this process, started by the first store that needs it.
pub fn shared() -> Result<Arc<Comm>> {
    let mut slot = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(comm) = slot.upgrade() {
        return Ok(comm);
    }
    let comm = Arc::new(Comm::start()?);
    *slot = Arc::downgrade(&comm);
    Ok(comm)
}

/// The MPI thread of this process if a store started it and one still holds it.
pub fn current() -> Option<Arc<Comm>> {
    SHARED.lock().unwrap_or_else(|e| e.into_inner()).upgrade()
}

/// A handle to the MPI thread.
pub struct Comm {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
    abort: AbortRequest,
    traffic: Arc<Mutex<Traffic>>,
    rank: usize,
    size: usize,
    servers: usize,
}

impl Comm {
    /// Starts the thread and initializes MPI on it (once per process).
    fn start() -> Result<Comm> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let (started, ready) = mpsc::channel();
        let abort = AbortRequest::default();
        let requests = abort.clone();
        let traffic = Arc::new(Mutex::new(Traffic::default()));
        let counted = traffic.clone();
        let thread = std::thread::Builder::new()
            .name("kiln-mpi".into())
            .spawn(move || {
                let Some((universe, level)) = mpi::initialize_with_threading(Threading::Funneled)
                else {
                    let _ = started.send(Err(
                        "MPI was initialized and finalized in this process before: keep a distributed store alive while making the next"
                            .to_string(),
                    ));
                    return;
                };
                if level < Threading::Funneled {
                    let _ = started.send(Err(format!(
                        "this MPI library provides thread level {level:?}; kiln needs Funneled"
                    )));
                    return;
                }
                let world = universe.world();
                let (rank, size) = (world.rank() as usize, world.size() as usize);
                let servers = match servers(size) {
                    Ok(servers) => servers,
                    Err(fault) => {
                        let _ = started.send(Err(fault.to_string()));
                        return;
                    }
                };
                let Some(link) = Link::new(world, servers, requests, counted) else {
                    let _ = started.send(Err(
                        "MPI gave this rank no communicator of its group (workers or servers)"
                            .to_string(),
                    ));
                    return;
                };
                let _ = started.send(Ok((rank, size, servers)));
                loop {
                    match queue.recv_timeout(IDLE_POLL) {
                        Ok(job) => job(&link),
                        Err(RecvTimeoutError::Timeout) => link.poll(None),
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                }
                link.finish();
                // Its communicators are freed before MPI is finalized; every peer is
                // finishing too: finalized as the universe drops.
                drop(link);
                drop(universe);
            })
            .map_err(|e| Error::Input(format!("cannot start the MPI thread: {e}")))?;
        let (rank, size, servers) = match ready.recv() {
            Ok(Ok(place)) => place,
            Ok(Err(message)) => return Err(Error::Input(message)),
            Err(_) => return Err(Error::Input("the MPI thread ended while starting".into())),
        };
        Ok(Comm {
            jobs: Some(jobs),
            thread: Some(thread),
            abort,
            traffic,
            rank,
            size,
            servers,
        })
    }

    /// This process's rank in the job.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of processes in the job.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The number of workers (the job's first ranks).
    pub fn num_workers(&self) -> usize {
        self.size - self.servers
    }

    /// The number of servers (the job's last ranks).
    pub fn num_servers(&self) -> usize {
        self.servers
    }

    /// Whether this process is a server.
    pub fn is_server(&self) -> bool {
        self.rank >= self.num_workers()
    }

    /// Blocks until every worker has called it (after the jobs queued before).
    pub fn barrier(&self) -> Result<()> {
        self.call(|link| {
            let request = link.workers.immediate_barrier();
            link.wait(request, &|| "a barrier".to_string());
        })
    }

    /// How many workers pass `this` as true (blocks; a collective).
    pub fn count(&self, this: bool) -> Result<usize> {
        let mine = u64::from(this);
        let total = self.call(move |link| {
            let mut total = 0u64;
            mpi::request::scope(|scope| {
                let request = (link.workers).immediate_all_reduce_into(
                    scope,
                    &mine,
                    &mut total,
                    SystemOperation::sum(),
                );
                link.wait(request, &|| "the count of workers with a batch".to_string());
            });
            total
        })?;
        Ok(total as usize)
    }

    /// Queues `work` on the MPI thread, to run once the engine has run an asynchronous
    /// operation `op` reading `reads` and writing `writes` (which it holds until `work` is
    /// done). `what` names the data in messages; `exchange` says whether the workers must
    /// be in step for it.
    pub fn after_engine(
        &self,
        what: impl Fn() -> String + Send + 'static,
        (op, exchange): (&str, Exchange),
        (reads, writes): (&[&NDArray], &[&NDArray]),
        priority: i32,
        work: impl FnOnce(&Link, &dyn Fn() -> String) -> std::result::Result<(), String>
            + Send
            + 'static,
    ) -> Result<()> {
        let (deliver, delivered) = mpsc::sync_channel::<Completion>(1);
        let collective = exchange == Exchange::Collective;
        self.submit(Box::new(move |link| {
            let done = loop {
                match delivered.recv_timeout(IDLE_POLL) {
                    Ok(done) => break done,
                    Err(RecvTimeoutError::Timeout) => {
                        link.poll(collective.then_some(&what as &dyn Fn() -> String))
                    }
                    Err(RecvTimeoutError::Disconnected) => link.abort_undelivered(&what()),
                }
            };
            done.complete(work(link, &what));
        }))?;
        let reads: Vec<_> = reads.iter().map(|a| a.var().clone()).collect();
        let writes: Vec<_> = writes.iter().map(|a| a.var().clone()).collect();
        Engine::global().push_async_fn(op, &reads, &writes, priority, move |done| {
            let _ = deliver.send(done);
        });
        Ok(())
    }

    /// Records each collective's span from now on (`true`), or stops (`false`).
    pub fn record_spans(&self, on: bool) {
        let mut traffic = self.traffic.lock().unwrap_or_else(|e| e.into_inner());
        traffic.spans = on.then(Vec::new);
    }

    /// What this rank's collectives sent and took so far, with the spans recorded since
    /// the last call.
    pub fn traffic(&self) -> Traffic {
        let mut traffic = self.traffic.lock().unwrap_or_else(|e| e.into_inner());
        let spans = traffic.spans.as_mut().map(std::mem::take);
        Traffic {
            spans,
            ..traffic.clone()
        }
    }

    /// Queues `job` after every job submitted before it.
    pub fn submit(&self, job: Job) -> Result<()> {
        (self.jobs.as_ref())
            .and_then(|jobs| jobs.send(job).ok())
            .ok_or_else(|| Error::Input("the MPI thread has ended".into()))
    }

    /// Runs `f` after the jobs submitted before it and returns its result.
    pub fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Link) -> T + Send + 'static,
    ) -> Result<T> {
        let (reply, result) = mpsc::sync_channel(1);
        self.submit(Box::new(move |link| {
            let _ = reply.send(f(link));
        }))?;
        result
            .recv()
            .map_err(|_| Error::Input("the MPI thread ended before answering".into()))
    }

    /// Ends this process after `error`: says which rank failed, has the MPI thread tell
    /// every peer (which then stop), and exits with status 1 without finalizing MPI.
    pub fn abort(&self, error: &str) -> ! {
        crate::control::say(&format!(
            "kiln: rank {} of {} failed: {error}; stopping the job",
            self.rank, self.size
        ));
        if let Ok(mut request) = self.abort.lock() {
            *request = Some(error.to_string());
        }
        // The MPI thread exits the process at its next poll.
        std::thread::sleep(ABORT_GRACE);
        std::process::exit(1)
    }
}

/// The job's servers, from [`SERVERS_VAR`] (none when unset); a job of `size` ranks keeps
/// at least one worker.
fn servers(size: usize) -> std::result::Result<usize, Fault> {
    let bad = |value: &str, why: String| Fault::Setting {
        var: SERVERS_VAR,
        value: value.to_string(),
        why,
    };
    let value = match std::env::var(SERVERS_VAR) {
        Err(std::env::VarError::NotPresent) => return Ok(0),
        Err(e) => return Err(bad("", e.to_string())),
        Ok(value) => value,
    };
    match value.trim().parse::<usize>() {
        Ok(servers) if servers < size => Ok(servers),
        Ok(_) => Err(bad(
            &value,
            format!("the job has {size} ranks: it needs at least one worker"),
        )),
        Err(e) => Err(bad(&value, format!("not a number of servers ({e})"))),
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
