//! The store of one process: `local` and `device` (see the crate's contract).

use crate::compression::GradientCompression;
use crate::{reduce, Error, Key, Remote, Result};
use kiln_ops::shape::fmt_shape;
use kiln_runtime::{Device, Engine, NDArray, Operator};
use std::collections::HashMap;
use std::sync::Arc;

/// MXNet's store types within one process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Sums on the CPU (MXNet's CommCPU).
    Local,
    /// Sums on the devices (MXNet's CommDevice); on CPU arrays, as `Local`.
    Device,
}

/// What a push hands a key's summed value to: MXNet's updater (kiln-train's optimizers
/// implement it). Called on the pushing thread with the sum and the stored value; it
/// pushes engine operations reading the first and writing the second, and returns.
pub trait Updater: Send {
    fn update(&mut self, key: &Key, merged: &NDArray, stored: &NDArray)
        -> kiln_runtime::Result<()>;

    /// A description from which another process can make the same updater (MXNet pickles
    /// its optimizer for the servers), or `None` for one that cannot leave this process,
    /// as a closure.
    fn spec(&self) -> Option<String> {
        None
    }
}

impl<F> Updater for F
where
    F: FnMut(&Key, &NDArray, &NDArray) -> kiln_runtime::Result<()> + Send,
{
    fn update(
        &mut self,
        key: &Key,
        merged: &NDArray,
        stored: &NDArray,
    ) -> kiln_runtime::Result<()> {
        self(key, merged, stored)
    }
}

/// A store: of one process, or with a [`Remote`] the worker's side of a distributed one.
pub struct KVStore {
    kind: Kind,
    entries: HashMap<Key, Entry>,
    updater: Option<Box<dyn Updater>>,
    remote: Option<Box<dyn Remote>>,
}

struct Entry {
    stored: NDArray,
    /// Where the values of several devices are summed for the updater or the remote
    /// (MXNet's merge buffer), made at the first such push.
    merged: Option<NDArray>,
    /// Where the remote writes the sum over the workers, made at the first push.
    global: Option<NDArray>,
    /// The first level's operation (the devices' sum).
    push: Option<Cached>,
    /// The copy of the workers' sum into the stored value, without an updater.
    replace: Option<Cached>,
    /// One per output array of the latest pulls.
    pulls: Vec<Option<Cached>>,
}

/// An operation pre-created for these arrays (sources, then destination), reused while
/// the same arrays come back.
struct Cached {
    arrays: Vec<NDArray>,
    op: Arc<Operator>,
}

/// The cached operation of `slot` if it was made for `arrays`, else a new one.
fn reuse(
    slot: &mut Option<Cached>,
    name: &str,
    sources: &[NDArray],
    dest: &NDArray,
) -> Result<Arc<Operator>> {
    let same = |c: &Cached| {
        c.arrays.len() == sources.len() + 1
            && (c.arrays.iter())
                .zip(sources.iter().chain([dest]))
                .all(|(a, b)| a.same_elements(b))
    };
    match slot {
        Some(c) if same(c) => Ok(c.op.clone()),
        _ => {
            let op = reduce::operator(name, sources, dest)?;
            let mut arrays = sources.to_vec();
            arrays.push(dest.clone());
            *slot = Some(Cached {
                arrays,
                op: op.clone(),
            });
            Ok(op)
        }
    }
}

impl KVStore {
    /// A store of MXNet's type `name`: `local` or `device` (names containing them, as
    /// MXNet's `local_allreduce_cpu`, match). The distributed and NCCL types are refused
    /// with the reason.
    pub fn create(name: &str) -> Result<KVStore> {
        let lower = name.to_lowercase();
        let kind = if lower.contains("dist") {
            return Err(Error::Input(format!(
                "kvstore `{name}`: a distributed store is made by kiln-dist (`kiln_dist::create`; kiln's `mpi` feature)"
            )));
        } else if lower.contains("nccl") {
            return Err(Error::Input(format!(
                "kvstore `{name}`: NCCL needs kiln's GPU backend; use `local` or `device`"
            )));
        } else if lower.contains("device") {
            Kind::Device
        } else if lower.contains("local") {
            Kind::Local
        } else {
            return Err(Error::Input(format!(
                "unknown kvstore type `{name}` (local, device)"
            )));
        };
        Ok(KVStore::new(kind))
    }

    pub fn new(kind: Kind) -> KVStore {
        KVStore {
            kind,
            entries: HashMap::new(),
            updater: None,
            remote: None,
        }
    }

    /// A worker's store of a distributed job: `kind` sums its devices, `remote` the
    /// workers (see the crate's contract).
    pub fn with_remote(kind: Kind, remote: Box<dyn Remote>) -> KVStore {
        KVStore {
            remote: Some(remote),
            ..KVStore::new(kind)
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// MXNet's type name.
    pub fn type_name(&self) -> &str {
        match (&self.remote, self.kind) {
            (Some(remote), _) => remote.type_name(),
            (None, Kind::Local) => "local",
            (None, Kind::Device) => "device",
        }
    }

    /// This process's rank among the workers (0 without a remote).
    pub fn rank(&self) -> usize {
        self.remote.as_ref().map_or(0, |r| r.rank())
    }

    /// The number of workers (1 without a remote).
    pub fn num_workers(&self) -> usize {
        self.remote.as_ref().map_or(1, |r| r.num_workers())
    }

    /// Whether pushes are summed over several processes.
    pub fn is_distributed(&self) -> bool {
        self.remote.is_some()
    }

    /// With a remote, ends the job after `error` (see [`Remote::abort`]); without one,
    /// returns: the error is the caller's alone.
    pub fn abort_if_distributed(&self, error: &dyn std::fmt::Display) {
        if let Some(remote) = &self.remote {
            remote.abort(&error.to_string());
        }
    }

    /// MXNet's `set_gradient_compression`: `{'type': '2bit', 'threshold': t}` compresses
    /// what pushes send between workers (`none` switches it off). Only a distributed store
    /// compresses: a store of one process sums its devices in memory, where 2-bit codes
    /// would only lose precision.
    pub fn set_gradient_compression(&mut self, params: &[(&str, &str)]) -> Result<()> {
        let compression = GradientCompression::from_params(params.iter().copied())?;
        match &mut self.remote {
            Some(remote) => remote.set_compression(compression),
            None => Err(Error::Input(format!(
                "set_gradient_compression: kvstore `{}` sums in memory; gradients are compressed between the workers of a dist store",
                self.type_name()
            ))),
        }
    }

    /// How many workers pass `this` as true (this worker alone without a remote).
    pub fn count_workers(&mut self, this: bool) -> Result<usize> {
        match &mut self.remote {
            Some(remote) => remote.count(this),
            None => Ok(this.into()),
        }
    }

    /// MXNet's `barrier`: blocks until every worker has called it (at once without a
    /// remote).
    pub fn barrier(&mut self) -> Result<()> {
        match &mut self.remote {
            Some(remote) => remote.barrier(),
            None => Ok(()),
        }
    }

    /// Whether the values live on servers that apply each push as it arrives (`dist_async`):
    /// a pull fetches their value, and the optimizer runs there.
    pub fn updates_on_servers(&self) -> bool {
        self.remote.as_ref().is_some_and(|r| r.updates_on_servers())
    }

    /// Sets what pushes hand their sums to; without one, a push replaces the stored value.
    /// A store that updates on servers sends them the updater's [`Updater::spec`] (the
    /// servers make it again), and refuses one without.
    pub fn set_updater(&mut self, updater: Box<dyn Updater>) -> Result<()> {
        match &mut self.remote {
            Some(remote) if remote.updates_on_servers() => {
                let spec = updater.spec().ok_or_else(|| {
                    Error::Input(format!(
                        "kvstore `{}`: the servers run the updates, and this updater cannot be sent to them (a closure); give an optimizer",
                        remote.type_name()
                    ))
                })?;
                remote.set_optimizer(&spec)
            }
            _ => {
                self.updater = Some(updater);
                Ok(())
            }
        }
    }

    /// MXNet's `set_optimizer`: pushes hand their sums to `optimizer` (kiln-train's
    /// `Optimizer` is an updater). A synchronous distributed store runs it on every worker
    /// on the same sums, so every worker holds the weights one server would; an
    /// asynchronous one sends it to the servers.
    pub fn set_optimizer(&mut self, optimizer: impl Updater + 'static) -> Result<()> {
        self.set_updater(Box::new(optimizer))
    }

    /// Stores a copy of `value` under `key`, which must be new and of the store's key type.
    pub fn init(&mut self, key: impl Into<Key>, value: &NDArray) -> Result<()> {
        let key = key.into();
        if self.entries.contains_key(&key) {
            return Err(Error::Input(format!("duplicate init of key {key}")));
        }
        if let Some(other) = self.entries.keys().find(|k| k.kind() != key.kind()) {
            return Err(Error::Input(format!(
                "key {key} is a {} but the store's keys are {}s (as {other}): one type of key per store",
                key.kind(),
                other.kind()
            )));
        }
        let stored = NDArray::zeros(value.shape(), value.dtype(), Device::Cpu)?;
        let mut copy = None;
        let op = reuse(
            &mut copy,
            "kvstore_init",
            std::slice::from_ref(value),
            &stored,
        )?;
        Engine::global().push(&op, 0);
        if let Some(remote) = &mut self.remote {
            remote.init(&key, &stored)?;
        }
        self.entries.insert(
            key,
            Entry {
                stored,
                merged: None,
                global: None,
                push: None,
                replace: None,
                pulls: Vec::new(),
            },
        );
        Ok(())
    }

    /// Pushes `values` (one per device) to `key`: their sum (over the workers too, with a
    /// remote) goes to the updater, or replaces the stored value. Returns at once; the
    /// work runs on the engine at `priority`.
    pub fn push(&mut self, key: impl Into<Key>, values: &[NDArray], priority: i32) -> Result<()> {
        self.push_bucket(&[key.into()], &[values], priority)
    }

    /// Pushes several keys (each with its values, one per device) as [`KVStore::push`]
    /// does each, except that a remote sends them as one message: a bucket of small
    /// arrays costs the workers one collective instead of one per key. The sums are the
    /// same as pushing the keys one by one.
    pub fn push_bucket(
        &mut self,
        keys: &[Key],
        values: &[&[NDArray]],
        priority: i32,
    ) -> Result<()> {
        if keys.len() != values.len() {
            return Err(Error::Input(format!(
                "push: {} keys but {} lists of values",
                keys.len(),
                values.len()
            )));
        }
        // Level 1: each key's devices.
        let mut locals = Vec::with_capacity(keys.len());
        let mut globals = Vec::with_capacity(keys.len());
        for (key, values) in keys.iter().zip(values) {
            let entry = self
                .entries
                .get_mut(key)
                .ok_or_else(|| uninitialized(key))?;
            if values.is_empty() {
                return Err(Error::Input(format!("push to key {key}: no values")));
            }
            for v in values.iter() {
                fits(key, "push", v, &entry.stored)?;
            }
            if self.updater.is_none() && self.remote.is_none() {
                let op = reuse(&mut entry.push, "kvstore_push", values, &entry.stored)?;
                Engine::global().push(&op, priority);
                continue;
            }
            locals.push(match values {
                [one] => one.clone(),
                _ => {
                    let merged = buffer(&mut entry.merged, &entry.stored)?;
                    let op = reuse(&mut entry.push, "kvstore_reduce", values, &merged)?;
                    Engine::global().push(&op, priority);
                    merged
                }
            });
            if self
                .remote
                .as_ref()
                .is_some_and(|r| !r.updates_on_servers())
            {
                globals.push(buffer(&mut entry.global, &entry.stored)?);
            }
        }
        if locals.is_empty() {
            return Ok(());
        }
        if let Some(remote) = self.remote.as_mut().filter(|r| r.updates_on_servers()) {
            return remote.push(keys, &locals, &[], priority);
        }
        // Level 2: the workers, one message for the bucket.
        let summed = match &mut self.remote {
            Some(remote) => {
                remote.push(keys, &locals, &globals, priority)?;
                globals
            }
            None => locals,
        };
        for (key, summed) in keys.iter().zip(&summed) {
            let entry = self
                .entries
                .get_mut(key)
                .ok_or_else(|| uninitialized(key))?;
            match &mut self.updater {
                Some(updater) => updater.update(key, summed, &entry.stored)?,
                None => {
                    let sources = std::slice::from_ref(summed);
                    let op = reuse(
                        &mut entry.replace,
                        "kvstore_replace",
                        sources,
                        &entry.stored,
                    )?;
                    Engine::global().push(&op, priority);
                }
            }
        }
        Ok(())
    }

    /// Copies the value stored under `key` into every array of `outs`. Returns at once.
    pub fn pull(&mut self, key: impl Into<Key>, outs: &[NDArray], priority: i32) -> Result<()> {
        self.pull_bucket(&[key.into()], &[outs], priority)
    }

    /// Pulls several keys (each into its outputs) as [`KVStore::pull`] does each, except
    /// that a store whose values live on servers asks for them together (one message per
    /// server for a bucket of small arrays).
    pub fn pull_bucket(&mut self, keys: &[Key], outs: &[&[NDArray]], priority: i32) -> Result<()> {
        if keys.len() != outs.len() {
            return Err(Error::Input(format!(
                "pull: {} keys but {} lists of outputs",
                keys.len(),
                outs.len()
            )));
        }
        let mut stored = Vec::with_capacity(keys.len());
        for (key, outs) in keys.iter().zip(outs) {
            let entry = self.entries.get(key).ok_or_else(|| uninitialized(key))?;
            for out in outs.iter() {
                fits(key, "pull", out, &entry.stored)?;
            }
            stored.push(entry.stored.clone());
        }
        if let Some(remote) = &mut self.remote {
            remote.fetch(keys, &stored, priority)?;
        }
        for (key, outs) in keys.iter().zip(outs) {
            let entry = (self.entries.get_mut(key)).ok_or_else(|| uninitialized(key))?;
            if entry.pulls.len() < outs.len() {
                entry.pulls.resize_with(outs.len(), || None);
            }
            let Entry { stored, pulls, .. } = entry;
            for (slot, out) in pulls.iter_mut().zip(outs.iter()) {
                let op = reuse(slot, "kvstore_pull", std::slice::from_ref(stored), out)?;
                Engine::global().push(&op, priority);
            }
        }
        Ok(())
    }

    /// A push of `values`, then a pull into `outs` (into `values` when `outs` is empty).
    pub fn pushpull(
        &mut self,
        key: impl Into<Key>,
        values: &[NDArray],
        outs: &[NDArray],
        priority: i32,
    ) -> Result<()> {
        let key = key.into();
        self.push(key.clone(), values, priority)?;
        self.pull(key, if outs.is_empty() { values } else { outs }, priority)
    }

    /// Initializes `key` with `value` and pulls it into `outs`.
    pub fn broadcast(
        &mut self,
        key: impl Into<Key>,
        value: &NDArray,
        outs: &[NDArray],
    ) -> Result<()> {
        let key = key.into();
        self.init(key.clone(), value)?;
        self.pull(key, outs, 0)
    }

    /// [`KVStore::init`] for each key and value in turn.
    pub fn init_many(&mut self, keys: &[Key], values: &[NDArray]) -> Result<()> {
        same_length("init", keys, values)?;
        keys.iter()
            .zip(values)
            .try_for_each(|(k, v)| self.init(k.clone(), v))
    }

    /// Pushes a flat list of (key, value) pairs: the values of a key that appears several
    /// times are summed together, in order, as MXNet groups them.
    pub fn push_many(&mut self, keys: &[Key], values: &[NDArray], priority: i32) -> Result<()> {
        same_length("push", keys, values)?;
        for (key, group) in grouped(keys, values) {
            self.push(key, &group, priority)?;
        }
        Ok(())
    }

    /// Pulls a flat list of (key, output) pairs.
    pub fn pull_many(&mut self, keys: &[Key], outs: &[NDArray], priority: i32) -> Result<()> {
        same_length("pull", keys, outs)?;
        for (key, group) in grouped(keys, outs) {
            self.pull(key, &group, priority)?;
        }
        Ok(())
    }
}

/// The array in `slot`, made the first time as a zero array like `like`.
fn buffer(slot: &mut Option<NDArray>, like: &NDArray) -> Result<NDArray> {
    if let Some(array) = slot {
        return Ok(array.clone());
    }
    let array = NDArray::zeros(like.shape(), like.dtype(), Device::Cpu)?;
    Ok(slot.insert(array).clone())
}

fn uninitialized(key: &Key) -> Error {
    Error::Input(format!("key {key} has not been initialized: init it first"))
}

/// Checks that `array` has the stored value's shape and dtype.
fn fits(key: &Key, what: &str, array: &NDArray, stored: &NDArray) -> Result<()> {
    if array.shape() != stored.shape() || array.dtype() != stored.dtype() {
        return Err(Error::Input(format!(
            "{what} of key {key}: an array of shape {} {} where the store holds {} {}",
            fmt_shape(array.shape()),
            array.dtype(),
            fmt_shape(stored.shape()),
            stored.dtype()
        )));
    }
    Ok(())
}

fn same_length(what: &str, keys: &[Key], arrays: &[NDArray]) -> Result<()> {
    if keys.len() != arrays.len() {
        return Err(Error::Input(format!(
            "{what}: {} keys but {} arrays",
            keys.len(),
            arrays.len()
        )));
    }
    Ok(())
}

/// The arrays of each key, keys in the order they first appear.
fn grouped(keys: &[Key], arrays: &[NDArray]) -> Vec<(Key, Vec<NDArray>)> {
    let mut groups: Vec<(Key, Vec<NDArray>)> = Vec::new();
    for (k, a) in keys.iter().zip(arrays) {
        match groups.iter_mut().find(|(g, _)| g == k) {
            Some((_, group)) => group.push(a.clone()),
            None => groups.push((k.clone(), vec![a.clone()])),
        }
    }
    groups
}
