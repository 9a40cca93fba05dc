//! Image records: MXNet's `IRHeader` (flag, label, id, id2: 24 bytes, little-endian),
//! then `flag` f32 labels when there are several, then the encoded image — what
//! `mx.recordio.pack`/`unpack` write and read.

use super::Corrupt;

/// A record's label: one number (flag 0), or several (flag = their count, stored before
/// the image).
#[derive(Clone, Debug, PartialEq)]
pub enum Label {
    Scalar(f32),
    Multi(Vec<f32>),
}

impl Label {
    /// The label's values.
    pub fn values(&self) -> &[f32] {
        match self {
            Label::Scalar(v) => std::slice::from_ref(v),
            Label::Multi(v) => v,
        }
    }
}

/// An image record's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageRecord<'a> {
    pub label: Label,
    /// The image's id (im2rec: its line's index in the `.lst`).
    pub id: u64,
    /// Reserved (0 as im2rec writes it).
    pub id2: u64,
    /// The encoded image (or whatever bytes were packed).
    pub image: &'a [u8],
}

const HEADER_BYTES: usize = 24;

impl ImageRecord<'_> {
    /// The record's payload, as `mx.recordio.pack`: a multi-valued label (even of one
    /// value) is stored after the header with flag = its count and the header's label 0.
    pub fn pack(&self) -> Vec<u8> {
        let (flag, label, extra) = match &self.label {
            Label::Scalar(v) => (0u32, *v, &[][..]),
            Label::Multi(v) => (v.len() as u32, 0.0, &v[..]),
        };
        let mut out = Vec::with_capacity(HEADER_BYTES + 4 * extra.len() + self.image.len());
        out.extend_from_slice(&flag.to_le_bytes());
        out.extend_from_slice(&label.to_le_bytes());
        out.extend_from_slice(&self.id.to_le_bytes());
        out.extend_from_slice(&self.id2.to_le_bytes());
        for v in extra {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(self.image);
        out
    }

    /// Reads a payload as `mx.recordio.unpack` does; or says what is missing.
    pub fn unpack(payload: &[u8]) -> Result<ImageRecord<'_>, Corrupt> {
        let header = payload
            .get(..HEADER_BYTES)
            .ok_or(Corrupt::ShortImageHeader { len: payload.len() })?;
        let u32_at = |i: usize| u32::from_le_bytes(std::array::from_fn(|k| header[i + k]));
        let u64_at = |i: usize| u64::from_le_bytes(std::array::from_fn(|k| header[i + k]));
        let (flag, label) = (u32_at(0) as usize, f32::from_bits(u32_at(4)));
        let rest = &payload[HEADER_BYTES..];
        let (label, image) = match flag {
            0 => (Label::Scalar(label), rest),
            n => {
                let bytes =
                    (n.checked_mul(4))
                        .filter(|&b| b <= rest.len())
                        .ok_or(Corrupt::Labels {
                            count: n,
                            left: rest.len(),
                        })?;
                let (words, _) = rest[..bytes].as_chunks::<4>();
                let labels = words.iter().map(|&w| f32::from_le_bytes(w)).collect();
                (Label::Multi(labels), &rest[bytes..])
            }
        };
        Ok(ImageRecord {
            label,
            id: u64_at(8),
            id2: u64_at(16),
            image,
        })
    }
}
