//! The Executor: binding, forward/backward on the engine, gradient requests, the paper's
//! asynchronous gradient-descent loop, reshape and binding errors.

use kiln_compiler::autodiff::GradReq;
use kiln_compiler::builders as sym;
use kiln_compiler::Symbol;
use kiln_ops::compare;
use kiln_ops::DType;
use kiln_runtime::{Device, Executor, GradReqs, NDArray};
use std::collections::HashMap;

#[path = "support/tanh_net.rs"]
mod tanh_net;
use tanh_net::{arr, net};

#[test]
fn forward_and_backward_match_hand_derivatives() {
    let reqs = GradReqs::Each(HashMap::from([
        ("w".to_string(), GradReq::Write),
        ("b".to_string(), GradReq::Write),
    ]));
    let exe = Executor::simple_bind(&net(), Device::Cpu, &[("x", &[2, 3])], reqs).unwrap();
    let (x, w, b) = (
        [0.5f32, -1.0, 2.0, 1.5, 0.25, -0.5],
        [0.3f32, -0.7, 0.2],
        [0.1f32, 0.0, -0.4],
    );
    exe.copy_params_from(
        &HashMap::from([
            ("w".into(), arr(&w, &[3])),
            ("b".into(), arr(&b, &[3])),
            ("x".into(), arr(&x, &[2, 3])),
        ]),
        &HashMap::new(),
        false,
    )
    .unwrap();
    exe.forward(true);
    let head = arr(&[1.0, 2.0, -1.0, 0.5, 1.0, 3.0], &[2, 3]);
    exe.backward(std::slice::from_ref(&head)).unwrap();
    let y = exe.outputs()[0].to_vec::<f32>().unwrap();
    let (gw, gb) = (
        exe.grad_dict()["w"].to_vec::<f32>().unwrap(),
        exe.grad_dict()["b"].to_vec::<f32>().unwrap(),
    );
    let h = head.to_vec::<f32>().unwrap();
    for j in 0..3 {
        let (mut dw, mut db) = (0.0f64, 0.0f64);
        for i in 0..2 {
            let z = x[i * 3 + j] as f64 * w[j] as f64 + b[j] as f64;
            assert!((y[i * 3 + j] as f64 - z.tanh()).abs() < 1e-6);
            let d = (1.0 - z.tanh().powi(2)) * h[i * 3 + j] as f64;
            dw += d * x[i * 3 + j] as f64;
            db += d;
        }
        assert!(
            (gw[j] as f64 - dw).abs() < 1e-5,
            "dw[{j}] {} vs {dw}",
            gw[j]
        );
        assert!(
            (gb[j] as f64 - db).abs() < 1e-5,
            "db[{j}] {} vs {db}",
            gb[j]
        );
    }
    assert!(
        !exe.grad_dict().contains_key("x"),
        "no gradient for x unless asked"
    );
}

#[test]
fn grad_req_add_accumulates() {
    let exe = Executor::simple_bind(
        &net(),
        Device::Cpu,
        &[("x", &[1, 3])],
        GradReqs::Each(HashMap::from([("b".to_string(), GradReq::Add)])),
    )
    .unwrap();
    exe.copy_params_from(
        &HashMap::from([("x".into(), arr(&[1.0, 2.0, 3.0], &[1, 3]))]),
        &HashMap::new(),
        false,
    )
    .unwrap();
    let head = arr(&[1.0, 1.0, 1.0], &[1, 3]);
    for _ in 0..3 {
        exe.forward(true);
        exe.backward(std::slice::from_ref(&head)).unwrap();
    }
    // w = 0, b = 0: tanh'(0) = 1, so each pass adds the head gradient.
    assert_eq!(
        exe.grad_dict()["b"].to_vec::<f32>().unwrap(),
        [3.0, 3.0, 3.0]
    );
}

/// The paper's example: `forward; backward; w -= lr * g` pushed asynchronously gives the
/// same weights as waiting after every step.
#[test]
fn asynchronous_gradient_descent_matches_synchronous() {
    let run = |sync: bool| -> Vec<f32> {
        let reqs = GradReqs::Each(HashMap::from([
            ("w".to_string(), GradReq::Write),
            ("b".to_string(), GradReq::Write),
        ]));
        let exe = Executor::simple_bind(&net(), Device::Cpu, &[("x", &[4, 3])], reqs).unwrap();
        let x: Vec<f32> = (0..12).map(|i| ((i * 5 % 7) as f32 - 3.0) / 4.0).collect();
        exe.copy_params_from(
            &HashMap::from([
                ("x".into(), arr(&x, &[4, 3])),
                ("w".into(), arr(&[0.5, -0.5, 0.25], &[3])),
            ]),
            &HashMap::new(),
            false,
        )
        .unwrap();
        let head = arr(&[1.0; 12], &[4, 3]);
        let (mut w, mut b) = (exe.arg_dict()["w"].clone(), exe.arg_dict()["b"].clone());
        let grads = exe.grad_dict();
        for _ in 0..20 {
            exe.forward(true);
            exe.backward(std::slice::from_ref(&head)).unwrap();
            w -= &(&grads["w"] * 0.1);
            b -= &(&grads["b"] * 0.1);
            if sync {
                w.wait_to_read().unwrap();
                b.wait_to_read().unwrap();
            }
        }
        let mut out = w.to_vec::<f32>().unwrap();
        out.extend(b.to_vec::<f32>().unwrap());
        out
    };
    let (asynchronous, synchronous) = (run(false), run(true));
    assert_eq!(asynchronous, synchronous);
    assert_ne!(
        synchronous[..3],
        [0.5, -0.5, 0.25],
        "training moved the weights"
    );
}

#[test]
fn binding_errors_name_the_argument_and_shapes() {
    let e = Executor::simple_bind(&net(), Device::Cpu, &[], GradReqs::All(GradReq::Null))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("cannot infer the shapes of: x=unknown"), "{e}");
    let w = Symbol::variable("w").shape(&[4]).build();
    let y = &Symbol::var("x") * &w;
    let e = Executor::simple_bind(
        &y,
        Device::Cpu,
        &[("x", &[3])],
        GradReqs::All(GradReq::Null),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("elemwise_mul") && e.contains("(3,)") && e.contains("(4,)"),
        "{e}"
    );
    let e = Executor::simple_bind(
        &net(),
        Device::Cuda(0),
        &[("x", &[2, 3])],
        GradReqs::All(GradReq::Null),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("CUDA"), "{e}");
    let exe = Executor::simple_bind(
        &net(),
        Device::Cpu,
        &[("x", &[2, 3])],
        GradReqs::All(GradReq::Write),
    )
    .unwrap();
    let e = exe.backward(&[]).unwrap_err().to_string();
    assert!(
        e.contains("0 head gradients given, but the outputs need 1"),
        "{e}"
    );
    let e = exe
        .copy_params_from(
            &HashMap::from([("v".into(), arr(&[1.0], &[1]))]),
            &HashMap::new(),
            false,
        )
        .unwrap_err()
        .to_string();
    assert_eq!(e, "copy_params_from: the executor has no argument `v`");
}

#[test]
fn reshape_keeps_parameters_and_changes_the_batch() {
    let exe = Executor::simple_bind(
        &net(),
        Device::Cpu,
        &[("x", &[2, 3])],
        GradReqs::All(GradReq::Null),
    )
    .unwrap();
    exe.copy_params_from(
        &HashMap::from([("w".into(), arr(&[1.0, 2.0, 3.0], &[3]))]),
        &HashMap::new(),
        false,
    )
    .unwrap();
    let big = exe.reshape(&[("x", &[5, 3])]).unwrap();
    assert_eq!(big.arg_dict()["x"].shape(), [5, 3]);
    assert_eq!(
        big.arg_dict()["w"].to_vec::<f32>().unwrap(),
        [1.0, 2.0, 3.0],
        "parameters are shared"
    );
    big.forward_with(
        false,
        &[(
            "x",
            &NDArray::ones(&[5, 3], DType::F32, Device::Cpu).unwrap(),
        )],
    )
    .unwrap();
    let y = big.outputs()[0].to_vec::<f32>().unwrap();
    assert_eq!(y.len(), 15);
    assert!((y[2] - 3.0f32.tanh()).abs() < 1e-6);
}

/// A training graph with every kind of unit: gemm (a contraction) with a fused bias and
/// activation epilogue, element-wise chains, a broadcast, a reduction, a softmax and a
/// softmax loss (a library call).
fn mixed_net() -> Symbol {
    let x = Symbol::var("data");
    let fc1 = sym::fully_connected()
        .data(&x)
        .num_hidden(16)
        .name("fc1")
        .build()
        .unwrap();
    let a = sym::activation()
        .data(&fc1)
        .act_type("tanh")
        .build()
        .unwrap();
    let scaled = &(&(&a * &a) * 0.5) + 1.0;
    let centered = sym::broadcast_sub()
        .lhs(&scaled)
        .rhs(
            &sym::mean()
                .data(&scaled)
                .axis(&[1])
                .keepdims(true)
                .build()
                .unwrap(),
        )
        .build()
        .unwrap();
    // softmax expands into operators the JIT compiles, its gradient too.
    let probs = sym::softmax().data(&centered).axis(1).build().unwrap();
    let fc2 = sym::fully_connected()
        .data(&probs)
        .num_hidden(5)
        .name("fc2")
        .build()
        .unwrap();
    sym::softmax_output()
        .data(&fc2)
        .name("softmax")
        .build()
        .unwrap()
}

#[test]
fn the_jit_backend_computes_what_the_interpreter_computes() {
    use kiln_runtime::Backend;
    let shapes: [(&str, &[usize]); 2] = [("data", &[7, 11]), ("softmax_label", &[7])];
    let exe = Executor::simple_bind(
        &mixed_net(),
        Device::Cpu,
        &shapes,
        GradReqs::All(GradReq::Write),
    )
    .unwrap()
    .rebind(Backend::Jit)
    .unwrap();
    let (_, units) = exe.backend();
    let (kernels, nodes) = (
        units.kernels + units.products,
        units.native + units.reference,
    );
    // SoftmaxOutput (forward and backward) runs its library kernels; the rest compiles.
    assert!(
        kernels >= 8 && nodes >= 2,
        "{kernels} kernels, {nodes} library nodes"
    );
    for (i, a) in exe.arg_arrays().iter().enumerate() {
        let n = a.len();
        let values: Vec<f32> = (0..n)
            .map(|k| ((k * 7 + i * 3) % 13) as f32 * 0.11 - 0.6)
            .collect();
        a.copy_from(&arr(&values, a.shape())).unwrap();
    }
    let label: Vec<f32> = (0..7).map(|k| (k % 5) as f32).collect();
    exe.arg_dict()["softmax_label"]
        .copy_from(&arr(&label, &[7]))
        .unwrap();
    let reference = exe.rebind(Backend::Interpreter).unwrap();
    assert_eq!(reference.backend().1.kernels, 0);
    let run = |e: &Executor| {
        e.forward(true);
        e.backward(&[]).unwrap();
        let mut values = vec![e.outputs()[0].to_vec::<f32>().unwrap()];
        let mut names: Vec<String> = e.grad_dict().keys().cloned().collect();
        names.sort();
        for n in names {
            values.push(e.grad_dict()[&n].to_vec::<f32>().unwrap());
        }
        values
    };
    let (want, got) = (run(&reference), run(&exe));
    compare::each(&got, &want, |g, w| compare::close(g, w, 1e-5)).unwrap();
}

#[test]
fn entries_share_one_arena_by_lifetime() {
    // Twenty FullyConnected + tanh layers of 64 x 256 f32 (64 KiB per entry): naively 40
    // entries, by lifetime only a few are live at once.
    let mut h = Symbol::var("data");
    for i in 0..20 {
        let fc = sym::fully_connected()
            .data(&h)
            .num_hidden(256)
            .name(&format!("fc{i}"))
            .build()
            .unwrap();
        h = sym::activation()
            .data(&fc)
            .act_type("tanh")
            .build()
            .unwrap();
    }
    let exe = Executor::simple_bind(
        &h,
        Device::Cpu,
        &[("data", &[64, 256])],
        GradReqs::All(GradReq::Null),
    )
    .unwrap();
    let entry = 64 * 256 * 4;
    let memory = exe.memory();
    assert_eq!(memory.outputs, entry, "the output has its own array");
    // Live at once: a layer's input, its product (the workspace its tanh epilogue reads)
    // and its output.
    let arena = memory.arena;
    assert!(
        arena <= 3 * entry,
        "arena of {arena} bytes for {entry}-byte entries"
    );
    let mut inputs = HashMap::new();
    for (name, a) in exe.arg_dict() {
        let values: Vec<f32> = (0..a.len())
            .map(|k| ((k * 31) % 17) as f32 * 0.01 - 0.08)
            .collect();
        a.copy_from(&arr(&values, a.shape())).unwrap();
        inputs.insert(name, a.to_tensor().unwrap());
    }
    exe.forward(false);
    let got = exe.outputs()[0].to_vec::<f32>().unwrap();
    let want =
        kiln_compiler::interpret(&h.to_graph().unwrap(), &inputs, Default::default()).unwrap();
    compare::close(&got, &want[0].data, 1e-5).unwrap();
}

/// Backward is pushed as segments that end where a gradient is complete: an update of the
/// last layer's weights, pushed after `backward` with a higher priority (as MXNet's
/// KVStore pushes by layer), runs while the first layer's gradient is still pending.
#[test]
fn updates_start_while_backward_goes_on() {
    use kiln_runtime::optim::Sgd;
    use kiln_runtime::{Backend, Engine, FnProperty};
    use std::sync::{Arc, Condvar, Mutex};
    let mut x = Symbol::var("data");
    for (i, hidden) in [(1, 32), (2, 32), (3, 4)] {
        x = sym::fully_connected()
            .data(&x)
            .num_hidden(hidden)
            .name(&format!("fc{i}"))
            .build()
            .unwrap();
        if i < 3 {
            x = sym::relu().data(&x).build().unwrap();
        }
    }
    let net = sym::softmax_output()
        .data(&x)
        .name("softmax")
        .build()
        .unwrap();
    let shapes: [(&str, &[usize]); 2] = [("data", &[8, 16]), ("softmax_label", &[8])];
    let exe = Executor::simple_bind(&net, Device::Cpu, &shapes, GradReqs::All(GradReq::Write))
        .unwrap()
        .rebind(Backend::Jit)
        .unwrap();
    let (args, grads) = (exe.arg_dict(), exe.grad_dict());
    for (name, a) in &args {
        let n = a.len();
        let v: Vec<f32> = (0..n)
            .map(|i| ((i * 7 + name.len()) % 11) as f32 * 0.05 - 0.25)
            .collect();
        a.copy_from(&arr(&v, a.shape())).unwrap();
    }
    let first = grads["fc1_weight"].var().clone();
    let before = first.version();
    // A gate holds the engine until everything is pushed, whatever the timing.
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let held = gate.clone();
    let data = args["data"].var().clone();
    Engine::global().push_fn("gate", &[], &[data], FnProperty::Normal, 0, move || {
        let (open, cv) = &*held;
        let mut open = open.lock().unwrap();
        while !*open {
            open = cv.wait(open).unwrap();
        }
        Ok(())
    });
    exe.forward(true);
    exe.backward(&[]).unwrap();
    // The last layer's update, and a probe beside it: was fc1's gradient written yet?
    let sgd = Sgd {
        lr: 0.1,
        wd: 0.0,
        rescale_grad: 1.0,
    };
    let update = sgd
        .operator(&args["fc3_weight"], &grads["fc3_weight"])
        .unwrap();
    Engine::global().push(&update, 1);
    let seen = Arc::new(Mutex::new(None));
    let probe = seen.clone();
    let fc3_grad = grads["fc3_weight"].var().clone();
    Engine::global().push_fn(
        "probe",
        &[fc3_grad],
        &[],
        FnProperty::Normal,
        1,
        move || {
            *probe.lock().unwrap() = Some(first.version());
            Ok(())
        },
    );
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    Engine::global().wait_all().unwrap();
    let when = seen.lock().unwrap().expect("the probe ran");
    assert_eq!(
        when, before,
        "fc1's gradient was written before the last layer's update"
    );
    assert!(
        grads["fc1_weight"].var().version() > before,
        "backward wrote fc1's gradient"
    );
}

#[test]
fn a_reseeded_executor_draws_the_masks_again() {
    let x = Symbol::var("x");
    let dropped = sym::dropout().data(&x).p(0.5).build().unwrap();
    let exe = Executor::simple_bind(
        &dropped,
        Device::Cpu,
        &[("x", &[64])],
        GradReqs::All(GradReq::Null),
    )
    .unwrap();
    let ones = NDArray::ones(&[64], DType::F32, Device::Cpu).unwrap();
    let masks = |n: usize| -> Vec<Vec<f32>> {
        (0..n)
            .map(|_| {
                exe.forward_with(true, &[("x", &ones)]).unwrap();
                exe.outputs()[0].to_vec::<f32>().unwrap()
            })
            .collect()
    };
    exe.seed_random(11);
    let first = masks(3);
    assert!(
        first[0].contains(&0.0) && first[0].contains(&2.0),
        "a mask of zeros and 1/(1-p): {:?}",
        first[0]
    );
    assert_ne!(first[0], first[1], "each pass draws its own mask");
    exe.seed_random(11);
    assert_eq!(masks(3), first, "the same seed, the same masks");
    exe.seed_random(12);
    assert_ne!(masks(1)[0], first[0], "another seed, another mask");
}
