//! `kiln ops` lists the dtypes each operator supports; every listed dtype must run on the
//! reference interpreter and compute what f64 computes. Each operator runs its first MXNet
//! fixture case with its inputs cast to each listed dtype, and its outputs are compared with
//! the same case run on those (rounded) inputs in f64, rounded to the output's dtype.
//! Samplers run with their `dtype` parameter instead, against the same draw in float64
//! (int64 for integer samplers).

mod common;

use common::{compare, fixture, params, tolerance};
use kiln::compiler::{interpret, RunOptions};
use kiln::ops::{registry, Resource};
use kiln::{DType, Symbol, Tensor};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Deserialize)]
struct Case {
    name: String,
    op: String,
    attrs: BTreeMap<String, String>,
    inputs: Vec<String>,
    is_train: bool,
    file: String,
}

fn run_case(case: &Case, inputs: &HashMap<String, Tensor>) -> Result<Vec<Tensor>, String> {
    let vars: Vec<Symbol> = case.inputs.iter().map(|n| Symbol::var(n)).collect();
    let mut call = Symbol::op(&case.op);
    for (n, v) in case.inputs.iter().zip(&vars) {
        call = call.input(n, v);
    }
    for (k, v) in &case.attrs {
        call = call.attr(k, v);
    }
    let sym = call.build().map_err(|e| e.to_string())?;
    interpret(
        &sym.to_graph().map_err(|e| e.to_string())?,
        inputs,
        RunOptions {
            is_train: case.is_train,
            seed: 0,
        },
    )
    .map_err(|e| e.to_string())
}

/// `got` (in some dtype) against `f64` (the same case computed in f64, or int64): as many
/// outputs, of the same shapes, each within its dtype's tolerance of those values rounded
/// to it.
fn matches_f64(got: &[Tensor], f64: &[Tensor]) -> Result<(), String> {
    if got.len() != f64.len() {
        return Err(format!("{} outputs, {} in f64", got.len(), f64.len()));
    }
    for (i, (g, w)) in got.iter().zip(f64).enumerate() {
        if let Some(msg) = compare(g, &w.cast(g.dtype), tolerance(g.dtype)) {
            return Err(format!("output {i} ({}) against f64: {msg}", g.dtype));
        }
    }
    Ok(())
}

/// The same inputs in f64 where they are floating point (exact: f64 holds every value of
/// the narrower dtypes).
fn in_f64(inputs: &HashMap<String, Tensor>) -> HashMap<String, Tensor> {
    inputs
        .iter()
        .map(|(n, t)| {
            let t = if t.dtype.is_float() {
                t.cast(DType::F64)
            } else {
                t.clone()
            };
            (n.clone(), t)
        })
        .collect()
}

#[test]
fn every_listed_dtype_runs_on_the_interpreter() {
    let text = std::fs::read_to_string(fixture("ops/cases.json")).unwrap();
    let cases: Vec<Case> = serde_json::from_str(&text).unwrap();
    let mut first: HashMap<&str, &Case> = HashMap::new();
    for c in &cases {
        first.entry(c.op.as_str()).or_insert(c);
    }
    let mut files = HashMap::new();
    let mut failures = Vec::new();
    let (mut runs, mut compared) = (0, 0);
    for op in registry().ops() {
        if op.resources.contains(&Resource::Random) && op.nominal_signature().0.is_empty() {
            let has = |p: &str| op.params.iter().any(|d| d.name == p);
            for dtype in op.dtypes {
                // Samplers take their shape (`shape`, or `size` for the NumPy-style ones),
                // their dtype where they have one, and valid distribution parameters.
                let mut attrs = BTreeMap::new();
                let shape_param = if has("shape") { "shape" } else { "size" };
                attrs.insert(shape_param.to_string(), "(2, 3)".to_string());
                if has("dtype") {
                    attrs.insert("dtype".into(), dtype.name().into());
                }
                for (k, v) in [("low", "0"), ("high", "10"), ("loc", "0"), ("scale", "1")] {
                    if has(k) {
                        attrs.insert(k.into(), v.into());
                    }
                }
                let case = Case {
                    name: op.name.into(),
                    op: op.name.into(),
                    attrs,
                    inputs: vec![],
                    is_train: false,
                    file: String::new(),
                };
                // The widest dtype the sampler draws in: float64, int64 for integers.
                let widest = op.dtypes.iter().max_by_key(|d| (d.size(), d.is_float()));
                let mut widest_case = case.clone();
                widest_case
                    .attrs
                    .insert("dtype".into(), widest.unwrap().name().into());
                let checked = run_case(&case, &HashMap::new()).and_then(|out| {
                    if out[0].dtype != *dtype {
                        return Err(format!("output is {}", out[0].dtype));
                    }
                    if has("dtype") {
                        matches_f64(&out, &run_case(&widest_case, &HashMap::new())?)?;
                        compared += 1;
                    }
                    Ok(())
                });
                match checked {
                    Ok(()) => runs += 1,
                    Err(e) => failures.push(format!("{} {dtype}: {e}", op.name)),
                }
            }
            continue;
        }
        let Some(case) = first.get(op.name) else {
            continue;
        }; // internal backward operators
        let file = files
            .entry(case.file.clone())
            .or_insert_with(|| params(&format!("ops/{}", case.file)));
        for dtype in op.dtypes {
            // Floating-point inputs take the dtype (labels and indices keep theirs); where an
            // operator keeps its parameters in float32 (BatchNorm with float16 data), only the
            // data does.
            let inputs = |all: bool| -> HashMap<String, Tensor> {
                case.inputs
                    .iter()
                    .enumerate()
                    .map(|(i, n)| {
                        let t = file
                            .get(&format!("{}/in/{n}", case.name))
                            .expect("fixture input");
                        let cast = if t.dtype.is_float() && (all || i == 0) {
                            t.cast(*dtype)
                        } else {
                            t.clone()
                        };
                        (n.clone(), cast)
                    })
                    .collect()
            };
            let (all, out) = match run_case(case, &inputs(true)) {
                Ok(out) => (true, Ok(out)),
                Err(_) => (false, run_case(case, &inputs(false))),
            };
            let checked =
                out.and_then(|out| matches_f64(&out, &run_case(case, &in_f64(&inputs(all)))?));
            match checked {
                Ok(()) => {
                    runs += 1;
                    compared += 1;
                }
                Err(e) => failures.push(format!("{} {dtype}: {e}", op.name)),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} listed dtypes fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(runs > 100, "only {runs} runs");
    assert!(compared > 100, "only {compared} runs compared with f64");
}
