//! `im2rec --list`: the images under a folder as `.lst` files (`im2rec.py`'s
//! `list_image`, `make_list`).

use super::python_random::PythonRandom;
use crate::{write_list, Error, ListEntry, Result};
use kiln_compiler::formats::atomic::AtomicFile;
use std::path::{Path, PathBuf};

/// How images are listed, with `im2rec.py`'s defaults.
#[derive(Clone, Debug)]
pub struct ListOptions {
    /// Extensions of images, lower case with the dot (`--exts`).
    pub exts: Vec<String>,
    /// Lists of about equal length (`--chunks`).
    pub chunks: usize,
    pub train_ratio: f64,
    pub test_ratio: f64,
    /// Walk subfolders, each folder with images a label of its own (`--recursive`).
    pub recursive: bool,
    /// Shuffle the list (`random.seed(100)`, as `im2rec.py` unless `--no-shuffle`).
    pub shuffle: bool,
}

impl Default for ListOptions {
    fn default() -> ListOptions {
        ListOptions {
            exts: [".jpeg", ".jpg", ".png"].map(String::from).to_vec(),
            chunks: 1,
            train_ratio: 1.0,
            test_ratio: 0.0,
            recursive: false,
            shuffle: true,
        }
    }
}

/// The folders a recursive listing labelled: path relative to the root (`.` for the root
/// itself) and label.
pub type Folders = Vec<(String, usize)>;

/// The images under `root` in `im2rec.py`'s order: the files of `root` sorted by name
/// (label 0), or with `recursive` a walk of the folders, top first, subfolders and files
/// sorted, each folder holding images a label in the order met. Returns the entries and
/// the labelled folders (relative to `root`, `.` for itself).
pub fn list_images(
    root: &Path,
    recursive: bool,
    exts: &[String],
) -> Result<(Vec<ListEntry>, Folders)> {
    let mut entries = Vec::new();
    let mut folders: Folders = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let (mut files, mut dirs) = (Vec::new(), Vec::new());
        for entry in std::fs::read_dir(&folder).map_err(|e| io(&folder, e))? {
            let path = entry.map_err(|e| io(&folder, e))?.path();
            // Symbolic links are followed, as os.walk(followlinks=True) and isfile do.
            match std::fs::metadata(&path) {
                Ok(m) if m.is_file() => files.push(path),
                Ok(m) if m.is_dir() && recursive => dirs.push(path),
                _ => {}
            }
        }
        files.sort();
        dirs.sort();
        let relative = |p: &Path| -> String {
            let r = p.strip_prefix(root).unwrap_or(p);
            match r.as_os_str().is_empty() {
                true => ".".into(),
                false => r.to_string_lossy().into_owned(),
            }
        };
        for file in files.iter().filter(|f| has_ext(f, exts)) {
            let name = relative(&folder);
            let label = match folders.iter().find(|(n, _)| *n == name) {
                Some(&(_, label)) => label,
                None => {
                    folders.push((name, folders.len()));
                    folders.len() - 1
                }
            };
            entries.push(ListEntry {
                index: entries.len() as i64,
                labels: vec![if recursive { label as f32 } else { 0.0 }],
                path: relative(file),
            });
        }
        // Depth first, subfolders in sorted order: pushed in reverse.
        pending.extend(dirs.into_iter().rev());
    }
    if !recursive {
        folders.clear();
    }
    Ok((entries, folders))
}

/// Whether `path`'s extension, lower-cased with its dot, is one of `exts` (Python's
/// `os.path.splitext`: a name starting with its only dot has none).
fn has_ext(path: &Path, exts: &[String]) -> bool {
    match path.extension() {
        Some(e) => exts.contains(&format!(".{}", e.to_string_lossy().to_lowercase())),
        None => false,
    }
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Input(format!("{}: {e}", path.display()))
}

/// `im2rec.py --list`: lists the images under `root` into `PREFIX.lst`, or split by
/// `chunks` (`PREFIX_0.lst`, …) and ratios (`_train`, `_val`, `_test`) as it splits them.
/// Returns the files written and the labelled folders.
pub fn make_lists(
    prefix: &str,
    root: &Path,
    options: &ListOptions,
) -> Result<(Vec<PathBuf>, Folders)> {
    if options.chunks == 0 {
        return Err(Error::Input("im2rec: --chunks must be positive".into()));
    }
    let (mut entries, folders) = list_images(root, options.recursive, &options.exts)?;
    if options.shuffle {
        PythonRandom::new(100).shuffle(&mut entries);
    }
    let n = entries.len();
    let chunk_size = n.div_ceil(options.chunks);
    let mut written = Vec::new();
    for i in 0..options.chunks {
        let chunk = &entries[(i * chunk_size).min(n)..((i + 1) * chunk_size).min(n)];
        let stem = match options.chunks {
            1 => prefix.to_string(),
            _ => format!("{prefix}_{i}"),
        };
        // Python's int(): truncation toward zero.
        let sep = (chunk_size as f64 * options.train_ratio) as usize;
        let sep_test = (chunk_size as f64 * options.test_ratio) as usize;
        let part = |from: usize, to: usize| &chunk[from.min(chunk.len())..to.min(chunk.len())];
        let mut lists: Vec<(String, &[ListEntry])> = Vec::new();
        if options.train_ratio == 1.0 {
            lists.push((format!("{stem}.lst"), chunk));
        } else {
            if options.test_ratio != 0.0 {
                lists.push((format!("{stem}_test.lst"), part(0, sep_test)));
            }
            if options.train_ratio + options.test_ratio < 1.0 {
                lists.push((format!("{stem}_val.lst"), part(sep_test + sep, chunk.len())));
            }
            lists.push((format!("{stem}_train.lst"), part(sep_test, sep_test + sep)));
        }
        for (path, entries) in lists {
            let path = PathBuf::from(path);
            let mut file = AtomicFile::create(&path).map_err(|e| io(&path, e))?;
            write_list(&mut file, entries).map_err(|e| io(&path, e))?;
            file.persist().map_err(|e| io(&path, e))?;
            written.push(path);
        }
    }
    Ok((written, folders))
}

/// The lists `im2rec.py` packs for `prefix`: the `.lst` files of its folder (the prefix
/// itself when it is one) whose path starts with the prefix, sorted.
pub fn lists_for_prefix(prefix: &Path) -> Result<Vec<PathBuf>> {
    // As im2rec.py, on the absolute path: `data` names `./data.lst`.
    let prefix = std::path::absolute(prefix).map_err(|e| io(prefix, e))?;
    let folder = match prefix.is_dir() {
        true => prefix.as_path(),
        false => prefix.parent().unwrap_or(Path::new("/")),
    };
    let prefix_text = prefix.to_string_lossy();
    let mut lists = Vec::new();
    for entry in std::fs::read_dir(folder).map_err(|e| io(folder, e))? {
        let path = entry.map_err(|e| io(folder, e))?.path();
        let text = path.to_string_lossy();
        if path.is_file() && text.starts_with(&*prefix_text) && text.ends_with(".lst") {
            lists.push(path);
        }
    }
    lists.sort();
    Ok(lists)
}
