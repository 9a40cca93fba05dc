//! Inputs meant to break kiln, through the `kiln` tool: chains that would blow up
//! kernel expressions or the call stack, shapes whose sizes overflow, output cut short.
//! Each input is made here, in a folder of the test's own.

use kiln::compiler::formats::npy;
use kiln::{DType, Tensor};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn kiln(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .env("KILN_CACHE_DIR", folder("cache"))
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
