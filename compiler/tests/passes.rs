//! Every pass and every pipeline leaves the interpreter's results unchanged, on random DAGs
//! built to exercise them (duplicates for CSE, identities for simplification, transposes
//! and reshapes that cancel, Dropout/BlockGrad for inference mode), plus targeted checks.

use kiln_compiler::passes::{
    Cse, DuplicateCheap, FoldConstants, InferenceMode, Pass, Pipeline, Prune, Simplify,
};
use kiln_compiler::{interpret, Graph, RunOptions, Symbol};
use kiln_ops::{compare, DType, Tensor};
use proptest::prelude::*;
use std::collections::HashMap;

/// As many outputs, of the same shapes, with the same values to f64 rounding.
fn assert_same_values(got: &[Tensor], want: &[Tensor]) {
    let checked = compare::each(got, want, |g, w| {
        compare::same_shape(&g.shape, &w.shape)?;
        compare::close(&g.data, &w.data, 1e-12)
    });
    if let Err(e) = checked {
        panic!("{e}");
    }
}

/// One step of a random program: an operator applied to earlier values (by index).
#[derive(Clone, Debug)]
enum Step {
    Unary(&'static str, usize),
    Binary(&'static str, usize, usize),
    Scalar(&'static str, f64, usize),
    TransposeTwice(usize),
    ReshapeTwice(usize),
    Same(usize), // repeats an earlier step on the same inputs (CSE fodder)
}

fn step(n: usize) -> impl Strategy<Value = Step> {
    let i = 0..n;
    prop_oneof![
        (
            prop::sample::select(vec![
                "relu",
                "tanh",
                "sigmoid",
                "negative",
                "_copy",
                "BlockGrad",
                "Dropout",
                "square"
            ]),
            i.clone()
        )
            .prop_map(|(op, a)| Step::Unary(op, a)),
        (
            prop::sample::select(vec!["elemwise_add", "elemwise_mul", "elemwise_sub"]),
            i.clone(),
            i.clone()
        )
            .prop_map(|(op, a, b)| Step::Binary(op, a, b)),
        (
            prop::sample::select(vec![
                "_mul_scalar",
                "_plus_scalar",
                "_minus_scalar",
                "_div_scalar"
            ]),
            prop::sample::select(vec![0.0, 1.0, 2.5]),
            i.clone()
        )
            .prop_map(|(op, s, a)| Step::Scalar(op, s, a)),
        i.clone().prop_map(Step::TransposeTwice),
        i.clone().prop_map(Step::ReshapeTwice),
        i.prop_map(Step::Same),
    ]
}

fn program() -> impl Strategy<Value = (Vec<Step>, Vec<usize>)> {
    (2usize..12).prop_flat_map(|len| {
        let steps: Vec<_> = (0..len).map(|k| step(k + 2)).collect();
        (steps, prop::collection::vec(0..len + 2, 1..4))
    })
}

fn build(steps: &[Step], heads: &[usize]) -> Symbol {
    let mut values = vec![Symbol::var("a"), Symbol::var("b")];
    let mut last: Vec<Option<Symbol>> = vec![None, None];
    for s in steps {
        let v = match s {
            Step::Unary(op, a) => Symbol::op(op).arg(&values[*a]).build().unwrap(),
            Step::Binary(op, a, b) => Symbol::op(op)
                .arg(&values[*a])
                .arg(&values[*b])
                .build()
                .unwrap(),
            Step::Scalar(op, k, a) => Symbol::op(op)
                .arg(&values[*a])
                .attr("scalar", k)
                .build()
                .unwrap(),
            Step::TransposeTwice(a) => {
                let t = Symbol::op("transpose")
                    .arg(&values[*a])
                    .attr("axes", "(1, 0)")
                    .build()
                    .unwrap();
                Symbol::op("transpose")
                    .arg(&t)
                    .attr("axes", "(1, 0)")
                    .build()
                    .unwrap()
            }
            Step::ReshapeTwice(a) => {
                let r = Symbol::op("Reshape")
                    .arg(&values[*a])
                    .attr("shape", "(-1,)")
                    .build()
                    .unwrap();
                Symbol::op("Reshape")
                    .arg(&r)
                    .attr("shape", "(3, 4)")
                    .build()
                    .unwrap()
            }
            Step::Same(a) => match &last[*a] {
                Some(sym) => {
                    // The same operator on the same inputs, as a separate node.
                    let g = sym.to_graph().unwrap();
                    let n = g.node(g.heads[0].node);
                    let mut call = Symbol::op(n.op_name());
                    let children = sym.get_children();
                    let kids: Vec<Symbol> = children
                        .map(|c| (0..c.num_outputs()).map(|i| c.output(i).unwrap()).collect())
                        .unwrap_or_default();
                    for k in &kids {
                        call = call.arg(k);
                    }
                    for (key, v) in &n.attrs {
                        call = call.attr(key, v);
                    }
                    call.build()
                        .map(|s| s.output(0).unwrap())
                        .unwrap_or_else(|_| values[*a].clone())
                }
                None => values[*a].clone(),
            },
        };
        let v = v.output(0).unwrap();
        last.push(Some(v.clone()));
        values.push(v);
    }
    Symbol::group(
        &heads
            .iter()
            .map(|&h| values[h.min(values.len() - 1)].clone())
            .collect::<Vec<_>>(),
    )
}

fn inputs() -> HashMap<String, Tensor> {
    let t = |seed: f64| {
        Tensor::new(
            DType::F64,
            vec![3, 4],
            (0..12).map(|i| (i as f64 * 0.37 + seed).sin()).collect(),
        )
    };
    HashMap::from([("a".to_string(), t(0.1)), ("b".to_string(), t(1.7))])
}

/// The results, with NaN made comparable (a random program may divide by zero).
fn run(g: &Graph) -> Vec<Vec<u64>> {
    let out = interpret(g, &inputs(), RunOptions::default()).unwrap();
    out.iter()
        .map(|t| {
            t.data
                .iter()
                .map(|v| if v.is_nan() { u64::MAX } else { v.to_bits() })
                .collect()
        })
        .collect()
}

fn passes() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(Prune),
        Box::new(Simplify),
        Box::new(Cse),
        Box::new(InferenceMode),
        Box::new(DuplicateCheap),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn passes_preserve_results((steps, heads) in program()) {
        let g = build(&steps, &heads).to_graph().unwrap();
        let want = run(&g);
        for pass in passes() {
            let out = pass.run(&g).unwrap();
            prop_assert_eq!(&run(&out.graph), &want, "pass {}", pass.name());
            for (&old, &new) in g.heads.iter().zip(&out.graph.heads) {
                prop_assert_eq!(out.map[old.node.index()][old.index], Some(new));
            }
        }
        for pipeline in [Pipeline::standard(), Pipeline::inference()] {
            let (out, report) = pipeline.run(&g).unwrap();
            prop_assert_eq!(&run(&out.graph), &want);
            prop_assert_eq!(report.timings.len(), pipeline.names().len());
        }
    }
}

#[test]
fn simplifications_remove_what_they_should() {
    let a = Symbol::var("a");
    let t = Symbol::op("transpose")
        .arg(&a)
        .attr("axes", "(1, 0)")
        .build()
        .unwrap();
    let tt = Symbol::op("transpose")
        .arg(&t)
        .attr("axes", "(1, 0)")
        .build()
        .unwrap();
    // x + 0 stays (-0 + 0 is +0); the others are x bit for bit.
    let kept = &a + 0.0;
    let y = &(&(&(&(&tt * 1.0) - 0.0) / 1.0) + (-0.0)) * &kept;
    let twin =
        Symbol::op("relu").arg(&y).build().unwrap() + Symbol::op("relu").arg(&y).build().unwrap();
    let (out, _) = Pipeline::standard().run(&twin.to_graph().unwrap()).unwrap();
    let ops: Vec<&str> = out
        .graph
        .node_ids()
        .map(|id| out.graph.node(id).op_name())
        .collect();
    assert_eq!(
        ops,
        [
            "null",
            "_plus_scalar",
            "elemwise_mul",
            "relu",
            "elemwise_add"
        ],
        "{}",
        out.graph
    );
}

#[test]
fn side_effects_are_never_merged_and_passes_can_be_switched_off() {
    let a = Symbol::var("a");
    let d1 = Symbol::op("Dropout").arg(&a).build().unwrap();
    let d2 = Symbol::op("Dropout").arg(&a).build().unwrap();
    let y = d1.output(0).unwrap() + d2.output(0).unwrap();
    let g = y.to_graph().unwrap();
    let out = Cse.run(&g).unwrap();
    assert_eq!(
        out.graph
            .node_ids()
            .filter(|&id| out.graph.node(id).op_name() == "Dropout")
            .count(),
        2
    );
    let mut p = Pipeline::inference();
    p.disable("inference_mode");
    let (out, report) = p.run(&g).unwrap();
    assert_eq!(report.skipped, ["inference_mode"]);
    assert_eq!(
        out.graph
            .node_ids()
            .filter(|&id| out.graph.node(id).op_name() == "Dropout")
            .count(),
        2
    );
    let (out, _) = Pipeline::inference().run(&g).unwrap();
    assert_eq!(
        out.graph
            .node_ids()
            .filter(|&id| out.graph.node(id).op_name() == "Dropout")
            .count(),
        0
    );
}

#[test]
fn shape_only_subgraphs_fold_to_constants() {
    let x = Symbol::var("a");
    let ones = &Symbol::op("zeros_like").arg(&x).build().unwrap() + 1.0;
    let count = Symbol::op("sum")
        .arg(&ones)
        .attr("axis", 1)
        .attr("keepdims", true)
        .build()
        .unwrap();
    let y = Symbol::op("broadcast_mul")
        .arg(&x)
        .arg(&count)
        .build()
        .unwrap();
    let g = y.to_graph().unwrap();
    let fold = FoldConstants {
        shapes: HashMap::from([("a".to_string(), vec![3, 4])]),
        dtypes: HashMap::from([("a".to_string(), DType::F64)]),
    };
    let out = Prune.run(&fold.run(&g).unwrap().graph).unwrap();
    let ops: Vec<&str> = out
        .graph
        .node_ids()
        .map(|id| out.graph.node(id).op_name())
        .filter(|o| *o != "null")
        .collect();
    assert_eq!(ops, ["broadcast_mul"], "{}", out.graph);
    assert_eq!(out.graph.constants.len(), 1);
    let inputs = HashMap::from([("a".to_string(), inputs()["a"].clone())]);
    let want = interpret(&g, &inputs, RunOptions::default()).unwrap();
    assert_eq!(
        interpret(&out.graph, &inputs, RunOptions::default()).unwrap(),
        want
    );
    assert_eq!(want[0].data[1], inputs["a"].data[1] * 4.0);
}

#[test]
fn softmax_expands_into_operators_that_compute_the_same() {
    use kiln_compiler::passes::Expand;
    let x = Symbol::var("x");
    let heads: Vec<Symbol> = [
        ("softmax", vec![("axis", "1")]),
        ("softmax", vec![("axis", "0"), ("temperature", "2.5")]),
        ("log_softmax", vec![("axis", "-1")]),
        ("log_softmax", vec![("temperature", "0.5")]),
    ]
    .into_iter()
    .map(|(op, attrs)| {
        let mut call = Symbol::op(op).arg(&x);
        for (k, v) in attrs {
            call = call.attr(k, v);
        }
        call.build().unwrap()
    })
    .collect();
    let g = Symbol::group(&heads).to_graph().unwrap();
    let expand = Expand {
        training: true,
        inferred: None,
        first: 0,
    };
    let out = expand.run(&g).unwrap();
    let ops: Vec<&str> = out
        .graph
        .node_ids()
        .map(|id| out.graph.node(id).op_name())
        .collect();
    assert!(
        !ops.contains(&"softmax") && !ops.contains(&"log_softmax"),
        "{ops:?}"
    );
    let inputs = HashMap::from([(
        "x".to_string(),
        Tensor::new(
            DType::F64,
            vec![3, 4],
            (0..12).map(|i| (i as f64 * 0.7).sin() * 3.0).collect(),
        ),
    )]);
    let want = interpret(&g, &inputs, RunOptions::default()).unwrap();
    let got = interpret(&out.graph, &inputs, RunOptions::default()).unwrap();
    assert_same_values(&got, &want);
    // An option the expansion does not cover keeps the operator.
    let typed = Symbol::op("softmax")
        .arg(&x)
        .attr("dtype", "float64")
        .build()
        .unwrap();
    let g = typed.to_graph().unwrap();
    let kept = expand.run(&g).unwrap();
    assert!(kept
        .graph
        .node_ids()
        .any(|id| kept.graph.node(id).op_name() == "softmax"));
}

#[test]
fn batch_norm_expands_in_inference_only() {
    use kiln_compiler::infer::infer;
    use kiln_compiler::passes::Expand;
    let x = Symbol::var("x");
    for (fix_gamma, axis, shape) in [("True", "1", vec![2, 3, 4, 5]), ("False", "-1", vec![4, 6])] {
        let bn = Symbol::op("BatchNorm")
            .arg(&x)
            .attr("fix_gamma", fix_gamma)
            .attr("axis", axis)
            .attr("eps", "0.01")
            .attr("output_mean_var", "True")
            .build()
            .unwrap();
        let g = bn.to_graph().unwrap();
        let c = shape[if axis == "1" { 1 } else { shape.len() - 1 }];
        let values = |name: &str, shape: &[usize], offset: f64| {
            let n: usize = shape.iter().product();
            let data = (0..n)
                .map(|i| (i as f64 * 0.37 + offset).sin() + offset)
                .collect();
            (
                name.to_string(),
                Tensor::new(DType::F64, shape.to_vec(), data),
            )
        };
        let prefix = g.node(g.heads[0].node).name.clone();
        let inputs: HashMap<String, Tensor> = [
            values("x", &shape, 0.0),
            values(&format!("{prefix}_gamma"), &[c], 1.5),
            values(&format!("{prefix}_beta"), &[c], 0.3),
            values(&format!("{prefix}_moving_mean"), &[c], 0.2),
            values(&format!("{prefix}_moving_var"), &[c], 2.0),
        ]
        .into();
        let shapes = inputs
            .iter()
            .map(|(k, t)| (k.clone(), t.shape.clone()))
            .collect();
        let dtypes = inputs.iter().map(|(k, t)| (k.clone(), t.dtype)).collect();
        let inferred = infer(&g, &shapes, &dtypes).unwrap();
        let expand = |training| Expand {
            training,
            inferred: Some(&inferred),
            first: 0,
        };
        // Training with batch statistics keeps the operator.
        assert_eq!(expand(true).expand(&g).unwrap().1, 0);
        let (out, expanded) = expand(false).expand(&g).unwrap();
        assert_eq!(expanded, 1);
        let ops: Vec<&str> = out
            .graph
            .node_ids()
            .map(|id| out.graph.node(id).op_name())
            .collect();
        assert!(!ops.contains(&"BatchNorm"), "{ops:?}");
        let want = interpret(&g, &inputs, RunOptions::default()).unwrap();
        let got = interpret(&out.graph, &inputs, RunOptions::default()).unwrap();
        assert_same_values(&got, &want);
    }
}
