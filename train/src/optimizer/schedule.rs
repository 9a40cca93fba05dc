//! MXNet's learning-rate schedulers (`mx.lr_scheduler`): Factor, MultiFactor, Poly and
//! Cosine, each with MXNet's warmup (linear or constant), as stateful objects called with
//! the optimizer's `num_update`.
//!
//! Written as the `lr_scheduler` argument of an optimizer:
//! `factor(step=2,factor=0.5)`, `multifactor(step=[2,4],factor=0.1)`,
//! `poly(max_update=100,pwr=2,final_lr=0)`, `cosine(max_update=100,final_lr=0)`, each with
//! the optional `base_lr`, `warmup_steps`, `warmup_begin_lr` and `warmup_mode='linear'` or
//! `'constant'` (names case-insensitive; MXNet's class names `FactorScheduler` etc. and an
//! `mx.lr_scheduler.` prefix accepted too).
//!
//! Traps kept on purpose: Factor and MultiFactor mutate their `base_lr` as updates pass
//! (the state kiln saves with the optimizer); an optimizer's `learning_rate` replaces a
//! scheduler's `base_lr` *after* construction, which Factor and MultiFactor then follow
//! but Poly and Cosine do not (they keep the base rate they were built with, as does every
//! scheduler's warmup target).

use super::args::{parse_f64, parse_int, split_top_level};

/// A learning-rate schedule and its state.
#[derive(Clone, Debug, PartialEq)]
pub struct Scheduler {
    /// MXNet's `base_lr` (mutated by Factor and MultiFactor; the optimizer may set it).
    pub base_lr: f64,
    warmup_steps: u64,
    warmup_begin_lr: f64,
    /// `base_lr` at construction: the warmup's end.
    warmup_final_lr: f64,
    constant_warmup: bool,
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Factor {
        step: u64,
        factor: f64,
        stop_factor_lr: f64,
        count: u64,
    },
    MultiFactor {
        steps: Vec<u64>,
        factor: f64,
        next: usize,
    },
    Poly {
        max_update: u64,
        power: f64,
        final_lr: f64,
        base_lr_orig: f64,
    },
    Cosine {
        max_update: u64,
        final_lr: f64,
        base_lr_orig: f64,
    },
}

impl Scheduler {
    /// Parses a schedule written as `name(key=value,...)`; the message names what is wrong.
    pub fn parse(spec: &str) -> Result<Scheduler, String> {
        let spec = spec.trim();
        let (name, rest) = spec.split_once('(').ok_or_else(|| {
            format!("`{spec}` is not a schedule: write e.g. factor(step=2,factor=0.5)")
        })?;
        let body = rest
            .strip_suffix(')')
            .ok_or_else(|| format!("`{spec}`: the argument list does not end with `)`"))?;
        let name = name.trim().to_ascii_lowercase();
        let name = name.strip_prefix("mx.lr_scheduler.").unwrap_or(&name);
        let name = name.strip_suffix("scheduler").unwrap_or(name);
        let mut args: Vec<(String, String, bool)> = Vec::new();
        for part in split_top_level(body)? {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("schedule `{name}`: `{part}` is not KEY=VALUE"))?;
            let k = k.trim().to_string();
            if args.iter().any(|(key, _, _)| *key == k) {
                return Err(format!("schedule `{name}`: `{k}` given twice"));
            }
            args.push((k, v.trim().to_string(), false));
        }
        let mut take = |key: &str| -> Option<String> {
            args.iter_mut()
                .find(|(k, _, _)| k == key)
                .map(|(_, v, used)| {
                    *used = true;
                    v.clone()
                })
        };
        let ctx = |key: &str, e: String| format!("schedule `{name}`: `{key}`: {e}");
        let float = |v: Option<String>, key: &str, default: f64| -> Result<f64, String> {
            v.map_or(Ok(default), |v| {
                parse_f64(&v).map_err(|e| ctx(key, e.to_string()))
            })
        };
        let count = |v: Option<String>, key: &str, default: i64| -> Result<i64, String> {
            v.map_or(Ok(default), |v| {
                parse_int(&v).map_err(|e| ctx(key, e.to_string()))
            })
        };
        let base_lr = float(take("base_lr"), "base_lr", 0.01)?;
        let warmup_steps = count(take("warmup_steps"), "warmup_steps", 0)?;
        let warmup_begin_lr = float(take("warmup_begin_lr"), "warmup_begin_lr", 0.0)?;
        let mode = take("warmup_mode").unwrap_or_else(|| "'linear'".into());
        let constant_warmup = match mode.trim_matches(|c| c == '\'' || c == '"') {
            "linear" => false,
            "constant" => true,
            other => {
                return Err(ctx(
                    "warmup_mode",
                    format!("`{other}`: only 'linear' and 'constant'"),
                ))
            }
        };
        if warmup_begin_lr > base_lr {
            return Err(format!(
                "schedule `{name}`: warmup_begin_lr {warmup_begin_lr} is above base_lr {base_lr}"
            ));
        }
        if warmup_steps < 0 {
            return Err(ctx("warmup_steps", format!("{warmup_steps} is negative")));
        }
        let kind = match name {
            "factor" => {
                let step = take("step").ok_or("schedule `factor` needs `step`")?;
                let step = parse_int(&step).map_err(|e| ctx("step", e.to_string()))?;
                let factor = float(take("factor"), "factor", 1.0)?;
                if step < 1 {
                    return Err(ctx("step", format!("{step}: must be at least 1")));
                }
                if factor > 1.0 {
                    return Err(ctx("factor", format!("{factor}: must be at most 1")));
                }
                Kind::Factor {
                    step: step as u64,
                    factor,
                    stop_factor_lr: float(take("stop_factor_lr"), "stop_factor_lr", 1e-8)?,
                    count: 0,
                }
            }
            "multifactor" => {
                let steps = take("step").ok_or("schedule `multifactor` needs `step=[...]`")?;
                let steps = parse_list(&steps).map_err(|e| ctx("step", e))?;
                if steps.is_empty() {
                    return Err(ctx("step", "an empty list".into()));
                }
                for (i, &s) in steps.iter().enumerate() {
                    if s < 1 || (i > 0 && s <= steps[i - 1]) {
                        return Err(ctx(
                            "step",
                            "must be an increasing list of steps ≥ 1".into(),
                        ));
                    }
                }
                let factor = float(take("factor"), "factor", 1.0)?;
                if factor > 1.0 {
                    return Err(ctx("factor", format!("{factor}: must be at most 1")));
                }
                Kind::MultiFactor {
                    steps: steps.into_iter().map(|s| s as u64).collect(),
                    factor,
                    next: 0,
                }
            }
            "poly" | "cosine" => {
                let max_update = count(take("max_update"), "max_update", 0)?;
                if max_update < 1 {
                    return Err(ctx(
                        "max_update",
                        format!("{max_update}: must be at least 1 (and given)"),
                    ));
                }
                let final_lr = float(take("final_lr"), "final_lr", 0.0)?;
                if name == "poly" {
                    Kind::Poly {
                        max_update: max_update as u64,
                        power: float(take("pwr"), "pwr", 2.0)?,
                        final_lr,
                        base_lr_orig: base_lr,
                    }
                } else {
                    Kind::Cosine {
                        max_update: max_update as u64,
                        final_lr,
                        base_lr_orig: base_lr,
                    }
                }
            }
            other => {
                return Err(format!(
                    "unknown schedule `{other}` (factor, multifactor, poly, cosine)"
                ))
            }
        };
        if let Some((k, _, _)) = args.iter().find(|(_, _, used)| !used) {
            return Err(format!("schedule `{name}`: unknown argument `{k}`"));
        }
        Ok(Scheduler {
            base_lr,
            warmup_steps: warmup_steps as u64,
            warmup_begin_lr,
            warmup_final_lr: base_lr,
            constant_warmup,
            kind,
        })
    }

    /// The learning rate at `num_update` (MXNet's `__call__`, state updated as it does).
    pub fn lr(&mut self, num_update: u64) -> f64 {
        if num_update < self.warmup_steps {
            if self.constant_warmup {
                return self.warmup_begin_lr;
            }
            let increase = (self.warmup_final_lr - self.warmup_begin_lr) * num_update as f64
                / self.warmup_steps as f64;
            return self.warmup_begin_lr + increase;
        }
        match &mut self.kind {
            Kind::Factor {
                step,
                factor,
                stop_factor_lr,
                count,
            } => {
                while num_update > *count + *step {
                    *count += *step;
                    self.base_lr *= *factor;
                    if self.base_lr < *stop_factor_lr {
                        self.base_lr = *stop_factor_lr;
                    }
                }
            }
            Kind::MultiFactor {
                steps,
                factor,
                next,
            } => {
                while *next < steps.len() && num_update > steps[*next] {
                    *next += 1;
                    self.base_lr *= *factor;
                }
            }
            Kind::Poly {
                max_update,
                power,
                final_lr,
                base_lr_orig,
            } => {
                if num_update <= *max_update {
                    let max_steps = *max_update as f64 - self.warmup_steps as f64;
                    let done = (num_update - self.warmup_steps) as f64 / max_steps;
                    self.base_lr =
                        *final_lr + (*base_lr_orig - *final_lr) * (1.0 - done).powf(*power);
                }
            }
            Kind::Cosine {
                max_update,
                final_lr,
                base_lr_orig,
            } => {
                if num_update <= *max_update {
                    let max_steps = *max_update as f64 - self.warmup_steps as f64;
                    let angle =
                        std::f64::consts::PI * (num_update - self.warmup_steps) as f64 / max_steps;
                    self.base_lr =
                        *final_lr + (*base_lr_orig - *final_lr) * (1.0 + angle.cos()) / 2.0;
                }
            }
        }
        self.base_lr
    }

    /// The state that changes as updates pass, for saving: `base_lr` and the position in
    /// the schedule.
    pub fn state(&self) -> [f64; 2] {
        let position = match &self.kind {
            Kind::Factor { count, .. } => *count as f64,
            Kind::MultiFactor { next, .. } => *next as f64,
            Kind::Poly { .. } | Kind::Cosine { .. } => 0.0,
        };
        [self.base_lr, position]
    }

    /// Restores what [`Scheduler::state`] saved.
    pub fn set_state(&mut self, [base_lr, position]: [f64; 2]) -> Result<(), String> {
        let whole = position >= 0.0 && position.fract() == 0.0 && position < 2f64.powi(53);
        if !(base_lr.is_finite() && whole) {
            return Err(format!(
                "schedule state ({base_lr}, {position}) is not a rate and a position"
            ));
        }
        match &mut self.kind {
            Kind::Factor { count, .. } => *count = position as u64,
            Kind::MultiFactor { steps, next, .. } => {
                if position as usize > steps.len() {
                    return Err(format!(
                        "schedule position {position} is past its {} steps",
                        steps.len()
                    ));
                }
                *next = position as usize;
            }
            Kind::Poly { .. } | Kind::Cosine { .. } => {}
        }
        self.base_lr = base_lr;
        Ok(())
    }
}

/// `[2, 4]` or `(2, 4)` (a Python list or tuple of integers).
fn parse_list(v: &str) -> Result<Vec<i64>, String> {
    let v = v.trim();
    let inner = v
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .or_else(|| v.strip_prefix('(').and_then(|v| v.strip_suffix(')')))
        .ok_or_else(|| format!("`{v}` is not a list like [2,4]"))?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| parse_int(s).map_err(|e| e.to_string()))
        .collect()
}
