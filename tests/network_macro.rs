//! `network!` and `include_symbol!`: a network declared in Rust is the
//! network the Symbol API builds — same arguments under MXNet's names, same shapes, same
//! outputs on the reference interpreter — and an included MXNet file is that file; their
//! ahead-of-time code (MLP, LeNet, ResNet-18, MXNet's checkpoint) gives the outputs and
//! gradients of the JIT executor and of the f64 interpreter (and of MXNet).

use kiln::compiler::{interpret, RunOptions};
use kiln::ops::compare;
use kiln::{DType, Symbol, Tensor};
use std::collections::HashMap;

// LeNet-5 as MXNet's example declares it (the zoo's `lenet`), from the main-job example.
include!("../examples/networks/lenet.rs");

kiln::network! {
    /// Arithmetic, several outputs, a shared weight passed by input name.
    Shared(batch = 3) {
        input x: [batch, 4];
        input w: [4, 4];
        let h = FullyConnected(x, weight = w, num_hidden = 4, no_bias = true);
        let g = FullyConnected(h * 0.5 - x, weight = w, num_hidden = 4, no_bias = true);
        output y = (h + g) / 2.0;
        output z = Activation(-g, act_type = "relu");
    }
}

fn tensor(shape: &[usize], seed: f64) -> Tensor {
    let n: usize = shape.iter().product();
    let data = (0..n)
        .map(|i| ((i as f64 + seed) * 0.37).sin() * 0.5)
        .collect();
    Tensor::new(DType::F32, shape.to_vec(), data)
}

/// `sym`'s outputs on the interpreter, with every argument filled deterministically from
/// the shapes `shapes` gives.
fn run(sym: &Symbol, shapes: &[(&str, &[usize])]) -> Vec<Tensor> {
    let inputs: HashMap<String, Tensor> = (shapes.iter().enumerate())
        .map(|(i, (n, s))| (n.to_string(), tensor(s, i as f64)))
        .collect();
    interpret(&sym.to_graph().unwrap(), &inputs, RunOptions::default()).unwrap()
}

#[test]
fn lenet_declared_in_rust_is_the_zoo_lenet() {
    let zoo = kiln::models::get("lenet").unwrap();
    let ours = LeNet::symbol();
    assert_eq!(ours.list_arguments(), zoo.list_arguments());
    assert_eq!(ours.list_outputs(), zoo.list_outputs());
    // Parameter shapes as inferred at expansion, and the batch as declared.
    assert_eq!(LeNet::BATCH, 64);
    let params: HashMap<&str, &[usize]> = LeNet::PARAMS.iter().copied().collect();
    assert_eq!(params["conv2_weight"], [50, 20, 5, 5]);
    assert_eq!(params["fc1_weight"], [500, 800]);
    assert_eq!(LeNet::OUTPUTS, &[("softmax_output", &[64, 10][..])]);
    // The same numbers, at another batch size.
    let mut shapes: Vec<(&str, Vec<usize>)> = LeNet::input_shapes(2);
    shapes.extend(LeNet::PARAMS.iter().map(|(n, s)| (*n, s.to_vec())));
    let shapes: Vec<(&str, &[usize])> = shapes.iter().map(|(n, s)| (*n, &s[..])).collect();
    let (a, b) = (run(&ours, &shapes), run(&zoo, &shapes));
    assert_eq!(a[0].shape, [2, 10]);
    assert_eq!(a[0].data, b[0].data);
}

#[test]
fn arithmetic_and_shared_weights_build_what_the_symbol_api_builds() {
    let (x, w) = (Symbol::var("x"), Symbol::var("w"));
    let fc = |d: &Symbol, name: &str| {
        kiln::sym::fully_connected()
            .data(d)
            .weight(&w)
            .num_hidden(4)
            .no_bias(true)
            .name(name)
            .build()
            .unwrap()
    };
    let h = fc(&x, "h");
    let g = fc(&(&(&h * 0.5) - &x), "g");
    let y = &(&h + &g) / 2.0;
    let z = kiln::sym::activation()
        .data(&(-&g))
        .act_type("relu")
        .build()
        .unwrap();
    let api = Symbol::group(&[y, z]);
    let ours = Shared::symbol();
    assert_eq!(ours.list_arguments(), ["x", "w"]);
    assert_eq!(Shared::PARAMS, &[] as &[(&str, &[usize])]);
    let shapes: [(&str, &[usize]); 2] = [("x", &[3, 4]), ("w", &[4, 4])];
    let (a, b) = (run(&ours, &shapes), run(&api, &shapes));
    assert_eq!(a.len(), 2);
    for (p, q) in a.iter().zip(&b) {
        assert_eq!(p.data, q.data);
    }
}

kiln::include_symbol!(pub Resnet18 = "tests/fixtures/models/resnet18_v1-symbol.json", data = [1, 3, 224, 224]);

#[test]
fn an_included_mxnet_file_is_that_file() {
    let path = "tests/fixtures/models/resnet18_v1-symbol.json";
    let loaded = Symbol::load(path).unwrap();
    let ours = Resnet18::symbol();
    assert_eq!(ours.list_arguments(), loaded.list_arguments());
    assert_eq!(ours.list_auxiliary_states(), loaded.list_auxiliary_states());
    assert_eq!(ours.to_json().unwrap(), loaded.to_json().unwrap());
    assert_eq!(Resnet18::OUTPUTS[0].1, [1, 1000]);
    assert_eq!(Resnet18::AUX.len(), loaded.list_auxiliary_states().len());
}

/// Deterministic parameter values, small enough for tanh and softmax to stay sensitive.
fn init(name: &str, shape: &[usize], values: &mut [f32]) {
    let fan_in = shape.iter().skip(1).product::<usize>().max(1) as f32;
    let seed = name.len() as f32;
    for (i, v) in values.iter_mut().enumerate() {
        *v = ((i as f32 * 0.61 + seed).sin()) / fan_in.sqrt();
        if name.ends_with("_var") || name.ends_with("_gamma") {
            *v = 1.0 + 0.5 * v.abs();
        }
    }
}

/// The JIT executor's inference outputs for `symbol` with the AOT struct's values.
fn jit_outputs(
    symbol: &Symbol,
    inputs: &[(&str, &[usize])],
    data: &[Vec<f32>],
    param: &dyn Fn(&str) -> Vec<f32>,
) -> Vec<Vec<f32>> {
    use kiln::runtime::{Device, Executor, GradReqs, NDArray};
    let exe = Executor::simple_bind(
        symbol,
        Device::Cpu,
        inputs,
        GradReqs::All(kiln::compiler::autodiff::GradReq::Null),
    )
    .unwrap();
    let by_input: HashMap<&str, &Vec<f32>> = inputs.iter().map(|(n, _)| *n).zip(data).collect();
    for (name, a) in exe.arg_dict().into_iter().chain(exe.aux_dict()) {
        let values = match by_input.get(name.as_str()) {
            Some(v) => v.to_vec(),
            None => param(&name),
        };
        a.copy_from(&NDArray::from_slice(&values, a.shape()).unwrap())
            .unwrap();
    }
    exe.forward(false);
    exe.outputs()
        .iter()
        .map(|o| o.to_vec::<f32>().unwrap())
        .collect()
}

/// As many outputs as expected, each as long and within 1e-4 of its scale (no NaN).
fn assert_close(got: &[&[f32]], want: &[Vec<f32>], what: &str) {
    match compare::each(got, want, |g, w| compare::close_to_scale(g, w, 1e-4)) {
        Ok(worst) => {
            let worst = worst.into_iter().fold(0.0, f64::max);
            println!("{what}: {worst:.1e} of the output's scale");
        }
        Err(e) => panic!("{what}: {e}"),
    }
}

#[test]
fn ahead_of_time_inference_matches_the_jit_executor() {
    // LeNet: products (convolutions, FullyConnected), pooling and tanh kernels, a
    // native SoftmaxOutput.
    let mut lenet = LeNet::new(init);
    let data: Vec<f32> = (0..64 * 784).map(|i| ((i % 97) as f32) / 97.0).collect();
    let labels: Vec<f32> = (0..64).map(|i| (i % 10) as f32).collect();
    let got = lenet.forward(&[&data, &labels]).unwrap();
    assert_eq!(got[0].len(), 64 * 10);
    let param = |n: &str| values_of([LeNet::PARAMS, LeNet::AUX], n);
    let want = jit_outputs(
        &LeNet::symbol(),
        LeNet::INPUTS,
        &[data.clone(), labels.clone()],
        &param,
    );
    assert_close(&got, &want, "lenet");
    // Wrong input sizes are errors naming the input.
    let err = LeNet::new(init)
        .forward(&[&data[..10], &labels])
        .unwrap_err()
        .to_string();
    assert!(err.contains("`data`"), "{err}");
}

/// `init`'s values for parameter or aux state `name` of a network's tables.
fn values_of(tables: [&[(&str, &[usize])]; 2], name: &str) -> Vec<f32> {
    let shape = tables
        .concat()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap()
        .1;
    let mut v = vec![0.0; shape.iter().product()];
    init(name, shape, &mut v);
    v
}

/// The gradient of every parameter after one training pass, on the JIT executor and on
/// the f64 reference interpreter, from the same input values and parameter values.
fn reference_grads(
    symbol: &Symbol,
    inputs: &[(&str, &[usize])],
    data: &[&[f32]],
    params: &[(&str, &[usize])],
    param: &dyn Fn(&str) -> Vec<f32>,
) -> [HashMap<String, Vec<f32>>; 2] {
    use kiln::compiler::autodiff::{differentiate, GradReq};
    use kiln::runtime::{Device, Executor, GradReqs, NDArray};
    let reqs: HashMap<String, GradReq> = params
        .iter()
        .map(|(n, _)| (n.to_string(), GradReq::Write))
        .collect();
    let given: HashMap<&str, &[f32]> = inputs
        .iter()
        .map(|(n, _)| *n)
        .zip(data.iter().copied())
        .collect();
    let values = |n: &str| given.get(n).map_or_else(|| param(n), |v| v.to_vec());
    let exe =
        Executor::simple_bind(symbol, Device::Cpu, inputs, GradReqs::Each(reqs.clone())).unwrap();
    for (name, a) in exe.arg_dict().into_iter().chain(exe.aux_dict()) {
        a.copy_from(&NDArray::from_slice(&values(&name), a.shape()).unwrap())
            .unwrap();
    }
    exe.forward(true);
    exe.backward(&[]).unwrap();
    let jit = (exe.grad_dict().into_iter())
        .map(|(n, a)| (n, a.to_vec::<f32>().unwrap()))
        .collect();
    let t = differentiate(&symbol.to_graph().unwrap(), &reqs, true).unwrap();
    let mut feed: HashMap<String, Tensor> = HashMap::new();
    let shapes = inputs.iter().chain(params).copied();
    let aux = symbol.list_auxiliary_states();
    for (n, s) in shapes.chain(aux.iter().map(|n| (n.as_str(), &[][..]))) {
        let v = values(n);
        let shape = if s.is_empty() {
            vec![v.len()]
        } else {
            s.to_vec()
        };
        let data = v.iter().map(|&x| x as f64).collect();
        feed.insert(n.to_string(), Tensor::new(DType::F32, shape, data));
    }
    let run = RunOptions {
        is_train: true,
        ..Default::default()
    };
    let oracle = interpret(&t.graph, &feed, run).unwrap();
    let interpreted = (t.grads.iter().enumerate())
        .map(|(k, (id, _))| {
            let v = oracle[t.num_outputs + k]
                .data
                .iter()
                .map(|&x| x as f32)
                .collect();
            (t.graph.node(*id).name.clone(), v)
        })
        .collect();
    [jit, interpreted]
}

/// Every parameter's gradient from `grad` against the JIT's and the interpreter's.
fn assert_grads(
    grad: &dyn Fn(&str) -> Vec<f32>,
    params: &[(&str, &[usize])],
    [jit, interpreted]: [HashMap<String, Vec<f32>>; 2],
) {
    for (name, _) in params {
        let got = grad(name);
        assert_close(&[&got], &[jit[*name].clone()], &format!("{name} (JIT)"));
        assert_close(
            &[&got],
            &[interpreted[*name].clone()],
            &format!("{name} (interpreter)"),
        );
    }
}

#[test]
fn an_included_resnet_runs_ahead_of_time_as_on_the_jit() {
    let mut net = Resnet18::new(init);
    let data: Vec<f32> = (0..3 * 224 * 224)
        .map(|i| ((i % 251) as f32) / 251.0 - 0.5)
        .collect();
    let got = net.forward(&[&data]).unwrap();
    let param = |n: &str| values_of([Resnet18::PARAMS, Resnet18::AUX], n);
    let want = jit_outputs(
        &Resnet18::symbol(),
        Resnet18::INPUTS,
        std::slice::from_ref(&data),
        &param,
    );
    assert_close(&got, &want, "resnet18_v1");
    // A 3x3 convolution's weight changed (Winograd keeps its transform until the
    // parameters change): the next pass uses the new one.
    let changed = "resnetv10_stage1_conv0_weight";
    net.param_mut(changed)
        .unwrap()
        .iter_mut()
        .for_each(|w| *w *= -0.5);
    let got = net.forward(&[&data]).unwrap();
    let param = |n: &str| {
        let mut v = values_of([Resnet18::PARAMS, Resnet18::AUX], n);
        if n == changed {
            v.iter_mut().for_each(|w| *w *= -0.5);
        }
        v
    };
    let want = jit_outputs(
        &Resnet18::symbol(),
        Resnet18::INPUTS,
        std::slice::from_ref(&data),
        &param,
    );
    assert_close(&got, &want, "resnet18_v1, a weight changed");
}

#[test]
fn ahead_of_time_gradients_and_steps_match_the_jit_and_the_interpreter() {
    let mut lenet = LeNet::new(init);
    let data: Vec<f32> = (0..64 * 784).map(|i| ((i % 89) as f32) / 89.0).collect();
    let labels: Vec<f32> = (0..64).map(|i| ((i * 7) % 10) as f32).collect();
    lenet.forward_train(&[&data, &labels]).unwrap();
    lenet.backward().unwrap();
    let param = |n: &str| values_of([LeNet::PARAMS, LeNet::AUX], n);
    let refs = reference_grads(
        &LeNet::symbol(),
        LeNet::INPUTS,
        &[&data, &labels],
        LeNet::PARAMS,
        &param,
    );
    assert_grads(&|n| lenet.grad(n).unwrap().to_vec(), LeNet::PARAMS, refs);
    // One SGD step: w − lr·g/batch, from the gradient at the same weights.
    let g = lenet.grad("fc2_weight").unwrap().to_vec();
    let w = lenet.param("fc2_weight").unwrap().to_vec();
    lenet.train_step(&[&data, &labels], 0.1).unwrap();
    let stepped = lenet.param("fc2_weight").unwrap();
    for ((s, w), g) in stepped.iter().zip(&w).zip(&g) {
        assert!(
            (s - (w - 0.1 * g / 64.0)).abs() <= 1e-6,
            "{s} vs {w} - step·{g}"
        );
    }
}

kiln::include_symbol!(
    Resblock = "tests/fixtures/train/ckpt/mxnet_resblock-symbol.json",
    data = [2, 4, 6, 6],
    softmax_label = [2],
);

#[test]
fn an_mxnet_checkpoint_runs_ahead_of_time_as_in_mxnet() {
    use kiln::compiler::formats::params::read_params;
    let dir = "tests/fixtures/train/ckpt";
    let mut net = Resblock::new(|_, _, _| {});
    net.load_params(format!("{dir}/mxnet_resblock-0003.params"))
        .unwrap();
    let expected = read_params(format!("{dir}/mxnet_resblock-expected.params")).unwrap();
    let data: Vec<f32> = expected
        .get("data")
        .unwrap()
        .data
        .iter()
        .map(|&v| v as f32)
        .collect();
    let want: Vec<f32> = expected
        .get("out:0")
        .unwrap()
        .data
        .iter()
        .map(|&v| v as f32)
        .collect();
    let got = net.forward(&[&data, &[0.0, 0.0]]).unwrap()[0].to_vec();
    assert_close(&[&got], &[want], "MXNet's resblock checkpoint");
    // Saved and read back: the same values.
    let path = std::env::temp_dir().join(format!("kiln-aot-{}.params", std::process::id()));
    net.save_params(&path).unwrap();
    let mut again = Resblock::new(|_, _, _| {});
    again.load_params(&path).unwrap();
    std::fs::remove_file(&path).ok();
    for (name, _) in Resblock::PARAMS.iter().chain(Resblock::AUX) {
        assert_eq!(again.param(name), net.param(name), "{name}");
    }
    // A file without the network's arrays is an error naming what is missing.
    let err = again
        .load_params(format!("{dir}/mxnet_resblock-expected.params"))
        .unwrap_err();
    assert!(
        err.to_string().contains("no array `arg:conv1_weight`"),
        "{err}"
    );
    let plan = Resblock::memory_plan();
    assert!(
        plan.training > plan.inference && plan.inference > 0,
        "{plan:?}"
    );
}

kiln::network! {
    /// A small MLP for the interpreter comparison.
    SmallMlp(batch = 8) {
        input data: [batch, 20];
        input softmax_label: [batch];
        let fc1 = FullyConnected(data, num_hidden = 16);
        let relu1 = Activation(fc1, act_type = "relu");
        let fc2 = FullyConnected(relu1, num_hidden = 5);
        output softmax = SoftmaxOutput(fc2, softmax_label);
    }
}

#[test]
fn an_mlp_ahead_of_time_matches_the_jit_and_the_interpreter() {
    let mut mlp = SmallMlp::new(init);
    let data: Vec<f32> = (0..8 * 20).map(|i| ((i as f32) * 0.13).cos()).collect();
    let labels: Vec<f32> = (0..8).map(|i| (i % 5) as f32).collect();
    let out = mlp.forward(&[&data, &labels]).unwrap()[0].to_vec();
    let param = |n: &str| values_of([SmallMlp::PARAMS, SmallMlp::AUX], n);
    let inputs = [data.clone(), labels.clone()];
    let want = jit_outputs(&SmallMlp::symbol(), SmallMlp::INPUTS, &inputs, &param);
    assert_close(&[&out], &want, "mlp output");
    mlp.forward_train(&[&data, &labels]).unwrap();
    mlp.backward().unwrap();
    let refs = reference_grads(
        &SmallMlp::symbol(),
        SmallMlp::INPUTS,
        &[&data, &labels],
        SmallMlp::PARAMS,
        &param,
    );
    assert_grads(&|n| mlp.grad(n).unwrap().to_vec(), SmallMlp::PARAMS, refs);
}

kiln::include_symbol!(
    Resnet18Train = "tests/fixtures/kiln_written/resnet18_v1_softmax-symbol.json",
    data = [2, 3, 64, 64],
    softmax_label = [2],
);

/// He-uniform weights from a hash of the name and index, BatchNorm at identity: a deep
/// network whose activations and gradients stay of order one.
fn he_init(name: &str, shape: &[usize], values: &mut [f32]) {
    let fan_in = shape.iter().skip(1).product::<usize>().max(1) as f32;
    let salt = name
        .bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
    for (i, v) in values.iter_mut().enumerate() {
        let h = (i as u64 ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let u = (h >> 40) as f32 / (1u64 << 24) as f32;
        *v = if name.ends_with("_var") || name.ends_with("_gamma") {
            1.0
        } else if name.ends_with("_mean") || name.ends_with("_beta") || name.ends_with("_bias") {
            0.0
        } else {
            (2.0 * u - 1.0) * (6.0 / fan_in).sqrt()
        };
    }
}

#[test]
fn resnet18_gradients_ahead_of_time_match_the_jit_and_the_interpreter() {
    let param = |n: &str| {
        let tables = [Resnet18Train::PARAMS, Resnet18Train::AUX].concat();
        let shape = tables.into_iter().find(|(m, _)| *m == n).unwrap().1;
        let mut v = vec![0.0; shape.iter().product()];
        he_init(n, shape, &mut v);
        v
    };
    let mut net = Resnet18Train::new(he_init);
    let data: Vec<f32> = (0..2 * 3 * 64 * 64)
        .map(|i| ((i * 7919 % 1000) as f32) / 500.0 - 1.0)
        .collect();
    let labels = [3.0f32, 7.0];
    net.forward_train(&[&data, &labels]).unwrap();
    net.backward().unwrap();
    let (symbol, inputs, params) = (
        Resnet18Train::symbol(),
        Resnet18Train::INPUTS,
        Resnet18Train::PARAMS,
    );
    let refs = reference_grads(&symbol, inputs, &[&data, &labels], params, &param);
    assert_grads(&|n| net.grad(n).unwrap().to_vec(), params, refs);
}

kiln::network! {
    /// A layer whose output is not a loss: no training code.
    Scaled(batch = 2) {
        input x: [batch, 3];
        let fc = FullyConnected(x, num_hidden = 2);
        output y = fc * 2.0;
    }
}

kiln::network! {
    /// A network computing in f64, which ahead-of-time code does not cover.
    Doubles(batch = 2) {
        input x: [batch, 3];
        output y = Cast(x, dtype = "float64") * 2.0;
    }
}

#[test]
fn a_network_without_ahead_of_time_or_training_code_says_why() {
    assert_eq!(Shared::AHEAD_OF_TIME, Ok(()));
    // An output that is not a loss: inference code, and why there is no training code.
    let why = Scaled::TRAINING.unwrap_err();
    assert!(why.contains("not a loss"), "{why}");
    let mut scaled = Scaled::new(|_, _, values| values.fill(0.5));
    // (3 · 0.5 + 0.5) · 2 in every output.
    assert_eq!(scaled.forward(&[&[1.0; 6]]).unwrap()[0], [4.0; 4]);
    assert_eq!(SmallMlp::TRAINING, Ok(()));
    let why = Doubles::AHEAD_OF_TIME.unwrap_err();
    assert!(why.contains("f32 networks only"), "{why}");
    let exe = Doubles::simple_bind(
        kiln::runtime::Device::Cpu,
        kiln::runtime::GradReqs::All(kiln::compiler::autodiff::GradReq::Null),
    )
    .unwrap();
    exe.arg_arrays()[0]
        .copy_from(
            &kiln::runtime::NDArray::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])
                .unwrap(),
        )
        .unwrap();
    exe.forward(false);
    let y = exe.outputs()[0].to_tensor().unwrap();
    assert_eq!(y.dtype, DType::F64);
    assert_eq!(y.data, [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
}

kiln::network! {
    /// Dropout while training: every pass draws its own mask.
    Dropped(batch = 4) {
        input data: [batch, 16];
        input softmax_label: [batch];
        let fc = FullyConnected(data, num_hidden = 8);
        let drop = Dropout(fc, p = 0.5);
        output softmax = SoftmaxOutput(drop, softmax_label);
    }
}

#[test]
fn dropout_draws_a_new_mask_on_every_training_pass() {
    let mut net = Dropped::new(|_, _, values| {
        for (i, v) in values.iter_mut().enumerate() {
            *v = 0.05 * (i % 7) as f32 + 0.01;
        }
    });
    let (data, labels) = (vec![1.0f32; 64], [0.0f32; 4]);
    let mut train = || net.forward_train(&[&data, &labels]).unwrap()[0].to_vec();
    let (first, second) = (train(), train());
    assert_ne!(first, second, "the same mask twice");
    // Inference has no dropout: the same outputs every time.
    let once = net.forward(&[&data, &labels]).unwrap()[0].to_vec();
    assert_eq!(once, net.forward(&[&data, &labels]).unwrap()[0].to_vec());
}

kiln::network! {
    /// BatchNorm on its moving statistics while training: a step leaves them as they were.
    Frozen(batch = 2) {
        input data: [batch, 3, 4, 4];
        input softmax_label: [batch];
        let conv = Convolution(data, kernel = (3, 3), num_filter = 2);
        let bn = BatchNorm(conv, use_global_stats = true, fix_gamma = false);
        let fc = FullyConnected(bn, num_hidden = 3);
        output softmax = SoftmaxOutput(fc, softmax_label);
    }
}

#[test]
fn a_training_step_keeps_global_statistics() {
    let mut net = Frozen::new(|name, _, values| {
        for (i, v) in values.iter_mut().enumerate() {
            *v = if name.ends_with("var") {
                1.5
            } else {
                0.1 * (i % 5) as f32
            };
        }
    });
    let before = net.param("bn_moving_mean").unwrap().to_vec();
    let data: Vec<f32> = (0..96).map(|i| (i as f32 * 0.37).sin()).collect();
    net.train_step(&[&data, &[0.0, 2.0]], 0.1).unwrap();
    assert_eq!(net.param("bn_moving_mean").unwrap(), &before[..]);
    assert!(net.grad("conv_weight").unwrap().iter().any(|g| *g != 0.0));
}
