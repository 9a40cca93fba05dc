//! The parsers of files kiln reads from strangers, as fuzz targets: each takes any bytes
//! and must return (an error is fine), never panic, hang or allocate what the input only
//! claims. The `fuzz/` package runs each under libFuzzer (`cargo +nightly fuzz run NAME`),
//! and `tests/fuzz_corpus.rs` replays the committed corpora (`fuzz/corpus/NAME/`) on
//! stable ([`replay`]), so a crash once found stays fixed. A new format joins by adding its
//! entry to [`TARGETS`], a `fuzz/fuzz_targets/NAME.rs` calling [`run`], and a seeded
//! corpus folder. Parsers outside this crate (the `network!` syntax, in kiln-syntax) keep
//! their target in their crate and replay their corpus with [`replay`].

use crate::formats::{json, npy, params};
use crate::infer::infer;
use std::collections::HashMap;

/// A fuzz target: any bytes in, nothing out but that it returned.
pub type Target = fn(&[u8]);

/// Every fuzz target, by name.
pub const TARGETS: &[(&str, Target)] = &[
    ("symbol_json", symbol_json),
    ("params", params_file),
    ("npy", npy_file),
];

/// Runs the target named `name` on `data`; an unknown name is a fuzz harness bug.
pub fn run(name: &str, data: &[u8]) {
    match TARGETS.iter().find(|(n, _)| *n == name) {
        Some((_, target)) => target(data),
        None => panic!("no fuzz target {name}"),
    }
}

/// Runs `target` on every file of `folder` (a committed corpus) and returns how many it
/// ran; panics naming the file whose input made the target panic, and on a missing or
/// empty corpus, so a replay test fails by name.
pub fn replay(name: &str, target: Target, folder: &std::path::Path) -> usize {
    let entries = std::fs::read_dir(folder).unwrap_or_else(|e| {
        panic!(
            "{name}: {}: {e} (each target has a corpus)",
            folder.display()
        )
    });
    let mut inputs = 0;
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
            .path();
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ran = std::panic::catch_unwind(|| target(&data));
        assert!(ran.is_ok(), "{name}: {} panicked", path.display());
        inputs += 1;
    }
    assert!(
        inputs > 0,
        "{name}: {} is an empty corpus",
        folder.display()
    );
    inputs
}

/// Symbol JSON (legacy keys upgraded), its attributes parsed into a graph, the shapes
/// and dtypes it declares inferred, and written back.
fn symbol_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(sym) = json::load_json(text) else {
        return;
    };
    let _ = json::save_json(&sym);
    if let Ok(g) = sym.to_graph() {
        let _ = infer(&g, &HashMap::new(), &HashMap::new());
    }
}

/// MXNet's NDArray list files, and written back.
fn params_file(data: &[u8]) {
    if let Ok(file) = params::load_params(data) {
        let _ = params::save_params(&file);
    }
}

/// NumPy's `.npy`, and written back.
fn npy_file(data: &[u8]) {
    if let Ok(t) = npy::load_npy(data) {
        let _ = npy::save_npy(&t);
    }
}
