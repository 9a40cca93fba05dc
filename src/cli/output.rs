//! Output files of the subcommands: checked before any work is done, written whole or
//! not at all (kiln-compiler's atomic files), and, where a command writes several, put
//! in place only once every one of them is written.

use kiln::compiler::formats::atomic::AtomicFile;
use kiln::{Error, Result};
use std::io::Write;
use std::path::Path;

fn io_error(path: &Path, source: std::io::Error) -> Error {
    kiln::compiler::Error::Io {
        path: path.display().to_string(),
        source,
    }
    .into()
}

/// Checks that `path`, given with `flag`, can be written: it is not a folder, and its
/// folder exists and takes a new file (a temporary is created there and removed), so
/// that a long computation does not end in an error it could have been told at once.
pub fn check_writable(flag: &str, path: &Path) -> Result<()> {
    let refuse = |what: String| Error::Input(format!("{flag} {}: {what}", path.display()));
    if path.is_dir() {
        return Err(refuse("is a folder, not a file".into()));
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if folder.exists() && !folder.is_dir() {
        return Err(refuse(format!("{} is not a folder", folder.display())));
    }
    if !folder.is_dir() {
        return Err(refuse(format!(
            "the folder {} does not exist",
            folder.display()
        )));
    }
    AtomicFile::create(path)
        .map(drop)
        .map_err(|e| refuse(format!("cannot write in {}: {e}", folder.display())))
}

/// Files written under temporary names and put in place together by [`Staged::persist`];
/// dropped before, they leave nothing behind (and no earlier file is touched).
#[derive(Default)]
pub struct Staged(Vec<AtomicFile>);

impl Staged {
    /// Writes `bytes` to a temporary that will replace `path`.
    pub fn add(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        let mut f = AtomicFile::create(path).map_err(|e| io_error(path, e))?;
        f.write_all(bytes).map_err(|e| io_error(path, e))?;
        self.0.push(f);
        Ok(())
    }

    /// Puts every file in place, in the order added.
    pub fn persist(self) -> Result<()> {
        for f in self.0 {
            let path = f.path().to_path_buf();
            f.persist().map_err(|e| io_error(&path, e))?;
        }
        Ok(())
    }
}

/// Writes `bytes` to `path` whole or not at all.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut staged = Staged::default();
    staged.add(path, bytes)?;
    staged.persist()
}
