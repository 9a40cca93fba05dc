//! The device interface: what the GPU executor asks of a device, at the level of the CUDA
//! driver API and cuBLAS. Two implementations: [`crate::driver`] on a real GPU through
//! cudarc, and [`crate::emulated`] on host memory, which runs every launch in the SIMT
//! emulator and checks the ordering of streams. Everything above this trait — the pool,
//! the module of kernels, the executor — is the same code on both.
//!
//! Contract (what an implementation guarantees and a caller relies on):
//! - Operations on one stream run in the order they were issued; operations on different
//!   streams are unordered unless an event orders them ([`Gpu::record`] on one stream,
//!   [`Gpu::wait`] on the other). Work issued after [`Gpu::synchronize`] of a stream (or
//!   a copy to the host from it, which returns when the copy is done) is ordered after
//!   that stream's earlier work.
//! - [`Gpu::copy_to_device`] may return before the copy lands, but the source slice may
//!   be reused as soon as it returns (the driver stages pageable memory).
//! - Addresses are those of [`Gpu::alloc`], which aligns them to 256 bytes; a range that
//!   leaves its allocation is an error, on the emulated device before anything is written.
//! - A launch takes the buffers of its kernel (inputs, then outputs), then its symbolic
//!   dimensions, then — under the element-wise schedule — the element count, exactly the
//!   parameters [`kiln_compiler::kir::cuda::render`] declares.

use crate::error::Result;
use kiln_compiler::kir::gpu::GpuKernel;
use kiln_compiler::kir::Kernel;
use kiln_ops::DType;
use std::fmt;

/// A device address (`CUdeviceptr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DevicePtr(pub u64);

impl DevicePtr {
    /// The address `bytes` further on.
    pub fn offset(self, bytes: usize) -> DevicePtr {
        DevicePtr(self.0 + bytes as u64)
    }
}

impl fmt::Display for DevicePtr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// A stream of the device, by index (the device owns it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stream(pub usize);

/// An event of the device, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event(pub usize);

/// A loaded module, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModuleId(pub usize);

/// A device's compute capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Arch {
    pub major: u32,
    pub minor: u32,
}

impl fmt::Display for Arch {
    /// NVRTC's spelling: `sm_90`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}{}", self.major, self.minor)
    }
}

/// How a kernel's threads cover its domain.
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    /// A grid-stride loop over the flattened domain: any grid and block cover it.
    ElementWise,
    /// One block per row, threads reducing through shared memory
    /// ([`kiln_compiler::kir::gpu::block_reduce`]): launched with exactly its block size
    /// and shared memory.
    Block(Box<GpuKernel>),
}

/// One kernel of a module: the IR it was rendered from, its schedule, and its CUDA C (an
/// `extern "C"` function in a namespace of its own).
#[derive(Clone, Debug)]
pub struct KernelCode {
    pub ir: Kernel,
    pub schedule: Schedule,
    pub cuda: String,
}

impl KernelCode {
    /// The parameters the rendered kernel declares.
    pub fn params(&self) -> Params {
        Params {
            buffers: self.ir.inputs.len() + self.ir.outputs.len(),
            dims: self.ir.symbolic_dims(),
            counted: matches!(self.schedule, Schedule::ElementWise),
        }
    }
}

/// The parameters a rendered kernel declares: its buffers, its symbolic dimensions, and
/// (`counted`) the element count under the element-wise schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    pub buffers: usize,
    pub dims: usize,
    pub counted: bool,
}

impl Params {
    /// How many there are.
    pub fn count(&self) -> usize {
        self.buffers + self.dims + usize::from(self.counted)
    }

    /// Checks that a launch (`op`) passes as many arguments: the driver reads one per
    /// declared parameter, so fewer would be read past.
    pub fn check(&self, op: &str, args: &[Arg]) -> Result<()> {
        if args.len() == self.count() {
            return Ok(());
        }
        Err(crate::GpuError::invalid(
            op,
            format!(
                "{} arguments given, the kernel takes {} ({} buffers, {} dimensions{})",
                args.len(),
                self.count(),
                self.buffers,
                self.dims,
                if self.counted {
                    ", the element count"
                } else {
                    ""
                }
            ),
        ))
    }
}

/// Kernels compiled together: what [`Gpu::load`] compiles (NVRTC) or emulates.
#[derive(Clone, Debug)]
pub struct Module {
    pub name: String,
    pub kernels: Vec<KernelCode>,
}

impl Module {
    /// The kernels' CUDA C as one translation unit.
    pub fn cuda(&self) -> String {
        self.kernels.iter().map(|k| k.cuda.as_str()).collect()
    }

    /// The kernels in `n` modules of consecutive kernels (fewer where there are fewer
    /// kernels), named `NAME.p0`, `NAME.p1`, ...: parts NVRTC compiles at once.
    pub fn parts(&self, n: usize) -> Vec<Module> {
        let size = self.kernels.len().div_ceil(n.max(1)).max(1);
        (self.kernels.chunks(size).enumerate())
            .map(|(i, kernels)| Module {
                name: format!("{}.p{i}", self.name),
                kernels: kernels.to_vec(),
            })
            .collect()
    }
}

/// A launch's geometry: blocks, threads per block, dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: u32,
    pub block: u32,
    pub shared_bytes: u32,
}

/// A kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    Ptr(DevicePtr),
    I64(i64),
}

/// `C = alpha·op(A)·op(B) + beta·C` in cuBLAS's conventions: column-major matrices,
/// `op(A)` of `m × k` (`A` stored `k × m` where `trans_a`), leading dimensions in
/// elements; `batch` such products (`cublas<t>gemmStridedBatched`), the i-th on
/// matrices `i·strides` elements further on (`[A, B, C]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gemm {
    pub dtype: DType,
    pub trans_a: bool,
    pub trans_b: bool,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub alpha: f64,
    pub a: DevicePtr,
    pub lda: usize,
    pub b: DevicePtr,
    pub ldb: usize,
    pub beta: f64,
    pub c: DevicePtr,
    pub ldc: usize,
    pub batch: usize,
    pub strides: [usize; 3],
}

impl Gemm {
    /// The rows and columns `A` and `B` are stored with, and `C`'s.
    pub fn stored(&self) -> [(usize, usize); 3] {
        let a = if self.trans_a {
            (self.k, self.m)
        } else {
            (self.m, self.k)
        };
        let b = if self.trans_b {
            (self.n, self.k)
        } else {
            (self.k, self.n)
        };
        [a, b, (self.m, self.n)]
    }

    /// Checks what cuBLAS checks (`CUBLAS_STATUS_INVALID_VALUE`): each leading dimension at
    /// least its matrix's stored rows (and at least 1), a dtype cuBLAS multiplies here.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(crate::GpuError::invalid("gemm", m));
        if self.batch == 0 {
            return bad("a batch of 0 products".into());
        }
        if !matches!(self.dtype, DType::F32 | DType::F64) {
            return bad(format!("dtype {} (f32 and f64 only)", self.dtype.name()));
        }
        // Products of a batch writing the same elements have no defined result.
        let (rows, cols) = (self.m, self.n);
        if self.batch > 1 && rows > 0 && cols > 0 && self.strides[2] < (cols - 1) * self.ldc + rows
        {
            return bad(format!(
                "C matrices {} elements apart overlap ({rows} × {cols}, ldc {})",
                self.strides[2], self.ldc
            ));
        }
        for ((rows, _), (ld, name)) in
            self.stored()
                .iter()
                .zip([(self.lda, "lda"), (self.ldb, "ldb"), (self.ldc, "ldc")])
        {
            if ld < (*rows).max(1) {
                return bad(format!("{name} = {ld} is below the stored rows {rows}"));
            }
        }
        Ok(())
    }

    /// Bytes from matrix `which`'s first address (0: A, 1: B, 2: C) to past the last
    /// element of its last batch: `(batch − 1)·stride + (cols − 1)·ld + rows` elements
    /// (none for an empty matrix).
    pub fn extent(&self, which: usize) -> usize {
        let (rows, cols) = self.stored()[which];
        let ld = [self.lda, self.ldb, self.ldc][which];
        if rows == 0 || cols == 0 || self.batch == 0 {
            return 0;
        }
        let last = (self.batch - 1) * self.strides[which];
        (last + (cols - 1) * ld + rows) * self.dtype.size()
    }
}

/// A GPU as the executor sees it. Errors name the operation (and, on the emulated
/// device, the kernel, buffer and range involved).
pub trait Gpu: Send + Sync {
    /// The device's name (`NVIDIA H100 80GB HBM3`, `emulated`).
    fn name(&self) -> String;
    fn arch(&self) -> Arch;
    /// Bytes of device memory in all.
    fn total_memory(&self) -> usize;

    /// Device memory of `bytes` (`cuMemAlloc`), aligned to 256 bytes.
    fn alloc(&self, bytes: usize) -> Result<DevicePtr>;
    /// Returns an allocation (`cuMemFree`, which waits for work using it).
    fn free(&self, ptr: DevicePtr) -> Result<()>;

    fn new_stream(&self) -> Result<Stream>;
    fn new_event(&self) -> Result<Event>;
    /// `event` marks the work issued on `stream` so far.
    fn record(&self, event: Event, stream: Stream) -> Result<()>;
    /// Work issued on `stream` from now on waits for `event`'s last recorded work.
    fn wait(&self, stream: Stream, event: Event) -> Result<()>;
    /// Returns when `stream`'s work so far is done.
    fn synchronize(&self, stream: Stream) -> Result<()>;

    fn copy_to_device(&self, stream: Stream, dst: DevicePtr, src: &[u8]) -> Result<()>;
    /// Returns when the bytes are in `dst` (after the stream's earlier work).
    fn copy_to_host(&self, stream: Stream, dst: &mut [u8], src: DevicePtr) -> Result<()>;
    fn copy_on_device(
        &self,
        stream: Stream,
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
    ) -> Result<()>;
    fn fill_zero(&self, stream: Stream, dst: DevicePtr, bytes: usize) -> Result<()>;

    /// Compiles a module for this device (or takes it from a cache) and loads it.
    fn load(&self, module: &Module) -> Result<ModuleId>;
    /// Launches kernel `kernel` of a loaded module.
    fn launch(
        &self,
        stream: Stream,
        module: ModuleId,
        kernel: &str,
        config: LaunchConfig,
        args: &[Arg],
    ) -> Result<()>;
    /// A matrix product on the device's BLAS (cuBLAS `cublas<t>gemmStridedBatched`).
    fn gemm(&self, stream: Stream, gemm: &Gemm) -> Result<()>;
}
