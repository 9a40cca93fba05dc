//! Every optimizer replayed against MXNet 1.9.1's trajectories
//! (`tests/fixtures/train/optimizers/cases.json`, made by
//! `tests/fixtures/train/make_optimizer_fixtures.py`): each case creates the optimizer by
//! name with the same string arguments, runs the same gradients through
//! `Optimizer::update_multi` and compares every weight and state after every step to 1e-6
//! of the array's scale. Also: a name without a fixture case fails the coverage test,
//! bad arguments are clear errors, and saved states resume bit for bit.

use half::f16;
use kiln_ops::compare;
use kiln_ops::DType;
use kiln_runtime::{Device, NDArray};
use kiln_train::optimizer::{Optimizer, OPTIMIZERS};
use kiln_train::Error;
use serde_json::Value;
use std::collections::BTreeMap;

const TOLERANCE: f64 = 1e-6;

fn fixtures() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/train/optimizers/cases.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).expect("cases.json parses")
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array of numbers")
        .iter()
        .map(|x| match x {
            Value::String(s) if s == "inf" => f64::INFINITY,
            Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
            Value::String(s) if s == "nan" => f64::NAN,
            x => x.as_f64().expect("a number"),
        })
        .collect()
}

fn array(values: &[f64], shape: &[usize], dtype: DType) -> NDArray {
    match dtype {
        DType::F16 => {
            let v: Vec<f16> = values.iter().map(|&x| f16::from_f64(x)).collect();
            NDArray::from_slice(&v, shape).unwrap()
        }
        DType::F64 => NDArray::from_slice(values, shape).unwrap(),
        _ => {
            let v: Vec<f32> = values.iter().map(|&x| x as f32).collect();
            NDArray::from_slice(&v, shape).unwrap()
        }
    }
}

struct Case<'a> {
    name: &'a str,
    json: &'a Value,
}

impl Case<'_> {
    fn kwargs(&self) -> Vec<(&str, &str)> {
        self.json["kwargs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|kv| (kv[0].as_str().unwrap(), kv[1].as_str().unwrap()))
            .collect()
    }

    fn optimizer(&self) -> Optimizer {
        let mut opt = Optimizer::create(self.json["optimizer"].as_str().unwrap(), &self.kwargs())
            .unwrap_or_else(|e| panic!("{}: {e}", self.name));
        let params = self.json["params"].as_array().unwrap();
        let names: Vec<String> = params
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect();
        opt.set_param_names(names.iter().cloned().enumerate());
        if let Some(attrs) = self.json.get("attrs") {
            let attrs: BTreeMap<String, BTreeMap<String, String>> =
                serde_json::from_value(attrs.clone()).unwrap();
            opt.set_param_attrs(&attrs, &names).unwrap();
        }
        opt
    }

    fn dtype(&self) -> DType {
        DType::parse(self.json["dtype"].as_str().unwrap()).unwrap()
    }

    fn shapes(&self) -> Vec<Vec<usize>> {
        self.json["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                p["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_u64().unwrap() as usize)
                    .collect()
            })
            .collect()
    }

    /// The initial weights and one gradient array per parameter (written each step).
    fn arrays(&self) -> (Vec<NDArray>, Vec<NDArray>) {
        let dtype = self.dtype();
        let shapes = self.shapes();
        let params = self.json["params"].as_array().unwrap();
        let weights = params
            .iter()
            .zip(&shapes)
            .map(|(p, s)| array(&numbers(&p["weight"]), s, dtype))
            .collect();
        let grads = shapes
            .iter()
            .map(|s| NDArray::zeros(s, dtype, Device::Cpu).unwrap())
            .collect();
        (weights, grads)
    }

    /// Writes step `k`'s gradients and pushes the updates.
    fn step(&self, opt: &mut Optimizer, k: usize, weights: &[NDArray], grads: &[NDArray]) {
        let step = &self.json["steps"][k];
        for (i, (g, s)) in grads.iter().zip(self.shapes()).enumerate() {
            g.copy_from(&array(&numbers(&step["grads"][i]), &s, self.dtype()))
                .unwrap();
        }
        let params: Vec<(usize, &NDArray, &NDArray)> = weights
            .iter()
            .zip(grads)
            .enumerate()
            .map(|(i, (w, g))| (i, w, g))
            .collect();
        opt.update_multi(&params)
            .unwrap_or_else(|e| panic!("{} step {k}: {e}", self.name));
    }

    /// Compares weights and states after step `k` with MXNet's; the failures, one a line.
    fn check(&self, opt: &Optimizer, k: usize, weights: &[NDArray]) -> Vec<String> {
        let step = &self.json["steps"][k];
        let mut failures = Vec::new();
        for (i, w) in weights.iter().enumerate() {
            let got = w.to_vec::<f64>().unwrap();
            let want = numbers(&step["weights"][i]);
            if let Err(e) = compare::close_to_scale(&got, &want, TOLERANCE) {
                failures.push(format!("{} step {k} weight {i}: {e}", self.name));
            }
            let want_states: Vec<Vec<f64>> = step["states"][i]
                .as_array()
                .unwrap()
                .iter()
                .map(numbers)
                .collect();
            let got_states: Vec<Vec<f64>> = opt
                .states(i)
                .unwrap_or(&[])
                .iter()
                .map(|s| s.to_vec::<f64>().unwrap())
                .collect();
            let result = compare::each(&got_states, &want_states, |g, w| {
                compare::close_to_scale(g, w, TOLERANCE)
            });
            if let Err(e) = result {
                failures.push(format!("{} step {k} states of {i}: {e}", self.name));
            }
        }
        failures
    }
}

fn cases(doc: &Value) -> Vec<Case<'_>> {
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap(),
            json: c,
        })
        .collect()
}

#[test]
fn every_case_matches_mxnet() {
    let doc = fixtures();
    let mut failures = Vec::new();
    let mut passed = 0;
    for case in cases(&doc) {
        let mut opt = case.optimizer();
        let (weights, grads) = case.arrays();
        let steps = case.json["steps"].as_array().unwrap().len();
        let before = failures.len();
        for k in 0..steps {
            case.step(&mut opt, k, &weights, &grads);
            failures.extend(case.check(&opt, k, &weights));
        }
        passed += usize::from(failures.len() == before);
    }
    assert!(
        failures.is_empty(),
        "{} failures ({passed} cases pass):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Element-wise rules on arrays large enough to split over the pool: each parameter's
/// values repeated many times, every copy must follow MXNet's trajectory (and f64 weights
/// must follow it to f32 rounding).
#[test]
fn large_and_f64_arrays_follow_the_same_trajectories() {
    let doc = fixtures();
    let copies = 20_000;
    for name in [
        "adam/wd_clip",
        "sgd/momentum_clip",
        "rmsprop/centered",
        "ftrl/wd_clip",
        "nadam/wd_clip",
    ] {
        let case = cases(&doc).into_iter().find(|c| c.name == name).unwrap();
        for (dtype, tolerance) in [(DType::F32, TOLERANCE), (DType::F64, 1e-5)] {
            let shapes = case.shapes();
            let tile = |values: Vec<f64>| -> Vec<f64> {
                (0..copies).flat_map(|_| values.iter().copied()).collect()
            };
            let params = case.json["params"].as_array().unwrap();
            let weights: Vec<NDArray> = params
                .iter()
                .zip(&shapes)
                .map(|(p, s)| {
                    let n: usize = s.iter().product();
                    array(&tile(numbers(&p["weight"])), &[n * copies], dtype)
                })
                .collect();
            let grads: Vec<NDArray> = weights
                .iter()
                .map(|w| NDArray::zeros(w.shape(), dtype, Device::Cpu).unwrap())
                .collect();
            let mut opt = case.optimizer();
            for (k, step) in case.json["steps"].as_array().unwrap().iter().enumerate() {
                for (i, g) in grads.iter().enumerate() {
                    g.copy_from(&array(&tile(numbers(&step["grads"][i])), g.shape(), dtype))
                        .unwrap();
                }
                let params: Vec<(usize, &NDArray, &NDArray)> = weights
                    .iter()
                    .zip(&grads)
                    .enumerate()
                    .map(|(i, (w, g))| (i, w, g))
                    .collect();
                opt.update_multi(&params).unwrap();
                for (i, w) in weights.iter().enumerate() {
                    let want = tile(numbers(&step["weights"][i]));
                    let got = w.to_vec::<f64>().unwrap();
                    if let Err(e) = compare::close_to_scale(&got, &want, tolerance) {
                        panic!("{name} {dtype} step {k} weight {i}: {e}");
                    }
                }
            }
        }
    }
}

#[test]
fn every_optimizer_has_a_fixture_case() {
    let doc = fixtures();
    let covered: Vec<&str> = cases(&doc)
        .iter()
        .map(|c| c.json["optimizer"].as_str().unwrap())
        .collect();
    let missing: Vec<&str> = OPTIMIZERS
        .iter()
        .map(|d| d.name)
        .filter(|n| !covered.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "optimizers without an MXNet case: {missing:?}"
    );
    for name in covered {
        assert!(
            OPTIMIZERS.iter().any(|d| d.name == name),
            "a fixture case for `{name}`, which kiln does not know"
        );
    }
}

fn input_error(result: Result<Optimizer, Error>) -> String {
    match result {
        Err(Error::Input(message)) => message,
        Err(other) => panic!("not an input error: {other}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn bad_arguments_are_named() {
    let e = input_error(Optimizer::create("adamm", &[]));
    assert!(e.contains("unknown optimizer `adamm`"), "{e}");
    let e = input_error(Optimizer::create("adam", &[("momentum", "0.9")]));
    assert!(
        e.contains("`adam`") && e.contains("unknown argument `momentum`"),
        "{e}"
    );
    let e = input_error(Optimizer::create("sgd", &[("momentum", "fast")]));
    assert!(
        e.contains("`sgd`") && e.contains("`momentum`") && e.contains("fast"),
        "{e}"
    );
    let e = input_error(Optimizer::create("sgd", &[("lazy_update", "maybe")]));
    assert!(e.contains("`lazy_update`"), "{e}");
    let e = input_error(Optimizer::create("sgd", &[("wd", "0.1"), ("wd", "0.2")]));
    assert!(e.contains("given twice"), "{e}");
    for spec in [
        "factor(factor=0.5)",
        "factor(step=0)",
        "factor(step=2,factor=2)",
        "multifactor(step=[4,2])",
        "cosine(max_update=0)",
        "poly(max_update=5,warmup_mode='cubic')",
        "step(step=2)",
        "factor(step=2",
        "factor(step=2,speed=1)",
    ] {
        let e = input_error(Optimizer::create("sgd", &[("lr_scheduler", spec)]));
        assert!(e.contains("`lr_scheduler`"), "{spec}: {e}");
    }
    // Known names are accepted case-insensitively, with MXNet's alias.
    Optimizer::create("SGD", &[("momentum", "0.9"), ("clip_gradient", "None")]).unwrap();
    Optimizer::create("ccsgd", &[]).unwrap();
}

#[test]
fn bad_arrays_are_errors() {
    let mut opt = Optimizer::create("sgd", &[]).unwrap();
    let w = NDArray::zeros(&[2, 3], DType::F32, Device::Cpu).unwrap();
    let g = NDArray::zeros(&[3, 2], DType::F32, Device::Cpu).unwrap();
    assert!(matches!(opt.update(0, &w, &g), Err(Error::Input(_))));
    assert!(matches!(opt.update(0, &w, &w), Err(Error::Input(_))));
    let w16 = NDArray::zeros(&[2], DType::F16, Device::Cpu).unwrap();
    let g16 = NDArray::zeros(&[2], DType::F16, Device::Cpu).unwrap();
    let Err(Error::Input(e)) = opt.update(1, &w16, &g16) else {
        panic!("f16 without multi_precision accepted")
    };
    assert!(e.contains("multi_precision"), "{e}");
    let mut group = Optimizer::create("groupadagrad", &[]).unwrap();
    let v = NDArray::zeros(&[4], DType::F32, Device::Cpu).unwrap();
    let gv = NDArray::zeros(&[4], DType::F32, Device::Cpu).unwrap();
    assert!(matches!(group.update(0, &v, &gv), Err(Error::Input(_))));
    // Nothing counted for the refused updates.
    assert_eq!(opt.num_update(), 0);
}

/// Saving after two steps and resuming in a fresh optimizer gives the uninterrupted
/// run's weights and states bit for bit, for a rule with global state (Nadam), one with a
/// scheduler that mutates (SGD with factor) and f16 master copies (LAMB).
#[test]
fn saved_states_resume_exactly() {
    let doc = fixtures();
    for name in [
        "nadam/wd_clip",
        "sgd/schedule_factor",
        "lamb/mp_f16",
        "lars/clip_schedule",
    ] {
        let case = cases(&doc)
            .into_iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no case {name}"));
        let steps = case.json["steps"].as_array().unwrap().len();
        let (weights, grads) = case.arrays();
        let mut straight = case.optimizer();
        for k in 0..steps {
            case.step(&mut straight, k, &weights, &grads);
        }
        let (weights2, grads2) = case.arrays();
        let mut first = case.optimizer();
        for k in 0..2 {
            case.step(&mut first, k, &weights2, &grads2);
        }
        let saved = first.save_states().unwrap();
        drop(first);
        let mut resumed = case.optimizer();
        resumed.load_states(&saved).unwrap();
        assert_eq!(resumed.num_update(), 2);
        for k in 2..steps {
            case.step(&mut resumed, k, &weights2, &grads2);
        }
        for (i, (a, b)) in weights.iter().zip(&weights2).enumerate() {
            let (a, b) = (a.to_vec::<f64>().unwrap(), b.to_vec::<f64>().unwrap());
            assert_eq!(a, b, "{name}: weight {i} after resuming");
            let sa: Vec<Vec<f64>> = straight
                .states(i)
                .unwrap()
                .iter()
                .map(|s| s.to_vec().unwrap())
                .collect();
            let sb: Vec<Vec<f64>> = resumed
                .states(i)
                .unwrap()
                .iter()
                .map(|s| s.to_vec().unwrap())
                .collect();
            assert_eq!(sa, sb, "{name}: states of {i} after resuming");
        }
        assert_eq!(
            straight.save_states().unwrap(),
            resumed.save_states().unwrap(),
            "{name}"
        );
    }
}

#[test]
fn malformed_states_are_named() {
    let mut opt = Optimizer::create("adam", &[]).unwrap();
    let w = NDArray::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let g = NDArray::from_slice(&[0.5f32, -0.5], &[2]).unwrap();
    opt.update(0, &w, &g).unwrap();
    let good = opt.save_states().unwrap();
    let load = |bytes: &[u8]| {
        let mut fresh = Optimizer::create("adam", &[]).unwrap();
        match fresh.load_states(bytes) {
            Err(Error::Input(e)) => e,
            other => panic!("{:?}", other.map(|_| ())),
        }
    };
    assert!(load(b"PICKLE..").contains("bad magic"));
    let e = load(&good[..good.len() - 3]);
    assert!(
        e.contains("truncated") && e.contains("state 1 of parameter 0"),
        "{e}"
    );
    let mut extra = good.clone();
    extra.push(0);
    assert!(load(&extra).contains("after the end"));
    let mut sgd = Optimizer::create("sgd", &[]).unwrap();
    let Err(Error::Input(e)) = sgd.load_states(&good) else {
        panic!("adam's states loaded into sgd")
    };
    assert!(e.contains("`adam`") && e.contains("`sgd`"), "{e}");
    // Loaded states that do not fit the weight are reported at its update.
    let mut fresh = Optimizer::create("adam", &[]).unwrap();
    fresh.load_states(&good).unwrap();
    let w3 = NDArray::zeros(&[3], DType::F32, Device::Cpu).unwrap();
    let g3 = NDArray::zeros(&[3], DType::F32, Device::Cpu).unwrap();
    let Err(Error::Input(e)) = fresh.update(0, &w3, &g3) else {
        panic!("states of another shape accepted")
    };
    assert!(e.contains("do not fit"), "{e}");
}
