//! dmlc RecordIO as MXNet 1.9.1 writes and reads it (dmlc-core `recordio.cc`), byte for
//! byte: each physical part is the magic word, `lrec = cflag << 29 | length`, the bytes and
//! zero padding to 4 bytes. The writer ends a part wherever the payload holds the magic at
//! a 4-byte-aligned offset (dropping those 4 bytes; unaligned occurrences stay), marking
//! parts first (1), middle (2) and last (3), a whole record 0; the reader puts the magic
//! back between parts.
//!
//! [`RecordFile`] reads a file through a memory map: a record of one part (every record
//! without an aligned magic inside) is a slice of the map, no copy. kiln is stricter than
//! dmlc's reader, which takes any continuation flag anywhere: a part sequence MXNet never
//! writes (a record starting with a middle part, a whole record inside one) is an error
//! naming the byte offset.

mod corrupt;
mod image;
mod index;
mod record_file;

pub use corrupt::Corrupt;
pub use image::{ImageRecord, Label};
pub use index::{read_index, write_index, IndexEntry};
pub use record_file::{Record, RecordFile, Records};

use std::io::{self, Write};

/// The word that starts every part, as a little-endian u32 (bytes `0A 23 D7 CE`).
pub const MAGIC: u32 = 0xCED7_230A;
const MAGIC_BYTES: [u8; 4] = MAGIC.to_le_bytes();

/// A part's length must fit lrec's 29 low bits; dmlc refuses records of 2^29 bytes or more.
pub const MAX_RECORD_BYTES: usize = (1 << 29) - 1;

/// A part's place in its record (lrec's top 3 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Whole = 0,
    First = 1,
    Middle = 2,
    Last = 3,
}

fn lrec(part: Part, len: usize) -> u32 {
    ((part as u32) << 29) | len as u32
}

/// The number of zero bytes that pad `len` bytes to a multiple of 4.
fn padding(len: usize) -> usize {
    len.next_multiple_of(4) - len
}

/// Writes records with dmlc's framing, counting the bytes so each record's offset (what an
/// `.idx` file holds) is known.
pub struct RecordWriter<W: Write> {
    out: W,
    position: u64,
}

impl<W: Write> RecordWriter<W> {
    /// A writer whose first record starts at offset 0 of `out`.
    pub fn new(out: W) -> RecordWriter<W> {
        RecordWriter { out, position: 0 }
    }

    /// Writes `payload` as one record; returns the offset it starts at.
    pub fn write(&mut self, payload: &[u8]) -> io::Result<u64> {
        if payload.len() > MAX_RECORD_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a record of {} bytes: RecordIO holds at most {MAX_RECORD_BYTES}",
                    payload.len()
                ),
            ));
        }
        let start = self.position;
        let mut part_start = 0;
        for i in (0..payload.len() / 4 * 4).step_by(4) {
            if payload[i..i + 4] == MAGIC_BYTES {
                let part = if part_start == 0 {
                    Part::First
                } else {
                    Part::Middle
                };
                self.part(part, &payload[part_start..i])?;
                part_start = i + 4;
            }
        }
        let part = if part_start == 0 {
            Part::Whole
        } else {
            Part::Last
        };
        self.part(part, &payload[part_start..])?;
        let pad = padding(payload.len());
        self.out.write_all(&[0; 3][..pad])?;
        self.position += pad as u64;
        Ok(start)
    }

    fn part(&mut self, part: Part, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(&MAGIC_BYTES)?;
        self.out.write_all(&lrec(part, bytes.len()).to_le_bytes())?;
        self.out.write_all(bytes)?;
        self.position += 8 + bytes.len() as u64;
        Ok(())
    }

    /// The offset the next record starts at.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// The output, flushed.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}
