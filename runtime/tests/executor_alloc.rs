//! A bound executor's training step allocates nothing once warm: its operations are
//! pre-created (and grouped into engine segments), its entries live in the arena, its
//! kernels are compiled at bind, gradients are copied byte for byte, and the weights'
//! SGD updates are pre-created operations too. A counting allocator checks ten steps.
//!
//! The network is all compiled kernels (library calls still run reference kernels, which
//! build tensors, and the gemm crate allocates its packing buffers per product), once at
//! a size that runs on the calling thread and once at one whose kernels split over the
//! pool.

#![cfg(feature = "llvm")]

#[path = "support/counting.rs"]
mod counting;

use counting::allocations_in;
use kiln_compiler::autodiff::GradReq;
use kiln_compiler::builders as sym;
use kiln_compiler::Symbol;
use kiln_runtime::{Backend, Device, Engine, Executor, FnProperty, GradReqs, NDArray};
use std::sync::{Arc, Condvar, Mutex};

#[test]
fn training_steps_allocate_nothing_after_the_first() {
    // Three threads, so the large kernels split even on a machine with one core.
    std::env::set_var("KILN_CPU_THREADS", "3");
    assert_eq!(kiln_runtime::cpu::pool::global().threads(), 3);
    for rows in [16, 4096] {
        steps_allocate_nothing(rows);
    }
}

fn steps_allocate_nothing(rows: usize) {
    // loss = sum(tanh(x * w + b)^2), w and b broadcast over the rows of x.
    let x = Symbol::var("x");
    let (w, b) = (
        Symbol::variable("w").shape(&[32]).build(),
        Symbol::variable("b").shape(&[32]).build(),
    );
    let wx = sym::broadcast_mul().lhs(&x).rhs(&w).build().unwrap();
    let y = sym::tanh()
        .data(&sym::broadcast_add().lhs(&wx).rhs(&b).build().unwrap())
        .build()
        .unwrap();
    let loss = sym::make_loss()
        .data(&sym::sum().data(&(&y * &y)).build().unwrap())
        .build()
        .unwrap();
    let reqs = GradReqs::Each(
        [("w", GradReq::Write), ("b", GradReq::Add)]
            .map(|(n, r)| (n.to_string(), r))
            .into(),
    );
    let exe = Executor::simple_bind(&loss, Device::Cpu, &[("x", &[rows, 32])], reqs)
        .unwrap()
        .rebind(Backend::Jit)
        .unwrap();
    let (_, units) = exe.backend();
    let (kernels, nodes) = (units.kernels + units.products, units.nodes);
    assert!(
        kernels >= 2 && nodes == 0,
        "{kernels} kernels, {nodes} reference nodes"
    );
    let values: Vec<f32> = (0..rows * 32).map(|k| (k % 7) as f32 * 0.1 - 0.3).collect();
    exe.arg_dict()["x"]
        .copy_from(&NDArray::from_slice(&values, &[rows, 32]).unwrap())
        .unwrap();
    exe.arg_dict()["w"]
        .copy_from(&NDArray::from_slice(&[0.5f32; 32], &[32]).unwrap())
        .unwrap();
    // The weights' SGD updates, pushed each step to run as soon as their gradients are
    // complete (b's gradient accumulates, and updates with it).
    let sgd = kiln_runtime::optim::Sgd {
        lr: 0.01,
        wd: 1e-4,
        rescale_grad: 1.0 / rows as f64,
    };
    let (args, grads) = (exe.arg_dict(), exe.grad_dict());
    let updates: Vec<_> = ["w", "b"]
        .iter()
        .map(|n| sgd.operator(&args[*n], &grads[*n]).unwrap())
        .collect();
    let w_before = args["w"].to_vec::<f32>().unwrap();
    let push = || {
        exe.forward(true);
        exe.backward(&[]).unwrap();
        for u in &updates {
            Engine::global().push(u, 1);
        }
    };
    let step = || {
        push();
        Engine::global().wait_all().unwrap();
    };
    // Warm up with several steps queued at once behind a gate that holds the engine, so
    // its queues reach more than the depth one step can need, whatever the timing.
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let held = gate.clone();
    let x_var = exe.arg_dict()["x"].var().clone();
    Engine::global().push_fn("gate", &[], &[x_var], FnProperty::Normal, 0, move || {
        let (open, cv) = &*held;
        let mut open = open.lock().unwrap();
        while !*open {
            open = cv.wait(open).unwrap();
        }
        Ok(())
    });
    for _ in 0..3 {
        push();
    }
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    Engine::global().wait_all().unwrap();
    let allocations = allocations_in(|| {
        for _ in 0..10 {
            step();
        }
    });
    assert_eq!(
        allocations, 0,
        "{allocations} allocations in ten steps over {rows} rows"
    );
    // The steps computed something: b's gradient accumulated over 13 steps, and the
    // updates moved w.
    let gb = exe.grad_dict()["b"].to_vec::<f32>().unwrap();
    assert!(gb.iter().any(|v| v.abs() > 1e-3), "{gb:?}");
    let w = exe.arg_dict()["w"].to_vec::<f32>().unwrap();
    assert!(
        w.iter().zip(&w_before).any(|(a, b)| a != b),
        "w did not move"
    );
}
