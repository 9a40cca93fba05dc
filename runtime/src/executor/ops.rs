//! The engine operations an executor pre-creates: a node on its reference kernel, a
//! compiled kernel on its buffers, and the stores of gradients and aux states.

use crate::backend::{self, BackendError, HostKernel, SharedBuffers};
use crate::engine::{FnProperty, Operator, Var};
use crate::ndarray::NDArray;
use crate::{Error, Result};
use kiln_compiler::infer::Inferred;
use kiln_compiler::{Graph, NodeId};
use kiln_ops::shape::fmt_shape;
use kiln_ops::{DType, KernelCtx, Resource, Tensor};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::engine;

/// One node's engine operation, before it is created.
pub(super) struct NodeRun<'a> {
    pub id: NodeId,
    pub inputs: Vec<NDArray>,
    pub outputs: Vec<NDArray>,
    pub is_train: bool,
    /// Runs the operator's native f32 kernel (the caller checked it covers the node).
    pub native: bool,
    pub seed: [u32; 2],
    pub rng: &'a Var,
}

/// Buffers of a native node kept on the stack while it runs.
const STACK_IO: usize = 8;

/// The engine operation of one node: reads its input arrays, runs the operator's kernel,
/// writes its output arrays. Random operators also write the executor's generator variable,
/// which orders them, and draw a fresh key each run.
/// Returns the operation and the bytes of the native kernel's working space it keeps.
pub(super) fn node_operator(
    g: &Graph,
    inferred: &Inferred,
    run: NodeRun,
) -> (Arc<Operator>, usize) {
    let NodeRun {
        id,
        inputs,
        outputs,
        is_train,
        native,
        seed,
        rng,
    } = run;
    let n = g.node(id);
    let op = n.op.expect("operator node");
    let params = n.params.clone().expect("parsed params");
    let out_shapes = inferred.shapes[id.index()].clone();
    let out_dtypes: Vec<DType> = inferred.dtypes[id.index()]
        .iter()
        .map(|d| d.unwrap_or(DType::F32))
        .collect();
    let (in_names, out_names) = (n.input_names(), n.output_names().0);
    let in_shapes: Vec<Vec<usize>> = inputs.iter().map(|a| a.shape().to_vec()).collect();
    let reads: Vec<Var> = inputs.iter().map(|a| a.var().clone()).collect();
    let mut writes: Vec<Var> = outputs.iter().map(|a| a.var().clone()).collect();
    let random = op.resources.contains(&Resource::Random);
    if random {
        writes.push(rng.clone());
    }
    let runs = AtomicU64::new(0);
    // The native kernel's working space, the node's own (the engine never runs a node's
    // operation twice at once: it writes the outputs).
    let scratch = op
        .native
        .filter(|_| native)
        .map(|kernel| (kernel.scratch)(&params, &in_shapes))
        .unwrap_or(0);
    let kept = scratch * std::mem::size_of::<f64>();
    let scratch = Mutex::new(vec![0.0f64; scratch]);
    let node_index = id.index() as u64;
    let bytes = io_bytes(&inputs, &outputs);
    let op = engine()
        .new_operator(&n.name, &reads, &writes, FnProperty::Normal, move || {
            // Random operators run in push order (they all write `rng`), so the run count
            // gives the same key sequence whatever the thread count.
            let rng_key = if random {
                let k = runs.fetch_add(1, Ordering::Relaxed);
                kiln_ops::random::key(
                    ((seed[0] as u64) << 32) | seed[1] as u64,
                    (node_index << 32) | k,
                )
            } else {
                [0, 0]
            };
            let ctx = KernelCtx {
                attrs: &params,
                is_train,
                out_shapes: &out_shapes,
                out_dtypes: &out_dtypes,
                rng_key,
            };
            if let Some(kernel) = op.native.filter(|_| native) {
                // The buffers' slices on the stack (a run allocates nothing), on the heap
                // for nodes with more.
                let (mut ins, mut outs): ([&[f32]; STACK_IO], [&mut [f32]; STACK_IO]) =
                    ([&[]; STACK_IO], std::array::from_fn(|_| &mut [][..]));
                let (mut more_ins, mut more_outs) = (Vec::new(), Vec::new());
                let (ins, outs) = if inputs.len().max(outputs.len()) <= STACK_IO {
                    (&mut ins[..inputs.len()], &mut outs[..outputs.len()])
                } else {
                    more_ins.resize(inputs.len(), &[][..]);
                    more_outs.resize_with(outputs.len(), || &mut [][..]);
                    (&mut more_ins[..], &mut more_outs[..])
                };
                // SAFETY: as below; the arrays are f32 (checked at bind) and distinct (the
                // arena never places a native node's output over its inputs).
                for (slot, a) in ins.iter_mut().zip(&inputs) {
                    *slot = unsafe { a.as_f32() };
                }
                for (slot, a) in outs.iter_mut().zip(&outputs) {
                    *slot = unsafe { a.as_f32_mut() };
                }
                let mut scratch = scratch.lock().unwrap_or_else(|e| e.into_inner());
                return crate::aot::run_native(
                    &kernel,
                    &ctx,
                    (ins, &in_shapes),
                    outs,
                    &mut scratch,
                )
                .map_err(|e| e.render(&in_names, &out_names));
            }
            // SAFETY: the engine runs this after pending writes of the inputs and exclusively
            // for the outputs.
            let tensors: Vec<Tensor> = inputs.iter().map(|a| unsafe { a.read_tensor() }).collect();
            let refs: Vec<&Tensor> = tensors.iter().collect();
            let values =
                kiln_ops::evaluate(op, &ctx, &refs).map_err(|e| e.render(&in_names, &out_names))?;
            for (a, t) in outputs.iter().zip(&values) {
                // SAFETY: as above.
                unsafe { a.write_tensor(t) };
            }
            Ok(())
        })
        .with_bytes(bytes);
    (op, kept)
}

/// Bytes of the arrays an operation reads and writes.
fn io_bytes(inputs: &[NDArray], outputs: &[NDArray]) -> usize {
    inputs.iter().chain(outputs).map(NDArray::nbytes).sum()
}

/// The engine variables an operation reads and writes, and the arrays' addresses (inputs
/// then outputs), taken once at bind.
fn variables_and_pointers(
    inputs: &[NDArray],
    outputs: &[NDArray],
) -> (Vec<Var>, Vec<Var>, Vec<*mut u8>) {
    let reads = inputs.iter().map(|a| a.var().clone()).collect();
    let writes = outputs.iter().map(|a| a.var().clone()).collect();
    // SAFETY: the operation holds the arrays, so they live as long as it does; the
    // engine orders every access to them.
    let pointers = inputs
        .iter()
        .chain(outputs)
        .map(|a| unsafe { a.bytes_mut().as_mut_ptr() })
        .collect();
    (reads, writes, pointers)
}

/// The engine operation of a compiled kernel: reads its input arrays and writes its
/// output arrays in place, through pointers taken once at bind.
pub(super) fn kernel_operator(
    name: &str,
    kernel: Arc<dyn HostKernel>,
    dims: &[i64],
    inputs: Vec<NDArray>,
    outputs: Vec<NDArray>,
) -> Arc<Operator> {
    let (reads, writes, pointers) = variables_and_pointers(&inputs, &outputs);
    let bytes = io_bytes(&inputs, &outputs);
    let call = KernelCall {
        kernel,
        dims: dims.to_vec(),
        pointers,
        _arrays: inputs.into_iter().chain(outputs).collect(),
    };
    engine()
        .new_operator(name, &reads, &writes, FnProperty::Normal, move || {
            call.run().map_err(|e| e.to_string())
        })
        .with_bytes(bytes)
}

/// The engine operation of a matrix product: its packed operands into its workspace,
/// then gemm into the output array (or, where an epilogue follows, into the workspace,
/// the epilogue reading it block by block right after each block's products). Returns
/// the operation and the bytes of transformed Winograd weights it keeps.
pub(super) fn matmul_operator(
    name: &str,
    product: &kiln_compiler::program::Product,
    (packs, epilogue): ProductKernels,
    (inputs, outputs): (Vec<NDArray>, Vec<NDArray>),
    workspace: Vec<NDArray>,
) -> (Arc<Operator>, usize) {
    let (reads, mut writes, pointers) = variables_and_pointers(&inputs, &outputs);
    writes.extend(workspace.iter().map(|w| w.var().clone()));
    let bytes = io_bytes(&inputs, &outputs);
    let n = inputs.len();
    // SAFETY: the operation holds the workspace views, which the engine orders.
    let spaces: Vec<*mut u8> = workspace
        .iter()
        .map(|w| unsafe { w.bytes_mut().as_mut_ptr() })
        .collect();
    // Operands: the inputs, then the packed operands (each in its workspace buffer).
    let operands: Vec<*const u8> = (pointers[..n].iter().map(|&p| p as *const u8))
        .chain(spaces[..packs.len()].iter().map(|&p| p as *const u8))
        .collect();
    let pack_buffers: Vec<Vec<*mut u8>> = (0..packs.len())
        .map(|j| pointers[..n].iter().copied().chain([spaces[j]]).collect())
        .collect();
    // The product goes to the workspace where an epilogue follows; the epilogue reads
    // it as its last input (reading the output it writes would keep LLVM from
    // vectorizing it).
    let dst = match epilogue {
        Some(_) => spaces[packs.len()],
        None => pointers[n],
    };
    let mut epilogue_buffers = pointers.clone();
    epilogue_buffers.insert(n, dst);
    epilogue_buffers.truncate(n + 2);
    let winograd = product.winograd.as_ref().map(|plan| WinogradCall {
        conv: plan.conv,
        data: plan.data,
        weight: plan.weight,
        weight_var: plan
            .weight_is_variable
            .then(|| inputs[plan.weight].var().clone()),
        transformed: std::sync::Mutex::new((vec![0.0; plan.conv.weights_len()], None)),
    });
    let kept = winograd
        .as_ref()
        .map_or(0, |w| w.conv.weights_len() * std::mem::size_of::<f32>());
    let call = ProductCall {
        winograd,
        product: product.matmul.clone(),
        packs: (packs.iter().cloned())
            .zip(product.packs.iter().map(|(_, d)| d.clone()))
            .collect(),
        epilogue: epilogue
            .cloned()
            .zip(product.epilogue.as_ref().map(|(_, d)| d.clone())),
        phases: ["pack0", "pack1", "gemm", "epilogue"].map(|p| Arc::from(format!("{name}/{p}"))),
        operands,
        pack_buffers,
        epilogue_buffers,
        dst,
        _arrays: inputs.into_iter().chain(outputs).chain(workspace).collect(),
    };
    let op = engine()
        .new_operator(name, &reads, &writes, FnProperty::Normal, move || {
            call.run().map_err(|e| e.to_string())
        })
        .with_bytes(bytes);
    (op, kept)
}

type Compiled = (Arc<dyn HostKernel>, Vec<i64>);

/// A product's compiled pack kernels and epilogue.
pub(super) type ProductKernels<'a> = (&'a [Arc<dyn HostKernel>], Option<&'a Arc<dyn HostKernel>>);

/// A product run as a Winograd convolution: the geometry, which operands are the data
/// and the weight, and the transformed weights with the (variable id, version) of the
/// weights they were made from (`None`: remade every run).
struct WinogradCall {
    conv: crate::cpu::winograd::Conv3x3,
    data: usize,
    weight: usize,
    weight_var: Option<crate::engine::Var>,
    transformed: std::sync::Mutex<TransformedWeights>,
}

/// Transformed weights and the (variable id, version) they were made from.
type TransformedWeights = (Vec<f32>, Option<(u64, u64)>);

impl WinogradCall {
    /// The convolution of the operands into `dst`.
    ///
    /// # Safety
    /// `operands` must hold the kernel's input buffers and `dst` the convolution's output.
    unsafe fn run(&self, operands: &[*const u8], dst: *mut u8) {
        use crate::cpu::winograd::Winograd;
        let c = &self.conv;
        let data_len = c.batch * c.channels * c.height * c.width;
        let [ho, wo] = c.out_dims();
        let data = std::slice::from_raw_parts(operands[self.data] as *const f32, data_len);
        let weight = std::slice::from_raw_parts(
            operands[self.weight] as *const f32,
            c.filters * c.channels * 9,
        );
        let out = std::slice::from_raw_parts_mut(dst as *mut f32, c.batch * c.filters * ho * wo);
        let mut transformed = self.transformed.lock().unwrap_or_else(|p| p.into_inner());
        let (u, made_from) = &mut *transformed;
        // The weights cannot change while this operation reads them.
        let version = self.weight_var.as_ref().map(|v| (v.id(), v.version()));
        if version.is_none() || *made_from != version {
            u.resize(c.weights_len(), 0.0);
            c.transform_weights(weight, u);
            *made_from = version;
        }
        c.run(data, u, out);
    }
}

/// What a product operation holds: its kernels and every buffer's address, taken at
/// bind.
struct ProductCall {
    winograd: Option<WinogradCall>,
    product: kiln_compiler::kir::matmul::MatMul,
    packs: Vec<Compiled>,
    epilogue: Option<Compiled>,
    /// Profile names of the packs and of the products with their epilogues.
    phases: [Arc<str>; 4],
    /// The product's operands: the inputs, then the packed operands.
    operands: Vec<*const u8>,
    /// Each pack kernel's buffers: the inputs, then its workspace buffer.
    pack_buffers: Vec<Vec<*mut u8>>,
    /// The epilogue's buffers: the inputs, the product, the output.
    epilogue_buffers: Vec<*mut u8>,
    /// Where the product goes.
    dst: *mut u8,
    _arrays: Vec<NDArray>,
}

impl ProductCall {
    fn run(&self) -> Result<(), BackendError> {
        for (j, (kernel, dims)) in self.packs.iter().enumerate() {
            let start = crate::profiler::enabled().then(std::time::Instant::now);
            // SAFETY: the pack kernel reads the held inputs and writes its workspace
            // buffer, sized for its output.
            unsafe { backend::run(&**kernel, &self.pack_buffers[j], dims)? };
            if let Some(start) = start {
                crate::profiler::record(&self.phases[j], start, 0);
            }
        }
        let start = crate::profiler::enabled().then(std::time::Instant::now);
        let epilogue_buffers = SharedBuffers(&self.epilogue_buffers);
        // The epilogue runs inside gemm's tasks, which cannot return its failure.
        let failed = std::sync::OnceLock::new();
        let epilogue = |block: Option<(i64, i64)>| {
            let epilogue_buffers = epilogue_buffers.get();
            let Some((kernel, dims)) = &self.epilogue else {
                return;
            };
            let start = crate::profiler::enabled().then(std::time::Instant::now);
            // SAFETY: the epilogue's buffers are the held arrays; blocks are disjoint. Run
            // whole, it may split over the pool itself.
            unsafe {
                match block {
                    Some((lo, hi)) => kernel.run_range(epilogue_buffers, dims, lo, hi),
                    None => {
                        if let Err(e) = backend::run(&**kernel, epilogue_buffers, dims) {
                            let _ = failed.set(e);
                        }
                    }
                }
            }
            if let Some(start) = start {
                crate::profiler::record(&self.phases[3], start, 0);
            }
        };
        match &self.winograd {
            // SAFETY: the operands are the held inputs; `dst` holds the output's bytes.
            Some(w) => unsafe {
                w.run(&self.operands, self.dst);
                epilogue(None);
            },
            // SAFETY: the pointers hold the kernel's buffers and the packed operands; the
            // layout never places a product's output over its operands.
            None => unsafe {
                crate::cpu::matmul::run(&self.product, &self.operands, self.dst, &epilogue)
            },
        }
        if let Some(start) = start {
            crate::profiler::record(&self.phases[2], start, 0);
        }
        failed.into_inner().map_or(Ok(()), Err)
    }
}

// SAFETY: the pointers address the held arrays and workspace views, whose accesses the
// engine orders.
unsafe impl Send for ProductCall {}
unsafe impl Sync for ProductCall {}

/// What a kernel operation holds: the kernel, its buffers' addresses and the arrays
/// behind them.
struct KernelCall {
    kernel: Arc<dyn HostKernel>,
    dims: Vec<i64>,
    pointers: Vec<*mut u8>,
    _arrays: Vec<NDArray>,
}

impl KernelCall {
    fn run(&self) -> std::result::Result<(), BackendError> {
        // SAFETY: the pointers hold the kernel's buffers, sized by the inferred shapes.
        unsafe { backend::run(&*self.kernel, &self.pointers, &self.dims) }
    }
}

// SAFETY: the pointers address the held arrays, whose accesses the engine orders.
unsafe impl Send for KernelCall {}
unsafe impl Sync for KernelCall {}

/// Writes (or adds) `from`'s values into `to`: a byte copy, or an add in place, when
/// the dtypes agree (no allocation, as a training step needs); through tensors otherwise.
///
/// # Safety
/// As [`NDArray::bytes`] for `from` and [`NDArray::bytes_mut`] for `to`.
unsafe fn store_values(from: &NDArray, to: &NDArray, add: bool) {
    fn add_into<T: Copy + std::ops::AddAssign>(to: &mut [u8], from: &[u8]) -> bool {
        // SAFETY: any bytes are valid floats; the middle parts are aligned.
        let (head, dst, _) = unsafe { to.align_to_mut::<T>() };
        let (head2, src, _) = unsafe { from.align_to::<T>() };
        if !head.is_empty() || !head2.is_empty() || dst.len() != src.len() {
            return false;
        }
        dst.iter_mut().zip(src).for_each(|(d, s)| *d += *s);
        true
    }
    let same = from.dtype() == to.dtype();
    let (src, dst) = unsafe { (from.bytes(), to.bytes_mut()) };
    let done = match (same, add, to.dtype()) {
        (true, false, _) => {
            dst.copy_from_slice(src);
            true
        }
        (true, true, DType::F32) => add_into::<f32>(dst, src),
        (true, true, DType::F64) => add_into::<f64>(dst, src),
        _ => false,
    };
    if !done {
        let mut value = unsafe { from.read_tensor() };
        if add {
            let old = unsafe { to.read_tensor() };
            value
                .data
                .iter_mut()
                .zip(&old.data)
                .for_each(|(v, o)| *v += o);
        }
        unsafe { to.write_tensor(&value) };
    }
}

/// An operation writing (or adding) `src` into `dst`.
pub(super) fn store(name: &str, src: &NDArray, dst: &NDArray, add: bool) -> Result<Arc<Operator>> {
    if src.shape() != dst.shape() {
        return Err(Error::Input(format!(
            "{name}: array of shape {} cannot hold {}",
            fmt_shape(dst.shape()),
            fmt_shape(src.shape())
        )));
    }
    let (from, to) = (src.clone(), dst.clone());
    let reads = [src.var().clone()];
    let writes = [dst.var().clone()];
    let bytes = src.nbytes() + dst.nbytes();
    Ok(engine()
        .new_operator(name, &reads, &writes, FnProperty::Normal, move || {
            // SAFETY: ordered by the engine: after writes of `from`, exclusive for `to`.
            unsafe { store_values(&from, &to, add) };
            Ok(())
        })
        .with_bytes(bytes))
}
