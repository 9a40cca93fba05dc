//! Image lists (`.lst`), as `im2rec.py` writes and reads them: a line
//! `index\tlabel_1\t…\tlabel_k\tpath` per image (k ≥ 1), the path relative to the images'
//! root. Written labels have six decimals (`%f`), as Python's `im2rec.py --list` prints.

use crate::text::{at_line, lines};
use crate::Result;
use std::io::{self, Write};
use std::path::Path;

/// One line of a `.lst` file.
#[derive(Clone, Debug, PartialEq)]
pub struct ListEntry {
    pub index: i64,
    pub labels: Vec<f32>,
    /// The image's path relative to the root.
    pub path: String,
}

/// The entries of the `.lst` text `text`, in file order; a malformed line is an error
/// naming `path` and the line (`im2rec.py` prints such lines and skips them).
pub fn read_list(text: &[u8], path: &Path) -> Result<Vec<ListEntry>> {
    Ok(read_list_lines(text, path)?
        .into_iter()
        .map(|(_, e)| e)
        .collect())
}

/// [`read_list`]'s entries with their line numbers (from 1, blank lines counted), for
/// errors about an entry found later (an image that cannot be read).
pub fn read_list_lines(text: &[u8], path: &Path) -> Result<Vec<(usize, ListEntry)>> {
    let bad = |line: usize, what: String| at_line(path, line, what);
    let mut entries = Vec::new();
    for (n, line) in lines(text, path)? {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.trim().split('\t').map(str::trim).collect();
        let (index, labels, image) = match &fields[..] {
            [index, labels @ .., image] if !labels.is_empty() => (index, labels, image),
            _ => {
                return Err(bad(
                    n,
                    format!(
                        "`{}` has {} field(s): a line is `index<TAB>label(s)<TAB>path`",
                        line.trim(),
                        fields.len()
                    ),
                ))
            }
        };
        let index =
            (index.parse()).map_err(|_| bad(n, format!("index `{index}` is not an integer")))?;
        let labels = (labels.iter())
            .map(|l| {
                l.parse()
                    .map_err(|_| bad(n, format!("label `{l}` is not a number")))
            })
            .collect::<Result<_>>()?;
        let entry = ListEntry {
            index,
            labels,
            path: image.to_string(),
        };
        entries.push((n + 1, entry));
    }
    Ok(entries)
}

/// Writes `entries` as a `.lst` file's text.
pub fn write_list(out: &mut impl Write, entries: &[ListEntry]) -> io::Result<()> {
    for e in entries {
        write!(out, "{}\t", e.index)?;
        for label in &e.labels {
            write!(out, "{:.6}\t", f64::from(*label))?;
        }
        writeln!(out, "{}", e.path)?;
    }
    Ok(())
}
