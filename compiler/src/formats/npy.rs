//! NumPy `.npy` files (format versions 1–3): the CLI's input and output format.

use crate::error::{Error, Result};
use kiln_ops::shape::fmt_shape;
use kiln_ops::tensor::{reserve_values, AllocError, FromBytesError};
use kiln_ops::{DType, Tensor};

const MAGIC: &[u8] = b"\x93NUMPY";

fn bad(msg: impl Into<String>) -> Error {
    Error::Input(format!(".npy: {}", msg.into()))
}

/// The value of `'key': value` in a numpy header dict (a Python literal).
fn header_field<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let start = header.find(&format!("'{key}'"))? + key.len() + 2;
    let rest = header[start..].trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')')? + 1
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    Some(rest[..end].trim())
}

pub fn load_npy(bytes: &[u8]) -> Result<Tensor> {
    if !bytes.starts_with(MAGIC) || bytes.len() < 10 {
        return Err(bad("missing the \\x93NUMPY magic"));
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(bad(format!("format version {v} is not supported"))),
    };
    let header = bytes
        .get(start..start + header_len)
        .ok_or_else(|| bad("truncated header"))?;
    let header = std::str::from_utf8(header).map_err(|_| bad("header is not text"))?;
    let descr = header_field(header, "descr")
        .ok_or_else(|| bad("header has no 'descr'"))?
        .trim_matches('\'');
    let dtype = DType::from_npy_descr(descr)
        .ok_or_else(|| bad(format!("dtype {descr} is not supported")))?;
    let fortran = header_field(header, "fortran_order")
        .ok_or_else(|| bad("header has no 'fortran_order'"))?
        == "True";
    let shape_text = header_field(header, "shape").ok_or_else(|| bad("header has no 'shape'"))?;
    let shape: Vec<usize> = shape_text
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| bad(format!("bad shape {shape_text}")))
        })
        .collect::<Result<_>>()?;
    if kiln_ops::shape::checked_size(&shape).is_none() {
        return Err(bad(format!(
            "shape {}: {}",
            kiln_ops::shape::fmt_shape(&shape),
            kiln_ops::shape::TOO_LARGE
        )));
    }
    let data = &bytes[start + header_len..];
    let allocation = |e: AllocError| Error::Allocation {
        what: format!("the values of shape {}{}", fmt_shape(&e.shape), e.cause()),
        bytes: e.bytes,
    };
    let mut t = Tensor::from_bytes(dtype, shape.clone(), data).map_err(|e| match e {
        FromBytesError::Alloc(e) => allocation(e),
        e => bad(e.to_string()),
    })?;
    if fortran && shape.len() > 1 {
        // Column-major on disk: read it as the reversed shape, then transpose.
        let rev: Vec<usize> = shape.iter().rev().copied().collect();
        let src_strides = kiln_ops::tensor::strides(&rev);
        let src = std::mem::replace(&mut t.data, reserve_values(&shape).map_err(allocation)?);
        kiln_ops::tensor::for_each_index(&shape, |idx| {
            let off: usize = idx.iter().rev().zip(&src_strides).map(|(i, s)| i * s).sum();
            t.data.push(src[off]);
        });
    }
    Ok(t)
}

/// Writes a version 1.0 `.npy` with numpy's header layout (padded to 64 bytes).
pub fn save_npy(t: &Tensor) -> Vec<u8> {
    let shape = match t.shape.len() {
        1 => format!("({},)", t.shape[0]),
        _ => format!(
            "({})",
            t.shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        t.dtype.npy_descr()
    );
    let total = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat((64 - total % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + t.len() * t.dtype.size());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&t.to_bytes());
    out
}

pub fn read_npy(path: impl AsRef<std::path::Path>) -> Result<Tensor> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    load_npy(&bytes).map_err(|e| match e {
        Error::Allocation { what, bytes } => Error::Allocation {
            what: format!("{what} in {}", path.display()),
            bytes,
        },
        e => Error::Format {
            path: path.display().to_string(),
            msg: e.to_string(),
        },
    })
}

/// Writes `t` to `path` whole or not at all ([`super::atomic`]).
pub fn write_npy(path: impl AsRef<std::path::Path>, t: &Tensor) -> Result<()> {
    let path = path.as_ref();
    super::atomic::write_atomically(path, &save_npy(t)).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_numpy_layout() {
        let t = Tensor::new(DType::F32, vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let bytes = save_npy(&t);
        assert_eq!((bytes.len() - 24) % 64, 0, "header padded to 64 bytes");
        assert!(std::str::from_utf8(&bytes[10..74])
            .unwrap()
            .starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
        assert_eq!(load_npy(&bytes).unwrap(), t);
    }

    #[test]
    fn reads_fortran_order() {
        // Column-major [[1, 2, 3], [4, 5, 6]] is stored as 1 4 2 5 3 6.
        let t = Tensor::new(DType::F64, vec![2, 3], vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        let mut raw = save_npy(&t);
        let pos = raw.windows(5).position(|w| w == b"False").unwrap();
        raw.splice(pos..pos + 5, b"True ".iter().copied());
        let got = load_npy(&raw).unwrap();
        assert_eq!(got.data, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    }
}
