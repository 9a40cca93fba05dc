//! A variable's version queue (MXNet's ThreadedVar): which pending operations may run.

use super::threaded::{Block, Inner, Raised};
use super::EngineError;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// A resource tracked by the engine. Cloning gives another handle to the same variable.
#[derive(Clone)]
pub struct Var(Arc<VarState>);

pub(super) struct VarState {
    id: u64,
    queue: Mutex<Queue>,
}

#[derive(Default)]
struct Queue {
    /// Reads granted and not yet completed.
    active_reads: usize,
    /// A write granted and not yet completed.
    active_write: bool,
    /// Operations not yet granted, in push order (`true`: a write).
    waiting: VecDeque<(Arc<Block>, bool)>,
    /// Completed writes.
    version: u64,
    error: Option<Raised>,
}

impl Var {
    pub(super) fn new() -> Var {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let state = VarState {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            queue: Mutex::new(Queue::default()),
        };
        Var(Arc::new(state))
    }

    /// A process-unique id (also the order in which variables are locked).
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// How many writes to this variable have completed.
    pub fn version(&self) -> u64 {
        self.lock().version
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        // An operation's panic is caught before it reaches a lock, so poisoning cannot hide
        // a broken invariant here.
        self.0.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn take_error(&self) -> Option<EngineError> {
        self.lock().error.take().map(|raised| raised.error)
    }

    /// Registers a read by `block`: granted now unless a write is active or queued.
    pub(super) fn append_read(&self, block: &Arc<Block>, inner: &Inner) {
        let mut q = self.lock();
        if !q.active_write && q.waiting.is_empty() {
            q.active_reads += 1;
            if let Some(e) = &q.error {
                block.inherit(e);
            }
            drop(q);
            inner.grant(block.clone());
        } else {
            q.waiting.push_back((block.clone(), false));
        }
    }

    /// Registers a write by `block`: granted now only if nothing else is pending.
    pub(super) fn append_write(&self, block: &Arc<Block>, inner: &Inner) {
        let mut q = self.lock();
        if !q.active_write && q.active_reads == 0 && q.waiting.is_empty() {
            q.active_write = true;
            if let Some(e) = &q.error {
                block.inherit(e);
            }
            drop(q);
            inner.grant(block.clone());
        } else {
            q.waiting.push_back((block.clone(), true));
        }
    }

    pub(super) fn complete_read(&self, inner: &Inner) {
        let mut q = self.lock();
        q.active_reads -= 1;
        if q.active_reads == 0 {
            grant_front(&mut q, inner);
        }
    }

    /// Completes a write; `error` (if any) is attached before later operations are granted,
    /// so they see it.
    pub(super) fn complete_write(&self, inner: &Inner, error: Option<&Raised>) {
        let mut q = self.lock();
        q.active_write = false;
        q.version += 1;
        if let Some(raised) = error {
            q.error = Some(raised.clone());
        }
        grant_front(&mut q, inner);
    }
}

/// Grants the run of reads at the front of the queue, or the write at the front once no
/// read is active.
fn grant_front(q: &mut Queue, inner: &Inner) {
    while let Some((_, is_write)) = q.waiting.front() {
        if q.active_write || (*is_write && q.active_reads > 0) {
            return;
        }
        let (block, is_write) = q.waiting.pop_front().expect("front exists");
        // The error this variable carries now travels with the block.
        if let Some(e) = &q.error {
            block.inherit(e);
        }
        if is_write {
            q.active_write = true;
        } else {
            q.active_reads += 1;
        }
        inner.grant(block);
        if is_write {
            return;
        }
    }
}
