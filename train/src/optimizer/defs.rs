//! The optimizers by name, as data: each entry says its MXNet name, the arguments its
//! constructor takes (besides the base ones) and how its `learning_rate` default meets a
//! scheduler, and builds its [`Rule`] from string arguments.

use super::adagrad::{AdaDelta, AdaGrad, GroupAdaGrad, RmsProp};
use super::adam::{Adam, AdamW, Adamax, Ftml, Lamb, Nadam};
use super::args::Args;
use super::ftrl::Ftrl;
use super::rule::{Common, Rule};
use super::sgd::{Dcasgd, Lars, Nag, Sgd, Signum};
use crate::Result;

/// How an optimizer's constructor treats `learning_rate` when none is given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LearningRate {
    /// No default in the signature: the scheduler's base rate, else 0.01.
    Base,
    /// A default in the signature, passed to the base class: it overrides a scheduler's
    /// base rate even when the user gave none (Adam's 0.001 wins over the schedule's).
    Overrides(f64),
    /// Set after the base class (Ftrl's 0.1): never touches a scheduler.
    Own(f64),
}

/// One optimizer: its name, arguments and how to build its rule.
pub struct OptimizerDef {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub learning_rate: LearningRate,
    /// The arguments of its own constructor (the base ones are common to all).
    pub args: &'static [&'static str],
    pub build: fn(&mut Args<'_>, Common) -> Result<Rule>,
}

/// The base class's arguments, which every optimizer takes.
pub const BASE_ARGS: &[&str] = &[
    "learning_rate",
    "wd",
    "rescale_grad",
    "clip_gradient",
    "lr_scheduler",
    "begin_num_update",
    "multi_precision",
];

const fn def(
    name: &'static str,
    learning_rate: LearningRate,
    args: &'static [&'static str],
    build: fn(&mut Args<'_>, Common) -> Result<Rule>,
) -> OptimizerDef {
    OptimizerDef {
        name,
        aliases: &[],
        learning_rate,
        args,
        build,
    }
}

/// Every optimizer, by MXNet's registered name.
pub const OPTIMIZERS: &[OptimizerDef] = &[
    OptimizerDef {
        aliases: &["ccsgd"],
        ..def(
            "sgd",
            LearningRate::Base,
            &["momentum", "lazy_update"],
            |a, c| {
                let momentum = a.f64("momentum", 0.0)?;
                a.bool("lazy_update", true)?;
                Ok(Rule::Sgd(Sgd { c, momentum }))
            },
        )
    },
    def("nag", LearningRate::Base, &["momentum"], |a, c| {
        Ok(Rule::Nag(Nag {
            c,
            momentum: a.f64("momentum", 0.0)?,
        }))
    }),
    def(
        "signum",
        LearningRate::Overrides(0.01),
        &["momentum", "wd_lh"],
        |a, c| {
            Ok(Rule::Signum(Signum {
                c,
                momentum: a.f64("momentum", 0.9)?,
                wd_lh: a.f64("wd_lh", 0.0)?,
            }))
        },
    ),
    def(
        "lars",
        LearningRate::Base,
        &[
            "momentum",
            "lazy_update",
            "eta",
            "eps",
            "momentum_correction",
        ],
        |a, c| {
            a.bool("lazy_update", true)?;
            Ok(Rule::Lars(Lars {
                c,
                momentum: a.f64("momentum", 0.0)?,
                eta: a.f64("eta", 0.001)?,
                eps: a.f64("eps", 0.0)?,
                momentum_correction: a.bool("momentum_correction", true)?,
            }))
        },
    ),
    def(
        "dcasgd",
        LearningRate::Base,
        &["momentum", "lamda"],
        |a, c| {
            Ok(Rule::Dcasgd(Dcasgd {
                c,
                momentum: a.f64("momentum", 0.0)?,
                lamda: a.f64("lamda", 0.04)?,
            }))
        },
    ),
    def(
        "adam",
        LearningRate::Overrides(0.001),
        &["beta1", "beta2", "epsilon", "lazy_update"],
        |a, c| {
            a.bool("lazy_update", true)?;
            Ok(Rule::Adam(Adam {
                c,
                beta1: a.f64("beta1", 0.9)?,
                beta2: a.f64("beta2", 0.999)?,
                epsilon: a.f64("epsilon", 1e-8)?,
            }))
        },
    ),
    def(
        "adamax",
        LearningRate::Overrides(0.002),
        &["beta1", "beta2"],
        |a, c| {
            Ok(Rule::Adamax(Adamax {
                c,
                beta1: a.f64("beta1", 0.9)?,
                beta2: a.f64("beta2", 0.999)?,
            }))
        },
    ),
    def(
        "nadam",
        LearningRate::Overrides(0.001),
        &["beta1", "beta2", "epsilon", "schedule_decay"],
        |a, c| {
            Ok(Rule::Nadam(Nadam {
                c,
                beta1: a.f64("beta1", 0.9)?,
                beta2: a.f64("beta2", 0.999)?,
                epsilon: a.f64("epsilon", 1e-8)?,
                schedule_decay: a.f64("schedule_decay", 0.004)?,
            }))
        },
    ),
    def(
        "adamw",
        LearningRate::Overrides(0.001),
        &["beta1", "beta2", "epsilon", "eta"],
        |a, c| {
            Ok(Rule::AdamW(AdamW {
                c,
                beta1: a.f64("beta1", 0.9)?,
                beta2: a.f64("beta2", 0.999)?,
                epsilon: a.f64("epsilon", 1e-8)?,
                eta: a.f64("eta", 1.0)?,
            }))
        },
    ),
    def(
        "lamb",
        LearningRate::Overrides(0.001),
        &[
            "beta1",
            "beta2",
            "epsilon",
            "lower_bound",
            "upper_bound",
            "bias_correction",
        ],
        |a, c| {
            Ok(Rule::Lamb(Lamb {
                c,
                beta1: a.f64("beta1", 0.9)?,
                beta2: a.f64("beta2", 0.999)?,
                epsilon: a.f64("epsilon", 1e-6)?,
                lower_bound: a.opt_f64("lower_bound")?,
                upper_bound: a.opt_f64("upper_bound")?,
                bias_correction: a.bool("bias_correction", true)?,
            }))
        },
    ),
    def(
        "ftml",
        LearningRate::Base,
        &["beta1", "beta2", "epsilon"],
        |a, c| {
            Ok(Rule::Ftml(Ftml {
                c,
                beta1: a.f64("beta1", 0.6)?,
                beta2: a.f64("beta2", 0.999)?,
                epsilon: a.f64("epsilon", 1e-8)?,
            }))
        },
    ),
    def("adagrad", LearningRate::Base, &["eps"], |a, c| {
        Ok(Rule::AdaGrad(AdaGrad {
            c,
            eps: a.f64("eps", 1e-7)?,
        }))
    }),
    def(
        "adadelta",
        LearningRate::Base,
        &["rho", "epsilon"],
        |a, c| {
            Ok(Rule::AdaDelta(AdaDelta {
                c,
                rho: a.f64("rho", 0.9)?,
                epsilon: a.f64("epsilon", 1e-5)?,
            }))
        },
    ),
    def("groupadagrad", LearningRate::Base, &["eps"], |a, c| {
        Ok(Rule::GroupAdaGrad(GroupAdaGrad {
            c,
            eps: a.f64("eps", 1e-5)?,
        }))
    }),
    def(
        "rmsprop",
        LearningRate::Overrides(0.001),
        &["gamma1", "gamma2", "epsilon", "centered", "clip_weights"],
        |a, c| {
            Ok(Rule::RmsProp(RmsProp {
                c,
                gamma1: a.f64("gamma1", 0.9)?,
                gamma2: a.f64("gamma2", 0.9)?,
                epsilon: a.f64("epsilon", 1e-8)?,
                centered: a.bool("centered", false)?,
                clip_weights: a.opt_f64("clip_weights")?,
            }))
        },
    ),
    def(
        "ftrl",
        LearningRate::Own(0.1),
        &["lamda1", "beta"],
        |a, c| {
            Ok(Rule::Ftrl(Ftrl {
                c,
                lamda1: a.f64("lamda1", 0.01)?,
                beta: a.f64("beta", 1.0)?,
            }))
        },
    ),
];

/// The optimizer called `name` (case-insensitive, as MXNet's registry).
pub fn find(name: &str) -> Option<&'static OptimizerDef> {
    let name = name.trim().to_ascii_lowercase();
    OPTIMIZERS
        .iter()
        .find(|d| d.name == name || d.aliases.contains(&name.as_str()))
}
