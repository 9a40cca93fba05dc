//! A bound executor's training step allocates nothing once warm: its operations are
//! pre-created (and grouped into engine segments), its entries live in the arena, its
//! kernels are compiled at bind, matrix products pack into each thread's workspace,
//! library kernels (softmax, pooling, ...) work in place, gradients are copied byte for
//! byte, and the weights' SGD updates are pre-created operations too. A counting
//! allocator checks ten steps.
//!
//! Four networks: element-wise kernels only (at a size that runs on the calling thread
//! and at one whose kernels split over the pool), and with a softmax cross-entropy head
//! the MLP, LeNet (matrix products, convolutions, pooling) and a convolution with batch
//! normalization (BatchNorm's natives and aux states).

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
    kiln_runtime::Config::from_env()
        .unwrap()
        .threads(3)
        .install()
        .unwrap();
    assert_eq!(kiln_runtime::cpu::pool::global().threads(), 3);
    for rows in [16, 4096] {
        elementwise_steps_allocate_nothing(rows);
    }
    let classes = 10;
    let mlp = kiln_models::mlp(classes).unwrap();
    steps_allocate_nothing(&mlp, "MLP", &[64, 784], classes);
    let lenet = kiln_models::lenet(classes).unwrap();
    steps_allocate_nothing(&lenet, "LeNet", &[16, 1, 28, 28], classes);
    steps_allocate_nothing(&conv_bn(classes), "conv-BN", &[8, 3, 16, 16], classes);
}

/// A 3x3 convolution, batch normalization (with its running statistics as aux states),
/// ReLU, max pooling and the classifier.
fn conv_bn(classes: usize) -> Symbol {
    let op = |name: &str, op: &str, x: &Symbol, attrs: &[(&str, &str)]| {
        attrs
            .iter()
            .fold(Symbol::op(op).name(name).arg(x), |b, (k, v)| b.attr(k, *v))
            .build()
            .unwrap()
    };
    let x = Symbol::var("data");
    let x = op(
        "conv",
        "Convolution",
        &x,
        &[("kernel", "(3,3)"), ("pad", "(1,1)"), ("num_filter", "16")],
    );
    let x = op("bn", "BatchNorm", &x, &[("fix_gamma", "False")]);
    let x = op("relu", "Activation", &x, &[("act_type", "relu")]);
    let x = op(
        "pool",
        "Pooling",
        &x,
        &[
            ("kernel", "(2,2)"),
            ("stride", "(2,2)"),
            ("pool_type", "max"),
        ],
    );
    let classes = classes.to_string();
    let x = op(
        "fc",
        "FullyConnected",
        &x,
        &[("num_hidden", classes.as_str())],
    );
    op("softmax", "SoftmaxOutput", &x, &[])
}

fn elementwise_steps_allocate_nothing(rows: usize) {
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
    let (kernels, nodes) = (units.kernels + units.products, units.reference);
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
    let w_before = exe.arg_dict()["w"].to_vec::<f32>().unwrap();
    warm_then_count(&exe, &["w", "b"], &format!("{rows} rows"));
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

/// `net` (with a `data` input of shape `data` and a SoftmaxOutput head) trained on fixed
/// data: ten warm steps allocate nothing, and the loss falls.
fn steps_allocate_nothing(net: &Symbol, name: &str, data: &[usize], classes: usize) {
    let batch = data[0];
    let exe = Executor::simple_bind(
        net,
        Device::Cpu,
        &[("data", data), ("softmax_label", &[batch])],
        GradReqs::All(GradReq::Write),
    )
    .unwrap();
    let (_, units) = exe.backend();
    assert!(units.products >= 2, "{name}: {} products", units.products);
    let args = exe.arg_dict();
    let params: Vec<String> = net
        .list_arguments()
        .into_iter()
        .filter(|n| n != "data" && n != "softmax_label")
        .collect();
    for (i, name) in params.iter().enumerate() {
        let a = &args[name];
        let len: usize = a.shape().iter().product();
        let fan_in = a.shape().iter().skip(1).product::<usize>().max(1) as f32;
        let bound = (3.0 / fan_in).sqrt();
        let values: Vec<f32> = (0..len)
            .map(|k| (((k * 7919 + i * 104729) % 2001) as f32 / 1000.0 - 1.0) * bound)
            .collect();
        a.copy_from(&NDArray::from_slice(&values, a.shape()).unwrap())
            .unwrap();
    }
    let len: usize = data.iter().product();
    let pixels: Vec<f32> = (0..len).map(|k| ((k * 31) % 17) as f32 / 17.0).collect();
    args["data"]
        .copy_from(&NDArray::from_slice(&pixels, data).unwrap())
        .unwrap();
    let labels: Vec<f32> = (0..batch).map(|i| (i % classes) as f32).collect();
    args["softmax_label"]
        .copy_from(&NDArray::from_slice(&labels, &[batch]).unwrap())
        .unwrap();
    let names: Vec<&str> = params.iter().map(String::as_str).collect();
    let loss = || {
        exe.forward(false);
        let probs = exe.outputs()[0].to_vec::<f32>().unwrap();
        (0..batch)
            .map(|i| -probs[i * classes + i % classes].max(1e-30).ln())
            .sum::<f32>()
            / batch as f32
    };
    let before = loss();
    warm_then_count(&exe, &names, name);
    let after = loss();
    assert!(after < before, "{name}: loss {before} -> {after}");
}

/// Pushes training steps with SGD updates of `params`: the first queued behind a gate
/// (so the engine's queues reach the depth a step can need, whatever the timing), then
/// ten that must allocate nothing.
fn warm_then_count(exe: &Executor, params: &[&str], what: &str) {
    let sgd = kiln_runtime::optim::Sgd {
        lr: 0.01,
        wd: 1e-4,
        rescale_grad: 1.0 / 16.0,
    };
    let (args, grads) = (exe.arg_dict(), exe.grad_dict());
    // The updates, pushed each step to run as soon as their gradients are complete.
    let updates: Vec<_> = params
        .iter()
        .map(|n| sgd.operator(&args[*n], &grads[*n]).unwrap())
        .collect();
    let push = || {
        exe.forward(true);
        exe.backward(&[]).unwrap();
        for u in &updates {
            Engine::global().push(u, 1);
        }
    };
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let held = gate.clone();
    let first = args[params[0]].var().clone();
    Engine::global().push_fn("gate", &[], &[first], FnProperty::Normal, 0, move || {
        let (open, cv) = &*held;
        let mut open = open.lock().unwrap();
        while !*open {
            open = cv.wait(open).unwrap();
        }
        Ok(())
    });
    push();
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    Engine::global().wait_all().unwrap();
    let allocations = allocations_in(|| {
        for _ in 0..10 {
            push();
            Engine::global().wait_all().unwrap();
        }
    });
    assert_eq!(
        allocations, 0,
        "{allocations} allocations in ten steps ({what})"
    );
}
