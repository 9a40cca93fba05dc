//! The traits a code generator implements for the runtime: compile a kernel IR loop nest
//! ([`KernelCompiler`]), and run a range of a compiled kernel ([`HostKernel`]); the
//! runtime splits runs over its thread pool ([`run`]). The host's compiler is kiln-llvm's
//! JIT ([`host_compiler`]); built without LLVM there is none, and executors target the
//! native kernels instead ([`crate::Backend::target`]).

use kiln_compiler::kir::LoopNest;
use std::sync::{Arc, OnceLock};

/// Why a backend could not compile or run a kernel.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BackendError {
    /// No code generator in this build or on this host.
    #[error("no kernel compiler: {0}")]
    Unavailable(String),
    /// A kernel failed to compile or link.
    #[error("kernel `{kernel}`: {message}")]
    Kernel { kernel: String, message: String },
    /// A call with the wrong buffers or dimensions.
    #[error("{0}")]
    Call(String),
    /// The kernel IR could not be lowered for the compiler.
    #[error(transparent)]
    Lower(#[from] kiln_compiler::kir::KirError),
}

impl From<kiln_llvm::Error> for BackendError {
    fn from(e: kiln_llvm::Error) -> BackendError {
        match e {
            kiln_llvm::Error::Unavailable | kiln_llvm::Error::Host(_) => {
                BackendError::Unavailable(e.to_string())
            }
            kiln_llvm::Error::Kernel { kernel, message } => {
                BackendError::Kernel { kernel, message }
            }
            kiln_llvm::Error::Call(message) => BackendError::Call(message),
        }
    }
}

pub type Result<T> = std::result::Result<T, BackendError>;

/// A kernel compiled for the host: callable from any thread.
pub trait HostKernel: Send + Sync {
    /// Buffers a call takes: the kernel's inputs, then its outputs.
    fn num_buffers(&self) -> usize;

    /// Under `dims`: the outermost loop's extent and the element operations of a whole
    /// run, for splitting it (`None`: no loop to split).
    fn rows(&self, dims: &[i64]) -> Result<Option<(i64, i64)>>;

    /// Runs iterations `lo..hi` of the outermost loop on the calling thread (the whole
    /// kernel where it has no loop).
    ///
    /// # Safety
    /// Every buffer must be valid for the element count the kernel declares under `dims`,
    /// in its dtype; outputs overlap nothing else unless the kernel reads and writes them
    /// at the same indices; ranges run at once are disjoint.
    unsafe fn run_range(&self, buffers: &[*mut u8], dims: &[i64], lo: i64, hi: i64);
}

/// Compiles kernel IR for the host.
pub trait KernelCompiler: Send + Sync {
    fn compile(&self, nest: &LoopNest) -> Result<Arc<dyn HostKernel>>;

    /// As `compile`, for calls with `dims` bound (a compiler may specialize how it writes
    /// outputs of the sizes they give).
    fn compile_for(&self, nest: &LoopNest, dims: &[i64]) -> Result<Arc<dyn HostKernel>> {
        let _ = dims;
        self.compile(nest)
    }

    /// Kernels compiled (or loaded from a cache on disk) so far; one found in memory is
    /// not counted.
    fn compiles(&self) -> usize;
}

impl HostKernel for kiln_llvm::CompiledKernel {
    fn num_buffers(&self) -> usize {
        kiln_llvm::CompiledKernel::num_buffers(self)
    }

    fn rows(&self, dims: &[i64]) -> Result<Option<(i64, i64)>> {
        Ok(kiln_llvm::CompiledKernel::rows(self, dims)?)
    }

    unsafe fn run_range(&self, buffers: &[*mut u8], dims: &[i64], lo: i64, hi: i64) {
        // SAFETY: as the caller promised.
        unsafe { kiln_llvm::CompiledKernel::run_range(self, buffers, dims, lo, hi) }
    }
}

impl KernelCompiler for kiln_llvm::Jit {
    fn compile(&self, nest: &LoopNest) -> Result<Arc<dyn HostKernel>> {
        let (kernel, _) = kiln_llvm::Jit::compile(self, nest)?;
        Ok(kernel)
    }

    fn compile_for(&self, nest: &LoopNest, dims: &[i64]) -> Result<Arc<dyn HostKernel>> {
        let (kernel, _) = kiln_llvm::Jit::compile_for(self, nest, dims)?;
        Ok(kernel)
    }

    fn compiles(&self) -> usize {
        kiln_llvm::Jit::compiles(self)
    }
}

/// The host's kernel compiler: the process's LLVM JIT, made once with the process
/// configuration's cache folder (`jit/` in it) and vector width (this CPU's where the
/// configuration leaves it open: [`crate::cpu::wisdom`]), streaming outputs larger than
/// the host's last-level cache; or why there is none.
pub fn host_compiler() -> Result<&'static dyn KernelCompiler> {
    static JIT: OnceLock<Result<kiln_llvm::Jit>> = OnceLock::new();
    let jit =
        JIT.get_or_init(|| {
            let config = crate::Config::global();
            let disk = config.cache_dir.as_ref().map(|d| d.join("jit"));
            Ok(kiln_llvm::Jit::new(disk)?
                .with_vector_bits(config.vector_bits.unwrap_or_else(|| {
                    crate::cpu::wisdom::vector_bits(config.cache_dir.as_deref())
                }))
                .with_streaming(crate::cpu::cache::last_level_bytes()))
        });
    match jit {
        Ok(jit) => Ok(jit),
        Err(e) => Err(e.clone()),
    }
}

/// Runs `kernel` whole on `buffers`, its outermost loop split over the pool where the
/// work pays for it.
///
/// # Safety
/// As [`HostKernel::run_range`].
pub unsafe fn run(kernel: &dyn HostKernel, buffers: &[*mut u8], dims: &[i64]) -> Result<()> {
    // SAFETY: as the caller promised.
    unsafe { run_rows(kernel, buffers, dims, None) }
}

/// Runs iterations `lo..hi` of `kernel`'s outermost loop (`None`: all of them), split
/// over the pool where the work pays for it.
///
/// # Safety
/// As [`HostKernel::run_range`].
pub unsafe fn run_rows(
    kernel: &dyn HostKernel,
    buffers: &[*mut u8],
    dims: &[i64],
    range: Option<(i64, i64)>,
) -> Result<()> {
    check_buffers(kernel, buffers)?;
    let Some((rows, work)) = kernel.rows(dims)? else {
        // SAFETY: as the caller promised.
        unsafe { kernel.run_range(buffers, dims, 0, 1) };
        return Ok(());
    };
    let (lo, hi) = range.unwrap_or((0, rows));
    let shared = SharedBuffers(buffers);
    let work = work / rows.max(1) * (hi - lo);
    crate::cpu::pool::global().run_rows(hi - lo, work, &|a, b| {
        // SAFETY: as the caller promised; the pool's ranges are disjoint.
        unsafe { kernel.run_range(shared.get(), dims, lo + a, lo + b) };
    });
    Ok(())
}

fn check_buffers(kernel: &dyn HostKernel, buffers: &[*mut u8]) -> Result<()> {
    if buffers.len() != kernel.num_buffers() {
        return Err(BackendError::Call(format!(
            "kernel takes {} buffers, {} given",
            kernel.num_buffers(),
            buffers.len()
        )));
    }
    Ok(())
}

/// Raw buffer pointers handed to the pool's tasks, each of which writes its own block of
/// the outputs through them.
pub(crate) struct SharedBuffers<'a>(pub &'a [*mut u8]);
// SAFETY: the tasks given them write disjoint blocks of the outputs and only read the
// inputs (what every caller promises).
unsafe impl Send for SharedBuffers<'_> {}
// SAFETY: as for Send: shared by reference, with the same disjoint writes.
unsafe impl Sync for SharedBuffers<'_> {}

impl SharedBuffers<'_> {
    pub(crate) fn get(&self) -> &[*mut u8] {
        self.0
    }
}
