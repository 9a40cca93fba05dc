//! The LLVM JIT: loop nests compiled for the host CPU and cached by a hash of their IR;
//! each kernel runs a range of its outermost loop, so the caller splits it over threads.
//!
//! A kernel is compiled once per process ([`Jit`] keeps it in memory) to an object file,
//! linked into the process by LLVM's ORC JIT ([`crate::orc`]). The object is kept in the
//! cache folder the JIT is made with (the runtime's configuration chooses it), so a
//! second process only links it; a folder that cannot be written only costs the warm
//! start. The hash covers the nest's text (its name aside: two
//! groups computing the same thing share a kernel), the host CPU and features, the vector
//! width, kiln's version and the source of this module and of the renderer.
//!
//! Vector width: [`DEFAULT_VECTOR_BITS`] unless the JIT is made with another. On the
//! AVX-512 machine this was tuned on, 256-bit vectors streamed as fast as 512-bit ones and do not lower the clock; `kiln
//! bench elementwise` measures both.

use crate::codegen::{self as llvm, Target};
use crate::orc::ObjectLinker;
use crate::{Error, Origin, Result, DEFAULT_VECTOR_BITS};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::support::LLVMString;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine,
};
use inkwell::OptimizationLevel;
use kiln_compiler::kir::{interp, math, Idx, LoopNest, Stmt, Val};
use std::collections::HashMap;
use std::path::PathBuf;
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
    /// Keeps the machine code mapped.
    _linker: Arc<ObjectLinker>,
}

impl CompiledKernel {
    /// Buffers a call takes: the inputs, then the outputs.
    pub fn num_buffers(&self) -> usize {
        self.num_buffers
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
        unsafe { (self.f)(buffers.as_ptr(), dims.as_ptr(), lo, hi) };
    }
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

fn host() -> Result<Host> {
    LlvmTarget::initialize_native(&InitializationConfig::default())
        .map_err(|e| Error::Host(format!("LLVM cannot target this CPU: {e}")))?;
    let triple = TargetMachine::get_default_triple();
    let cpu = TargetMachine::get_host_cpu_name().to_string();
    let features = TargetMachine::get_host_cpu_features().to_string();
    let target = LlvmTarget::from_triple(&triple).map_err(|e| Error::Host(e.to_string()))?;
    let machine = target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            OptimizationLevel::Aggressive,
            // Position-independent code in the small model: the linker gives calls to
            // symbols outside the object (shims, libm) stubs within reach.
            RelocMode::PIC,
            CodeModel::Small,
        )
        .ok_or_else(|| Error::Host("LLVM could not create a target machine for this CPU".into()))?;
    Ok(Host {
        machine,
        cpu,
        features,
        vector_bits: DEFAULT_VECTOR_BITS,
    })
}

/// Compiles loop nests, caching them in memory and on disk.
pub struct Jit {
    host: Mutex<Host>,
    memory: Mutex<HashMap<u64, Arc<CompiledKernel>>>,
    disk: Option<PathBuf>,
    linker: Arc<ObjectLinker>,
    /// Kernels compiled to machine code or linked from the cache folder.
    compiles: std::sync::atomic::AtomicUsize,
}

/// The renderer's and the JIT's own source: a cached kernel is stale once either changes.
const RENDERER: &str = concat!(
    include_str!("codegen/mod.rs"),
    include_str!("codegen/scalar.rs"),
    include_str!("jit.rs"),
    include_str!("orc.rs")
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
    pub fn new(disk: Option<PathBuf>) -> Result<Jit> {
        Ok(Jit {
            host: Mutex::new(host()?),
            memory: Mutex::new(HashMap::new()),
            disk,
            linker: Arc::new(ObjectLinker::new(&[
                (llvm::UNARY_SHIM, llvm::unary_shim as *const () as usize),
                (llvm::BINARY_SHIM, llvm::binary_shim as *const () as usize),
            ])?),
            compiles: Default::default(),
        })
    }

    /// How many kernels this JIT has compiled or linked from the cache folder so far (a
    /// kernel found in memory costs nothing and is not counted).
    pub fn compiles(&self) -> usize {
        self.compiles.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// This JIT with vectors of `bits` (128, 256 or 512) instead of
    /// [`DEFAULT_VECTOR_BITS`].
    pub fn with_vector_bits(self, bits: u32) -> Jit {
        self.host
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .vector_bits = bits;
        self
    }

    /// The compiled kernel for `nest`, and where it came from.
    pub fn compile(&self, nest: &LoopNest) -> Result<(Arc<CompiledKernel>, Origin)> {
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
        let file = self.disk.as_ref().map(|d| d.join(format!("{key:016x}.o")));
        let entry = format!("{}_{key:016x}", llvm::ENTRY);
        self.compiles
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let cached = file.as_ref().and_then(|f| {
            let object = std::fs::read(f).ok()?;
            let linked = self.linker.link(&nest.name, &object, &entry).ok();
            if linked.is_none() {
                // Unreadable by this LLVM: replaced below.
                let _ = std::fs::remove_file(f);
            }
            linked
        });
        let (addr, origin) = match cached {
            Some(addr) => (addr, Origin::Disk),
            None => {
                let object = compile_object(nest, &host, &entry)?;
                if let Some(f) = &file {
                    store(f, &object);
                }
                let addr = self.linker.link(&nest.name, &object, &entry)?;
                (addr, Origin::Compiled)
            }
        };
        let kernel = Arc::new(CompiledKernel {
            // SAFETY: the address is `kiln_kernel`, defined with this signature.
            f: unsafe { std::mem::transmute::<usize, KernelFn>(addr) },
            split: split_extent(&nest.body),
            row_cost: row_cost(&nest.body),
            num_buffers: nest.inputs.len() + nest.outputs.len(),
            _linker: self.linker.clone(),
        });
        self.memory
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, kernel.clone());
        Ok((kernel, origin))
    }
}

/// The nest rendered, optimized and compiled to an object file whose kernel is `entry`.
fn compile_object(nest: &LoopNest, host: &Host, entry: &str) -> Result<Vec<u8>> {
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
    let module = llvm::render(&context, &math::expand(nest), &target).map_err(failed)?;
    let f = (module.get_function(llvm::ENTRY))
        .ok_or_else(|| failed("the rendered module has no kernel function".into()))?;
    f.as_global_value().set_name(entry);
    optimize(&module, &host.machine)
        .map_err(|e| failed(format!("LLVM optimization failed: {e}")))?;
    let object = host
        .machine
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
