//! What every update rule provides, and the one dispatch over them: the states a parameter
//! gets ([`StateSpec`], MXNet's `create_state`), the scalars of one step computed where the
//! update is pushed ([`Step`]), and the element loop that runs inside the engine operation
//! ([`Rule::apply`], one generic body per rule over [`Real`]).

use super::kernel::Real;
use super::{adagrad, adam, ftrl, sgd};

/// How one state array starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    Zeros,
    /// A copy of the weight (DCASGD's previous weight).
    Weight,
}

/// One state array of a parameter: its shape and first value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateSpec {
    pub shape: Vec<usize>,
    pub init: Init,
}

impl StateSpec {
    pub fn zeros_like(shape: &[usize]) -> StateSpec {
        StateSpec {
            shape: shape.to_vec(),
            init: Init::Zeros,
        }
    }
}

/// The scalars of one parameter's update, fixed when it is pushed (the operation for step
/// t + 1 may be pushed before step t's ran): learning rate and weight decay with their
/// multipliers, the parameter's update count and what a rule derives from them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Step {
    pub lr: f64,
    pub wd: f64,
    pub t: u64,
    pub extra: [f64; 4],
}

/// State an optimizer keeps across parameters, as MXNet's Python objects do.
#[derive(Clone, Debug, PartialEq)]
pub struct Globals {
    /// Nadam's running product of momentum schedules (one for all parameters: MXNet
    /// multiplies it at every parameter's update).
    pub m_schedule: f64,
    /// LARS' learning rates of this call and the last (its momentum correction).
    pub cur_lr: Option<f64>,
    pub last_lr: Option<f64>,
}

impl Default for Globals {
    fn default() -> Globals {
        Globals {
            m_schedule: 1.0,
            cur_lr: None,
            last_lr: None,
        }
    }
}

/// The arrays of one parameter's update, in the compute dtype.
pub struct Buffers<'a, T> {
    pub weight: &'a mut [T],
    pub grad: &'a [T],
    /// The rule's states in [`Rule::states`] order; unused ones empty.
    pub states: [&'a mut [T]; 3],
    /// Working space of [`Rule::work_len`] elements.
    pub work: &'a mut [T],
    /// The weight's first dimension (GroupAdaGrad's rows).
    pub rows: usize,
    /// Σw² of the stored weights where they are not `weight` (f16 weights of an f32
    /// master copy): MXNet's norms read the stored ones.
    pub weight_sum_sq: Option<f32>,
}

/// An optimizer's update rule with its hyperparameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Rule {
    Sgd(sgd::Sgd),
    Nag(sgd::Nag),
    Signum(sgd::Signum),
    Lars(sgd::Lars),
    Dcasgd(sgd::Dcasgd),
    Adam(adam::Adam),
    Adamax(adam::Adamax),
    Nadam(adam::Nadam),
    AdamW(adam::AdamW),
    Lamb(adam::Lamb),
    Ftml(adam::Ftml),
    AdaGrad(adagrad::AdaGrad),
    AdaDelta(adagrad::AdaDelta),
    GroupAdaGrad(adagrad::GroupAdaGrad),
    RmsProp(adagrad::RmsProp),
    Ftrl(ftrl::Ftrl),
}

impl Rule {
    /// The states of a parameter of `shape`, in order (MXNet's `create_state`, `None`s
    /// left out).
    pub fn states(&self, shape: &[usize]) -> Vec<StateSpec> {
        let like = || StateSpec::zeros_like(shape);
        match self {
            Rule::Sgd(r) => (r.momentum != 0.0).then(like).into_iter().collect(),
            Rule::Nag(r) => (r.momentum != 0.0).then(like).into_iter().collect(),
            Rule::Signum(r) => (r.momentum != 0.0).then(like).into_iter().collect(),
            Rule::Lars(r) => (r.momentum != 0.0).then(like).into_iter().collect(),
            Rule::Dcasgd(r) => sgd::Dcasgd::states(r, shape),
            Rule::Adam(_) | Rule::Adamax(_) | Rule::Nadam(_) | Rule::AdamW(_) | Rule::Lamb(_) => {
                vec![like(), like()]
            }
            Rule::Ftml(_) => vec![like(), like(), like()],
            Rule::AdaGrad(_) => vec![like()],
            Rule::AdaDelta(_) | Rule::Ftrl(_) => vec![like(), like()],
            Rule::GroupAdaGrad(_) => vec![StateSpec::zeros_like(&[
                shape.first().copied().unwrap_or(0),
                1,
            ])],
            Rule::RmsProp(r) if r.centered => vec![like(), like(), like()],
            Rule::RmsProp(_) => vec![like()],
        }
    }

    /// Elements of working space a parameter of `len` elements needs.
    pub fn work_len(&self, len: usize) -> usize {
        match self {
            Rule::Lamb(_) => len,
            _ => 0,
        }
    }

    /// Whether the default wd_mult keeps `name`'s weight decay: MXNet decays names ending
    /// in `_weight` or `_gamma`, LARS only `_weight`.
    pub fn decays(&self, name: &str) -> bool {
        match self {
            Rule::Lars(_) => name.ends_with("_weight"),
            _ => name.ends_with("_weight") || name.ends_with("_gamma"),
        }
    }

    /// Checks a parameter before its first update; the message says what does not fit.
    pub fn check(&self, shape: &[usize], wd: f64) -> Result<(), String> {
        match self {
            Rule::GroupAdaGrad(_) if shape.len() != 2 => Err(format!(
                "groupadagrad updates 2-D weights (rows of a matrix), not shape {shape:?}"
            )),
            Rule::GroupAdaGrad(_) if wd != 0.0 => Err(format!(
                "groupadagrad does not support weight decay (wd {wd} for this parameter)"
            )),
            _ => Ok(()),
        }
    }

    /// Called once per update call (one step's batch of parameters) with the scheduled
    /// learning rate, before any parameter's [`Rule::prepare`].
    pub fn begin_call(&self, globals: &mut Globals, lr: f64) {
        if let Rule::Lars(_) = self {
            sgd::Lars::begin_call(globals, lr);
        }
    }

    /// The scalars of one parameter's step, on the pushing side, in update order.
    pub fn prepare(&self, globals: &mut Globals, step: Step, name: &str) -> Step {
        match self {
            Rule::Adam(r) => r.prepare(step),
            Rule::Adamax(r) => r.prepare(step),
            Rule::Nadam(r) => r.prepare(globals, step),
            Rule::Lars(r) => r.prepare(globals, step, name),
            _ => step,
        }
    }

    /// Runs the update on one parameter's arrays.
    pub fn apply<T: Real>(&self, step: &Step, b: Buffers<'_, T>) {
        match self {
            Rule::Sgd(r) => r.apply(step, b),
            Rule::Nag(r) => r.apply(step, b),
            Rule::Signum(r) => r.apply(step, b),
            Rule::Lars(r) => r.apply(step, b),
            Rule::Dcasgd(r) => r.apply(step, b),
            Rule::Adam(r) => r.apply(step, b),
            Rule::Adamax(r) => r.apply(step, b),
            Rule::Nadam(r) => r.apply(step, b),
            Rule::AdamW(r) => r.apply(step, b),
            Rule::Lamb(r) => r.apply(step, b),
            Rule::Ftml(r) => r.apply(step, b),
            Rule::AdaGrad(r) => r.apply(step, b),
            Rule::AdaDelta(r) => r.apply(step, b),
            Rule::GroupAdaGrad(r) => r.apply(step, b),
            Rule::RmsProp(r) => r.apply(step, b),
            Rule::Ftrl(r) => r.apply(step, b),
        }
    }
}

/// The shared base arguments every rule reads inside its loop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Common {
    pub rescale_grad: f64,
    /// As given (`None` when not); each family decides what a zero or negative bound
    /// means, as MXNet's do (see [`Common::kernel_clip`]).
    pub clip_gradient: Option<f64>,
}

impl Common {
    /// The bound a fused MXNet kernel clips with: passed only when truthy (`if
    /// self.clip_gradient:`), and kernels skip a negative one.
    pub fn kernel_clip(&self) -> Option<f64> {
        self.clip_gradient.filter(|&c| c > 0.0)
    }

    /// The bound a Python-side rule clips with (`if self.clip_gradient is not None`).
    pub fn python_clip(&self) -> Option<f64> {
        self.clip_gradient
    }
}
