//! MXNet's NDArray list files (`mx.nd.save`, `*.params`; MXNET_SPEC §2): reading every
//! record version MXNet accepts, writing the V2 records MXNet 1.x writes.

use crate::error::{Error, Result};
use kiln_ops::{DType, Tensor};

const LIST_MAGIC: u64 = 0x112;
const V1_MAGIC: u32 = 0xF993_FAC8;
const V2_MAGIC: u32 = 0xF993_FAC9;
const V3_MAGIC: u32 = 0xF993_FACA;

/// The arrays of a params file and their names (empty when a list was saved).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamFile {
    pub arrays: Vec<Tensor>,
    pub names: Vec<String>,
}

impl ParamFile {
    /// `(name, array)` pairs; `None` if the file holds an unnamed list.
    pub fn named(&self) -> Option<impl Iterator<Item = (&str, &Tensor)>> {
        (self.names.len() == self.arrays.len() && !self.arrays.is_empty())
            .then(|| self.names.iter().map(String::as_str).zip(&self.arrays))
    }

    pub fn get(&self, name: &str) -> Option<&Tensor> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| &self.arrays[i])
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8]> {
        if self.bytes.len() - self.pos < n {
            return Err(Error::Input(format!(
                "truncated at byte {} reading {what} ({n} bytes needed, {} left)",
                self.pos,
                self.bytes.len() - self.pos
            )));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }
    fn i32(&mut self, what: &str) -> Result<i32> {
        Ok(self.u32(what)? as i32)
    }
    fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8, what)?.try_into().expect("8 bytes"),
        ))
    }
    fn i64(&mut self, what: &str) -> Result<i64> {
        Ok(self.u64(what)? as i64)
    }
}

fn bad(msg: String) -> Error {
    Error::Input(msg)
}

/// TShape: i32 ndim, then ndim i64 dims (V1+); `None` for an unknown (-1) ndim.
fn read_shape(r: &mut Reader, what: &str) -> Result<Option<Vec<usize>>> {
    let ndim = r.i32(what)?;
    if ndim < 0 {
        return Ok(None);
    }
    if ndim > 32 {
        return Err(bad(format!("{what}: implausible rank {ndim}")));
    }
    (0..ndim)
        .map(|_| {
            let d = r.i64(what)?;
            usize::try_from(d).map_err(|_| bad(format!("{what}: negative dimension {d}")))
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

fn read_record(r: &mut Reader, i: u64) -> Result<Tensor> {
    let what = format!("array {i}");
    let magic = r.u32(&what)?;
    let shape = match magic {
        V2_MAGIC | V3_MAGIC => {
            let stype = r.i32(&what)?;
            if stype != 0 {
                let kind = match stype {
                    1 => "row_sparse",
                    2 => "csr",
                    _ => "unknown",
                };
                return Err(bad(format!(
                    "{what} has {kind} storage (type {stype}); only dense arrays are supported"
                )));
            }
            read_shape(r, &what)?
        }
        V1_MAGIC => read_shape(r, &what)?,
        ndim => {
            // Oldest layout: the first word is ndim, dims are u32.
            if ndim > 32 {
                return Err(bad(format!(
                    "{what}: unrecognized record header 0x{ndim:08x}"
                )));
            }
            Some(
                (0..ndim)
                    .map(|_| r.u32(&what).map(|d| d as usize))
                    .collect::<Result<Vec<_>>>()?,
            )
        }
    };
    let shape = match shape {
        Some(s) if !s.is_empty() || magic == V3_MAGIC => s,
        _ => {
            return Err(bad(format!(
                "{what} is an empty (none) array, which kiln cannot represent"
            )))
        }
    };
    let _dev_type = r.i32(&what)?;
    let _dev_id = r.i32(&what)?;
    let code = r.i32(&what)?;
    let dtype = DType::from_mxnet_code(code)
        .ok_or_else(|| bad(format!("{what}: dtype code {code} is not supported (kiln stores f32, f64, f16, bf16, u8, i8, i32, i64, bool)")))?;
    let n = kiln_ops::shape::checked_size(&shape).ok_or_else(|| {
        bad(format!(
            "{what}: shape {}, {}",
            kiln_ops::shape::fmt_shape(&shape),
            kiln_ops::shape::TOO_LARGE
        ))
    })?;
    // At most 2^60 elements of at most 8 bytes: the product fits.
    let bytes = r.take(n * dtype.size(), &format!("{what} data ({n} × {dtype})"))?;
    Tensor::from_bytes(dtype, shape, bytes).map_err(|e| match e {
        kiln_ops::tensor::FromBytesError::Alloc(e) => Error::Allocation {
            what: format!("the values of {what}{}", e.cause()),
            bytes: e.bytes,
        },
        e => bad(format!("{what}: {e}")),
    })
}

/// Parses a params file.
pub fn load_params(bytes: &[u8]) -> Result<ParamFile> {
    let mut r = Reader { bytes, pos: 0 };
    let magic = r.u64("header")?;
    if magic != LIST_MAGIC {
        return Err(bad(format!(
            "not an MXNet NDArray file (magic 0x{magic:x}, expected 0x112)"
        )));
    }
    let _reserved = r.u64("header")?;
    let n = r.u64("array count")?;
    if n > bytes.len() as u64 {
        return Err(bad(format!("implausible array count {n}")));
    }
    let arrays = (0..n)
        .map(|i| read_record(&mut r, i))
        .collect::<Result<Vec<_>>>()?;
    let k = r.u64("name count")?;
    if k != 0 && k != n {
        return Err(bad(format!("{k} names for {n} arrays")));
    }
    let names = (0..k)
        .map(|i| {
            let len = r.u64("name length")? as usize;
            let raw = r.take(len, &format!("name {i}"))?;
            String::from_utf8(raw.to_vec()).map_err(|_| bad(format!("name {i} is not UTF-8")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(ParamFile { arrays, names })
}

/// Serializes arrays (with names, or none for a list) as MXNet 1.x does: V2 dense records
/// with a CPU context.
pub fn save_params(file: &ParamFile) -> Result<Vec<u8>> {
    if !file.names.is_empty() && file.names.len() != file.arrays.len() {
        return Err(bad(format!(
            "{} names for {} arrays",
            file.names.len(),
            file.arrays.len()
        )));
    }
    let mut out = Vec::new();
    for w in [LIST_MAGIC, 0, file.arrays.len() as u64] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for (i, t) in file.arrays.iter().enumerate() {
        if t.shape.is_empty() {
            let name = file
                .names
                .get(i)
                .map_or_else(|| format!("array {i}"), |n| format!("`{n}`"));
            return Err(bad(format!(
                "{name} has rank 0, which MXNet's params format cannot store"
            )));
        }
        out.extend_from_slice(&V2_MAGIC.to_le_bytes());
        out.extend_from_slice(&0i32.to_le_bytes());
        out.extend_from_slice(&(t.shape.len() as i32).to_le_bytes());
        for &d in &t.shape {
            out.extend_from_slice(&(d as i64).to_le_bytes());
        }
        for w in [1i32, 0, t.dtype.mxnet_code()] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&t.to_bytes());
    }
    out.extend_from_slice(&(file.names.len() as u64).to_le_bytes());
    for name in &file.names {
        out.extend_from_slice(&(name.len() as u64).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
    }
    Ok(out)
}

/// Reads a params file from disk.
pub fn read_params(path: impl AsRef<std::path::Path>) -> Result<ParamFile> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    load_params(&bytes).map_err(|e| match e {
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

/// Writes a params file to disk, whole or not at all ([`super::atomic`]).
pub fn write_params(path: impl AsRef<std::path::Path>, file: &ParamFile) -> Result<()> {
    let path = path.as_ref();
    super::atomic::write_atomically(path, &save_params(file)?).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_garbage() {
        let a = Tensor::new(
            DType::F32,
            vec![2, 3],
            (0..6).map(|i| i as f64 * 0.5).collect(),
        );
        let b = Tensor::new(DType::I64, vec![1], vec![-7.0]);
        let file = ParamFile {
            arrays: vec![a, b],
            names: vec!["arg:w".into(), "aux:m".into()],
        };
        let bytes = save_params(&file).unwrap();
        assert_eq!(load_params(&bytes).unwrap(), file);
        let e = load_params(&bytes[..bytes.len() - 3])
            .unwrap_err()
            .to_string();
        assert!(e.contains("truncated"), "{e}");
        let e = load_params(b"not a params file at all")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not an MXNet NDArray file"), "{e}");
    }
}
