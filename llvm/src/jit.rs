//! The LLVM JIT: loop nests compiled for the host CPU and cached by a hash of their IR;
//! each kernel runs a range of its outermost loop, so the caller splits it over threads.
//!
//! A kernel is compiled once per process ([`Jit`] keeps it in memory) to an object file,
//! linked into the process by LLVM's ORC JIT ([`crate::orc`]). The object is kept in the
//! cache folder the JIT is made with (the runtime's configuration chooses it), so a
//! second process only links it; a folder that cannot be written only costs the warm
//! start.
//!
//! A cached object runs inside kiln, so the folder is trusted only when it is this user's
//! alone: created with mode 0700, refused (no disk cache then) when another user owns it
//! or others may write to it. Each object `<key>.o` has a sidecar `<key>.sum` kiln writes
//! beside it, holding the SHA-256 of the key and the object's bytes; an object without
//! one, not a regular file of this user's, or whose bytes do not hash to it is not linked
//! but compiled again and overwritten. Files are written to a temporary name in the
//! folder, synced, then renamed, so no reader sees half of one.
//!
//! The key hash covers the nest's text (its name aside: two
//! groups computing the same thing share a kernel), the host CPU and features, the vector
//! width, kiln's version and the source of this module and of the renderer.
//!
//! Vector width: [`DEFAULT_VECTOR_BITS`] unless the JIT is made with another. On the
//! AVX-512 machine this was tuned on, 256-bit vectors streamed as fast as 512-bit ones and do not lower the clock; `kiln
//! bench elementwise` measures both.
//!
//! Threads compile at once, each with a target machine of its own (taken from the JIT's
//! spares, or made); a kernel two threads make at once is linked once and shared.
//!
//! Outputs larger than the last-level cache (the size [`Jit::with_streaming`] is given)
//! are written with non-temporal stores where the nest writes them in order
//! (`streaming`); the choice is part of the cache key.

use crate::codegen::{self as llvm, Target};
use crate::orc::ObjectLinker;
use crate::streaming::{mark_stores, streams};
use crate::{Error, Origin, Result, DEFAULT_VECTOR_BITS};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::support::LLVMString;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine,
};
use inkwell::OptimizationLevel;
use kiln_compiler::formats::atomic::AtomicFile;
use kiln_compiler::kir::{self, interp, Idx, LoopNest, Stmt, Val};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// `kiln_kernel(buffers, dims, lo, hi)`.
type KernelFn = unsafe extern "C" fn(*const *mut u8, *const i64, i64, i64);

/// A compiled kernel: callable from any thread.
pub struct CompiledKernel {
    f: KernelFn,
    /// Extent of the outermost loop, which calls split; `None` when the nest has no loop.
    split: Option<Idx>,
    /// Element operations per iteration of the outermost loop.
    row_cost: Idx,
    num_buffers: usize,
    /// Whether its outputs are written with streaming stores (`streaming`).
    streams: bool,
    /// Keeps the machine code mapped.
    _linker: Arc<ObjectLinker>,
}

impl CompiledKernel {
    /// Buffers a call takes: the inputs, then the outputs.
    pub fn num_buffers(&self) -> usize {
        self.num_buffers
    }

    /// Whether it writes its outputs with streaming (non-temporal) stores.
    pub fn streams(&self) -> bool {
        self.streams
    }

    /// Under `dims`: the outermost loop's extent and the element operations of the whole
    /// run, for splitting it (`None`: the nest has no loop).
    pub fn rows(&self, dims: &[i64]) -> Result<Option<(i64, i64)>> {
        let Some(split) = &self.split else {
            return Ok(None);
        };
        let extent = |i: &Idx| interp::extent(i, dims).map_err(|e| Error::Call(e.to_string()));
        let rows = extent(split)?;
        Ok(Some((
            rows,
            rows.saturating_mul(extent(&self.row_cost)?.max(1)),
        )))
    }

    /// Runs iterations `lo..hi` of the outermost loop on the calling thread; iterations
    /// beyond the loop's extent are not run (a nest without a loop runs whole).
    ///
    /// # Safety
    /// `buffers` (inputs then outputs, [`CompiledKernel::num_buffers`] of them) must each
    /// be valid for the element count its buffer declares under `dims`, in its dtype;
    /// outputs must not overlap anything else unless the kernel reads and writes them at
    /// the same indices; ranges run at once must be disjoint.
    pub unsafe fn run_range(&self, buffers: &[*mut u8], dims: &[i64], lo: i64, hi: i64) {
        debug_assert_eq!(buffers.len(), self.num_buffers);
        let (lo, hi) = match &self.split {
            Some(split) => {
                let rows = interp::extent(split, dims).unwrap_or(0);
                (lo.min(rows), hi.min(rows))
            }
            None => (0, 1),
        };
        // SAFETY: `run_range`'s contract gives the buffers and dims the kernel reads; lo..hi is
        // clamped to the loop's extent; `f` is the compiled kernel, alive while `self` holds the
        // JIT.
        unsafe { (self.f)(buffers.as_ptr(), dims.as_ptr(), lo, hi) };
    }
}

/// The host CPU the kernels are compiled for, and how.
struct Host {
    cpu: String,
    features: String,
    vector_bits: u32,
    /// The last-level cache's bytes, from which outputs are streamed (`streaming`).
    stream_bytes: Option<usize>,
}

/// LLVM's code generator for the host: one per compiling thread.
struct Machine(TargetMachine);

// SAFETY: a target machine is used by one thread at a time (taken from `Jit::machines`).
unsafe impl Send for Machine {}

fn host() -> Result<Host> {
    LlvmTarget::initialize_native(&InitializationConfig::default())
        .map_err(|e| Error::Host(format!("LLVM cannot target this CPU: {e}")))?;
    Ok(Host {
        cpu: TargetMachine::get_host_cpu_name().to_string(),
        features: TargetMachine::get_host_cpu_features().to_string(),
        vector_bits: DEFAULT_VECTOR_BITS,
        stream_bytes: None,
    })
}

fn machine(host: &Host) -> Result<Machine> {
    let triple = TargetMachine::get_default_triple();
    let target = LlvmTarget::from_triple(&triple).map_err(|e| Error::Host(e.to_string()))?;
    let machine = target
        .create_target_machine(
            &triple,
            &host.cpu,
            &host.features,
            OptimizationLevel::Aggressive,
            // The large model: code reaches its constants, the shims and libm through
            // 64-bit absolute addresses. ORC's RuntimeDyld maps each section of an object
            // on its own, anywhere (often gigabytes apart under AddressSanitizer), and
            // truncates a 32-bit PC-relative offset that does not reach without a word,
            // so the small model read stray memory (tests/far_sections.rs).
            RelocMode::Static,
            CodeModel::Large,
        )
        .ok_or_else(|| Error::Host("LLVM could not create a target machine for this CPU".into()))?;
    Ok(Machine(machine))
}

/// Compiles loop nests, caching them in memory and on disk.
pub struct Jit {
    host: Host,
    /// Target machines not in use: a compile takes one (or makes one), so threads compile
    /// at once.
    machines: Mutex<Vec<Machine>>,
    memory: Mutex<HashMap<u64, Arc<CompiledKernel>>>,
    /// The cache folder: none configured, or refused and why.
    disk: std::result::Result<Option<PathBuf>, String>,
    linker: Arc<ObjectLinker>,
    /// Kernels compiled to machine code or linked from the cache folder.
    compiles: std::sync::atomic::AtomicUsize,
}

/// The renderer's and the JIT's own source: a cached kernel is stale once either changes.
const RENDERER: &str = concat!(
    include_str!("codegen/mod.rs"),
    include_str!("codegen/scalar.rs"),
    include_str!("jit.rs"),
    include_str!("orc.rs"),
    include_str!("streaming.rs")
);

/// FNV-1a: stable across builds and processes, unlike `DefaultHasher`.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for part in parts {
        for &b in *part {
            h = (h ^ b as u64).wrapping_mul(0x100000001b3);
        }
        h = (h ^ 0xff).wrapping_mul(0x100000001b3);
    }
    h
}

impl Jit {
    /// A JIT with its own memory cache and the given cache folder (`None`: no disk cache).
    /// A folder that is not this user's alone is not used ([`Jit::cache_folder`] says
    /// why): kernels are then compiled in every process.
    pub fn new(disk: Option<PathBuf>) -> Result<Jit> {
        let disk = match disk {
            Some(dir) => private_folder(&dir).map(|()| Some(dir)),
            None => Ok(None),
        };
        let host = host()?;
        // Made now, so that a host LLVM cannot target fails here.
        let first = machine(&host)?;
        Ok(Jit {
            host,
            machines: Mutex::new(vec![first]),
            memory: Mutex::new(HashMap::new()),
            disk,
            linker: Arc::new(ObjectLinker::new(&[
                (llvm::UNARY_SHIM, llvm::unary_shim as *const () as usize),
                (llvm::BINARY_SHIM, llvm::binary_shim as *const () as usize),
            ])?),
            compiles: Default::default(),
        })
    }

    /// The cache folder objects are kept in: `Ok(None)` without one, `Err(why)` where the
    /// folder given was refused.
    pub fn cache_folder(&self) -> std::result::Result<Option<&Path>, &str> {
        match &self.disk {
            Ok(dir) => Ok(dir.as_deref()),
            Err(why) => Err(why),
        }
    }

    /// How many kernels this JIT has compiled or linked from the cache folder so far (a
    /// kernel found in memory costs nothing and is not counted).
    pub fn compiles(&self) -> usize {
        self.compiles.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// This JIT with vectors of `bits` (128, 256 or 512) instead of
    /// [`DEFAULT_VECTOR_BITS`].
    pub fn with_vector_bits(mut self, bits: u32) -> Jit {
        self.host.vector_bits = bits;
        self
    }

    /// This JIT compiling for no instruction set wider than `isa` (`avx2`: the host's
    /// features without AVX-512; `baseline`: x86-64), as a narrower CPU would; `avx512`
    /// or anything else: the host's own.
    pub fn with_max_isa(mut self, isa: &str) -> Jit {
        match isa {
            "avx2" => {
                let features =
                    self.host
                        .features
                        .split(',')
                        .map(|f| match f.strip_prefix("+avx512") {
                            Some(rest) => format!("-avx512{rest}"),
                            None => f.to_string(),
                        });
                self.host.features = features.collect::<Vec<_>>().join(",");
            }
            "baseline" => {
                self.host.cpu = "x86-64".into();
                self.host.features = String::new();
            }
            _ => {}
        }
        self
    }

    /// This JIT with outputs of at least `bytes` (the last-level cache's size) written by
    /// streaming stores; `None`: never.
    pub fn with_streaming(mut self, bytes: Option<usize>) -> Jit {
        self.host.stream_bytes = bytes;
        self
    }

    /// The compiled kernel for `nest`, and where it came from.
    pub fn compile(&self, nest: &LoopNest) -> Result<(Arc<CompiledKernel>, Origin)> {
        self.compile_for(nest, &[])
    }

    /// As [`Jit::compile`], for calls with `dims` bound (what decides whether large
    /// outputs are streamed; the kernel still runs with any dims).
    pub fn compile_for(
        &self,
        nest: &LoopNest,
        dims: &[i64],
    ) -> Result<(Arc<CompiledKernel>, Origin)> {
        let host = &self.host;
        let streamed = streams(nest, dims, host.stream_bytes);
        let text = LoopNest {
            name: String::new(),
            ..nest.clone()
        }
        .to_string();
        let key = fnv1a(&[
            env!("CARGO_PKG_VERSION").as_bytes(),
            RENDERER.as_bytes(),
            kir::FOR_CPU_SOURCE.as_bytes(),
            host.cpu.as_bytes(),
            host.features.as_bytes(),
            &host.vector_bits.to_le_bytes(),
            &[u8::from(streamed)],
            text.as_bytes(),
        ]);
        if let Some(k) = self
            .memory
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return Ok((k.clone(), Origin::Memory));
        }
        let dir = self.disk.as_ref().ok().and_then(Option::as_ref);
        let entry = format!("{}_{key:016x}", llvm::ENTRY);
        self.compiles
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let made = Made {
            key,
            nest,
            entry: &entry,
            streamed,
        };
        // Linked from the bytes that were checked, not from the file again; one this LLVM
        // cannot read is compiled and replaced below.
        if let Some(object) = dir.and_then(|d| trusted_object(d, key)) {
            if let Ok(found) = self.install(&made, &object, Origin::Disk) {
                return Ok(found);
            }
        }
        let taken = (self.machines.lock().unwrap_or_else(|e| e.into_inner())).pop();
        let machine = match taken {
            Some(m) => m,
            None => machine(host)?,
        };
        let object = compile_object(nest, (host, &machine.0), &entry, streamed);
        (self.machines.lock().unwrap_or_else(|e| e.into_inner())).push(machine);
        let object = object?;
        if let Some(d) = dir {
            store_object(d, key, &object);
        }
        self.install(&made, &object, Origin::Compiled)
    }

    /// Links `object` as the kernel `made` describes and keeps it in memory, unless a
    /// thread compiling the same kernel at once linked it first (its symbol is taken
    /// then): that one is returned.
    fn install(
        &self,
        made: &Made,
        object: &[u8],
        origin: Origin,
    ) -> Result<(Arc<CompiledKernel>, Origin)> {
        let mut memory = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = memory.get(&made.key) {
            return Ok((k.clone(), Origin::Memory));
        }
        let nest = made.nest;
        let addr = self.linker.link(&nest.name, object, made.entry)?;
        let kernel = Arc::new(CompiledKernel {
            // SAFETY: the address is `kiln_kernel`, defined with this signature.
            f: unsafe { std::mem::transmute::<usize, KernelFn>(addr) },
            split: split_extent(&nest.body),
            row_cost: row_cost(&nest.body),
            num_buffers: nest.inputs.len() + nest.outputs.len(),
            streams: made.streamed,
            _linker: self.linker.clone(),
        });
        memory.insert(made.key, kernel.clone());
        Ok((kernel, origin))
    }
}

/// A kernel being made: its cache key, nest, entry symbol and whether it streams.
struct Made<'a> {
    key: u64,
    nest: &'a LoopNest,
    entry: &'a str,
    streamed: bool,
}

/// The nest rendered, optimized and compiled to an object file whose kernel is `entry`,
/// its outputs written with streaming stores where `streamed`.
fn compile_object(
    nest: &LoopNest,
    (host, machine): (&Host, &TargetMachine),
    entry: &str,
    streamed: bool,
) -> Result<Vec<u8>> {
    let failed = |message: String| Error::Kernel {
        kernel: nest.name.clone(),
        message,
    };
    let context = Context::create();
    let target = Target {
        cpu: &host.cpu,
        features: &host.features,
        vector_bits: host.vector_bits,
    };
    let module = llvm::render(&context, &kir::for_cpu(nest), &target).map_err(failed)?;
    let f = (module.get_function(llvm::ENTRY))
        .ok_or_else(|| failed("the rendered module has no kernel function".into()))?;
    f.as_global_value().set_name(entry);
    optimize(&module, machine).map_err(|e| failed(format!("LLVM optimization failed: {e}")))?;
    if streamed {
        mark_stores(&module);
    }
    let object = machine
        .write_to_memory_buffer(&module, FileType::Object)
        .map_err(|e| failed(format!("LLVM code generation: {e}")))?;
    Ok(object.as_slice().to_vec())
}

/// LLVM's O3 pipeline with the host's cost model (so the vectorizers know the vectors).
fn optimize(module: &Module, machine: &TargetMachine) -> std::result::Result<(), LLVMString> {
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let options = PassBuilderOptions::create();
    options.set_loop_vectorization(true);
    options.set_loop_slp_vectorization(true);
    options.set_loop_unrolling(true);
    module.run_passes("default<O3>", machine, options)
}

/// Makes `dir` (and missing parents) with mode 0700, and checks it is this user's alone:
/// owned by the user, writable by nobody else. Why not, otherwise.
fn private_folder(dir: &Path) -> std::result::Result<(), String> {
    let refused = |why: String| format!("cache folder {}: {why}", dir.display());
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| refused(format!("cannot be created: {e}")))?;
    let meta = std::fs::metadata(dir).map_err(|e| refused(e.to_string()))?;
    if !meta.is_dir() {
        return Err(refused("not a folder".into()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.uid() != user() {
            return Err(refused(format!(
                "owned by user {}, not this process's {}",
                meta.uid(),
                user()
            )));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(refused(format!(
                "others may write to it (mode {:o})",
                meta.mode() & 0o7777
            )));
        }
    }
    Ok(())
}

/// The process's effective user.
#[cfg(unix)]
fn user() -> u32 {
    // SAFETY: geteuid cannot fail and touches no memory.
    unsafe { libc::geteuid() }
}

/// Whether `path` is a regular file (not a link) of this user's.
fn own_file(path: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    let own = std::os::unix::fs::MetadataExt::uid(&meta) == user();
    #[cfg(not(unix))]
    let own = true;
    meta.file_type().is_file() && own
}

/// The sidecar line for the object `bytes` stored under `key`.
fn checksum(key: u64, bytes: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(key.to_le_bytes());
    h.update(bytes);
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("kiln-jit-object {key:016x} sha256 {hex}\n")
}

/// The object cached under `key` in `dir`, if kiln wrote it: both files are this user's,
/// and the sidecar holds the hash of the key and these bytes.
fn trusted_object(dir: &Path, key: u64) -> Option<Vec<u8>> {
    let (object, sum) = (
        dir.join(format!("{key:016x}.o")),
        dir.join(format!("{key:016x}.sum")),
    );
    if !own_file(&object) || !own_file(&sum) {
        return None;
    }
    let expected = std::fs::read_to_string(sum).ok()?;
    let bytes = std::fs::read(object).ok()?;
    (expected == checksum(key, &bytes)).then_some(bytes)
}

/// Caches `object` under `key` in `dir`: the object, then its sidecar (a reader between
/// the two sees a hash that does not match and compiles again).
fn store_object(dir: &Path, key: u64, object: &[u8]) {
    let sum = checksum(key, object);
    if write_atomically(&dir.join(format!("{key:016x}.o")), object) {
        write_atomically(&dir.join(format!("{key:016x}.sum")), sum.as_bytes());
    }
}

/// Writes `file` whole or not at all, readable by the user alone from its creation on
/// (kiln-compiler's atomic files). Whether it did: a cache that cannot be written is
/// compiled again next time, not an error.
fn write_atomically(file: &Path, bytes: &[u8]) -> bool {
    use std::io::Write;
    AtomicFile::create_private(file)
        .and_then(|mut f| {
            f.write_all(bytes)?;
            f.persist()
        })
        .is_ok()
}

fn split_extent(body: &[Stmt]) -> Option<Idx> {
    body.iter().find_map(|s| match s {
        Stmt::Loop { extent, .. } => Some(extent.clone()),
        _ => None,
    })
}

/// Element operations of one outermost iteration: inner loop extents times the values
/// stored or bound (a reduction counts its extent).
fn row_cost(body: &[Stmt]) -> Idx {
    let inner = body.iter().find_map(|s| match s {
        Stmt::Loop { body, .. } => Some(body.as_slice()),
        _ => None,
    });
    fn cost(stmts: &[Stmt]) -> Idx {
        stmts.iter().fold(Idx::Const(0), |acc, s| {
            acc + match s {
                Stmt::Loop { extent, body, .. } => extent.clone() * cost(body),
                Stmt::Let { value, .. } | Stmt::Store { value, .. } => value_cost(value),
            }
        })
    }
    fn value_cost(v: &Val) -> Idx {
        match v {
            Val::Reduce { extents, .. } => {
                extents.iter().fold(Idx::Const(1), |acc, e| acc * e.clone())
            }
            _ => Idx::Const(1),
        }
    }
    inner.map_or(Idx::Const(1), cost)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_compiler::kir::parse_nest;

    /// Threads compiling the same kernel at once (two devices' copies of a step) link it
    /// once and share it.
    #[test]
    fn threads_compiling_one_kernel_at_once_share_it() {
        let nest = parse_nest(
            "kernel k(x: float32[64]) -> (y: float32[64]) compute float32 {
  for i0 in 0..64 (Parallel) {
    out0[i0] = mul(in0[i0], 3.0)
  }
}",
        )
        .unwrap();
        let jit = Jit::new(None).unwrap();
        let kernels: Vec<Arc<CompiledKernel>> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..4).map(|_| s.spawn(|| jit.compile(&nest))).collect();
            threads
                .into_iter()
                .map(|t| t.join().unwrap().unwrap().0)
                .collect()
        });
        assert!(kernels.windows(2).all(|w| Arc::ptr_eq(&w[0], &w[1])));
    }
}
