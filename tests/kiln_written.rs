//! Files kiln writes for MXNet (symbol JSON, `.params`, `.npy`) stay byte for byte what was
//! checked once in MXNet 1.9.1 by tests/fixtures/kiln_written/check_in_mxnet.py.
//! `KILN_UPDATE_FIXTURES=1 cargo test --test kiln_written` rewrites them (then rerun the script).

mod common;

use common::fixture;
use kiln::compiler::formats::{npy, params};
use kiln::compiler::{interpret, ParamFile, RunOptions};
use kiln::models::weights;
use kiln::{sym, Symbol, Tensor};
use std::collections::HashMap;

/// conv → BatchNorm → relu → max-pool → flatten → fc → softmax, with every kind of node
/// the writer must handle (auto-created weights, aux states, hidden outputs, a loss head).
fn net() -> Symbol {
    let data = Symbol::var("data");
    let conv = sym::convolution()
        .data(&data)
        .kernel(&[3, 3])
        .pad(&[1, 1])
        .num_filter(4)
        .name("conv1")
        .build()
        .unwrap();
    let bn = sym::batch_norm()
        .data(&conv)
        .fix_gamma(false)
        .eps(1e-5)
        .name("bn1")
        .build()
        .unwrap();
    let act = sym::activation()
        .data(&bn)
        .act_type("relu")
        .name("relu1")
        .build()
        .unwrap();
    let pool = sym::pooling()
        .data(&act)
        .kernel(&[2, 2])
        .stride(&[2, 2])
        .pool_type("max")
        .name("pool1")
        .build()
        .unwrap();
    let flat = sym::flatten().data(&pool).name("flat").build().unwrap();
    let fc = sym::fully_connected()
        .data(&flat)
        .num_hidden(10)
        .name("fc1")
        .build()
        .unwrap();
    sym::softmax_output()
        .data(&fc)
        .name("softmax")
        .build()
        .unwrap()
}

fn files() -> Vec<(&'static str, Vec<u8>)> {
    let net = net();
    let shape = [2, 3, 8, 8];
    let shapes = net.infer_shape(&[("data", &shape)]).unwrap();
    let mut checkpoint = ParamFile::default();
    let mut values: HashMap<String, Tensor> = HashMap::new();
    let args = net
        .list_arguments()
        .into_iter()
        .zip(&shapes.arguments)
        .map(|(n, s)| ("arg", n, s));
    let aux = net
        .list_auxiliary_states()
        .into_iter()
        .zip(&shapes.aux_states)
        .map(|(n, s)| ("aux", n, s));
    for (kind, name, s) in args.chain(aux) {
        if name == "data" || name == "softmax_label" {
            continue;
        }
        let t = weights::parameter(&name, s);
        checkpoint.names.push(format!("{kind}:{name}"));
        checkpoint.arrays.push(t.clone());
        values.insert(name, t);
    }
    let input = weights::input("data", &shape);
    values.insert("data".into(), input.clone());
    values.insert(
        "softmax_label".into(),
        Tensor::zeros(kiln::DType::F32, vec![2]),
    );
    let out = interpret(&net.to_graph().unwrap(), &values, RunOptions::default()).unwrap();
    vec![
        ("net-symbol.json", net.to_json().unwrap().into_bytes()),
        ("net-0000.params", params::save_params(&checkpoint).unwrap()),
        ("input.npy", npy::save_npy(&input)),
        ("output.npy", npy::save_npy(&out[0])),
    ]
}

#[test]
fn kiln_still_writes_what_mxnet_accepted() {
    let update = std::env::var_os("KILN_UPDATE_FIXTURES").is_some();
    for (name, bytes) in files() {
        let path = fixture(&format!("kiln_written/{name}"));
        if update {
            std::fs::write(&path, &bytes).unwrap();
            continue;
        }
        let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            committed == bytes,
            "{name} differs from the file checked in MXNet (see this test's docs)"
        );
    }
}
