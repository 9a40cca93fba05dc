//! The dependency engine's contract, on every engine kind, and a randomized stress test:
//! programs of 10^5 operations over 100 variables give exactly the values (and errors) of
//! sequential execution, whatever the thread count.

#![allow(clippy::cloned_ref_to_slice_refs)] // `&[a.clone()]` reads best in these tests

use kiln_runtime::{Engine, EngineKind, FnProperty, Var};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

const KINDS: [EngineKind; 4] = [
    EngineKind::Naive,
    EngineKind::Threaded { workers: 1 },
    EngineKind::Threaded { workers: 2 },
    EngineKind::Threaded { workers: 8 },
];

fn log_op(
    e: &Engine,
    log: &Arc<Mutex<Vec<&'static str>>>,
    name: &'static str,
    r: &[Var],
    w: &[Var],
    prio: i32,
) {
    let log = log.clone();
    e.push_fn(name, r, w, FnProperty::Normal, prio, move || {
        std::thread::sleep(Duration::from_millis(2));
        log.lock().unwrap().push(name);
        Ok(())
    });
}

#[test]
fn writes_wait_for_reads_and_later_reads_wait_for_writes() {
    for kind in KINDS {
        let e = Engine::new(kind);
        let (a, b) = (e.new_var(), e.new_var());
        let log = Arc::new(Mutex::new(Vec::new()));
        log_op(&e, &log, "w1", &[], &[a.clone()], 0);
        log_op(&e, &log, "r1", &[a.clone()], &[b.clone()], 0);
        log_op(&e, &log, "w2", &[], &[a.clone()], 100);
        log_op(&e, &log, "r2", &[a.clone()], &[], 0);
        e.wait_all().unwrap();
        assert_eq!(*log.lock().unwrap(), ["w1", "r1", "w2", "r2"], "{kind:?}");
        assert_eq!(a.version(), 2);
    }
}

#[test]
fn reads_of_a_variable_run_concurrently() {
    let e = Engine::new(EngineKind::Threaded { workers: 2 });
    let a = e.new_var();
    let barrier = Arc::new(Barrier::new(2));
    for _ in 0..2 {
        let barrier = barrier.clone();
        // Each read waits for the other: this only finishes if both run at once.
        e.push_fn(
            "read",
            &[a.clone()],
            &[],
            FnProperty::Normal,
            0,
            move || {
                barrier.wait();
                Ok(())
            },
        );
    }
    e.wait_all().unwrap();
}

#[test]
fn higher_priority_runs_first() {
    let e = Engine::new(EngineKind::Threaded { workers: 1 });
    let gate = Arc::new(Mutex::new(()));
    let held = gate.lock().unwrap();
    let g = gate.clone();
    e.push_fn(
        "blocker",
        &[],
        &[e.new_var()],
        FnProperty::Normal,
        0,
        move || {
            drop(g.lock().unwrap());
            Ok(())
        },
    );
    std::thread::sleep(Duration::from_millis(20));
    let log = Arc::new(Mutex::new(Vec::new()));
    for (name, prio) in [("low", 1), ("high", 5), ("mid", 3)] {
        log_op(&e, &log, name, &[], &[e.new_var()], prio);
    }
    drop(held);
    e.wait_all().unwrap();
    assert_eq!(*log.lock().unwrap(), ["high", "mid", "low"]);
}

#[test]
fn a_variable_read_and_written_by_one_operation_is_deduplicated() {
    for kind in KINDS {
        let e = Engine::new(kind);
        let a = e.new_var();
        let value = Arc::new(AtomicU64::new(3));
        for _ in 0..3 {
            let v = value.clone();
            // `a *= &a`: a read and a write of the same variable.
            let op = e.new_operator(
                "square",
                &[a.clone(), a.clone()],
                &[a.clone(), a.clone()],
                FnProperty::Normal,
                move || {
                    let x = v.load(Ordering::SeqCst);
                    v.store(x * x, Ordering::SeqCst);
                    Ok(())
                },
            );
            assert_eq!((op.reads().len(), op.writes().len()), (0, 1));
            e.push(&op, 0);
        }
        e.wait_for_var(&a).unwrap();
        assert_eq!(value.load(Ordering::SeqCst), 3u64.pow(8), "{kind:?}");
    }
}

#[test]
fn errors_reach_waiters_and_skip_dependents() {
    for kind in KINDS {
        let e = Engine::new(kind);
        let (a, b, c) = (e.new_var(), e.new_var(), e.new_var());
        let ran = Arc::new(AtomicUsize::new(0));
        e.push_fn("fails", &[], &[a.clone()], FnProperty::Normal, 0, || {
            Err("bad shape (2, 3)".into())
        });
        let r = ran.clone();
        e.push_fn(
            "dependent",
            &[a.clone()],
            &[b.clone()],
            FnProperty::Normal,
            0,
            move || {
                r.fetch_add(1, Ordering::SeqCst);
                Ok(())
            },
        );
        let r = ran.clone();
        e.push_fn(
            "independent",
            &[],
            &[c.clone()],
            FnProperty::Normal,
            0,
            move || {
                r.fetch_add(1, Ordering::SeqCst);
                Ok(())
            },
        );
        let err = e.wait_for_var(&b).unwrap_err();
        assert_eq!(
            err.to_string(),
            "operation `fails` failed: bad shape (2, 3)",
            "{kind:?}"
        );
        assert_eq!(e.wait_for_var(&b), Ok(()), "waiting clears the error");
        assert!(e.wait_for_var(&a).is_err());
        e.wait_for_var(&c).unwrap();
        assert_eq!(ran.load(Ordering::SeqCst), 1, "the dependent was skipped");
        assert_eq!(e.wait_all().unwrap_err().op.as_ref(), "fails");
        assert_eq!(e.wait_all(), Ok(()), "wait_all clears the errors");
    }
}

#[test]
fn panics_become_errors() {
    for kind in KINDS {
        let e = Engine::new(kind);
        let a = e.new_var();
        e.push_fn("oops", &[], &[a.clone()], FnProperty::Normal, 0, || {
            panic!("index out of bounds")
        });
        let err = e.wait_for_var(&a).unwrap_err();
        assert_eq!(err.message.as_ref(), "panicked: index out of bounds");
        // The engine keeps working.
        e.push_fn("fine", &[], &[a.clone()], FnProperty::Normal, 0, || Ok(()));
        e.wait_for_var(&a).unwrap();
    }
}

#[test]
fn asynchronous_operations_hold_their_variables_until_completed() {
    for kind in KINDS {
        let e = Engine::new(kind);
        let a = e.new_var();
        let value = Arc::new(AtomicU64::new(0));
        // The work completes on another thread, later: the read pushed after it waits.
        let written = value.clone();
        e.push_async_fn("send", &[], &[a.clone()], 0, move |done| {
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                written.store(7, Ordering::SeqCst);
                done.complete(Ok(()));
            });
        });
        let seen = Arc::new(AtomicU64::new(0));
        let (from, to) = (value.clone(), seen.clone());
        e.push_fn(
            "read",
            &[a.clone()],
            &[],
            FnProperty::Normal,
            0,
            move || {
                to.store(from.load(Ordering::SeqCst), Ordering::SeqCst);
                Ok(())
            },
        );
        e.wait_for_var(&a).unwrap();
        assert_eq!(value.load(Ordering::SeqCst), 7, "{kind:?}");
        e.wait_all().unwrap();
        assert_eq!(seen.load(Ordering::SeqCst), 7, "{kind:?}");
        assert_eq!(a.version(), 1, "{kind:?}");
    }
}

#[test]
fn asynchronous_errors_and_dropped_completions_reach_waiters() {
    for kind in KINDS {
        let e = Engine::new(kind);
        let (a, b) = (e.new_var(), e.new_var());
        e.push_async_fn("fails", &[], &[a.clone()], 0, |done| {
            done.complete(Err("peer rank 1 is gone".into()))
        });
        e.push_async_fn("drops", &[], &[b.clone()], 0, drop);
        let err = e.wait_for_var(&a).unwrap_err();
        assert_eq!(
            err.to_string(),
            "operation `fails` failed: peer rank 1 is gone"
        );
        let err = e.wait_for_var(&b).unwrap_err();
        assert!(
            err.to_string().contains("without completing"),
            "{kind:?}: {err}"
        );
        let _ = e.wait_all();
    }
}

#[test]
fn delete_var_runs_after_pending_uses() {
    let e = Engine::new(EngineKind::Threaded { workers: 2 });
    let a = e.new_var();
    let done = Arc::new(AtomicUsize::new(0));
    let d = done.clone();
    e.push_fn("use", &[a.clone()], &[], FnProperty::Normal, 0, move || {
        std::thread::sleep(Duration::from_millis(10));
        d.fetch_add(1, Ordering::SeqCst);
        Ok(())
    });
    e.delete_var(a);
    e.wait_all().unwrap();
    assert_eq!(done.load(Ordering::SeqCst), 1);
}

#[path = "support/rng.rs"]
mod rng;
#[path = "support/values.rs"]
mod values;
use rng::Rng;
use values::Values;

struct Step {
    reads: Vec<usize>,
    writes: Vec<usize>,
    fails: bool,
    priority: i32,
    prop: FnProperty,
}

fn random_program(seed: u64, ops: usize, vars: usize, error_rate: usize) -> Vec<Step> {
    let mut rng = Rng(seed);
    (0..ops)
        .map(|_| Step {
            reads: (0..rng.below(4)).map(|_| rng.below(vars)).collect(),
            writes: (0..1 + rng.below(3)).map(|_| rng.below(vars)).collect(),
            fails: error_rate > 0 && rng.below(error_rate) == 0,
            priority: rng.below(5) as i32 - 2,
            prop: [
                FnProperty::Normal,
                FnProperty::Normal,
                FnProperty::Copy,
                FnProperty::Prioritized,
            ][rng.below(4)],
        })
        .collect()
}

fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x0100_0000_01b3).rotate_left(17)
}

/// What one step computes: reads everything first, then updates each written variable.
fn apply(i: usize, s: &Step, get: impl Fn(usize) -> u64, set: impl Fn(usize, u64)) {
    let h = s.reads.iter().fold(i as u64, |h, &r| mix(h, get(r)));
    let mut writes = s.writes.clone();
    writes.sort_unstable();
    writes.dedup();
    for w in writes {
        set(w, mix(mix(h, get(w)), w as u64));
    }
}

/// The engine's dedup order: reads sorted and without written variables, writes sorted.
fn touched(s: &Step) -> Vec<usize> {
    let mut w = s.writes.clone();
    w.sort_unstable();
    w.dedup();
    let mut r: Vec<usize> = s.reads.iter().copied().filter(|x| !w.contains(x)).collect();
    r.sort_unstable();
    r.dedup();
    r.into_iter().chain(w).collect()
}

/// Sequential semantics: values, and per variable the op whose error it carries.
fn sequential(program: &[Step], vars: usize) -> (Vec<u64>, Vec<Option<usize>>) {
    let values: Vec<std::cell::Cell<u64>> =
        (0..vars).map(|v| std::cell::Cell::new(v as u64)).collect();
    let mut errors: Vec<Option<usize>> = vec![None; vars];
    for (i, s) in program.iter().enumerate() {
        // Of several errors, the engine carries on the one raised first.
        let inherited = touched(s).into_iter().filter_map(|v| errors[v]).min();
        match (inherited, s.fails) {
            (Some(e), _) => s.writes.iter().for_each(|&w| errors[w] = Some(e)),
            (None, true) => s.writes.iter().for_each(|&w| errors[w] = Some(i)),
            (None, false) => apply(i, s, |v| values[v].get(), |v, x| values[v].set(x)),
        }
    }
    (values.iter().map(|c| c.get()).collect(), errors)
}

fn run_on_engine(
    kind: EngineKind,
    program: &[Step],
    vars: usize,
) -> (Vec<u64>, Vec<Option<usize>>) {
    let e = Engine::new(kind);
    let handles: Vec<Var> = (0..vars).map(|_| e.new_var()).collect();
    let values = Arc::new(Values::new(vars));
    for (i, s) in program.iter().enumerate() {
        let reads: Vec<Var> = s.reads.iter().map(|&v| handles[v].clone()).collect();
        let writes: Vec<Var> = s.writes.iter().map(|&v| handles[v].clone()).collect();
        let step = Step {
            reads: s.reads.clone(),
            writes: s.writes.clone(),
            fails: s.fails,
            priority: s.priority,
            prop: s.prop,
        };
        let values = values.clone();
        e.push_fn(
            &i.to_string(),
            &reads,
            &writes,
            s.prop,
            s.priority,
            move || {
                if step.fails {
                    return Err("injected".into());
                }
                // SAFETY: `apply` reads only the step's variables, which the engine granted
                // this operation.
                let get = |v| unsafe { values.get(v) };
                // SAFETY: `apply` writes only the step's written variables, which the
                // engine granted this operation alone.
                let set = |v, x| unsafe { values.set(v, x) };
                apply(i, &step, get, set);
                Ok(())
            },
        );
    }
    let errors = handles
        .iter()
        .map(|v| e.wait_for_var(v).err().map(|err| err.op.parse().unwrap()))
        .collect();
    let _ = e.wait_all();
    // SAFETY: the engine is idle after `wait_all`.
    (unsafe { values.all() }, errors)
}

/// Runs `f` on a thread and fails if it does not finish in time (the engine must not hang).
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()).unwrap());
    rx.recv_timeout(limit).expect("the engine hung")
}

fn stress(error_rate: usize, seeds: &[u64]) {
    const OPS: usize = 100_000;
    const VARS: usize = 100;
    for &seed in seeds {
        let program = Arc::new(random_program(seed, OPS, VARS, error_rate));
        let want = sequential(&program, VARS);
        if error_rate > 0 {
            assert!(
                want.1.iter().any(Option::is_some),
                "the program injects errors"
            );
        }
        for kind in KINDS
            .into_iter()
            .chain([EngineKind::Threaded { workers: 4 }])
        {
            let p = program.clone();
            let start = Instant::now();
            let got = within(Duration::from_secs(120), move || {
                run_on_engine(kind, &p, VARS)
            });
            assert!(
                got == want,
                "seed {seed}, {kind:?}: results differ from sequential execution"
            );
            eprintln!("seed {seed} {kind:?}: {OPS} ops in {:?}", start.elapsed());
        }
    }
}

#[test]
fn random_programs_match_sequential_execution() {
    stress(0, &[1, 2, 3]);
}

#[test]
fn random_programs_with_injected_errors_match_sequential_execution() {
    stress(500, &[4, 5]);
}
