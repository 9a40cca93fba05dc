//! Every operator's forward pass against MXNet 1.9.1 (tests/fixtures/ops, made by
//! tests/fixtures/make_fixtures.py): the reference interpreter must reproduce MXNet's
//! outputs, and shape inference from the data alone must give MXNet's shapes.

mod common;

use common::{compare, fixture, params, tolerance};
use kiln::compiler::formats::params::ParamFile;
use kiln::compiler::{interpret, RunOptions};
use kiln::ops::registry;
use kiln::{Symbol, Tensor};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};

#[derive(Deserialize)]
struct Case {
    name: String,
    op: String,
    attrs: BTreeMap<String, String>,
    inputs: Vec<String>,
    outputs: usize,
    is_train: bool,
    file: String,
    /// Outputs MXNet leaves uninitialized (rrelu's mask at inference): not compared.
    #[serde(default)]
    undefined_outputs: Vec<usize>,
}

fn cases() -> Vec<Case> {
    let text =
        std::fs::read_to_string(fixture("ops/cases.json")).expect("tests/fixtures/ops/cases.json");
    serde_json::from_str(&text).expect("cases.json parses")
}

fn build(case: &Case) -> kiln::Result<Symbol> {
    let vars: Vec<Symbol> = case.inputs.iter().map(|n| Symbol::var(n)).collect();
    let mut call = Symbol::op(&case.op).name("op");
    for (name, v) in case.inputs.iter().zip(&vars) {
        call = call.input(name, v);
    }
    for (k, v) in &case.attrs {
        call = call.attr(k, v);
    }
    Ok(call.build()?)
}

fn check(case: &Case, file: &ParamFile) -> Result<(), String> {
    let sym = build(case).map_err(|e| format!("build: {e}"))?;
    let get = |key: String| {
        file.get(&key)
            .cloned()
            .ok_or_else(|| format!("fixture has no `{key}`"))
    };
    let inputs: HashMap<String, Tensor> = case
        .inputs
        .iter()
        .map(|n| Ok((n.clone(), get(format!("{}/in/{n}", case.name))?)))
        .collect::<Result<_, String>>()?;
    let compared: Vec<usize> = (0..case.outputs)
        .filter(|i| !case.undefined_outputs.contains(i))
        .collect();
    let expected: Vec<Tensor> = compared
        .iter()
        .map(|i| get(format!("{}/out/{i}", case.name)))
        .collect::<Result<_, _>>()?;
    // Inference from the first input alone where the operator can infer the rest (weights).
    let first = &case.inputs[0];
    let partial = sym
        .infer_shape_partial(&[(first, &inputs[first].shape)])
        .map_err(|e| format!("infer: {e}"))?;
    for (&i, want) in compared.iter().zip(&expected) {
        let s = &partial.outputs[i];
        if kiln::ops::shape::is_known(s) && s != &want.shape {
            return Err(format!(
                "inferred output {i} shape {s:?} != MXNet {:?}",
                want.shape
            ));
        }
    }
    let g = sym.to_graph().map_err(|e| e.to_string())?;
    let outs = interpret(
        &g,
        &inputs,
        RunOptions {
            is_train: case.is_train,
            seed: 0,
        },
    )
    .map_err(|e| format!("run: {e}"))?;
    if outs.len() != case.outputs {
        return Err(format!(
            "{} outputs, MXNet has {}",
            outs.len(),
            case.outputs
        ));
    }
    // MXNet computes in its inputs' dtype: the coarsest dtype involved sets the tolerance.
    let in_tol = inputs
        .values()
        .map(|t| tolerance(t.dtype))
        .fold(0.0, f64::max);
    for (&i, want) in compared.iter().zip(&expected) {
        if let Some(msg) = compare(&outs[i], want, tolerance(want.dtype).max(in_tol)) {
            return Err(format!("output {i}: {msg}"));
        }
    }
    Ok(())
}

#[test]
fn operators_match_mxnet() {
    let mut files: HashMap<String, ParamFile> = HashMap::new();
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let file = files
            .entry(case.file.clone())
            .or_insert_with(|| params(&format!("ops/{}", case.file)));
        if let Err(msg) = check(case, file) {
            failures.push(format!("{}: {msg}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn every_operator_has_a_fixture() {
    let covered: HashSet<String> = cases().into_iter().map(|c| c.op).collect();
    let missing: Vec<&str> = registry()
        .ops()
        .iter()
        .map(|op| op.name)
        .filter(|name| !covered.contains(*name) && !op_aliases_covered(name, &covered))
        .filter(|name| !is_sampler(name) && !is_internal_backward(name))
        .collect();
    assert!(
        missing.is_empty(),
        "operators without an MXNet fixture: {}",
        missing.join(", ")
    );
}

/// kiln's own backward operators (`_backward_*`, `_broadcast_backward`, ...) have no MXNet
/// counterpart to compare with: they are checked through the gradients of the forward
/// operators (finite differences in kiln-ops, MXNet's gradients in train_parity.rs).
fn is_internal_backward(name: &str) -> bool {
    registry().get(name).is_some_and(|op| {
        name.starts_with('_') && matches!(op.grad, kiln::ops::Grad::NotDifferentiable)
    })
}

/// Samplers are checked by moments and Kolmogorov–Smirnov tests (kiln-ops), not values.
fn is_sampler(name: &str) -> bool {
    registry().get(name).is_some_and(|op| {
        op.resources.contains(&kiln::ops::Resource::Random) && op.nominal_signature().0.is_empty()
    })
}

fn op_aliases_covered(name: &str, covered: &HashSet<String>) -> bool {
    registry()
        .get(name)
        .is_some_and(|op| op.aliases.iter().any(|a| covered.contains(*a)))
}

/// Operators that declare a contraction (gemm, convolution, pooling) compute MXNet's
/// outputs through it too: the declaration compilers lower is checked against MXNet, not
/// only against the reference kernel.
#[test]
fn contractions_match_mxnet() {
    use kiln::ops::contraction::evaluate;
    let mut files: HashMap<String, ParamFile> = HashMap::new();
    let (mut checked, mut declined, mut failures) = (0, 0, Vec::new());
    let mut ops_checked = HashSet::new();
    for case in cases() {
        let Some(op) = registry().get(&case.op) else {
            continue;
        };
        let Some(contraction) = op.contraction else {
            continue;
        };
        let file = files
            .entry(case.file.clone())
            .or_insert_with(|| params(&format!("ops/{}", case.file)));
        let inputs: Vec<Tensor> = case
            .inputs
            .iter()
            .map(|n| file.get(&format!("{}/in/{n}", case.name)).cloned().unwrap())
            .collect();
        let want = file.get(&format!("{}/out/0", case.name)).cloned().unwrap();
        let attrs = kiln::ops::Attrs::parse(op.params, &case.attrs).unwrap();
        let in_shapes: Vec<Vec<usize>> = inputs.iter().map(|t| t.shape.clone()).collect();
        let Ok(c) = contraction(&attrs, &in_shapes, std::slice::from_ref(&want.shape), 0) else {
            declined += 1;
            continue;
        };
        let mut got = Tensor::zeros(want.dtype, want.shape.clone());
        evaluate(&c, &inputs.iter().collect::<Vec<_>>(), &mut got);
        let in_tol = inputs
            .iter()
            .map(|t| tolerance(t.dtype))
            .fold(0.0, f64::max);
        match compare(&got, &want, tolerance(want.dtype).max(in_tol)) {
            Some(msg) => failures.push(format!("{}: {msg}", case.name)),
            None => {
                checked += 1;
                ops_checked.insert(case.op.clone());
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for op in [
        "FullyConnected",
        "Convolution",
        "Pooling",
        "dot",
        "batch_dot",
    ] {
        assert!(
            ops_checked.contains(op),
            "no MXNet case checks {op}'s contraction"
        );
    }
    eprintln!("{checked} cases checked through contractions, {declined} declined");
    assert!(
        checked >= 60,
        "{checked} cases checked, {declined} declined"
    );
}
