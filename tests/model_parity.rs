//! Real models exported from MXNet 1.9.1's Gluon model zoo, with weights from the
//! deterministic formula (kiln_models::weights), give MXNet's outputs within 1e-4 relative
//! to the output scale (tests/fixtures/models, made by make_fixtures.py): on the reference
//! interpreter, and through a bound executor on its default backend (the JIT).

mod common;

use common::{compare, fixture, params};
use kiln::compiler::autodiff::GradReq;
use kiln::compiler::{interpret, RunOptions};
use kiln::models::weights;
use kiln::runtime::{Device, Executor, GradReqs, NDArray};
use kiln::{Symbol, Tensor};
use serde::Deserialize;
use std::collections::HashMap;

#[derive(Deserialize)]
struct Recorded {
    name: String,
    shape: Vec<usize>,
    fnv1a64: String,
}

#[derive(Deserialize)]
struct WeightsFile {
    input: Recorded,
    params: Vec<Recorded>,
}

fn check_model(name: &str) {
    let sym = Symbol::load(fixture(&format!("models/{name}-symbol.json"))).unwrap();
    let io = params(&format!("models/{name}-io.params"));
    let data = io.get("data").expect("io has data").clone();
    let text = std::fs::read_to_string(fixture(&format!("models/{name}-weights.json"))).unwrap();
    let recorded: WeightsFile = serde_json::from_str(&text).unwrap();
    // The formula reproduces MXNet's inputs and weights bit for bit.
    let input = weights::input("data", &data.shape);
    assert_eq!(input, data, "{name}: input");
    assert_eq!(
        format!("{:016x}", weights::fingerprint(&input)),
        recorded.input.fnv1a64
    );
    let shapes = sym.infer_shape(&[("data", &data.shape)]).unwrap();
    let names = sym
        .list_arguments()
        .into_iter()
        .chain(sym.list_auxiliary_states());
    let all_shapes = shapes.arguments.iter().chain(&shapes.aux_states);
    let mut values: HashMap<String, Tensor> = HashMap::new();
    for (n, s) in names.zip(all_shapes) {
        if n != "data" {
            values.insert(n.clone(), weights::parameter(&n, s));
        }
    }
    for r in &recorded.params {
        let t = &values[&r.name];
        assert_eq!(t.shape, r.shape, "{name}: {} shape", r.name);
        assert_eq!(
            format!("{:016x}", weights::fingerprint(t)),
            r.fnv1a64,
            "{name}: {} values",
            r.name
        );
    }
    values.insert("data".into(), data.clone());
    let out = interpret(&sym.to_graph().unwrap(), &values, RunOptions::default()).unwrap();
    let want = io.get("out:0").expect("io has out:0");
    if let Some(msg) = compare(&out[0], want, 1e-4) {
        panic!("{name}: {msg}");
    }
    println!(
        "{name}: max |kiln - mxnet| / output scale = {:.2e}",
        out[0].max_rel_diff(want).unwrap()
    );
    // The same through an executor.
    let exe = Executor::simple_bind(
        &sym,
        Device::Cpu,
        &[("data", &data.shape)],
        GradReqs::All(GradReq::Null),
    )
    .unwrap();
    let arrays = |names: Vec<String>| -> HashMap<String, NDArray> {
        names
            .into_iter()
            .map(|n| {
                let a = NDArray::from_tensor(&values[&n], Device::Cpu).unwrap();
                (n, a)
            })
            .collect()
    };
    exe.copy_params_from(
        &arrays(sym.list_arguments()),
        &arrays(sym.list_auxiliary_states()),
        false,
    )
    .unwrap();
    exe.forward(false);
    let got = exe.outputs()[0].to_tensor().unwrap();
    if let Some(msg) = compare(&got, want, 1e-4) {
        panic!("{name} through an executor: {msg}");
    }
    println!(
        "{name} ({:?}, {}): max |kiln - mxnet| / output scale = {:.2e}",
        exe.backend().0,
        exe.inference_units().unwrap(),
        got.max_rel_diff(want).unwrap()
    );
}

#[test]
fn resnet18_v1() {
    check_model("resnet18_v1");
}

#[test]
fn mobilenet0_25() {
    check_model("mobilenet0.25");
}

#[test]
fn squeezenet1_1() {
    check_model("squeezenet1.1");
}

#[test]
fn densenet121() {
    check_model("densenet121");
}

#[test]
fn inception_v3() {
    check_model("inception_v3");
}
