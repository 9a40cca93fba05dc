//! The dependency engine (MXNet paper §3.2; MXNET_SPEC §5).
//!
//! Every resource — an array's memory, a random generator's state, temporary space — is a
//! [`Var`]. An operation is pushed with the variables it reads and the variables it writes;
//! the engine runs it as soon as those allow: reads of a variable run concurrently, a write
//! waits for every earlier read and write of that variable and holds back later ones, and
//! among ready operations the higher priority runs first.
//!
//! Operations are pre-created ([`Engine::new_operator`], MXNet's `NewOperator`) with fixed,
//! de-duplicated variable lists, so pushing one allocates nothing in steady state.
//!
//! Errors: an operation fails by returning `Err` or by panicking (itself, or in a task of
//! the kernels' pool it runs: `panicked: MESSAGE`); a panic never leaves the operation, so
//! the worker runs later operations as before. The error is attached to the variables the
//! operation writes; operations that touch such a variable are skipped and carry the error
//! on (of several, the one raised first in push order, so which error is reported does not
//! depend on timing). It surfaces at the next [`Engine::wait_for_var`] on an affected
//! variable, which clears it, and at [`Engine::wait_all`].
//!
//! Asynchronous operations ([`Engine::new_async_operator`], MXNet's `kAsync`) start on the
//! priority lane and hand their work elsewhere (a communication thread); they complete
//! when that work calls their [`Completion`], and until then they hold their variables as
//! any running operation does. A completion dropped without being called completes the
//! operation with an error, so a lost request cannot leave its variables held forever.
//!
//! Threads: `KILN_CPU_WORKER_NTHREADS` compute workers (default 1, as MXnet: kernels
//! parallelize internally over the shared pool, so more workers would oversubscribe the
//! cores), one copy lane and one priority lane. `KILN_ENGINE=naive` runs every operation
//! synchronously on the pushing thread, for debugging.

mod threaded;
mod var;

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

pub use var::Var;

/// An error raised by an operation, as seen by whoever waits on what it writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineError {
    /// The name of the operation that failed.
    pub op: Arc<str>,
    pub message: Arc<str>,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "operation `{}` failed: {}", self.op, self.message)
    }
}

impl std::error::Error for EngineError {}

/// Where an operation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FnProperty {
    /// The compute workers.
    #[default]
    Normal,
    /// The copy lane (device transfers).
    Copy,
    /// The priority lane: ahead of everything on the compute workers (KVStore communication).
    Prioritized,
}

type SharedFn = dyn Fn() -> Result<(), String> + Send + Sync;
type AsyncFn = dyn Fn(Completion) + Send + Sync;

pub use threaded::Completion;

/// What an operation runs.
enum Body {
    /// A function that completes the operation when it returns.
    Sync(Box<SharedFn>),
    /// A function that starts the work; the operation completes when the work calls the
    /// [`Completion`] it was given.
    Async(Box<AsyncFn>),
    /// A segment's operations, run in order ([`Engine::new_segment`]).
    Segment(Vec<Arc<Operator>>),
}

/// A pre-created operation: what it runs and its de-duplicated variable lists.
pub struct Operator {
    name: Arc<str>,
    body: Body,
    reads: Vec<Var>,
    writes: Vec<Var>,
    prop: FnProperty,
    /// Runs even when a variable it touches carries an error (waits).
    no_skip: bool,
    /// Bytes of the arrays it reads and writes, where its creator said (for the profile).
    bytes: usize,
}

impl Operator {
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn reads(&self) -> &[Var] {
        &self.reads
    }
    pub fn writes(&self) -> &[Var] {
        &self.writes
    }

    /// This operation, profiled as moving `bytes` (the arrays it reads and writes).
    pub fn with_bytes(mut self: Arc<Self>, bytes: usize) -> Arc<Self> {
        if let Some(op) = Arc::get_mut(&mut self) {
            op.bytes = bytes;
        }
        self
    }

    /// Runs a synchronous operation or a segment (an asynchronous one is started by the
    /// engine with its completion).
    fn run(&self) -> Result<(), EngineError> {
        let start = crate::profiler::enabled().then(std::time::Instant::now);
        let result = match &self.body {
            Body::Segment(ops) => {
                let result = ops.iter().try_for_each(|op| op.run());
                self.profile(start);
                return result;
            }
            Body::Sync(f) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)),
            Body::Async(_) => Ok(Err(
                "an asynchronous operation run as a synchronous one".into()
            )),
        };
        self.profile(start);
        match result {
            Ok(Ok(())) => Ok(()),
            Ok(Err(message)) => Err(self.error(message)),
            Err(payload) => Err(self.error(panic_message(payload.as_ref()))),
        }
    }

    fn profile(&self, start: Option<std::time::Instant>) {
        if let Some(start) = start {
            crate::profiler::record(&self.name, start, self.bytes);
        }
    }

    fn error(&self, message: String) -> EngineError {
        EngineError {
            op: self.name.clone(),
            message: message.into(),
        }
    }
}

/// `panicked: MESSAGE` for a caught panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("panicked: {text}")
}

/// MXNet's DeduplicateVarHandle: each list sorted and unique, and a variable both read and
/// written only written (`a *= &a` works).
fn dedup(reads: &[Var], writes: &[Var]) -> (Vec<Var>, Vec<Var>) {
    let mut w: Vec<Var> = writes.to_vec();
    w.sort_by_key(Var::id);
    w.dedup_by_key(|v| v.id());
    let mut r: Vec<Var> = reads
        .iter()
        .filter(|v| w.binary_search_by_key(&v.id(), Var::id).is_err())
        .cloned()
        .collect();
    r.sort_by_key(Var::id);
    r.dedup_by_key(|v| v.id());
    (r, w)
}

/// Which engine runs the pushed operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// Worker threads with dependency tracking (the default).
    Threaded { workers: usize },
    /// Every push runs synchronously on the caller (debugging).
    Naive,
}

/// Called before anything reaches the engine (a push or a wait): imperative operations
/// recorded for fusion (`ndarray::lazy`) are pushed first, so the engine sees every
/// operation in program order.
static FLUSH_HOOK: OnceLock<fn()> = OnceLock::new();

/// Sets the flush hook, once per process.
pub(crate) fn set_flush_hook(hook: fn()) {
    let _ = FLUSH_HOOK.set(hook);
}

fn flush_pending() {
    if let Some(hook) = FLUSH_HOOK.get() {
        hook();
    }
}

/// The dependency engine. Cheap to clone (a handle).
#[derive(Clone)]
pub struct Engine {
    inner: Arc<threaded::Inner>,
}

impl Engine {
    pub fn new(kind: EngineKind) -> Engine {
        Engine {
            inner: threaded::Inner::start(kind),
        }
    }

    /// The process-wide engine, of the process configuration's kind.
    pub fn global() -> &'static Engine {
        static GLOBAL: OnceLock<Engine> = OnceLock::new();
        GLOBAL.get_or_init(|| Engine::new(crate::Config::global().engine))
    }

    pub fn kind(&self) -> EngineKind {
        self.inner.kind
    }

    /// A new variable (a resource operations read and write).
    pub fn new_var(&self) -> Var {
        Var::new()
    }

    /// Pre-creates an operation; push it any number of times with [`Engine::push`].
    pub fn new_operator(
        &self,
        name: &str,
        reads: &[Var],
        writes: &[Var],
        prop: FnProperty,
        f: impl Fn() -> Result<(), String> + Send + Sync + 'static,
    ) -> Arc<Operator> {
        let (reads, writes) = dedup(reads, writes);
        Arc::new(Operator {
            name: name.into(),
            body: Body::Sync(Box::new(f)),
            reads,
            writes,
            prop,
            no_skip: false,
            bytes: 0,
        })
    }

    /// Pre-creates an asynchronous operation: `f` starts the work on the priority lane and
    /// returns; the operation completes when the work calls the [`Completion`] (see the
    /// module's doc). The naive engine waits for the completion before going on.
    pub fn new_async_operator(
        &self,
        name: &str,
        reads: &[Var],
        writes: &[Var],
        f: impl Fn(Completion) + Send + Sync + 'static,
    ) -> Arc<Operator> {
        let (reads, writes) = dedup(reads, writes);
        Arc::new(Operator {
            name: name.into(),
            body: Body::Async(Box::new(f)),
            reads,
            writes,
            prop: FnProperty::Prioritized,
            no_skip: false,
            bytes: 0,
        })
    }

    /// Pre-creates one operation running `ops` in order (MXNet's bulk execution): one push
    /// and one dependency check over the union of their variables. A failure stops the
    /// segment and is reported under the failing operation's name.
    pub fn new_segment(&self, name: &str, ops: Vec<Arc<Operator>>) -> Arc<Operator> {
        let reads: Vec<Var> = ops.iter().flat_map(|o| o.reads.iter().cloned()).collect();
        let writes: Vec<Var> = ops.iter().flat_map(|o| o.writes.iter().cloned()).collect();
        let (reads, writes) = dedup(&reads, &writes);
        Arc::new(Operator {
            name: name.into(),
            reads,
            writes,
            prop: FnProperty::Normal,
            no_skip: false,
            bytes: ops.iter().map(|o| o.bytes).sum(),
            body: Body::Segment(ops),
        })
    }

    /// Schedules a pre-created operation. Returns at once.
    pub fn push(&self, op: &Arc<Operator>, priority: i32) {
        flush_pending();
        self.inner.push(op, priority);
    }

    /// Creates and pushes a one-shot operation, profiled as moving `bytes`.
    pub fn push_fn_bytes(
        &self,
        name: &str,
        reads: &[Var],
        writes: &[Var],
        bytes: usize,
        f: impl FnOnce() -> Result<(), String> + Send + 'static,
    ) {
        let op = self.one_shot(name, reads, writes, FnProperty::Normal, f);
        self.push(&op.with_bytes(bytes), 0);
    }

    /// Creates and pushes a one-shot operation.
    pub fn push_fn(
        &self,
        name: &str,
        reads: &[Var],
        writes: &[Var],
        prop: FnProperty,
        priority: i32,
        f: impl FnOnce() -> Result<(), String> + Send + 'static,
    ) {
        self.push(&self.one_shot(name, reads, writes, prop, f), priority);
    }

    /// Creates and pushes a one-shot asynchronous operation (see
    /// [`Engine::new_async_operator`]).
    pub fn push_async_fn(
        &self,
        name: &str,
        reads: &[Var],
        writes: &[Var],
        priority: i32,
        f: impl FnOnce(Completion) + Send + 'static,
    ) {
        let once = Mutex::new(Some(f));
        let op = self.new_async_operator(name, reads, writes, move |done| {
            match once.lock().map(|mut f| f.take()) {
                Ok(Some(f)) => f(done),
                _ => done.complete(Err("a one-shot operation ran twice".into())),
            }
        });
        self.push(&op, priority);
    }

    fn one_shot(
        &self,
        name: &str,
        reads: &[Var],
        writes: &[Var],
        prop: FnProperty,
        f: impl FnOnce() -> Result<(), String> + Send + 'static,
    ) -> Arc<Operator> {
        let once = Mutex::new(Some(f));
        self.new_operator(name, reads, writes, prop, move || {
            match once.lock().map(|mut f| f.take()) {
                Ok(Some(f)) => f(),
                _ => Err("a one-shot operation ran twice".into()),
            }
        })
    }

    /// Blocks until every operation pushed so far that writes `var` has completed; returns
    /// (and clears) the error `var` carries.
    pub fn wait_for_var(&self, var: &Var) -> Result<(), EngineError> {
        flush_pending();
        if self.inner.kind != EngineKind::Naive {
            let done = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
            let signal = done.clone();
            let (reads, writes) = dedup(std::slice::from_ref(var), &[]);
            let op = Arc::new(Operator {
                name: "wait_for_var".into(),
                body: Body::Sync(Box::new(move || {
                    let (lock, cv) = &*signal;
                    *lock.lock().map_err(|e| e.to_string())? = true;
                    cv.notify_all();
                    Ok(())
                })),
                reads,
                writes,
                prop: FnProperty::Prioritized,
                no_skip: true,
                bytes: 0,
            });
            self.inner.push(&op, i32::MAX);
            let (lock, cv) = &*done;
            let mut finished = lock.lock().unwrap_or_else(|e| e.into_inner());
            while !*finished {
                finished = cv.wait(finished).unwrap_or_else(|e| e.into_inner());
            }
        }
        match var.take_error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Blocks until every pushed operation has completed; returns (and clears) the first
    /// error any of them raised.
    pub fn wait_all(&self) -> Result<(), EngineError> {
        flush_pending();
        self.inner.wait_idle();
        if let Err(e) = crate::profiler::write() {
            eprintln!("KILN_PROFILE: cannot write the trace: {e}");
        }
        self.inner.take_first_error()
    }

    /// Deletes `var` once every operation pushed so far that uses it has run.
    pub fn delete_var(&self, var: Var) {
        let keep = var.clone();
        self.push_fn(
            "delete_var",
            &[],
            &[var],
            FnProperty::Normal,
            0,
            move || {
                drop(keep);
                Ok(())
            },
        );
    }
}
