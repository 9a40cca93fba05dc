//! The backward expansion (`expand_backward`, on where kernels are compiled): a
//! convolution's data gradient through columns and col2im, where its input is larger than
//! its output (strided, or unpadded), gives the gradients the reference interpreter
//! computes with `_backward_Convolution`'s one loop nest — for the data too, where the
//! network's input is differentiated — and the expansion is gone with the pass switched
//! off.

use kiln::compiler::autodiff::GradReq;
use kiln::compiler::program::{compile, Mode};
use kiln::models::weights;
use kiln::ops::compare;
use kiln::runtime::{Backend, Config, Device, Executor, GradReqs, NDArray};
use kiln::Symbol;
use std::collections::HashMap;

const DATA: [usize; 4] = [2, 3, 11, 10];

fn conv(x: &Symbol, name: &str, attrs: &[(&str, &str)]) -> Symbol {
    let (weight, bias) = (
        Symbol::var(&format!("{name}_weight")),
        Symbol::var(&format!("{name}_bias")),
    );
    let mut c = Symbol::op("Convolution").name(name).arg(x).arg(&weight);
    if !attrs.contains(&("no_bias", "True")) {
        c = c.arg(&bias);
    }
    for (k, v) in attrs {
        c = c.attr(k, v);
    }
    c.build().unwrap()
}

/// Convolutions: 3x3 unpadded, 3x3 padded (its output as large as its input: not
/// expanded), 3x3/2 padded with bias, 1x1/2 without, grouped 3x3 with a stride along one
/// axis only; then a softmax loss.
fn net() -> Symbol {
    let x = Symbol::var("data");
    let s = conv(&x, "s", &[("kernel", "(3, 3)"), ("num_filter", "3")]);
    let same = [("kernel", "(3, 3)"), ("pad", "(1, 1)"), ("num_filter", "3")];
    let d = conv(&s, "d", &same);
    let a = conv(
        &d,
        "a",
        &[
            ("kernel", "(3, 3)"),
            ("stride", "(2, 2)"),
            ("pad", "(1, 1)"),
            ("num_filter", "4"),
        ],
    );
    let a = Symbol::op("Activation")
        .arg(&a)
        .attr("act_type", "relu")
        .build()
        .unwrap();
    let b = conv(
        &a,
        "b",
        &[
            ("kernel", "(1, 1)"),
            ("stride", "(2, 2)"),
            ("num_filter", "6"),
            ("no_bias", "True"),
        ],
    );
    let c = conv(
        &b,
        "c",
        &[
            ("kernel", "(3, 3)"),
            ("stride", "(2, 1)"),
            ("pad", "(0, 1)"),
            ("num_group", "2"),
            ("num_filter", "4"),
        ],
    );
    let fc = Symbol::op("FullyConnected")
        .name("fc")
        .arg(&c)
        .arg(&Symbol::var("fc_weight"))
        .arg(&Symbol::var("fc_bias"))
        .attr("num_hidden", 5)
        .build()
        .unwrap();
    Symbol::op("SoftmaxOutput")
        .name("softmax")
        .arg(&fc)
        .build()
        .unwrap()
}

/// Every argument's gradient but the labels', the data's included.
fn reqs(net: &Symbol) -> HashMap<String, GradReq> {
    (net.list_arguments().into_iter())
        .filter(|n| n != "softmax_label")
        .map(|n| (n, GradReq::Write))
        .collect()
}

/// The gradients of one training step of `net` bound with `config`.
fn grads(net: &Symbol, config: &Config) -> HashMap<String, Vec<f32>> {
    let exe = Executor::simple_bind_with(
        config,
        net,
        Device::Cpu,
        &[("data", &DATA)],
        GradReqs::Each(reqs(net)),
    )
    .unwrap();
    for (name, a) in exe.arg_dict() {
        let t = match name.as_str() {
            "softmax_label" => {
                let labels = (0..DATA[0]).map(|i| (i * 3 % 5) as f64).collect();
                kiln::Tensor::new(kiln::ops::DType::F32, vec![DATA[0]], labels)
            }
            "data" => weights::input(&name, a.shape()),
            _ => weights::parameter(&name, a.shape()),
        };
        a.copy_from(&NDArray::from_tensor(&t, Device::Cpu).unwrap())
            .unwrap();
    }
    exe.forward(true);
    exe.backward(&[]).unwrap();
    (exe.grad_dict().into_iter())
        .map(|(n, g)| (n, g.to_vec::<f32>().unwrap()))
        .collect()
}

/// How many col2im nodes the training program of `config` has.
fn col2im_nodes(net: &Symbol, config: &Config) -> usize {
    let shapes = HashMap::from([("data".to_string(), DATA.to_vec())]);
    let program = compile(net, &config.spec(shapes, Mode::Training(reqs(net)))).unwrap();
    let g = &program.training.graph;
    (g.node_ids())
        .filter(|&id| {
            g.node(id)
                .op
                .is_some_and(|op| op.name == "_backward_Convolution_col2im")
        })
        .count()
}

#[test]
fn data_gradients_through_columns_match_the_interpreter() {
    let net = net();
    let jit = Config::new().backend(Backend::Jit);
    let unexpanded = jit.clone().disable_pass("expand_backward");
    assert_eq!(col2im_nodes(&net, &jit), 4, "one per convolution but `d`");
    assert_eq!(col2im_nodes(&net, &unexpanded), 0);
    let want = grads(&net, &Config::new().backend(Backend::Interpreter));
    for (what, config) in [("expanded", &jit), ("not expanded", &unexpanded)] {
        let got = grads(&net, config);
        assert_eq!(got.len(), want.len());
        for (name, w) in &want {
            let scale = compare::scale(w).max(1e-6);
            if let Err(e) = compare::within(&got[name], w, |_| 1e-4 * scale) {
                panic!("{what}: gradient of {name}: {e} (scale {scale})");
            }
        }
    }
}
