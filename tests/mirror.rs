//! Recomputation in backward (`passes::mirror`, on by default in training): gradients and
//! new aux values are what the program without it computes — on the reference kernels
//! and on the JIT — while the recomputed forward values no longer live through the
//! backward pass.

use kiln::compiler::program::{compile, Mode};
use kiln::models::weights;
use kiln::ops::compare;
use kiln::runtime::{Backend, Config, Device, Executor, GradReqs, NDArray};
use kiln::Symbol;
use std::collections::HashMap;

fn call(op: &str, args: &[&Symbol], attrs: &[(&str, &str)]) -> Symbol {
    let mut c = Symbol::op(op).args(args.iter().copied());
    for (k, v) in attrs {
        c = match *k {
            "name" => c.name(*v),
            _ => c.attr(k, v),
        };
    }
    c.build().unwrap()
}

fn var(name: &str) -> Symbol {
    Symbol::var(name)
}

fn conv_bn(x: &Symbol, name: &str, filters: usize) -> Symbol {
    let conv = call(
        "Convolution",
        &[
            x,
            &var(&format!("{name}_weight")),
            &var(&format!("{name}_bias")),
        ],
        &[
            ("num_filter", &filters.to_string()),
            ("kernel", "(3, 3)"),
            ("pad", "(1, 1)"),
        ],
    );
    let stats = ["gamma", "beta", "moving_mean", "moving_var"].map(|s| var(&format!("{name}_{s}")));
    let ins: Vec<&Symbol> = [&conv].into_iter().chain(stats.iter()).collect();
    call("BatchNorm", &ins, &[("fix_gamma", "False"), ("name", name)])
}

fn relu(x: &Symbol) -> Symbol {
    call("Activation", &[x], &[("act_type", "relu")])
}

/// Two residual blocks of convolution, BatchNorm and ReLU, pooled into a softmax loss.
fn residual_net() -> Symbol {
    let x = var("data");
    let stem = relu(&conv_bn(&x, "stem", 6));
    let mut out = stem;
    for b in 0..2 {
        let a = relu(&conv_bn(&out, &format!("b{b}a"), 6));
        let sum = &conv_bn(&a, &format!("b{b}b"), 6) + &out;
        out = relu(&sum);
    }
    let pooled = call(
        "Pooling",
        &[&out],
        &[
            ("global_pool", "True"),
            ("kernel", "(1, 1)"),
            ("pool_type", "avg"),
        ],
    );
    let fc = call(
        "FullyConnected",
        &[&pooled, &var("fc_weight"), &var("fc_bias")],
        &[("num_hidden", "5")],
    );
    call(
        "SoftmaxOutput",
        &[&fc, &var("softmax_label")],
        &[("name", "softmax")],
    )
}

/// Gradients and new aux values of one training step of `net` bound with `config`.
fn step(net: &Symbol, config: &Config, data: &[usize]) -> HashMap<String, Vec<f32>> {
    let reqs = match Mode::train_parameters(net) {
        Mode::Training(r) => r,
        Mode::Inference => unreachable!(),
    };
    let exe = Executor::simple_bind_with(
        config,
        net,
        Device::Cpu,
        &[("data", data)],
        GradReqs::Each(reqs),
    )
    .unwrap();
    for (name, a) in exe.arg_dict().into_iter().chain(exe.aux_dict()) {
        let t = match name.as_str() {
            "data" => weights::input(&name, a.shape()),
            "softmax_label" => {
                let n = a.shape()[0];
                let labels = (0..n).map(|i| (i % 5) as f64).collect();
                kiln::Tensor::new(kiln::ops::DType::F32, vec![n], labels)
            }
            _ => weights::parameter(&name, a.shape()),
        };
        a.copy_from(&NDArray::from_tensor(&t, Device::Cpu).unwrap())
            .unwrap();
    }
    exe.forward(true);
    exe.backward(&[]).unwrap();
    let grads = exe
        .grad_dict()
        .into_iter()
        .map(|(n, g)| (format!("grad {n}"), g));
    let aux = exe
        .aux_dict()
        .into_iter()
        .map(|(n, a)| (format!("aux {n}"), a));
    grads
        .chain(aux)
        .map(|(n, a)| (n, a.to_vec::<f32>().unwrap()))
        .collect()
}

fn assert_same(got: &HashMap<String, Vec<f32>>, want: &HashMap<String, Vec<f32>>, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (name, w) in want {
        let g = &got[name];
        let scale = compare::scale(w).max(1e-6);
        if let Err(e) = compare::within(g, w, |_| 1e-4 * scale) {
            panic!("{what}: {name}: {e}, without recomputation (scale {scale})");
        }
    }
}

#[test]
fn recomputed_training_steps_compute_what_kept_ones_compute() {
    let data = [4, 3, 10, 10];
    let zoo = kiln::models::info("resnet18_v1").unwrap().build().unwrap();
    for (what, net, data) in [
        ("residual blocks", residual_net(), &data[..]),
        ("resnet18_v1", zoo, &[2, 3, 32, 32][..]),
    ] {
        for backend in [Backend::Interpreter, Backend::Jit] {
            let config = Config::new().backend(backend);
            let shapes = HashMap::from([("data".to_string(), data.to_vec())]);
            let mode = Mode::train_parameters(&net);
            let program = compile(&net, &config.spec(shapes.clone(), mode.clone())).unwrap();
            let kept = compile(
                &net,
                &config.clone().disable_pass("mirror").spec(shapes, mode),
            )
            .unwrap();
            assert!(program.recomputed.nodes > 0, "{what}: nothing recomputed");
            assert_eq!(kept.recomputed.nodes, 0);
            assert!(
                program.internal_bytes() < kept.internal_bytes(),
                "{what}: {} bytes recomputing, {} keeping",
                program.internal_bytes(),
                kept.internal_bytes()
            );
            let want = step(&net, &config.clone().disable_pass("mirror"), data);
            let got = step(&net, &config, data);
            assert_same(&got, &want, &format!("{what} on {backend:?}"));
        }
    }
}
