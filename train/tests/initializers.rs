//! kiln's initializers against MXNet 1.9.1 (tests/fixtures/train/initializers/cases.json,
//! made by make_initializer_fixtures.py) and against MXNet's formulas: Bilinear and
//! LSTMBias values, the name/`__init__` dispatch table, Xavier/MSRAPrelu scales, `dumps`,
//! the registry's names; distribution statistics of the random initializers with bounds
//! from the sample size; Orthogonal's orthonormality; determinism; specs and their errors.

use kiln_ops::compare;
use kiln_ops::DType;
use kiln_runtime::{Device, NDArray};
use kiln_train::initializer::{
    self, create, legacy_rule, rule, InitDesc, Initializer, Load, MSRAPrelu, Rng, Rule, Xavier,
};
use kiln_train::spec::Spec;
use kiln_train::Error;
use serde_json::Value;

fn fixtures() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/train/initializers/cases.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("initializer fixtures")).unwrap()
}

fn shape_of(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn zeros(shape: &[usize]) -> NDArray {
    NDArray::zeros(shape, DType::F32, Device::Cpu).unwrap()
}

fn values(a: &NDArray) -> Vec<f64> {
    a.to_vec::<f64>().unwrap()
}

/// Runs `init`'s weight rule on a new f32 array of `shape`.
fn weight(init: &dyn Initializer, shape: &[usize], seed: u64) -> Vec<f64> {
    let a = zeros(shape);
    init.init_weight(&InitDesc::new("w_weight"), &a, &mut Rng::new(seed))
        .unwrap();
    values(&a)
}

#[test]
fn bilinear_and_lstm_bias_equal_mxnets_arrays() {
    let fx = fixtures();
    for case in fx["bilinear"].as_array().unwrap() {
        let got = weight(&initializer::Bilinear, &shape_of(&case["shape"]), 0);
        // Both are float32 roundings of the same f64 formula: exactly equal.
        compare::within(&got, &floats(&case["data"]), |_| 0.0)
            .unwrap_or_else(|m| panic!("bilinear {}: {m}", case["shape"]));
    }
    for case in fx["lstm_bias"].as_array().unwrap() {
        let spec = format!("lstmbias(forget_bias={})", case["forget_bias"]);
        let init = create(&spec).unwrap();
        let a = NDArray::full(&shape_of(&case["shape"]), 7.0, DType::F32, Device::Cpu).unwrap();
        init.init(
            &InitDesc::new("x").with_attr("__init__", init.dumps()),
            &a,
            &mut Rng::new(0),
        )
        .unwrap();
        compare::within(&values(&a), &floats(&case["data"]), |_| 0.0)
            .unwrap_or_else(|m| panic!("{spec} {}: {m}", case["shape"]));
    }
    // Not a 4-d kernel: an error naming the variable and the shape.
    let e = initializer::Bilinear
        .init_weight(
            &InitDesc::new("up_weight"),
            &zeros(&[3, 3]),
            &mut Rng::new(0),
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bilinear") && e.contains("up_weight") && e.contains("(3, 3)"),
        "{e}"
    );
}

#[test]
fn name_dispatch_matches_mxnet() {
    let fx = fixtures();
    let mut n = 0;
    for case in fx["dispatch"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let want = case["rule"].as_str().unwrap();
        let got = if case["legacy"].as_bool().unwrap() {
            legacy_rule(name)
        } else {
            let mut desc = InitDesc::new(name);
            if let Some(attr) = case.get("init_attr") {
                desc = desc.with_attr("__init__", attr.as_str().unwrap());
            }
            rule(&desc)
        };
        let got = match got {
            Ok(Rule::Attr(attr)) => {
                initializer::create_from_attr(&attr).map(|i| format!("attr:{}", i.name()))
            }
            Ok(r) => Ok(r.method().to_string()),
            Err(e) => Err(e),
        };
        match (got, want.strip_prefix("error: ")) {
            (Ok(g), None) => assert_eq!(g, want, "{case}"),
            (Err(Error::Input(e)), Some(_)) => {
                assert!(
                    e.contains(&format!("{name:?}")) || e.contains("initializer"),
                    "{case}: {e}"
                )
            }
            (got, _) => panic!("{case}: kiln gave {got:?}"),
        }
        n += 1;
    }
    assert_eq!(n, fx["dispatch"].as_array().unwrap().len());
}

#[test]
fn dispatch_fills_what_the_rule_says() {
    // With Constant(0.5) as the global initializer: weights 0.5, biases 0, gammas 1,
    // betas 0, `min` 0, `max` 1; an `__init__` attribute's weight rule wins.
    let init = create("constant(value=0.5)").unwrap();
    let cases = [
        (InitDesc::new("fc_weight"), 0.5),
        (InitDesc::new("fc_bias"), 0.0),
        (InitDesc::new("bn_gamma"), 1.0),
        (InitDesc::new("bn_beta"), 0.0),
        (InitDesc::new("q_min"), 0.0),
        (InitDesc::new("q_max"), 1.0),
        (
            InitDesc::new("bn_moving_var").with_attr("__init__", r#"["one", {}]"#),
            1.0,
        ),
        (
            InitDesc::new("fc_bias").with_attr("__init__", r#"["constant", {"value": 2}]"#),
            2.0,
        ),
    ];
    for (desc, want) in cases {
        let a = NDArray::full(&[2, 3], 9.0, DType::F32, Device::Cpu).unwrap();
        init.init(&desc, &a, &mut Rng::new(0)).unwrap();
        assert_eq!(values(&a), vec![want; 6], "{desc:?}");
    }
    let a = zeros(&[6]);
    init.init_legacy("stn_loc_bias", &a, &mut Rng::new(0))
        .unwrap();
    assert_eq!(values(&a), vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    let e = init
        .init(&InitDesc::new("data"), &a, &mut Rng::new(0))
        .unwrap_err();
    assert!(e.to_string().contains("\"data\""), "{e}");
}

#[test]
fn xavier_and_msraprelu_scales_match_mxnet() {
    let fx = fixtures();
    for case in fx["scales"].as_array().unwrap() {
        let spec = Spec::parse(case["spec"].as_str().unwrap(), "initializer").unwrap();
        let x = if spec.name == "xavier" {
            Xavier::from_spec(&spec).unwrap()
        } else {
            MSRAPrelu::from_spec(&spec).unwrap().xavier()
        };
        let a = zeros(&shape_of(&case["shape"]));
        let got = x.scale(&spec.name, &InitDesc::new("w_weight"), &a);
        match case.get("scale") {
            Some(want) => {
                assert_eq!(
                    x.rnd_type.as_str(),
                    case["rnd_type"].as_str().unwrap(),
                    "{case}"
                );
                compare::close(&[got.unwrap()], &[want.as_f64().unwrap()], 1e-15)
                    .unwrap_or_else(|m| panic!("{case}: {m}"));
            }
            None => assert!(got.is_err(), "{case}: MXNet raised {}", case["error"]),
        }
    }
}

#[test]
fn dumps_writes_mxnets_json() {
    let fx = fixtures();
    for case in fx["dumps"].as_array().unwrap() {
        let spec = case["spec"].as_str().unwrap();
        let init = create(spec).unwrap();
        assert_eq!(init.dumps(), case["dumps"].as_str().unwrap(), "{spec}");
        // And reads back to the same initializer.
        assert_eq!(
            create(&init.dumps()).unwrap().dumps(),
            init.dumps(),
            "{spec}"
        );
    }
}

/// Fails by name for a registered name without a case here or in the fixtures.
#[test]
fn every_name_is_registered_in_mxnet_or_documented_and_has_a_case() {
    let fx = fixtures();
    let mxnet: Vec<&String> = fx["names"].as_object().unwrap().keys().collect();
    for name in &mxnet {
        // FusedRNN unpacks fused RNN parameters: kiln's fused RNN layout is not MXNet's.
        if name.as_str() != "fusedrnn" {
            assert!(
                initializer::NAMES.contains(&name.as_str()),
                "{name} missing"
            );
        }
    }
    let tested = [
        ("bilinear", "bilinear_and_lstm_bias_equal_mxnets_arrays"),
        ("lstmbias", "bilinear_and_lstm_bias_equal_mxnets_arrays"),
        ("constant", "fixed_values_and_constant_arrays"),
        ("one", "fixed_values_and_constant_arrays"),
        ("ones", "fixed_values_and_constant_arrays"),
        ("zero", "fixed_values_and_constant_arrays"),
        ("zeros", "fixed_values_and_constant_arrays"),
        ("uniform", "random_initializers_have_mxnets_distributions"),
        ("normal", "random_initializers_have_mxnets_distributions"),
        ("xavier", "random_initializers_have_mxnets_distributions"),
        ("msraprelu", "random_initializers_have_mxnets_distributions"),
        ("orthogonal", "orthogonal_rows_or_columns_are_orthonormal"),
        ("mixed", "mixed_and_load_pass_the_call_on"),
        ("load", "mixed_and_load_pass_the_call_on"),
    ];
    let missing: Vec<&&str> = initializer::NAMES
        .iter()
        .filter(|n| !tested.iter().any(|(t, _)| t == *n))
        .collect();
    assert!(
        missing.is_empty(),
        "initializers without a case: {missing:?}"
    );
    for (name, _) in tested {
        assert!(initializer::NAMES.contains(&name), "{name}");
    }
}

#[test]
fn fixed_values_and_constant_arrays() {
    for (spec, want) in [
        ("one", 1.0),
        ("ones()", 1.0),
        ("zero", 0.0),
        ("zeros", 0.0),
        ("constant(0.25)", 0.25),
    ] {
        assert_eq!(
            weight(create(spec).unwrap().as_ref(), &[3, 2], 0),
            vec![want; 6],
            "{spec}"
        );
    }
    // An array value broadcasts as numpy's `arr[:] = value`.
    let c = create("constant(value=[1, 2])").unwrap();
    assert_eq!(
        weight(c.as_ref(), &[3, 2], 0),
        vec![1.0, 2.0, 1.0, 2.0, 1.0, 2.0]
    );
    assert_eq!(c.dumps(), r#"["constant", {"value": [1.0, 2.0]}]"#);
    let e = c
        .init_weight(
            &InitDesc::new("fc_weight"),
            &zeros(&[2, 3]),
            &mut Rng::new(0),
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("constant") && e.contains("fc_weight") && e.contains("(2, 3)"),
        "{e}"
    );
    assert!(create("constant(value=[[1, 2], [3]])").is_err());
}

/// Mean, variance and bounds of `x` against a distribution's, each allowed 5 standard
/// errors of its estimator for this sample size (false alarm ~6e-7 per check).
fn check_moments(what: &str, x: &[f64], mean: f64, var: f64, fourth: f64, bound: Option<f64>) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|a| (a - m).powi(2)).sum::<f64>() / (n - 1.0);
    let se_mean = (var / n).sqrt();
    // Var of the sample variance ≈ (μ4 − σ⁴)/n.
    let se_var = ((fourth - var * var) / n).sqrt();
    assert!(
        (m - mean).abs() <= 5.0 * se_mean,
        "{what}: mean {m} vs {mean} (se {se_mean})"
    );
    assert!(
        (v - var).abs() <= 5.0 * se_var,
        "{what}: variance {v} vs {var} (se {se_var})"
    );
    if let Some(b) = bound {
        // Values are float32 roundings: allow the rounding of the bound.
        let b32 = b as f32 as f64;
        assert!(
            x.iter().all(|a| a.abs() <= b32),
            "{what}: a value beyond ±{b}"
        );
        let max = x.iter().fold(0.0f64, |a, b| a.max(b.abs()));
        // The largest of n uniforms comes within b·(ln 1e6)/n of the bound but for 1e-6.
        assert!(
            max >= b * (1.0 - 14.0 / n),
            "{what}: max |x| {max} far below {b}"
        );
    }
}

fn check_uniform(what: &str, x: &[f64], s: f64) {
    check_moments(what, x, 0.0, s * s / 3.0, s.powi(4) / 5.0, Some(s));
}

fn check_normal(what: &str, x: &[f64], sigma: f64) {
    check_moments(what, x, 0.0, sigma * sigma, 3.0 * sigma.powi(4), None);
}

#[test]
fn random_initializers_have_mxnets_distributions() {
    let n = [200, 1000];
    let x = weight(create("uniform(scale=0.07)").unwrap().as_ref(), &n, 1);
    check_uniform("uniform(0.07)", &x, 0.07);
    let x = weight(create("uniform").unwrap().as_ref(), &n, 2);
    check_uniform("uniform default", &x, 0.07);
    let x = weight(create("normal(sigma=0.5)").unwrap().as_ref(), &n, 3);
    check_normal("normal(0.5)", &x, 0.5);
    let x = weight(create("normal()").unwrap().as_ref(), &n, 4);
    check_normal("normal default", &x, 0.01);
    // Xavier and MSRAPrelu on a conv and an fc shape, every fan mode: the scale is MXNet's
    // formula, written out here (xavier_and_msraprelu_scales_match_mxnet checks kiln's
    // against MXNet's own numbers).
    for shape in [vec![64usize, 32, 5, 5], vec![300, 500]] {
        let hw: f64 = shape[2..].iter().map(|&d| d as f64).product();
        let (fan_in, fan_out) = (shape[1] as f64 * hw, shape[0] as f64 * hw);
        for (fac, factor) in [
            ("avg", (fan_in + fan_out) / 2.0),
            ("in", fan_in),
            ("out", fan_out),
        ] {
            for (rnd, magnitude) in [("uniform", 3.0), ("gaussian", 2.0), ("uniform", 0.5)] {
                let spec =
                    format!("xavier(rnd_type={rnd},factor_type={fac},magnitude={magnitude})");
                let x = weight(create(&spec).unwrap().as_ref(), &shape, 5);
                let s = (magnitude / factor).sqrt();
                match rnd {
                    "uniform" => check_uniform(&spec, &x, s),
                    _ => check_normal(&spec, &x, s),
                }
            }
            for slope in [0.25, 0.0] {
                let spec = format!("msraprelu(factor_type={fac},slope={slope})");
                let x = weight(create(&spec).unwrap().as_ref(), &shape, 6);
                check_normal(&spec, &x, (2.0 / (1.0 + slope * slope) / factor).sqrt());
            }
        }
    }
    let e = weight_err("xavier", &[12]);
    assert!(e.contains("xavier") && e.contains("(12,)"), "{e}");
}

fn weight_err(spec: &str, shape: &[usize]) -> String {
    create(spec)
        .unwrap()
        .init_weight(&InitDesc::new("w_weight"), &zeros(shape), &mut Rng::new(0))
        .unwrap_err()
        .to_string()
}

#[test]
fn same_seed_same_elementss_and_the_runtimes_streams() {
    let init = create("xavier(rnd_type=gaussian)").unwrap();
    let (a, b) = (
        weight(init.as_ref(), &[20, 30], 7),
        weight(init.as_ref(), &[20, 30], 7),
    );
    assert_eq!(a, b);
    assert_ne!(a, weight(init.as_ref(), &[20, 30], 8));
    // Two arrays from one Rng differ (each has its own key).
    let mut rng = Rng::new(7);
    let (x, y) = (zeros(&[50]), zeros(&[50]));
    let u = create("uniform(0.5)").unwrap();
    u.init_weight(&InitDesc::new("a"), &x, &mut rng).unwrap();
    u.init_weight(&InitDesc::new("b"), &y, &mut rng).unwrap();
    assert_ne!(values(&x), values(&y));
    // The first array of Rng::new(s) is what the runtime's generator draws after seed(s).
    // (The only test in this binary that touches the process-wide generator.)
    kiln_runtime::random::seed(7);
    let r = kiln_runtime::random::uniform(-0.5, 0.5, &[50], DType::F32).unwrap();
    compare::close(&values(&x), &values(&r), 1e-7).unwrap();
}

#[test]
fn orthogonal_rows_or_columns_are_orthonormal() {
    for (spec, scale) in [
        ("orthogonal", 1.414),
        ("orthogonal(scale=2, rand_type=normal)", 2.0),
    ] {
        for shape in [vec![8usize, 20], vec![20, 8], vec![6, 3, 2, 2], vec![5, 5]] {
            let w = weight(create(spec).unwrap().as_ref(), &shape, 9);
            let rows = shape[0];
            let cols = w.len() / rows;
            // Gram matrix of the rows (rows ≤ cols) or of the columns.
            let by_rows = rows <= cols;
            let (k, len) = if by_rows { (rows, cols) } else { (cols, rows) };
            let at = |v: usize, j: usize| {
                if by_rows {
                    w[v * cols + j]
                } else {
                    w[j * cols + v]
                }
            };
            let mut gram = Vec::new();
            let mut eye = Vec::new();
            for u in 0..k {
                for v in 0..k {
                    gram.push((0..len).map(|j| at(u, j) * at(v, j)).sum::<f64>() / (scale * scale));
                    eye.push(if u == v { 1.0 } else { 0.0 });
                }
            }
            // float32 storage: about 1e-7 per element, summed over `len`.
            compare::close(&gram, &eye, 1e-5).unwrap_or_else(|m| panic!("{spec} {shape:?}: {m}"));
        }
    }
    assert!(weight_err("orthogonal", &[]).contains("orthogonal"));
}

#[test]
fn mixed_and_load_pass_the_call_on() {
    let mixed =
        create(r#"mixed(patterns=["fc", ".*"], initializers=[one(), constant(value=3)])"#).unwrap();
    let a = zeros(&[4]);
    let mut rng = Rng::new(0);
    mixed
        .init(&InitDesc::new("fc_weight"), &a, &mut rng)
        .unwrap();
    assert_eq!(values(&a), vec![1.0; 4]);
    mixed
        .init(&InitDesc::new("conv_weight"), &a, &mut rng)
        .unwrap();
    assert_eq!(values(&a), vec![3.0; 4]);
    // The chosen initializer dispatches by name, as in MXNet: One's bias rule is 0.
    mixed.init(&InitDesc::new("fc_bias"), &a, &mut rng).unwrap();
    assert_eq!(values(&a), vec![0.0; 4]);
    // `re.match` anchors at the start: "bias" does not match "fc_bias".
    let strict = create("mixed(patterns=[bias], initializers=[zero])").unwrap();
    let e = strict
        .init(&InitDesc::new("fc_bias"), &a, &mut rng)
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"fc_bias\" matches none"), "{e}");
    assert!(create("mixed(patterns=[a, b], initializers=[zero])").is_err());
    assert!(create("mixed(patterns=[\"(\"], initializers=[zero])").is_err());

    let src = NDArray::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let load = Load::new(
        vec![("arg:fc_weight".to_string(), src.clone())],
        Some(create("zero").unwrap()),
    );
    let w = zeros(&[3]);
    load.init(&InitDesc::new("fc_weight"), &w, &mut rng)
        .unwrap();
    assert_eq!(values(&w), vec![1.0, 2.0, 3.0]);
    let b = NDArray::full(&[3], 5.0, DType::F32, Device::Cpu).unwrap();
    load.init(&InitDesc::new("fc_bias"), &b, &mut rng).unwrap();
    assert_eq!(values(&b), vec![0.0; 3]);
    let e = load
        .init(&InitDesc::new("fc_weight"), &zeros(&[4]), &mut rng)
        .unwrap_err();
    assert!(e.to_string().contains("shape mismatch"), "{e}");
    let no_default = Load::new(Vec::new(), None);
    let e = no_default
        .init(&InitDesc::new("fc_weight"), &w, &mut rng)
        .unwrap_err();
    assert!(e.to_string().contains("no default initializer"), "{e}");
    // From a .params file, through the spec.
    let dir = std::env::temp_dir().join(format!("kiln-init-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.params");
    NDArray::save(&path, &[("arg:fc_weight", &src)]).unwrap();
    let load = create(&format!(
        "load(param=\"{}\", default_init=xavier())",
        path.display()
    ))
    .unwrap();
    let w = zeros(&[3]);
    load.init(&InitDesc::new("fc_weight"), &w, &mut rng)
        .unwrap();
    assert_eq!(values(&w), vec![1.0, 2.0, 3.0]);
    std::fs::remove_dir_all(&dir).unwrap();
    // Neither is an `__init__` attribute, as in MXNet.
    assert!(initializer::create_from_attr(r#"["mixed", {}]"#).is_err());
}

#[test]
fn spec_errors_name_the_initializer_and_the_key() {
    let cases = [
        (
            "xavier(rnd_type=foo)",
            "initializer xavier: rnd_type=foo: expected one of uniform, gaussian",
        ),
        (
            "xavier(factor_type=fan)",
            "initializer xavier: factor_type=fan: expected one of avg, in, out",
        ),
        (
            "xavier(magnitude=big)",
            "initializer xavier: magnitude=big: expected a finite number",
        ),
        (
            "uniform(scale=-1)",
            "initializer uniform: scale=-1: must not be negative",
        ),
        (
            "normal(sigma=0.1, mu=1)",
            "initializer normal: unknown argument 'mu' (it takes sigma)",
        ),
        (
            "msraprelu(slope=x)",
            "initializer msraprelu: slope=x: expected a finite number",
        ),
        (
            "constant()",
            "initializer constant: missing required argument 'value'",
        ),
        ("zero(1)", "initializer zero: takes at most 0 arguments"),
        ("nosuch()", "initializer \"nosuch\" is not registered"),
        (
            "orthogonal(rand_type=gaussian)",
            "initializer orthogonal: rand_type=gaussian",
        ),
        ("load(default_init=zero)", "initializer load: param"),
        ("xavier(", "at character 7"),
        (
            r#"["normal", {"sigma": 0.1, "mu": 1}]"#,
            "initializer normal: unknown argument 'mu'",
        ),
        (r#"["nosuch", {}]"#, "\"nosuch\" is not registered"),
    ];
    for (spec, want) in cases {
        let e = create(spec).map(|i| i.dumps()).unwrap_err().to_string();
        assert!(e.contains(want), "{spec}: {e}");
    }
}
