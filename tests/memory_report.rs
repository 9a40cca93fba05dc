//! `benches/memory.md` (written by `examples/memory_report.rs`) says what the planner
//! computes: each batch-32 row's planned internal megabytes (the `kiln` column), arena and
//! lower bound, and the ratios made of them, are what `program::compile` plans today for
//! that model and mode, to the printed precision, with the thread count the file's header
//! names and the L2 cache size it names (streamed products pack in chunks of it), whatever
//! this machine has. A change to the planner that moves a figure fails here until the
//! report is made again.

use kiln::compiler::program::{compile, Mode};
use kiln::runtime::Config;
use kiln::Symbol;
use std::collections::HashMap;

/// One row of the table: its model, batch, mode and cells, as printed.
struct Row {
    model: String,
    batch: usize,
    mode: String,
    cells: Vec<String>,
}

/// The report's thread count and L2 bytes (`..., N threads, K KiB of L2 cache.` in the
/// header) and its table rows.
fn report() -> (usize, usize, Vec<Row>) {
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/benches/memory.md")).unwrap();
    let header = text.lines().find(|l| l.starts_with("Made by")).unwrap();
    // The number before `what` in the header.
    let before = |what: &str| -> usize {
        (header.split_once(what))
            .and_then(|(h, _)| h.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no{what} in {header:?}"))
    };
    let (threads, l2) = (before(" threads"), before(" KiB of L2") << 10);
    let rows = text
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| model"))
        .map(|l| {
            let cells: Vec<String> = l
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect();
            assert_eq!(cells.len(), 14, "{l}");
            Row {
                model: cells[0].clone(),
                batch: cells[1].parse().unwrap(),
                mode: cells[2].clone(),
                cells,
            }
        })
        .collect();
    (threads, l2, rows)
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// Compiles every batch-32 row of `mode` and compares its figures with the table's.
fn check_rows(mode: &str) {
    let (threads, l2, rows) = report();
    let config = Config::new().threads(threads);
    let root = env!("CARGO_MANIFEST_DIR");
    let mut checked = 0;
    for row in rows.iter().filter(|r| r.batch == 32 && r.mode == mode) {
        let model = &row.model;
        let sym = Symbol::load(format!("{root}/tests/fixtures/zoo/{model}-symbol.json")).unwrap();
        let side = if model == "inception_v3" { 299 } else { 224 };
        let shapes = HashMap::from([("data".to_string(), vec![32, 3, side, side])]);
        let mode = match mode {
            "training" => Mode::train_parameters(&sym),
            _ => Mode::Inference,
        };
        let mut spec = config.spec(shapes, mode);
        spec.target.pack_bytes = spec.target.pack_bytes.map(|_| l2);
        let p = compile(&sym, &spec).unwrap();
        let (planned, arena, bound) = (
            mb(p.internal_bytes()),
            mb(p.arena_bytes()),
            mb(p.lower_bound()),
        );
        let mxnet: f64 = row.cells[3].parse().unwrap();
        // `executed` equals the plan (tests/memory.rs), or the row was too large to bind.
        let executed = &row.cells[9];
        let want = [
            ("kiln", 8, format!("{planned:.0}")),
            ("arena", 10, format!("{arena:.0}")),
            ("lower bound", 11, format!("{bound:.0}")),
            ("executed/MXNet", 12, format!("{:.2}", planned / mxnet)),
            ("arena/bound", 13, format!("{:.3}", arena / bound.max(1e-9))),
        ];
        for (column, i, value) in want {
            assert_eq!(
                row.cells[i], value,
                "benches/memory.md, {model} {}: {column}",
                row.mode
            );
        }
        assert!(
            executed == &row.cells[8] || executed == "not bound",
            "{model} {}: executed {executed}, planned {}",
            row.mode,
            row.cells[8]
        );
        checked += 1;
    }
    assert_eq!(checked, 6, "batch-32 {mode} rows in benches/memory.md");
}

#[test]
fn inference_rows_match_the_planner() {
    check_rows("inference");
}

#[test]
fn training_rows_match_the_planner() {
    check_rows("training");
}
