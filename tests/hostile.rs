//! Inputs meant to break kiln, through the `kiln` tool: chains that would blow up
//! kernel expressions or the call stack, shapes whose sizes overflow, output cut short.
//! Each input is made here, in a folder of the test's own.

use kiln::compiler::formats::npy;
use kiln::{DType, Tensor};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn kiln(args: &[&str]) -> Output {
    kiln_with(args, &[])
}

/// `kiln` with these environment variables.
fn kiln_with(args: &[&str], vars: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .env("KILN_CACHE_DIR", folder("cache"))
        .envs(vars.iter().copied())
        .output()
        .expect("kiln runs")
}

/// A folder of this test process's own under the temporary folder.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("kiln-hostile-{}", std::process::id()))
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(o: Output, what: &str) -> String {
    assert!(o.status.success(), "{what}: {}", text(&o.stderr));
    text(&o.stdout)
}

/// The symbol JSON of `op` applied `n` times in a row to variable `data`.
fn chain(dir: &Path, op: &str, n: usize) -> PathBuf {
    let mut nodes = vec![json!({"op": "null", "name": "data", "inputs": []})];
    for i in 0..n {
        nodes.push(json!({"op": op, "name": format!("{op}{i}"), "inputs": [[i, 0, 0]]}));
    }
    let sym = json!({
        "nodes": nodes,
        "arg_nodes": [0],
        "node_row_ptr": (0..=n + 1).collect::<Vec<_>>(),
        "heads": [[n, 0, 0]],
        "attrs": {"mxnet_version": ["int", 10901]},
    });
    let path = dir.join(format!("{op}{n}-symbol.json"));
    std::fs::write(&path, sym.to_string()).unwrap();
    path
}

fn write_npy(path: &Path, t: &Tensor) -> String {
    npy::write_npy(path, t).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn long_chains_of_operators_reading_their_input_twice_run() {
    // relu reads its input twice (`x > 0 ? x : 0`); 5000 of them once built 2^5000-node
    // kernels, and before that overflowed the stack lowering and dropping the chain.
    let dir = folder("relu-chain");
    let model = chain(&dir, "relu", 5000);
    let x = Tensor::new(
        DType::F32,
        vec![2, 3],
        vec![-1.5, 2.0, -0.0, 4.0, -5.0, 6.25],
    );
    let input = format!("data={}", write_npy(&dir.join("x.npy"), &x));
    let out = dir.join("y.npy");
    let o = kiln(&[
        "run",
        model.to_str().unwrap(),
        "--input",
        &input,
        "--output",
        out.to_str().unwrap(),
    ]);
    ok(o, "kiln run");
    let y = npy::read_npy(&out).unwrap();
    assert_eq!(y.data, vec![0.0, 2.0, 0.0, 4.0, 0.0, 6.25]);
}

#[test]
fn deep_graphs_plan_without_exhausting_the_stack() {
    let dir = folder("deep");
    let model = chain(&dir, "negative", 20_000);
    let o = kiln(&[
        "plan",
        model.to_str().unwrap(),
        "--shape",
        "data=2,3",
        "--kernels",
        "loops",
    ]);
    let out = ok(o, "kiln plan");
    assert!(out.contains("20001 nodes after passes"), "{}", &out[..200]);
    assert!(out.contains("1 compiled kernels"), "{}", &out[..200]);
}

#[test]
fn output_cut_short_by_a_closed_pipe_ends_quietly() {
    // More than a pipe holds, so kiln is still writing when the reader goes away.
    for args in [&["ops"][..], &["ops", "--json"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 64];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        #[cfg(unix)]
        let by_sigpipe = std::os::unix::process::ExitStatusExt::signal(&o.status) == Some(13);
        #[cfg(not(unix))]
        let by_sigpipe = false;
        assert!(
            o.status.success() || by_sigpipe,
            "kiln {args:?}: {:?}\n{}",
            o.status,
            text(&o.stderr)
        );
        assert!(o.stderr.is_empty(), "kiln {args:?}: {}", text(&o.stderr));
    }
}

/// A version 1.0 `.npy` of float32 whose header says `shape` and that holds `data`.
fn npy_with_header(path: &Path, shape: &str, data: &[u8]) -> String {
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
    header.push_str(&" ".repeat((64 - (11 + header.len()) % 64) % 64));
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(data);
    std::fs::write(path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

/// An MXNet params file of one float32 array named `name`, of `dims` by its header,
/// holding `data`.
fn params_with_header(path: &Path, name: &str, dims: &[i64], data: &[u8]) -> String {
    let mut b = Vec::new();
    for w in [0x112u64, 0, 1] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b.extend_from_slice(&0xF993_FAC9u32.to_le_bytes());
    b.extend_from_slice(&0i32.to_le_bytes());
    b.extend_from_slice(&(dims.len() as i32).to_le_bytes());
    for d in dims {
        b.extend_from_slice(&d.to_le_bytes());
    }
    for w in [1i32, 0, 0] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b.extend_from_slice(data);
    b.extend_from_slice(&1u64.to_le_bytes());
    b.extend_from_slice(&(name.len() as u64).to_le_bytes());
    b.extend_from_slice(name.as_bytes());
    std::fs::write(path, b).unwrap();
    path.to_str().unwrap().to_string()
}

/// kiln failed with a typed error (exit 1, no panic) whose message holds each of `says`.
fn refused(o: Output, what: &str, says: &[&str]) {
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{what}: {:?}\n{stderr}", o.status);
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    for s in says {
        assert!(stderr.contains(s), "{what}: no `{s}` in {stderr}");
    }
}

/// A symbol of one operator node over variables, as MXNet writes it.
fn one_op(dir: &Path, name: &str, op: &str, attrs: serde_json::Value, vars: &[&str]) -> String {
    let mut nodes: Vec<_> = vars
        .iter()
        .map(|v| json!({"op": "null", "name": v, "inputs": []}))
        .collect();
    let inputs: Vec<_> = (0..vars.len()).map(|i| json!([i, 0, 0])).collect();
    nodes.push(json!({"op": op, "name": name, "attrs": attrs, "inputs": inputs}));
    let sym = json!({
        "nodes": nodes,
        "arg_nodes": (0..vars.len()).collect::<Vec<_>>(),
        "node_row_ptr": (0..=vars.len() + 1).collect::<Vec<_>>(),
        "heads": [[vars.len(), 0, 0]],
        "attrs": {"mxnet_version": ["int", 10901]},
    });
    let path = dir.join(format!("{name}-symbol.json"));
    std::fs::write(&path, sym.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn shapes_whose_sizes_overflow_are_refused_naming_them() {
    let dir = folder("overflow");
    let relu = chain(&dir, "relu", 2);
    let model = relu.to_str().unwrap();
    // 2^32 × 2^32 elements wrap to 0: an 88-byte file once ran kernels on empty buffers.
    let huge = "(4294967296, 4294967296)";
    let npy = npy_with_header(&dir.join("huge.npy"), huge, &[]);
    refused(
        kiln(&["run", model, "--input", &format!("data={npy}")]),
        "a .npy",
        &["huge.npy", "(4294967296, 4294967296)"],
    );
    let x = Tensor::new(DType::F32, vec![2, 3], vec![1.0; 6]);
    let input = format!("data={}", write_npy(&dir.join("x.npy"), &x));
    let params = params_with_header(&dir.join("huge.params"), "w", &[1 << 32, 1 << 32], &[]);
    refused(
        kiln(&["run", model, "--params", &params, "--input", &input]),
        "a .params",
        &["huge.params", "array 0", "(4294967296, 4294967296)"],
    );
    // Shapes inference makes: an operator's attribute, a given input shape.
    let uniform = one_op(
        &dir,
        "noise",
        "_random_uniform",
        json!({"shape": huge}),
        &[],
    );
    let out = dir.join("noise.npy");
    refused(
        kiln(&["run", &uniform, "--output", out.to_str().unwrap()]),
        "_random_uniform",
        &["`noise`", huge],
    );
    assert!(!out.exists(), "no .npy is written");
    let fc = one_op(
        &dir,
        "fc",
        "FullyConnected",
        json!({"num_hidden": (1u64 << 62).to_string()}),
        &["data", "fc_weight", "fc_bias"],
    );
    for cmd in ["inspect", "plan"] {
        refused(
            kiln(&[cmd, &fc, "--shape", "data=2,3"]),
            "num_hidden 2^62",
            &["`fc`", "`weight`", "(4611686018427387904, 3)"],
        );
    }
    // A given shape is refused as it is parsed, a usage error (clap's exit status 2).
    let o = kiln(&["plan", model, "--shape", "data=4294967296,4294967296"]);
    assert_eq!(o.status.code(), Some(2), "a given shape: {:?}", o.status);
    let stderr = text(&o.stderr);
    assert!(!stderr.contains("panicked"), "a given shape: {stderr}");
    for s in ["`data`", huge] {
        assert!(stderr.contains(s), "a given shape: no `{s}` in {stderr}");
    }
    // Each value fits an array, but not all of them together: the memory plan's sums
    // would overflow.
    let fc = one_op(
        &dir,
        "fc58",
        "FullyConnected",
        json!({"num_hidden": (1u64 << 58).to_string()}),
        &["data", "fc58_weight", "fc58_bias"],
    );
    refused(
        kiln(&["plan", &fc, "--shape", "data=2,3"]),
        "values too large together",
        &["`fc58_weight`", "(288230376151711744, 3)"],
    );
}

#[test]
fn memory_the_machine_cannot_give_is_an_error_not_an_abort() {
    // 2^58 values are within an array's bound, but 2^61 bytes are more than any machine
    // gives: the head gradient (the output itself), or a node's outputs inside the graph.
    let dir = folder("allocation");
    let one = 1.0f32.to_le_bytes();
    let params = params_with_header(&dir.join("w.params"), "w", &[1, 1], &one);
    let huge = "(268435456, 1073741824)";
    let node = |op: &str, name: &str, attrs: serde_json::Value, inputs: serde_json::Value| json!({"op": op, "name": name, "attrs": attrs, "inputs": inputs});
    let noise = node(
        "_random_uniform",
        "noise",
        json!({"shape": huge}),
        json!([]),
    );
    let add = node(
        "broadcast_add",
        "add",
        json!({}),
        json!([[0, 0, 0], [1, 0, 0]]),
    );
    let sum = node("sum", "total", json!({}), json!([[2, 0, 0]]));
    let w = json!({"op": "null", "name": "w", "inputs": []});
    for (name, nodes, says) in [
        (
            "head",
            vec![w.clone(), noise.clone(), add.clone()],
            "head gradient",
        ),
        ("inner", vec![w, noise, add, sum], "`noise`"),
    ] {
        let last = nodes.len() - 1;
        let sym = json!({
            "nodes": nodes,
            "arg_nodes": [0],
            "node_row_ptr": (0..=last + 1).collect::<Vec<_>>(),
            "heads": [[last, 0, 0]],
            "attrs": {"mxnet_version": ["int", 10901]},
        });
        let model = dir.join(format!("{name}-symbol.json"));
        std::fs::write(&model, sym.to_string()).unwrap();
        let grads = dir.join(format!("{name}.params"));
        refused(
            kiln(&[
                "grad",
                model.to_str().unwrap(),
                "--params",
                &params,
                "--output-grads",
                grads.to_str().unwrap(),
            ]),
            name,
            &["cannot allocate", says, huge],
        );
    }
}

#[test]
fn memory_past_the_limit_or_the_machine_is_refused_before_it_is_taken() {
    // a + b over vectors: binding allocates the inputs and the output.
    let dir = folder("limits");
    let model = one_op(&dir, "sum", "elemwise_add", json!({}), &["a", "b"]);
    let plan = |elements: usize, vars: &[(&str, &str)]| {
        let (a, b) = (format!("a={elements}"), format!("b={elements}"));
        kiln_with(&["plan", &model, "--shape", &a, "--shape", &b], vars)
    };
    // 16 MB arrays under an 8 MB limit.
    let limited = plan(1 << 22, &[("KILN_MEMORY_LIMIT", "8m")]);
    refused(
        limited,
        "limit",
        &[
            "cannot allocate",
            "argument `a`",
            "memory limit is 8388608 bytes",
        ],
    );
    ok(
        plan(1 << 22, &[("KILN_MEMORY_LIMIT", "1g")]),
        "within the limit",
    );
    // Without a limit, arrays of twice what the machine has available: refused by kiln
    // before the system is asked (which, overcommitting, might give them).
    if let Some(available) = kiln::ops::memory::available() {
        refused(
            plan(available / 2, &[]),
            "available",
            &["cannot allocate", "argument `a`", "bytes available"],
        );
    }
}
