//! NDArray: an n-dimensional array on a device, evaluated lazily through the engine.
//!
//! Every operation on arrays is pushed to the [`Engine`] with the arrays it reads and writes
//! and returns at once; [`NDArray::wait_to_read`], [`NDArray::to_vec`] and friends are the
//! synchronization points, and they report errors raised by the operations that produced
//! the array. Each array's memory comes from the device's pool ([`crate::storage`]) and is
//! one engine variable; views ([`NDArray::reshape`], [`NDArray::slice`]) share it.
//!
//! Every operator of kiln-ops can be applied to arrays through the typed builders
//! (`kiln_compiler::builders`) or [`NDArray::op`]. Element-wise chains on CPU f32 arrays
//! are recorded and run as one fused JIT kernel ([`lazy`], where there is a kernel
//! compiler); other
//! operators run their reference kernels.

mod arith;
mod element;
mod invoke;
mod io;
pub mod lazy;
pub mod random;

pub use element::Element;
pub use invoke::invoke_into;

use crate::device::Device;
use crate::engine::{Engine, EngineError, FnProperty, Var};
use crate::storage::Storage;
use crate::{Error, Result};
use kiln_ops::shape::fmt_shape;
use kiln_ops::tensor::{AllocError, FromBytesError};
use kiln_ops::{DType, Tensor};
use std::fmt;
use std::sync::Arc;

/// The memory behind an array and its views.
struct Chunk {
    storage: Storage,
    var: Var,
}

/// An n-dimensional array. Cloning gives another handle to the same data.
#[derive(Clone)]
pub struct NDArray {
    chunk: Arc<Chunk>,
    /// Offset of the first element in the chunk, in bytes.
    offset: usize,
    shape: Vec<usize>,
    dtype: DType,
}

pub(crate) fn engine() -> &'static Engine {
    Engine::global()
}

impl NDArray {
    /// A new array whose contents are not yet written (operations fill it).
    pub(crate) fn uninit(shape: &[usize], dtype: DType, device: Device) -> Result<NDArray> {
        // At most 2^60 elements of at most 8 bytes: the byte count fits.
        let bytes = kiln_ops::shape::checked_size(shape).ok_or_else(|| {
            Error::Input(format!(
                "shape {}: {}",
                fmt_shape(shape),
                kiln_ops::shape::TOO_LARGE
            ))
        })? * dtype.size();
        let storage = Storage::new(bytes, device)?;
        let chunk = Arc::new(Chunk {
            storage,
            var: engine().new_var(),
        });
        Ok(NDArray {
            chunk,
            offset: 0,
            shape: shape.to_vec(),
            dtype,
        })
    }

    /// An array for an executor entry (written by the executor's operations before use).
    pub(crate) fn uninit_for_executor(
        shape: &[usize],
        dtype: DType,
        device: Device,
    ) -> Result<NDArray> {
        NDArray::uninit(shape, dtype, device)
    }

    /// An executor's arena: one block of `bytes` whose views ([`NDArray::arena_view`]) hold
    /// the executor's entries. All views are one engine variable, so the engine runs the
    /// operations touching the arena in push order, which the memory plan's reuse needs.
    pub(crate) fn arena(bytes: usize, device: Device) -> Result<NDArray> {
        NDArray::uninit(&[bytes], DType::U8, device)
    }

    /// The entry of `shape` and `dtype` at byte `offset` of an arena.
    pub(crate) fn arena_view(
        &self,
        offset: usize,
        shape: &[usize],
        dtype: DType,
    ) -> Result<NDArray> {
        // Views hand out raw bytes: their extent is checked, never wrapped.
        let end = kiln_ops::shape::checked_size(shape)
            .map(|n| n * dtype.size())
            .and_then(|bytes| offset.checked_add(bytes));
        if end.is_none_or(|end| end > self.len()) || !offset.is_multiple_of(dtype.size()) {
            return Err(Error::Input(format!(
                "arena view {} {dtype} at byte {offset} does not fit an arena of {} bytes",
                fmt_shape(shape),
                self.len()
            )));
        }
        Ok(NDArray {
            chunk: self.chunk.clone(),
            offset: self.offset + offset,
            shape: shape.to_vec(),
            dtype,
        })
    }

    /// An array filled with `value`.
    pub fn full(shape: &[usize], value: f64, dtype: DType, device: Device) -> Result<NDArray> {
        let a = NDArray::uninit(shape, dtype, device)?;
        let mut one = Vec::with_capacity(dtype.size());
        dtype.write(value, &mut one);
        // SAFETY: a new array: no operation can be using it yet.
        let bytes = unsafe { a.bytes_mut() };
        bytes
            .chunks_exact_mut(dtype.size())
            .for_each(|c| c.copy_from_slice(&one));
        Ok(a)
    }

    pub fn zeros(shape: &[usize], dtype: DType, device: Device) -> Result<NDArray> {
        NDArray::full(shape, 0.0, dtype, device)
    }

    pub fn ones(shape: &[usize], dtype: DType, device: Device) -> Result<NDArray> {
        NDArray::full(shape, 1.0, dtype, device)
    }

    /// An array on the CPU holding `data` in row-major order.
    pub fn from_slice<T: Element>(data: &[T], shape: &[usize]) -> Result<NDArray> {
        if kiln_ops::shape::checked_size(shape) != Some(data.len()) {
            return Err(Error::Input(format!(
                "{} values cannot fill shape {}",
                data.len(),
                fmt_shape(shape)
            )));
        }
        let a = NDArray::uninit(shape, T::DTYPE, Device::Cpu)?;
        // SAFETY: a new array: no operation can be using it yet.
        match unsafe { a.elements_mut::<T>() } {
            Some(elements) => elements.copy_from_slice(data),
            None => {
                // bool: one byte per value, written through its dtype.
                // SAFETY: as above.
                let bytes = unsafe { a.bytes_mut() };
                let mut one = Vec::with_capacity(8);
                for (chunk, v) in bytes.chunks_exact_mut(T::DTYPE.size()).zip(data) {
                    one.clear();
                    T::DTYPE.write(v.to_f64(), &mut one);
                    chunk.copy_from_slice(&one);
                }
            }
        }
        Ok(a)
    }

    /// An array holding a reference tensor's values (in its dtype).
    pub fn from_tensor(t: &Tensor, device: Device) -> Result<NDArray> {
        let a = NDArray::uninit(&t.shape, t.dtype, device)?;
        // SAFETY: a new array: no operation can be using it yet.
        unsafe { a.write_tensor(t) };
        Ok(a)
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn device(&self) -> Device {
        self.chunk.storage.device()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of its elements.
    pub fn nbytes(&self) -> usize {
        self.len() * self.dtype.size()
    }

    /// The engine variable guarding this array's memory (shared by its views).
    pub fn var(&self) -> &Var {
        &self.chunk.var
    }

    /// Waits until every pending operation writing this array is done.
    pub fn wait_to_read(&self) -> Result<(), EngineError> {
        engine().wait_for_var(self.var())
    }

    /// Waits until every pending operation reading or writing this array is done.
    pub fn wait_to_write(&self) -> Result<(), EngineError> {
        engine().push_fn(
            "wait_to_write",
            &[],
            &[self.var().clone()],
            FnProperty::Normal,
            0,
            || Ok(()),
        );
        self.wait_to_read()
    }

    /// The values, after waiting for pending writes; converted to `T` if the dtype differs.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        Ok(self
            .to_tensor()?
            .data
            .into_iter()
            .map(T::from_f64)
            .collect())
    }

    /// The values as a reference tensor, after waiting for pending writes.
    pub fn to_tensor(&self) -> Result<Tensor> {
        self.wait_to_read()?;
        // SAFETY: no pending operation writes this array any more.
        unsafe { self.read_tensor() }.map_err(|e| Error::Allocation {
            bytes: e.bytes,
            device: Device::Cpu.to_string(),
            reason: format!("the values of {}{}", fmt_shape(&e.shape), e.cause()),
        })
    }

    /// The same elements in another shape of the same size, without a copy.
    pub fn reshape(&self, shape: &[usize]) -> Result<NDArray> {
        if kiln_ops::shape::checked_size(shape) != Some(self.len()) {
            return Err(Error::Input(format!(
                "cannot reshape {} to {}",
                fmt_shape(&self.shape),
                fmt_shape(shape)
            )));
        }
        Ok(NDArray {
            chunk: self.chunk.clone(),
            offset: self.offset,
            shape: shape.to_vec(),
            dtype: self.dtype,
        })
    }

    /// Rows `begin..end` along the first axis, without a copy.
    pub fn slice(&self, begin: usize, end: usize) -> Result<NDArray> {
        let rows = self.shape.first().copied().unwrap_or(0);
        if begin >= end || end > rows {
            return Err(Error::Input(format!(
                "slice {begin}..{end} is out of range for shape {}",
                fmt_shape(&self.shape)
            )));
        }
        let row: usize = self.shape[1..].iter().product();
        let mut shape = self.shape.clone();
        shape[0] = end - begin;
        Ok(NDArray {
            chunk: self.chunk.clone(),
            offset: self.offset + begin * row * self.dtype.size(),
            shape,
            dtype: self.dtype,
        })
    }

    /// A copy on `device` (asynchronous, on the engine's copy lane).
    pub fn copy_to(&self, device: Device) -> Result<NDArray> {
        let dst = NDArray::uninit(&self.shape, self.dtype(), device)?;
        let (src, out) = (self.clone(), dst.clone());
        engine().push_fn(
            "copy_to",
            &[self.var().clone()],
            &[dst.var().clone()],
            FnProperty::Copy,
            0,
            move || {
                // SAFETY: the engine orders this copy after writes of `src` and before uses of
                // `out`.
                unsafe { out.bytes_mut().copy_from_slice(src.bytes()) };
                Ok(())
            },
        );
        Ok(dst)
    }

    /// Overwrites this array with `src`'s values (same shape; converted to this dtype),
    /// asynchronously.
    pub fn copy_from(&self, src: &NDArray) -> Result<()> {
        if src.shape() != self.shape() {
            return Err(Error::Input(format!(
                "cannot copy an array of shape {} into one of shape {}",
                fmt_shape(src.shape()),
                fmt_shape(self.shape())
            )));
        }
        let (from, to) = (src.clone(), self.clone());
        engine().push_fn(
            "copy_from",
            &[src.var().clone()],
            &[self.var().clone()],
            FnProperty::Normal,
            0,
            move || {
                if from.dtype == to.dtype {
                    // The same dtype: the bytes, without converting element by element.
                    // SAFETY: both ranges lie inside their chunks' storage (offset and shape
                    // are checked when a view is made) and have one length; the engine
                    // orders this after writes of `from` and runs it exclusively for `to`;
                    // `ptr::copy` allows the two to overlap (views of one chunk).
                    unsafe {
                        std::ptr::copy(
                            from.chunk.storage.as_ptr().add(from.offset),
                            to.chunk.storage.as_ptr().add(to.offset),
                            to.nbytes(),
                        )
                    };
                    return Ok(());
                }
                // SAFETY: the engine orders this after writes of `from` and exclusively for `to`.
                let t = unsafe { from.read_tensor() }.map_err(|e| e.to_string())?;
                // SAFETY: the engine runs this exclusively for `to`, which is not `from` (the op
                // writes only `to` and reads only `from`).
                unsafe { to.write_tensor(&t) };
                Ok(())
            },
        );
        Ok(())
    }

    /// This array's bytes.
    ///
    /// # Safety
    /// No operation may be writing the array: call it inside an engine operation that
    /// reads it, or after waiting.
    pub(crate) unsafe fn bytes(&self) -> &[u8] {
        let size = self.dtype().size();
        // SAFETY: offset and length lie inside the chunk's storage.
        unsafe {
            std::slice::from_raw_parts(
                self.chunk.storage.as_ptr().add(self.offset),
                self.len() * size,
            )
        }
    }

    /// Whether `other` is a handle to the same elements (same memory, offset, shape and
    /// dtype): what code that pre-creates operations on arrays checks before reusing one.
    pub fn same_elements(&self, other: &NDArray) -> bool {
        Arc::ptr_eq(&self.chunk, &other.chunk)
            && self.offset == other.offset
            && self.shape == other.shape
            && self.dtype == other.dtype
    }

    /// The elements as `T`, for engine operations created outside the runtime (optimizer
    /// updates); `None` when `T` is not the array's dtype, or is `bool` (whose bytes other
    /// than 0 and 1 would not be valid values).
    ///
    /// # Safety
    /// As [`NDArray::bytes`]: inside an engine operation that reads the array (or after
    /// waiting), with no operation writing it.
    pub unsafe fn elements<T: Element>(&self) -> Option<&[T]> {
        if T::DTYPE != self.dtype || T::DTYPE == DType::Bool {
            return None;
        }
        // SAFETY: the caller guarantees no concurrent writer; storage is aligned for its
        // dtype, which is T's, and any bits are a valid value of a float or integer dtype.
        let (head, v, _) = unsafe { self.bytes().align_to::<T>() };
        head.is_empty().then_some(v)
    }

    /// The elements as `T`, to write; `None` when `T` is not the array's dtype, or is `bool`.
    ///
    /// # Safety
    /// As [`NDArray::bytes_mut`]: inside an engine operation that writes the array, or on
    /// an array no operation has seen yet; nothing else uses it meanwhile.
    #[allow(clippy::mut_from_ref)] // exclusivity comes from the engine, not the borrow
    pub unsafe fn elements_mut<T: Element>(&self) -> Option<&mut [T]> {
        if T::DTYPE != self.dtype || T::DTYPE == DType::Bool {
            return None;
        }
        // SAFETY: as `elements`, with exclusive use guaranteed by the caller.
        let (head, v, _) = unsafe { self.bytes_mut().align_to_mut::<T>() };
        head.is_empty().then_some(v)
    }

    /// The f32 elements of an f32 array.
    ///
    /// # Safety
    /// As [`NDArray::bytes`]; the array's dtype is f32.
    pub(crate) unsafe fn as_f32(&self) -> &[f32] {
        // SAFETY: storage is aligned for its dtype; any bits are a valid f32.
        let (_, v, _) = unsafe { self.bytes().align_to::<f32>() };
        v
    }

    /// The f32 elements of an f32 array, to write.
    ///
    /// # Safety
    /// As [`NDArray::bytes_mut`]; the array's dtype is f32.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn as_f32_mut(&self) -> &mut [f32] {
        // SAFETY: as `as_f32`.
        let (_, v, _) = unsafe { self.bytes_mut().align_to_mut::<f32>() };
        v
    }

    /// This array's bytes, writable.
    ///
    /// # Safety
    /// Nothing else may use the array: call it inside an engine operation that writes it,
    /// or on an array no operation has seen yet.
    #[allow(clippy::mut_from_ref)] // exclusivity comes from the engine, not the borrow
    pub(crate) unsafe fn bytes_mut(&self) -> &mut [u8] {
        let size = self.dtype().size();
        // SAFETY: offset and length lie inside the chunk's storage.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.chunk.storage.as_ptr().add(self.offset),
                self.len() * size,
            )
        }
    }

    /// # Safety
    /// As [`NDArray::bytes`].
    pub(crate) unsafe fn read_tensor(&self) -> Result<Tensor, AllocError> {
        // SAFETY: forwarded to the caller.
        let bytes = unsafe { self.bytes() };
        Tensor::from_bytes(self.dtype(), self.shape.clone(), bytes).map_err(|e| match e {
            FromBytesError::Alloc(e) => e,
            FromBytesError::Length { .. } => unreachable!("a chunk holds its shape"),
        })
    }

    /// # Safety
    /// As [`NDArray::bytes_mut`]; `t` has this array's shape.
    pub(crate) unsafe fn write_tensor(&self, t: &Tensor) {
        // SAFETY: forwarded to the caller.
        let bytes = unsafe { self.bytes_mut() };
        let size = self.dtype().size();
        let mut one = Vec::with_capacity(8);
        for (chunk, &v) in bytes.chunks_exact_mut(size).zip(&t.data) {
            one.clear();
            self.dtype().write(v, &mut one);
            chunk.copy_from_slice(&one);
        }
    }
}

impl fmt::Debug for NDArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "<NDArray {} {} @{}>",
            fmt_shape(&self.shape),
            self.dtype(),
            self.device()
        )
    }
}
