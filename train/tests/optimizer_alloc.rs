//! Warm optimizer steps allocate nothing: every optimizer's update is a pre-created engine
//! operation whose step scalars go through a queue with reserved room, on arrays large
//! enough that the element loops split over the pool, with f32 weights and f16 weights
//! under multi_precision. A counting allocator checks five steps after five warm ones (as many as are
//! counted, so the engine's per-variable queues have grown to what they need).

#[path = "../../runtime/tests/support/counting.rs"]
mod counting;

use counting::allocations_in;
use kiln_ops::DType;
use kiln_runtime::{Device, Engine, NDArray};
use kiln_train::optimizer::{Optimizer, OPTIMIZERS};

#[test]
fn warm_updates_allocate_nothing() {
    // Three threads, so the loops split even on a machine with one core.
    kiln_runtime::Config::from_env()
        .unwrap()
        .threads(3)
        .install()
        .unwrap();
    let shape = [256, 512];
    for def in OPTIMIZERS {
        let mut kwargs = vec![("multi_precision", "True")];
        if def.name == "sgd" || def.name == "nag" || def.name == "lars" {
            kwargs.push(("momentum", "0.9"));
        }
        let mut opt = Optimizer::create(def.name, &kwargs).unwrap();
        let arrays: Vec<(NDArray, NDArray)> = [DType::F32, DType::F16]
            .into_iter()
            .map(|dtype| {
                let w = NDArray::full(&shape, 0.5, dtype, Device::Cpu).unwrap();
                let g = NDArray::full(&shape, 0.25, dtype, Device::Cpu).unwrap();
                (w, g)
            })
            .collect();
        let params: Vec<(usize, &NDArray, &NDArray)> = arrays
            .iter()
            .enumerate()
            .map(|(i, (w, g))| (i, w, g))
            .collect();
        // Warm: the states, operations and the engine's queues reach their size.
        for _ in 0..5 {
            opt.update_multi(&params).unwrap();
        }
        Engine::global().wait_all().unwrap();
        let allocations = allocations_in(|| {
            for _ in 0..5 {
                opt.update_multi(&params).unwrap();
            }
            Engine::global().wait_all().unwrap();
        });
        assert_eq!(allocations, 0, "{}: warm steps allocated", def.name);
    }
}
