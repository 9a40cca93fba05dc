//! The autodiff pass on graphs of element-wise operators (every operator's own rule is
//! checked against finite differences in kiln-ops; composite nets against MXNet in the
//! root tests).

use kiln_compiler::autodiff::{differentiate, GradReq};
use kiln_compiler::{interpret, RunOptions, Symbol};
use kiln_ops::{DType, Tensor};
use std::collections::HashMap;

fn t(data: &[f64]) -> Tensor {
    Tensor::new(DType::F64, vec![data.len()], data.to_vec())
}

fn reqs(kv: &[(&str, GradReq)]) -> HashMap<String, GradReq> {
    kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn multi_use_gradients_are_summed() {
    let (a, b) = (Symbol::var("a"), Symbol::var("b"));
    let y = &(&a * &b) + &a; // dy/da = b + 1, dy/db = a
    let g = y.to_graph().unwrap();
    let tg = differentiate(
        &g,
        &reqs(&[("a", GradReq::Write), ("b", GradReq::Write)]),
        true,
    )
    .unwrap();
    let head = tg.head_grads[0].expect("a non-loss output takes a head gradient");
    let head_name = tg.graph.node(head).name.clone();
    let inputs = HashMap::from([
        ("a".to_string(), t(&[1.0, 2.0])),
        ("b".to_string(), t(&[3.0, -4.0])),
        (head_name, t(&[1.0, 0.5])),
    ]);
    let out = interpret(
        &tg.graph,
        &inputs,
        RunOptions {
            is_train: true,
            seed: 0,
        },
    )
    .unwrap();
    assert_eq!(out[0].data, vec![4.0, -6.0]);
    assert_eq!(out[1].data, vec![4.0, -1.5], "d/da = (b + 1) * head");
    assert_eq!(out[2].data, vec![1.0, 1.0], "d/db = a * head");
    let ops: Vec<&str> = tg
        .graph
        .node_ids()
        .skip(g.len())
        .map(|id| tg.graph.node(id).op_name())
        .collect();
    assert!(ops.contains(&"add_n"), "{ops:?}");
}

#[test]
fn only_requested_gradients_are_built() {
    let (a, b) = (Symbol::var("a"), Symbol::var("b"));
    let y = (&a + 1.0) * b.clone();
    let g = y.to_graph().unwrap();
    let tg = differentiate(
        &g,
        &reqs(&[("a", GradReq::Write), ("b", GradReq::Null)]),
        true,
    )
    .unwrap();
    assert_eq!(tg.grads.len(), 1);
    // d/da needs the multiply's gradient wrt its first input only: no node computes d/db.
    let backward: Vec<String> = tg
        .graph
        .node_ids()
        .skip(g.len())
        .map(|id| {
            tg.graph
                .node(id)
                .attrs
                .get("wrt")
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    assert!(!backward.contains(&"1".to_string()), "{backward:?}");
    // An argument no gradient reaches gets zeros; a grad_req for a non-argument is an error.
    let c = Symbol::var("c");
    let blocked = &a
        + &kiln_compiler::builders::block_grad()
            .data(&c)
            .build()
            .unwrap();
    let tg = differentiate(
        &blocked.to_graph().unwrap(),
        &reqs(&[("c", GradReq::Write)]),
        true,
    )
    .unwrap();
    assert_eq!(tg.graph.node(tg.grad_entry(0).node).op_name(), "zeros_like");
    let e = differentiate(&g, &reqs(&[("nope", GradReq::Write)]), true)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "grad_req names `nope`, which is not an argument");
}

#[test]
fn block_grad_stops_and_non_differentiable_operators_are_named() {
    let a = Symbol::var("a");
    let stopped = kiln_compiler::builders::block_grad()
        .data(&(&a * 2.0))
        .build()
        .unwrap();
    let y = &stopped + &a;
    let g = y.to_graph().unwrap();
    let tg = differentiate(&g, &reqs(&[("a", GradReq::Write)]), true).unwrap();
    let head_name = tg.graph.node(tg.head_grads[0].unwrap()).name.clone();
    let inputs = HashMap::from([("a".to_string(), t(&[5.0])), (head_name, t(&[1.0]))]);
    let out = interpret(
        &tg.graph,
        &inputs,
        RunOptions {
            is_train: true,
            seed: 0,
        },
    )
    .unwrap();
    assert_eq!(
        out[1].data,
        vec![1.0],
        "only the direct path carries a gradient"
    );
    // A gradient through a non-differentiable operator is an error naming it.
    let like = Symbol::var("like");
    let reduced = Symbol::op("_broadcast_backward")
        .arg(&(&a * 3.0))
        .arg(&like)
        .name("reduce")
        .build()
        .unwrap();
    let e = differentiate(
        &reduced.to_graph().unwrap(),
        &reqs(&[("a", GradReq::Write)]),
        true,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("_broadcast_backward `reduce`: cannot differentiate"),
        "{e}"
    );
    // ... but one that no requested gradient passes through is fine.
    assert!(differentiate(
        &reduced.to_graph().unwrap(),
        &reqs(&[("like", GradReq::Null)]),
        true
    )
    .is_ok());
}
