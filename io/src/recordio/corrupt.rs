//! What can be wrong with the bytes of a RecordIO file or an image record, each case
//! naming the byte offsets and sizes involved.

/// Bytes that are not a record (or an image record) as MXNet writes them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Corrupt {
    #[error("truncated: {left} bytes left at byte {at} where a part's 8-byte header starts")]
    TruncatedHeader { at: usize, left: usize },
    #[error("byte {at} is past the end of the file ({len} bytes)")]
    PastEnd { at: usize, len: usize },
    #[error("no RecordIO part at byte {at}: magic {magic:#010x}, expected 0xced7230a")]
    Magic { at: usize, magic: u32 },
    #[error("the part at byte {at} has continuation flag {flag} (0 to 3 are defined)")]
    Flag { at: usize, flag: u32 },
    #[error("truncated: the part at byte {at} holds {len} bytes but the file ends {left} bytes after its header")]
    TruncatedPart { at: usize, len: usize, left: usize },
    #[error("the record starts with a {} part (continuation flag {flag}): not the start of a record", if *.flag == 2 { "middle" } else { "last" })]
    StartsInside { flag: u32 },
    #[error("the part at byte {at} starts a new record (continuation flag {flag}) before the record's last part")]
    Unfinished { at: usize, flag: u32 },
    #[error("{len} bytes: an image record starts with a 24-byte header")]
    ShortImageHeader { len: usize },
    #[error("the header says {count} labels ({} bytes) but {left} bytes follow it", *.count as u64 * 4)]
    Labels { count: usize, left: usize },
}
