//! MXNet's `fit`: bind, initialize, then train epoch by epoch with callbacks.

use super::{Module, StoreChoice};
use crate::initializer::{Initializer, Rng, Uniform};
use crate::metric::EvalMetric;
use crate::optimizer::Optimizer;
use crate::{Error, Result};
use kiln_compiler::autodiff::GradReq;
use kiln_io::DataIter;
use kiln_runtime::NDArray;
use std::collections::HashMap;

/// The optimizer `fit` trains with: by MXNet's name and keyword arguments (as Python writes
/// them; `rescale_grad` defaults to 1/batch size), or a configured one.
pub enum OptimizerChoice {
    Named(String, Vec<(String, String)>),
    Value(Box<Optimizer>),
}

/// What a batch-end callback sees (MXNet's `BatchEndParam`).
pub struct BatchEnd<'a> {
    pub epoch: usize,
    /// The batch's number in its epoch, from 0.
    pub nbatch: usize,
    /// The training metric: `get()` since its last `reset_local` (a callback may reset
    /// it, as MXNet's Speedometer does), `get_global()` since the epoch began.
    pub eval_metric: &'a mut dyn EvalMetric,
    /// Rows in the batch (padding included).
    pub batch_size: usize,
}

/// What an epoch-end callback sees (MXNet's `epoch_end_callback(epoch, symbol, arg_params,
/// aux_params)`, with the module, and the epoch's training and validation metrics).
pub struct EpochEnd<'a> {
    pub epoch: usize,
    pub module: &'a Module,
    pub arg_params: &'a HashMap<String, NDArray>,
    pub aux_params: &'a HashMap<String, NDArray>,
    pub train: &'a [(String, f64)],
    /// The validation metric when there is `eval_data`, computed before the callbacks.
    pub validation: Option<&'a [(String, f64)]>,
}

type BatchCallback<'a> = Box<dyn FnMut(&mut BatchEnd<'_>) -> Result<()> + 'a>;
type EpochCallback<'a> = Box<dyn FnMut(&EpochEnd<'_>) -> Result<()> + 'a>;

/// `fit`'s arguments, by MXNet's names and with its defaults (`Fit::new(num_epoch)`).
pub struct Fit<'a> {
    pub num_epoch: usize,
    pub begin_epoch: usize,
    pub eval_data: Option<&'a mut dyn DataIter>,
    /// Default: accuracy.
    pub eval_metric: Box<dyn EvalMetric>,
    /// Default: the training metric itself, reset (as MXNet does with a metric object).
    pub validation_metric: Option<Box<dyn EvalMetric>>,
    /// Default: `local` (no store for one context, as MXNet).
    pub kvstore: Option<StoreChoice>,
    /// Default: SGD with learning rate 0.01.
    pub optimizer: OptimizerChoice,
    /// Default: Uniform(0.01).
    pub initializer: Box<dyn Initializer>,
    /// Where random initial values are drawn from, and each epoch's random stream: epoch
    /// `e` seeds the executors' random operators (Dropout) from (`seed`, `e`), so a run
    /// resumed at `begin_epoch` draws the masks an uninterrupted one would.
    pub seed: u64,
    pub arg_params: Option<HashMap<String, NDArray>>,
    pub aux_params: Option<HashMap<String, NDArray>>,
    pub allow_missing: bool,
    pub force_rebind: bool,
    pub force_init: bool,
    pub batch_end_callback: Vec<BatchCallback<'a>>,
    pub epoch_end_callback: Vec<EpochCallback<'a>>,
}

impl<'a> Fit<'a> {
    pub fn new(num_epoch: usize) -> Fit<'a> {
        Fit {
            num_epoch,
            begin_epoch: 0,
            eval_data: None,
            eval_metric: Box::new(crate::metric::Accuracy::default()),
            validation_metric: None,
            kvstore: Some("local".into()),
            optimizer: OptimizerChoice::Named(
                "sgd".into(),
                vec![("learning_rate".into(), "0.01".into())],
            ),
            initializer: Box::new(Uniform::new(0.01)),
            seed: 0,
            arg_params: None,
            aux_params: None,
            allow_missing: false,
            force_rebind: false,
            force_init: false,
            batch_end_callback: Vec::new(),
            epoch_end_callback: Vec::new(),
        }
    }
}

impl Module {
    /// MXNet's `fit`: binds for `train_data` (unless bound and not `force_rebind`),
    /// initializes the parameters and the optimizer, then for each epoch from
    /// `begin_epoch` to `num_epoch`: per batch forward, backward, update, the metric and
    /// the batch callbacks; at the end the parameters synchronized across devices, the
    /// validation score and the epoch callbacks; then `train_data` is reset. Returns the
    /// last epoch's training metric.
    pub fn fit(
        &mut self,
        train_data: &mut dyn DataIter,
        mut args: Fit<'_>,
    ) -> Result<Vec<(String, f64)>> {
        if args.begin_epoch >= args.num_epoch {
            return Err(Error::Input(format!(
                "fit: begin_epoch {} leaves nothing to do before num_epoch {}",
                args.begin_epoch, args.num_epoch
            )));
        }
        if !self.binded() || args.force_rebind {
            let (data, label) = (train_data.provide_data(), train_data.provide_label());
            self.bind(&data, &label, true, false, GradReq::Write)?;
        }
        let mut rng = Rng::new(args.seed);
        self.init_params(
            args.initializer.as_ref(),
            &mut rng,
            args.arg_params.as_ref(),
            args.aux_params.as_ref(),
            args.allow_missing,
            args.force_init,
        )?;
        if !self.optimizer_initialized() {
            let kvstore = args.kvstore.take();
            match std::mem::replace(
                &mut args.optimizer,
                OptimizerChoice::Named(String::new(), vec![]),
            ) {
                OptimizerChoice::Named(name, kwargs) => {
                    let kwargs: Vec<(&str, &str)> = kwargs
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.as_str()))
                        .collect();
                    self.init_optimizer_by_name(kvstore, &name, &kwargs)?;
                }
                OptimizerChoice::Value(optimizer) => {
                    self.init_optimizer(kvstore, *optimizer, true)?
                }
            }
        }
        let result = self.train_epochs(train_data, &mut args);
        if let (Err(error), Some(kv)) = (&result, &self.kvstore) {
            kv.abort_if_distributed(error);
        }
        result
    }

    /// `fit`'s epochs, once bound and initialized. In a synchronous distributed job the
    /// workers agree before each batch whether any has one left: a worker out of batches
    /// while others go on pushes zero gradients (so the others are not left waiting,
    /// MXNet's classic hang), and the epoch ends when none has a batch. Asynchronous
    /// workers wait for no one: each ends its epoch with its own data.
    fn train_epochs(
        &mut self,
        train_data: &mut dyn DataIter,
        args: &mut Fit<'_>,
    ) -> Result<Vec<(String, f64)>> {
        let mut train = Vec::new();
        for epoch in args.begin_epoch..args.num_epoch {
            self.seed_random(kiln_ops::random::subseed(args.seed, epoch as u64))?;
            args.eval_metric.reset();
            let mut nbatch = 0;
            loop {
                let next = train_data.next_batch()?;
                let batch = match (next, &mut self.kvstore) {
                    (next, Some(kv)) if kv.is_distributed() && !kv.updates_on_servers() => {
                        if kv.count_workers(next.is_some())? == 0 {
                            break;
                        }
                        match next {
                            Some(batch) => batch,
                            None => {
                                self.push_zero_gradients()?;
                                continue;
                            }
                        }
                    }
                    (Some(batch), _) => batch,
                    (None, _) => break,
                };
                self.forward_backward(&batch)?;
                self.update()?;
                self.update_metric(args.eval_metric.as_mut(), &batch.label)?;
                for callback in &mut args.batch_end_callback {
                    callback(&mut BatchEnd {
                        epoch,
                        nbatch,
                        eval_metric: args.eval_metric.as_mut(),
                        batch_size: train_data.batch_size(),
                    })?;
                }
                nbatch += 1;
            }
            // The epoch's value whatever callbacks reset locally (MXNet logs the global one).
            train = args.eval_metric.get_global();
            let (arg_params, aux_params) = self.get_params()?;
            self.set_params(&arg_params, &aux_params, false, false)?;
            let validation = match args.eval_data.as_deref_mut() {
                Some(eval_data) => {
                    let metric = match &mut args.validation_metric {
                        Some(m) => m.as_mut(),
                        None => args.eval_metric.as_mut(),
                    };
                    Some(self.score(eval_data, metric, None, true)?)
                }
                None => None,
            };
            for callback in &mut args.epoch_end_callback {
                callback(&EpochEnd {
                    epoch,
                    module: self,
                    arg_params: &arg_params,
                    aux_params: &aux_params,
                    train: &train,
                    validation: validation.as_deref(),
                })?;
            }
            train_data.reset();
        }
        Ok(train)
    }
}
