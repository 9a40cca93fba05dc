//! Native kernels: a library operator's reference algorithm also compiled for f32 buffers,
//! so a CPU backend runs it on its arrays in place — no conversion to f64 tensors, no
//! allocation of whole tensors per call — while it stays the one definition of what the
//! operator computes (the reference kernel calls the same code at f64). The registry test
//! checks each native kernel against its reference. A backend that runs native kernels
//! prefers one to compiling the operator's contraction: an operator has both only where
//! the native kernel is the faster (col2im), while a GPU compiles the contraction.

use crate::shape::{OpError, Shape};
use crate::{Attrs, KernelCtx};

/// A float type the shared algorithms run in.
pub trait Real: Copy + Send + Sync + 'static {
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
}

impl Real for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
}

impl Real for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> f64 {
        v
    }
}

/// Runs `task(i)` once for every `i < n`, possibly at once on several threads (the
/// backend's pool).
pub type ParallelFor<'a> = &'a (dyn Fn(usize, &(dyn Fn(usize) + Sync)) + Sync);

/// [`ParallelFor`] on the calling thread.
pub fn serial(n: usize, task: &(dyn Fn(usize) + Sync)) {
    (0..n).for_each(task)
}

/// `f(b, block)` for the blocks of `block_len` consecutive elements of `buf` (the last
/// one shorter), over `parallel`, without allocating: each task writes its own block.
pub fn for_blocks<T: Send>(
    buf: &mut [T],
    block_len: usize,
    parallel: ParallelFor,
    f: &(dyn Fn(usize, &mut [T]) + Sync),
) {
    struct Base<T>(*mut T);
    // SAFETY: the tasks touch disjoint blocks of the buffer, whose elements are `Send`.
    unsafe impl<T: Send> Sync for Base<T> {}
    impl<T> Base<T> {
        fn get(&self) -> *mut T {
            self.0
        }
    }
    let (len, block_len) = (buf.len(), block_len.max(1));
    let base = Base(buf.as_mut_ptr());
    parallel(len.div_ceil(block_len), &|b| {
        let start = b * block_len;
        let end = (start + block_len).min(len);
        // SAFETY: `parallel` runs each block index once, and blocks do not overlap.
        let block = unsafe { std::slice::from_raw_parts_mut(base.get().add(start), end - start) };
        f(b, block)
    });
}

/// The buffers of one call: inputs (with their shapes) and outputs (in the context's
/// output shapes), all f32; and the backend's parallel loop.
pub struct NativeIo<'a> {
    pub inputs: &'a [&'a [f32]],
    pub in_shapes: &'a [Shape],
    pub outputs: &'a mut [&'a mut [f32]],
    pub parallel: ParallelFor<'a>,
    /// Working space of [`Native::scratch`] elements, owned by the caller (an executor
    /// keeps one per node, MXNet's temporary-space resource), so a call allocates nothing.
    pub scratch: &'a mut [f64],
}

/// An operator's native kernel: whether it covers a configuration (attributes and input
/// shapes; f32 everywhere is the caller's check), the working space it needs there, and
/// the kernel.
#[derive(Clone, Copy)]
pub struct Native {
    pub supports: fn(&Attrs, &[Shape]) -> bool,
    /// f64 elements of [`NativeIo::scratch`] a call needs.
    pub scratch: fn(&Attrs, &[Shape]) -> usize,
    pub run: fn(&KernelCtx, NativeIo) -> Result<(), OpError>,
}

/// [`Native::scratch`] of kernels that need none.
pub fn no_scratch(_: &Attrs, _: &[Shape]) -> usize {
    0
}
