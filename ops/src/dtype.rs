//! Storage dtypes and their MXNet (mshadow) type codes.

use std::fmt;

/// A storage dtype. Compute happens in f64 in the reference interpreter and in f32 for
/// f16/bf16 in generated kernels; this enum only says how values are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    F32,
    F64,
    F16,
    BF16,
    U8,
    I32,
    I8,
    I64,
    Bool,
}

impl DType {
    pub const ALL: [DType; 9] = [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::U8,
        DType::I32,
        DType::I8,
        DType::I64,
        DType::Bool,
    ];
    pub const FLOATS: [DType; 4] = [DType::F32, DType::F64, DType::F16, DType::BF16];
    /// Every dtype arithmetic runs on (all but bool).
    pub const NUMERIC: [DType; 8] = [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::U8,
        DType::I32,
        DType::I8,
        DType::I64,
    ];

    /// mshadow's type flag (MXNET_SPEC §2.2).
    pub fn mxnet_code(self) -> i32 {
        match self {
            DType::F32 => 0,
            DType::F64 => 1,
            DType::F16 => 2,
            DType::U8 => 3,
            DType::I32 => 4,
            DType::I8 => 5,
            DType::I64 => 6,
            DType::Bool => 7,
            DType::BF16 => 12,
        }
    }

    pub fn from_mxnet_code(code: i32) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.mxnet_code() == code)
    }

    /// The name MXNet uses in `dtype` parameters and `__dtype__` attributes.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::U8 => "uint8",
            DType::I32 => "int32",
            DType::I8 => "int8",
            DType::I64 => "int64",
            DType::Bool => "bool",
        }
    }

    /// Parses a dtype name (`float32`) or an mshadow code (`0`), as MXNet accepts both.
    pub fn parse(s: &str) -> Option<DType> {
        let s = s.trim();
        if let Ok(code) = s.parse::<i32>() {
            return DType::from_mxnet_code(code);
        }
        DType::ALL.into_iter().find(|d| d.name() == s)
    }

    pub fn size(self) -> usize {
        match self {
            DType::F64 | DType::I64 => 8,
            DType::F32 | DType::I32 => 4,
            DType::F16 | DType::BF16 => 2,
            DType::U8 | DType::I8 | DType::Bool => 1,
        }
    }

    pub fn is_float(self) -> bool {
        DType::FLOATS.contains(&self)
    }

    /// numpy's `descr` type string for `.npy` headers (little-endian).
    pub fn npy_descr(self) -> &'static str {
        match self {
            DType::F32 => "<f4",
            DType::F64 => "<f8",
            DType::F16 => "<f2",
            DType::BF16 => "<V2", // numpy has no bfloat16; stored as raw 2-byte records
            DType::U8 => "|u1",
            DType::I32 => "<i4",
            DType::I8 => "|i1",
            DType::I64 => "<i8",
            DType::Bool => "|b1",
        }
    }

    pub fn from_npy_descr(s: &str) -> Option<DType> {
        let s = s.replace('=', "<");
        DType::ALL
            .into_iter()
            .find(|d| d.npy_descr() == s || d.npy_descr().replace('|', "<") == s)
    }

    /// Rounds an f64 to the nearest value this dtype can store (the interpreter calls this
    /// after every operator). Integers truncate toward zero and wrap like a C cast of an
    /// in-range value; out-of-range values saturate (NaN becomes 0).
    pub fn round(self, x: f64) -> f64 {
        match self {
            DType::F64 => x,
            DType::F32 => x as f32 as f64,
            DType::F16 => half::f16::from_f64(x).to_f64(),
            DType::BF16 => half::bf16::from_f64(x).to_f64(),
            DType::U8 => (x as i64 as u8) as f64,
            DType::I8 => (x as i64 as i8) as f64,
            DType::I32 => (x as i64 as i32) as f64,
            DType::I64 => x as i64 as f64,
            DType::Bool => (x != 0.0) as u8 as f64,
        }
    }

    /// Decodes one little-endian element.
    pub fn read(self, b: &[u8]) -> f64 {
        match self {
            DType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            DType::F64 => f64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8])),
            DType::F16 => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
            DType::BF16 => half::bf16::from_le_bytes([b[0], b[1]]).to_f64(),
            DType::U8 => b[0] as f64,
            DType::I8 => b[0] as i8 as f64,
            DType::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            DType::I64 => i64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8])) as f64,
            DType::Bool => (b[0] != 0) as u8 as f64,
        }
    }

    /// Appends one element, little-endian (the value is rounded first).
    pub fn write(self, x: f64, out: &mut Vec<u8>) {
        let x = self.round(x);
        match self {
            DType::F32 => out.extend_from_slice(&(x as f32).to_le_bytes()),
            DType::F64 => out.extend_from_slice(&x.to_le_bytes()),
            DType::F16 => out.extend_from_slice(&half::f16::from_f64(x).to_le_bytes()),
            DType::BF16 => out.extend_from_slice(&half::bf16::from_f64(x).to_le_bytes()),
            DType::U8 | DType::Bool => out.push(x as u8),
            DType::I8 => out.push(x as i8 as u8),
            DType::I32 => out.extend_from_slice(&(x as i32).to_le_bytes()),
            DType::I64 => out.extend_from_slice(&(x as i64).to_le_bytes()),
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_match_mshadow() {
        for d in DType::ALL {
            assert_eq!(DType::from_mxnet_code(d.mxnet_code()), Some(d));
            assert_eq!(DType::parse(d.name()), Some(d));
        }
        assert_eq!(DType::parse("12"), Some(DType::BF16));
        assert_eq!(DType::F16.mxnet_code(), 2);
    }

    #[test]
    fn rounding_follows_storage() {
        assert_eq!(DType::I32.round(-2.7), -2.0);
        assert_eq!(DType::U8.round(257.0), 1.0);
        assert_eq!(DType::F16.round(1.0 + 1e-4), 1.0);
        assert_eq!(DType::Bool.round(-3.0), 1.0);
        let mut b = Vec::new();
        DType::BF16.write(1.5, &mut b);
        assert_eq!(DType::BF16.read(&b), 1.5);
    }
}
