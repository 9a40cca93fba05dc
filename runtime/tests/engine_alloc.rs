//! Pushing a pre-created operation allocates nothing in steady state (MXNet's
//! `NewOperator`): a counting allocator sees zero allocations over a thousand pushes.

use kiln_runtime::{Engine, EngineKind, FnProperty};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
        ALLOCATIONS.store(0, Ordering::SeqCst);
        COUNTING.store(true, Ordering::SeqCst);
        round(1000);
        COUNTING.store(false, Ordering::SeqCst);
        assert_eq!(ALLOCATIONS.load(Ordering::SeqCst), 0, "{kind:?}");
        assert_eq!(count.load(Ordering::Relaxed), 4000);
    }
}
