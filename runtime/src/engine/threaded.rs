//! The threaded engine: pushed operations wait in their variables' queues until granted,
//! then run on a lane's workers in priority order. With [`EngineKind::Naive`] the same
//! bookkeeping runs synchronously on the pushing thread.

use super::{Body, EngineError, EngineKind, FnProperty, Operator};
use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Condvar, Mutex, MutexGuard};

/// One push of an operation: its wait counter and place in the ready order. Blocks are
/// recycled, so a push allocates nothing in steady state.
pub(crate) struct Block {
    op: Option<Arc<Operator>>,
    /// Grants still missing (one per variable, plus one held by the pusher).
    wait: AtomicUsize,
    priority: i32,
    seq: u64,
    /// An error a variable carried when it granted this block: taken then, so a wait that
    /// reports and clears the error before this block runs cannot hide it.
    inherited: Mutex<Option<Raised>>,
}

/// An error and the push of the operation that raised it.
#[derive(Clone)]
pub(super) struct Raised {
    seq: u64,
    pub(super) error: EngineError,
}

impl Block {
    /// Records `raised` as inherited. Of several, the one raised first is kept: the
    /// variables grant in an order that depends on timing, and the error an operation
    /// carries on must not.
    pub(super) fn inherit(&self, raised: &Raised) {
        let mut slot = lock(&self.inherited);
        if slot.as_ref().is_none_or(|kept| raised.seq < kept.seq) {
            *slot = Some(raised.clone());
        }
    }
}

struct Ready(Arc<Block>);

impl PartialEq for Ready {
    fn eq(&self, other: &Ready) -> bool {
        self.cmp(other) == CmpOrdering::Equal
    }
}
impl Eq for Ready {}
impl PartialOrd for Ready {
    fn partial_cmp(&self, other: &Ready) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ready {
    /// Higher priority first, then first pushed first.
    fn cmp(&self, other: &Ready) -> CmpOrdering {
        self.0
            .priority
            .cmp(&other.0.priority)
            .then(other.0.seq.cmp(&self.0.seq))
    }
}

#[derive(Default)]
struct Lane {
    ready: Mutex<BinaryHeap<Ready>>,
    available: Condvar,
}

pub(crate) struct Inner {
    pub(super) kind: EngineKind,
    /// Compute, copy and priority lanes.
    lanes: [Lane; 3],
    pending: AtomicUsize,
    idle_lock: Mutex<()>,
    idle: Condvar,
    errors: Mutex<Vec<EngineError>>,
    free_blocks: Mutex<Vec<Arc<Block>>>,
    next_seq: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Inner {
    pub(super) fn start(kind: EngineKind) -> Arc<Inner> {
        let inner = Arc::new(Inner {
            kind,
            lanes: Default::default(),
            pending: AtomicUsize::new(0),
            idle_lock: Mutex::new(()),
            idle: Condvar::new(),
            errors: Mutex::new(Vec::new()),
            free_blocks: Mutex::new(Vec::new()),
            next_seq: AtomicU64::new(0),
        });
        if let EngineKind::Threaded { workers } = kind {
            let lanes = [(0, workers), (1, 1), (2, 1)];
            // The engine is returned once every worker has started: a thread's start-up
            // (its name, its matrix workspace) allocates, and must not fall into the first
            // pushes, which allocate nothing in steady state.
            let started = Arc::new(Barrier::new(workers + 3));
            for (lane, count) in lanes {
                for i in 0..count {
                    // Workers hold a weak handle so the engine can be dropped; they exit
                    // when it is.
                    let weak = Arc::downgrade(&inner);
                    let started = started.clone();
                    let name = format!("kiln-engine-{}-{i}", ["worker", "copy", "priority"][lane]);
                    std::thread::Builder::new()
                        .name(name)
                        .spawn(move || worker(weak, lane, &started))
                        .expect("spawning an engine thread");
                }
            }
            started.wait();
        }
        inner
    }

    fn new_block(&self, op: &Arc<Operator>, priority: i32) -> Arc<Block> {
        // A recycled block another thread still holds a handle to (it granted the block
        // and has not dropped its handle yet) waits in the list until it is free.
        let recycled = {
            let mut free = lock(&self.free_blocks);
            let at = free.iter_mut().rposition(|b| Arc::get_mut(b).is_some());
            at.map(|i| free.swap_remove(i))
        };
        let mut block = recycled.unwrap_or_else(|| {
            Arc::new(Block {
                op: None,
                wait: AtomicUsize::new(0),
                priority: 0,
                seq: 0,
                inherited: Mutex::new(None),
            })
        });
        let b = Arc::get_mut(&mut block).expect("recycled blocks are unshared");
        b.op = Some(op.clone());
        *b.wait.get_mut() = op.reads.len() + op.writes.len() + 1;
        b.priority = priority;
        b.seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
        block
    }

    fn recycle(&self, mut block: Arc<Block>) {
        // Another thread may still be dropping its handle: the block is kept anyway and
        // reused once it is free (its operation is released now where possible).
        if let Some(b) = Arc::get_mut(&mut block) {
            b.op = None;
        }
        lock(&self.free_blocks).push(block);
    }

    pub(super) fn push(self: &Arc<Self>, op: &Arc<Operator>, priority: i32) {
        self.pending.fetch_add(1, Ordering::AcqRel);
        let block = self.new_block(op, priority);
        for v in &op.reads {
            v.append_read(&block, self);
        }
        for v in &op.writes {
            v.append_write(&block, self);
        }
        // The pusher's own grant moves its handle along, so the block can be recycled.
        self.grant(block);
        if self.kind == EngineKind::Naive {
            self.drain_naive();
        }
    }

    /// The naive engine runs ready operations on the pushing thread. Operations pushed from
    /// inside an operation are queued and run by the outermost push, so no variable lock is
    /// ever taken twice.
    fn drain_naive(self: &Arc<Self>) {
        thread_local!(static DRAINING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
        if DRAINING.with(|d| d.replace(true)) {
            return;
        }
        loop {
            let next = lock(&self.lanes[0].ready).pop();
            match next {
                Some(Ready(block)) => self.execute(block),
                None => break,
            }
        }
        DRAINING.with(|d| d.set(false));
    }

    /// One dependency of `block` is satisfied; the last one makes it ready. Handles are
    /// passed by value so the ready queue ends up holding the only one.
    pub(super) fn grant(&self, block: Arc<Block>) {
        if block.wait.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        let op = block.op.as_ref().expect("a pushed block has its operation");
        let lane = match (self.kind, op.prop) {
            (EngineKind::Naive, _) | (_, FnProperty::Normal) => 0,
            (_, FnProperty::Copy) => 1,
            (_, FnProperty::Prioritized) => 2,
        };
        let lane = &self.lanes[lane];
        lock(&lane.ready).push(Ready(block));
        lane.available.notify_one();
    }

    fn execute(self: &Arc<Self>, block: Arc<Block>) {
        let op = block.op.clone().expect("a ready block has its operation");
        // Every variable granted the block with the error it carried, and none can gain
        // one before the block completes (their writers wait for it): this is all of them.
        let inherited = lock(&block.inherited).take().filter(|_| !op.no_skip);
        if let (None, Body::Async(start)) = (&inherited, &op.body) {
            let naive = (self.kind == EngineKind::Naive).then(Default::default);
            let done = Completion {
                engine: self.clone(),
                block: Some(block),
                started: crate::profiler::enabled().then(std::time::Instant::now),
                naive: naive.clone(),
            };
            // A panic drops the completion, which completes the operation with an error.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| start(done)));
            if let Some(signal) = naive {
                signal.wait();
            }
            return;
        }
        let result = match inherited {
            Some(raised) => Err(raised),
            None => op.run().map_err(|error| self.raise(&block, error)),
        };
        self.finish(block, &op, result.err());
    }

    fn raise(&self, block: &Block, error: EngineError) -> Raised {
        lock(&self.errors).push(error.clone());
        Raised {
            seq: block.seq,
            error,
        }
    }

    /// Releases the variables of a completed operation.
    fn finish(&self, block: Arc<Block>, op: &Operator, error: Option<Raised>) {
        for v in &op.reads {
            v.complete_read(self);
        }
        for v in &op.writes {
            v.complete_write(self, error.as_ref());
        }
        self.recycle(block);
        if self.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _guard = lock(&self.idle_lock);
            self.idle.notify_all();
        }
    }

    pub(super) fn wait_idle(&self) {
        let mut guard = lock(&self.idle_lock);
        while self.pending.load(Ordering::Acquire) != 0 {
            guard = self.idle.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }

    pub(super) fn take_first_error(&self) -> Result<(), EngineError> {
        let mut errors = lock(&self.errors);
        let first = errors.first().cloned();
        errors.clear();
        first.map_or(Ok(()), Err)
    }
}

/// How an asynchronous operation's work says it is done: once, with its result. Dropped
/// without [`Completion::complete`], it completes the operation with an error.
pub struct Completion {
    engine: Arc<Inner>,
    block: Option<Arc<Block>>,
    started: Option<std::time::Instant>,
    /// The naive engine's pushing thread waits on this.
    naive: Option<Arc<Signal>>,
}

impl Completion {
    /// Completes the operation: its variables are released, and an error is attached to
    /// what it writes as a synchronous operation's would be.
    pub fn complete(mut self, result: Result<(), String>) {
        self.finish(result);
    }

    fn finish(&mut self, result: Result<(), String>) {
        let Some(block) = self.block.take() else {
            return;
        };
        let op = block.op.clone().expect("a started block has its operation");
        op.profile(self.started);
        let error = result
            .err()
            .map(|message| self.engine.raise(&block, op.error(message)));
        self.engine.finish(block, &op, error);
        if let Some(signal) = &self.naive {
            signal.set();
        }
    }
}

impl Drop for Completion {
    fn drop(&mut self) {
        self.finish(Err(
            "its work ended without completing it (dropped or panicked)".into(),
        ));
    }
}

/// A flag one thread waits for and another sets.
#[derive(Default)]
struct Signal {
    set: Mutex<bool>,
    changed: Condvar,
}

impl Signal {
    fn set(&self) {
        *lock(&self.set) = true;
        self.changed.notify_all();
    }

    fn wait(&self) {
        let mut set = lock(&self.set);
        while !*set {
            set = self.changed.wait(set).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// A worker: runs the highest-priority ready operation of its lane, until the engine is
/// dropped. It holds the engine only while waiting briefly or running, so dropping the
/// last [`Engine`](super::Engine) handle ends it.
fn worker(engine: std::sync::Weak<Inner>, lane: usize, started: &Barrier) {
    // CPU operations run matrix products on this thread too (as the pool's caller).
    crate::cpu::gemm::reserve_workspace();
    crate::cpu::matmul::reserve_partials();
    started.wait();
    while let Some(inner) = engine.upgrade() {
        let next = {
            let l = &inner.lanes[lane];
            let mut ready = lock(&l.ready);
            if ready.is_empty() {
                ready = l
                    .available
                    .wait_timeout(ready, std::time::Duration::from_millis(100))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            ready.pop()
        };
        if let Some(Ready(block)) = next {
            inner.execute(block);
        }
    }
}
