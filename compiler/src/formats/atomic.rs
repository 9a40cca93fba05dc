//! Files written whole or not at all: every file kiln writes goes through here.
//!
//! The bytes go to a temporary file beside the destination (same folder, so the rename
//! cannot cross file systems), which is flushed, synced and then renamed over the
//! destination; the folder is synced after the rename so the new name survives a power
//! loss. A process killed at any point therefore leaves the old file or the new one,
//! never half of one. A temporary whose write failed, or that was never persisted (an
//! error before [`AtomicFile::persist`], a panic unwinding through it), is removed; only
//! a process killed outright can leave one, named `.NAME.kiln-tmp-PID-N` beside `NAME`.
//!
//! Hand-written rather than the `tempfile` crate: a few lines that also keep an
//! overwritten file's permissions, sync the folder, and let one command stage several
//! outputs and rename them only once all are written.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A file being written under a temporary name; [`persist`](Self::persist) puts it in
/// place. Dropped without being persisted, it removes its temporary.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `path`. The temporary gets the permissions of the file it will
    /// replace, else `0666` less the umask, as a plain `File::create` would.
    pub fn create(path: impl AsRef<Path>) -> io::Result<AtomicFile> {
        let mode = match std::fs::metadata(path.as_ref()) {
            Ok(m) => Some(m.permissions()),
            // No file there yet (or none kiln may read): the new one gets the default mode.
            Err(_) => None,
        };
        let mut f = Self::create_with(path, |o| o)?;
        if let (Some(mode), Some(out)) = (mode, &f.out) {
            if let Err(e) = out.get_ref().set_permissions(mode) {
                f.out = None;
                return Err(e);
            }
        }
        Ok(f)
    }

    /// Starts writing `path` readable and writable by the user alone (`0600`), from the
    /// temporary's creation on, so no one else can ever open it.
    pub fn create_private(path: impl AsRef<Path>) -> io::Result<AtomicFile> {
        Self::create_with(path, |o| {
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(o, 0o600);
            o
        })
    }

    fn create_with(
        path: impl AsRef<Path>,
        options: impl Fn(&mut OpenOptions) -> &mut OpenOptions,
    ) -> io::Result<AtomicFile> {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let path = path.as_ref().to_path_buf();
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(".kiln-tmp-{}-{n}", std::process::id()));
            let tmp = path.with_file_name(tmp_name);
            // `create_new`: never write through a file or link someone else put there.
            match options(OpenOptions::new().write(true).create_new(true)).open(&tmp) {
                Ok(file) => {
                    return Ok(AtomicFile {
                        path,
                        tmp,
                        out: Some(BufWriter::new(file)),
                    })
                }
                // Left by a killed process that had this id: take the next name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn writer(&mut self) -> &mut BufWriter<File> {
        self.out.as_mut().expect("written before being persisted")
    }

    /// Flushes, syncs and renames the temporary over the destination, then syncs the
    /// folder. On an error the temporary is removed and the destination is untouched.
    pub fn persist(mut self) -> io::Result<()> {
        let out = self.out.take().expect("an AtomicFile is persisted once");
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.tmp, &self.path)?;
        // Renamed: nothing left for `drop` to remove.
        self.tmp = PathBuf::new();
        sync_folder(&self.path);
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            self.out = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The folder holding `path`, synced so that a rename into it is durable. Best effort:
/// some file systems cannot sync a folder, and the data itself is already synced.
fn sync_folder(path: &Path) {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if let Ok(dir) = File::open(folder) {
        let _ = dir.sync_all();
    }
}

/// Writes `bytes` to `path` whole or not at all (see the module doc).
pub fn write_atomically(path: impl AsRef<Path>, bytes: &[u8]) -> io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes)?;
    f.persist()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .join(format!("kiln-atomic-{}", std::process::id()))
            .join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_whole_and_leaves_no_temporary() {
        let dir = folder("replace");
        let path = dir.join("out.bin");
        write_atomically(&path, b"old contents").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(entries(&dir), ["out.bin"]);
    }

    #[test]
    fn an_unpersisted_file_leaves_the_old_one_and_no_temporary() {
        let dir = folder("dropped");
        let path = dir.join("out.bin");
        write_atomically(&path, b"old").unwrap();
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(&[7; 100_000]).unwrap();
        assert_eq!(entries(&dir).len(), 2, "the temporary exists while writing");
        drop(f);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(entries(&dir), ["out.bin"]);
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_nothing_written() {
        let dir = folder("missing");
        let e = write_atomically(dir.join("no/such/out.bin"), b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert!(entries(&dir).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn keeps_permissions_and_private_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = folder("modes");
        let path = dir.join("script");
        write_atomically(&path, b"a").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).unwrap();
        write_atomically(&path, b"b").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o751);
        let secret = dir.join("secret");
        let mut f = AtomicFile::create_private(&secret).unwrap();
        f.write_all(b"s").unwrap();
        f.persist().unwrap();
        assert_eq!(mode(&secret), 0o600);
    }
}
