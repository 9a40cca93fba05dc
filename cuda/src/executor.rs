//! The GPU executor: a symbol compiled by kiln's one pipeline for a GPU target, its
//! memory placed as the program's layout says (one arena, from the pool), and its steps
//! issued on the device's compute stream:
//!
//! - a compiled kernel: one launch of the program's module (every kernel of the program
//!   rendered to CUDA and compiled at bind as one module);
//! - a matrix product: its pack kernels (im2col) into the step's workspace, one cuBLAS
//!   gemm per index of its outer and summed loops (a summed loop's later indices
//!   accumulate, `beta = 1`), and its epilogue kernel reading the product back;
//! - a store: a device-to-device copy into the gradient or aux array;
//! - a library node with no kernel (SoftmaxOutput, the max-pooling gradient): its
//!   reference kernel on the host, its inputs copied out and outputs copied back on the
//!   compute stream ([`GpuExecutor::host_steps`] counts them).
//!
//! Arrays move on a copy stream of their own; an event makes the compute stream wait for
//! what was copied in, and the copy stream for what was computed before copying out.
//!
//! A training bind runs its forward pass in training mode; an inference bind runs
//! inference. Gradients are written (`grad_req = write`) or added into (`add`, by a
//! kernel of its own); outputs that are not losses take head gradients at backward.

use crate::device::{Arg, DevicePtr, Event, Gemm, Gpu, LaunchConfig, Module, ModuleId, Stream};
use crate::error::{GpuError, Result};
use crate::module::{geometry, ModuleBuilder};
use crate::pool::{Lanes, Pool};
use crate::products::gemms;
use kiln_compiler::kir::{Buffer, Idx, Kernel, Val};
use kiln_compiler::program::{compile, Bound, Mode, Place, Program, Spec, StepKind, Target};
use kiln_compiler::{Entry, Symbol};
use kiln_ops::expr::Binary;
use kiln_ops::{DType, KernelCtx, Resource, Tensor};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// An array in device memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub ptr: DevicePtr,
    pub shape: Vec<usize>,
    pub dtype: DType,
}

impl Array {
    pub fn bytes(&self) -> usize {
        self.shape.iter().product::<usize>() * self.dtype.size()
    }
}

/// One operation of a pass, made at bind.
enum Task {
    Launch {
        kernel: String,
        config: LaunchConfig,
        args: Vec<Arg>,
    },
    Gemm(Gemm),
    Copy {
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
    },
    /// Step `step`'s node on its reference kernel on the host.
    Host {
        step: usize,
        inputs: Vec<Array>,
        outputs: Vec<Array>,
    },
}

/// What kiln compiles for a GPU: kernels and matrix products on the device's BLAS; no
/// Winograd, native CPU kernels or streamed products.
pub fn target() -> Target {
    Target {
        kernels: true,
        least_product: Some(1),
        blas: true,
        fused_epilogues: true,
        ..Target::reference()
    }
}

pub struct GpuExecutor {
    pool: Arc<Pool>,
    compute: Stream,
    copy: Stream,
    copied: Event,
    computed: Event,
    program: Program,
    /// The program's kernels as CUDA, and the module the device loaded from it.
    source: Module,
    module: ModuleId,
    names: Vec<String>,
    /// Arguments then aux states, by name.
    variables: HashMap<String, Array>,
    grads: HashMap<String, Array>,
    outputs: Vec<Array>,
    /// Per output: the array its head gradient is copied into (losses need none).
    head_grads: Vec<Option<Array>>,
    /// Each pass's tasks, with the step each belongs to.
    forward: Vec<(usize, Task)>,
    backward: Vec<(usize, Task)>,
    /// Every block taken from the pool, returned at drop.
    blocks: Vec<DevicePtr>,
    /// Draws of random operators run on the host so far.
    draws: AtomicU32,
}

impl GpuExecutor {
    /// Compiles `symbol` for the inputs' `shapes` in `mode` and binds it on the pool's
    /// device: arrays for every argument, gradient, aux state and output (zeros), the
    /// arena, and the program's kernels compiled as one module.
    pub fn bind(
        pool: Arc<Pool>,
        symbol: &Symbol,
        shapes: &[(&str, &[usize])],
        mode: Mode,
    ) -> Result<GpuExecutor> {
        let bind = |e: &dyn std::fmt::Display| GpuError::Bind(e.to_string());
        let Lanes {
            compute,
            copy,
            copied,
            computed,
        } = pool.lanes();
        let spec = Spec::new(
            shapes
                .iter()
                .map(|(n, s)| (n.to_string(), s.to_vec()))
                .collect(),
            mode,
            target(),
        );
        let program = compile(symbol, &spec).map_err(|e| bind(&e))?;
        let mut ex = GpuExecutor {
            pool,
            compute,
            copy,
            copied,
            computed,
            source: Module {
                name: String::new(),
                kernels: Vec::new(),
            },
            module: ModuleId(0),
            names: symbol.list_arguments(),
            variables: HashMap::new(),
            grads: HashMap::new(),
            outputs: Vec::new(),
            head_grads: Vec::new(),
            forward: Vec::new(),
            backward: Vec::new(),
            blocks: Vec::new(),
            draws: AtomicU32::new(0),
            program,
        };
        ex.place()?;
        Ok(ex)
    }

    /// Every value's array, and the passes' tasks.
    fn place(&mut self) -> Result<()> {
        let p = &self.program;
        let (g, inferred, t) = (p.graph(), &p.inferred, &p.training);
        let (pool, stream) = (&self.pool, self.compute);
        let mut zeros =
            |shape: &[usize], dtype| zeros(pool, stream, &mut self.blocks, shape, dtype);
        let entry_array = |e: Entry, ptr: DevicePtr| Array {
            ptr,
            shape: inferred.shape(e).to_vec(),
            dtype: inferred.dtype(e).unwrap_or(DType::F32),
        };
        let arena = zeros(&[p.layout.arena_bytes.max(1)], DType::U8)?.ptr;
        let mut arrays: HashMap<Entry, Array> = HashMap::new();
        for id in g.node_ids().filter(|&id| g.node(id).is_variable()) {
            let e = Entry { node: id, index: 0 };
            let a = zeros(inferred.shape(e), inferred.dtype(e).unwrap_or(DType::F32))?;
            if let Some(value) = g.constants.get(&id) {
                pool.gpu()
                    .copy_to_device(stream, a.ptr, &value.to_bytes())?;
            } else if !t.head_grads.contains(&Some(id)) {
                self.variables.insert(g.node(id).name.clone(), a.clone());
            }
            arrays.insert(e, a);
        }
        for (k, &(id, _)) in t.grads.iter().enumerate() {
            let e = t.grad_entry(k);
            let a = zeros(inferred.shape(e), inferred.dtype(e).unwrap_or(DType::F32))?;
            self.grads.insert(g.node(id).name.clone(), a);
        }
        let grad_of = |k: usize| {
            let name = t.grads.get(k).map(|&(id, _)| &g.node(id).name);
            name.and_then(|n| self.grads.get(n))
                .cloned()
                .ok_or_else(|| GpuError::Bind(format!("gradient {k} of the program has no array")))
        };
        let places: Vec<(Entry, Place)> = p.layout.places.iter().map(|(e, p)| (*e, *p)).collect();
        for (e, place) in places {
            let a = match place {
                Place::Arena(offset) => entry_array(e, arena.offset(offset)),
                Place::Own => {
                    let dtype = inferred.dtype(e).unwrap_or(DType::F32);
                    zeros(inferred.shape(e), dtype)?
                }
                Place::Gradient(k) => grad_of(k)?,
            };
            arrays.insert(e, a);
        }
        let get = |e: &Entry| {
            arrays.get(e).cloned().ok_or_else(|| {
                GpuError::Bind(format!(
                    "output {} of `{}` has no array",
                    e.index,
                    g.node(e.node).name
                ))
            })
        };
        self.outputs = g.heads[..t.num_outputs]
            .iter()
            .map(get)
            .collect::<Result<_>>()?;
        self.head_grads = (t.head_grads.iter())
            .map(|h| h.map(|id| get(&Entry { node: id, index: 0 })).transpose())
            .collect::<Result<_>>()?;
        let mut module = ModuleBuilder::default();
        let (mut forward, mut backward) = (Vec::new(), Vec::new());
        for (s, step) in p.steps.iter().enumerate() {
            let inputs = step.inputs.iter().map(get).collect::<Result<Vec<_>>>()?;
            let outputs = step.outputs.iter().map(get).collect::<Result<Vec<_>>>()?;
            let ptrs =
                |arrays: &[Array]| arrays.iter().map(|a| Arg::Ptr(a.ptr)).collect::<Vec<_>>();
            let missing =
                |what: &str| GpuError::Bind(format!("step `{}` has no {what}", step.name));
            let first_in = inputs.first().ok_or_else(|| missing("input"))?.ptr;
            let first_out = outputs.first().map(|a| a.ptr);
            let mut tasks = Vec::new();
            match &step.kind {
                StepKind::Kernel { ir, dims } => {
                    let mut buffers = ptrs(&inputs);
                    buffers.extend(ptrs(&outputs));
                    tasks.push(launch(&mut module, ir, dims, buffers)?);
                }
                StepKind::Product(product) => {
                    let space: Vec<DevicePtr> = (p.layout.workspace.get(s))
                        .ok_or_else(|| missing("workspace"))?
                        .iter()
                        .map(|&(offset, _)| arena.offset(offset))
                        .collect();
                    let out = first_out.ok_or_else(|| missing("output"))?;
                    let need = product.packs.len() + usize::from(product.epilogue.is_some());
                    if space.len() < need || product.winograd.is_some() || product.stream.is_some()
                    {
                        return Err(GpuError::Bind(format!(
                            "product `{}` is not laid out for the GPU",
                            step.name
                        )));
                    }
                    let mut operands = ptrs(&inputs);
                    for (j, (pack, dims)) in product.packs.iter().enumerate() {
                        let mut buffers = ptrs(&inputs);
                        buffers.push(Arg::Ptr(space[j]));
                        tasks.push(launch(&mut module, pack, dims, buffers)?);
                        operands.push(Arg::Ptr(space[j]));
                    }
                    let dst = match product.epilogue {
                        Some(_) => space[product.packs.len()],
                        None => out,
                    };
                    let operand = |i: usize| match operands.get(i) {
                        Some(Arg::Ptr(p)) => Ok(*p),
                        _ => Err(GpuError::Bind(format!(
                            "product `{}`: no operand {i}",
                            step.name
                        ))),
                    };
                    let (a, b) = (
                        operand(product.matmul.a.input)?,
                        operand(product.matmul.b.input)?,
                    );
                    for g in gemms(&step.name, &product.matmul, a, b, dst)? {
                        tasks.push(Task::Gemm(g));
                    }
                    if let Some((epilogue, dims)) = &product.epilogue {
                        let mut buffers = ptrs(&inputs);
                        buffers.extend([Arg::Ptr(dst), Arg::Ptr(out)]);
                        tasks.push(launch(&mut module, epilogue, dims, buffers)?);
                    }
                }
                StepKind::Store { into, add } => {
                    let target = match into {
                        Bound::Gradient(k) => grad_of(*k)?,
                        Bound::Aux(k) => (t.aux_updates.get(*k))
                            .and_then(|&id| self.variables.get(&g.node(id).name))
                            .cloned()
                            .ok_or_else(|| missing("aux state array"))?,
                    };
                    if *add {
                        let sum = add_kernel(&format!("store{s}_add"), &target);
                        let args = [target.ptr, first_in, target.ptr].map(Arg::Ptr).to_vec();
                        tasks.push(launch(&mut module, &sum, &[], args)?);
                    } else {
                        tasks.push(Task::Copy {
                            dst: target.ptr,
                            src: first_in,
                            bytes: target.bytes(),
                        });
                    }
                }
                StepKind::Reference | StepKind::Native => tasks.push(Task::Host {
                    step: s,
                    inputs,
                    outputs,
                }),
            }
            let pass = if step.forward {
                &mut forward
            } else {
                &mut backward
            };
            pass.extend(tasks.into_iter().map(|task| (s, task)));
        }
        self.source = module.build(&format!("kiln_{}", g.len()));
        self.module = pool.gpu().load(&self.source)?;
        (self.forward, self.backward) = (forward, backward);
        Ok(())
    }

    /// Copies `value` into the argument or aux state `name`.
    pub fn set(&self, name: &str, value: &Tensor) -> Result<()> {
        self.copy_in(&format!("`{name}`"), self.variable(name)?, value)
    }

    /// Copies `value` into `a` on the copy stream, ordered after the compute stream's
    /// work so far and before its work from now on.
    fn copy_in(&self, what: &str, a: &Array, value: &Tensor) -> Result<()> {
        if value.shape != a.shape || value.dtype != a.dtype {
            return Err(GpuError::invalid(
                format!("setting {what}"),
                format!(
                    "{:?} {} given for {:?} {}",
                    value.shape,
                    value.dtype.name(),
                    a.shape,
                    a.dtype.name()
                ),
            ));
        }
        let gpu = self.pool.gpu();
        // The copy waits for what the compute stream did with the array so far.
        gpu.record(self.computed, self.compute)?;
        gpu.wait(self.copy, self.computed)?;
        gpu.copy_to_device(self.copy, a.ptr, &value.to_bytes())?;
        gpu.record(self.copied, self.copy)?;
        gpu.wait(self.compute, self.copied)
    }

    fn variable(&self, name: &str) -> Result<&Array> {
        self.variables.get(name).ok_or_else(|| {
            GpuError::invalid(
                format!("array `{name}`"),
                format!(
                    "no argument or aux state of that name (arguments: {})",
                    self.names.join(", ")
                ),
            )
        })
    }

    /// Issues the forward pass.
    pub fn forward(&self) -> Result<()> {
        self.run(&self.forward)
    }

    /// Issues the backward pass: gradients (written or added, per grad_req), and aux
    /// states updated in training. `head_grads` holds one array per output that is not a
    /// loss, in output order (losses take none).
    pub fn backward(&self, head_grads: &[Tensor]) -> Result<()> {
        let needed: Vec<&Array> = self.head_grads.iter().flatten().collect();
        if head_grads.len() != needed.len() {
            return Err(GpuError::invalid(
                "backward",
                format!(
                    "{} head gradients given, the outputs that are not losses need {}",
                    head_grads.len(),
                    needed.len()
                ),
            ));
        }
        for (a, t) in needed.into_iter().zip(head_grads) {
            self.copy_in("a head gradient", a, t)?;
        }
        self.run(&self.backward)
    }

    fn run(&self, tasks: &[(usize, Task)]) -> Result<()> {
        let gpu = self.pool.gpu().as_ref();
        for (step, task) in tasks {
            let done = match task {
                Task::Launch {
                    kernel,
                    config,
                    args,
                } => gpu.launch(self.compute, self.module, kernel, *config, args),
                Task::Gemm(g) => gpu.gemm(self.compute, g),
                Task::Copy { dst, src, bytes } => {
                    gpu.copy_on_device(self.compute, *dst, *src, *bytes)
                }
                Task::Host {
                    step,
                    inputs,
                    outputs,
                } => self.host(gpu, *step, inputs, outputs),
            };
            done.map_err(|e| GpuError::Step {
                step: self.program.steps[*step].name.clone(),
                source: Box::new(e),
            })?;
        }
        Ok(())
    }

    /// A node on its reference kernel, between copies on the compute stream.
    fn host(&self, gpu: &dyn Gpu, step: usize, inputs: &[Array], outputs: &[Array]) -> Result<()> {
        let p = &self.program;
        let id = (p.steps[step].nodes.first())
            .ok_or_else(|| GpuError::Bind("a step without a node".into()))?;
        let id = *id;
        let n = p.graph().node(id);
        let (Some(op), Some(attrs)) = (n.op, n.params.as_ref()) else {
            return Err(GpuError::Bind(format!(
                "step `{}` is not an operator",
                p.steps[step].name
            )));
        };
        let mut tensors = Vec::with_capacity(inputs.len());
        for a in inputs {
            let mut bytes = vec![0u8; a.bytes()];
            gpu.copy_to_host(self.compute, &mut bytes, a.ptr)?;
            let t = Tensor::from_bytes(a.dtype, a.shape.clone(), &bytes)
                .map_err(|e| GpuError::invalid(&n.name, e.to_string()))?;
            tensors.push(t);
        }
        let rng_key = match op.resources.contains(&Resource::Random) {
            true => [0x6b69_6c6e, self.draws.fetch_add(1, Ordering::Relaxed)],
            false => [0, 0],
        };
        let ctx = KernelCtx {
            attrs,
            is_train: p.mode.is_train(),
            out_shapes: &p.inferred.shapes[id.index()],
            out_dtypes: &outputs.iter().map(|a| a.dtype).collect::<Vec<_>>(),
            rng_key,
        };
        let refs: Vec<&Tensor> = tensors.iter().collect();
        let values = kiln_ops::evaluate(op, &ctx, &refs).map_err(|e| {
            GpuError::invalid(&n.name, e.render(&n.input_names(), &n.output_names().0))
        })?;
        for (a, v) in outputs.iter().zip(&values) {
            gpu.copy_to_device(self.compute, a.ptr, &v.to_bytes())?;
        }
        Ok(())
    }

    /// Returns when the passes issued so far are done.
    pub fn synchronize(&self) -> Result<()> {
        self.pool.gpu().synchronize(self.compute)
    }

    /// Copies `a` to the host once the compute stream's work so far is done.
    fn read(&self, a: &Array) -> Result<Tensor> {
        let gpu = self.pool.gpu();
        gpu.record(self.computed, self.compute)?;
        gpu.wait(self.copy, self.computed)?;
        let mut bytes = vec![0u8; a.bytes()];
        gpu.copy_to_host(self.copy, &mut bytes, a.ptr)?;
        Tensor::from_bytes(a.dtype, a.shape.clone(), &bytes)
            .map_err(|e| GpuError::invalid("reading an array", e.to_string()))
    }

    pub fn outputs(&self) -> Result<Vec<Tensor>> {
        self.outputs.iter().map(|a| self.read(a)).collect()
    }

    /// The gradient of argument `name`.
    pub fn grad(&self, name: &str) -> Result<Tensor> {
        let a = self.grads.get(name).ok_or_else(|| {
            GpuError::invalid(
                format!("gradient of `{name}`"),
                "the argument has no gradient",
            )
        })?;
        self.read(a)
    }

    /// The argument or aux state `name`.
    pub fn get(&self, name: &str) -> Result<Tensor> {
        self.read(self.variable(name)?)
    }

    /// Steps that run on the host: library nodes with no GPU kernel yet.
    pub fn host_steps(&self) -> usize {
        (self.forward.iter().chain(&self.backward))
            .filter(|(_, t)| matches!(t, Task::Host { .. }))
            .count()
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The program's kernels, rendered to CUDA as one module.
    pub fn module(&self) -> &Module {
        &self.source
    }
}

impl Drop for GpuExecutor {
    fn drop(&mut self) {
        for &b in &self.blocks {
            // A block the pool did not hand out cannot occur; nothing to report at drop.
            let _ = self.pool.release(b, self.compute);
        }
    }
}

/// A zero-filled array of its own from `pool`, noted in `blocks`.
fn zeros(
    pool: &Pool,
    stream: Stream,
    blocks: &mut Vec<DevicePtr>,
    shape: &[usize],
    dtype: DType,
) -> Result<Array> {
    let bytes = shape.iter().product::<usize>() * dtype.size();
    let ptr = pool.alloc(bytes, stream)?;
    blocks.push(ptr);
    pool.gpu().fill_zero(stream, ptr, bytes)?;
    Ok(Array {
        ptr,
        shape: shape.to_vec(),
        dtype,
    })
}

/// The kernel that adds `target`'s values and another array of its shape into `target`
/// (a gradient accumulated, `grad_req = add`).
fn add_kernel(name: &str, target: &Array) -> Kernel {
    let len = Idx::Const(target.shape.iter().product::<usize>() as i64);
    let buffer = |name: &str| Buffer {
        name: name.to_string(),
        dtype: target.dtype,
        len: len.clone(),
    };
    let load = |buffer| {
        Box::new(Val::Load {
            buffer,
            index: Idx::Coord(0),
        })
    };
    Kernel {
        name: name.to_string(),
        domain: vec![len.clone()],
        inputs: vec![buffer("into"), buffer("value")],
        outputs: vec![buffer("sum")],
        temps: Vec::new(),
        values: vec![Val::Binary(Binary::Add, load(0), load(1))],
        compute: match target.dtype {
            DType::F64 => DType::F64,
            _ => DType::F32,
        },
    }
}

/// Launch task of kernel `ir` on `buffers` under `dims`.
fn launch(
    module: &mut ModuleBuilder,
    ir: &Kernel,
    dims: &[i64],
    mut args: Vec<Arg>,
) -> Result<Task> {
    let kernel = module.add(ir)?;
    let code = module.code(&kernel)?;
    let (config, n) = geometry(code, dims)?;
    args.extend(dims.iter().map(|&d| Arg::I64(d)));
    args.extend(n.map(Arg::I64));
    Ok(Task::Launch {
        kernel,
        config,
        args,
    })
}
