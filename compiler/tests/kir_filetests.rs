//! The kernel IR's filetests (after Cranelift's): every `*.kir` file in
//! `compiler/tests/filetests/` names a step, gives its input in the IR's textual form and
//! the output expected; this runs the step and fails naming each file whose output
//! differs, with a line diff. `KILN_UPDATE_FILETESTS=1` rewrites the expected sections
//! with what the steps produce (review the diff before committing it).
//!
//! A file:
//!
//! ```text
//! ; What the test checks (comment lines start with `;`).
//! test lower
//!
//! kernel k0(...) -> (...) compute float32 {
//!   ...
//! }
//!
//! ; check:
//! <the expected output, verbatim, to the end of the file>
//! ```
//!
//! Steps (`test <step>`):
//!
//! - `lower`: the kernel lowered under the CPU schedule (`Schedule::cpu`), as a loop nest.
//! - `collapse`: each kernel's CPU loop nest (as `lower`) with its nested loops collapsed
//!   where they walk memory as one (`kir::collapse`).
//! - `simplify`: the kernel with its indices simplified by value ranges (`kir::simplify`).
//! - `matmul`: the matrix product `kir::matmul::recognize` finds (sizes, operand strides,
//!   loops, split, packed operands and epilogue as kernels), or `no product`; `matmul
//!   blas`: as `kir::matmul::recognize_blas` finds it for a BLAS library.
//! - `generalize B1 B2`: two kernels, the same group lowered at batch sizes `B1` and
//!   `B2`, generalized to one over the symbolic batch size `D0` (`kir::generalize`), or
//!   `does not generalize`.
//! - `inplace`: which outputs may be stored over which inputs (`Kernel::may_overwrite`).
//!
//! The input is everything between the `test` line and `; check:` (comments allowed);
//! parse errors point at the file's own lines.

use kiln_compiler::kir::matmul::{recognize, recognize_blas, MatMul};
use kiln_compiler::kir::{
    collapse, generalize, lower, parse_kernel, parse_kernels, parse_nest, simplify, Kernel,
    Schedule,
};
use std::fmt::Write;
use std::path::{Path, PathBuf};

const MARKER: &str = "; check:";

/// A parsed filetest: the step and its arguments, the input text (with the lines before
/// it blanked, so positions are the file's), and what follows the marker.
struct FileTest {
    step: Vec<String>,
    input: String,
    /// The file up to and including the marker line.
    head: String,
    expected: Option<String>,
}

fn read(path: &Path) -> Result<FileTest, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let (head, expected) = match text.find(&format!("\n{MARKER}\n")) {
        Some(at) => {
            let end = at + MARKER.len() + 2;
            (text[..end].to_string(), Some(text[end..].to_string()))
        }
        None => (format!("{}\n{MARKER}\n", text.trim_end()), None),
    };
    let mut step = None;
    let mut input = String::new();
    for line in head[..head.len() - MARKER.len() - 1].lines() {
        let t = line.trim();
        if step.is_none() && !t.is_empty() && !t.starts_with(';') {
            let words: Vec<String> = t.split_whitespace().map(str::to_string).collect();
            if words.first().map(String::as_str) != Some("test") {
                return Err(format!(
                    "the first line that is not a comment is `{t}`, not `test <step>`"
                ));
            }
            step = Some(words[1..].to_vec());
            input.push('\n');
        } else {
            input.push_str(line);
            input.push('\n');
        }
    }
    let step = step.ok_or("no `test <step>` line")?;
    Ok(FileTest {
        step,
        input,
        head,
        expected,
    })
}

fn one_kernel(input: &str) -> Result<Kernel, String> {
    parse_kernel(input).map_err(|e| format!("input: {e}"))
}

/// What the file's step makes of its input.
fn run(t: &FileTest) -> Result<String, String> {
    let step: Vec<&str> = t.step.iter().map(String::as_str).collect();
    match step.as_slice() {
        ["lower"] => {
            let k = one_kernel(&t.input)?;
            let nest = lower(&k, &Schedule::cpu(&k)).map_err(|e| e.to_string())?;
            let text = nest.to_string();
            // What the step prints reads back too.
            parse_nest(&text).map_err(|e| format!("the output does not parse: {e}"))?;
            Ok(text)
        }
        ["collapse"] => {
            let kernels = parse_kernels(&t.input).map_err(|e| format!("input: {e}"))?;
            let mut out = String::new();
            for k in kernels {
                let nest = lower(&k, &Schedule::cpu(&k)).map_err(|e| e.to_string())?;
                let text = collapse(&nest).to_string();
                parse_nest(&text).map_err(|e| format!("the output does not parse: {e}"))?;
                out += &text;
            }
            Ok(out)
        }
        ["simplify"] => Ok(simplify(&one_kernel(&t.input)?).to_string()),
        ["matmul"] | ["matmul", "blas"] => {
            let find = match t.step.len() {
                1 => recognize,
                _ => recognize_blas,
            };
            Ok(match find(&one_kernel(&t.input)?) {
                Some(mm) => describe(&mm),
                None => "no product\n".to_string(),
            })
        }
        ["generalize", b1, b2] => {
            let batch = |b: &str| {
                b.parse::<i64>()
                    .map_err(|e| format!("batch size `{b}`: {e}"))
            };
            let (b1, b2) = (batch(b1)?, batch(b2)?);
            let ks = parse_kernels(&t.input).map_err(|e| format!("input: {e}"))?;
            let [k1, k2] = ks.as_slice() else {
                return Err(format!("`generalize` takes two kernels, not {}", ks.len()));
            };
            Ok(match generalize(k1, b1, k2, b2) {
                Some(k) => k.to_string(),
                None => "does not generalize\n".to_string(),
            })
        }
        ["inplace"] => {
            let k = one_kernel(&t.input)?;
            let mut s = String::new();
            for o in 0..k.outputs.len() {
                for i in 0..k.inputs.len() {
                    if k.may_overwrite(i, o) {
                        writeln!(s, "out{o} may overwrite in{i}").unwrap();
                    }
                }
            }
            if s.is_empty() {
                s = "no output may overwrite an input\n".to_string();
            }
            Ok(s)
        }
        _ => Err(format!(
            "unknown step `test {}` (lower, simplify, matmul, matmul blas, generalize B1 B2, inplace)",
            t.step.join(" ")
        )),
    }
}

/// A recognized product, field by field, its packs and epilogue as kernels.
fn describe(mm: &MatMul) -> String {
    let mut s = String::new();
    let w = &mut s;
    writeln!(w, "product m={} n={} k={} {}", mm.m, mm.n, mm.k, mm.dtype).unwrap();
    for (name, o) in [("a", &mm.a), ("b", &mm.b)] {
        writeln!(
            w,
            "{name} = in{} offset {} stride {} depth {}",
            o.input, o.offset, o.stride, o.depth
        )
        .unwrap();
    }
    writeln!(w, "out rows {} cols {}", mm.out_rows, mm.out_cols).unwrap();
    for (what, loops) in [("loop", &mm.loops), ("sum", &mm.sums)] {
        for l in loops {
            writeln!(
                w,
                "{what} extent {} a {} b {} out {}",
                l.extent, l.a, l.b, l.out
            )
            .unwrap();
        }
    }
    let axis = mm
        .split_axis
        .map_or("none".to_string(), |a| format!("i{a}"));
    writeln!(
        w,
        "split {:?} over {}, aligned {} (first long axis {axis})",
        mm.split, mm.split_extent, mm.split_aligned
    )
    .unwrap();
    for (j, p) in mm.packs.iter().enumerate() {
        write!(w, "pack {j}:\n{p}").unwrap();
    }
    match &mm.epilogue {
        Some(e) => write!(w, "epilogue:\n{e}").unwrap(),
        None => writeln!(w, "epilogue: none").unwrap(),
    }
    s
}

/// A line diff of `expected` and `actual` (longest common subsequence), `-` for lines
/// only expected and `+` for lines only produced.
fn diff(expected: &str, actual: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            writeln!(out, "  {}", a[i]).unwrap();
            (i, j) = (i + 1, j + 1);
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            writeln!(out, "- {}", a[i]).unwrap();
            i += 1;
        } else {
            writeln!(out, "+ {}", b[j]).unwrap();
            j += 1;
        }
    }
    out
}

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "kir"))
        .collect();
    files.sort();
    files
}

#[test]
fn filetests() {
    let update = std::env::var("KILN_UPDATE_FILETESTS").is_ok_and(|v| v == "1");
    let files = files();
    assert!(files.len() >= 12, "only {} filetests", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let outcome = read(path).and_then(|t| run(&t).map(|actual| (t, actual)));
        let (t, actual) = match outcome {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let expected = t.expected.as_deref().unwrap_or("");
        if update {
            if expected != actual {
                std::fs::write(path, format!("{}{actual}", t.head)).unwrap();
                eprintln!("updated {name}");
            }
        } else if expected.trim_end() != actual.trim_end() {
            failures.push(format!(
                "{name}: the output differs (- expected, + actual; \
                 KILN_UPDATE_FILETESTS=1 rewrites it):\n{}",
                diff(expected, &actual)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} filetests failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn a_wrong_expectation_fails_with_a_diff() {
    let t = FileTest {
        step: vec!["simplify".to_string()],
        input: "kernel k(x: float32[6]) -> (y: float32[6]) compute float32 {\n  domain [6]\n  out0 = in0[((i0 + 6) % 6)]\n}\n".to_string(),
        head: String::new(),
        expected: None,
    };
    let actual = run(&t).unwrap();
    assert!(actual.contains("out0 = in0[i0]"), "{actual}");
    let d = diff(&actual.replace("in0[i0]", "in0[(i0 % 6)]"), &actual);
    assert!(d.contains("- ") && d.contains("+   out0 = in0[i0]"), "{d}");
}
