//! Symbol JSON against files written by MXNet 1.9.1 (tests/fixtures/json, made by make.py).

use kiln_compiler::formats::json::load_json;
use kiln_compiler::{Error, Symbol};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../tests/fixtures/json/{name}-symbol.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn mxnet_files_round_trip_byte_for_byte() {
    for name in ["fc_bn_softmax", "grouped"] {
        let text = fixture(name);
        let sym = load_json(&text).unwrap();
        assert_eq!(sym.to_json().unwrap(), text, "{name}");
    }
}

#[test]
fn lists_follow_mxnet() {
    let sym = load_json(&fixture("fc_bn_softmax")).unwrap();
    assert_eq!(
        sym.list_arguments(),
        [
            "data",
            "fc_weight",
            "fc_bias",
            "bn_gamma",
            "bn_beta",
            "sm_label"
        ]
    );
    assert_eq!(
        sym.list_auxiliary_states(),
        ["bn_moving_mean", "bn_moving_var"]
    );
    assert_eq!(sym.list_outputs(), ["sm_output"]);
    let s = sym.infer_shape(&[("data", &[4, 7])]).unwrap();
    assert_eq!(
        s.arguments,
        vec![
            vec![4, 7],
            vec![10, 7],
            vec![10],
            vec![10],
            vec![10],
            vec![4]
        ]
    );
    assert_eq!(s.aux_states, vec![vec![10], vec![10]]);
}

#[test]
fn building_the_same_net_writes_the_same_json() {
    let data = Symbol::var("data");
    let fc = Symbol::op("FullyConnected")
        .arg(&data)
        .attr("num_hidden", 10)
        .name("fc")
        .build()
        .unwrap();
    let bn = Symbol::op("BatchNorm")
        .arg(&fc)
        .attr("eps", "1e-05")
        .name("bn")
        .build()
        .unwrap();
    let plus = Symbol::op("_plus_scalar")
        .arg(&bn)
        .attr("scalar", 1)
        .name("_plusscalar0")
        .build()
        .unwrap();
    let sm = Symbol::op("SoftmaxOutput")
        .arg(&plus)
        .name("sm")
        .build()
        .unwrap();
    assert_eq!(sm.to_json().unwrap(), fixture("fc_bn_softmax"));
}

#[test]
fn legacy_files_are_upgraded() {
    // An MXNet 0.8-era file: `param`/`attr` keys, 2-element inputs, no aux inputs on BatchNorm,
    // `lr_mult` on the variable and `weight_lr_mult` on the operator.
    let text = r#"{
      "nodes": [
        {"op": "null", "param": {}, "name": "data", "inputs": [], "backward_source_id": -1, "attr": {"lr_mult": "0.5"}},
        {"op": "null", "param": {}, "name": "fc_weight", "inputs": [], "backward_source_id": -1},
        {"op": "null", "param": {}, "name": "fc_bias", "inputs": [], "backward_source_id": -1},
        {"op": "FullyConnected", "param": {"no_bias": "False", "num_hidden": "4"}, "name": "fc",
         "inputs": [[0, 0], [1, 0], [2, 0]], "backward_source_id": -1, "attr": {"weight_lr_mult": "2"}},
        {"op": "null", "param": {}, "name": "bn_gamma", "inputs": [], "backward_source_id": -1},
        {"op": "null", "param": {}, "name": "bn_beta", "inputs": [], "backward_source_id": -1},
        {"op": "BatchNorm", "param": {"eps": "0.001", "fix_gamma": "True", "momentum": "0.9", "use_global_stats": "False"},
         "name": "bn", "inputs": [[3, 0], [4, 0], [5, 0]], "backward_source_id": -1}
      ],
      "arg_nodes": [0, 1, 2, 4, 5],
      "heads": [[6, 0]]
    }"#;
    let sym = load_json(text).unwrap();
    assert_eq!(
        sym.list_auxiliary_states(),
        ["bn_moving_mean", "bn_moving_var"]
    );
    let attrs = sym.attr_dict();
    assert_eq!(attrs["data"]["__lr_mult__"], "0.5");
    assert_eq!(attrs["fc_weight"]["__lr_mult__"], "2");
    assert!(!attrs["fc"].contains_key("weight_lr_mult"));
    assert_eq!(attrs["bn_moving_var"]["__init__"], "[\"one\", {}]");
}

#[test]
fn all_unsupported_operators_are_reported_at_once() {
    let text = r#"{"nodes": [
        {"op": "null", "name": "x", "inputs": []},
        {"op": "_foo", "name": "a", "inputs": [[0, 0, 0]]},
        {"op": "relu", "name": "r", "inputs": [[1, 0, 0]]},
        {"op": "_bar", "name": "b", "inputs": [[2, 0, 0]]}
      ], "arg_nodes": [0], "heads": [[3, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}"#;
    let e = load_json(text).unwrap_err();
    assert!(matches!(e, Error::UnsupportedOperators(ref v) if v.len() == 2));
    assert_eq!(
        e.to_string(),
        "unsupported operators: `_foo` (node `a`), `_bar` (node `b`)"
    );
}

#[test]
fn malformed_files_give_clear_errors() {
    let cases = [
        ("{", "not valid JSON"),
        (r#"{"heads": []}"#, "no `nodes` array"),
        (
            r#"{"nodes": [{"op": "relu", "name": "r", "inputs": [[0, 0, 0]]}], "heads": [[0, 0, 0]]}"#,
            "does not come before it",
        ),
        (
            r#"{"nodes": [{"op": "null", "name": "x", "inputs": []}], "heads": [[0, 3, 0]]}"#,
            "has 1 outputs, not 4",
        ),
        (
            r#"{"nodes": [{"op": "null", "name": "x", "inputs": []}, {"op": "relu", "name": "r", "inputs": [[0, 0, 0]], "attrs": {"slope": "1"}}], "heads": [[1, 0, 0]]}"#,
            "relu `r`: unknown attribute `slope`",
        ),
        (
            r#"{"nodes": [{"op": "null", "name": "x", "inputs": [], "attrs": {"__storage_type__": "2"}}], "heads": [[0, 0, 0]]}"#,
            "sparse storage",
        ),
        (
            r#"{"nodes": [{"op": "_foreach", "name": "f", "inputs": [], "subgraphs": [{}]}], "heads": [[0, 0, 0]]}"#,
            "control-flow operators are not supported",
        ),
        (
            r#"{"nodes": [{"op": "null", "name": "x", "inputs": []}, {"op": "elemwise_add", "name": "a", "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}"#,
            "elemwise_add `a`: has 1 inputs but takes 2 (lhs, rhs)",
        ),
    ];
    for (text, want) in cases {
        let e = load_json(text).unwrap_err().to_string();
        assert!(e.contains(want), "{e:?} should contain {want:?}");
    }
}
