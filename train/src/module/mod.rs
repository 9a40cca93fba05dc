//! MXNet's `Module`: a Symbol bound on one or several devices (a batch split across them,
//! as `DataParallelExecutorGroup`), its parameters, and the training step — forward,
//! backward, update through an optimizer or a KVStore.
//!
//! Names follow MXNet: data and label inputs by name (labels the symbol does not take are
//! dropped, so a `MakeLoss` network trains without labels); parameters are the other
//! arguments, minus `fixed_param_names`, which get no gradient. Every device holds its
//! own copy of each parameter; `get_params` averages them (as MXNet), `set_params` and
//! `init_params` copy to all. The module keeps no host copies of its own: parameters live
//! in the executors' arrays.
//!
//! Updates, as MXNet's `Module.update` (MXNET_SPEC §6): with one device and a `local`
//! store, no store is created and the optimizer updates each parameter under its index; with several devices the gradients go through the KVStore — updated in the store
//! (`update_on_kvstore`, the default: push the gradients, pull the weights) or summed there
//! and updated on every device under the key `index · devices + device`.
//!
//! A distributed store (kiln-dist, given as [`StoreChoice::Value`]) is used whatever the
//! device count: its initial values are worker 0's, pulled into every device; `rescale_grad`
//! defaults to 1/(batch · workers) for the synchronous types, as MXNet's. Parameters are
//! pushed last layer first, the order backward completes their gradients in, since a
//! distributed store sends them in the order they are pushed. With a store that updates on
//! servers (`dist_async`) the optimizer is sent to them and runs there (so
//! `update_on_kvstore` must hold), and its states are theirs: the module neither saves
//! nor loads them.

mod checkpoint;
mod evaluate;
mod fit;
mod split;

pub use checkpoint::states_path;
pub use fit::{BatchEnd, EpochEnd, Fit, OptimizerChoice};
pub use split::split_batch;

use crate::initializer::{InitDesc, Initializer, Rng};
use crate::metric::EvalMetric;
use crate::optimizer::Optimizer;
use crate::{Error, Result};
use kiln_compiler::autodiff::GradReq;
use kiln_compiler::Symbol;
use kiln_io::{DataBatch, DataDesc};
use kiln_kvstore::{KVStore, Key, Updater};
use kiln_ops::shape::fmt_shape;
use kiln_runtime::executor::GradReqs;
use kiln_runtime::{Device, Executor, NDArray};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::sync::{Arc, Mutex, MutexGuard};

/// How `fill_params` initializes a parameter not given: its name and array.
type InitFn<'a> = dyn FnMut(&str, &NDArray) -> Result<()> + 'a;

/// The store a module updates through (MXNet's `kvstore` argument): a type name, or a
/// store made by the caller (a distributed one from kiln-dist).
pub enum StoreChoice {
    Named(String),
    Value(KVStore),
}

impl From<&str> for StoreChoice {
    fn from(name: &str) -> StoreChoice {
        StoreChoice::Named(name.to_string())
    }
}

/// A Symbol with its data and label names, to be bound.
pub struct Module {
    symbol: Symbol,
    data_names: Vec<String>,
    label_names: Vec<String>,
    contexts: Vec<Device>,
    work_load: Vec<f64>,
    fixed_params: Vec<String>,
    param_names: Vec<String>,
    aux_names: Vec<String>,
    bound: Option<Bound>,
    params_initialized: bool,
    /// Shared with the store where the store runs the updates.
    optimizer: Option<Arc<Mutex<Optimizer>>>,
    /// Optimizer states to load when the optimizer is initialized (`Module::load`).
    preload_states: Option<std::path::PathBuf>,
    kvstore: Option<KVStore>,
    update_on_kvstore: bool,
}

/// The executors of a bound module, one per context, and the rows each takes.
struct Bound {
    execs: Vec<Executor>,
    slices: Vec<Range<usize>>,
    data_shapes: Vec<DataDesc>,
    label_shapes: Vec<DataDesc>,
    for_training: bool,
    /// Per device, its input arrays in the order of the data then the label shapes: looked
    /// up once, so a step costs no lookups.
    inputs: Vec<Vec<NDArray>>,
    /// Per parameter (in `param_names` order), its arrays on every device, and its
    /// gradients there (`None`: fixed).
    params: Vec<(Vec<NDArray>, Option<Vec<NDArray>>)>,
    /// Where each label of `label_shapes` sits among a batch's labels.
    label_positions: Vec<usize>,
}

impl Module {
    /// MXNet's `Module(symbol, data_names, label_names, context)`: every data name must be
    /// an argument of the symbol; label names it does not take are dropped.
    pub fn new(
        symbol: &Symbol,
        data_names: &[&str],
        label_names: &[&str],
        contexts: &[Device],
    ) -> Result<Module> {
        let arguments = symbol.list_arguments();
        for name in data_names {
            if !arguments.iter().any(|a| a == name) {
                return Err(Error::Input(format!(
                    "data `{name}` is not an argument of the symbol (arguments: {})",
                    arguments.join(", ")
                )));
            }
        }
        if contexts.is_empty() {
            return Err(Error::Input("a module needs at least one context".into()));
        }
        let label_names: Vec<String> = (label_names.iter())
            .filter(|l| arguments.iter().any(|a| a == *l))
            .map(|l| l.to_string())
            .collect();
        let data_names: Vec<String> = data_names.iter().map(|d| d.to_string()).collect();
        let param_names = (arguments.into_iter())
            .filter(|a| !data_names.contains(a) && !label_names.contains(a))
            .collect();
        Ok(Module {
            symbol: symbol.clone(),
            data_names,
            label_names,
            contexts: contexts.to_vec(),
            work_load: vec![1.0; contexts.len()],
            fixed_params: Vec::new(),
            param_names,
            aux_names: symbol.list_auxiliary_states(),
            bound: None,
            params_initialized: false,
            optimizer: None,
            preload_states: None,
            kvstore: None,
            update_on_kvstore: true,
        })
    }

    /// Parameters that are not trained (no gradient, no update): MXNet's
    /// `fixed_param_names`.
    pub fn with_fixed_params(mut self, names: &[&str]) -> Result<Module> {
        for name in names {
            if !self.param_names.iter().any(|p| p == name) {
                return Err(Error::Input(format!(
                    "fixed parameter `{name}` is not a parameter of the symbol"
                )));
            }
        }
        self.fixed_params = names.iter().map(|n| n.to_string()).collect();
        Ok(self)
    }

    /// Each context's share of a batch (MXNet's `work_load_list`; equal by default).
    pub fn with_work_load(mut self, work_load: &[f64]) -> Result<Module> {
        if work_load.len() != self.contexts.len() {
            return Err(Error::Input(format!(
                "work_load_list has {} entries for {} contexts",
                work_load.len(),
                self.contexts.len()
            )));
        }
        self.work_load = work_load.to_vec();
        Ok(self)
    }

    pub fn symbol(&self) -> &Symbol {
        &self.symbol
    }
    pub fn data_names(&self) -> &[String] {
        &self.data_names
    }
    pub fn label_names(&self) -> &[String] {
        &self.label_names
    }
    pub fn param_names(&self) -> &[String] {
        &self.param_names
    }
    pub fn aux_names(&self) -> &[String] {
        &self.aux_names
    }
    pub fn contexts(&self) -> &[Device] {
        &self.contexts
    }
    pub fn binded(&self) -> bool {
        self.bound.is_some()
    }
    /// The executors bound, one per context (MXNet's `_exec_group.execs`); none before
    /// `bind`.
    pub fn executors(&self) -> &[Executor] {
        self.bound.as_ref().map_or(&[], |b| &b.execs)
    }
    pub fn params_initialized(&self) -> bool {
        self.params_initialized
    }
    pub fn optimizer_initialized(&self) -> bool {
        self.optimizer.is_some()
    }

    fn bound(&self, what: &str) -> Result<&Bound> {
        self.bound.as_ref().ok_or_else(|| {
            Error::Input(format!("{what}: the module is not bound (call bind first)"))
        })
    }

    /// MXNet's `bind`: one executor per context, each for its share of the batch.
    /// `data_shapes` and `label_shapes` name every data and label input (labels the
    /// symbol does not take are ignored); the first axis is the batch.
    pub fn bind(
        &mut self,
        data_shapes: &[DataDesc],
        label_shapes: &[DataDesc],
        for_training: bool,
        inputs_need_grad: bool,
        grad_req: GradReq,
    ) -> Result<()> {
        // Where each label the module takes sits among the batch's labels.
        let label_positions: Vec<usize> = (label_shapes.iter().enumerate())
            .filter(|(_, d)| self.label_names.contains(&d.name))
            .map(|(i, _)| i)
            .collect();
        let label_shapes: Vec<DataDesc> = label_positions
            .iter()
            .map(|&i| label_shapes[i].clone())
            .collect();
        for (descs, names, what) in [
            (data_shapes, &self.data_names, "data"),
            (&label_shapes[..], &self.label_names, "label"),
        ] {
            for name in names {
                if !descs.iter().any(|d| &d.name == name) {
                    return Err(Error::Input(format!(
                        "bind: no shape given for {what} `{name}`"
                    )));
                }
            }
            if let Some(d) = descs.iter().find(|d| !names.contains(&d.name)) {
                return Err(Error::Input(format!(
                    "bind: `{}` is not a {what} input of the module ({what}: {})",
                    d.name,
                    names.join(", ")
                )));
            }
        }
        let batch = data_shapes.first().and_then(|d| d.shape.first()).copied();
        let batch = batch.filter(|&b| b > 0).ok_or_else(|| {
            Error::Input("bind: the data shapes need a batch axis of at least one row".into())
        })?;
        if let Some(d) = data_shapes
            .iter()
            .chain(&label_shapes)
            .find(|d| d.shape.first() != Some(&batch))
        {
            return Err(Error::Input(format!(
                "bind: `{}` has shape {} but the batch has {batch} rows",
                d.name,
                fmt_shape(&d.shape)
            )));
        }
        let slices = split_batch(batch, &self.work_load)?;
        let mut reqs = HashMap::new();
        if for_training {
            for p in &self.param_names {
                let fixed = self.fixed_params.contains(p);
                reqs.insert(p.clone(), if fixed { GradReq::Null } else { grad_req });
            }
            for d in &self.data_names {
                reqs.insert(
                    d.clone(),
                    if inputs_need_grad {
                        GradReq::Write
                    } else {
                        GradReq::Null
                    },
                );
            }
        }
        let mut execs = Vec::with_capacity(self.contexts.len());
        for (device, rows) in self.contexts.iter().zip(&slices) {
            let shapes: Vec<(String, Vec<usize>)> = (data_shapes.iter().chain(&label_shapes))
                .map(|d| {
                    let mut s = d.shape.clone();
                    s[0] = rows.len();
                    (d.name.clone(), s)
                })
                .collect();
            let shapes: Vec<(&str, &[usize])> = shapes
                .iter()
                .map(|(n, s)| (n.as_str(), s.as_slice()))
                .collect();
            let reqs = match for_training {
                true => GradReqs::Each(reqs.clone()),
                false => GradReqs::All(GradReq::Null),
            };
            execs.push(Executor::simple_bind(&self.symbol, *device, &shapes, reqs)?);
        }
        // A rebind keeps the parameters the module had.
        if let (Some(old), true) = (&self.bound, self.params_initialized) {
            let (args, aux) = (old.execs[0].arg_dict(), old.execs[0].aux_dict());
            let args = only(&args, &self.param_names);
            for e in &execs {
                e.copy_params_from(&args, &aux, true)?;
            }
        }
        let arguments = self.symbol.list_arguments();
        let index = |name: &str| {
            arguments
                .iter()
                .position(|a| a == name)
                .expect("an argument")
        };
        let inputs = (execs.iter())
            .map(|e| {
                (data_shapes.iter().chain(&label_shapes))
                    .map(|d| e.arg_arrays()[index(&d.name)].clone())
                    .collect()
            })
            .collect();
        let params = (self.param_names.iter())
            .map(|name| {
                let i = index(name);
                let weights = execs.iter().map(|e| e.arg_arrays()[i].clone()).collect();
                let grads = execs.iter().map(|e| e.grad_arrays()[i].clone()).collect();
                (weights, grads)
            })
            .collect();
        self.bound = Some(Bound {
            execs,
            slices,
            data_shapes: data_shapes.to_vec(),
            label_shapes,
            for_training,
            inputs,
            params,
            label_positions,
        });
        Ok(())
    }

    /// MXNet's `init_params`: parameters from `arg_params`/`aux_params` where given, the
    /// others from `initializer` (each by its name and its variable's attributes, so an
    /// `__init__` attribute wins; random ones drawn from `rng`, in MXNet's order: names
    /// sorted, arguments then aux states) — unless some were given and `allow_missing` is
    /// false, which makes a missing one an error. Names the module does not have are
    /// ignored, as MXNet does. Already initialized parameters are kept unless `force_init`.
    pub fn init_params(
        &mut self,
        initializer: &dyn Initializer,
        rng: &mut Rng,
        arg_params: Option<&HashMap<String, NDArray>>,
        aux_params: Option<&HashMap<String, NDArray>>,
        allow_missing: bool,
        force_init: bool,
    ) -> Result<()> {
        if self.params_initialized && !force_init {
            return Ok(());
        }
        let attrs = self.symbol.attr_dict();
        let mut init =
            |name: &str, array: &NDArray| initializer.init(&init_desc(&attrs, name), array, rng);
        self.fill_params(Some(&mut init), arg_params, aux_params, allow_missing)
    }

    /// `init_params`' and `set_params`' work: the given values copied in, missing ones
    /// from `init` (left as they are without one), then every device given the first
    /// one's values.
    fn fill_params(
        &mut self,
        mut init: Option<&mut InitFn<'_>>,
        arg_params: Option<&HashMap<String, NDArray>>,
        aux_params: Option<&HashMap<String, NDArray>>,
        allow_missing: bool,
    ) -> Result<()> {
        let bound = self.bound("init_params")?;
        let first = &bound.execs[0];
        let sorted = |names: &[String]| {
            let mut names = names.to_vec();
            names.sort();
            names
        };
        for (given, names, arrays, what) in [
            (
                arg_params,
                sorted(&self.param_names),
                first.arg_dict(),
                "parameter",
            ),
            (
                aux_params,
                sorted(&self.aux_names),
                first.aux_dict(),
                "aux state",
            ),
        ] {
            for name in &names {
                let array = &arrays[name];
                match given.and_then(|g| g.get(name)) {
                    Some(value) => {
                        if value.shape() != array.shape() {
                            return Err(Error::Input(format!(
                                "init_params: {what} `{name}` has shape {} but the module needs {}",
                                fmt_shape(value.shape()),
                                fmt_shape(array.shape())
                            )));
                        }
                        array.copy_from(value)?;
                    }
                    None if given.is_some() && !allow_missing => {
                        return Err(Error::Input(format!(
                            "init_params: {what} `{name}` is missing from the given parameters"
                        )))
                    }
                    None => {
                        if let Some(init) = init.as_mut() {
                            init(name, array)?;
                        }
                    }
                }
            }
        }
        // Every device starts from the first one's values.
        let (args, aux) = (only(&first.arg_dict(), &self.param_names), first.aux_dict());
        for e in &bound.execs[1..] {
            e.copy_params_from(&args, &aux, false)?;
        }
        self.params_initialized = true;
        Ok(())
    }

    /// MXNet's `get_params`: each parameter and aux state averaged over the devices, as
    /// new arrays.
    pub fn get_params(&self) -> Result<(HashMap<String, NDArray>, HashMap<String, NDArray>)> {
        let bound = self.bound("get_params")?;
        let average = |names: &[String], dict: &dyn Fn(&Executor) -> HashMap<String, NDArray>| {
            let dicts: Vec<_> = bound.execs.iter().map(dict).collect();
            let mut out = HashMap::new();
            for name in names {
                let mut sum = dicts[0][name].copy_to(Device::Cpu)?;
                for d in &dicts[1..] {
                    sum += &d[name];
                }
                if dicts.len() > 1 {
                    sum /= dicts.len() as f64;
                }
                out.insert(name.clone(), sum);
            }
            Ok::<_, Error>(out)
        };
        Ok((
            average(&self.param_names, &|e| e.arg_dict())?,
            average(&self.aux_names, &|e| e.aux_dict())?,
        ))
    }

    /// MXNet's `set_params`: the given values on every device. Without `allow_missing`
    /// every parameter must be given (names the module lacks are ignored); with it, the
    /// missing ones keep their values, and names the module lacks are an error unless
    /// `allow_extra`.
    pub fn set_params(
        &mut self,
        arg_params: &HashMap<String, NDArray>,
        aux_params: &HashMap<String, NDArray>,
        allow_missing: bool,
        allow_extra: bool,
    ) -> Result<()> {
        if allow_missing && !allow_extra {
            for (given, names, what) in [
                (arg_params, &self.param_names, "parameter"),
                (aux_params, &self.aux_names, "aux state"),
            ] {
                if let Some(extra) = given.keys().find(|k| !names.contains(k)) {
                    return Err(Error::Input(format!(
                        "set_params: `{extra}` is not a {what} of the module"
                    )));
                }
            }
        }
        self.fill_params(None, Some(arg_params), Some(aux_params), allow_missing)
    }

    /// MXNet's `init_optimizer` with an optimizer by name: `kwargs` as Python writes them,
    /// `rescale_grad` set to 1/batch size unless given (MXNet's default; the batch of all
    /// workers with a synchronous distributed store).
    pub fn init_optimizer_by_name(
        &mut self,
        kvstore: Option<StoreChoice>,
        optimizer: &str,
        kwargs: &[(&str, &str)],
    ) -> Result<()> {
        let store = self.open_store(kvstore)?;
        let mut batch = self.bound("init_optimizer")?.data_shapes[0].shape[0];
        // MXNet's test, on the type's name as given.
        if let Some(kv) = store.as_ref() {
            if kv.type_name().contains("dist") && kv.type_name().contains("_sync") {
                batch *= kv.num_workers();
            }
        }
        let rescale = format!("{}", 1.0 / batch as f64);
        let mut kwargs = kwargs.to_vec();
        if !kwargs.iter().any(|(k, _)| *k == "rescale_grad") {
            kwargs.push(("rescale_grad", &rescale));
        }
        let optimizer = Optimizer::create(optimizer, &kwargs)?;
        self.install_optimizer(store, optimizer, true)
    }

    /// MXNet's `init_optimizer`: where `optimizer`'s updates run. `kvstore` names the store
    /// or is one (`None`: none); with several contexts one is needed to sum their
    /// gradients. A one-context `local` store is not created, as MXNet does;
    /// `update_on_kvstore` runs the updates in the store. The optimizer learns the
    /// parameters' names (by update index) and the symbol's `__lr_mult__`/`__wd_mult__`.
    pub fn init_optimizer(
        &mut self,
        kvstore: Option<StoreChoice>,
        optimizer: Optimizer,
        update_on_kvstore: bool,
    ) -> Result<()> {
        let store = self.open_store(kvstore)?;
        self.install_optimizer(store, optimizer, update_on_kvstore)
    }

    /// The store `kvstore` says, checked against the bound module: none where one
    /// context needs none (a name is checked even then).
    fn open_store(&self, kvstore: Option<StoreChoice>) -> Result<Option<KVStore>> {
        let bound = self.bound("init_optimizer")?;
        if !self.params_initialized {
            return Err(Error::Input(
                "init_optimizer: parameters are not initialized".into(),
            ));
        }
        let devices = bound.execs.len();
        Ok(match kvstore {
            Some(StoreChoice::Value(store)) => Some(store),
            Some(StoreChoice::Named(name)) => Some(KVStore::create(&name)?).filter(|_| devices > 1),
            None if devices > 1 => {
                return Err(Error::Input(format!(
                    "{devices} contexts need a kvstore to sum their gradients (local or device)"
                )))
            }
            None => None,
        })
    }

    fn install_optimizer(
        &mut self,
        store: Option<KVStore>,
        mut optimizer: Optimizer,
        update_on_kvstore: bool,
    ) -> Result<()> {
        if let Some(kv) = store.as_ref().filter(|kv| kv.updates_on_servers()) {
            if !update_on_kvstore {
                return Err(Error::Input(format!(
                    "kvstore `{}`: the servers run the optimizer; update_on_kvstore must be true",
                    kv.type_name()
                )));
            }
        }
        self.update_on_kvstore = store.is_some() && update_on_kvstore;
        let bound = self.bound("init_optimizer")?;
        let devices = bound.execs.len();
        // Updated in the store, a parameter is one index; on the devices, one per device.
        let per_index = if self.update_on_kvstore { 1 } else { devices };
        let names = (self.param_names.iter().enumerate())
            .flat_map(|(i, n)| (0..per_index).map(move |k| (i * per_index + k, n.clone())));
        optimizer.set_param_names(names);
        optimizer.set_symbol(&self.symbol)?;
        let optimizer = Arc::new(Mutex::new(optimizer));
        if let Some(mut kv) = store {
            for (i, (weights, _)) in bound.params.iter().enumerate() {
                kv.init(i as i64, &weights[0])?;
                // Every device starts from the store's value: worker 0's in a distributed
                // job.
                if self.update_on_kvstore || kv.is_distributed() {
                    kv.pull(i as i64, weights, -(i as i32))?;
                }
            }
            if self.update_on_kvstore {
                kv.set_updater(Box::new(SharedOptimizer(optimizer.clone())))?;
            }
            self.kvstore = Some(kv);
        }
        self.optimizer = Some(optimizer);
        if let Some(path) = self.preload_states.take() {
            self.load_optimizer_states(&path)?;
        }
        Ok(())
    }

    /// The store the module updates through, once `init_optimizer` made or took one (for a
    /// distributed job's `barrier`, or pulling the servers' latest values).
    pub fn kvstore(&mut self) -> Option<&mut KVStore> {
        self.kvstore.as_mut()
    }

    /// The optimizer, once `init_optimizer` ran (shared with the store that runs it).
    pub fn optimizer(&self) -> Option<MutexGuard<'_, Optimizer>> {
        let optimizer = self.optimizer.as_ref()?;
        Some(
            optimizer
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }

    /// MXNet's `forward`: the batch's rows of each device copied into its executor, then
    /// its forward pass (`is_train` defaults to how the module was bound). Labels are
    /// copied where the module takes them.
    pub fn forward(&mut self, batch: &DataBatch, is_train: Option<bool>) -> Result<()> {
        let bound = self.bound("forward")?;
        let is_train = is_train.unwrap_or(bound.for_training);
        if !self.params_initialized {
            return Err(Error::Input(
                "forward: the parameters are not initialized (call init_params)".into(),
            ));
        }
        // A batch without labels (prediction) leaves the label inputs as they are.
        let labels: Vec<&NDArray> = match batch.label.is_empty() {
            true => Vec::new(),
            false => (bound.label_positions.iter())
                .map(|&i| batch.label.get(i))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    Error::Input(format!(
                        "forward: the batch has {} label arrays; the module was bound with {}",
                        batch.label.len(),
                        bound.label_positions.iter().max().map_or(0, |m| m + 1)
                    ))
                })?,
        };
        if batch.data.len() != bound.data_shapes.len() {
            return Err(Error::Input(format!(
                "forward: the batch has {} data arrays; the module takes {}",
                batch.data.len(),
                bound.data_shapes.len()
            )));
        }
        let inputs = (bound.data_shapes.iter().zip(batch.data.iter()))
            .chain(bound.label_shapes.iter().zip(labels.iter().copied()));
        for (desc, array) in inputs.clone() {
            if array.shape() != desc.shape.as_slice() {
                return Err(Error::Input(format!(
                    "forward: `{}` has shape {} but the module was bound for {}",
                    desc.name,
                    fmt_shape(array.shape()),
                    fmt_shape(&desc.shape)
                )));
            }
        }
        for ((exec, rows), targets) in bound.execs.iter().zip(&bound.slices).zip(&bound.inputs) {
            for (target, (_, array)) in targets.iter().zip(inputs.clone()) {
                match bound.execs.len() {
                    1 => target.copy_from(array)?,
                    _ => target.copy_from(&array.slice(rows.start, rows.end)?)?,
                }
            }
            exec.forward(is_train);
        }
        Ok(())
    }

    /// Restarts the random streams of the module's executors (Dropout masks, samplers)
    /// from `seed`, each device's its own stream of it, after the passes pushed so far.
    pub fn seed_random(&self, seed: u64) -> Result<()> {
        let bound = self.bound("seed_random")?;
        for (i, exec) in bound.execs.iter().enumerate() {
            exec.seed_random(kiln_ops::random::subseed(seed, i as u64));
        }
        Ok(())
    }

    /// MXNet's `backward`: `out_grads` for outputs that are not losses (split across the
    /// devices along the batch), none for loss heads.
    pub fn backward(&self, out_grads: &[NDArray]) -> Result<()> {
        let bound = self.bound("backward")?;
        if !bound.for_training {
            return Err(Error::Input(
                "backward: the module was bound for inference (for_training=false)".into(),
            ));
        }
        for (exec, rows) in bound.execs.iter().zip(&bound.slices) {
            let grads: Vec<NDArray> = match bound.execs.len() {
                1 => out_grads.to_vec(),
                _ => (out_grads.iter())
                    .map(|g| g.slice(rows.start, rows.end))
                    .collect::<kiln_runtime::Result<_>>()?,
            };
            exec.backward(&grads)?;
        }
        Ok(())
    }

    /// MXNet's `update`: every trained parameter updated from its gradients (see the
    /// module's doc for where), later layers first.
    pub fn update(&mut self) -> Result<()> {
        let Some(optimizer) = self.optimizer.clone() else {
            return Err(Error::Input(
                "update: the optimizer is not initialized (call init_optimizer)".into(),
            ));
        };
        let bound = (self.bound.as_ref())
            .ok_or_else(|| Error::Input("update: the module is not bound".into()))?;
        let devices = bound.execs.len();
        let on_kvstore = self.update_on_kvstore;
        let mut local: Vec<(usize, &NDArray, &NDArray)> = Vec::new();
        // A distributed store sends small arrays in buckets (one message each).
        let mut bucket = Bucket::default();
        // Later layers first: their gradients are complete first, so their communication
        // and the operations aggregating their updates start while backward goes on.
        for (i, (w, g)) in bound.params.iter().enumerate().rev() {
            let Some(g) = g else {
                continue; // fixed: no gradient
            };
            match &mut self.kvstore {
                Some(kv) if kv.is_distributed() => {
                    if !bucket.fits(g[0].nbytes()) {
                        bucket.send(kv, &bound.params, on_kvstore, &mut local)?;
                    }
                    bucket.add(i, g[0].nbytes());
                }
                // Later layers' gradients are ready first: they go first (MXNet's
                // priority -i).
                Some(kv) if on_kvstore => {
                    kv.push(i as i64, g, -(i as i32))?;
                    kv.pull(i as i64, w, -(i as i32))?;
                }
                Some(kv) => {
                    kv.pushpull(i as i64, g, &[], -(i as i32))?;
                    local.extend((0..devices).map(|k| (i * devices + k, &w[k], &g[k])));
                }
                None => local.push((i, &w[0], &g[0])),
            }
        }
        if let Some(kv) = &mut self.kvstore {
            bucket.send(kv, &bound.params, on_kvstore, &mut local)?;
        }
        if !local.is_empty() {
            lock(&optimizer).update_multi(&local)?;
        }
        Ok(())
    }

    /// An update from zero gradients: a distributed worker with no batch left takes part
    /// in its peers' step without changing the sum.
    fn push_zero_gradients(&mut self) -> Result<()> {
        let bound = self.bound("update")?;
        for grads in bound.params.iter().filter_map(|(_, g)| g.as_ref()) {
            for g in grads {
                g.copy_from(&NDArray::zeros(g.shape(), g.dtype(), g.device())?)?;
            }
        }
        self.update()
    }

    /// MXNet's `forward_backward`: a training forward pass, then backward.
    pub fn forward_backward(&mut self, batch: &DataBatch) -> Result<()> {
        self.forward(batch, Some(true))?;
        self.backward(&[])
    }

    /// MXNet's `get_outputs`: each output, the devices' parts concatenated along the batch
    /// (`merge_multi_context`), or per device.
    pub fn get_outputs(&self) -> Result<Vec<NDArray>> {
        let bound = self.bound("get_outputs")?;
        if bound.execs.len() == 1 {
            return Ok(bound.execs[0].outputs().to_vec());
        }
        let outputs = bound.execs[0].outputs().len();
        (0..outputs)
            .map(|o| {
                let mut call = NDArray::op("Concat")
                    .attr("dim", "0")
                    .attr("num_args", bound.execs.len());
                for e in &bound.execs {
                    call = call.arg(&e.outputs()[o]);
                }
                let mut out = call.build().map_err(kiln_runtime::Error::from)?;
                Ok(out.swap_remove(0))
            })
            .collect()
    }

    /// MXNet's `update_metric`: `metric` updated per device with its rows of `labels` and
    /// its outputs (so a metric averaged per update, as RMSE, sees each device's part).
    pub fn update_metric(&self, metric: &mut dyn EvalMetric, labels: &[NDArray]) -> Result<()> {
        let bound = self.bound("update_metric")?;
        for (exec, rows) in bound.execs.iter().zip(&bound.slices) {
            let labels: Vec<NDArray> = match bound.execs.len() {
                1 => labels.to_vec(),
                _ => (labels.iter())
                    .map(|l| l.slice(rows.start, rows.end))
                    .collect::<kiln_runtime::Result<_>>()?,
            };
            metric.update(&labels, exec.outputs())?;
        }
        Ok(())
    }
}

/// Parameters whose gradients a distributed store sends as one message: consecutive
/// ones (in the order backward completes them) up to `BUCKET_BYTES`, so that small
/// arrays (biases, BatchNorm's) share a collective while a large one goes alone and
/// early — PyTorch DDP's buckets, smaller, since every rank here shares the first
/// bucket's wait. Every worker makes the same buckets: their collectives match.
#[derive(Default)]
struct Bucket {
    params: Vec<usize>,
    bytes: usize,
}

const BUCKET_BYTES: usize = 1 << 20;

impl Bucket {
    fn fits(&self, bytes: usize) -> bool {
        self.params.is_empty() || self.bytes + bytes <= BUCKET_BYTES
    }

    fn add(&mut self, param: usize, bytes: usize) {
        self.params.push(param);
        self.bytes += bytes;
    }

    /// Pushes the bucket's gradients as one message (priority: its first, latest
    /// layer's), then pulls the weights (updated in the store) or the summed gradients
    /// (for `local` updates on every device), together too; empties the bucket.
    fn send<'a>(
        &mut self,
        kv: &mut KVStore,
        params: &'a [(Vec<NDArray>, Option<Vec<NDArray>>)],
        on_kvstore: bool,
        local: &mut Vec<(usize, &'a NDArray, &'a NDArray)>,
    ) -> Result<()> {
        let Some(&first) = self.params.first() else {
            return Ok(());
        };
        let priority = -(first as i32);
        let keys: Vec<Key> = self.params.iter().map(|&i| Key::Int(i as i64)).collect();
        let values: Vec<&[NDArray]> = (self.params.iter())
            .filter_map(|&i| params[i].1.as_deref())
            .collect();
        kv.push_bucket(&keys, &values, priority)?;
        let outs: Vec<&[NDArray]> = (self.params.iter())
            .map(|&i| match on_kvstore {
                true => &params[i].0[..],
                false => params[i].1.as_deref().unwrap_or_default(),
            })
            .collect();
        kv.pull_bucket(&keys, &outs, priority)?;
        if !on_kvstore {
            for &i in &self.params {
                if let (w, Some(g)) = &params[i] {
                    let devices = w.len();
                    local.extend((0..devices).map(|k| (i * devices + k, &w[k], &g[k])));
                }
            }
        }
        self.params.clear();
        self.bytes = 0;
        Ok(())
    }
}

fn lock(optimizer: &Mutex<Optimizer>) -> MutexGuard<'_, Optimizer> {
    // A panic while updating leaves the optimizer's bookkeeping as good as any: keep going.
    optimizer
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The module's optimizer as the store's updater.
struct SharedOptimizer(Arc<Mutex<Optimizer>>);

impl Updater for SharedOptimizer {
    fn update(
        &mut self,
        key: &Key,
        merged: &NDArray,
        stored: &NDArray,
    ) -> kiln_runtime::Result<()> {
        Updater::update(&mut *lock(&self.0), key, merged, stored)
    }

    fn spec(&self) -> Option<String> {
        Some(lock(&self.0).spec())
    }
}

/// The entries of `map` named in `names`.
fn only(map: &HashMap<String, NDArray>, names: &[String]) -> HashMap<String, NDArray> {
    (map.iter())
        .filter(|(n, _)| names.contains(n))
        .map(|(n, a)| (n.clone(), a.clone()))
        .collect()
}

/// MXNet's `InitDesc` of variable `name`: its name and its attributes in the symbol.
pub fn init_desc(attrs: &BTreeMap<String, BTreeMap<String, String>>, name: &str) -> InitDesc {
    let mut desc = InitDesc::new(name);
    for (k, v) in attrs.get(name).into_iter().flatten() {
        desc = desc.with_attr(k.clone(), v.clone());
    }
    desc
}
