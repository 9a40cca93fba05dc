//! kiln's metrics against MXNet 1.9.1 (tests/fixtures/train/metrics/cases.json, made by
//! make_metric_fixtures.py): every update's get() and get_global(), the errors MXNet
//! raises, the registry's names; and a coverage check that every metric name has a case.

use kiln_ops::compare;
use kiln_runtime::NDArray;
use kiln_train::metric::{self, CustomMetric, EvalMetric, HostArray};
use kiln_train::Error;
use serde_json::Value;
use std::collections::BTreeSet;

fn fixtures() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/train/metrics/cases.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("metric fixtures")).unwrap()
}

fn array(v: &Value) -> NDArray {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    // The fixtures hold float32 inputs written with 4 decimals: both sides read the
    // same float32.
    let data: Vec<f32> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    NDArray::from_slice(&data, &shape).unwrap()
}

fn arrays(v: &Value) -> Vec<NDArray> {
    v.as_array().unwrap().iter().map(array).collect()
}

/// The custom metrics the fixture script defines in Python, as closures.
fn custom(name: &str) -> Box<dyn EvalMetric> {
    fn diffs(l: &HostArray, p: &HostArray) -> Vec<f64> {
        l.data
            .iter()
            .zip(&p.data)
            .map(|(a, b)| (a - b).abs())
            .collect()
    }
    match name {
        "mean_abs" => Box::new(CustomMetric::new("mean_abs", |l, p| {
            let d = diffs(l, p);
            Ok(d.iter().sum::<f64>() / d.len() as f64)
        })),
        "sum_count" => Box::new(CustomMetric::new("sum_count", |l, p| {
            Ok((diffs(l, p).iter().sum::<f64>(), l.len() as f64))
        })),
        _ => panic!("no custom metric {name}"),
    }
}

fn make(spec: &str) -> Box<dyn EvalMetric> {
    match spec.strip_prefix("custom:") {
        Some(name) => custom(name),
        None => metric::create(spec).unwrap_or_else(|e| panic!("{spec}: {e}")),
    }
}

/// ([names], [values]) with null for NaN.
fn expected(v: &Value) -> (Vec<String>, Vec<f64>) {
    let names = v[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    let values = v[1]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::NAN))
        .collect();
    (names, values)
}

fn check(case: &str, step: usize, what: &str, got: Vec<(String, f64)>, want: &Value) {
    let (names, values) = expected(want);
    let (got_names, got_values): (Vec<String>, Vec<f64>) = got.into_iter().unzip();
    assert_eq!(got_names, names, "{case} step {step} {what}");
    // MXNet computes partly in float32 (argpartition, sums of float32 arrays); kiln in
    // f64 on the same float32 inputs.
    compare::close(&got_values, &values, 1e-5)
        .unwrap_or_else(|m| panic!("{case} step {step} {what}: {m}"));
}

#[test]
fn metrics_match_mxnet_update_by_update() {
    let fx = fixtures();
    let (mut checked, mut errors) = (0, 0);
    for case in fx["cases"].as_array().unwrap() {
        let name = case["case"].as_str().unwrap();
        let mut m = make(case["spec"].as_str().unwrap());
        for (i, step) in case["steps"].as_array().unwrap().iter().enumerate() {
            match step["op"].as_str().unwrap() {
                "update" => {
                    let r = m.update(&arrays(&step["labels"]), &arrays(&step["preds"]));
                    if let Some(msg) = step.get("error") {
                        match r {
                            Err(Error::Input(e)) => {
                                assert!(
                                    e.contains(&m.name()),
                                    "{name}: {e} does not name the metric"
                                )
                            }
                            other => {
                                panic!("{name} step {i}: MXNet raised {msg}, kiln gave {other:?}")
                            }
                        }
                        errors += 1;
                        continue;
                    }
                    r.unwrap_or_else(|e| panic!("{name} step {i}: {e}"));
                }
                "reset" => m.reset(),
                "reset_local" => m.reset_local(),
                op => panic!("unknown step {op}"),
            }
            check(name, i, "get", m.get(), &step["get"]);
            // MXNet's PearsonCorrelation(average='micro') never updates its global sum
            // (it reports 0.0); kiln reports the running value (see the module docs).
            if name != "pearsonr_micro" {
                check(name, i, "get_global", m.get_global(), &step["global"]);
            }
            checked += 1;
        }
    }
    // Nothing skipped silently: every step of the file was compared.
    assert_eq!((checked, errors), (90, 5));
}

#[test]
fn every_name_and_alias_creates_mxnets_metric() {
    let fx = fixtures();
    let names = fx["names"].as_object().unwrap();
    for (name, display) in names {
        let spec = match name.as_str() {
            "top_k_accuracy" | "top_k_acc" | "topkaccuracy" => format!("{name}(top_k=2)"),
            "perplexity" => format!("{name}(ignore_label=None)"),
            _ => name.clone(),
        };
        let m = metric::create(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        if !name.starts_with("composite") {
            assert_eq!(m.name(), display.as_str().unwrap(), "{spec}");
        }
        assert!(
            metric::NAMES.contains(&name.as_str()),
            "{name} missing from NAMES"
        );
    }
    // Case-insensitive, as MXNet's registry.
    assert_eq!(metric::create("ACC").unwrap().name(), "accuracy");
}

/// Fails by name for a metric name without a fixture case.
#[test]
fn every_metric_has_a_fixture_case() {
    let fx = fixtures();
    let mut covered = BTreeSet::new();
    for case in fx["cases"].as_array().unwrap() {
        let spec = case["spec"].as_str().unwrap();
        for part in kiln_train::spec::Spec::parse_list(spec)
            .into_iter()
            .flatten()
        {
            covered.insert(part.name.to_lowercase());
        }
        if spec.contains(',') {
            covered.insert("composite".into());
        }
    }
    // Aliases share their metric's cases.
    let canonical = |n: &str| {
        match n {
            "acc" => "accuracy",
            "top_k_acc" | "topkaccuracy" => "top_k_accuracy",
            "crossentropy" => "ce",
            "negativeloglikelihood" => "nll_loss",
            "pearsoncorrelation" => "pearsonr",
            "compositeevalmetric" => "composite",
            "torch" | "caffe" => "loss",
            n => n,
        }
        .to_string()
    };
    let covered: BTreeSet<String> = covered.iter().map(|n| canonical(n)).collect();
    let missing: Vec<&str> = metric::NAMES
        .iter()
        .filter(|n| !covered.contains(&canonical(n)))
        .copied()
        .collect();
    assert!(
        missing.is_empty(),
        "metrics without a fixture case: {missing:?}"
    );
}

#[test]
fn bad_specs_and_arguments_are_errors_naming_them() {
    let cases = [
        ("nosuch", "metric \"nosuch\" is not registered"),
        (
            "top_k_accuracy",
            "metric top_k_accuracy: top_k: must be more than 1",
        ),
        (
            "top_k_accuracy(top_k=x)",
            "metric top_k_accuracy: top_k=x: expected an integer",
        ),
        (
            "f1(average=weighted)",
            "metric f1: average=weighted: expected one of macro, micro",
        ),
        (
            "perplexity",
            "metric perplexity: missing required argument 'ignore_label'",
        ),
        ("acc(foo=1)", "metric acc: unknown argument 'foo'"),
        ("acc,", "expected a name"),
    ];
    for (spec, want) in cases {
        let e = metric::create(spec)
            .map(|m| m.name())
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{spec}: {e}");
    }
}

#[test]
fn custom_metric_errors_pass_through_and_extra_outputs_are_allowed_on_request() {
    let mut m = CustomMetric::new("fails", |_, _| -> Result<f64, String> {
        Err("feval refused".into())
    });
    let a = NDArray::from_slice(&[1.0f32], &[1]).unwrap();
    let one = std::slice::from_ref(&a);
    let e = m.update(one, one).unwrap_err().to_string();
    assert_eq!(e, "metric fails: feval refused");
    assert!(m.update(one, &[a.clone(), a.clone()]).is_err());
    let mut m = CustomMetric::new("one", |_, _| Ok(1.0)).allow_extra_outputs(true);
    m.update(std::slice::from_ref(&a), &[a.clone(), a.clone()])
        .unwrap();
    assert_eq!(m.get(), vec![("one".to_string(), 1.0)]);
}
