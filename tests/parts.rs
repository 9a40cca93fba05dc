//! Inference in parts of the batch (`program::parts`): an executor that runs its
//! per-sample prefix a few samples at a time gives what the interpreter gives on the
//! whole batch, wherever the prefix ends — at a fully-connected layer, at an operator
//! that mixes samples, at the graph's outputs — and whatever the batch divides into.

use kiln::compiler::program::{compile, Mode, Parts};
use kiln::models::weights;
use kiln::ops::compare;
use kiln::runtime::{Backend, Config, Device, Executor, GradReqs, NDArray};
use kiln::Symbol;
use std::collections::HashMap;

fn call(op: &str, args: &[&Symbol], attrs: &[(&str, &str)]) -> Symbol {
    let mut c = Symbol::op(op).args(args.iter().copied());
    for (k, v) in attrs {
        c = c.attr(k, v);
    }
    c.build().unwrap()
}

fn var(name: &str) -> Symbol {
    Symbol::var(name)
}

fn conv(x: &Symbol, name: &str, filters: usize, kernel: usize, pad: usize) -> Symbol {
    let k = format!("({kernel}, {kernel})");
    let p = format!("({pad}, {pad})");
    call(
        "Convolution",
        &[x, &var(&format!("{name}_w")), &var(&format!("{name}_b"))],
        &[
            ("num_filter", &filters.to_string()),
            ("kernel", &k),
            ("pad", &p),
        ],
    )
}

fn bn_relu(x: &Symbol, name: &str) -> Symbol {
    let bn = call(
        "BatchNorm",
        &[
            x,
            &var(&format!("{name}_gamma")),
            &var(&format!("{name}_beta")),
            &var(&format!("{name}_moving_mean")),
            &var(&format!("{name}_moving_var")),
        ],
        &[("fix_gamma", "False")],
    );
    call("Activation", &[&bn], &[("act_type", "relu")])
}

/// A network, what it checks, and its data shape.
type Case = (&'static str, Symbol, Vec<usize>);

fn cases() -> Vec<Case> {
    let x = var("data");
    // Two branches concatenated along the channels, a reshape keeping the batch, then a
    // fully-connected layer (heavier than a part's samples: the prefix ends there) and
    // a softmax.
    let stem = bn_relu(&conv(&x, "c1", 8, 3, 1), "b1");
    let left = conv(&stem, "l", 4, 1, 0);
    let right = call(
        "Pooling",
        &[&conv(&stem, "r", 4, 3, 1)],
        &[
            ("kernel", "(3, 3)"),
            ("stride", "(1, 1)"),
            ("pad", "(1, 1)"),
            ("pool_type", "max"),
        ],
    );
    let cat = call(
        "Concat",
        &[&left, &right],
        &[("dim", "1"), ("num_args", "2")],
    );
    let flat = call("Reshape", &[&cat], &[("shape", "(0, -1)")]);
    let fc = call(
        "FullyConnected",
        &[&flat, &var("fc_w"), &var("fc_b")],
        &[("num_hidden", "10")],
    );
    let classifier = call("softmax", &[&fc], &[("axis", "-1")]);
    // Fully convolutional: the outputs are the prefix's, and a residual sum.
    let a = bn_relu(&conv(&x, "a", 12, 3, 1), "ba");
    let residual = &conv(&a, "a2", 12, 3, 1) + &a;
    let pooled = call(
        "Pooling",
        &[&a],
        &[
            ("kernel", "(3, 3)"),
            ("stride", "(3, 3)"),
            ("pool_type", "avg"),
        ],
    );
    let dense = Symbol::group(&[conv(&residual, "proj", 2, 1, 0), pooled]);
    // The mean over the batch mixes samples: the prefix stops before it (after a wider
    // layer, so that parts pay for the whole-batch array they hand on).
    let wide = bn_relu(&conv(&x, "m0", 16, 3, 1), "bm0");
    let h = bn_relu(&conv(&wide, "m", 4, 3, 1), "bm");
    let batch_mean = call("mean", &[&h], &[("axis", "0"), ("keepdims", "True")]);
    let mixed = call("broadcast_sub", &[&h, &batch_mean], &[]);
    let mixed = call(
        "Pooling",
        &[&mixed],
        &[
            ("global_pool", "True"),
            ("kernel", "(1, 1)"),
            ("pool_type", "avg"),
        ],
    );
    let zoo = |name: &str| kiln::models::info(name).unwrap().build().unwrap();
    vec![
        ("resnet18_v1", zoo("resnet18_v1"), vec![4, 3, 64, 64]),
        ("squeezenet1.1", zoo("squeezenet1.1"), vec![4, 3, 224, 224]),
        (
            "branches, concat, reshape, fc, softmax",
            classifier,
            vec![8, 3, 12, 12],
        ),
        ("outputs in the prefix", dense, vec![6, 2, 9, 9]),
        ("a batch mean ends the prefix", mixed, vec![8, 3, 10, 10]),
        (
            "a batch of 5 in parts of 1",
            conv(&bn_relu(&conv(&x, "o", 5, 3, 1), "bo"), "o2", 3, 1, 0),
            vec![5, 2, 8, 8],
        ),
    ]
}

/// The deterministic values the MXNet parity fixtures use (weights scaled by their
/// fan-in, so activations keep their scale through a deep network).
fn values(name: &str, shape: &[usize]) -> NDArray {
    let t = match name {
        "data" => weights::input(name, shape),
        _ => weights::parameter(name, shape),
    };
    NDArray::from_tensor(&t, Device::Cpu).unwrap()
}

#[test]
fn executors_in_parts_compute_what_the_interpreter_computes_on_the_whole_batch() {
    // Parts of two samples (as on a machine of two threads), whatever this one has.
    let config = Config::new().threads(2);
    for (what, net, data) in cases() {
        let shapes = HashMap::from([("data".to_string(), data.clone())]);
        let program = compile(&net, &config.spec(shapes, Mode::Inference)).unwrap();
        let prefix = match &program.parts {
            Parts::Prefix(prefix) => prefix,
            Parts::Declined(why) => panic!("{what}: the prefix does not run in parts: {why}"),
            Parts::Whole => panic!("{what}: no prefix runs in parts"),
        };
        assert_eq!(prefix.rows * prefix.parts, data[0], "{what}");
        let bind = |config: &Config| {
            Executor::simple_bind_with(
                config,
                &net,
                Device::Cpu,
                &[("data", &data)],
                GradReqs::All(kiln::compiler::autodiff::GradReq::Null),
            )
            .unwrap()
        };
        let (parts, whole) = (
            bind(&config),
            bind(&config.clone().backend(Backend::Interpreter)),
        );
        assert_eq!(
            parts.memory().internal(),
            program.internal_bytes(),
            "{what}"
        );
        let names = net
            .list_arguments()
            .into_iter()
            .chain(net.list_auxiliary_states());
        let arrays = |e: &Executor| {
            e.arg_arrays()
                .iter()
                .chain(e.aux_arrays())
                .cloned()
                .collect::<Vec<_>>()
        };
        for ((name, a), b) in names.zip(arrays(&parts)).zip(arrays(&whole)) {
            let t = values(&name, a.shape());
            a.copy_from(&t).unwrap();
            b.copy_from(&t).unwrap();
        }
        // Twice: a second forward pass reuses the parts' arrays.
        for _ in 0..2 {
            parts.forward(false);
            whole.forward(false);
            let checked = compare::each(parts.outputs(), whole.outputs(), |got, want| {
                let (got, want) = (got.to_tensor().unwrap(), want.to_tensor().unwrap());
                compare::same_shape(&got.shape, &want.shape)?;
                compare::close(&got.data, &want.data, 1e-4)
            });
            if let Err(e) = checked {
                panic!("{what}: output {e}, against the interpreter");
            }
        }
    }
}

/// The prefix ends where a node is not per sample or reads weights larger than a part's
/// samples, and hands on exactly the values the rest reads.
#[test]
fn the_prefix_ends_at_what_mixes_samples_or_is_heavy() {
    let config = Config::new().threads(2);
    let handed = |net: &Symbol, data: Vec<usize>| {
        let shapes = HashMap::from([("data".to_string(), data)]);
        match compile(net, &config.spec(shapes, Mode::Inference))
            .unwrap()
            .parts
        {
            Parts::Prefix(p) => Some((p.handed.clone(), p.parts)),
            _ => None,
        }
    };
    let cases = cases();
    let (_, classifier, data) = &cases[2];
    let (names, parts) = handed(classifier, data.clone()).unwrap();
    assert_eq!(parts, 4);
    assert_eq!(names.len(), 1, "{names:?}");
    let (_, mixed, data) = &cases[4];
    let (names, _) = handed(mixed, data.clone()).unwrap();
    assert!(names.iter().all(|n| !n.contains("mean")), "{names:?}");
    // A fully-connected layer on the data: nothing before it to run in parts.
    let x = var("data");
    let mlp = call(
        "FullyConnected",
        &[&x, &var("w"), &var("b")],
        &[("num_hidden", "64")],
    );
    assert_eq!(handed(&mlp, vec![8, 100]), None);
    // Element-wise on vectors: by the graph a part would hold two values of a few
    // elements instead of two of the batch, but fused into one kernel writing the output,
    // the whole batch holds nothing at all.
    let (a, b) = (var("a"), var("b"));
    let y = &(&a * &b) + 1.0;
    let shapes = HashMap::from([
        ("a".to_string(), vec![1 << 16]),
        ("b".to_string(), vec![1 << 16]),
    ]);
    let p = compile(&y, &config.spec(shapes, Mode::Inference)).unwrap();
    match &p.parts {
        Parts::Declined(why) => assert!(why.contains("whole 0.00 MB"), "{why}"),
        _ => panic!("a fused element-wise vector runs in parts: {p}"),
    }
    // Training runs the batch whole.
    let shapes = HashMap::from([("data".to_string(), vec![4, 3, 12, 12])]);
    let train = compile(
        classifier,
        &config.spec(shapes, Mode::train_parameters(classifier)),
    )
    .unwrap();
    assert!(matches!(train.parts, Parts::Whole));
}
