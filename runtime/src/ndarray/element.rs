//! Rust element types an array can be built from or read into.

use kiln_ops::DType;

/// A Rust type with a storage dtype. Conversions go through f64, exact for every dtype
/// but i64 beyond 2^53.
pub trait Element: Copy + Send + Sync + 'static {
    const DTYPE: DType;
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
}

macro_rules! element {
    ($t:ty, $d:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
        }
    };
}
element!(f32, F32);
element!(f64, F64);
element!(u8, U8);
element!(i8, I8);
element!(i32, I32);
element!(i64, I64);

impl Element for half::f16 {
    const DTYPE: DType = DType::F16;
    fn to_f64(self) -> f64 {
        half::f16::to_f64(self)
    }
    fn from_f64(v: f64) -> Self {
        half::f16::from_f64(v)
    }
}

impl Element for half::bf16 {
    const DTYPE: DType = DType::BF16;
    fn to_f64(self) -> f64 {
        half::bf16::to_f64(self)
    }
    fn from_f64(v: f64) -> Self {
        half::bf16::from_f64(v)
    }
}

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
}
