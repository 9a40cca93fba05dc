//! The engine operations an executor pre-creates: a node on its reference kernel, a
//! compiled kernel on its buffers, and the stores of gradients and aux states.

use crate::backend::{self, BackendError, HostKernel, SharedBuffers};
use crate::cpu::windows::Gather;
use crate::engine::{FnProperty, Operator, Var};
use crate::ndarray::NDArray;
use crate::{Error, Result};
use kiln_compiler::infer::Inferred;
use kiln_compiler::kir::matmul::{Along, MatMul, OuterLoop};
use kiln_compiler::kir::{Conv3x3, WinogradPlan};
use kiln_compiler::program::Stream;
use kiln_compiler::{Graph, NodeId};
use kiln_ops::shape::fmt_shape;
use kiln_ops::tensor::AllocError;
use kiln_ops::{DType, KernelCtx, Resource, Tensor};
use std::sync::{Arc, Mutex};

use super::engine;
use super::random::RandomStream;

/// One node's engine operation, before it is created.
pub(super) struct NodeRun<'a> {
    pub id: NodeId,
    pub inputs: Vec<NDArray>,
    pub outputs: Vec<NDArray>,
    pub is_train: bool,
    /// Runs the operator's native f32 kernel (the caller checked it covers the node).
    pub native: bool,
    pub random: &'a Arc<RandomStream>,
}

/// Buffers of a native node kept on the stack while it runs.
const STACK_IO: usize = 8;

/// The engine operation of one node: reads its input arrays, runs the operator's kernel,
/// writes its output arrays. Random operators also write the executor's random stream's
/// variable, which orders them, and draw its next key each run.
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
        random: stream,
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
        writes.push(stream.var().clone());
    }
    let stream = stream.clone();
    // The native kernel's working space, the node's own (the engine never runs a node's
    // operation twice at once: it writes the outputs).
    let scratch = op
        .native
        .filter(|_| native)
        .map(|kernel| (kernel.scratch)(&params, &in_shapes))
        .unwrap_or(0);
    let kept = scratch * std::mem::size_of::<f64>();
    let scratch = Mutex::new(vec![0.0f64; scratch]);
    let bytes = io_bytes(&inputs, &outputs);
    let op = engine()
        .new_operator(&n.name, &reads, &writes, FnProperty::Normal, move || {
            let rng_key = if random { stream.next_key() } else { [0, 0] };
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
                    // SAFETY: f32 (checked at bind); the engine runs this after the inputs' writes.
                    *slot = unsafe { a.as_f32() };
                }
                for (slot, a) in outs.iter_mut().zip(&outputs) {
                    // SAFETY: f32 (checked at bind); the engine runs this exclusively for the
                    // outputs, which the arena never places over the inputs.
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
            let tensors = inputs
                .iter()
                .map(|a| unsafe { a.read_tensor() })
                .collect::<std::result::Result<Vec<Tensor>, _>>()
                .map_err(|e| e.to_string())?;
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
) -> Result<(Arc<Operator>, usize)> {
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
    let winograd_spaces =
        (product.winograd.as_ref()).map_or(0, |w| 1 + usize::from(!w.keep_weights));
    let product_space = packs.len() + winograd_spaces;
    let dst = match epilogue {
        Some(_) => spaces[product_space],
        None => pointers[n],
    };
    let mut epilogue_buffers = pointers.clone();
    epilogue_buffers.insert(n, dst);
    epilogue_buffers.truncate(n + 2);
    let winograd = product.winograd.as_ref().map(|plan| WinogradCall {
        plan: *plan,
        // A weight gradient transforms no weight.
        transformed: (!plan.conv.weight_gradient).then(|| match plan.keep_weights {
            true => Transformed::Kept {
                weight: inputs[plan.weight].var().clone(),
                made: std::sync::Mutex::new((vec![0.0; plan.conv.weights_len()], None)),
            },
            false => Transformed::Remade(spaces[packs.len() + 1] as *mut f32),
        }),
        scratch: spaces[packs.len()] as *mut f32,
        block: product.stream.as_ref().map(|s| s.block),
        slot: product.stream.is_some() && epilogue.is_some(),
    });
    let kept = match &winograd {
        Some(
            w @ WinogradCall {
                transformed: Some(Transformed::Kept { .. }),
                ..
            },
        ) => w.plan.conv.weights_len() * std::mem::size_of::<f32>(),
        _ => 0,
    };
    // Packs gemm gathers from their input (its columns or rows, whichever the pack holds,
    // spanning the pack's trailing axes).
    let mm = &product.matmul;
    let gathers: Vec<Option<Gather>> = (product.windows.iter().enumerate())
        .map(|(j, w)| {
            let w = w.as_ref()?;
            let (_, span, _) = mm.operand(n + j)?;
            let input = pointers[w.input] as *const u8;
            Some(Gather::new(w.clone(), input, span, spaces[j], mm.dtype))
        })
        .collect();
    let packs: Vec<Compiled> = (packs.iter().cloned())
        .zip(product.packs.iter().map(|(_, d)| d.clone()))
        .collect();
    let epilogue = epilogue
        .cloned()
        .zip(product.epilogue.as_ref().map(|(_, d)| d.clone()));
    // The workspace holds a streamed product's slots only: it runs by index or not at all.
    let by_index = (product
        .stream
        .as_ref()
        .filter(|_| product.winograd.is_none()))
    .map(|stream| {
        let sizes: Vec<usize> = workspace.iter().map(NDArray::nbytes).collect();
        let buffers = (&pointers[..], n, &epilogue_buffers[..]);
        ByIndex::new(&product.matmul, stream, &packs, buffers, (&spaces, &sizes))
    })
    .transpose()?;
    let call = ProductCall {
        winograd,
        product: product.matmul.clone(),
        packs,
        gathers,
        epilogue,
        by_index,
        phases: ["pack0", "pack1", "gemm", "epilogue", "product"]
            .map(|p| Arc::from(format!("{name}/{p}"))),
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
    Ok((op, kept))
}

type Compiled = (Arc<dyn HostKernel>, Vec<i64>);

/// A product's compiled pack kernels and epilogue.
pub(super) type ProductKernels<'a> = (&'a [Arc<dyn HostKernel>], Option<&'a Arc<dyn HostKernel>>);

/// A product run as a Winograd convolution: the geometry, which operands are the data
/// and the weight, and where its transformed weights are.
struct WinogradCall {
    plan: WinogradPlan,
    /// Where its transformed weights are (none for a weight gradient).
    transformed: Option<Transformed>,
    /// Its working space (the workspace buffer after the packs).
    scratch: *mut f32,
    /// Images per block where it streams.
    block: Option<usize>,
    /// Whether a streamed block goes to a slot of its own (an epilogue follows).
    slot: bool,
}

/// Transformed weights and the (variable id, version) of the weight they were made from.
type MadeFrom = (Vec<f32>, Option<(u64, u64)>);

/// Where a Winograd convolution's transformed weights are.
enum Transformed {
    /// Kept by the operation, with the (variable id, version) of the weight they were
    /// made from: remade only when the weight changed.
    Kept {
        weight: crate::engine::Var,
        made: std::sync::Mutex<MadeFrom>,
    },
    /// Remade on every run in this workspace buffer (a trained weight changes every step).
    Remade(*mut f32),
}

impl WinogradCall {
    /// The convolution of the operands, whole into `dst`, or by blocks of images where it
    /// streams: each block into `dst`'s slot (where `slot`, else into its part of the
    /// output `dst`), then `after_block(lo, hi)` of its images.
    ///
    /// # Safety
    /// `operands` must hold the kernel's input buffers, `dst` the convolution's output or
    /// a block's, `self.scratch` the working space of a block (or of the whole), and a
    /// [`Transformed::Remade`] buffer `weights_len` floats, all workspace of this
    /// operation alone.
    unsafe fn run(
        &self,
        operands: &[*const u8],
        dst: *mut u8,
        after_block: &dyn Fn(i64, i64) -> Result<(), BackendError>,
    ) -> Result<(), BackendError> {
        use crate::cpu::winograd::Winograd;
        let c = &self.plan.conv;
        let [ho, wo] = c.out_dims();
        let (image_in, image_out) = (c.channels * c.height * c.width, c.filters * ho * wo);
        let scratch_of =
            |images| std::slice::from_raw_parts_mut(self.scratch, self.plan.scratch_len(images));
        let Some(transformed) = &self.transformed else {
            // A weight gradient: the output gradient in the weight's place, into `dst`.
            let dy = operands[self.plan.weight] as *const f32;
            let dy = std::slice::from_raw_parts(dy, c.batch * image_out);
            let data = operands[self.plan.data] as *const f32;
            let data = std::slice::from_raw_parts(data, c.batch * image_in);
            let dw = std::slice::from_raw_parts_mut(dst as *mut f32, c.filters * c.channels * 9);
            c.weight_gradient(dy, data, dw, scratch_of(c.batch));
            return Ok(());
        };
        let weight = std::slice::from_raw_parts(
            operands[self.plan.weight] as *const f32,
            c.filters * c.channels * 9,
        );
        let mut kept;
        let u: &[f32] = match transformed {
            Transformed::Kept { weight: var, made } => {
                kept = made.lock().unwrap_or_else(|p| p.into_inner());
                // The weights cannot change while this operation reads them.
                let version = Some((var.id(), var.version()));
                if kept.1 != version {
                    c.transform_weights(weight, &mut kept.0);
                    kept.1 = version;
                }
                &kept.0
            }
            Transformed::Remade(space) => {
                let u = std::slice::from_raw_parts_mut(*space, c.weights_len());
                c.transform_weights(weight, u);
                u
            }
        };
        let block = self.block.unwrap_or(c.batch);
        for lo in (0..c.batch).step_by(block) {
            let hi = (lo + block).min(c.batch);
            let part = Conv3x3 {
                batch: hi - lo,
                ..*c
            };
            let data = (operands[self.plan.data] as *const f32).add(lo * image_in);
            let data = std::slice::from_raw_parts(data, part.batch * image_in);
            let out = match self.slot {
                true => dst as *mut f32,
                false => (dst as *mut f32).add(lo * image_out),
            };
            let out = std::slice::from_raw_parts_mut(out, part.batch * image_out);
            part.run_in(data, u, out, scratch_of(part.batch), self.plan.bands);
            after_block(lo as i64, hi as i64)?;
        }
        Ok(())
    }
}

/// A streamed product's buffers ([`kiln_compiler::program::Stream`]): each task's slots
/// for its packed operands and products of one index.
struct ByIndex {
    along: Along,
    /// Which packs pack one index (else the whole operand, before the loop).
    packs_by_index: Vec<bool>,
    tasks: usize,
    /// The loop it runs along: its extent and the strides of the operands and output.
    outer: OuterLoop,
    /// The chunks of one index, in order.
    chunks: Vec<Chunk>,
    /// Per task: each pack kernel's buffers (the inputs, then the task's slot).
    pack_buffers: Vec<Vec<Vec<*mut u8>>>,
    /// Per task: its slot of each packed operand (`None` where the operand is an input).
    operand_slots: Vec<[Option<*const u8>; 2]>,
    /// Per task: its product slot, where an epilogue follows.
    product_slots: Vec<Option<*mut u8>>,
    /// Per task: the epilogue's buffers (the inputs, the task's product slot, the output).
    epilogue_buffers: Vec<Vec<*mut u8>>,
    /// Along a sum shared among tasks: the partial product of each task after the first,
    /// laid out as the product.
    partials: Vec<*mut u8>,
    /// Along a sum shared among tasks: the chunks of depth of an index, in order.
    depth_chunks: Vec<DepthChunk>,
}

/// A range of depths of a summed index's product ([`Stream::depth_rows`]): the rows of
/// each pack that hold them (none of a whole operand's), and their product, whose
/// operands are addressed as the index's (every pack keeps its whole layout).
struct DepthChunk {
    rows: Vec<[i64; 2]>,
    product: MatMul,
}

impl DepthChunk {
    /// A summed index, packed and multiplied whole (`index`: its product and each pack's
    /// rows), as chunks of `depth_rows` rows of its packs at a time (one chunk: `None`).
    fn of_index(index: &Chunk, depth_rows: Option<i64>) -> Vec<DepthChunk> {
        let whole = || DepthChunk {
            rows: index.pack_rows.iter().map(|&r| [0, r]).collect(),
            product: index.product.clone(),
        };
        let Some(rows) = depth_rows.filter(|&r| r > 0) else {
            return vec![whole()];
        };
        let extent = index.pack_rows.iter().copied().max().unwrap_or(0);
        let per_row = index.product.k / extent.max(1);
        (0..extent)
            .step_by(rows as usize)
            .map(|first| {
                let last = (first + rows).min(extent);
                let mut product = index.product.clone();
                product.k = (last - first) * per_row;
                product.a.offset += first * per_row * product.a.depth;
                product.b.offset += first * per_row * product.b.depth;
                DepthChunk {
                    rows: (index.pack_rows.iter())
                        .map(|&r| if r > 0 { [first, last] } else { [0, 0] })
                        .collect(),
                    product,
                }
            })
            .collect()
    }
}

impl ByIndex {
    /// The tasks' slots in the workspace buffers `spaces` (of `sizes` bytes: each pack's,
    /// then the product's, `tasks` slots each); `pointers` holds the inputs (the first
    /// `inputs`), then the output; `epilogue` the epilogue's buffers, the product's
    /// among them.
    fn new(
        mm: &MatMul,
        stream: &Stream,
        packs: &[Compiled],
        (pointers, inputs, epilogue_buffers): (&[*mut u8], usize, &[*mut u8]),
        (spaces, sizes): (&[*mut u8], &[usize]),
    ) -> std::result::Result<ByIndex, BackendError> {
        let tasks = stream.tasks;
        // A pack of one index has a slot per task; a whole one, its buffer.
        let slot = |w: usize, t: usize| match stream.packs_by_index.get(w) {
            Some(false) => spaces[w],
            _ => spaces[w].wrapping_add(sizes[w] / tasks * t),
        };
        let unsplit = || BackendError::Call("a streamed product has no such loop".into());
        let operand = |input: usize, t: usize| {
            (input >= inputs).then(|| slot(input - inputs, t) as *const u8)
        };
        // Along a sum, the products of every index add up in the whole product.
        let epilogue = spaces.len() > packs.len() && stream.along == Along::Split;
        let partials = match (stream.along, spaces.last(), sizes.last()) {
            (Along::Sum, Some(&space), Some(&size)) if tasks > 1 => (1..tasks)
                .map(|t| space.wrapping_add(size / (tasks - 1) * (t - 1)))
                .collect(),
            _ => vec![],
        };
        let chunks = Chunk::of_index(mm, stream, packs)?;
        let depth_chunks = match partials.is_empty() {
            true => vec![],
            false => DepthChunk::of_index(&chunks[0], stream.depth_rows),
        };
        Ok(ByIndex {
            packs_by_index: stream.packs_by_index.clone(),
            along: stream.along,
            tasks,
            outer: mm.loop_along(stream.along).ok_or_else(unsplit)?,
            chunks,
            pack_buffers: (0..tasks)
                .map(|t| {
                    (0..packs.len())
                        .map(|j| {
                            pointers[..inputs]
                                .iter()
                                .copied()
                                .chain([slot(j, t)])
                                .collect()
                        })
                        .collect()
                })
                .collect(),
            operand_slots: (0..tasks)
                .map(|t| [operand(mm.a.input, t), operand(mm.b.input, t)])
                .collect(),
            product_slots: (0..tasks)
                .map(|t| epilogue.then(|| slot(packs.len(), t)))
                .collect(),
            epilogue_buffers: (0..tasks)
                .map(|t| {
                    let mut buffers = epilogue_buffers.to_vec();
                    if epilogue {
                        buffers[inputs] = slot(packs.len(), t);
                    }
                    buffers
                })
                .collect(),
            partials,
            depth_chunks,
        })
    }
}

/// A chunk of an index's products ([`Stream::chunks`]); an index packed whole is
/// one chunk.
struct Chunk {
    /// The pack kernels' dimensions after the index: the chunk's first row and its rows.
    rows_at: [i64; 2],
    /// Outermost-loop iterations each pack kernel runs (0 for a whole operand's).
    pack_rows: Vec<i64>,
    /// The chunk's products, from the start of its packed operand's slot.
    product: MatMul,
    /// Elements from the index's output (product slot) to the chunk's.
    out: i64,
}

impl Chunk {
    /// The chunks of an index of `mm` under `stream`, packed by `packs`.
    fn of_index(
        mm: &MatMul,
        stream: &Stream,
        packs: &[Compiled],
    ) -> std::result::Result<Vec<Chunk>, BackendError> {
        let unsplit = || BackendError::Call("a streamed product has no such loop".into());
        let per_index = mm.per_index(stream.along).ok_or_else(unsplit)?;
        let mut pack_rows = (packs.iter().zip(&stream.packs_by_index))
            .map(|((k, _), &one)| match one {
                true => Ok(k.rows(&[0, 0, 0])?.map_or(1, |(rows, _)| rows)),
                false => Ok(0),
            })
            .collect::<std::result::Result<Vec<i64>, BackendError>>()?;
        let Some(chunks) = stream.chunks else {
            return Ok(vec![Chunk {
                rows_at: [0, 0],
                pack_rows,
                product: per_index,
                out: 0,
            }]);
        };
        let inputs = mm.packs[chunks.pack].inputs.len();
        (chunks.starts())
            .map(|first| {
                let (product, out) = (chunks.product(&per_index, inputs, first))
                    .ok_or_else(|| BackendError::Call("a chunk of no operand".into()))?;
                let rows = chunks.rows_at(first);
                let (pack, _) = &packs[chunks.pack];
                pack_rows[chunks.pack] = pack.rows(&[0, first, rows])?.map_or(1, |(r, _)| r);
                Ok(Chunk {
                    rows_at: [first, rows],
                    pack_rows: pack_rows.clone(),
                    product,
                    out,
                })
            })
            .collect()
    }
}

// SAFETY: the pointers address the product operation's held arrays and workspace; each
// task writes only its own slots and its own indices of the output.
unsafe impl Send for ByIndex {}
// SAFETY: as for Send: tasks share the pointers but each writes only its own slots and
// indices.
unsafe impl Sync for ByIndex {}

/// What a product operation holds: its kernels and every buffer's address, taken at
/// bind.
struct ProductCall {
    winograd: Option<WinogradCall>,
    product: MatMul,
    packs: Vec<Compiled>,
    /// Packs gemm gathers from their input instead (their kernels do not run).
    gathers: Vec<Option<Gather>>,
    epilogue: Option<Compiled>,
    /// Where the product runs index by index.
    by_index: Option<ByIndex>,
    /// Profile names of the packs, of the products with their epilogues, of the
    /// epilogue, and of one index's products where the product streams.
    phases: [Arc<str>; 5],
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
    /// A streamed product's operands at index `i` for task `t`: the task's slot where an
    /// operand is packed, else the input at the index (addresses only; nothing is read).
    fn operands_at(&self, s: &ByIndex, t: usize, i: i64) -> [*const u8; 2] {
        let size = self.product.dtype.size() as i64;
        let at = |slot: Option<*const u8>, input: usize, stride: i64| {
            slot.unwrap_or_else(|| self.operands[input].wrapping_add((i * stride * size) as usize))
        };
        let [a, b] = s.operand_slots[t];
        [
            at(a, self.product.a.input, s.outer.a),
            at(b, self.product.b.input, s.outer.b),
        ]
    }

    /// The packs of whole operands, into their buffers, before a streamed product's loop.
    fn run_whole_packs(&self, s: &ByIndex) -> Result<(), BackendError> {
        let whole = (self.packs.iter().zip(&s.pack_buffers[0])).zip(&s.packs_by_index);
        for (((kernel, dims), buffers), _) in whole.filter(|(_, &one)| !one) {
            // SAFETY: the pack reads the held inputs and writes its own buffer.
            unsafe { backend::run(&**kernel, buffers, dims)? };
        }
        Ok(())
    }

    /// Each task's block of the split loop, one index at a time, chunk by chunk: its
    /// packs into the task's slots, its products (into the task's product slot where an
    /// epilogue follows); then the epilogue of that index. Profiled as one phase (`gemm`),
    /// and each index's packs, products and epilogue as their own (`pack0`, `product`,
    /// `epilogue`) on the thread that ran them.
    fn run_by_index(&self, s: &ByIndex) -> Result<(), BackendError> {
        let start = crate::profiler::enabled().then(std::time::Instant::now);
        let clock = PhaseClock {
            profiling: start.is_some(),
        };
        self.run_whole_packs(s)?;
        let size = self.product.dtype.size();
        let extent = s.outer.extent;
        crate::cpu::pool::global().run(s.tasks, &|t| {
            let (lo, hi) = (
                extent * t as i64 / s.tasks as i64,
                extent * (t as i64 + 1) / s.tasks as i64,
            );
            let epilogue_buffers = &s.epilogue_buffers[t];
            for i in lo..hi {
                let offset =
                    |p: *const u8, stride: i64| p.wrapping_add((i * stride) as usize * size);
                for chunk in &s.chunks {
                    let [first, chunk_rows] = chunk.rows_at;
                    let packing = clock.now();
                    // SAFETY: each task packs into its own slots, which hold one chunk's
                    // block; the operands, the output and the chunk's products are the
                    // held buffers at that index and chunk (the kernels' own index
                    // ranges); tasks write disjoint indices of the output.
                    unsafe {
                        let packs =
                            (self.packs.iter()).zip(s.pack_buffers[t].iter().zip(&chunk.pack_rows));
                        // Whole operands (no rows here) were packed before the loop.
                        for ((kernel, _), (buffers, &rows)) in
                            packs.filter(|(_, (_, &rows))| rows > 0)
                        {
                            kernel.run_range(buffers, &[i, first, chunk_rows], 0, rows);
                        }
                        let [a, b] = self.operands_at(s, t, i);
                        let out = s.product_slots[t]
                            .unwrap_or_else(|| offset(self.dst, s.outer.out) as *mut u8)
                            .wrapping_add(chunk.out as usize * size);
                        clock.done(&self.phases[0], packing);
                        let multiplying = clock.now();
                        crate::cpu::matmul::run_here(&chunk.product, a, b, out, false);
                        clock.done(&self.phases[4], multiplying);
                    }
                }
                if let Some((kernel, dims)) = &self.epilogue {
                    let applying = clock.now();
                    // SAFETY: the epilogue reads the task's product slot (or the output)
                    // at this index, which its products have written, and writes the
                    // output there.
                    unsafe { kernel.run_range(epilogue_buffers, dims, i, i + 1) };
                    clock.done(&self.phases[3], applying);
                }
            }
        });
        if let Some(start) = start {
            crate::profiler::record(&self.phases[2], start, 0);
        }
        Ok(())
    }

    /// The summed loop one index after another: its packs into the slots, then its
    /// products added into the product, each split over the pool (or each task its
    /// share of the indices on its own thread, [`ProductCall::run_shared_sum`]); the
    /// epilogue once at the end. Profiled as one phase.
    fn run_by_sum(&self, s: &ByIndex) -> Result<(), BackendError> {
        let start = crate::profiler::enabled().then(std::time::Instant::now);
        self.run_whole_packs(s)?;
        match s.tasks {
            1 => self.run_sum_in_turn(s)?,
            _ => self.run_shared_sum(s),
        }
        if let Some((kernel, dims)) = &self.epilogue {
            // SAFETY: the epilogue's buffers are the held arrays and the product.
            unsafe { backend::run(&**kernel, &self.epilogue_buffers, dims)? };
        }
        if let Some(start) = start {
            crate::profiler::record(&self.phases[2], start, 0);
        }
        Ok(())
    }

    /// Each task its share of the summed indices, packed into its slots and multiplied
    /// on its own thread into its partial product (the first task's is the product), an
    /// index chunk of depth by chunk; then the partials added into the product. Each
    /// chunk's packs and products are profiled as phases of their own (`pack0`,
    /// `product`) on the thread that ran them.
    fn run_shared_sum(&self, s: &ByIndex) {
        let clock = PhaseClock {
            profiling: crate::profiler::enabled(),
        };
        let extent = s.outer.extent;
        let product = &s.chunks[0].product;
        crate::cpu::pool::global().run(s.tasks, &|t| {
            let (lo, hi) = (
                extent * t as i64 / s.tasks as i64,
                extent * (t as i64 + 1) / s.tasks as i64,
            );
            let out = match t {
                0 => self.dst,
                _ => s.partials[t - 1],
            };
            for i in lo..hi {
                let [a, b] = self.operands_at(s, t, i);
                // SAFETY: each task packs into its own slots, which hold one index's
                // block, and sums into its own partial product (the first, the product);
                // the operands are the held buffers at that index.
                unsafe {
                    for (c, chunk) in s.depth_chunks.iter().enumerate() {
                        let packing = clock.now();
                        let packs = (self.packs.iter()).zip(&s.pack_buffers[t]);
                        for (((kernel, _), buffers), &[first, last]) in packs.zip(&chunk.rows) {
                            if last > first {
                                kernel.run_range(buffers, &[i], first, last);
                            }
                        }
                        clock.done(&self.phases[0], packing);
                        let multiplying = clock.now();
                        crate::cpu::matmul::run_here(&chunk.product, a, b, out, i > lo || c > 0);
                        clock.done(&self.phases[4], multiplying);
                    }
                }
            }
        });
        // SAFETY: the product and the partials are laid out alike, each written by its
        // task above.
        unsafe { crate::cpu::matmul::add_partials(product, self.dst, &s.partials) };
    }

    /// The summed loop one index after another, each index's packs and product split
    /// over the pool.
    fn run_sum_in_turn(&self, s: &ByIndex) -> Result<(), BackendError> {
        for i in 0..s.outer.extent {
            // SAFETY: the packs write the slots, which hold one index's block; the
            // operands are the held buffers at that index, the product the held output
            // (or its workspace), which no operand overlaps.
            unsafe {
                let packs = self.packs.iter().zip(&s.pack_buffers[0]);
                for ((kernel, _), buffers) in packs
                    .zip(&s.packs_by_index)
                    .filter_map(|(p, &one)| one.then_some(p))
                {
                    backend::run(&**kernel, buffers, &[i])?;
                }
                let [a, b] = self.operands_at(s, 0, i);
                crate::cpu::matmul::run_adding(&s.chunks[0].product, a, b, self.dst, i > 0);
            }
        }
        Ok(())
    }

    fn run(&self) -> Result<(), BackendError> {
        match &self.by_index {
            Some(s) if s.along == Along::Split => return self.run_by_index(s),
            Some(s) => return self.run_by_sum(s),
            None => {}
        }
        for (j, (kernel, dims)) in self.packs.iter().enumerate() {
            if self.gathers[j].is_some() {
                continue;
            }
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
            // SAFETY: the operands are the held inputs; `dst` holds the output's bytes, or
            // a block's where it streams; the epilogue's blocks are disjoint.
            Some(w) => unsafe {
                w.run(
                    &self.operands,
                    self.dst,
                    &|lo, hi| match (&self.epilogue, w.block) {
                        (Some((kernel, dims)), Some(_)) => backend::run_rows(
                            &**kernel,
                            epilogue_buffers.get(),
                            dims,
                            Some((lo, hi)),
                        ),
                        _ => Ok(()),
                    },
                )?;
                if w.block.is_none() {
                    epilogue(None);
                }
            },
            // SAFETY: the pointers hold the kernel's buffers and the packed operands; the
            // layout never places a product's output over its operands.
            None => unsafe {
                let n = self.operands.len() - self.packs.len();
                let gather =
                    |input: usize| (input.checked_sub(n)).and_then(|j| self.gathers[j].as_ref());
                let gathers = [gather(self.product.a.input), gather(self.product.b.input)];
                crate::cpu::matmul::run(&self.product, &self.operands, gathers, self.dst, &epilogue)
            },
        }
        if let Some(start) = start {
            crate::profiler::record(&self.phases[2], start, 0);
        }
        failed.into_inner().map_or(Ok(()), Err)
    }
}

/// Times the phases a streamed product's tasks run, where the profiler runs.
#[derive(Clone, Copy)]
struct PhaseClock {
    profiling: bool,
}

impl PhaseClock {
    /// A phase's start (`None` where not profiling).
    fn now(self) -> Option<std::time::Instant> {
        self.profiling.then(std::time::Instant::now)
    }

    /// Records phase `name` from `from`.
    fn done(self, name: &Arc<str>, from: Option<std::time::Instant>) {
        if let Some(from) = from {
            crate::profiler::record(name, from, 0);
        }
    }
}

// SAFETY: the pointers address the held arrays and workspace views, whose accesses the
// engine orders.
unsafe impl Send for ProductCall {}
// SAFETY: as for Send: the engine orders every access through the pointers.
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
// SAFETY: as for Send: the engine orders every access through the pointers.
unsafe impl Sync for KernelCall {}

/// Writes (or adds) `from`'s values into `to`: a byte copy, or an add in place, when
/// the dtypes agree (no allocation, as a training step needs); through tensors otherwise
/// (which may not find the memory).
///
/// # Safety
/// As [`NDArray::bytes`] for `from` and [`NDArray::bytes_mut`] for `to`.
unsafe fn store_values(
    from: &NDArray,
    to: &NDArray,
    add: bool,
) -> std::result::Result<(), AllocError> {
    fn add_into<T: Copy + std::ops::AddAssign>(to: &mut [u8], from: &[u8]) -> bool {
        // SAFETY: any bytes are valid floats; the middle parts are aligned.
        let (head, dst, _) = unsafe { to.align_to_mut::<T>() };
        // SAFETY: as above: any bytes are valid floats; only an aligned middle is used (a
        // misaligned head returns false).
        let (head2, src, _) = unsafe { from.align_to::<T>() };
        if !head.is_empty() || !head2.is_empty() || dst.len() != src.len() {
            return false;
        }
        dst.iter_mut().zip(src).for_each(|(d, s)| *d += *s);
        true
    }
    let same = from.dtype() == to.dtype();
    // SAFETY: `store_values`'s contract: `bytes`' for `from`, `bytes_mut`'s for `to`.
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
        // SAFETY: `bytes`' part of `store_values`'s contract, for `from`.
        let mut value = unsafe { from.read_tensor() }?;
        if add {
            // SAFETY: `to` is used exclusively (the `bytes_mut` part of the contract), so reading
            // it is sound; `dst` is no longer used.
            let old = unsafe { to.read_tensor() }?;
            value
                .data
                .iter_mut()
                .zip(&old.data)
                .for_each(|(v, o)| *v += o);
        }
        // SAFETY: the `bytes_mut` part of the contract, for `to`.
        unsafe { to.write_tensor(&value) };
    }
    Ok(())
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
            unsafe { store_values(&from, &to, add) }.map_err(|e| e.to_string())
        })
        .with_bytes(bytes))
}
