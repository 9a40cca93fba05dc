//! Reading records: from a memory-mapped file ([`RecordFile`]) or any bytes
//! ([`Records::new`]), sequentially or at an offset an `.idx` file gives.

use super::{padding, Corrupt, Part, MAGIC, MAGIC_BYTES};
use crate::{Error, Result};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// A RecordIO file, memory-mapped.
pub struct RecordFile {
    path: PathBuf,
    /// None for an empty file (which cannot be mapped).
    map: Option<memmap2::Mmap>,
}

impl RecordFile {
    pub fn open(path: impl AsRef<Path>) -> Result<RecordFile> {
        let path = path.as_ref().to_path_buf();
        let io = |e: std::io::Error| Error::Input(format!("{}: {e}", path.display()));
        let file = std::fs::File::open(&path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        // SAFETY: the map is read-only; a file changed under it while mapped changes the
        // bytes records are read from (every read checks its bounds against the map's
        // length, fixed at mapping), as with any reader of a file someone rewrites.
        let map = (len > 0)
            .then(|| unsafe { memmap2::Mmap::map(&file) })
            .transpose()
            .map_err(io)?;
        Ok(RecordFile { path, map })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or_default()
    }

    /// Every record from the start, in file order.
    pub fn records(&self) -> Records<'_> {
        Records::new(self.bytes(), &self.path)
    }

    /// The record starting at byte `offset` (an `.idx` file's offset).
    pub fn read_at(&self, offset: u64) -> Result<Cow<'_, [u8]>> {
        let at = usize::try_from(offset).unwrap_or(usize::MAX);
        read_record(self.bytes(), at)
            .map(|(payload, _)| payload)
            .map_err(|what| Error::Record {
                path: self.path.clone(),
                record: None,
                offset,
                what,
            })
    }
}

/// The records of some bytes, in order; after an error it yields nothing more.
pub struct Records<'a> {
    bytes: &'a [u8],
    path: &'a Path,
    offset: usize,
    index: usize,
    failed: bool,
}

impl<'a> Records<'a> {
    /// The records of `bytes`, errors naming `path`.
    pub fn new(bytes: &'a [u8], path: &'a Path) -> Records<'a> {
        Records {
            bytes,
            path,
            offset: 0,
            index: 0,
            failed: false,
        }
    }
}

/// A record read: where it starts and its payload.
#[derive(Debug)]
pub struct Record<'a> {
    pub offset: u64,
    pub payload: Cow<'a, [u8]>,
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.offset >= self.bytes.len() {
            return None;
        }
        let offset = self.offset;
        match read_record(self.bytes, offset) {
            Ok((payload, next)) => {
                self.offset = next;
                self.index += 1;
                Some(Ok(Record {
                    offset: offset as u64,
                    payload,
                }))
            }
            Err(what) => {
                self.failed = true;
                Some(Err(Error::Record {
                    path: self.path.to_path_buf(),
                    record: Some(self.index),
                    offset: offset as u64,
                    what,
                }))
            }
        }
    }
}

/// The record whose first part starts at `offset` of `bytes`, and the offset after it; or
/// what is wrong, with the byte offset of the part at fault when it is not the first.
fn read_record(
    bytes: &[u8],
    offset: usize,
) -> std::result::Result<(Cow<'_, [u8]>, usize), Corrupt> {
    let mut at = offset;
    // A record in parts: the first part, then each later one after the magic it was split
    // at.
    let mut joined: Vec<u8> = Vec::new();
    loop {
        let (part, body, next) = read_part(bytes, at)?;
        let first = at == offset;
        match (first, part) {
            (true, Part::Whole) => return Ok((Cow::Borrowed(body), next)),
            (true, Part::First) => joined = body.to_vec(),
            (false, Part::Middle | Part::Last) => {
                joined.extend_from_slice(&MAGIC_BYTES);
                joined.extend_from_slice(body);
                if part == Part::Last {
                    return Ok((Cow::Owned(joined), next));
                }
            }
            (true, _) => return Err(Corrupt::StartsInside { flag: part as u32 }),
            (false, _) => {
                return Err(Corrupt::Unfinished {
                    at,
                    flag: part as u32,
                })
            }
        }
        at = next;
    }
}

/// The part at `at`: its flag, its bytes and the offset after its padding.
fn read_part(bytes: &[u8], at: usize) -> std::result::Result<(Part, &[u8], usize), Corrupt> {
    let header = at
        .checked_add(8)
        .and_then(|end| bytes.get(at..end))
        .ok_or_else(|| match bytes.len().checked_sub(at) {
            Some(left) => Corrupt::TruncatedHeader { at, left },
            None => Corrupt::PastEnd {
                at,
                len: bytes.len(),
            },
        })?;
    let word =
        |i: usize| u32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]);
    let (magic, lrec) = (word(0), word(4));
    if magic != MAGIC {
        return Err(Corrupt::Magic { at, magic });
    }
    let part = match lrec >> 29 {
        0 => Part::Whole,
        1 => Part::First,
        2 => Part::Middle,
        3 => Part::Last,
        flag => return Err(Corrupt::Flag { at, flag }),
    };
    let len = (lrec & ((1 << 29) - 1)) as usize;
    let start = at + 8;
    let end = start + len + padding(len);
    if end > bytes.len() {
        return Err(Corrupt::TruncatedPart {
            at,
            len,
            left: bytes.len() - start,
        });
    }
    Ok((part, &bytes[start..start + len], end))
}
