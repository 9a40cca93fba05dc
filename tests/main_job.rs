//! The README's first command — the main job, training on the digits in
//! `examples/digits/` — run as the README spells it (its arguments read from the README),
//! reaching the accuracy the README promises.

use std::process::Command;

/// The arguments of the README's first command, after `cargo run --release --`.
fn readme_command() -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let block = readme
        .split("```sh\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let line = block.replace("\\\n", " ");
    let rest = line
        .trim()
        .strip_prefix("cargo run --release -- ")
        .expect("the first command runs the kiln tool");
    // Words, with single-quoted ones kept whole.
    let mut words = Vec::new();
    let mut rest = rest.trim();
    while !rest.is_empty() {
        let (word, after) = match rest.strip_prefix('\'') {
            Some(quoted) => quoted.split_once('\'').unwrap(),
            None => rest.split_once(char::is_whitespace).unwrap_or((rest, "")),
        };
        words.push(word.to_string());
        rest = after.trim_start();
    }
    words
}

#[test]
fn the_readme_main_job_trains_the_digits_to_95_percent() {
    let args = readme_command();
    assert_eq!(args[0], "train", "{args:?}");
    let out = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(&args)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let accuracy: f64 = log
        .lines()
        .rev()
        .find_map(|l| l.split("Validation-accuracy=").nth(1))
        .unwrap_or_else(|| panic!("no validation accuracy in {log}"))
        .trim()
        .parse()
        .unwrap();
    assert!(accuracy >= 0.95, "test accuracy {accuracy}: {log}");
}
