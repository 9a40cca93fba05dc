//! The Executor: a symbol bound to arrays on a device, run on the engine.
//!
//! Binding infers every shape and dtype, builds the training graph when gradients are
//! requested ([`kiln_compiler::autodiff`]), allocates an array per entry, and pre-creates
//! one engine operation per unit (a compiled kernel, a product, a native or reference
//! node; MXNet's `NewOperator`), reading its input arrays and writing its outputs, grouped
//! into segments of up to 16 (MXNet's bulk execution); backward segments end where a
//! gradient or aux state is complete. [`Executor::forward`] and [`Executor::backward`]
//! push them and return at once, so imperative updates of the same arrays (`w -= lr * g`)
//! interleave in the right order, and an update pushed with a higher priority runs as
//! soon as its gradient is ready, while backward goes on.

mod ops;

use crate::device::Device;
use crate::engine::{Engine, Operator};
use crate::ndarray::NDArray;
use crate::units::{units, Backend, BatchShapes, Unit};
use kiln_compiler::autodiff::{differentiate, GradReq, TrainingGraph};
use kiln_compiler::infer::infer;
use kiln_compiler::{Entry, Error, Graph, NodeId, Result, Symbol};
use kiln_ops::shape::{fmt_shape, is_known};
use kiln_ops::{DType, Shape};
#[cfg(feature = "llvm")]
use ops::{kernel_operator, matmul_operator};
use ops::{node_operator, store, NodeRun};
use std::collections::HashMap;
use std::sync::Arc;

/// Which arguments get gradients, and how.
#[derive(Clone, Debug)]
pub enum GradReqs {
    /// The same for every argument.
    All(GradReq),
    /// Per argument name; arguments not listed get none.
    Each(HashMap<String, GradReq>),
}

impl GradReqs {
    fn get(&self, name: &str) -> GradReq {
        match self {
            GradReqs::All(r) => *r,
            GradReqs::Each(m) => m.get(name).copied().unwrap_or(GradReq::Null),
        }
    }
}

/// A bound symbol. Cloning gives another handle to the same arrays.
#[derive(Clone)]
pub struct Executor {
    symbol: Symbol,
    device: Device,
    binding: Binding,
    arg_names: Vec<String>,
    aux_names: Vec<String>,
    args: Vec<NDArray>,
    grads: Vec<Option<NDArray>>,
    aux: Vec<NDArray>,
    outputs: Vec<NDArray>,
    head_grads: Vec<Option<NDArray>>,
    plan: Arc<Plan>,
    /// What the operations run, and what the inference forward pass runs (it differs
    /// where BatchNorm expands with its moving statistics).
    units: UnitCounts,
    inference_units: UnitCounts,
    /// Bytes of the arena and of the heads' own arrays.
    memory: (usize, usize),
}

/// How many of an executor's operations are compiled kernels, gemm products (with
/// compiled epilogues), library nodes on native kernels and nodes on their reference
/// kernels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnitCounts {
    pub kernels: usize,
    pub products: usize,
    /// Of the products, convolutions run with Winograd's algorithm.
    pub winograd: usize,
    /// Library nodes on their native f32 kernels.
    pub native: usize,
    pub nodes: usize,
}

impl UnitCounts {
    fn of(units: &[Unit]) -> UnitCounts {
        let mut c = UnitCounts::default();
        for u in units {
            match u {
                Unit::Node(_) => c.nodes += 1,
                #[cfg(feature = "llvm")]
                Unit::Native(_) => c.native += 1,
                #[cfg(feature = "llvm")]
                Unit::Kernel(_) => c.kernels += 1,
                #[cfg(feature = "llvm")]
                Unit::MatMul(m) => {
                    c.products += 1;
                    c.winograd += usize::from(m.winograd.is_some());
                }
            }
        }
        c
    }
}

impl std::fmt::Display for UnitCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} compiled kernels, {} gemm products ({} Winograd), {} native nodes, {} \
             reference nodes",
            self.kernels, self.products, self.winograd, self.native, self.nodes
        )
    }
}

/// How an executor was bound: gradient requests, backend, and the batch inputs (the
/// inputs whose first axis is the batch size, as MXNet's data and label shapes): compiled
/// kernels take the batch size as a symbolic dimension where they are linear in it, so a
/// reshape to another batch size reuses them.
#[derive(Clone)]
struct Binding {
    reqs: GradReqs,
    backend: Backend,
    batch_inputs: Vec<String>,
}

/// The pre-created operations of a bound executor.
struct Plan {
    forward_train: Vec<Arc<Operator>>,
    forward_infer: Vec<Arc<Operator>>,
    /// Backward nodes, then gradient writes, then aux updates.
    backward: Vec<Arc<Operator>>,
}

fn engine() -> &'static Engine {
    Engine::global()
}

/// Operations per engine segment at most (MXNet's default bulk size is 15).
const SEGMENT_OPS: usize = 16;

/// `ops` as segments of consecutive operations (MXNet's bulk execution: fewer pushes and
/// dependency checks), each ending after an operation that writes a variable of `ends` or
/// after [`SEGMENT_OPS`] operations; a segment of one is the operation itself.
fn segments(name: &str, ops: Vec<Arc<Operator>>, ends: &[u64]) -> Vec<Arc<Operator>> {
    let mut out = Vec::new();
    let mut current: Vec<Arc<Operator>> = Vec::new();
    let count = ops.len();
    for (i, op) in ops.into_iter().enumerate() {
        let end = op.writes().iter().any(|v| ends.contains(&v.id()));
        current.push(op);
        if end || current.len() == SEGMENT_OPS || i + 1 == count {
            let mut ops = std::mem::take(&mut current);
            out.push(match ops.len() {
                1 => ops.remove(0),
                n => engine().new_segment(&format!("{name}[{}..{}]", i + 1 - n, i + 1), ops),
            });
        }
    }
    out
}

impl Executor {
    /// Binds with arrays allocated (zero-filled) from the given input shapes, MXNet's
    /// `simple_bind`.
    pub fn simple_bind(
        symbol: &Symbol,
        device: Device,
        shapes: &[(&str, &[usize])],
        reqs: GradReqs,
    ) -> Result<Executor> {
        let inferred = symbol.infer_shape(shapes)?;
        let (arg_types, _, aux_types) = symbol.infer_type(&[])?;
        let zeros = |s: &[usize], d: DType| NDArray::zeros(s, d, device);
        let args: Vec<NDArray> = inferred
            .arguments
            .iter()
            .zip(&arg_types)
            .map(|(s, &d)| zeros(s, d))
            .collect::<Result<_>>()?;
        let aux: Vec<NDArray> = inferred
            .aux_states
            .iter()
            .zip(&aux_types)
            .map(|(s, &d)| zeros(s, d))
            .collect::<Result<_>>()?;
        let grads: Vec<Option<NDArray>> = symbol
            .list_arguments()
            .iter()
            .zip(&args)
            .map(|(n, a)| match reqs.get(n) {
                GradReq::Null => Ok(None),
                _ => zeros(a.shape(), a.dtype()).map(Some),
            })
            .collect::<Result<_>>()?;
        let binding = Binding {
            reqs,
            backend: Backend::from_env(),
            batch_inputs: shapes.iter().map(|(n, _)| n.to_string()).collect(),
        };
        Executor::build(symbol, device, args, grads, aux, binding, None)
    }

    /// Binds to the caller's arrays (every argument and aux state by name; gradient arrays
    /// for the arguments whose grad_req is not null), MXNet's `bind`. The batch inputs are
    /// `data` and the arguments named `*label`.
    pub fn bind(
        symbol: &Symbol,
        device: Device,
        args: &HashMap<String, NDArray>,
        grads: &HashMap<String, NDArray>,
        aux: &HashMap<String, NDArray>,
        reqs: GradReqs,
    ) -> Result<Executor> {
        let take = |map: &HashMap<String, NDArray>,
                    names: Vec<String>,
                    what: &str|
         -> Result<Vec<NDArray>> {
            names
                .iter()
                .map(|n| {
                    map.get(n)
                        .cloned()
                        .ok_or_else(|| Error::Input(format!("bind: no array for {what} `{n}`")))
                })
                .collect()
        };
        let arg_arrays = take(args, symbol.list_arguments(), "argument")?;
        let aux_arrays = take(aux, symbol.list_auxiliary_states(), "aux state")?;
        let grad_arrays = symbol
            .list_arguments()
            .iter()
            .map(|n| match reqs.get(n) {
                GradReq::Null => Ok(None),
                _ => grads
                    .get(n)
                    .cloned()
                    .map(Some)
                    .ok_or_else(|| Error::Input(format!("bind: no gradient array for `{n}`"))),
            })
            .collect::<Result<_>>()?;
        let batch_inputs = symbol
            .list_arguments()
            .into_iter()
            .filter(|n| n == "data" || n.ends_with("label"))
            .collect();
        let binding = Binding {
            reqs,
            backend: Backend::from_env(),
            batch_inputs,
        };
        Executor::build(
            symbol,
            device,
            arg_arrays,
            grad_arrays,
            aux_arrays,
            binding,
            None,
        )
    }

    /// The same arrays bound again with another backend (to compare them, or to time
    /// one against the other).
    pub fn rebind(&self, backend: Backend) -> Result<Executor> {
        let binding = Binding {
            backend,
            ..self.binding.clone()
        };
        Executor::build(
            &self.symbol,
            self.device,
            self.args.clone(),
            self.grads.clone(),
            self.aux.clone(),
            binding,
            None,
        )
    }

    /// Bytes the executor allocated for what its operations write: the arena (every
    /// intermediate entry, reused by lifetime) and the heads' own arrays.
    pub fn memory(&self) -> (usize, usize) {
        self.memory
    }

    /// The backend the operations run on, and what they run (in training).
    pub fn backend(&self) -> (Backend, UnitCounts) {
        (self.binding.backend, self.units)
    }

    /// What the inference forward pass runs: on the JIT, operators that compute something
    /// else in inference (BatchNorm with its moving statistics) expand and compile there,
    /// in a plan of their own with its own arena.
    pub fn inference_units(&self) -> UnitCounts {
        self.inference_units
    }

    /// The executor of `symbol` on these arrays; with `inference_outputs`, the plan of an
    /// inference-only forward pass (operators expanded as inference computes them)
    /// writing those arrays.
    fn build(
        symbol: &Symbol,
        device: Device,
        args: Vec<NDArray>,
        grads: Vec<Option<NDArray>>,
        aux: Vec<NDArray>,
        binding: Binding,
        inference_outputs: Option<&[NDArray]>,
    ) -> Result<Executor> {
        let null = GradReqs::All(GradReq::Null);
        let reqs = match inference_outputs {
            Some(_) => &null,
            None => &binding.reqs,
        };
        let arg_names = symbol.list_arguments();
        let aux_names = symbol.list_auxiliary_states();
        let backend = match device {
            Device::Cpu => binding.backend,
            Device::Cuda(_) => Backend::Interpreter,
        };
        // Shapes and dtypes of the variables, from the bound arrays.
        let variables = || {
            arg_names
                .iter()
                .zip(&args)
                .chain(aux_names.iter().zip(&aux))
        };
        let shapes: HashMap<String, Shape> = variables()
            .map(|(n, a)| (n.clone(), a.shape().to_vec()))
            .collect();
        let dtypes: HashMap<String, DType> =
            variables().map(|(n, a)| (n.clone(), a.dtype())).collect();
        let mut forward = symbol.to_graph()?;
        // Whether inference needs a plan of its own: it expands more operators.
        let mut separate_inference = false;
        if backend == Backend::Jit {
            // Operators that expand into ones the JIT compiles (softmax; BatchNorm in
            // inference) do so before differentiation, so their gradients compile too.
            let inferred = infer(&forward, &shapes, &dtypes)?;
            let expand = |training| kiln_compiler::passes::Expand {
                training,
                inferred: Some(&inferred),
            };
            let (out, expanded) = expand(inference_outputs.is_none()).expand(&forward)?;
            separate_inference =
                inference_outputs.is_none() && expand(false).expand(&forward)?.1 > expanded;
            forward = out.graph;
        }
        let req_map: HashMap<String, GradReq> =
            arg_names.iter().map(|n| (n.clone(), reqs.get(n))).collect();
        let training = if req_map.values().any(|r| *r != GradReq::Null) {
            differentiate(&forward, &req_map, true)?
        } else {
            TrainingGraph {
                forward_nodes: forward.len(),
                num_outputs: forward.heads.len(),
                graph: forward,
                grads: vec![],
                aux_updates: vec![],
                head_grads: vec![],
            }
        };
        let g = &training.graph;
        // Every variable's array, by node, matched by name (an expansion may turn an aux
        // state into a plain input, which moves it among the graph's arguments).
        let by_name: HashMap<&String, &NDArray> = variables().collect();
        let mut bound: HashMap<NodeId, NDArray> = HashMap::new();
        for id in g.node_ids().filter(|&id| g.node(id).is_variable()) {
            if let Some(a) = by_name.get(&g.node(id).name) {
                bound.insert(id, (*a).clone());
            }
        }
        let inferred = infer(g, &shapes, &dtypes)?;
        let mut head_arrays: Vec<Option<NDArray>> = Vec::new();
        for h in &training.head_grads {
            head_arrays.push(match h {
                Some(id) => {
                    let e = Entry {
                        node: *id,
                        index: 0,
                    };
                    let a = NDArray::zeros(
                        inferred.shape(e),
                        inferred.dtype(e).unwrap_or(DType::F32),
                        device,
                    )?;
                    bound.insert(*id, a.clone());
                    Some(a)
                }
                None => None,
            });
        }
        for id in g.node_ids().filter(|&id| !g.node(id).is_variable()) {
            for (index, s) in inferred.shapes[id.index()].iter().enumerate() {
                if !is_known(s) {
                    return Err(Error::Shape(format!(
                        "{}: output {index} has unknown shape {}",
                        g.node(id).describe(),
                        fmt_shape(s)
                    )));
                }
            }
        }
        let batch = (backend == Backend::Jit)
            .then(|| batch_shapes(g, &shapes, &dtypes, &binding.batch_inputs))
            .flatten();
        let units = units(
            g,
            &inferred,
            backend,
            training.forward_nodes,
            batch.as_ref(),
        )
        .map_err(|e| Error::Input(format!("bind: {e}")))?;
        let counts = UnitCounts::of(&units);
        // Variables are their bound arrays; what the units write lives in the arena.
        let placement = crate::arena::place(g, &inferred, &units, device)?;
        let memory = (placement.arena_bytes, placement.separate_bytes);
        let mut arrays = placement.arrays;
        for id in g.node_ids().filter(|&id| g.node(id).is_variable()) {
            let a = bound.get(&id).cloned().ok_or_else(|| {
                Error::Input(format!("bind: variable `{}` has no array", g.node(id).name))
            })?;
            arrays.insert(Entry { node: id, index: 0 }, a);
        }
        if let Some(given) = inference_outputs {
            for (e, a) in g.heads.iter().zip(given) {
                arrays.insert(*e, a.clone());
            }
        }
        // A written (not added) gradient that a unit computes, and that is no other
        // head, is computed straight into the caller's gradient array: no copy.
        let grad_array = |id: NodeId| {
            let name = &g.node(id).name;
            let slot = arg_names.iter().position(|n| n == name);
            slot.and_then(|i| grads[i].clone())
                .ok_or_else(|| Error::Input(format!("no gradient array for `{name}`")))
        };
        let mut direct = vec![false; training.grads.len()];
        for (k, &(id, req)) in training.grads.iter().enumerate() {
            let e = training.grad_entry(k);
            let once = g.heads.iter().filter(|&&h| h == e).count() == 1;
            if req == GradReq::Write && once && !g.node(e.node).is_variable() {
                arrays.insert(e, grad_array(id)?);
                direct[k] = true;
            }
        }
        let entry = |e: &Entry| -> Result<NDArray> {
            arrays.get(e).cloned().ok_or_else(|| {
                Error::Input(format!(
                    "bind: output {} of `{}` has no array",
                    e.index,
                    g.node(e.node).name
                ))
            })
        };
        let outputs: Vec<NDArray> = g.heads[..training.num_outputs]
            .iter()
            .map(entry)
            .collect::<Result<_>>()?;
        let seed = crate::ndarray::random::next_key().0;
        let rng = engine().new_var();
        let (mut forward_train, mut forward_infer, mut backward) = (vec![], vec![], vec![]);
        for unit in &units {
            let forward = unit.is_forward(training.forward_nodes);
            let inputs = unit
                .inputs(g)
                .iter()
                .map(entry)
                .collect::<Result<Vec<_>>>()?;
            let outputs = unit
                .outputs(&inferred)
                .iter()
                .map(entry)
                .collect::<Result<Vec<_>>>()?;
            // A forward operation goes into both forward lists, made for its mode (a node
            // runs its kernel in the mode it is pushed in; a compiled one is the same);
            // a backward one into the backward list.
            let mut plan = |op: &dyn Fn(bool) -> Arc<Operator>| {
                if forward {
                    forward_train.push(op(true));
                    forward_infer.push(op(false));
                } else {
                    backward.push(op(true));
                }
            };
            let node = |native: bool| {
                let id = unit.nodes()[0];
                let (inputs, outputs, rng, inferred) = (&inputs, &outputs, &rng, &inferred);
                move |is_train| {
                    let run = NodeRun {
                        id,
                        inputs: inputs.clone(),
                        outputs: outputs.clone(),
                        is_train,
                        native,
                        seed,
                        rng,
                    };
                    node_operator(g, inferred, run)
                }
            };
            match unit {
                Unit::Node(_) => plan(&node(false)),
                #[cfg(feature = "llvm")]
                Unit::Native(_) => plan(&node(true)),
                #[cfg(feature = "llvm")]
                Unit::Kernel(k) => {
                    let op = kernel_operator(k, inputs.clone(), outputs.clone());
                    plan(&|_| op.clone())
                }
                #[cfg(feature = "llvm")]
                Unit::MatMul(m) => {
                    let op = matmul_operator(m, inputs.clone(), outputs.clone());
                    plan(&|_| op.clone())
                }
            }
        }
        for (k, &(id, req)) in training.grads.iter().enumerate() {
            if direct[k] {
                continue;
            }
            backward.push(store(
                &format!("grad {}", g.node(id).name),
                &entry(&training.grad_entry(k))?,
                &grad_array(id)?,
                req == GradReq::Add,
            )?);
        }
        for (k, &id) in training.aux_updates.iter().enumerate() {
            let target = bound[&id].clone();
            backward.push(store(
                &format!("update {}", g.node(id).name),
                &entry(&training.aux_entry(k))?,
                &target,
                false,
            )?);
        }
        let mut memory = memory;
        let mut inference_units = counts;
        if separate_inference {
            let inference = Executor::build(
                symbol,
                device,
                args.clone(),
                vec![None; args.len()],
                aux.clone(),
                binding.clone(),
                Some(&outputs),
            )?;
            forward_infer = inference.plan.forward_infer.clone();
            memory.0 += inference.memory.0;
            inference_units = inference.units;
        }
        // Backward segments end where a gradient or an aux state is complete, so work
        // waiting for it (an update, a copy, a push) can start while backward goes on.
        let done: Vec<u64> = (grads.iter().flatten().chain(&aux))
            .map(|a| a.var().id())
            .collect();
        let plan = Plan {
            forward_train: segments("forward", forward_train, &[]),
            forward_infer: if separate_inference {
                forward_infer
            } else {
                segments("forward", forward_infer, &[])
            },
            backward: segments("backward", backward, &done),
        };
        Ok(Executor {
            symbol: symbol.clone(),
            device,
            binding,
            arg_names,
            aux_names,
            args,
            grads,
            aux,
            outputs,
            head_grads: head_arrays,
            plan: Arc::new(plan),
            units: counts,
            inference_units,
            memory,
        })
    }

    /// Pushes the forward pass (training mode: BatchNorm uses batch statistics, Dropout
    /// drops). Returns at once; read [`Executor::outputs`] to wait.
    pub fn forward(&self, is_train: bool) {
        let ops = if is_train {
            &self.plan.forward_train
        } else {
            &self.plan.forward_infer
        };
        ops.iter().for_each(|op| engine().push(op, 0));
    }

    /// Copies `inputs` (by argument name) into the bound arrays, then runs forward.
    pub fn forward_with(&self, is_train: bool, inputs: &[(&str, &NDArray)]) -> Result<()> {
        for (name, a) in inputs {
            let i = self
                .arg_names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| Error::Input(format!("forward: no argument named `{name}`")))?;
            self.args[i].copy_from(a)?;
        }
        self.forward(is_train);
        Ok(())
    }

    /// Pushes the backward pass: gradients into the gradient arrays (written or added per
    /// grad_req) and, for BatchNorm in training, the moving statistics into the aux arrays.
    /// `head_grads` holds one array per non-loss output (loss outputs need none).
    pub fn backward(&self, head_grads: &[NDArray]) -> Result<()> {
        let needed = self.head_grads.iter().flatten();
        if head_grads.len() != needed.clone().count() {
            let outs = self.symbol.list_outputs();
            return Err(Error::Input(format!(
                "backward: {} head gradients given, but the outputs need {} (outputs: {}; loss outputs need none)",
                head_grads.len(),
                needed.count(),
                outs.join(", ")
            )));
        }
        for (dst, src) in needed.zip(head_grads) {
            dst.copy_from(src)?;
        }
        self.plan
            .backward
            .iter()
            .for_each(|op| engine().push(op, 0));
        Ok(())
    }

    pub fn outputs(&self) -> &[NDArray] {
        &self.outputs
    }
    pub fn arg_arrays(&self) -> &[NDArray] {
        &self.args
    }
    pub fn grad_arrays(&self) -> &[Option<NDArray>] {
        &self.grads
    }
    pub fn aux_arrays(&self) -> &[NDArray] {
        &self.aux
    }
    pub fn device(&self) -> Device {
        self.device
    }
    pub fn arg_dict(&self) -> HashMap<String, NDArray> {
        self.arg_names
            .iter()
            .cloned()
            .zip(self.args.iter().cloned())
            .collect()
    }
    pub fn grad_dict(&self) -> HashMap<String, NDArray> {
        self.arg_names
            .iter()
            .cloned()
            .zip(&self.grads)
            .filter_map(|(n, g)| g.clone().map(|g| (n, g)))
            .collect()
    }
    pub fn aux_dict(&self) -> HashMap<String, NDArray> {
        self.aux_names
            .iter()
            .cloned()
            .zip(self.aux.iter().cloned())
            .collect()
    }

    /// Copies parameter values in by name; names the executor does not have are an error
    /// unless `allow_extra`.
    pub fn copy_params_from(
        &self,
        args: &HashMap<String, NDArray>,
        aux: &HashMap<String, NDArray>,
        allow_extra: bool,
    ) -> Result<()> {
        for (map, names, arrays, what) in [
            (args, &self.arg_names, &self.args, "argument"),
            (aux, &self.aux_names, &self.aux, "aux state"),
        ] {
            for (name, src) in map {
                match names.iter().position(|n| n == name) {
                    Some(i) => arrays[i].copy_from(src)?,
                    None if allow_extra => {}
                    None => {
                        return Err(Error::Input(format!(
                            "copy_params_from: the executor has no {what} `{name}`"
                        )))
                    }
                }
            }
        }
        Ok(())
    }

    /// A new executor for other input shapes (a new batch size): arrays whose shape does
    /// not change are shared, the rest are allocated anew.
    pub fn reshape(&self, shapes: &[(&str, &[usize])]) -> Result<Executor> {
        let inferred = self.symbol.infer_shape(shapes)?;
        let reuse = |old: &NDArray, s: &Shape| -> Result<NDArray> {
            if old.shape() == s.as_slice() {
                Ok(old.clone())
            } else {
                NDArray::zeros(s, old.dtype(), self.device)
            }
        };
        let args: Vec<NDArray> = self
            .args
            .iter()
            .zip(&inferred.arguments)
            .map(|(a, s)| reuse(a, s))
            .collect::<Result<_>>()?;
        let grads = self
            .grads
            .iter()
            .zip(&inferred.arguments)
            .map(|(g, s)| g.as_ref().map(|g| reuse(g, s)).transpose())
            .collect::<Result<_>>()?;
        let aux: Vec<NDArray> = self
            .aux
            .iter()
            .zip(&inferred.aux_states)
            .map(|(a, s)| reuse(a, s))
            .collect::<Result<_>>()?;
        let binding = Binding {
            batch_inputs: shapes.iter().map(|(n, _)| n.to_string()).collect(),
            ..self.binding.clone()
        };
        Executor::build(&self.symbol, self.device, args, grads, aux, binding, None)
    }
}

/// The entry shapes at the batch size plus one, two and three (the batch inputs' first
/// axis grown), for generalizing kernels over the batch; `None` without batch inputs of
/// one common batch size, or where the graph does not infer at the other sizes.
fn batch_shapes(
    g: &Graph,
    shapes: &HashMap<String, Shape>,
    dtypes: &HashMap<String, DType>,
    batch_inputs: &[String],
) -> Option<BatchShapes> {
    let sizes: Vec<usize> = batch_inputs
        .iter()
        .map(|n| shapes.get(n).and_then(|s| s.first().copied()))
        .collect::<Option<_>>()?;
    let &batch = sizes.first()?;
    if batch == 0 || sizes.iter().any(|&b| b != batch) {
        return None;
    }
    let grown = |extra: usize| {
        let mut s = shapes.clone();
        for n in batch_inputs {
            s.get_mut(n)?[0] = batch + extra;
        }
        infer(g, &s, dtypes).ok()
    };
    Some(BatchShapes {
        batch: batch as i64,
        next: [grown(1)?, grown(2)?, grown(3)?],
    })
}
