//! Every `kiln` subcommand against a gallery of malformed files and arguments. Each case
//! must exit non-zero with a message of one line (plus at most one `cause:` line) on
//! stderr that names the file or argument and what is wrong, print no panic text, and
//! leave no output file — nor a temporary — behind.
//!
//! The gallery, made here in a folder of the test's own from one small valid model
//! (`data` (2, 3) → FullyConnected(4) → relu) and its valid files:
//! - symbol JSON: empty, truncated, not UTF-8, not an object, no `nodes`, a cycle, an input
//!   naming a node that does not exist, a head out of range, an unknown operator, an
//!   attribute that does not parse, a negative attribute, an unknown attribute value;
//! - `.params`: empty, a wrong magic, truncated in a record, a header claiming 2^40
//!   arrays, a record claiming a (2^40, 2^40) array, a record claiming 2^20 × 2^20 values
//!   it does not hold, an unknown dtype code, an unnamed list, a weight of the wrong shape,
//!   a name that is no argument (`grad`);
//! - `.npy`: a bad magic, a header without `descr`, a shape that does not parse, an
//!   unsupported version, an unsupported dtype (complex), truncated values, a shape of
//!   2^32 × 2^32, the wrong dtype (float64 for a float32 model), the wrong shape;
//! - paths: missing files and folders given as the model, `--params` or `--input`; outputs
//!   (`--output`, `--output-grads`, `--dot`, `--profile`) in a missing folder, in a folder
//!   that is a file, that are folders, in a folder that cannot be written (skipped where
//!   the test runs as a user that may write anywhere);
//! - arguments: `--input` without `=` or naming no input, no `--input` for `data`,
//!   `--shape` with a 0, with a dimension past 2^64, with dimensions whose product
//!   overflows, not numbers, naming no input; `bench` with `--runs 0`, `--batch 0`, an
//!   unknown workload; `ops` with an argument it does not take.
//!
//! clap's own usage errors end with its `Usage:` and `For more information` lines, which
//! are not counted.

use kiln::compiler::formats::{npy, params};
use kiln::compiler::ParamFile;
use kiln::{DType, Tensor};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A folder of this test process's own.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("kiln-bad-input-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// The valid model's JSON with `nodes` replaced.
fn model(nodes: serde_json::Value, heads: serde_json::Value) -> String {
    json!({
        "nodes": nodes,
        "arg_nodes": [0, 1, 2],
        "heads": heads,
        "attrs": {"mxnet_version": ["int", 10901]},
    })
    .to_string()
}

fn nodes_with(
    fc_op: &str,
    fc_attrs: serde_json::Value,
    relu_inputs: serde_json::Value,
) -> serde_json::Value {
    json!([
        {"op": "null", "name": "data", "inputs": []},
        {"op": "null", "name": "fc_weight", "inputs": []},
        {"op": "null", "name": "fc_bias", "inputs": []},
        {"op": fc_op, "name": "fc", "attrs": fc_attrs, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
        {"op": "Activation", "name": "relu", "attrs": {"act_type": "relu"}, "inputs": relu_inputs},
    ])
}

fn valid_model() -> String {
    model(
        nodes_with(
            "FullyConnected",
            json!({"num_hidden": "4"}),
            json!([[3, 0, 0]]),
        ),
        json!([[4, 0, 0]]),
    )
}

fn f32s(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::new(
        DType::F32,
        shape.to_vec(),
        (0..n).map(|i| i as f64 * 0.25 - 1.0).collect(),
    )
}

fn params_bytes(entries: &[(&str, Tensor)]) -> Vec<u8> {
    params::save_params(&ParamFile {
        names: entries.iter().map(|(n, _)| n.to_string()).collect(),
        arrays: entries.iter().map(|(_, t)| t.clone()).collect(),
    })
    .unwrap()
}

/// A params file of one record with the given header words after the list header.
fn params_record(count: u64, record: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    for w in [0x112u64, 0, count] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b.extend_from_slice(record);
    b
}

/// A V2 dense record header: magic, storage type, shape, context, dtype code.
fn record_header(shape: &[i64], code: i32) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&0xF993_FAC9u32.to_le_bytes());
    b.extend_from_slice(&0i32.to_le_bytes());
    b.extend_from_slice(&(shape.len() as i32).to_le_bytes());
    for d in shape {
        b.extend_from_slice(&d.to_le_bytes());
    }
    for w in [1i32, 0, code] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b
}

/// A `.npy` with the given header text.
fn npy_with_header(version: u8, header: &str, data: &[u8]) -> Vec<u8> {
    let mut b = b"\x93NUMPY".to_vec();
    b.extend_from_slice(&[version, 0]);
    b.extend_from_slice(&(header.len() as u16).to_le_bytes());
    b.extend_from_slice(header.as_bytes());
    b.extend_from_slice(data);
    b
}

struct Gallery {
    dir: PathBuf,
}

impl Gallery {
    fn file(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        let path = self.dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        s(&path)
    }
}

/// One row of the table: the arguments, what the message must contain, the output path
/// that must not exist afterwards.
struct Case {
    args: Vec<String>,
    expect: Vec<String>,
}

fn case(args: &[&str], expect: &[&str]) -> Case {
    Case {
        args: args.iter().map(|a| a.to_string()).collect(),
        expect: expect.iter().map(|a| a.to_string()).collect(),
    }
}

/// Lines of stderr that are the message, without clap's usage trailer.
fn message_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| {
            let l = l.trim();
            !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
        })
        .collect()
}

/// Checks one case; `None` when it holds, else what went wrong.
fn check(case: &Case, out_dir: &Path) -> Option<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(&case.args)
        .env("KILN_CACHE_DIR", out_dir.join("..").join("cache"))
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("kiln runs");
    let err = String::from_utf8_lossy(&o.stderr);
    let mut wrong = Vec::new();
    if o.status.success() || o.status.code().is_none() {
        wrong.push(format!("exit status {}", o.status));
    }
    let lines = message_lines(&err);
    match lines.as_slice() {
        [first] | [first, _] if first.starts_with("error:") => {
            if let [_, cause] = lines.as_slice() {
                if !cause.trim_start().starts_with("cause:") {
                    wrong.push("the second line is no `cause:` line".into());
                }
            }
        }
        _ => wrong.push(format!(
            "{} lines, not `error:` and at most a cause",
            lines.len()
        )),
    }
    for want in &case.expect {
        if !err.contains(want.as_str()) {
            wrong.push(format!("the message does not name {want:?}"));
        }
    }
    for panic in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        if err.contains(panic) {
            wrong.push(format!("panic text {panic:?}"));
        }
    }
    let left: Vec<String> = std::fs::read_dir(out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    if !left.is_empty() {
        wrong.push(format!("left behind in the output folder: {left:?}"));
        for name in left {
            let _ = std::fs::remove_file(out_dir.join(name));
        }
    }
    (!wrong.is_empty()).then(|| {
        format!(
            "kiln {:?}\n    {}\n    stderr: {err:?}",
            case.args,
            wrong.join("; ")
        )
    })
}

#[test]
fn every_subcommand_refuses_malformed_input_clearly() {
    let g = Gallery {
        dir: folder("gallery"),
    };
    let out = folder("out");
    let o = |name: &str| s(&out.join(name));

    // The valid files each case breaks one thing of.
    let model_ok = g.file("net-symbol.json", valid_model());
    let params_ok = g.file(
        "net.params",
        params_bytes(&[
            ("arg:fc_weight", f32s(&[4, 3])),
            ("arg:fc_bias", f32s(&[4])),
        ]),
    );
    let data_ok = g.file("data.npy", npy::save_npy(&f32s(&[2, 3])));
    let input_ok = format!("data={data_ok}");

    // Symbol JSON.
    let valid = valid_model();
    let mut models: Vec<(String, Vec<&str>)> = vec![
        (g.file("empty-symbol.json", ""), vec!["empty-symbol.json"]),
        (
            g.file("truncated-symbol.json", &valid[..valid.len() / 2]),
            vec!["truncated-symbol.json"],
        ),
        (
            g.file("garbage-symbol.json", [0xffu8, 0xfe, 0x00, 0x93, 0x12]),
            vec!["garbage-symbol.json"],
        ),
        (
            g.file("array-symbol.json", "[1, 2, 3]"),
            vec!["array-symbol.json"],
        ),
        (
            g.file("no-nodes-symbol.json", r#"{"heads": [[0, 0, 0]]}"#),
            vec!["no-nodes-symbol.json"],
        ),
    ];
    let variants = [
        (
            "cycle",
            nodes_with(
                "FullyConnected",
                json!({"num_hidden": "4"}),
                json!([[3, 0, 0]]),
            ),
        ),
        (
            "dangling",
            nodes_with(
                "FullyConnected",
                json!({"num_hidden": "4"}),
                json!([[7, 0, 0]]),
            ),
        ),
        (
            "unknown-op",
            nodes_with(
                "FullyConected",
                json!({"num_hidden": "4"}),
                json!([[3, 0, 0]]),
            ),
        ),
        (
            "bad-attr",
            nodes_with(
                "FullyConnected",
                json!({"num_hidden": "four"}),
                json!([[3, 0, 0]]),
            ),
        ),
        (
            "negative-attr",
            nodes_with(
                "FullyConnected",
                json!({"num_hidden": "-4"}),
                json!([[3, 0, 0]]),
            ),
        ),
        (
            "bad-enum",
            nodes_with(
                "Activation",
                json!({"act_type": "relu6"}),
                json!([[3, 0, 0]]),
            ),
        ),
    ];
    for (name, mut nodes) in variants {
        if name == "cycle" {
            // fc reads relu, which reads fc.
            nodes[3]["inputs"] = json!([[4, 0, 0], [1, 0, 0], [2, 0, 0]]);
        }
        if name == "bad-enum" {
            nodes[3]["inputs"] = json!([[0, 0, 0]]);
        }
        let file = format!("{name}-symbol.json");
        let path = g.file(&file, model(nodes, json!([[4, 0, 0]])));
        // A value that parses but is out of range is found by inference, at the node.
        let expect = match name {
            "negative-attr" => vec!["FullyConnected `fc`", "num_hidden", "-4"],
            _ => vec![],
        };
        models.push((path, expect));
    }
    let out_of_range = model(
        nodes_with(
            "FullyConnected",
            json!({"num_hidden": "4"}),
            json!([[3, 0, 0]]),
        ),
        json!([[9, 0, 0]]),
    );
    models.push((
        g.file("head-out-of-range-symbol.json", out_of_range),
        vec![],
    ));
    let missing = s(&g.dir.join("missing-symbol.json"));
    models.push((missing.clone(), vec!["missing-symbol.json"]));
    models.push((s(&g.dir), vec![]));

    let mut cases = Vec::new();
    for (m, expect) in &models {
        let mut named = expect.clone();
        if named.is_empty() {
            named.push(m.rsplit('/').next().unwrap());
        }
        cases.push(case(&["inspect", m, "--shape", "data=2,3"], &named));
        cases.push(case(&["plan", m, "--shape", "data=2,3"], &named));
        cases.push(case(
            &[
                "run",
                m,
                "--params",
                &params_ok,
                "--input",
                &input_ok,
                "--output",
                &o("y.npy"),
            ],
            &named,
        ));
        cases.push(case(
            &[
                "grad",
                m,
                "--params",
                &params_ok,
                "--input",
                &input_ok,
                "--output-grads",
                &o("g.params"),
            ],
            &named,
        ));
    }

    // .params files.
    let valid_params = std::fs::read(&params_ok).unwrap();
    let mut huge = record_header(&[1 << 40, 1 << 40], 0);
    huge.extend_from_slice(&[0; 16]);
    let params_gallery: Vec<(String, &str)> = vec![
        (g.file("empty.params", ""), "truncated"),
        (
            g.file("magic.params", {
                let mut b = valid_params.clone();
                b[0] = 0x13;
                b
            }),
            "magic",
        ),
        (
            g.file("truncated.params", &valid_params[..valid_params.len() - 40]),
            "truncated",
        ),
        (
            g.file("count.params", params_record(1 << 40, &[])),
            "array count",
        ),
        (
            g.file("huge.params", params_record(1, &huge)),
            "(1099511627776, 1099511627776)",
        ),
        (
            g.file(
                "claims.params",
                params_record(1, &record_header(&[1 << 20, 1 << 20], 0)),
            ),
            "truncated",
        ),
        (
            g.file("dtype.params", params_record(1, &record_header(&[2], 99))),
            "dtype code 99",
        ),
        (
            g.file("list.params", {
                let mut f = params::load_params(&valid_params).unwrap();
                f.names.clear();
                params::save_params(&f).unwrap()
            }),
            "unnamed list",
        ),
        (
            g.file(
                "shape.params",
                params_bytes(&[
                    ("arg:fc_weight", f32s(&[4, 5])),
                    ("arg:fc_bias", f32s(&[4])),
                ]),
            ),
            "(4, 5)",
        ),
        (s(&g.dir.join("missing.params")), "No such file"),
        (s(&g.dir), "directory"),
    ];
    for (p, what) in &params_gallery {
        let file = p.rsplit('/').next().unwrap();
        cases.push(case(
            &[
                "run",
                &model_ok,
                "--params",
                p,
                "--input",
                &input_ok,
                "--output",
                &o("y.npy"),
            ],
            &[file, what],
        ));
        cases.push(case(
            &[
                "grad",
                &model_ok,
                "--params",
                p,
                "--input",
                &input_ok,
                "--output-grads",
                &o("g.params"),
            ],
            &[file, what],
        ));
    }
    let extra = g.file(
        "extra.params",
        params_bytes(&[
            ("arg:fc_weight", f32s(&[4, 3])),
            ("arg:fc_bais", f32s(&[4])),
        ]),
    );
    cases.push(case(
        &[
            "grad",
            &model_ok,
            "--params",
            &extra,
            "--input",
            &input_ok,
            "--output-grads",
            &o("g.params"),
        ],
        &["extra.params", "arg:fc_bais", "fc_bias"],
    ));

    // .npy files.
    let valid_npy = std::fs::read(&data_ok).unwrap();
    let header = |descr: &str, shape: &str| {
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}\n")
    };
    let npys: Vec<(String, &str)> = vec![
        (g.file("magic.npy", b"\x93NUMPX\x01\x00"), "magic"),
        (
            g.file(
                "no-descr.npy",
                npy_with_header(1, "{'shape': (2, 3), }\n", &[0; 24]),
            ),
            "descr",
        ),
        (
            g.file(
                "bad-shape.npy",
                npy_with_header(1, &header("<f4", "(2, x)"), &[0; 24]),
            ),
            "shape",
        ),
        (
            g.file(
                "version.npy",
                npy_with_header(9, &header("<f4", "(2, 3)"), &[0; 24]),
            ),
            "version 9",
        ),
        (
            g.file(
                "complex.npy",
                npy_with_header(1, &header("<c16", "(2, 3)"), &[0; 96]),
            ),
            "<c16",
        ),
        (
            g.file("truncated.npy", &valid_npy[..valid_npy.len() - 5]),
            "truncated.npy",
        ),
        (
            g.file(
                "huge.npy",
                npy_with_header(1, &header("<f4", "(4294967296, 4294967296)"), &[]),
            ),
            "(4294967296, 4294967296)",
        ),
        (
            g.file(
                "f64.npy",
                npy::save_npy(&Tensor::new(DType::F64, vec![2, 3], vec![0.5; 6])),
            ),
            "float64",
        ),
        (
            g.file("wrong-shape.npy", npy::save_npy(&f32s(&[2, 5]))),
            "holds (2, 5) float32",
        ),
        (s(&g.dir.join("missing.npy")), "No such file"),
        (s(&g.dir), "directory"),
    ];
    for (p, what) in &npys {
        let file = p.rsplit('/').next().unwrap();
        let input = format!("data={p}");
        cases.push(case(
            &[
                "run",
                &model_ok,
                "--params",
                &params_ok,
                "--input",
                &input,
                "--output",
                &o("y.npy"),
            ],
            &[file, what],
        ));
        cases.push(case(
            &[
                "grad",
                &model_ok,
                "--params",
                &params_ok,
                "--input",
                &input,
                "--output-grads",
                &o("g.params"),
            ],
            &[file, what],
        ));
    }
    cases.push(case(
        &[
            "run",
            &model_ok,
            "--params",
            &params_ok,
            "--input",
            &format!("data={}", npys[7].0),
        ],
        &["--input data=", "f64.npy", "float64", "float32"],
    ));

    // Output paths.
    let plain_file = g.file("plain.txt", "not a folder");
    let mut outputs = vec![
        (s(&out.join("no/such/folder/y")), "does not exist"),
        (format!("{plain_file}/y"), "not a folder"),
        (s(&g.dir), "is a folder"),
    ];
    let locked = g.dir.join("locked");
    std::fs::create_dir_all(&locked).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(locked.join("probe"), "").is_err() {
            outputs.push((s(&locked.join("y")), "cannot write"));
        } else {
            eprintln!("skipped the unwritable folder: this user may write anywhere");
        }
    }
    for (path, what) in &outputs {
        cases.push(case(
            &[
                "run", &model_ok, "--params", &params_ok, "--input", &input_ok, "--output", path,
            ],
            &["--output", what],
        ));
        cases.push(case(
            &[
                "grad",
                &model_ok,
                "--params",
                &params_ok,
                "--input",
                &input_ok,
                "--output-grads",
                path,
            ],
            &["--output-grads", what],
        ));
        cases.push(case(
            &["inspect", &model_ok, "--dot", path],
            &["--dot", what],
        ));
        cases.push(case(
            &["bench", "engine", "--runs", "1", "--profile", path],
            &["--profile", what],
        ));
    }

    // Arguments.
    for sub in ["inspect", "plan"] {
        for (shape, what) in [
            ("data=0,3", "dimension 0"),
            ("data=2,99999999999999999999999", "99999999999999999999999"),
            ("data=4294967296,4294967296", "more elements"),
            ("data=a,3", "\"a\""),
            ("data", "NAME=D0"),
            ("nosuch=2,3", "nosuch"),
        ] {
            cases.push(case(&[sub, &model_ok, "--shape", shape], &[what]));
        }
    }
    for (input, what) in [
        ("data", "NAME=FILE"),
        ("dta=x.npy", "no input named `dta`"),
        ("=x.npy", "NAME=FILE"),
    ] {
        cases.push(case(
            &["run", &model_ok, "--params", &params_ok, "--input", input],
            &[what],
        ));
    }
    cases.push(case(
        &["run", &model_ok, "--params", &params_ok],
        &["`data`", "--input data=FILE.npy"],
    ));
    cases.push(case(
        &[
            "grad",
            &model_ok,
            "--params",
            &params_ok,
            "--output-grads",
            &o("g.params"),
        ],
        &["`data`", "--input data=FILE.npy"],
    ));
    cases.push(case(
        &[
            "run",
            &model_ok,
            "--params",
            &params_ok,
            "--input",
            &input_ok,
            "--output",
            &o("a.npy"),
            "--output",
            &o("b.npy"),
        ],
        &["2 --output files", "1 outputs"],
    ));
    cases.push(case(
        &["bench", "engine", "--runs", "0"],
        &["--runs", "at least 1"],
    ));
    cases.push(case(
        &["bench", "mlp-train", "--batch", "0"],
        &["--batch", "at least 1"],
    ));
    cases.push(case(&["bench", "nothing"], &["unknown workload `nothing`"]));
    cases.push(case(
        &["bench", "gpu-elementwise", "--device", "cpu"],
        &["`bench gpu-elementwise` does not run on --device cpu"],
    ));
    cases.push(case(
        &["bench", "jit", "--device", "emulated"],
        &["`bench jit` does not run on --device emulated"],
    ));
    cases.push(case(&["ops", "extra"], &["extra"]));

    let failures: Vec<String> = cases.iter().filter_map(|c| check(c, &out)).collect();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755));
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let _ = std::fs::remove_dir_all(g.dir.parent().unwrap());
}
