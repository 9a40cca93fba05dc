//! MXNet optimizers (`mx.optimizer`) and learning-rate schedules, with MXNet 1.9.1's exact
//! update rules, as engine operations.
//!
//! An [`Optimizer`] is MXNet's optimizer and its `Updater` in one: created by name with
//! keyword arguments written as Python writes them ([`Optimizer::create`]), it keeps each
//! parameter's states and update count, and [`Optimizer::update`] pushes one engine
//! operation per parameter that updates the weight in place from its gradient. The
//! operation is created at a parameter's first update and pushed again every step, so a
//! warm step allocates nothing; the step's scalars (lr, wd, count) are fixed at push time
//! (see `op.rs`). One call of [`Optimizer::update_multi`] (a Module's step) pushes its
//! updates [`AGGREGATE_NUM`] consecutive parameters at a time as one engine operation, as
//! MXNet aggregates its multi-tensor updates: a segment made at the first step and reused,
//! so a step costs a quarter of the pushes while a group still waits only for its own
//! gradients. Every rule is one generic body over f32/f64 (`kernel::Real`), run over the
//! runtime's pool for large arrays; f16 weights go through an f32 master copy and need
//! `multi_precision=True` (MXNet would accumulate in f16 otherwise; kiln refuses).
//!
//! Bookkeeping follows MXNet's base class exactly: `num_update` is the largest update
//! count, counts start at `begin_num_update`; lr is the scheduler's rate at `num_update`
//! (or `learning_rate`) times the parameter's lr_mult; wd is `wd` times its wd_mult. A
//! multiplier is looked up by index, then — for indices with a name (`param_idx2name`,
//! [`Optimizer::set_param_names`]) — by name, then from the symbol's `__lr_mult__` /
//! `__wd_mult__` attributes, and for wd_mult the default rule: 0 for names not ending in
//! `_weight` or `_gamma` (LARS: `_weight` only), else 1.
//!
//! Where MXNet is silent or inconsistent kiln decides: an update call
//! ([`Optimizer::update_multi`]) is one batch as MXNet's Updater receives it from Module,
//! which matters only for LARS' momentum correction (MXNet refreshes it per group of four
//! parameters of a dtype, kiln per call); f16 weights without `multi_precision` are an
//! error; row-sparse gradients do not exist, so `lazy_update` is accepted and changes
//! nothing. Each family's file lists the rules' traps (clipping order, wd placement).

mod adagrad;
mod adam;
mod args;
mod defs;
mod ftrl;
mod kernel;
mod op;
mod portable;
mod rule;
pub mod schedule;
mod sgd;
mod states;

pub use defs::{LearningRate, OptimizerDef, BASE_ARGS, OPTIMIZERS};
pub use schedule::Scheduler;

use crate::{Error, Result};
use args::Args;
use kiln_ops::DType;
use kiln_runtime::{Engine, NDArray, Operator};
use op::Slot;
use rule::{Common, Globals, Rule, Step};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// MXNet's default `aggregate_num` (MXNET_OPTIMIZER_AGGREGATION_SIZE): consecutive
/// parameters whose updates run as one operation.
pub const AGGREGATE_NUM: usize = 4;

/// An optimizer with its per-parameter states (MXNet's optimizer and Updater).
pub struct Optimizer {
    def: &'static OptimizerDef,
    /// The keyword arguments it was created with (its [`Optimizer::spec`]).
    kwargs: Vec<(String, String)>,
    rule: Rule,
    lr: f64,
    wd: f64,
    multi_precision: bool,
    scheduler: Option<Scheduler>,
    begin_num_update: u64,
    num_update: u64,
    counts: BTreeMap<usize, u64>,
    names: HashMap<usize, String>,
    lr_mult: Mults,
    wd_mult: Mults,
    globals: Globals,
    slots: BTreeMap<usize, Slot>,
    /// Up to how many consecutive parameters' updates run as one engine operation.
    aggregate_num: usize,
    /// The operations of the current call, in order (kept to reuse its room).
    pending: Vec<Arc<Operator>>,
    /// The fused operations of the groups of the latest calls, by position.
    groups: Vec<Group>,
}

/// Consecutive updates pushed as one engine operation, and what it was made of.
struct Group {
    ops: Vec<Arc<Operator>>,
    fused: Arc<Operator>,
}

/// A multiplier's sources, in MXNet's order of precedence.
#[derive(Default)]
struct Mults {
    by_index: HashMap<usize, f64>,
    by_name: HashMap<String, f64>,
    from_attrs: HashMap<String, f64>,
}

impl Optimizer {
    /// The optimizer MXNet registers as `name` (case-insensitive), with keyword arguments
    /// as strings: `("momentum", "0.9")`, `("lr_scheduler", "factor(step=2,factor=0.5)")`,
    /// `("clip_gradient", "None")`. The base arguments are [`BASE_ARGS`]; an unknown
    /// optimizer or argument, or a value that does not parse, is [`Error::Input`] naming
    /// both.
    pub fn create(name: &str, kwargs: &[(&str, &str)]) -> Result<Optimizer> {
        let def = defs::find(name).ok_or_else(|| {
            let known: Vec<_> = OPTIMIZERS.iter().map(|d| d.name).collect();
            Error::Input(format!(
                "unknown optimizer `{name}` (kiln has {})",
                known.join(", ")
            ))
        })?;
        let mut args = Args::new(def.name, kwargs)?;
        let learning_rate = args.opt_f64("learning_rate")?;
        let wd = args.f64("wd", 0.0)?;
        let rescale_grad = args.f64("rescale_grad", 1.0)?;
        let clip_gradient = args.opt_f64("clip_gradient")?;
        let begin_num_update = args.count("begin_num_update", 0)?;
        let multi_precision = args.bool("multi_precision", false)?;
        let mut scheduler = match args.raw("lr_scheduler") {
            None | Some("None") => None,
            Some(spec) => Some(Scheduler::parse(spec).map_err(|e| {
                Error::Input(format!(
                    "optimizer `{}`: argument `lr_scheduler`: {e}",
                    def.name
                ))
            })?),
        };
        let common = Common {
            rescale_grad,
            clip_gradient,
        };
        let rule = (def.build)(&mut args, common)?;
        let known: Vec<&str> = BASE_ARGS.iter().chain(def.args).copied().collect();
        args.finish(&known)?;
        // MXNet's constructors: a learning rate given to the base class replaces the
        // scheduler's base rate.
        let lr = match def.learning_rate {
            LearningRate::Own(default) => learning_rate.unwrap_or(default),
            LearningRate::Base | LearningRate::Overrides(_) => {
                let given = match def.learning_rate {
                    LearningRate::Overrides(default) => Some(learning_rate.unwrap_or(default)),
                    _ => learning_rate,
                };
                match (&mut scheduler, given) {
                    (Some(s), Some(lr)) => {
                        s.base_lr = lr;
                        lr
                    }
                    (Some(s), None) => s.base_lr,
                    (None, given) => given.unwrap_or(0.01),
                }
            }
        };
        Ok(Optimizer {
            def,
            kwargs: (kwargs.iter())
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .collect(),
            rule,
            lr,
            wd,
            multi_precision,
            scheduler,
            begin_num_update,
            num_update: begin_num_update,
            counts: BTreeMap::new(),
            names: HashMap::new(),
            lr_mult: Mults::default(),
            wd_mult: Mults::default(),
            globals: Globals::default(),
            slots: BTreeMap::new(),
            aggregate_num: AGGREGATE_NUM,
            pending: Vec::new(),
            groups: Vec::new(),
        })
    }

    /// MXNet's registered name of this optimizer.
    pub fn name(&self) -> &'static str {
        self.def.name
    }

    /// Names the parameters by index (MXNet's `param_idx2name`), which the wd_mult default
    /// rule and name-keyed multipliers apply to.
    pub fn set_param_names<S: Into<String>>(
        &mut self,
        names: impl IntoIterator<Item = (usize, S)>,
    ) {
        self.names = names.into_iter().map(|(i, n)| (i, n.into())).collect();
    }

    /// Reads `__lr_mult__` and `__wd_mult__` of the symbol's arguments (MXNet's `sym`).
    pub fn set_symbol(&mut self, symbol: &kiln_compiler::Symbol) -> Result<()> {
        self.set_param_attrs(&symbol.attr_dict(), &symbol.list_arguments())
    }

    /// As [`Optimizer::set_symbol`], from an attribute dictionary (node name → attributes)
    /// and the argument names it applies to.
    pub fn set_param_attrs(
        &mut self,
        attrs: &BTreeMap<String, BTreeMap<String, String>>,
        arguments: &[String],
    ) -> Result<()> {
        let (mut lr, mut wd) = (HashMap::new(), HashMap::new());
        for name in arguments {
            let Some(node) = attrs.get(name) else {
                continue;
            };
            for (key, into) in [("__lr_mult__", &mut lr), ("__wd_mult__", &mut wd)] {
                if let Some(v) = node.get(key) {
                    let mult = args::parse_f64(v).map_err(|e| {
                        Error::Input(format!("parameter `{name}`: attribute {key}: {e}"))
                    })?;
                    into.insert(name.clone(), mult);
                }
            }
        }
        self.lr_mult.from_attrs = lr;
        self.wd_mult.from_attrs = wd;
        Ok(())
    }

    /// Sets a parameter's learning-rate multiplier by name (MXNet's `set_lr_mult`).
    pub fn set_lr_mult(&mut self, name: &str, mult: f64) {
        self.lr_mult.by_name.insert(name.to_string(), mult);
    }

    /// Sets a parameter's learning-rate multiplier by index.
    pub fn set_lr_mult_index(&mut self, index: usize, mult: f64) {
        self.lr_mult.by_index.insert(index, mult);
    }

    /// Sets a parameter's weight-decay multiplier by name (MXNet's `set_wd_mult`).
    pub fn set_wd_mult(&mut self, name: &str, mult: f64) {
        self.wd_mult.by_name.insert(name.to_string(), mult);
    }

    /// Sets a parameter's weight-decay multiplier by index.
    pub fn set_wd_mult_index(&mut self, index: usize, mult: f64) {
        self.wd_mult.by_index.insert(index, mult);
    }

    /// The learning rate now (the scheduler's at `num_update`, else the fixed one).
    pub fn learning_rate(&self) -> f64 {
        match &self.scheduler {
            Some(s) => s.clone().lr(self.num_update),
            None => self.lr,
        }
    }

    /// Sets the learning rate; an error when a scheduler sets it (as in MXNet).
    pub fn set_learning_rate(&mut self, lr: f64) -> Result<()> {
        if self.scheduler.is_some() {
            return Err(Error::Input(format!(
                "optimizer `{}`: the learning rate comes from its lr_scheduler",
                self.name()
            )));
        }
        self.lr = lr;
        Ok(())
    }

    /// The largest update count of any parameter (about the batches seen).
    pub fn num_update(&self) -> u64 {
        self.num_update
    }

    /// The update count of parameter `index` (`begin_num_update` before its first).
    pub fn update_count(&self, index: usize) -> u64 {
        self.counts
            .get(&index)
            .copied()
            .unwrap_or(self.begin_num_update)
    }

    /// The learning-rate multiplier of parameter `index`.
    pub fn lr_mult(&self, index: usize) -> f64 {
        self.mult(&self.lr_mult, index, |_| 1.0)
    }

    /// The weight-decay multiplier of parameter `index`.
    pub fn wd_mult(&self, index: usize) -> f64 {
        self.mult(&self.wd_mult, index, |name| {
            if self.rule.decays(name) {
                1.0
            } else {
                0.0
            }
        })
    }

    fn mult(&self, mults: &Mults, index: usize, default: impl Fn(&str) -> f64) -> f64 {
        if let Some(&m) = mults.by_index.get(&index) {
            return m;
        }
        let Some(name) = self.names.get(&index) else {
            return 1.0;
        };
        mults
            .by_name
            .get(name)
            .or_else(|| mults.from_attrs.get(name))
            .copied()
            .unwrap_or_else(|| default(name))
    }

    /// The states of parameter `index` (the rule's in order, then the f32 master copy of
    /// f16 weights), once it has been updated or loaded.
    pub fn states(&self, index: usize) -> Option<&[NDArray]> {
        self.slots.get(&index).map(|s| s.states.as_slice())
    }

    /// Pushes the update of parameter `index` (MXNet's `updater(index, grad, weight)`).
    pub fn update(&mut self, index: usize, weight: &NDArray, grad: &NDArray) -> Result<()> {
        self.update_multi(&[(index, weight, grad)])
    }

    /// Pushes the updates of several parameters as one call (what Module does per step):
    /// every count advances first, then each parameter's update is pushed in order. Bad
    /// arrays are reported before anything changes.
    pub fn update_multi(&mut self, params: &[(usize, &NDArray, &NDArray)]) -> Result<()> {
        for &(index, weight, grad) in params {
            self.prepare_slot(index, weight, grad)?;
        }
        for &(index, _, _) in params {
            let count = self.counts.entry(index).or_insert(self.begin_num_update);
            *count += 1;
            self.num_update = self.num_update.max(*count);
        }
        let base_lr = match &mut self.scheduler {
            Some(s) => s.lr(self.num_update),
            None => self.lr,
        };
        self.rule.begin_call(&mut self.globals, base_lr);
        for &(index, weight, grad) in params {
            let step = Step {
                lr: base_lr * self.lr_mult(index),
                wd: self.wd * self.wd_mult(index),
                t: self.update_count(index),
                extra: [0.0; 4],
            };
            let name = self.names.get(&index).map_or("", String::as_str);
            let step = self.rule.prepare(&mut self.globals, step, name);
            let master = self.is_master(weight);
            let slot = self.slots.get_mut(&index).ok_or_else(|| {
                Error::Input(format!("parameter {index}: no optimizer states (a bug)"))
            });
            match slot.and_then(|slot| slot.enqueue(&self.rule, weight, grad, master, step)) {
                Ok(op) => self.pending.push(op),
                Err(e) => {
                    // The updates already queued still run, as they would one by one.
                    self.push_pending();
                    return Err(e);
                }
            }
        }
        self.push_pending();
        Ok(())
    }

    /// Sets up to how many consecutive parameters of one `update_multi` call are updated
    /// by one engine operation (MXNet's `aggregate_num`; 1: each its own).
    pub fn set_aggregate_num(&mut self, n: usize) {
        self.aggregate_num = n.max(1);
    }

    /// Pushes the call's updates, `aggregate_num` consecutive ones at a time as one
    /// operation (a segment made once and reused while the same updates come back).
    fn push_pending(&mut self) {
        let engine = Engine::global();
        for (g, chunk) in self.pending.chunks(self.aggregate_num).enumerate() {
            if let [op] = chunk {
                engine.push(op, 0);
                continue;
            }
            let same = |group: &Group| {
                group.ops.len() == chunk.len()
                    && group.ops.iter().zip(chunk).all(|(a, b)| Arc::ptr_eq(a, b))
            };
            if !self.groups.get(g).is_some_and(same) {
                let group = Group {
                    ops: chunk.to_vec(),
                    fused: engine.new_segment("optimizer_update (aggregated)", chunk.to_vec()),
                };
                match self.groups.get_mut(g) {
                    Some(slot) => *slot = group,
                    None => self.groups.push(group),
                }
            }
            engine.push(&self.groups[g].fused, 0);
        }
        self.pending.clear();
    }

    fn is_master(&self, weight: &NDArray) -> bool {
        self.multi_precision && weight.dtype() == DType::F16
    }

    /// Checks a parameter's arrays and creates its states at its first update.
    fn prepare_slot(&mut self, index: usize, weight: &NDArray, grad: &NDArray) -> Result<()> {
        let what = || format!("optimizer `{}`: parameter {index}", self.def.name);
        if weight.shape() != grad.shape() || weight.dtype() != grad.dtype() {
            return Err(Error::Input(format!(
                "{}: weight {:?} {} and gradient {:?} {} differ",
                what(),
                weight.shape(),
                weight.dtype(),
                grad.shape(),
                grad.dtype()
            )));
        }
        if weight.var().id() == grad.var().id() {
            return Err(Error::Input(format!(
                "{}: the weight and the gradient share their memory",
                what()
            )));
        }
        match weight.dtype() {
            DType::F32 | DType::F64 => {}
            DType::F16 if self.multi_precision => {}
            DType::F16 => {
                return Err(Error::Input(format!(
                    "{}: f16 weights need multi_precision=True (f32 master copies)",
                    what()
                )))
            }
            other => {
                return Err(Error::Input(format!(
                    "{}: {other} weights are not supported (f32, f64, f16 with multi_precision)",
                    what()
                )))
            }
        }
        let wd = self.wd * self.wd_mult(index);
        self.rule
            .check(weight.shape(), wd)
            .map_err(|e| Error::Input(format!("{}: {e}", what())))?;
        let master = self.is_master(weight);
        match self.slots.get_mut(&index) {
            Some(slot) if slot.checked => Ok(()),
            Some(slot) => {
                slot.check(&self.rule, weight, master).map_err(|e| {
                    Error::Input(format!("{}: loaded states do not fit: {e}", what()))
                })?;
                slot.checked = true;
                Ok(())
            }
            None => {
                let slot = Slot::create(&self.rule, weight, master)?;
                self.slots.insert(index, slot);
                Ok(())
            }
        }
    }
}

/// An optimizer as a KVStore's updater (MXNet's `kv.set_optimizer`): a store key is the
/// update index, so the store's keys must be ints.
impl kiln_kvstore::Updater for Optimizer {
    fn update(
        &mut self,
        key: &kiln_kvstore::Key,
        merged: &NDArray,
        stored: &NDArray,
    ) -> kiln_runtime::Result<()> {
        let kiln_kvstore::Key::Int(index) = key else {
            return Err(kiln_runtime::Error::Input(format!(
                "{}: the store's key {key} is not an update index (int keys only)",
                self.name()
            )));
        };
        let index = usize::try_from(*index).map_err(|_| {
            kiln_runtime::Error::Input(format!("{}: negative key {index}", self.name()))
        })?;
        Optimizer::update(self, index, stored, merged)
            .map_err(|e| kiln_runtime::Error::Input(e.to_string()))
    }

    fn spec(&self) -> Option<String> {
        Some(Optimizer::spec(self))
    }
}
