//! The LLVM JIT: loop nests compiled for the host CPU, cached by a hash of their IR, and
//! run with their outermost loop split over the shared pool.
//!
//! A kernel is compiled once per process ([`Jit`] keeps it in memory) and its optimized
//! LLVM bitcode is kept in a cache folder, so a second process skips building and
//! optimizing the IR and only generates machine code. The folder is `$KILN_CACHE_DIR/jit`,
//! else `$XDG_CACHE_HOME/kiln/jit`, else `~/.cache/kiln/jit`; a folder that cannot be
//! written only costs the warm start. The hash covers the nest's text (its name aside: two
//! groups computing the same thing share a kernel), the host CPU and features, the vector
//! width, kiln's version and the source of this module and of the renderer.
//!
//! Vector width: `KILN_VECTOR_BITS` (default 256). On the AVX-512 machine this was tuned
//! on, 256-bit vectors streamed as fast as 512-bit ones and do not lower the clock; `kiln
//! bench elementwise` measures both.

use super::llvm::{self, Target};
use inkwell::context::Context;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine,
};
use inkwell::OptimizationLevel;
use kiln_compiler::kir::{interp, math, Idx, LoopNest, Stmt, Val};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// `kiln_kernel(buffers, dims, lo, hi)`.
type KernelFn = unsafe extern "C" fn(*const *mut u8, *const i64, i64, i64);

/// Element operations below which a kernel runs on the calling thread, and the least
/// work each parallel task gets.
const GRAIN: i64 = 1 << 15;

/// A compiled kernel: callable from any thread.
pub struct CompiledKernel {
    f: KernelFn,
    /// Extent of the outermost loop, which calls split; `None` when the nest has no loop.
    split: Option<Idx>,
    /// Element operations per iteration of the outermost loop.
    row_cost: Idx,
    pub num_buffers: usize,
    // Declared in drop order: the engine (holding the code) before its context.
    _engine: ExecutionEngine<'static>,
    _context: Box<Context>,
}

// SAFETY: after compilation nothing touches the engine or the context again; they only keep
// the machine code mapped, and the function pointer may be called from any thread. The
// engine's reference count is 1 (the module that shared it is gone), so dropping it on
// another thread races with nothing.
unsafe impl Send for CompiledKernel {}
unsafe impl Sync for CompiledKernel {}

/// Raw buffer pointers handed to the pool's tasks.
struct Buffers<'a>(&'a [*mut u8]);
// SAFETY: tasks write disjoint rows of the outputs (the outermost loop's ranges do not
// overlap) and only read the inputs.
unsafe impl Send for Buffers<'_> {}
unsafe impl Sync for Buffers<'_> {}

impl CompiledKernel {
    /// Runs the kernel on `buffers` (inputs then outputs, each large enough for the nest's
    /// buffer lengths under `dims`), splitting the outermost loop over the pool when the
    /// work pays for it.
    ///
    /// # Safety
    /// Every pointer must be valid for the element count its buffer declares, in its
    /// dtype; outputs must not overlap anything else unless the kernel reads and writes
    /// them at the same indices (in-place element-wise reuse).
    pub unsafe fn run(&self, buffers: &[*mut u8], dims: &[i64]) -> Result<(), String> {
        if buffers.len() != self.num_buffers {
            return Err(format!(
                "kernel takes {} buffers, {} given",
                self.num_buffers,
                buffers.len()
            ));
        }
        let f = self.f;
        let Some(split) = &self.split else {
            unsafe { f(buffers.as_ptr(), dims.as_ptr(), 0, 1) };
            return Ok(());
        };
        let rows = interp::extent(split, dims)?;
        let work = rows.saturating_mul(interp::extent(&self.row_cost, dims)?.max(1));
        // Small kernels never touch the pool (nor start it: its threads allocate as they
        // start).
        let tasks = if work < 2 * GRAIN {
            1
        } else {
            let threads = super::pool::global().threads() as i64;
            (work / GRAIN).clamp(1, 4 * threads).min(rows)
        };
        if tasks <= 1 {
            unsafe { f(buffers.as_ptr(), dims.as_ptr(), 0, rows) };
            return Ok(());
        }
        let shared = Buffers(buffers);
        super::pool::global().run(tasks as usize, &|t| {
            let t = t as i64;
            let (lo, hi) = (rows * t / tasks, rows * (t + 1) / tasks);
            let bufs = &shared;
            unsafe { f(bufs.0.as_ptr(), dims.as_ptr(), lo, hi) };
        });
        Ok(())
    }
}

/// Where a kernel came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Built, optimized and compiled now.
    Compiled,
    /// Already compiled in this process.
    Memory,
    /// Optimized bitcode from the cache folder, compiled to machine code now.
    Disk,
}

/// The host CPU the kernels are compiled for.
struct Host {
    machine: TargetMachine,
    cpu: String,
    features: String,
    vector_bits: u32,
}

// SAFETY: the target machine is only used under `Jit::host`'s lock.
unsafe impl Send for Host {}

fn host() -> Result<Host, String> {
    LlvmTarget::initialize_native(&InitializationConfig::default())
        .map_err(|e| format!("LLVM cannot target this CPU: {e}"))?;
    let triple = TargetMachine::get_default_triple();
    let cpu = TargetMachine::get_host_cpu_name().to_string();
    let features = TargetMachine::get_host_cpu_features().to_string();
    let target = LlvmTarget::from_triple(&triple).map_err(|e| e.to_string())?;
    let machine = target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::JITDefault,
        )
        .ok_or("LLVM could not create a target machine for this CPU")?;
    let vector_bits = std::env::var("KILN_VECTOR_BITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    Ok(Host {
        machine,
        cpu,
        features,
        vector_bits,
    })
}

/// Compiles loop nests, caching them in memory and on disk.
pub struct Jit {
    host: Mutex<Host>,
    memory: Mutex<HashMap<u64, Arc<CompiledKernel>>>,
    disk: Option<PathBuf>,
    /// Kernels compiled to machine code (from IR or from cached bitcode).
    compiles: std::sync::atomic::AtomicUsize,
}

fn default_cache_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("KILN_CACHE_DIR")
        .or_else(|| env("XDG_CACHE_HOME").map(|p| p.join("kiln")))
        .or_else(|| env("HOME").map(|p| p.join(".cache/kiln")))
        .map(|p| p.join("jit"))
}

/// The renderer's and the JIT's own source: a cached kernel is stale once either changes.
const RENDERER: &str = concat!(
    include_str!("llvm/mod.rs"),
    include_str!("llvm/scalar.rs"),
    include_str!("jit.rs")
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
    /// The process-wide JIT, with the default cache folder.
    pub fn global() -> Result<&'static Jit, String> {
        static JIT: OnceLock<Result<Jit, String>> = OnceLock::new();
        JIT.get_or_init(|| Jit::new(default_cache_dir()))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// A JIT with its own memory cache and the given cache folder (`None`: no disk cache).
    pub fn new(disk: Option<PathBuf>) -> Result<Jit, String> {
        Ok(Jit {
            host: Mutex::new(host()?),
            memory: Mutex::new(HashMap::new()),
            disk,
            compiles: Default::default(),
        })
    }

    /// How many kernels this JIT has compiled to machine code so far (a kernel found in
    /// memory costs nothing and is not counted).
    pub fn compiles(&self) -> usize {
        self.compiles.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// This JIT with vectors of `bits` (128, 256 or 512) instead of `KILN_VECTOR_BITS`.
    pub fn with_vector_bits(self, bits: u32) -> Jit {
        self.host
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .vector_bits = bits;
        self
    }

    /// The compiled kernel for `nest`, and where it came from.
    pub fn compile(&self, nest: &LoopNest) -> Result<(Arc<CompiledKernel>, Origin), String> {
        let host = self.host.lock().unwrap_or_else(|e| e.into_inner());
        let text = LoopNest {
            name: String::new(),
            ..nest.clone()
        }
        .to_string();
        let key = fnv1a(&[
            env!("CARGO_PKG_VERSION").as_bytes(),
            RENDERER.as_bytes(),
            host.cpu.as_bytes(),
            host.features.as_bytes(),
            &host.vector_bits.to_le_bytes(),
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
        let file = self.disk.as_ref().map(|d| d.join(format!("{key:016x}.bc")));
        let context = Box::new(Context::create());
        // SAFETY: the context is boxed (it does not move) and outlives everything made from
        // it: `CompiledKernel` drops the engine before the box.
        let ctx: &'static Context = unsafe { &*(context.as_ref() as *const Context) };
        let cached = file
            .as_ref()
            .and_then(|f| std::fs::read(f).ok())
            .and_then(|bytes| {
                let buf = MemoryBuffer::create_from_memory_range_copy(&bytes, "cached");
                Module::parse_bitcode_from_buffer(&buf, ctx).ok()
            });
        let (module, origin) = match cached {
            Some(m) => (m, Origin::Disk),
            None => {
                let target = Target {
                    cpu: &host.cpu,
                    features: &host.features,
                    vector_bits: host.vector_bits,
                };
                let module = llvm::render(ctx, &math::expand(nest), &target)?;
                optimize(&module, &host.machine)?;
                if let Some(f) = &file {
                    store(f, module.write_bitcode_to_memory().as_slice());
                }
                (module, Origin::Compiled)
            }
        };
        self.compiles
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let engine = module
            .create_jit_execution_engine(OptimizationLevel::Aggressive)
            .map_err(|e| format!("kernel `{}`: LLVM JIT: {e}", nest.name))?;
        for (name, addr) in [
            (llvm::UNARY_SHIM, llvm::unary_shim as *const () as usize),
            (llvm::BINARY_SHIM, llvm::binary_shim as *const () as usize),
        ] {
            if let Some(f) = module.get_function(name) {
                engine.add_global_mapping(&f, addr);
            }
        }
        let addr = engine
            .get_function_address(llvm::ENTRY)
            .map_err(|e| format!("kernel `{}`: {e:?}", nest.name))?;
        drop(module);
        let kernel = Arc::new(CompiledKernel {
            // SAFETY: the address is `kiln_kernel`, defined with this signature.
            f: unsafe { std::mem::transmute::<usize, KernelFn>(addr) },
            split: split_extent(&nest.body),
            row_cost: row_cost(&nest.body),
            num_buffers: nest.inputs.len() + nest.outputs.len(),
            _engine: engine,
            _context: context,
        });
        self.memory
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, kernel.clone());
        Ok((kernel, origin))
    }
}

/// LLVM's O3 pipeline with the host's cost model (so the vectorizers know the vectors).
fn optimize(module: &Module, machine: &TargetMachine) -> Result<(), String> {
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let options = PassBuilderOptions::create();
    options.set_loop_vectorization(true);
    options.set_loop_slp_vectorization(true);
    options.set_loop_unrolling(true);
    module
        .run_passes("default<O3>", machine, options)
        .map_err(|e| format!("LLVM optimization failed: {e}"))
}

/// Writes the cache file through a temporary name, so a reader never sees half a file.
fn store(file: &std::path::Path, bytes: &[u8]) {
    let Some(dir) = file.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, bytes).is_ok() && std::fs::rename(&tmp, file).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
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
