//! The engine under faults: random programs whose operations fail (return an error) or
//! panic — themselves or in a task of the kernels' pool — at random points, some in
//! segments, with waits on variables between the pushes, on the naive engine and on 1 to
//! 8 workers. A sequential model says what each run must give: at every wait, the error the
//! variable carries (operation and message: raised by an operation that wrote it, or
//! carried on by one that touched a failed variable), or none; the values of every
//! variable, failed or not, at the end; and every variable usable again once its error
//! was reported. A run that does not finish within its limit fails instead of hanging.
//!
//! Size: each of the nine engine kinds runs its own program of 10^5 operations over 128
//! variables, about 1% of them faulty: 30 to 45 s in all in debug on two busy cores (the
//! naive engine half a second, each threaded kind 3 to 7 s).

use kiln_runtime::cpu::pool::Pool;
use kiln_runtime::{Engine, EngineError, EngineKind, FnProperty, Operator, Var};
use std::sync::{Arc, Once};
use std::time::Duration;

const OPS: usize = 100_000;
const VARS: usize = 128;
/// One operation in this many fails, each way of failing equally often.
const FAULT_ONE_IN: usize = 300;
/// Every kind's run, generously: a hang fails the test instead of stalling CI.
const LIMIT: Duration = Duration::from_secs(120);

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;
#[path = "support/values.rs"]
mod values;
use values::Values;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    None,
    Error,
    Panic,
    /// A panic in one task of a job on the kernels' pool, as a native kernel would.
    PoolPanic,
}

/// One operation: reads everything first, then updates each variable it writes.
#[derive(Clone)]
struct Op {
    name: Arc<str>,
    /// Its place in the program, mixed into what it writes.
    index: u64,
    reads: Vec<usize>,
    writes: Vec<usize>,
    fault: Fault,
}

enum Step {
    /// One operation, or a segment of several run in order.
    Push {
        ops: Vec<Op>,
        prop: FnProperty,
        priority: i32,
    },
    Wait(usize),
    WaitAll,
}

fn random_program(seed: u64) -> Vec<Step> {
    let mut rng = Rng(seed);
    let mut program = Vec::new();
    let mut ops = 0;
    let mut written_since_waits = Vec::new();
    let mut next_drain = 0;
    while ops < OPS {
        // A training loop's shape: a burst of operations, then waits on what they wrote.
        if ops >= next_drain {
            written_since_waits.sort_unstable();
            written_since_waits.dedup();
            program.extend(written_since_waits.drain(..).map(Step::Wait));
            next_drain = ops + 20 + rng.below(200);
        }
        match rng.below(100) {
            0 | 1 => program.push(Step::Wait(rng.below(VARS))),
            2 if rng.below(50) == 0 => program.push(Step::WaitAll),
            _ => {
                let parts = if rng.below(10) == 0 {
                    2 + rng.below(3)
                } else {
                    1
                };
                let at = program.len();
                let ops_of_step: Vec<Op> = (0..parts)
                    .map(|k| {
                        let name = match parts {
                            1 => format!("op {at}"),
                            _ => format!("op {at}.{k}"),
                        };
                        random_op(&mut rng, name, (at * 8 + k) as u64)
                    })
                    .collect();
                ops += parts;
                written_since_waits.extend(ops_of_step.iter().flat_map(|o| o.writes.clone()));
                let prop = match (parts, rng.below(4)) {
                    (1, 2) => FnProperty::Copy,
                    (1, 3) => FnProperty::Prioritized,
                    _ => FnProperty::Normal,
                };
                program.push(Step::Push {
                    ops: ops_of_step,
                    prop,
                    priority: rng.below(5) as i32 - 2,
                });
            }
        }
    }
    // Every variable is usable once its error was reported: wait on all, write all, wait.
    program.extend((0..VARS).map(Step::Wait));
    let at = program.len();
    program.extend((0..VARS).map(|v| Step::Push {
        ops: vec![Op {
            name: format!("op {}", at + v).into(),
            index: ((at + v) * 8) as u64,
            reads: vec![(v + 1) % VARS],
            writes: vec![v],
            fault: Fault::None,
        }],
        prop: FnProperty::Normal,
        priority: 0,
    }));
    program.extend((0..VARS).map(Step::Wait));
    program.push(Step::WaitAll);
    program
}

fn random_op(rng: &mut Rng, name: String, index: u64) -> Op {
    let fault = match rng.below(FAULT_ONE_IN) {
        0 => Fault::Error,
        1 => Fault::Panic,
        2 => Fault::PoolPanic,
        _ => Fault::None,
    };
    Op {
        name: name.into(),
        index,
        reads: (0..rng.below(3)).map(|_| rng.below(VARS)).collect(),
        writes: (0..1 + rng.below(2)).map(|_| rng.below(VARS)).collect(),
        fault,
    }
}

fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x0100_0000_01b3).rotate_left(17)
}

/// What a fault-free operation computes, on any storage of the values.
fn apply(op: &Op, get: impl Fn(usize) -> u64, set: impl Fn(usize, u64)) {
    let h = op.reads.iter().fold(op.index, |h, &r| mix(h, get(r)));
    let mut writes = op.writes.clone();
    writes.sort_unstable();
    writes.dedup();
    for w in writes {
        set(w, mix(mix(h, get(w)), w as u64));
    }
}

/// The error a faulty operation raises, as a waiter sees it.
fn raised(op: &Op) -> Option<EngineError> {
    let message = match op.fault {
        Fault::None => return None,
        Fault::Error => format!("injected error in {}", op.name),
        Fault::Panic | Fault::PoolPanic => format!("panicked: injected panic in {}", op.name),
    };
    Some(EngineError {
        op: op.name.clone(),
        message: message.into(),
    })
}

/// What a run reports: each wait's result in program order, and the final values.
struct Outcome {
    waits: Vec<Result<(), EngineError>>,
    values: Vec<u64>,
}

/// What a run must report, and how many operations ran, failed and were skipped.
struct Expected {
    /// A wait's error, exactly; for `wait_all`, any of the errors raised since the last.
    waits: Vec<Result<(), Vec<EngineError>>>,
    values: Vec<u64>,
    counts: [usize; 3],
}

/// Sequential execution. A variable's error is kept with the step that raised it: an
/// operation touching several failed variables carries on the one raised first.
fn sequential(program: &[Step]) -> Expected {
    let values: Vec<std::cell::Cell<u64>> = (0..VARS).map(|v| (v as u64).into()).collect();
    let mut errors: Vec<Option<(usize, EngineError)>> = vec![None; VARS];
    let mut raised_since_wait_all = Vec::new();
    let mut expected = Expected {
        waits: Vec::new(),
        values: Vec::new(),
        counts: [0; 3],
    };
    for (at, step) in program.iter().enumerate() {
        match step {
            Step::Push { ops, .. } => {
                let touched = ops.iter().flat_map(|o| o.reads.iter().chain(&o.writes));
                let carried = touched
                    .filter_map(|&v| errors[v].clone())
                    .min_by_key(|e| e.0);
                let failed = carried.or_else(|| {
                    // A segment stops at its first failing operation.
                    ops.iter()
                        .find_map(|op| match raised(op) {
                            Some(e) => Some((at, e)),
                            None => {
                                apply(op, |v| values[v].get(), |v, x| values[v].set(x));
                                None
                            }
                        })
                        .inspect(|(_, e)| raised_since_wait_all.push(e.clone()))
                });
                let ran_before_failing = ops.iter().take_while(|o| raised(o).is_none()).count();
                match &failed {
                    Some((by, _)) if *by != at => expected.counts[2] += ops.len(),
                    Some(_) => {
                        expected.counts[0] += ran_before_failing;
                        expected.counts[1] += 1;
                        expected.counts[2] += ops.len() - ran_before_failing - 1;
                    }
                    None => expected.counts[0] += ops.len(),
                }
                if let Some(failed) = failed {
                    for &w in ops.iter().flat_map(|o| &o.writes) {
                        errors[w] = Some(failed.clone());
                    }
                }
            }
            Step::Wait(v) => expected.waits.push(match errors[*v].take() {
                Some((_, e)) => Err(vec![e]),
                None => Ok(()),
            }),
            Step::WaitAll => expected.waits.push(match raised_since_wait_all.is_empty() {
                true => Ok(()),
                false => Err(std::mem::take(&mut raised_since_wait_all)),
            }),
        }
    }
    expected.values = values.iter().map(std::cell::Cell::get).collect();
    expected
}

fn run_on_engine(kind: EngineKind, program: &[Step]) -> Outcome {
    let e = Engine::new(kind);
    let pool = Arc::new(Pool::new(3));
    let vars: Vec<Var> = (0..VARS).map(|_| e.new_var()).collect();
    let values = Arc::new(Values::new(VARS));
    let mut waits = Vec::new();
    for step in program {
        match step {
            Step::Push {
                ops,
                prop,
                priority,
            } => {
                let mut made: Vec<Arc<Operator>> = ops
                    .iter()
                    .map(|op| operator(&e, op, *prop, &vars, &values, &pool))
                    .collect();
                let op = match made.len() {
                    1 => made.remove(0),
                    _ => e.new_segment("segment", made),
                };
                e.push(&op, *priority);
            }
            Step::Wait(v) => waits.push(e.wait_for_var(&vars[*v])),
            Step::WaitAll => waits.push(e.wait_all()),
        }
    }
    // SAFETY: every program ends with a wait for all its operations.
    let values = unsafe { values.all() };
    Outcome { waits, values }
}

fn operator(
    e: &Engine,
    op: &Op,
    prop: FnProperty,
    vars: &[Var],
    values: &Arc<Values>,
    pool: &Arc<Pool>,
) -> Arc<Operator> {
    let handles = |list: &[usize]| -> Vec<Var> { list.iter().map(|&v| vars[v].clone()).collect() };
    let (reads, writes) = (handles(&op.reads), handles(&op.writes));
    let (values, pool) = (values.clone(), pool.clone());
    let run = op.clone();
    e.new_operator(&op.name, &reads, &writes, prop, move || {
        let panic_message = format!("injected panic in {}", run.name);
        match run.fault {
            Fault::None => {}
            Fault::Error => return Err(format!("injected error in {}", run.name)),
            Fault::Panic => panic!("{panic_message}"),
            Fault::PoolPanic => pool.run(4, &|task| {
                assert!(task != 2, "{panic_message}");
            }),
        }
        // SAFETY: `apply` reads only the operation's variables, which the engine granted it.
        let get = |v| unsafe { values.get(v) };
        // SAFETY: `apply` writes only the operation's written variables, which the engine
        // granted it alone.
        let set = |v, x| unsafe { values.set(v, x) };
        apply(&run, get, set);
        Ok(())
    })
}

/// Runs `f` on a thread: its result, or a failure naming `what` if it panics or does not
/// finish within `limit`.
fn within<T: Send + 'static>(
    what: &str,
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    match rx.recv_timeout(limit) {
        Ok(result) => result,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{what}: hung for {limit:?}"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            panic!("{what}: the run panicked outside its operations")
        }
    }
}

/// The panics this test injects are expected: they are not printed (others still are).
fn quiet_injected_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let injected = info
                .payload_as_str()
                .is_some_and(|m| m.starts_with("injected panic"));
            if !injected {
                default(info);
            }
        }));
    });
}

fn check(what: &str, got: &Outcome, want: &Expected) {
    assert_eq!(got.waits.len(), want.waits.len(), "{what}: waits");
    for (i, (got, want)) in got.waits.iter().zip(&want.waits).enumerate() {
        let agrees = match (got, want) {
            (Ok(()), Ok(())) => true,
            (Err(e), Err(any_of)) => any_of.contains(e),
            _ => false,
        };
        assert!(agrees, "{what}: wait {i} gave {got:?}, the model {want:?}");
    }
    let differ = (got.values.iter().zip(&want.values))
        .filter(|(g, w)| g != w)
        .count();
    assert_eq!(
        differ, 0,
        "{what}: variables with values unlike sequential execution"
    );
}

#[test]
fn faulty_programs_report_each_error_where_sequential_execution_would() {
    quiet_injected_panics();
    let kinds = [EngineKind::Naive]
        .into_iter()
        .chain((1..=8).map(|workers| EngineKind::Threaded { workers }));
    for (seed, kind) in kinds.enumerate() {
        let program = Arc::new(random_program(seed as u64));
        let want = sequential(&program);
        let [ran, failed, skipped] = want.counts;
        // The program is worth running: most operations run, and some fail or are skipped.
        assert!(
            failed > 100 && skipped > 100 && ran > OPS / 2,
            "{:?}",
            want.counts
        );
        let what = format!("seed {seed}, {kind:?}");
        let start = std::time::Instant::now();
        let got = within(&what, LIMIT, {
            let program = program.clone();
            move || run_on_engine(kind, &program)
        });
        check(&what, &got, &want);
        eprintln!(
            "{what}: {OPS} operations ({failed} failed, {skipped} skipped) in {:?}",
            start.elapsed()
        );
    }
}
