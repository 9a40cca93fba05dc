//! Running the `kiln` tool from a test, and the data fixtures' paths.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `kiln SUBCOMMAND ARGS...` run in `dir`.
pub fn kiln_in(dir: &Path, subcommand: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
        .current_dir(dir)
        .arg(subcommand)
        .args(args)
        .output()
        .unwrap()
}

/// `kiln SUBCOMMAND ARGS...` run in `dir`, which must succeed: its standard output.
pub fn kiln_ok(dir: &Path, subcommand: &str, args: &[&str]) -> String {
    let out = kiln_in(dir, subcommand, args);
    assert!(
        out.status.success(),
        "kiln {subcommand} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `name` in the data fixtures' folder `folder` (tests/fixtures/data/FOLDER).
pub fn data_fixture(folder: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/data")
        .join(folder)
        .join(name)
}
