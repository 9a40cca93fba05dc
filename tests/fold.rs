//! BatchNorm folding on a real model: ResNet-18 (Gluon export) with deterministic weights
//! gives the same outputs with its BatchNorms folded into the convolutions.

mod common;

use common::{compare, fixture, params};
use kiln::compiler::passes::{fold_batch_norm, Pipeline};
use kiln::compiler::{interpret, RunOptions};
use kiln::models::weights;
use kiln::{Symbol, Tensor};
use std::collections::HashMap;

/// Deterministic values for every argument and aux state of `sym` but `data`, at the
/// shapes `data`'s shape gives them.
fn parameters(sym: &Symbol, data: &[usize]) -> HashMap<String, Tensor> {
    let shapes = sym.infer_shape(&[("data", data)]).unwrap();
    let names = (sym.list_arguments().into_iter()).chain(sym.list_auxiliary_states());
    names
        .zip(shapes.arguments.iter().chain(&shapes.aux_states))
        .filter(|(n, _)| n != "data")
        .map(|(n, s)| (n.clone(), weights::parameter(&n, s)))
        .collect()
}

#[test]
fn folding_batchnorm_keeps_resnet18_outputs() {
    let sym = Symbol::load(fixture("models/resnet18_v1-symbol.json")).unwrap();
    let io = params("models/resnet18_v1-io.params");
    let data = io.get("data").unwrap().clone();
    let mut values = parameters(&sym, &data.shape);
    let (inference, _) = Pipeline::inference().run(&sym.to_graph().unwrap()).unwrap();
    let (folded, new_params) = fold_batch_norm(&inference.graph, &values).unwrap();
    let count = |g: &kiln::compiler::Graph, op: &str| {
        g.node_ids()
            .filter(|&id| g.node(id).op_name() == op)
            .count()
    };
    assert_eq!(count(&inference.graph, "BatchNorm"), 20);
    // Every BatchNorm directly after a convolution folds (resnet18_v1 has 20).
    assert_eq!(count(&folded.graph, "BatchNorm"), 0, "{}", folded.graph);
    values.extend(new_params);
    values.insert("data".into(), data);
    let want = interpret(&inference.graph, &values, RunOptions::default()).unwrap();
    let got = interpret(&folded.graph, &values, RunOptions::default()).unwrap();
    // The folded weights are rounded to float32 once more: allow a little.
    assert!(
        compare(&got[0], &want[0], 1e-4).is_none(),
        "{:?}",
        compare(&got[0], &want[0], 1e-4)
    );
    assert!(
        compare(&got[0], io.get("out:0").unwrap(), 1e-4).is_none(),
        "matches MXNet too"
    );
}

#[test]
fn batchnorm_as_scale_shift_keeps_outputs_and_fuses_into_convolutions() {
    use kiln::compiler::passes::{fuse, BatchNormToScaleShift, Pass};
    let sym = Symbol::load(fixture("models/resnet18_v1-symbol.json")).unwrap();
    let io = params("models/resnet18_v1-io.params");
    let data = io.get("data").unwrap().clone();
    let mut values = parameters(&sym, &data.shape);
    values.insert("data".into(), data.clone());
    let (inference, _) = Pipeline::inference().run(&sym.to_graph().unwrap()).unwrap();
    let pass = BatchNormToScaleShift {
        shapes: HashMap::from([("data".to_string(), data.shape.clone())]),
    };
    let out = pass.run(&inference.graph).unwrap();
    let g = &out.graph;
    assert_eq!(
        g.node_ids()
            .filter(|&id| g.node(id).op_name() == "BatchNorm")
            .count(),
        0
    );
    // Every convolution now ends with its scale and shift.
    let f = fuse(g);
    for grp in &f.groups {
        if let Some(&first) = grp.nodes.first() {
            if g.node(first).op_name() == "Convolution" {
                let ops: Vec<&str> = grp.nodes.iter().map(|&n| g.node(n).op_name()).collect();
                assert!(
                    ops.starts_with(&["Convolution", "broadcast_mul", "broadcast_add"]),
                    "{ops:?}"
                );
            }
        }
    }
    let want = interpret(&inference.graph, &values, RunOptions::default()).unwrap();
    let got = interpret(g, &values, RunOptions::default()).unwrap();
    assert!(
        compare(&got[0], &want[0], 1e-5).is_none(),
        "{:?}",
        compare(&got[0], &want[0], 1e-5)
    );
}

#[test]
fn batchnorm_folds_into_fully_connected_only_on_its_channel_axis() {
    use kiln::compiler::builders as sym;
    let data = Symbol::var("data");
    // Unflattened, the layer maps (2, 3, 4) to (2, 3, 5): axis 1 is not its channel.
    let net = |flatten: bool, axis: i64| {
        let fc = sym::fully_connected()
            .data(&data)
            .num_hidden(5)
            .flatten(flatten)
            .name("fc")
            .build()
            .unwrap();
        sym::batch_norm()
            .data(&fc)
            .axis(axis)
            .fix_gamma(false)
            .name("bn")
            .build()
            .unwrap()
    };
    for (flatten, axis, folds) in [(true, 1, true), (false, 1, false), (false, -1, true)] {
        let sym = net(flatten, axis);
        let mut values = parameters(&sym, &[2, 3, 4]);
        let (inference, _) = Pipeline::inference().run(&sym.to_graph().unwrap()).unwrap();
        let (folded, new_params) = fold_batch_norm(&inference.graph, &values).unwrap();
        let g = &folded.graph;
        let left = g
            .node_ids()
            .filter(|&id| g.node(id).op_name() == "BatchNorm")
            .count();
        assert_eq!(left == 0, folds, "flatten={flatten} axis={axis}");
        values.extend(new_params);
        values.insert("data".into(), weights::parameter("data", &[2, 3, 4]));
        let want = interpret(&inference.graph, &values, RunOptions::default()).unwrap();
        let got = interpret(g, &values, RunOptions::default()).unwrap();
        assert!(
            compare(&got[0], &want[0], 1e-4).is_none(),
            "flatten={flatten} axis={axis}: {:?}",
            compare(&got[0], &want[0], 1e-4)
        );
    }
}
