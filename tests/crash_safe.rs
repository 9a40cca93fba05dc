//! Files kiln writes survive a killed writer: `kiln run` writing a 16 MB `.npy` is killed
//! (SIGKILL) at random points of its run, and the output path then holds the previous
//! complete file, or a complete new one equal to the expected values, or — where there
//! was none — nothing; only temporaries of kiln's own naming may be left beside it. A
//! command that fails cleanly leaves neither an output nor a temporary.

use kiln::compiler::formats::npy;
use kiln::{DType, Tensor};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const ROWS: usize = 2048;
const COLS: usize = 2048;

fn folder() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kiln-crash-safe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `data` (1, 1) broadcast to (ROWS, COLS): every output value is the input's value.
fn model(dir: &Path) -> PathBuf {
    let sym = json!({
        "nodes": [
            {"op": "null", "name": "data", "inputs": []},
            {"op": "broadcast_to", "name": "big", "attrs": {"shape": format!("({ROWS}, {COLS})")},
             "inputs": [[0, 0, 0]]},
        ],
        "arg_nodes": [0],
        "heads": [[1, 0, 0]],
        "attrs": {"mxnet_version": ["int", 10901]},
    });
    let path = dir.join("big-symbol.json");
    std::fs::write(&path, sym.to_string()).unwrap();
    path
}

fn input(dir: &Path, value: f64) -> String {
    let path = dir.join(format!("x{value}.npy"));
    npy::write_npy(&path, &Tensor::new(DType::F32, vec![1, 1], vec![value])).unwrap();
    format!("data={}", path.display())
}

fn kiln(dir: &Path, model: &Path, input: &str, out: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kiln"));
    c.args(["run", model.to_str().unwrap(), "--input", input, "--output"])
        .arg(out)
        .env("KILN_CACHE_DIR", dir.join("cache"))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Whether `path` holds the complete output of a run on `value`.
fn holds(path: &Path, value: f64) -> bool {
    match npy::read_npy(path) {
        Ok(t) => {
            t.dtype == DType::F32 && t.shape == [ROWS, COLS] && t.data.iter().all(|&v| v == value)
        }
        Err(_) => false,
    }
}

/// The names in `dir` other than the test's own files and kiln's temporaries for `out`.
fn strangers(dir: &Path, out: &Path, own: &[&str]) -> Vec<String> {
    let temp = format!(".{}.kiln-tmp-", out.file_name().unwrap().to_string_lossy());
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with(&temp) && !own.contains(&n.as_str()))
        .collect()
}

fn remove_temporaries(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_name().to_string_lossy().contains(".kiln-tmp-") {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
}

/// xorshift64: reproducible points from the seed printed.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn a_killed_run_leaves_the_old_output_or_the_new_one() {
    let dir = folder();
    let model = model(&dir);
    let (old_input, new_input) = (input(&dir, 1.0), input(&dir, 2.0));
    let out = dir.join("out.npy");
    let old = dir.join("old.npy");

    // The old file, and how long a whole run takes (its kernels cached by now).
    assert!(kiln(&dir, &model, &old_input, &old)
        .status()
        .unwrap()
        .success());
    assert!(holds(&old, 1.0));
    let start = Instant::now();
    assert!(kiln(&dir, &model, &new_input, &out)
        .status()
        .unwrap()
        .success());
    let whole = start.elapsed();
    assert!(holds(&out, 2.0));

    let own = [
        "big-symbol.json",
        "x1.npy",
        "x2.npy",
        "old.npy",
        "out.npy",
        "cache",
    ];
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("seed {seed}, a whole run takes {whole:?}");
    let (mut kept, mut replaced, mut absent) = (0, 0, 0);
    for round in 0..16 {
        // Every other round starts from the old file, the rest from none.
        let had_old = round % 2 == 0;
        if had_old {
            std::fs::copy(&old, &out).unwrap();
        } else {
            let _ = std::fs::remove_file(&out);
        }
        // Anywhere from the start to a little past the end of a whole run.
        let delay = whole.mul_f64((next(&mut seed) % 1200) as f64 / 1000.0);
        let mut child = kiln(&dir, &model, &new_input, &out).spawn().unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        child.wait().unwrap();
        let state = if !out.exists() {
            assert!(!had_old, "round {round} ({delay:?}): the old file is gone");
            absent += 1;
            "absent"
        } else if holds(&out, 2.0) {
            replaced += 1;
            "new"
        } else {
            assert!(
                had_old && holds(&out, 1.0),
                "round {round} ({delay:?}): {} is neither the old file nor a whole new one",
                out.display()
            );
            kept += 1;
            "old"
        };
        eprintln!("round {round}: killed after {delay:?}: {state}");
        let left = strangers(&dir, &out, &own);
        assert!(left.is_empty(), "round {round}: left behind {left:?}");
        remove_temporaries(&dir);
    }
    eprintln!("{kept} kept, {replaced} replaced, {absent} absent");
    assert_eq!(kept + replaced + absent, 16);

    // A run that fails cleanly (no value for `data`) leaves nothing.
    let _ = std::fs::remove_file(&out);
    let mut failing = Command::new(env!("CARGO_BIN_EXE_kiln"));
    failing
        .args(["run", model.to_str().unwrap(), "--output"])
        .arg(&out)
        .env("KILN_CACHE_DIR", dir.join("cache"));
    let o = failing.output().unwrap();
    assert!(!o.status.success());
    assert!(!out.exists());
    let left = strangers(&dir, &out, &own);
    assert!(left.is_empty(), "left behind {left:?}");
    assert!(std::fs::read_dir(&dir).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .contains("kiln-tmp")));
    let _ = std::fs::remove_dir_all(&dir);
}
