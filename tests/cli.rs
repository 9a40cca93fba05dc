//! The `kiln` tool end to end: `ops`, `inspect`, `run`, and its error messages.

mod common;

use common::fixture;
use kiln::ops::compare;
use std::process::{Command, Output};

fn kiln(args: &[&str]) -> Output {
    kiln_with(args, &[])
}

fn kiln_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("kiln runs")
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "kiln failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn ops_json_lists_every_operator() {
    let out = stdout(&kiln(&["ops", "--json"]));
    let list: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(list.len(), kiln::ops::registry().ops().len());
    let conv = list
        .iter()
        .find(|o| o["name"] == "Convolution")
        .expect("Convolution listed");
    for key in ["name", "aliases", "pattern", "inputs", "params", "dtypes"] {
        assert!(conv.get(key).is_some(), "missing {key}");
    }
    assert_eq!(
        conv["inputs"],
        serde_json::json!(["data", "weight", "bias"])
    );
    let softmax = list.iter().find(|o| o["name"] == "SoftmaxOutput").unwrap();
    assert_eq!(softmax["aliases"], serde_json::json!(["Softmax"]));
    let kernel = conv["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "kernel")
        .unwrap();
    assert!(kernel["default"].is_null(), "kernel is required");
}

#[test]
fn inspect_reports_shapes_params_and_flops() {
    let model = fixture("models/squeezenet1.1-symbol.json");
    let dot = std::env::temp_dir().join(format!("kiln-inspect-{}.dot", std::process::id()));
    let out = stdout(&kiln(&[
        "inspect",
        model.to_str().unwrap(),
        "--shape",
        "data=1,3,224,224",
        "--dot",
        dot.to_str().unwrap(),
    ]));
    // SqueezeNet 1.1 has 1,235,496 parameters (Iandola et al.; Gluon agrees).
    assert!(out.contains("parameters: 1235496"), "{out}");
    assert!(out.contains("(1, 1000)"));
    assert!(out.contains("Convolution") && out.contains("FLOPs"));
    let dot_text = std::fs::read_to_string(&dot).unwrap();
    assert!(dot_text.starts_with("digraph") && dot_text.contains("Convolution"));
    let _ = std::fs::remove_file(dot);
}

#[test]
fn inspect_json_holds_what_the_text_prints() {
    let model = fixture("models/squeezenet1.1-symbol.json");
    let out = stdout(&kiln(&[
        "inspect",
        model.to_str().unwrap(),
        "--shape",
        "data=1,3,224,224",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["parameters"], 1235496);
    assert_eq!(
        v["outputs"],
        serde_json::json!(["squeezenet0_flatten0_flatten0_output"])
    );
    let nodes = v["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), v["num_operators"].as_u64().unwrap() as usize);
    // The first convolution: 64 filters of 3x3 over 3 channels, stride 2 on 224x224.
    let conv = nodes.iter().find(|n| n["op"] == "Convolution").unwrap();
    assert_eq!(conv["shape"], serde_json::json!([1, 64, 111, 111]));
    assert_eq!(conv["dtype"], "float32");
    assert_eq!(conv["params"], 64 * 3 * 3 * 3 + 64);
    let last = nodes.last().unwrap();
    assert_eq!(last["shape"], serde_json::json!([1, 1000]));
    // Totals agree with the nodes and with the per-operator table.
    let sum: u64 = nodes.iter().map(|n| n["flops"].as_u64().unwrap()).sum();
    assert_eq!(v["flops"].as_u64().unwrap(), sum);
    let by_op: u64 = (v["flops_by_op"].as_object().unwrap().values())
        .map(|o| o["flops"].as_u64().unwrap())
        .sum();
    assert_eq!(by_op, sum);
    assert_eq!(v["unknown_shapes"]["operators"], 0);
    // Without the input's shape, what is unknown is null: the batch and the image size,
    // not the filters; FLOPs are not known and counted so.
    let v: serde_json::Value = serde_json::from_str(&stdout(&kiln(&[
        "inspect",
        model.to_str().unwrap(),
        "--json",
    ])))
    .unwrap();
    assert_eq!(
        v["nodes"][0]["shape"],
        serde_json::json!([null, 64, null, null])
    );
    assert!(v["nodes"][0]["flops"].is_null());
    assert_eq!(v["unknown_shapes"]["operators"], nodes.len());
}

#[test]
fn run_writes_the_interpreters_output() {
    let dir = fixture("kiln_written");
    let out_path = std::env::temp_dir().join(format!("kiln-run-{}.npy", std::process::id()));
    let p = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let run = |backend: &str| {
        let o = kiln_with(
            &[
                "run",
                &p("net-symbol.json"),
                "--params",
                &p("net-0000.params"),
                "--input",
                &format!("data={}", p("input.npy")),
                "--output",
                out_path.to_str().unwrap(),
            ],
            &[("KILN_BACKEND", backend)],
        );
        stdout(&o);
        assert!(String::from_utf8_lossy(&o.stderr).contains("backend:"));
        kiln::compiler::formats::npy::read_npy(&out_path).unwrap()
    };
    // The interpreter writes the committed file bit for bit; the JIT (f32 kernels) within
    // f32 rounding of it.
    let want = kiln::compiler::formats::npy::read_npy(dir.join("output.npy")).unwrap();
    assert_eq!(run("interp"), want);
    let got = run("jit");
    compare::same_shape(&got.shape, &want.shape).unwrap();
    compare::close(&got.data, &want.data, 1e-5).unwrap();
    let _ = std::fs::remove_file(out_path);
}

#[test]
fn errors_are_clear_and_exit_nonzero() {
    let dir = fixture("kiln_written");
    let model = dir.join("net-symbol.json");
    let cases: [(&[&str], &str); 4] = [
        (
            &["run", model.to_str().unwrap(), "--input", "dta=x.npy"],
            "the model has no input named `dta`",
        ),
        (
            &["run", model.to_str().unwrap()],
            "no value for `data` (shape unknown), `conv1_weight` (4, ?, 3, 3), ",
        ),
        (
            &["run", model.to_str().unwrap()],
            "give each with --input NAME=FILE.npy (--input data=FILE.npy) or in the --params file",
        ),
        (
            &["inspect", "/nonexistent-symbol.json"],
            "/nonexistent-symbol.json",
        ),
    ];
    for (args, want) in cases {
        let o = kiln(args);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want), "{err:?} should contain {want:?}");
    }
}

#[test]
fn bench_engine_reports_json_rows() {
    let out = stdout(&kiln(&["bench", "engine", "--json", "--runs", "2"]));
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    for row in rows {
        for key in [
            "workload",
            "variant",
            "median_ms",
            "min_ms",
            "runs",
            "us_per_op",
            "sequential_us_per_op",
        ] {
            assert!(row.get(key).is_some(), "missing {key} in {row}");
        }
        assert!(row["us_per_op"].as_f64().unwrap() > 0.0);
    }
    let o = kiln(&["bench", "nothing"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown workload `nothing`"));
}

/// `bench gemm` reports the machine's parameters (the in-place-B slowdown among them) and
/// rates against its peak;
/// `bench gpu-elementwise` runs W1 through the GPU executor on the emulated device, against
/// the device's copy.
#[test]
fn bench_gemm_and_the_emulated_gpu_report_json_rows() {
    let rows = |args: &[&str]| -> Vec<serde_json::Value> {
        (stdout(&kiln(args)).lines())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let gemm = rows(&["bench", "gemm", "--json", "--runs", "1"]);
    assert_eq!(gemm.len(), 13, "peak, then 4 shapes in 3 variants");
    let peak = gemm[0]["peak_gflops"].as_f64().unwrap();
    assert!(peak > 0.0 && gemm[0]["kc"].as_u64().unwrap() >= 128);
    let slowdown = gemm[0]["in_place_b_slowdown"].as_f64().unwrap();
    assert!(slowdown >= 1.0 && slowdown.is_finite(), "{}", gemm[0]);
    for row in &gemm[1..] {
        let of_peak = row["of_peak"].as_f64().unwrap();
        assert!(of_peak > 0.0 && of_peak.is_finite(), "{row}");
    }
    let gpu = rows(&[
        "bench",
        "gpu-elementwise",
        "--device",
        "emulated",
        "--log2-size",
        "8",
        "--json",
        "--runs",
        "1",
    ]);
    let variants: Vec<&str> = gpu.iter().map(|r| r["variant"].as_str().unwrap()).collect();
    assert_eq!(variants, ["copy", "executor"]);
    assert_eq!(gpu[1]["elements"], 256);
    assert!(gpu[1]["of_copy"].as_f64().unwrap() > 0.0);
}

#[test]
fn grad_writes_mxnet_gradients() {
    use kiln::compiler::formats::{npy, params};
    let file = common::params("train/mlp.params");
    let dir = std::env::temp_dir().join(format!("kiln-grad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Weights in one file, inputs as .npy, as a user would have them.
    let mut weights = kiln::compiler::ParamFile::default();
    for (key, t) in file.named().unwrap() {
        if key.starts_with("arg:") && key != "arg:data" && key != "arg:softmax_label" {
            weights.names.push(key.to_string());
            weights.arrays.push(t.clone());
        }
    }
    params::write_params(dir.join("w.params"), &weights).unwrap();
    npy::write_npy(dir.join("data.npy"), file.get("arg:data").unwrap()).unwrap();
    npy::write_npy(
        dir.join("label.npy"),
        file.get("arg:softmax_label").unwrap(),
    )
    .unwrap();
    let p = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let model = fixture("train/mlp-symbol.json");
    stdout(&kiln(&[
        "grad",
        model.to_str().unwrap(),
        "--params",
        &p("w.params"),
        "--input",
        &format!("data={}", p("data.npy")),
        "--input",
        &format!("softmax_label={}", p("label.npy")),
        "--output-grads",
        &p("grads.params"),
    ]));
    let grads = params::read_params(dir.join("grads.params")).unwrap();
    assert_eq!(
        grads.names,
        ["fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]
    );
    for (name, t) in grads.named().unwrap() {
        let want = file.get(&format!("grad:{name}")).unwrap();
        assert!(common::compare(t, want, 1e-5).is_none(), "{name}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn plan_reports_kernels_groups_and_memory() {
    let model = fixture("models/squeezenet1.1-symbol.json");
    let out = stdout(&kiln(&[
        "plan",
        model.to_str().unwrap(),
        "--shape",
        "data=4,3,224,224",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["kernels"].as_u64().unwrap() > 0 && v["products"].as_u64().unwrap() > 0);
    assert!(v["groups"][0]["ops"].is_array() && v["groups"][0]["reason"].is_string());
    let m = &v["memory_mb"];
    for key in [
        "naive",
        "inplace",
        "coshare",
        "both",
        "kiln",
        "executed",
        "lower_bound",
    ] {
        assert!(m[key].as_f64().unwrap() > 0.0, "{key}");
    }
    // What the plan reports is what an executor bound for it allocates.
    assert_eq!(m["kiln"], m["executed"]);
    assert!(m["arena"].as_f64() >= m["lower_bound"].as_f64());
}

#[test]
fn plan_prints_kernels_as_loops_and_cuda() {
    let model = fixture("zoo/mlp-symbol.json");
    let run = |form| {
        stdout(&kiln(&[
            "plan",
            model.to_str().unwrap(),
            "--shape",
            "data=32,784",
            "--kernels",
            form,
        ]))
    };
    // Flatten of a (32, 784) input: the composed reshape indices simplify to a copy.
    let loops = run("loops");
    assert!(
        loops.contains("out0[(i0*784 + i1)] = in0[(i0*784 + i1)]"),
        "{loops}"
    );
    // FullyConnected runs on gemm; its bias and ReLU are the epilogue reading the product.
    assert!(
        loops.contains("t1 = add(t0, in2[i1])")
            && loops.contains("out0[(i0*128 + i1)] = select(gt(t1, 0.0), t1, 0.0)"),
        "{loops}"
    );
    assert!(run("rust").contains("pub mod g0_0 {"));
    let cuda = run("cuda");
    assert!(cuda.contains("extern \"C\" __global__ void g0_0(const float* __restrict__ in0, float* __restrict__ out0, long long n)"), "{cuda}");
}

/// `kiln bench ... --profile FILE` writes a Chrome trace: thread names, then one complete
/// event per operation with its thread, start and duration — segments, the kernels and
/// products inside them with the bytes they move, and the products' phases.
#[cfg(feature = "llvm")]
#[test]
fn bench_profiles_are_chrome_traces_of_operations_and_kernels() {
    let dir = std::env::temp_dir().join(format!("kiln-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("trace.json");
    let out = kiln(&[
        "bench",
        "mlp-train",
        "--runs",
        "1",
        "--profile",
        path.to_str().unwrap(),
    ]);
    stdout(&out);
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let threads: Vec<&str> = (events.iter())
        .filter(|e| e["ph"] == "M")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    assert!(
        threads.iter().any(|t| t.starts_with("kiln-engine-worker")),
        "{threads:?}"
    );
    let complete: Vec<&serde_json::Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    for e in &complete {
        assert!(e["name"].is_string() && e["tid"].is_u64(), "{e}");
        assert!(
            e["ts"].as_f64().unwrap() >= 0.0 && e["dur"].as_f64().unwrap() >= 0.0,
            "{e}"
        );
    }
    let named = |p: &str| {
        complete
            .iter()
            .filter(|e| e["name"].as_str().unwrap().contains(p))
            .count()
    };
    assert!(named("backward[") > 0, "no backward segment");
    assert!(
        named("/gemm") > 0 && named("sgd_update") > 0,
        "no product phase or update"
    );
    // FullyConnected's weight gradient reads 128×512 and 128×784 floats at least.
    let most = (complete.iter())
        .filter_map(|e| e["args"]["bytes"].as_u64())
        .max()
        .unwrap_or(0);
    assert!(
        most >= 4 * 128 * (784 + 512),
        "largest operation moves {most} bytes"
    );
    std::fs::remove_dir_all(&dir).ok();
}
