//! Pushing a pre-created operation allocates nothing in steady state (MXNet's
//! `NewOperator`): a counting allocator sees zero allocations over a thousand pushes.

#[path = "support/counting.rs"]
mod counting;

use counting::allocations_in;
use kiln_runtime::{Engine, EngineKind, FnProperty};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

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
        round(3000); // warm up: queues and free lists reach their working size
        assert_eq!(allocations_in(|| round(1000)), 0, "{kind:?}");
        assert_eq!(count.load(Ordering::Relaxed), 4000);
    }
}
