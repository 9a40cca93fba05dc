//! One parameter's update as an engine operation, created once and pushed every step.
//!
//! The operation reads the gradient and writes the weight, the states and its working
//! space. The scalars of each step ([`Step`]) are fixed when the update is pushed and
//! handed over through a queue the operation owns: the engine runs a weight's writers in
//! push order, so the run for step t pops step t's scalars even when step t + 1 was pushed
//! before it ran. The queue's room is reserved up front; pushing allocates nothing unless
//! more than [`QUEUED`] updates of one parameter wait at once.
//!
//! An update the engine skips because an earlier operation on its arrays failed leaves
//! its scalars queued: after such an error, rebuild the optimizer or load its states
//! again ([`super::Optimizer::load_states`] binds fresh operations).
//!
//! f16 weights are updated through an f32 master copy (`multi_precision`): the gradient
//! converted into an f32 working array, the rule run on the master copy, the weight
//! rounded from it, as MXNet's `mp_*` kernels and its generic multi-precision path do.

use super::kernel::{sum_sq_f16, Real};
use super::rule::{Buffers, Init, Rule, Step};
use crate::{Error, Result};
use half::f16;
use kiln_ops::DType;
use kiln_runtime::{Device, Engine, FnProperty, NDArray, Operator};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Updates of one parameter that may wait at once without the queue growing.
pub const QUEUED: usize = 16;

/// A parameter's optimizer states and its bound update operation.
pub struct Slot {
    /// The rule's states in order, then the f32 master copy under multi_precision.
    pub states: Vec<NDArray>,
    /// Whether the states are known to fit the weight (false after a load until the
    /// parameter's next update checks them).
    pub checked: bool,
    bound: Option<Bound>,
}

struct Bound {
    weight: NDArray,
    grad: NDArray,
    op: Arc<Operator>,
    queue: Arc<Mutex<VecDeque<Step>>>,
}

impl Slot {
    /// Fresh states for `weight` (MXNet's `create_state_multi_precision`).
    pub fn create(rule: &Rule, weight: &NDArray, master: bool) -> Result<Slot> {
        let mut states = Vec::new();
        for spec in rule.states(weight.shape()) {
            let dtype = if master { DType::F32 } else { weight.dtype() };
            let state = NDArray::zeros(&spec.shape, dtype, Device::Cpu)?;
            if spec.init == Init::Weight {
                state.copy_from(weight)?;
            }
            states.push(state);
        }
        if master {
            let copy = NDArray::zeros(weight.shape(), DType::F32, Device::Cpu)?;
            copy.copy_from(weight)?;
            states.push(copy);
        }
        Ok(Slot {
            states,
            checked: true,
            bound: None,
        })
    }

    /// States loaded from a file, bound at the next update.
    pub fn loaded(states: Vec<NDArray>) -> Slot {
        Slot {
            states,
            checked: false,
            bound: None,
        }
    }

    /// Checks that the states fit `weight` under `rule` (after a load).
    pub fn check(&self, rule: &Rule, weight: &NDArray, master: bool) -> Result<(), String> {
        let specs = rule.states(weight.shape());
        let want = specs.len() + usize::from(master);
        if self.states.len() != want {
            return Err(format!(
                "{} states where {want} were expected",
                self.states.len()
            ));
        }
        let dtype = if master { DType::F32 } else { weight.dtype() };
        let shapes = specs
            .iter()
            .map(|s| s.shape.as_slice())
            .chain(master.then_some(weight.shape()));
        for (i, (state, shape)) in self.states.iter().zip(shapes).enumerate() {
            if state.shape() != shape || state.dtype() != dtype {
                return Err(format!(
                    "state {i} is {:?} {} where {shape:?} {dtype} was expected",
                    state.shape(),
                    state.dtype()
                ));
            }
        }
        Ok(())
    }

    /// Queues this step's scalars for the update of `weight` from `grad` and returns the
    /// operation to push (bound anew when the arrays changed).
    pub fn enqueue(
        &mut self,
        rule: &Rule,
        weight: &NDArray,
        grad: &NDArray,
        master: bool,
        step: Step,
    ) -> Result<Arc<Operator>> {
        let fresh = match &self.bound {
            Some(b) => !(b.weight.same_elements(weight) && b.grad.same_elements(grad)),
            None => true,
        };
        if fresh {
            self.bound = Some(self.bind(rule, weight, grad, master)?);
        }
        let Some(bound) = &self.bound else {
            return Err(Error::Input("optimizer: no update operation bound".into()));
        };
        bound
            .queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(step);
        Ok(bound.op.clone())
    }

    fn bind(&self, rule: &Rule, weight: &NDArray, grad: &NDArray, master: bool) -> Result<Bound> {
        let len = weight.len();
        let compute = if master { DType::F32 } else { weight.dtype() };
        let work = match rule.work_len(len) {
            0 => None,
            n => Some(NDArray::zeros(&[n], compute, Device::Cpu)?),
        };
        let grad32 = match master {
            true => Some(NDArray::zeros(&[len], DType::F32, Device::Cpu)?),
            false => None,
        };
        let queue = Arc::new(Mutex::new(VecDeque::with_capacity(QUEUED)));
        let run = Run {
            rule: rule.clone(),
            weight: weight.clone(),
            grad: grad.clone(),
            states: self.states.clone(),
            work,
            grad32,
            rows: weight.shape().first().copied().unwrap_or(1),
            queue: queue.clone(),
        };
        let reads = [grad.var().clone()];
        let writes: Vec<_> = std::iter::once(weight.var().clone())
            .chain(self.states.iter().map(|s| s.var().clone()))
            .chain(run.work.iter().map(|w| w.var().clone()))
            .chain(run.grad32.iter().map(|w| w.var().clone()))
            .collect();
        let bytes = 2 * weight.nbytes()
            + grad.nbytes()
            + 2 * self.states.iter().map(NDArray::nbytes).sum::<usize>();
        let op = Engine::global()
            .new_operator(
                "optimizer_update",
                &reads,
                &writes,
                FnProperty::Normal,
                move || run.run(),
            )
            .with_bytes(bytes);
        Ok(Bound {
            weight: weight.clone(),
            grad: grad.clone(),
            op,
            queue,
        })
    }
}

/// What the operation owns.
struct Run {
    rule: Rule,
    weight: NDArray,
    grad: NDArray,
    states: Vec<NDArray>,
    work: Option<NDArray>,
    grad32: Option<NDArray>,
    rows: usize,
    queue: Arc<Mutex<VecDeque<Step>>>,
}

const WRONG_DTYPE: &str = "an array's dtype changed under the optimizer (a bug)";

impl Run {
    fn run(&self) -> Result<(), String> {
        let step = self
            .queue
            .lock()
            .map_err(|e| e.to_string())?
            .pop_front()
            .ok_or("an update ran without its step's scalars (a bug)")?;
        // SAFETY: the engine runs this operation after every earlier write of the gradient
        // and exclusively for the weight, the states and the working arrays it declares as
        // written; all are distinct arrays (the states and working arrays are the slot's
        // own, the weight and gradient checked distinct when the optimizer bound them).
        unsafe {
            match self.weight.dtype() {
                DType::F32 => self.plain::<f32>(&step),
                DType::F64 => self.plain::<f64>(&step),
                DType::F16 => self.master(&step),
                other => Err(format!("cannot update {other} weights")),
            }
        }
    }

    /// # Safety
    /// Inside the engine operation (see `run`).
    unsafe fn plain<T: Real>(&self, step: &Step) -> Result<(), String> {
        // SAFETY: forwarded from `run`.
        let (weight, grad) = unsafe {
            (
                self.weight.elements_mut::<T>().ok_or(WRONG_DTYPE)?,
                self.grad.elements::<T>().ok_or(WRONG_DTYPE)?,
            )
        };
        // SAFETY: forwarded from `run`.
        let states = unsafe { state_slices::<T>(&self.states)? };
        // SAFETY: forwarded from `run`.
        let work = unsafe { work_slice::<T>(self.work.as_ref())? };
        self.rule.apply(
            step,
            Buffers {
                weight,
                grad,
                states,
                work,
                rows: self.rows,
                weight_sum_sq: None,
            },
        );
        Ok(())
    }

    /// # Safety
    /// Inside the engine operation (see `run`).
    unsafe fn master(&self, step: &Step) -> Result<(), String> {
        let Some((master, rule_states)) = self.states.split_last() else {
            return Err("f16 weights without an f32 master copy (a bug)".into());
        };
        let grad32 = self.grad32.as_ref().ok_or(WRONG_DTYPE)?;
        // SAFETY: forwarded from `run`; the master copy and working arrays are distinct.
        let (weight, grad, master, grad32) = unsafe {
            (
                self.weight.elements_mut::<f16>().ok_or(WRONG_DTYPE)?,
                self.grad.elements::<f16>().ok_or(WRONG_DTYPE)?,
                master.elements_mut::<f32>().ok_or(WRONG_DTYPE)?,
                grad32.elements_mut::<f32>().ok_or(WRONG_DTYPE)?,
            )
        };
        for (g32, g) in grad32.iter_mut().zip(grad) {
            *g32 = g.to_f32();
        }
        let weight_sum_sq =
            matches!(self.rule, Rule::Lamb(_) | Rule::Lars(_)).then(|| sum_sq_f16(weight));
        // SAFETY: forwarded from `run`.
        let states = unsafe { state_slices::<f32>(rule_states)? };
        // SAFETY: forwarded from `run`.
        let work = unsafe { work_slice::<f32>(self.work.as_ref())? };
        self.rule.apply(
            step,
            Buffers {
                weight: &mut *master,
                grad: grad32,
                states,
                work,
                rows: self.rows,
                weight_sum_sq,
            },
        );
        for (w, &m) in weight.iter_mut().zip(master.iter()) {
            *w = f16::from_f32(m);
        }
        Ok(())
    }
}

/// The states' elements, unused slots empty.
///
/// # Safety
/// Inside the engine operation that writes them.
#[allow(clippy::mut_from_ref)] // exclusivity comes from the engine, not the borrow
unsafe fn state_slices<T: Real>(states: &[NDArray]) -> Result<[&mut [T]; 3], String> {
    let mut out: [&mut [T]; 3] = [&mut [], &mut [], &mut []];
    if states.len() > out.len() {
        return Err("more optimizer states than a rule has (a bug)".into());
    }
    for (slot, state) in out.iter_mut().zip(states) {
        // SAFETY: forwarded to the caller.
        *slot = unsafe { state.elements_mut::<T>() }.ok_or(WRONG_DTYPE)?;
    }
    Ok(out)
}

/// The working space, empty when the rule has none.
///
/// # Safety
/// Inside the engine operation that writes it.
#[allow(clippy::mut_from_ref)] // exclusivity comes from the engine, not the borrow
unsafe fn work_slice<T: Real>(work: Option<&NDArray>) -> Result<&mut [T], String> {
    match work {
        // SAFETY: forwarded to the caller.
        Some(w) => unsafe { w.elements_mut::<T>() }.ok_or_else(|| WRONG_DTYPE.to_string()),
        None => Ok(&mut []),
    }
}
