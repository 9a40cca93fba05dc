//! The real GPU: [`Gpu`] on the CUDA driver API, NVRTC and cuBLAS through cudarc.
//!
//! - **Dynamic loading.** cudarc opens `libcuda`, `libnvrtc` and `libcublas` at run time,
//!   so every build links without CUDA. Each library is probed (`is_culib_present`) before
//!   its first call — cudarc panics on a missing one — and a missing library, or a machine
//!   with no device, is [`GpuError::Unavailable`].
//! - **Context current per call.** The device's primary context is retained in
//!   [`CudaGpu::new`] and made current (`cuCtxSetCurrent`, a cheap thread-local store) at
//!   the top of every method that reaches the driver, so any thread may use the device.
//!   Streams, events, modules and the cuBLAS handle live in index-addressed tables.
//! - **Compilation.** [`Gpu::load`] compiles a module's CUDA C with NVRTC to a CUBIN for
//!   the device's `sm_XY` when NVRTC knows it, else to PTX for the newest `compute_XY` below
//!   it (the driver JIT-compiles that). With a cache folder the image is kept in
//!   `<cache>/cuda/<arch>-<key>.{cubin,ptx}`, `key` the FNV-1a 64 hash of the source, arch,
//!   driver version, NVRTC version and options (each followed by a NUL byte). A file holds
//!   the image, then the same hash of the image (8 bytes, little-endian), checked before the
//!   driver sees it (`cuModuleLoadData` takes no length); it is written atomically (a
//!   temporary file, then rename). A file that fails the check is compiled again; a cache
//!   that cannot be written is skipped, never an error. A module compiles in parts on the
//!   host's threads (NVRTC compiles distinct programs at once), each part a CUDA module
//!   and a cache file of its own.

use crate::device::{
    Arch, Arg, DevicePtr, Event, Gemm, Gpu, LaunchConfig, Module, ModuleId, Params, Stream,
};
use crate::error::{GpuError, Result};
use cudarc::cublas::{result as blas, sys as blas_sys};
use cudarc::driver::{result as cu, sys};
use cudarc::nvrtc::{result as rtc, sys as rtc_sys};
use kiln_compiler::formats::atomic::write_atomically;
use kiln_ops::DType;
use std::collections::HashMap;
use std::ffi::{c_int, c_void, CString};
use std::fmt::Display;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// A raw CUDA handle: `CUcontext`, `CUstream`, `CUevent`, `CUmodule`, `CUfunction` or
/// `cublasHandle_t` (all opaque pointers).
#[derive(Clone, Copy)]
struct Handle<T>(*mut T);

// SAFETY: this private type only holds CUDA and cuBLAS handles, whose pointees (driver
// state) are never dereferenced here; CUDA handles may be used from any thread once their
// context is current, which every method ensures first, and the cuBLAS handle (not safe
// for concurrent use) is only used under its mutex.
unsafe impl<T> Send for Handle<T> {}
// SAFETY: as for `Send`: shared references only copy the pointer out.
unsafe impl<T> Sync for Handle<T> {}

/// A loaded module (its parts, each a CUDA module) and its kernels by name, with the
/// number of parameters each declares.
struct Loaded {
    modules: Vec<Handle<sys::CUmod_st>>,
    functions: HashMap<String, (Handle<sys::CUfunc_st>, Params)>,
}

/// One CUDA device (its primary context) as a [`Gpu`].
pub struct CudaGpu {
    device: sys::CUdevice,
    ctx: Handle<sys::CUctx_st>,
    name: String,
    arch: Arch,
    total_memory: usize,
    driver_version: i32,
    cache_dir: Option<PathBuf>,
    streams: Mutex<Vec<Handle<sys::CUstream_st>>>,
    events: Mutex<Vec<Handle<sys::CUevent_st>>>,
    modules: Mutex<Vec<Loaded>>,
    /// Created on the first product.
    blas: Mutex<Option<Handle<blas_sys::cublasContext>>>,
    compiles: AtomicUsize,
}

/// Turns a cudarc error into [`GpuError::Driver`] for `op` (what was being done).
fn driver<E: Display>(op: impl Into<String>) -> impl FnOnce(E) -> GpuError {
    move |e| GpuError::Driver {
        op: op.into(),
        message: e.to_string(),
    }
}

/// `result.doing(|| op)`: [`driver`] with the operation named only on failure.
trait Doing<T> {
    fn doing<S: Into<String>>(self, op: impl FnOnce() -> S) -> Result<T>;
}

impl<T, E: Display> Doing<T> for std::result::Result<T, E> {
    fn doing<S: Into<String>>(self, op: impl FnOnce() -> S) -> Result<T> {
        self.map_err(|e| driver(op())(e))
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Entry `i` of a handle table, or an error naming `what` is missing.
fn entry<T>(table: &Mutex<Vec<Handle<T>>>, i: usize, op: &str, what: &str) -> Result<*mut T> {
    let found = lock(table).get(i).map(|h| h.0);
    found.ok_or_else(|| GpuError::invalid(op, format!("no {what} {i}")))
}

/// Appends `h` to a handle table, returning its index.
fn push<T>(table: &Mutex<Vec<T>>, h: T) -> usize {
    let mut table = lock(table);
    table.push(h);
    table.len() - 1
}

impl CudaGpu {
    /// Opens device `ordinal`, compiling into (and loading from) `cache_dir/cuda` if given.
    pub fn new(ordinal: usize, cache_dir: Option<PathBuf>) -> Result<CudaGpu> {
        // SAFETY: only tries to open the shared library.
        if !unsafe { sys::is_culib_present() } {
            return Err(GpuError::Unavailable("libcuda does not load".into()));
        }
        cu::init().map_err(|e| match e.0 {
            sys::CUresult::CUDA_ERROR_NO_DEVICE => GpuError::Unavailable(format!("cuInit: {e}")),
            _ => driver("initializing the CUDA driver")(e),
        })?;
        let count = cu::device::get_count().doing(|| "counting CUDA devices")?;
        if ordinal >= count.max(0) as usize {
            let why = format!("device {ordinal} requested, {count} present");
            return Err(GpuError::Unavailable(why));
        }
        let op = || format!("querying CUDA device {ordinal}");
        let device = cu::device::get(ordinal as c_int).doing(op)?;
        let name = cu::device::get_name(device).doing(op)?;
        use sys::CUdevice_attribute::*;
        let (mut version, major, minor) = (
            0,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
        );
        // SAFETY: `device` came from `cuDeviceGet`; the version is written through a valid
        // pointer; the context retained here is released once, in Drop.
        let (major, minor, total_memory, ctx) = unsafe {
            let major = cu::device::get_attribute(device, major).doing(op)?;
            let minor = cu::device::get_attribute(device, minor).doing(op)?;
            let total = cu::device::total_mem(device).doing(op)?;
            sys::cuDriverGetVersion(&mut version).result().doing(op)?;
            let ctx = cu::primary_ctx::retain(device)
                .doing(|| format!("retaining the primary context of CUDA device {ordinal}"))?;
            (major as u32, minor as u32, total, ctx)
        };
        Ok(CudaGpu {
            device,
            ctx: Handle(ctx),
            name,
            arch: Arch { major, minor },
            total_memory,
            driver_version: version,
            cache_dir,
            streams: Mutex::default(),
            events: Mutex::default(),
            modules: Mutex::default(),
            blas: Mutex::default(),
            compiles: AtomicUsize::new(0),
        })
    }

    /// How many times NVRTC ran (a load from the disk cache compiles nothing).
    pub fn compiles(&self) -> usize {
        self.compiles.load(Ordering::Relaxed)
    }

    /// The driver's CUDA version, `1000·major + 10·minor` (12040 for 12.4).
    pub fn driver_version(&self) -> i32 {
        self.driver_version
    }

    /// Makes the device's context current on the calling thread.
    fn bind(&self) -> Result<()> {
        // SAFETY: `ctx` is the primary context retained in `new`, released only in Drop.
        unsafe { cu::ctx::set_current(self.ctx.0) }.doing(|| "making the CUDA context current")
    }

    /// Binds the context and looks up stream `s` for `op`.
    fn stream(&self, op: &str, s: Stream) -> Result<sys::CUstream> {
        self.bind()?;
        entry(&self.streams, s.0, op, "stream")
    }

    /// Loads a module from `image`, finding each of its kernels (into `loaded`).
    fn load_image(&self, module: &Module, image: &[u8], loaded: &mut Loaded) -> Result<()> {
        let op = || format!("loading module `{}` on {}", module.name, self.arch);
        // SAFETY: a whole CUBIN (ELF, sized by its headers) or PTX ending in NUL, as NVRTC
        // made it (from the cache only after its checksum matched).
        let m = unsafe { cu::module::load_data(image.as_ptr().cast()) }.doing(op)?;
        let find = |k: &crate::device::KernelCode| {
            let name = &k.ir.name;
            let c_name = CString::new(name.as_str()).map_err(|_| {
                GpuError::invalid(op(), format!("kernel name {name:?} holds a NUL"))
            })?;
            // SAFETY: `m` was just loaded and is alive.
            let f = unsafe { cu::module::get_function(m, c_name) }
                .doing(|| format!("finding kernel `{name}` in module `{}`", module.name))?;
            Ok((name.clone(), (Handle(f), k.params())))
        };
        let functions: Result<Vec<_>> = module.kernels.iter().map(find).collect();
        let functions = functions.inspect_err(|_| {
            // SAFETY: `m` is loaded and nothing refers to it yet.
            let _ = unsafe { cu::module::unload(m) };
        })?;
        loaded.modules.push(Handle(m));
        loaded.functions.extend(functions);
        Ok(())
    }

    /// The image of `part` compiled for this device: from the cache where a valid one is
    /// there, else compiled by NVRTC (and cached). `true` where it was compiled.
    fn image(&self, part: &Module, target: &str, ext: &str) -> Result<(Vec<u8>, bool)> {
        let rtc = nvrtc()?;
        let cuda = part.cuda();
        let key = fnv1a(&[
            cuda.as_bytes(),
            self.arch.to_string().as_bytes(),
            self.driver_version.to_string().as_bytes(),
            format!("{}.{}", rtc.version.0, rtc.version.1).as_bytes(),
            format!("--gpu-architecture={target}").as_bytes(),
        ]);
        let file = format!("{}-{key:016x}.{ext}", self.arch);
        let path = self.cache_dir.as_ref().map(|d| d.join("cuda").join(file));
        let cached = (path.as_ref().and_then(|p| std::fs::read(p).ok())).and_then(|mut image| {
            let sum = image.split_off(image.len().checked_sub(8)?);
            (sum == fnv1a(&[&image]).to_le_bytes()).then_some(image)
        });
        if let Some(image) = cached {
            return Ok((image, false));
        }
        let image = compile_named(&part.name, &cuda, self.arch, target)?;
        if let Some(p) = &path {
            // The cache only saves time: a folder that cannot be written is skipped.
            let _ = p.parent().map(std::fs::create_dir_all);
            let _ = write_atomically(p, &[&image[..], &fnv1a(&[&image]).to_le_bytes()].concat());
        }
        Ok((image, true))
    }
}

/// How many parts [`Gpu::load`] compiles `module` in: one per host thread, each of
/// [`KERNELS_PER_PART`] kernels at least.
fn part_count(module: &Module) -> usize {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    threads.min(module.kernels.len().div_ceil(KERNELS_PER_PART))
}

/// `f` of every part, each on a thread of its own.
fn in_parallel<T: Send>(
    parts: &[Module],
    f: &(dyn Fn(&Module) -> Result<T> + Sync),
) -> Vec<Result<T>> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (parts.iter())
            .map(|part| scope.spawn(move || f(part)))
            .collect();
        (handles.into_iter())
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(GpuError::Driver {
                        op: "compiling a module's part".into(),
                        message: "the NVRTC thread panicked".into(),
                    })
                })
            })
            .collect()
    })
}

/// `module` compiled for `arch` as [`Gpu::load`] compiles it — in parts over the host's
/// threads where `parallel`, else as one program — with no device and no cache: the
/// images, one per part.
pub fn compile_images(module: &Module, arch: Arch, parallel: bool) -> Result<Vec<Vec<u8>>> {
    let (target, _) = target(arch, &module.name)?;
    let parts = module.parts(if parallel { part_count(module) } else { 1 });
    let compile = |part: &Module| compile_named(&part.name, &part.cuda(), arch, &target);
    in_parallel(&parts, &compile).into_iter().collect()
}

/// Kernels a part of a module holds at least when [`Gpu::load`] splits it over threads
/// (below, a thread's start-up and NVRTC's per-program work outweigh the split).
const KERNELS_PER_PART: usize = 8;

/// What NVRTC compiles for `arch`: `(sm_XY, "cubin")` where it knows the architecture,
/// else `(compute_XY, "ptx")` of the newest one below it, which the driver compiles on.
fn target(arch: Arch, name: &str) -> Result<(String, &'static str)> {
    let rtc = nvrtc()?;
    let code = (arch.major * 10 + arch.minor) as c_int;
    match rtc.archs.iter().filter(|&&a| a <= code).max() {
        Some(&a) if a == code => Ok((format!("sm_{a}"), "cubin")),
        Some(&a) => Ok((format!("compute_{a}"), "ptx")),
        None => Err(GpuError::Driver {
            op: format!("NVRTC compiling module `{name}` for {arch}"),
            message: format!("NVRTC {:?} compiles only for {:?}", rtc.version, rtc.archs),
        }),
    }
}

/// `module` compiled by NVRTC to PTX for `arch`, with no device: what CI checks of every
/// executor's module ([`compile_source`]).
pub fn compile(module: &Module, arch: Arch) -> Result<Vec<u8>> {
    compile_source(&module.name, &module.cuda(), arch)
}

/// CUDA C `cuda` (called `name` in errors) compiled by NVRTC to PTX for `compute_XY` of
/// `arch`, with no device: NVRTC's front end and code generation, which reject anything
/// wrong in the source, without the assembler a device's [`Gpu::load`] adds (2.5× the
/// time).
pub fn compile_source(name: &str, cuda: &str, arch: Arch) -> Result<Vec<u8>> {
    nvrtc()?;
    let target = format!("compute_{}{}", arch.major, arch.minor);
    compile_named(name, cuda, arch, &target)
}

/// Compiles CUDA C `cuda` (called `name` in errors) with NVRTC for `target` of `arch`
/// (`sm_XY`: a CUBIN, else PTX).
fn compile_named(name: &str, cuda: &str, arch: Arch, target: &str) -> Result<Vec<u8>> {
    let op = || format!("NVRTC compiling module `{name}` for {arch}");
    let src =
        CString::new(cuda).map_err(|_| GpuError::invalid(op(), "the source holds a NUL byte"))?;
    // The name only labels NVRTC's log; one with a NUL byte goes unnamed.
    let name = CString::new(format!("{name}.cu")).ok();
    let prog = Program(rtc::create_program(&src, name.as_deref()).doing(op)?);
    let cubin = target.starts_with("sm_");
    let mut size = 0;
    // SAFETY: `prog` is live and the option holds no NUL; the log and image are read
    // after asking their sizes, into buffers of those sizes.
    unsafe {
        if let Err(e) = rtc::compile_program(prog.0, &[format!("--gpu-architecture={target}")]) {
            let log = rtc::get_program_log(prog.0).map(|l| {
                let bytes: Vec<u8> = l.into_iter().map(|c| c as u8).collect();
                String::from_utf8_lossy(&bytes)
                    .trim_end_matches(['\0', '\n'])
                    .to_string()
            });
            let message = log.unwrap_or_else(|_| e.to_string());
            return Err(GpuError::Driver { op: op(), message });
        }
        match cubin {
            true => rtc_sys::nvrtcGetCUBINSize(prog.0, &mut size),
            false => rtc_sys::nvrtcGetPTXSize(prog.0, &mut size),
        }
        .result()
        .doing(op)?;
        let mut image = vec![0u8; size];
        match cubin {
            true => rtc_sys::nvrtcGetCUBIN(prog.0, image.as_mut_ptr().cast()),
            false => rtc_sys::nvrtcGetPTX(prog.0, image.as_mut_ptr().cast()),
        }
        .result()
        .doing(op)?;
        Ok(image)
    }
}

/// An NVRTC program, destroyed on every path out of [`compile_named`].
struct Program(rtc_sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by `nvrtcCreateProgram`, destroyed only here.
        let _ = unsafe { rtc::destroy_program(self.0) };
    }
}

/// NVRTC's version and the architectures it compiles CUBINs for.
struct Nvrtc {
    version: (c_int, c_int),
    archs: Vec<c_int>,
}

/// NVRTC, probed once per process.
fn nvrtc() -> Result<&'static Nvrtc> {
    static NVRTC: OnceLock<Result<Nvrtc>> = OnceLock::new();
    let probe = || {
        // SAFETY: only tries to open the shared library.
        if !unsafe { rtc_sys::is_culib_present() } {
            return Err(GpuError::Unavailable("libnvrtc does not load".into()));
        }
        let (mut major, mut minor, mut n) = (0, 0, 0);
        let ok = |r: rtc_sys::nvrtcResult| {
            r.result()
                .doing(|| "asking NVRTC its version and architectures")
        };
        // SAFETY: each call writes through valid pointers; `archs` holds the `n` ints
        // NVRTC reports.
        unsafe {
            ok(rtc_sys::nvrtcVersion(&mut major, &mut minor))?;
            ok(rtc_sys::nvrtcGetNumSupportedArchs(&mut n))?;
            let mut archs = vec![0; n.max(0) as usize];
            ok(rtc_sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()))?;
            let version = (major, minor);
            Ok(Nvrtc { version, archs })
        }
    };
    NVRTC.get_or_init(probe).as_ref().map_err(Clone::clone)
}

/// FNV-1a 64 over `parts`, each followed by a NUL byte.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.iter().flat_map(|p| p.iter().chain(&[0])) {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Gpu for CudaGpu {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn arch(&self) -> Arch {
        self.arch
    }

    fn total_memory(&self) -> usize {
        self.total_memory
    }

    fn alloc(&self, bytes: usize) -> Result<DevicePtr> {
        self.bind()?;
        // cuMemAlloc refuses 0 bytes: one byte gives an empty buffer an address, as the
        // emulated device does.
        // SAFETY: the context is current; the driver returns a fresh allocation.
        let ptr = unsafe { cu::malloc_sync(bytes.max(1)) }
            .doing(|| format!("allocating {bytes} bytes"))?;
        Ok(DevicePtr(ptr))
    }

    fn free(&self, ptr: DevicePtr) -> Result<()> {
        self.bind()?;
        // SAFETY: the driver checks that `ptr` is an allocation of this context.
        unsafe { cu::free_sync(ptr.0) }.doing(|| format!("freeing {ptr}"))
    }

    fn new_stream(&self) -> Result<Stream> {
        self.bind()?;
        let s = cu::stream::create(cu::stream::StreamKind::NonBlocking)
            .doing(|| "creating a stream")?;
        Ok(Stream(push(&self.streams, Handle(s))))
    }

    fn new_event(&self) -> Result<Event> {
        self.bind()?;
        let flags = sys::CUevent_flags::CU_EVENT_DISABLE_TIMING;
        let e = cu::event::create(flags).doing(|| "creating an event")?;
        Ok(Event(push(&self.events, Handle(e))))
    }

    fn record(&self, event: Event, stream: Stream) -> Result<()> {
        let s = self.stream("record", stream)?;
        let e = entry(&self.events, event.0, "record", "event")?;
        // SAFETY: both handles were created in this context and are destroyed only in Drop.
        unsafe { cu::event::record(e, s) }
            .doing(|| format!("recording event {} on stream {}", event.0, stream.0))
    }

    fn wait(&self, stream: Stream, event: Event) -> Result<()> {
        let s = self.stream("wait", stream)?;
        let e = entry(&self.events, event.0, "wait", "event")?;
        let flags = sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT;
        // SAFETY: both handles were created in this context and are destroyed only in Drop.
        unsafe { cu::stream::wait_event(s, e, flags) }
            .doing(|| format!("stream {} waiting for event {}", stream.0, event.0))
    }

    fn synchronize(&self, stream: Stream) -> Result<()> {
        let s = self.stream("synchronize", stream)?;
        // SAFETY: a stream of this context, destroyed only in Drop.
        unsafe { cu::stream::synchronize(s) }.doing(|| format!("synchronizing stream {}", stream.0))
    }

    fn copy_to_device(&self, stream: Stream, dst: DevicePtr, src: &[u8]) -> Result<()> {
        let s = self.stream("copy to device", stream)?;
        // SAFETY: `src` is pageable, so the driver stages it before returning (the slice
        // may be reused at once); the driver checks the device range.
        unsafe { cu::memcpy_htod_async(dst.0, src, s) }
            .doing(|| format!("copying {} bytes to {dst}", src.len()))
    }

    fn copy_to_host(&self, stream: Stream, dst: &mut [u8], src: DevicePtr) -> Result<()> {
        let s = self.stream("copy to host", stream)?;
        let len = dst.len();
        let op = || format!("copying {len} bytes from {src} to the host");
        // SAFETY: `dst` stays borrowed until the stream is synchronized, so the copy into
        // it completes before the borrow ends.
        unsafe {
            let copied = cu::memcpy_dtoh_async(dst, src.0, s);
            copied.and_then(|()| cu::stream::synchronize(s)).doing(op)
        }
    }

    fn copy_on_device(
        &self,
        stream: Stream,
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
    ) -> Result<()> {
        let s = self.stream("copy on device", stream)?;
        // SAFETY: device addresses only; the driver checks the ranges.
        unsafe { cu::memcpy_dtod_async(dst.0, src.0, bytes, s) }
            .doing(|| format!("copying {bytes} bytes from {src} to {dst}"))
    }

    fn fill_zero(&self, stream: Stream, dst: DevicePtr, bytes: usize) -> Result<()> {
        let s = self.stream("fill zero", stream)?;
        // SAFETY: device addresses only; the driver checks the range.
        unsafe { cu::memset_d8_async(dst.0, 0, bytes, s) }
            .doing(|| format!("zeroing {bytes} bytes at {dst}"))
    }

    /// Compiles the module in parts on as many threads as the host has (NVRTC compiles
    /// distinct programs at once; [`KERNELS_PER_PART`] at least each), each part cached and
    /// loaded as a CUDA module of its own.
    fn load(&self, module: &Module) -> Result<ModuleId> {
        self.bind()?;
        let (target, ext) = target(self.arch, &module.name)?;
        let parts = module.parts(part_count(module));
        let images = in_parallel(&parts, &|part| self.image(part, &target, ext));
        let mut loaded = Loaded {
            modules: Vec::new(),
            functions: HashMap::new(),
        };
        let unload = |loaded: &Loaded| {
            for m in &loaded.modules {
                // SAFETY: loaded above and referred to by nothing else yet.
                let _ = unsafe { cu::module::unload(m.0) };
            }
        };
        for (part, image) in parts.iter().zip(images) {
            let done = image.and_then(|(image, compiled)| {
                self.compiles
                    .fetch_add(usize::from(compiled), Ordering::Relaxed);
                self.load_image(part, &image, &mut loaded)
            });
            if let Err(e) = done {
                unload(&loaded);
                return Err(e);
            }
        }
        Ok(ModuleId(push(&self.modules, loaded)))
    }

    fn launch(
        &self,
        stream: Stream,
        module: ModuleId,
        kernel: &str,
        config: LaunchConfig,
        args: &[Arg],
    ) -> Result<()> {
        let s = self.stream("launch", stream)?;
        let f = (lock(&self.modules).get(module.0))
            .and_then(|m| m.functions.get(kernel).map(|&(f, params)| (f.0, params)));
        let (f, params) = f.ok_or_else(|| {
            GpuError::invalid(
                "launch",
                format!("no kernel `{kernel}` in module {}", module.0),
            )
        })?;
        params.check(&format!("launching kernel `{kernel}`"), args)?;
        let op = || format!("launching kernel `{kernel}` ({config:?})");
        if config.shared_bytes > 48 << 10 {
            use sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as MAX;
            let bytes = config.shared_bytes.min(i32::MAX as u32) as i32;
            // SAFETY: `f` is a kernel of a module of this context, unloaded only in Drop.
            unsafe { cu::function::set_function_attribute(f, MAX, bytes) }.doing(op)?;
        }
        // Every parameter is 8 bytes (a pointer or `long long`): `params` points into
        // `values`, which outlives the call.
        let mut values: Vec<u64> = (args.iter())
            .map(|a| match *a {
                Arg::Ptr(p) => p.0,
                Arg::I64(v) => v as u64,
            })
            .collect();
        let mut params: Vec<*mut c_void> =
            values.iter_mut().map(|v| (v as *mut u64).cast()).collect();
        let (grid, block) = ((config.grid, 1, 1), (config.block, 1, 1));
        // SAFETY: `f` and `s` belong to this context; `params` holds one pointer to an
        // 8-byte value per kernel parameter, as the rendered kernel declares them.
        unsafe { cu::launch_kernel(f, grid, block, config.shared_bytes, s, &mut params) }.doing(op)
    }

    fn gemm(&self, stream: Stream, g: &Gemm) -> Result<()> {
        g.validate()?;
        let int = |v: usize| {
            c_int::try_from(v)
                .map_err(|_| GpuError::invalid("gemm", format!("{v} exceeds cuBLAS's 32-bit int")))
        };
        let (m, n, k) = (int(g.m)?, int(g.n)?, int(g.k)?);
        let (lda, ldb, ldc) = (int(g.lda)?, int(g.ldb)?, int(g.ldc)?);
        let batch = int(g.batch)?;
        let long = |v: usize| {
            i64::try_from(v)
                .map_err(|_| GpuError::invalid("gemm", format!("stride {v} exceeds 64 bits")))
        };
        let (sa, sb, sc) = (
            long(g.strides[0])?,
            long(g.strides[1])?,
            long(g.strides[2])?,
        );
        let s = self.stream("gemm", stream)?;
        let op = || format!("gemm {}×{}×{} {}", g.m, g.n, g.k, g.dtype.name());
        let mut handle = lock(&self.blas);
        let h = match *handle {
            Some(h) => h.0,
            None => {
                // SAFETY: only tries to open the shared library.
                if !unsafe { blas_sys::is_culib_present() } {
                    return Err(GpuError::Unavailable("libcublas does not load".into()));
                }
                let h = blas::create_handle().doing(|| "creating the cuBLAS handle")?;
                *handle = Some(Handle(h));
                h
            }
        };
        let trans = |t| match t {
            true => blas_sys::cublasOperation_t::CUBLAS_OP_T,
            false => blas_sys::cublasOperation_t::CUBLAS_OP_N,
        };
        let (ta, tb) = (trans(g.trans_a), trans(g.trans_b));
        let host = blas_sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST;
        // SAFETY: the handle is used under its mutex, on a stream of this context; shapes
        // and leading dimensions were validated; alpha and beta live on the host for the
        // call (pointer mode host).
        unsafe {
            blas_sys::cublasSetPointerMode_v2(h, host)
                .result()
                .doing(op)?;
            blas::set_stream(h, s.cast()).doing(op)?;
            let done = match g.dtype {
                DType::F32 => {
                    let (alpha, beta) = (g.alpha as f32, g.beta as f32);
                    let (a, b, c) = (g.a.0 as *const f32, g.b.0 as *const f32, g.c.0 as *mut f32);
                    blas::sgemm_strided_batched(
                        h, ta, tb, m, n, k, &alpha, a, lda, sa, b, ldb, sb, &beta, c, ldc, sc,
                        batch,
                    )
                }
                DType::F64 => {
                    let (a, b, c) = (g.a.0 as *const f64, g.b.0 as *const f64, g.c.0 as *mut f64);
                    blas::dgemm_strided_batched(
                        h, ta, tb, m, n, k, &g.alpha, a, lda, sa, b, ldb, sb, &g.beta, c, ldc, sc,
                        batch,
                    )
                }
                other => return Err(GpuError::invalid("gemm", format!("dtype {}", other.name()))),
            };
            done.doing(op)
        }
    }
}

impl Drop for CudaGpu {
    /// Destroys what this device created and releases its primary context, ignoring
    /// errors (the context may already be unusable).
    fn drop(&mut self) {
        fn take<T: Default>(m: &mut Mutex<T>) -> T {
            std::mem::take(m.get_mut().unwrap_or_else(|e| e.into_inner()))
        }
        let _ = self.bind();
        let (streams, events) = (take(&mut self.streams), take(&mut self.events));
        let (modules, blas) = (take(&mut self.modules), take(&mut self.blas));
        // SAFETY: every handle was created in this context and is destroyed exactly once,
        // here, where no other method can run (`&mut self`); the context goes last.
        unsafe {
            if let Some(h) = blas {
                let _ = blas::destroy_handle(h.0);
            }
            for e in events {
                let _ = cu::event::destroy(e.0);
            }
            for s in streams {
                let _ = cu::stream::destroy(s.0);
            }
            for m in modules.iter().flat_map(|l| &l.modules) {
                let _ = cu::module::unload(m.0);
            }
            let _ = cu::primary_ctx::release(self.device);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a GPU (CI) opening a device fails with an error, never a panic.
    #[test]
    fn opening_a_device_fails_cleanly_or_works() {
        match CudaGpu::new(0, None) {
            Ok(gpu) => assert!(gpu.total_memory() > 0 && gpu.arch().major > 0),
            Err(GpuError::Unavailable(_) | GpuError::Driver { .. }) => {}
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
}
