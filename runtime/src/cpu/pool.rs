//! The kernels' thread pool: a fork-join over task indices that allocates nothing per call.
//!
//! Why not rayon: a call from outside rayon's workers (an engine thread) goes through its
//! global injector queue, which allocates a block per 63 jobs, and a bound executor must
//! run its steps without allocating. Here a call publishes one job (a pointer to the
//! caller's closure and a task count) under a mutex, wakes the workers, runs tasks itself
//! and waits until every task has finished; the closure outlives every use because the
//! call does not return before that.
//!
//! Tasks are claimed from one atomic word holding the job's generation and the next task
//! index, so a worker that wakes late for an old job can never take a task of a new one.
//! Concurrent calls (two engine threads) do not queue: the one that finds the pool busy
//! runs its tasks on its own thread. Workers spin briefly after a job before sleeping,
//! since kernels tend to come in bursts.
//!
//! Threads: `KILN_CPU_THREADS`, else the machine's parallelism; the caller is one of them,
//! so the pool starts one fewer (lazily, at the first parallel call).

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, TryLockError};

/// A task body: called once per task index, from several threads at once.
type Task<'a> = dyn Fn(usize) + Sync + 'a;

/// The published job: the caller's closure, with its lifetime erased.
#[derive(Clone, Copy)]
struct Job {
    task: *const Task<'static>,
    tasks: usize,
}

// SAFETY: the closure is `Sync`, and the call that published it waits until no worker
// can still reach it (see `Pool::run`).
unsafe impl Send for Job {}

struct State {
    generation: u32,
    job: Option<Job>,
    /// Set when the pool is dropped: the workers exit.
    closed: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    done: Condvar,
    /// `generation << 32 | next task index`.
    claim: AtomicU64,
    finished: AtomicUsize,
    /// The first panic of the job's tasks, raised again by the caller with its message.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// Element operations below which a kernel runs on the calling thread, and the least
/// work each parallel task gets.
const GRAIN: i64 = 1 << 15;

pub struct Pool {
    shared: Arc<Shared>,
    /// Threads that run tasks, the caller included.
    threads: usize,
    /// Held by the call that owns the workers.
    caller: Mutex<()>,
}

/// The process's pool, of the process configuration's threads (else the CPU's). Products
/// run on it, so it is made after their machine wisdom is applied
/// ([`super::wisdom::apply_in_place_b`]).
pub fn global() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let config = crate::Config::global();
        super::wisdom::apply_in_place_b(config.cache_dir.as_deref());
        Pool::new(config.pool_threads())
    })
}

impl Pool {
    /// A pool of `threads` (the caller and `threads − 1` workers).
    pub fn new(threads: usize) -> Pool {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                generation: 0,
                job: None,
                closed: false,
            }),
            wake: Condvar::new(),
            done: Condvar::new(),
            claim: AtomicU64::new(0),
            finished: AtomicUsize::new(0),
            panic: Mutex::new(None),
        });
        // A thread the system refuses only makes the pool smaller.
        let spawned = (1..threads.max(1))
            .filter(|i| {
                let shared = shared.clone();
                std::thread::Builder::new()
                    .name(format!("kiln-cpu-{i}"))
                    .spawn(move || worker(&shared))
                    .is_ok()
            })
            .count();
        Pool {
            shared,
            threads: 1 + spawned,
            caller: Mutex::new(()),
        }
    }

    /// Threads that run a call's tasks, the caller included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `rows(lo, hi)` over blocks of `0..rows` whose union is the range, one block
    /// on the calling thread when the `work` (element operations) is below two grains,
    /// else about a grain or more per block, at most four per thread: how kernels split
    /// their outermost loop.
    pub fn run_rows(&self, rows: i64, work: i64, task: &(dyn Fn(i64, i64) + Sync)) {
        let tasks = if work < 2 * GRAIN {
            1
        } else {
            (work / GRAIN).clamp(1, 4 * self.threads as i64).min(rows)
        };
        if tasks <= 1 {
            // Small kernels never touch the pool (nor start it).
            return task(0, rows);
        }
        self.run(tasks as usize, &|t| {
            let t = t as i64;
            task(rows * t / tasks, rows * (t + 1) / tasks)
        });
    }

    /// Runs `task(i)` for every `i < tasks`, over the pool, and returns when all are done.
    /// The first panic of a task is raised again here, its payload unchanged, once every
    /// task has finished.
    pub fn run(&self, tasks: usize, task: &Task<'_>) {
        if tasks <= 1 || self.threads == 1 {
            return (0..tasks).for_each(task);
        }
        let _owner = match self.caller.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            // Another thread's job holds the workers: run on this one.
            Err(TryLockError::WouldBlock) => return (0..tasks).for_each(task),
        };
        let s = &*self.shared;
        // SAFETY: only the lifetime is erased; this call waits below until every claimed
        // task has finished, and no task can be claimed after that.
        let erased: *const Task<'static> = unsafe { std::mem::transmute(task) };
        let generation = {
            let mut st = s.state.lock().unwrap_or_else(|p| p.into_inner());
            st.generation = st.generation.wrapping_add(1);
            st.job = Some(Job {
                task: erased,
                tasks,
            });
            s.finished.store(0, Ordering::Relaxed);
            s.claim
                .store(u64::from(st.generation) << 32, Ordering::Release);
            st.generation
        };
        s.wake.notify_all();
        run_claimed(s, generation, tasks, task);
        let mut st = s.state.lock().unwrap_or_else(|p| p.into_inner());
        while s.finished.load(Ordering::Acquire) < tasks {
            st = s.done.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        st.job = None;
        drop(st);
        let panic = s.panic.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(payload) = panic {
            resume_unwind(payload);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared
            .state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .closed = true;
        self.shared.wake.notify_all();
    }
}

/// Claims and runs tasks of `generation` until none is left.
fn run_claimed(s: &Shared, generation: u32, tasks: usize, task: &Task<'_>) {
    loop {
        let c = s.claim.load(Ordering::Acquire);
        let index = (c & u64::from(u32::MAX)) as usize;
        if (c >> 32) as u32 != generation || index >= tasks {
            return;
        }
        if s.claim
            .compare_exchange_weak(c, c + 1, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            continue;
        }
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| task(index))) {
            let mut first = s.panic.lock().unwrap_or_else(|p| p.into_inner());
            first.get_or_insert(payload);
        }
        if s.finished.fetch_add(1, Ordering::AcqRel) + 1 == tasks {
            // Under the lock, so the caller cannot miss the wake-up between its check and
            // its wait.
            drop(s.state.lock().unwrap_or_else(|p| p.into_inner()));
            s.done.notify_one();
        }
    }
}

/// Spins before sleeping: about as long as a small kernel runs.
const SPINS: u32 = 1 << 14;

fn worker(s: &Shared) {
    super::gemm::reserve_workspace();
    let mut seen = 0u32;
    loop {
        for _ in 0..SPINS {
            if (s.claim.load(Ordering::Acquire) >> 32) as u32 != seen {
                break;
            }
            std::hint::spin_loop();
        }
        let job = {
            let mut st = s.state.lock().unwrap_or_else(|p| p.into_inner());
            while st.generation == seen && !st.closed {
                st = s.wake.wait(st).unwrap_or_else(|p| p.into_inner());
            }
            if st.closed {
                return;
            }
            seen = st.generation;
            st.job
        };
        if let Some(job) = job {
            // SAFETY: the publishing call keeps the closure alive until every task it
            // counted has finished; a claim for this generation fails once they are.
            let task = unsafe { &*job.task };
            run_claimed(s, seen, job.tasks, task);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_runs_once_across_repeated_and_concurrent_calls() {
        let pool = Arc::new(Pool::new(3));
        let callers: Vec<_> = (0..3)
            .map(|_| {
                let pool = pool.clone();
                std::thread::spawn(move || {
                    for round in 1..200usize {
                        let hits: Vec<AtomicUsize> =
                            (0..round % 37 + 1).map(|_| AtomicUsize::new(0)).collect();
                        pool.run(hits.len(), &|i| {
                            hits[i].fetch_add(1, Ordering::Relaxed);
                        });
                        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
                    }
                })
            })
            .collect();
        for c in callers {
            c.join().unwrap();
        }
    }

    #[test]
    fn a_panicking_task_surfaces_after_the_others_finish() {
        let pool = Pool::new(2);
        let ran = AtomicUsize::new(0);
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.run(8, &|i| {
                ran.fetch_add(1, Ordering::Relaxed);
                assert!(i != 3, "task 3 fails");
            })
        }));
        // The task's own message, not a stand-in.
        let payload = result.unwrap_err();
        let message = (payload.downcast_ref::<&str>().copied())
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
        assert_eq!(message, Some("task 3 fails"));
        assert_eq!(ran.load(Ordering::Relaxed), 8);
        // The pool still works.
        let sum = AtomicUsize::new(0);
        pool.run(10, &|i| {
            sum.fetch_add(i, Ordering::Relaxed);
        });
        assert_eq!(sum.load(Ordering::Relaxed), 45);
    }
}
