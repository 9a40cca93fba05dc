//! The reference interpreter's tensor: dtype-erased values in f64.

use crate::shape::{checked_size, fmt_shape, Shape};
use crate::DType;

/// Memory for a tensor's values that could not be had: sizes come from files and shapes
/// the user gives, so running out is an error, not an abort.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot allocate {bytes} bytes for the values of shape {}{}",
    fmt_shape(shape),
    self.cause()
)]
pub struct AllocError {
    pub shape: Shape,
    /// What was asked for (`usize::MAX` past any allocation).
    pub bytes: usize,
    /// What the machine had available, where that is why.
    pub available: Option<usize>,
}

impl AllocError {
    /// Why, for messages that name the values themselves: the memory the machine had,
    /// where that is why (else empty).
    pub fn cause(&self) -> String {
        (self.available).map_or(String::new(), |a| {
            format!(": the machine has {a} bytes available")
        })
    }
}

/// Why bytes did not become a tensor.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FromBytesError {
    #[error("{len} bytes do not hold shape {} of {dtype}", fmt_shape(shape))]
    Length {
        len: usize,
        shape: Shape,
        dtype: DType,
    },
    #[error(transparent)]
    Alloc(#[from] AllocError),
}

/// Room for the values of `shape` (interpreted as f64), reserved fallibly.
pub fn reserve_values(shape: &[usize]) -> Result<Vec<f64>, AllocError> {
    let failed = |bytes, available| AllocError {
        shape: shape.to_vec(),
        bytes,
        available,
    };
    let n = checked_size(shape).ok_or_else(|| failed(usize::MAX, None))?;
    let bytes = n * std::mem::size_of::<f64>();
    if let Some(available) = crate::memory::past_available(bytes) {
        return Err(failed(bytes, Some(available)));
    }
    let mut data = Vec::new();
    data.try_reserve_exact(n).map_err(|_| failed(bytes, None))?;
    Ok(data)
}

/// A dense row-major tensor whose values are held as f64 and rounded to `dtype` after
/// every operator (DESIGN.md: the interpreter is dtype-erased). Integers are exact up
/// to 2^53.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

impl Tensor {
    /// Builds a tensor, rounding `data` to `dtype`. `data.len()` must equal the shape's size.
    pub fn new(dtype: DType, shape: Vec<usize>, mut data: Vec<f64>) -> Tensor {
        assert_eq!(
            data.len(),
            shape.iter().product::<usize>(),
            "tensor data does not fill shape {shape:?}"
        );
        data.iter_mut().for_each(|v| *v = dtype.round(*v));
        Tensor { dtype, shape, data }
    }

    pub fn zeros(dtype: DType, shape: Vec<usize>) -> Tensor {
        let n = shape.iter().product();
        Tensor {
            dtype,
            shape,
            data: vec![0.0; n],
        }
    }

    pub fn full(dtype: DType, shape: Vec<usize>, value: f64) -> Tensor {
        let n = shape.iter().product();
        Tensor {
            dtype,
            shape,
            data: vec![dtype.round(value); n],
        }
    }

    /// [`Tensor::full`] for a shape from outside: running out of memory is an error.
    pub fn try_full(dtype: DType, shape: Vec<usize>, value: f64) -> Result<Tensor, AllocError> {
        let mut data = reserve_values(&shape)?;
        data.resize(crate::shape::size(&shape), dtype.round(value));
        Ok(Tensor { dtype, shape, data })
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Row-major strides in elements.
    pub fn strides(&self) -> Vec<usize> {
        strides(&self.shape)
    }

    /// Decodes little-endian bytes of `dtype`: they must be as many as the shape holds,
    /// and the values (f64, wider than the bytes) are allocated fallibly.
    pub fn from_bytes(
        dtype: DType,
        shape: Vec<usize>,
        bytes: &[u8],
    ) -> Result<Tensor, FromBytesError> {
        let fits = checked_size(&shape).is_some_and(|n| bytes.len() == n * dtype.size());
        if !fits {
            return Err(FromBytesError::Length {
                len: bytes.len(),
                shape,
                dtype,
            });
        }
        let mut data = reserve_values(&shape)?;
        data.extend(bytes.chunks_exact(dtype.size()).map(|b| dtype.read(b)));
        Ok(Tensor { dtype, shape, data })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() * self.dtype.size());
        self.data
            .iter()
            .for_each(|&v| self.dtype.write(v, &mut out));
        out
    }

    /// The same values stored as another dtype.
    pub fn cast(&self, dtype: DType) -> Tensor {
        Tensor::new(dtype, self.shape.clone(), self.data.clone())
    }

    /// The largest absolute difference to `other`, relative to `other`'s largest finite
    /// magnitude (the parity tests' "relative to the output scale"); a different shape, or
    /// a NaN or infinity where `other` has a number, is a mismatch.
    pub fn max_rel_diff(&self, other: &Tensor) -> Result<f64, crate::compare::Mismatch> {
        crate::compare::same_shape(&self.shape, &other.shape)?;
        crate::compare::max_rel_diff(&self.data, &other.data)
    }
}

/// Row-major strides of a shape, in elements.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Calls `f` with every coordinate of `shape` in row-major order.
pub fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if shape.contains(&0) {
        return;
    }
    let mut idx = vec![0usize; shape.len()];
    loop {
        f(&idx);
        let mut axis = shape.len();
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            idx[axis] += 1;
            if idx[axis] < shape[axis] {
                break;
            }
            idx[axis] = 0;
        }
    }
}
