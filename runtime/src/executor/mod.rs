//! The Executor: a symbol bound to arrays on a device, run on the engine.
//!
//! Binding compiles the symbol for the bound arrays' shapes and dtypes, in training mode
//! where a gradient is requested and in inference otherwise
//! ([`kiln_compiler::program::compile`]: expansion, passes, differentiation, steps, order,
//! layout, segments), compiles the steps' kernels for the backend ([`crate::units`]),
//! places every value where the program's layout says ([`crate::arena`]), and pre-creates
//! one engine operation per step (MXNet's `NewOperator`), reading its input arrays and
//! writing its outputs, grouped into the program's segments (MXNet's bulk execution);
//! backward segments end where a gradient or aux state is complete.
//! [`Executor::forward`] and [`Executor::backward`] push them and return at once, so
//! imperative updates of the same arrays (`w -= lr * g`) interleave in the right order,
//! and an update pushed with a higher priority runs as soon as its gradient is ready,
//! while backward goes on.
//!
//! A forward pass of the other mode than the bound one (training mode on an inference
//! bind, whose passes removed Dropout; inference on a training bind where BatchNorm would
//! expand into a scale and shift) compiles its own program at its first run, reusing the
//! arena where it fits.

mod ops;
mod random;

use crate::config::Config;
use crate::device::Device;
use crate::engine::{Engine, Operator};
use crate::ndarray::NDArray;
use crate::units::Backend;
use crate::units::Code;
use crate::{Error, Result};
use kiln_compiler::autodiff::GradReq;
use kiln_compiler::program::parts::Prefix;
use kiln_compiler::program::{
    self, compile, Mode, Parts, Place, Program, Spec, StepCounts, StepKind,
};
use kiln_compiler::{Entry, Symbol};
use kiln_ops::{DType, Shape};
use ops::{kernel_operator, matmul_operator};
use ops::{node_operator, store, NodeRun};
use random::RandomStream;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// Which arguments get gradients, and how.
#[derive(Clone, Debug)]
pub enum GradReqs {
    /// The same for every argument.
    All(GradReq),
    /// Per argument name; arguments not listed get none.
    Each(HashMap<String, GradReq>),
}

impl GradReqs {
    /// The requests a program of `mode` is compiled for: per argument in training, none
    /// in inference.
    pub fn of(mode: &Mode) -> GradReqs {
        match mode {
            Mode::Training(reqs) => GradReqs::Each(reqs.clone()),
            Mode::Inference => GradReqs::All(GradReq::Null),
        }
    }

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
    /// The forward pass of the other mode where the bound program cannot run it (an
    /// inference program in training mode) or runs it slower (a training program where
    /// inference expands more), compiled at its first run.
    other: Arc<OnceLock<std::result::Result<Plan, Arc<Error>>>>,
    /// Whether forward passes of the other mode take `other`.
    other_needed: bool,
    /// What the random operators of every plan draw from.
    random: Arc<RandomStream>,
}

/// What an executor's memory holds, in bytes, as allocated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// The arena: every intermediate value, shared by lifetime, and the steps' workspace.
    pub arena: usize,
    /// Arrays of their own for heads a store copies from.
    pub own: usize,
    /// What steps keep from run to run: transformed Winograd weights, native kernels'
    /// working space.
    pub kept: usize,
    /// Folded constants.
    pub constants: usize,
    /// The outputs' arrays (not internal: callers hold them).
    pub outputs: usize,
}

impl Memory {
    /// Internal memory: everything but arguments, their gradients, aux states and
    /// outputs — what the program's [`Program::internal_bytes`] predicts.
    pub fn internal(&self) -> usize {
        self.arena + self.own + self.kept + self.constants
    }
}

/// How an executor was bound: gradient requests, the configuration its programs are
/// compiled with (backend, target, passes), and the batch inputs (the inputs whose first axis is the batch size, as
/// MXNet's data and label shapes): compiled kernels take the batch size as a symbolic
/// dimension where they are linear in it, so a reshape to another batch size reuses them.
#[derive(Clone)]
struct Binding {
    reqs: GradReqs,
    config: Config,
    batch_inputs: Vec<String>,
}

/// The pre-created operations of a bound program.
struct Plan {
    /// Forward steps made for training and for inference (a node runs its kernel in the
    /// mode it was made for; a compiled one is the same).
    forward_train: Vec<Arc<Operator>>,
    forward_infer: Vec<Arc<Operator>>,
    /// Backward steps, the stores of gradients and aux updates among them.
    backward: Vec<Arc<Operator>>,
    counts: StepCounts,
    memory: Memory,
    /// The arena, which a program of the other mode may reuse.
    arena: NDArray,
}

fn engine() -> &'static Engine {
    Engine::global()
}

impl Executor {
    /// Binds with arrays allocated (zero-filled) from the given input shapes, MXNet's
    /// `simple_bind`, with the process's configuration ([`Config::global`]).
    pub fn simple_bind(
        symbol: &Symbol,
        device: Device,
        shapes: &[(&str, &[usize])],
        reqs: GradReqs,
    ) -> Result<Executor> {
        Executor::simple_bind_with(Config::global(), symbol, device, shapes, reqs)
    }

    /// [`Executor::simple_bind`] compiled as `config` says: its backend, passes, Winograd
    /// and fused epilogues (an ablation, a comparison with the interpreter). What exists
    /// once per process — the engine, the pool's threads, the JIT's cache and vector
    /// width, profiling, lazy fusion — is the process configuration's ([`Config::global`]).
    pub fn simple_bind_with(
        config: &Config,
        symbol: &Symbol,
        device: Device,
        shapes: &[(&str, &[usize])],
        reqs: GradReqs,
    ) -> Result<Executor> {
        let inferred = symbol.infer_shape(shapes)?;
        let (arg_types, _, aux_types) = symbol.infer_type(&[])?;
        let zeros = |s: &[usize], d: DType, what: String| {
            NDArray::zeros(s, d, device).map_err(|e| e.allocating(&what))
        };
        let (arg_names, aux_names) = (symbol.list_arguments(), symbol.list_auxiliary_states());
        let args: Vec<NDArray> = (inferred.arguments.iter().zip(&arg_types).zip(&arg_names))
            .map(|((s, &d), n)| zeros(s, d, format!("argument `{n}`")))
            .collect::<Result<_>>()?;
        let aux: Vec<NDArray> = (inferred.aux_states.iter().zip(&aux_types).zip(&aux_names))
            .map(|((s, &d), n)| zeros(s, d, format!("aux state `{n}`")))
            .collect::<Result<_>>()?;
        let grads: Vec<Option<NDArray>> = (arg_names.iter().zip(&args))
            .map(|(n, a)| match reqs.get(n) {
                GradReq::Null => Ok(None),
                _ => zeros(a.shape(), a.dtype(), format!("the gradient of `{n}`")).map(Some),
            })
            .collect::<Result<_>>()?;
        let binding = Binding {
            reqs,
            config: config.clone(),
            batch_inputs: shapes.iter().map(|(n, _)| n.to_string()).collect(),
        };
        Executor::build(symbol, device, args, grads, aux, binding)
    }

    /// Binds to the caller's arrays (every argument and aux state by name; gradient arrays
    /// for the arguments whose grad_req is not null), MXNet's `bind`, with the process's
    /// configuration. The batch inputs are `data` and the arguments named `*label`.
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
            config: Config::global().clone(),
            batch_inputs,
        };
        Executor::build(symbol, device, arg_arrays, grad_arrays, aux_arrays, binding)
    }

    /// The same arrays bound again with another backend (to compare them, or to time
    /// one against the other).
    pub fn rebind(&self, backend: Backend) -> Result<Executor> {
        let binding = Binding {
            config: self.binding.config.clone().backend(backend),
            ..self.binding.clone()
        };
        Executor::build(
            &self.symbol,
            self.device,
            self.args.clone(),
            self.grads.clone(),
            self.aux.clone(),
            binding,
        )
    }

    /// The memory the bound program allocated (a forward pass of the other mode compiled
    /// later reuses its arena where it fits).
    pub fn memory(&self) -> Memory {
        self.plan.memory
    }

    /// The backend the operations run on, and what the bound program runs.
    pub fn backend(&self) -> (Backend, StepCounts) {
        (self.binding.config.backend, self.plan.counts)
    }

    /// What the inference forward pass runs (for a training bind where inference expands
    /// more, its own program, compiled now if it was not yet).
    pub fn inference_units(&self) -> Result<StepCounts> {
        match self.other_plan(false)? {
            Some(p) => Ok(p.counts),
            None => Ok(self.plan.counts),
        }
    }

    /// The specification of this executor's program in `mode`.
    fn spec(&self, mode: Mode) -> Spec {
        spec(
            &self.arg_names,
            &self.args,
            &self.aux_names,
            &self.aux,
            &self.binding,
            self.device,
            mode,
        )
    }

    /// The plan of a forward pass in training mode (`is_train`) or inference, where the
    /// bound program does not run it itself; compiled at the first call.
    fn other_plan(&self, is_train: bool) -> Result<Option<&Plan>> {
        let bound_train = self.binding_is_train();
        if !self.other_needed || is_train == bound_train {
            return Ok(None);
        }
        let plan = self.other.get_or_init(|| {
            let mode = if is_train {
                Mode::Training(HashMap::new())
            } else {
                Mode::Inference
            };
            let program =
                compile(&self.symbol, &self.spec(mode)).map_err(|e| Arc::new(e.into()))?;
            let bound = Bound {
                device: self.device,
                args: (&self.arg_names, &self.args),
                aux: (&self.aux_names, &self.aux),
                grads: &self.grads,
                arena: Some(&self.plan.arena),
                outputs: Some(&self.outputs),
                random: &self.random,
            };
            instantiate(&program, &bound)
                .map(|(plan, _)| plan)
                .map_err(Arc::new)
        });
        plan.as_ref().map(Some).map_err(|e| Error::Again(e.clone()))
    }

    fn binding_is_train(&self) -> bool {
        (self.arg_names.iter()).any(|n| self.binding.reqs.get(n) != GradReq::Null)
    }

    /// The executor of `symbol` on these arrays.
    fn build(
        symbol: &Symbol,
        device: Device,
        args: Vec<NDArray>,
        grads: Vec<Option<NDArray>>,
        aux: Vec<NDArray>,
        binding: Binding,
    ) -> Result<Executor> {
        let arg_names = symbol.list_arguments();
        let aux_names = symbol.list_auxiliary_states();
        let reqs: HashMap<String, GradReq> = (arg_names.iter())
            .map(|n| (n.clone(), binding.reqs.get(n)))
            .collect();
        let train = reqs.values().any(|r| *r != GradReq::Null);
        let mode = if train {
            Mode::Training(reqs)
        } else {
            Mode::Inference
        };
        let spec = spec(&arg_names, &args, &aux_names, &aux, &binding, device, mode);
        let program = compile(symbol, &spec)?;
        // A stream of its own, seeded from the process's generator (`random::seed`).
        let seed = crate::ndarray::random::next_key().0;
        let random = RandomStream::new((u64::from(seed[0]) << 32) | u64::from(seed[1]));
        let bound = Bound {
            device,
            args: (&arg_names, &args),
            aux: (&aux_names, &aux),
            grads: &grads,
            arena: None,
            outputs: None,
            random: &random,
        };
        let (
            plan,
            Arrays {
                outputs,
                head_grads,
            },
        ) = instantiate(&program, &bound)?;
        // An inference program runs no training forward pass; a training program runs
        // inference's, but slower where inference would expand more.
        let other_needed = !train || program.inference_expands_more;
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
            head_grads,
            plan: Arc::new(plan),
            other: Arc::new(OnceLock::new()),
            other_needed,
            random,
        })
    }

    /// Pushes the forward pass (training mode: BatchNorm uses batch statistics, Dropout
    /// drops). Returns at once; read [`Executor::outputs`] to wait. Where the pass needs a
    /// program of its own that fails to compile, the outputs carry the error.
    pub fn forward(&self, is_train: bool) {
        let plan = match self.other_plan(is_train) {
            Ok(Some(other)) => other,
            Ok(None) => &self.plan,
            Err(e) => {
                let writes: Vec<_> = self.outputs.iter().map(|a| a.var().clone()).collect();
                let msg = e.to_string();
                engine().push_fn_bytes("forward", &[], &writes, 0, move || Err(msg));
                return;
            }
        };
        let ops = if is_train {
            &plan.forward_train
        } else {
            &plan.forward_infer
        };
        ops.iter().for_each(|op| engine().push(op, 0));
    }

    /// Restarts the stream the executor's random operators (Dropout, samplers) draw from
    /// at `seed`, after the passes pushed so far: the passes pushed next draw what a
    /// fresh executor seeded so would. Each executor has a stream of its own, seeded at
    /// bind from the process's generator ([`crate::ndarray::random::seed`]); MXNet's
    /// operators draw from one generator per device instead.
    pub fn seed_random(&self, seed: u64) {
        self.random.reseed(seed);
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
        Executor::build(&self.symbol, self.device, args, grads, aux, binding)
    }
}

/// The compile specification of an executor's program: every variable's shape and dtype
/// from its bound array.
fn spec(
    arg_names: &[String],
    args: &[NDArray],
    aux_names: &[String],
    aux: &[NDArray],
    binding: &Binding,
    device: Device,
    mode: Mode,
) -> Spec {
    let variables = || arg_names.iter().zip(args).chain(aux_names.iter().zip(aux));
    let config = match device {
        Device::Cpu => binding.config.clone(),
        Device::Cuda(_) => binding.config.clone().backend(Backend::Interpreter),
    };
    let shapes = variables()
        .map(|(n, a)| (n.clone(), a.shape().to_vec()))
        .collect();
    Spec {
        dtypes: variables().map(|(n, a)| (n.clone(), a.dtype())).collect(),
        batch_inputs: binding.batch_inputs.clone(),
        ..config.spec(shapes, mode)
    }
}

/// A step's operation made for training and for inference.
type TrainInfer = (Arc<Operator>, Arc<Operator>);

/// The arrays a program binds to.
#[derive(Clone, Copy)]
struct Bound<'a> {
    device: Device,
    args: (&'a [String], &'a [NDArray]),
    aux: (&'a [String], &'a [NDArray]),
    grads: &'a [Option<NDArray>],
    /// An arena to reuse where it is large enough.
    arena: Option<&'a NDArray>,
    /// The outputs' arrays, where another program already has them.
    outputs: Option<&'a [NDArray]>,
    random: &'a Arc<RandomStream>,
}

/// The arrays a new plan made that its executor hands out.
struct Arrays {
    outputs: Vec<NDArray>,
    head_grads: Vec<Option<NDArray>>,
}

/// `program` on the bound arrays: its values placed as its layout says, one engine
/// operation per step (made for both modes where it is a forward step), grouped into the
/// program's segments; a prefix in parts of the batch first.
fn instantiate(program: &Program, bound: &Bound) -> Result<(Plan, Arrays)> {
    match &program.parts {
        Parts::Prefix(prefix) => instantiate_in_parts(program, prefix, bound),
        Parts::Whole | Parts::Declined(_) => instantiate_whole(program, bound),
    }
}

/// `rest` after its `prefix` in parts ([`kiln_compiler::program::parts`]): one arena for
/// both; per part, copies of the part's rows of the batch inputs into the prefix's own
/// arrays, the prefix's operations, and copies of its outputs into the part's rows of
/// the whole-batch arrays the rest reads. Each part pushes the same operations again (the
/// engine orders them by the arrays they share), so what the prefix keeps — transformed
/// weights, working space — exists once.
fn instantiate_in_parts(rest: &Program, prefix: &Prefix, bound: &Bound) -> Result<(Plan, Arrays)> {
    let device = bound.device;
    let arena = match bound.arena {
        Some(a) if a.nbytes() >= rest.arena_bytes() => a.clone(),
        _ => NDArray::arena(rest.arena_bytes().max(program::ALIGN), device)
            .map_err(|e| e.allocating("the program's arena"))?,
    };
    let variable_array = |p: &Program, name: &str| -> Result<NDArray> {
        let node = (p.graph().variable(name))
            .ok_or_else(|| Error::Input(format!("bind: the program has no variable `{name}`")))?;
        let e = Entry { node, index: 0 };
        let dtype = p.inferred.dtype(e).unwrap_or(DType::F32);
        NDArray::uninit_for_executor(p.inferred.shape(e), dtype, device)
    };
    let bound_arg = |name: &str| -> Result<&NDArray> {
        (bound.args.0.iter().position(|n| n == name))
            .map(|i| &bound.args.1[i])
            .ok_or_else(|| Error::Input(format!("bind: no array for argument `{name}`")))
    };
    let p = &prefix.program;
    let staged = (prefix.inputs.iter())
        .map(|n| variable_array(p, n))
        .collect::<Result<Vec<_>>>()?;
    let mut args = bound.args.1.to_vec();
    for (name, a) in prefix.inputs.iter().zip(&staged) {
        if let Some(i) = bound.args.0.iter().position(|n| n == name) {
            args[i] = a.clone();
        }
    }
    let (prefix_plan, prefix_arrays) = instantiate_whole(
        p,
        &Bound {
            args: (bound.args.0, &args),
            grads: &[],
            arena: Some(&arena),
            outputs: None,
            ..*bound
        },
    )?;
    // A handed value that is an output of the rest is the output's array.
    let rest_outputs = &rest.graph().heads[..rest.training.num_outputs];
    let mut handed_bytes = 0;
    let handed = (prefix.handed.iter())
        .map(|name| {
            let node = rest.graph().variable(name);
            let output = rest_outputs.iter().position(|h| Some(h.node) == node);
            match (output, bound.outputs) {
                (Some(k), Some(given)) => Ok(given[k].clone()),
                _ => {
                    let a = variable_array(rest, name)?;
                    handed_bytes += if output.is_some() { 0 } else { a.nbytes() };
                    Ok(a)
                }
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let (mut names, mut args) = (bound.args.0.to_vec(), bound.args.1.to_vec());
    names.extend(prefix.handed.iter().cloned());
    args.extend(handed.iter().cloned());
    let (rest_plan, arrays) = instantiate_whole(
        rest,
        &Bound {
            args: (&names, &args),
            arena: Some(&arena),
            ..*bound
        },
    )?;
    let (mut forward_train, mut forward_infer) = (vec![], vec![]);
    for part in 0..prefix.parts {
        let rows = part * prefix.rows..(part + 1) * prefix.rows;
        let mut copy_in = Vec::new();
        for (name, staged) in prefix.inputs.iter().zip(&staged) {
            let from = bound_arg(name)?.slice(rows.start, rows.end)?;
            copy_in.push(store(
                &format!("part {part} of {name}"),
                &from,
                staged,
                false,
            )?);
        }
        let mut copy_out = Vec::new();
        for ((name, whole), out) in prefix
            .handed
            .iter()
            .zip(&handed)
            .zip(&prefix_arrays.outputs)
        {
            let into = whole.slice(rows.start, rows.end)?;
            copy_out.push(store(
                &format!("part {part} into {name}"),
                out,
                &into,
                false,
            )?);
        }
        for (ops, prefix_ops) in [
            (&mut forward_train, &prefix_plan.forward_train),
            (&mut forward_infer, &prefix_plan.forward_infer),
        ] {
            ops.extend(copy_in.iter().cloned());
            ops.extend(prefix_ops.iter().cloned());
            ops.extend(copy_out.iter().cloned());
        }
    }
    forward_train.extend(rest_plan.forward_train.iter().cloned());
    forward_infer.extend(rest_plan.forward_infer.iter().cloned());
    let staged_bytes: usize = (staged.iter().chain(&prefix_arrays.outputs))
        .map(NDArray::nbytes)
        .sum();
    let (a, b) = (prefix_plan.memory, rest_plan.memory);
    let memory = Memory {
        arena: arena.nbytes(),
        own: a.own + b.own + staged_bytes + handed_bytes,
        kept: a.kept + b.kept,
        constants: a.constants + b.constants,
        outputs: b.outputs,
    };
    let plan = Plan {
        forward_train,
        forward_infer,
        backward: rest_plan.backward,
        counts: rest.counts(),
        memory,
        arena,
    };
    Ok((plan, arrays))
}

/// A program that runs its batch whole on the bound arrays.
fn instantiate_whole(program: &Program, bound: &Bound) -> Result<(Plan, Arrays)> {
    let (g, inferred, t) = (program.graph(), &program.inferred, &program.training);
    let code = crate::units::compile(program)?;
    let placement = crate::arena::place(program, bound.device, bound.arena, bound.outputs)?;
    let mut arrays = placement.arrays;
    // Variables are their bound arrays (matched by name: an expansion may turn an aux
    // state into a plain input), folded constants arrays of their own, head gradients
    // zeros until backward is given them.
    let by_name: HashMap<&String, &NDArray> = (bound.args.0.iter().zip(bound.args.1))
        .chain(bound.aux.0.iter().zip(bound.aux.1))
        .collect();
    let mut constants = 0;
    for id in g.node_ids().filter(|&id| g.node(id).is_variable()) {
        let n = g.node(id);
        let e = Entry { node: id, index: 0 };
        let a = match (by_name.get(&n.name), g.constants.get(&id)) {
            (Some(a), _) => (*a).clone(),
            (None, Some(value)) => {
                let a = NDArray::from_tensor(value, bound.device)?;
                constants += a.nbytes();
                a
            }
            (None, None) if t.head_grads.contains(&Some(id)) => NDArray::zeros(
                inferred.shape(e),
                inferred.dtype(e).unwrap_or(DType::F32),
                bound.device,
            )?,
            (None, None) => {
                return Err(Error::Input(format!(
                    "bind: variable `{}` has no array",
                    n.name
                )))
            }
        };
        arrays.insert(e, a);
    }
    let grad_array = |k: usize| {
        let name = &g.node(t.grads[k].0).name;
        let slot = bound.args.0.iter().position(|n| n == name);
        slot.and_then(|i| bound.grads[i].clone())
            .ok_or_else(|| Error::Input(format!("bind: no gradient array for `{name}`")))
    };
    for (&e, place) in &program.layout.places {
        if let Place::Gradient(k) = place {
            arrays.insert(e, grad_array(*k)?);
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
    let outputs: Vec<NDArray> = g.heads[..t.num_outputs]
        .iter()
        .map(entry)
        .collect::<Result<_>>()?;
    let head_grads = (t.head_grads.iter())
        .map(|h| h.map(|id| entry(&Entry { node: id, index: 0 })).transpose())
        .collect::<Result<Vec<_>>>()?;
    let mut kept = 0;
    // Each step's operation, for training and for inference.
    let mut ops: Vec<TrainInfer> = Vec::with_capacity(program.steps.len());
    for (s, (step, code)) in program.steps.iter().zip(code).enumerate() {
        let inputs = step.inputs.iter().map(entry).collect::<Result<Vec<_>>>()?;
        let outputs = step.outputs.iter().map(entry).collect::<Result<Vec<_>>>()?;
        let node = |native: bool, is_train: bool| {
            let run = NodeRun {
                id: step.nodes[0],
                inputs: inputs.clone(),
                outputs: outputs.clone(),
                is_train,
                native,
                random: bound.random,
            };
            node_operator(g, inferred, run)
        };
        let both = |op: Arc<Operator>| (op.clone(), op);
        let pair = match (&step.kind, code) {
            (StepKind::Reference | StepKind::Native, _) => {
                let native = matches!(step.kind, StepKind::Native);
                let ((train, k), (infer, _)) = (node(native, true), node(native, false));
                kept += k;
                (train, infer)
            }
            (StepKind::Store { into, add }, _) => {
                let target = match into {
                    program::Bound::Gradient(k) => grad_array(*k)?,
                    program::Bound::Aux(k) => {
                        let name = &g.node(t.aux_updates[*k]).name;
                        (by_name.get(name).map(|a| (*a).clone())).ok_or_else(|| {
                            Error::Input(format!("bind: no array for aux state `{name}`"))
                        })?
                    }
                };
                both(store(&step.name, &inputs[0], &target, *add)?)
            }
            (StepKind::Kernel { dims, .. }, Code::Kernel(k)) => {
                both(kernel_operator(&step.name, k, dims, inputs, outputs))
            }
            (StepKind::Product(p), Code::Product { packs, epilogue }) => {
                let workspace = placement.workspace[s].clone();
                let (op, k) = matmul_operator(
                    &step.name,
                    p,
                    (&packs, epilogue.as_ref()),
                    (inputs, outputs),
                    workspace,
                )?;
                kept += k;
                both(op)
            }
            _ => {
                return Err(Error::Input(format!(
                    "bind: step `{}` has no compiled code (s{s})",
                    step.name
                )))
            }
        };
        ops.push(pair);
    }
    // Backward segments end where a gradient or an aux state is complete, so work
    // waiting for it (an update, a copy, a push) can start while backward goes on.
    let (mut forward_train, mut forward_infer, mut backward) = (vec![], vec![], vec![]);
    for range in &program.segments {
        let forward = program.steps[range.start].forward;
        let pass = if forward { "forward" } else { "backward" };
        let segment = |pick: &dyn Fn(&TrainInfer) -> Arc<Operator>| {
            let mut members: Vec<Arc<Operator>> = ops[range.clone()].iter().map(pick).collect();
            match members.len() {
                1 => members.remove(0),
                _ => engine()
                    .new_segment(&format!("{pass}[{}..{}]", range.start, range.end), members),
            }
        };
        if forward {
            forward_train.push(segment(&|(train, _)| train.clone()));
            forward_infer.push(segment(&|(_, infer)| infer.clone()));
        } else {
            backward.push(segment(&|(train, _)| train.clone()));
        }
    }
    let memory = Memory {
        arena: placement.arena.nbytes(),
        own: placement.own_bytes,
        kept,
        constants,
        outputs: outputs.iter().map(NDArray::nbytes).sum(),
    };
    let plan = Plan {
        forward_train,
        forward_infer,
        backward,
        counts: program.counts(),
        memory,
        arena: placement.arena,
    };
    Ok((
        plan,
        Arrays {
            outputs,
            head_grads,
        },
    ))
}
