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

/// `name` in the data fixtures' folder `folder` (tests/fixtures/data/FOLDER).
pub fn data_fixture(folder: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/data")
        .join(folder)
        .join(name)
}
