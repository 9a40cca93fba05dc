//! Line-oriented text files (`.lst`, `.idx`, CSV): checked as UTF-8, errors naming the
//! file and the line.

use crate::{Error, Result};
use std::path::Path;

/// The lines of `bytes`, numbered from 0; an error names the first line that is not
/// UTF-8.
pub(crate) fn lines<'a>(
    bytes: &'a [u8],
    path: &Path,
) -> Result<std::iter::Enumerate<std::str::Lines<'a>>> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        at_line(path, line, "not UTF-8 text".into())
    })?;
    Ok(text.lines().enumerate())
}

/// What is wrong with line `line` (numbered from 0) of `path`.
pub(crate) fn at_line(path: &Path, line: usize, what: String) -> Error {
    Error::Line {
        path: path.to_path_buf(),
        line: line + 1,
        what,
    }
}
