//! `.idx` files: a line `key\toffset\n` per record, the offset of its first part, as
//! MXNet's `MXIndexedRecordIO` writes them (integer keys).

use crate::text::{at_line, lines};
use crate::Result;
use std::io::{self, Write};
use std::path::Path;

/// One line of an `.idx` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub key: i64,
    pub offset: u64,
}

/// The entries of the `.idx` text `text`, in file order; errors name `path` and the line.
pub fn read_index(text: &[u8], path: &Path) -> Result<Vec<IndexEntry>> {
    let bad = |line: usize, what: String| at_line(path, line, what);
    let mut entries = Vec::new();
    for (n, line) in lines(text, path)? {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, offset)) = line.split_once('\t') else {
            return Err(bad(n, format!("`{line}` is not `key<TAB>offset`")));
        };
        let key =
            (key.trim().parse()).map_err(|_| bad(n, format!("key `{key}` is not an integer")))?;
        let offset = (offset.trim().parse())
            .map_err(|_| bad(n, format!("offset `{offset}` is not a byte offset")))?;
        entries.push(IndexEntry { key, offset });
    }
    Ok(entries)
}

/// Writes `entries` as an `.idx` file's text.
pub fn write_index(out: &mut impl Write, entries: &[IndexEntry]) -> io::Result<()> {
    for e in entries {
        writeln!(out, "{}\t{}", e.key, e.offset)?;
    }
    Ok(())
}
