//! Pushing a pre-created operation allocates nothing in steady state (MXNet's
//! `NewOperator`): a counting allocator sees zero allocations over a thousand pushes.
//!
//! How far the pusher runs ahead of the workers depends on scheduling, and the blocks and
//! queues grow to that distance. The warm-up therefore holds the threaded engine's workers
//! behind a gate until every warm-up push is queued: the pools then hold more than the
//! measured round can ever have outstanding, however the threads are scheduled.

#[path = "support/counting.rs"]
mod counting;

use counting::allocations_in;
use kiln_runtime::{Engine, EngineKind, FnProperty};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

#[test]
fn pushing_precreated_operations_does_not_allocate() {
    for kind in [EngineKind::Naive, EngineKind::Threaded { workers: 2 }] {
        let e = Engine::new(kind);
        let (a, b, c) = (e.new_var(), e.new_var(), e.new_var());
        let count = Arc::new(AtomicUsize::new(0));
        let ops: Vec<_> = [(&a, &b), (&b, &c), (&c, &a)]
            .into_iter()
            .map(|(r, w)| {
                let count = count.clone();
                e.new_operator(
                    "step",
                    std::slice::from_ref(r),
                    std::slice::from_ref(w),
                    FnProperty::Normal,
                    move || {
                        count.fetch_add(1, Ordering::Relaxed);
                        Ok(())
                    },
                )
            })
            .collect();
        let round = |n: usize| {
            for i in 0..n {
                e.push(&ops[i % 3], (i % 5) as i32);
            }
            e.wait_all().unwrap();
        };
        // Warm up: queues and free lists reach the size of 3000 outstanding pushes. The
        // naive engine runs each push before the next, so only the threaded one is gated.
        let gate = Arc::new(Barrier::new(2));
        let threaded = matches!(kind, EngineKind::Threaded { .. });
        if threaded {
            let gate = gate.clone();
            let all = [a.clone(), b.clone(), c.clone()];
            e.push_fn("gate", &[], &all, FnProperty::Normal, 0, move || {
                gate.wait();
                Ok(())
            });
        }
        for i in 0..3000 {
            e.push(&ops[i % 3], (i % 5) as i32);
        }
        if threaded {
            gate.wait();
        }
        e.wait_all().unwrap();
        assert_eq!(allocations_in(|| round(1000)), 0, "{kind:?}");
        assert_eq!(count.load(Ordering::Relaxed), 4000);
    }
}
