//! The Symbol API against MXNet's behaviour (naming, listing, composition errors).

use kiln_compiler::formats::json::{load_json, save_json};
use kiln_compiler::{builders as sym, interpret, DType, RunOptions, Symbol, Tensor};
use std::collections::HashMap;

#[test]
fn arithmetic_creates_mxnet_nodes() {
    let a = Symbol::var("a");
    let b = Symbol::var("b");
    let y = &(&a * &b) + 1.0;
    let g = y.to_graph().unwrap();
    let ops: Vec<&str> = g.node_ids().map(|id| g.node(id).op_name()).collect();
    assert_eq!(ops, ["null", "null", "elemwise_mul", "_plus_scalar"]);
    assert_eq!(y.list_arguments(), ["a", "b"]);
    assert!(y.name().unwrap().starts_with("_plusscalar"));
    assert!(y.list_outputs()[0].ends_with("_output"));
    let z = 2.0 - &a;
    assert_eq!(
        z.to_graph()
            .unwrap()
            .node(kiln_compiler::NodeId::new(1))
            .op_name(),
        "_rminus_scalar"
    );
}

#[test]
fn interprets_a_times_b_plus_one() {
    let (a, b) = (Symbol::var("a"), Symbol::var("b"));
    let y = &a * &b + 1.0;
    let inputs = HashMap::from([
        (
            "a".to_string(),
            Tensor::new(DType::F32, vec![3], vec![1.0, 2.0, 3.0]),
        ),
        (
            "b".to_string(),
            Tensor::new(DType::F32, vec![3], vec![4.0, 5.0, -6.0]),
        ),
    ]);
    let out = interpret(&y.to_graph().unwrap(), &inputs, RunOptions::default()).unwrap();
    assert_eq!(out[0].data, vec![5.0, 11.0, -17.0]);
    assert_eq!(out[0].dtype, DType::F32);
}

#[test]
fn interpreter_rounds_to_every_storage_dtype() {
    let a = Symbol::var("a");
    let y = &a / 3.0;
    for dtype in [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::I32,
        DType::I64,
        DType::I8,
        DType::U8,
    ] {
        let inputs = HashMap::from([(
            "a".to_string(),
            Tensor::new(dtype, vec![2], vec![7.0, 100.0]),
        )]);
        let out = interpret(&y.to_graph().unwrap(), &inputs, RunOptions::default()).unwrap();
        assert_eq!(out[0].dtype, dtype);
        let want = [7.0, 100.0].map(|x: f64| dtype.round(x / 3.0));
        assert_eq!(out[0].data, want, "{dtype}");
    }
}

#[test]
fn partial_and_full_shape_inference() {
    let a = Symbol::variable("a").shape(&[2, 0]).build();
    let b = Symbol::var("b");
    let y = &a + &b;
    let s = y.infer_shape_partial(&[]).unwrap();
    assert_eq!(s.arguments, vec![vec![2, 0], vec![2, 0]]);
    let err = y.infer_shape(&[]).unwrap_err().to_string();
    assert!(
        err.contains("cannot infer the shapes of: a=(2, ?), b=(2, ?)"),
        "{err}"
    );
    let s = y.infer_shape(&[("b", &[2, 5])]).unwrap();
    assert_eq!(s.outputs, vec![vec![2, 5]]);
    let err = y.infer_shape(&[("b", &[3, 5])]).unwrap_err().to_string();
    assert!(
        err.contains("elemwise_add") && err.contains("(3, 5)") && err.contains("(2, ?)"),
        "{err}"
    );
}

#[test]
fn dtype_inference_defaults_to_float32() {
    let a = Symbol::var("a");
    let y = sym::cast()
        .data(&(&a + 1.0))
        .dtype(DType::F16)
        .build()
        .unwrap();
    let (args, outs, aux) = y.infer_type(&[]).unwrap();
    assert_eq!(
        (args, outs, aux),
        (vec![DType::F32], vec![DType::F16], vec![])
    );
    let (args, _, _) = y.infer_type(&[("a", DType::F64)]).unwrap();
    assert_eq!(args, vec![DType::F64]);
}

#[test]
fn composition_errors_name_node_and_argument() {
    let a = Symbol::var("a");
    let e = Symbol::op("elemwise_ad")
        .arg(&a)
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("unknown operator `elemwise_ad`"), "{e}");
    let e = Symbol::op("_plus_scalar")
        .arg(&a)
        .attr("scalr", 1)
        .name("p")
        .build()
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "_plus_scalar `p`: unknown attribute `scalr` (valid: scalar, is_int)"
    );
    let e = Symbol::op("_plus_scalar")
        .arg(&a)
        .attr("scalar", "x")
        .name("p")
        .build()
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "_plus_scalar `p`: attribute `scalar` = \"x\" is not a valid float"
    );
    let e = Symbol::op("relu")
        .arg(&a)
        .arg(&a)
        .name("r")
        .build()
        .unwrap_err()
        .to_string();
    assert_eq!(e, "relu `r`: takes 1 inputs (data) but 2 were given");
    let e = Symbol::op("relu")
        .input("x", &a)
        .name("r")
        .build()
        .unwrap_err()
        .to_string();
    assert_eq!(e, "relu `r`: has no input `x` (inputs: data)");
    let pair = Symbol::group(&[a.clone(), a.clone()]);
    let bad = &pair + 1.0;
    let e = bad.to_json().unwrap_err().to_string();
    assert!(
        e.contains("must be a single output, but the symbol given has 2"),
        "{e}"
    );
}

#[test]
fn variables_carry_hidden_attributes_and_provenance() {
    let w = Symbol::variable("w")
        .shape(&[3, 4])
        .dtype(DType::F16)
        .lr_mult(2.0)
        .wd_mult(0.0)
        .init("zero")
        .build();
    assert_eq!(w.attr("__shape__"), Some("(3, 4)"));
    assert_eq!(w.attr("__dtype__"), Some("2"));
    assert_eq!(w.attr("__lr_mult__"), Some("2.0"));
    assert_eq!(w.attr("__init__"), Some("[\"zero\", {}]"));
    let y = &w * 2.0;
    let g = y.to_graph().unwrap();
    let prov = g.node(g.heads[0].node).provenance.to_string();
    assert!(prov.contains("symbol.rs:"), "{prov}");
    assert_eq!(y.attr_dict()["w"]["__wd_mult__"], "0.0");
}

#[test]
fn internals_children_and_indexing() {
    let a = Symbol::var("a");
    let r = Symbol::op("relu").arg(&a).name("r").build().unwrap();
    let y = Symbol::op("_mul_scalar")
        .arg(&r)
        .attr("scalar", 2)
        .name("m")
        .build()
        .unwrap();
    let internals = y.get_internals();
    assert_eq!(internals.list_outputs(), ["a", "r_output", "m_output"]);
    assert_eq!(internals.get("r_output").unwrap().name(), Some("r"));
    assert_eq!(y.get_children().unwrap().list_outputs(), ["r_output"]);
    assert!(a.get_children().is_none());
    let e = internals.output(5).unwrap_err().to_string();
    assert!(e.contains("out of range"), "{e}");
}

#[test]
fn json_round_trip_is_stable() {
    let a = Symbol::variable("a").shape(&[2, 3]).build();
    let y = Symbol::op("_div_scalar")
        .arg(&(&a + &a))
        .attr("scalar", 3)
        .name("d")
        .build()
        .unwrap();
    let text = save_json(&y).unwrap();
    let back = load_json(&text).unwrap();
    assert_eq!(save_json(&back).unwrap(), text);
    assert_eq!(back.list_arguments(), ["a"]);
}

#[test]
fn a_deep_symbol_builds_converts_and_drops_without_recursion() {
    // A chain far deeper than the call stack could hold one frame per node for.
    let mut y = Symbol::var("x");
    for _ in 0..200_000 {
        y = Symbol::op("negative").args([&y]).build().unwrap();
    }
    let g = y.to_graph().unwrap();
    assert_eq!(g.len(), 200_001);
    drop(g);
    drop(y);
}
