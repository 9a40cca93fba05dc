//! `kiln train MODEL --data X.npy [--label Y.npy] --batch-size N --epochs E ...`, or
//! `--data train.rec --image-shape C,H,W [--iter-param KEY=VALUE]...` for images
//! (ImageRecordIter, decoding on its own threads while the executor trains).
//!
//! MXNet's `Module.fit` from the command line, with its argument names: the optimizer by
//! name with `--optimizer-param KEY=VALUE` as Python writes them, an initializer spec or
//! `--arg-params`, metrics by name, the store and contexts. A checkpoint
//! (`PREFIX-symbol.json`, `PREFIX-%04d.params`, with `--save-optimizer-states` also
//! `PREFIX-%04d.states`) is written after every epoch, each file whole or not at all;
//! `--begin-epoch K` or `--resume` (the newest checkpoint) continues from one, states
//! included, so a resumed run ends where an uninterrupted one would, bit for bit: the
//! iterator starts where epoch K starts (its shuffled order, rows a roll_over carried)
//! and epoch K's Dropout masks come from (--seed, K) (`--resume` with no
//! checkpoint yet starts at epoch 0, so a job can always be restarted with it). Since
//! the states are written before the parameters, a checkpoint whose parameters exist is
//! complete. Everything the run
//! needs is checked before the first batch: a failed run writes nothing.
//!
//! Progress: a bar per epoch on a terminal (samples/s, the running metric), and every
//! `--disp-batches` batches a line as MXNet's Speedometer logs it.

mod data;

use super::output::check_writable;
use super::plot::Curve;
use data::{check_label, image_iterator, is_rec, load_npy, Data, Shard};
use kiln::io::{DataIter, LastBatch, NDArrayIter};
use kiln::kvstore::KVStore;
use kiln::ops::shape::fmt_shape;
use kiln::runtime::{Device, NDArray};
use kiln::train::initializer;
use kiln::train::metric;
use kiln::train::module::{states_path, Fit, OptimizerChoice};
use kiln::train::{Module, Optimizer, StoreChoice};
use kiln::{Error, Result, Symbol};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The network: a symbol file, or a model of the zoo by name.
    model: String,
    /// Training data: arrays (.npy, one sample per row) or images with their labels
    /// (a RecordIO .rec file, read by ImageRecordIter; its .idx beside it is used).
    #[arg(long)]
    data: PathBuf,
    /// Labels (.npy), a row per sample; none for a network without a label input (a
    /// MakeLoss head) or for a .rec file (its records hold the labels).
    #[arg(long)]
    label: Option<PathBuf>,
    /// Validation data (.npy or .rec), scored after every epoch.
    #[arg(long)]
    eval_data: Option<PathBuf>,
    /// Validation labels (.npy).
    #[arg(long)]
    eval_label: Option<PathBuf>,
    #[arg(long)]
    batch_size: usize,
    /// The epoch to stop before (MXNet's num_epoch).
    #[arg(long)]
    epochs: usize,
    /// Shuffle the rows every epoch (from --seed).
    #[arg(long)]
    shuffle: bool,
    /// What to do with a short last batch: pad, discard or roll_over.
    #[arg(long, default_value = "pad")]
    last_batch: String,
    /// The optimizer, by MXNet's name.
    #[arg(long, default_value = "sgd")]
    optimizer: String,
    /// An argument of the optimizer, KEY=VALUE as Python writes it (repeatable):
    /// `learning_rate=0.1`, `lr_scheduler=factor(step=2,factor=0.5)`.
    #[arg(long = "optimizer-param", value_parser = parse_key_value)]
    optimizer_params: Vec<(String, String)>,
    /// How parameters not given by --arg-params start: `xavier(magnitude=2)`, `uniform(0.07)`.
    #[arg(long, default_value = "uniform(0.01)")]
    initializer: String,
    /// Starting parameters (a .params file, `arg:`/`aux:` names or plain ones); those it
    /// lacks come from --initializer.
    #[arg(long)]
    arg_params: Option<PathBuf>,
    /// Metrics by MXNet's names, comma-separated: `acc,ce`.
    #[arg(long, default_value = "acc")]
    metric: String,
    /// The KVStore that sums several contexts' gradients: local or device; or, in a job
    /// started by `kiln launch` (or mpirun), dist_sync, dist_device_sync or dist_async
    /// (with `kiln launch --servers`), each worker training on its part of the data (rank
    /// 0 writes the checkpoints and the plot).
    #[arg(long, default_value = "local")]
    kvstore: String,
    /// Gradient compression between the workers of a dist store: 2bit or none (MXNet's
    /// example scripts' --gc-type).
    #[arg(long, default_value = "none")]
    gc_type: String,
    /// The 2-bit compression's threshold (--gc-threshold).
    #[arg(long, default_value_t = 0.5)]
    gc_threshold: f64,
    /// The devices, comma-separated: `cpu(0),cpu(1)` splits each batch in two.
    #[arg(long, default_value = "cpu(0)")]
    contexts: String,
    /// Where checkpoints go: PREFIX-symbol.json and PREFIX-%04d.params after each epoch.
    #[arg(long)]
    save_prefix: Option<String>,
    /// Also save the optimizer's states (PREFIX-%04d.states), to resume exactly.
    #[arg(long)]
    save_optimizer_states: bool,
    /// Continue from checkpoint K of --save-prefix (its parameters and, when saved, its
    /// optimizer states).
    #[arg(long, default_value_t = 0)]
    begin_epoch: usize,
    /// Continue from the newest checkpoint of --save-prefix.
    #[arg(long, conflicts_with = "begin_epoch")]
    resume: bool,
    /// The seed of initial values and shuffles.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Log speed and metric every N batches (MXNet's Speedometer).
    #[arg(long, default_value_t = 50)]
    disp_batches: usize,
    /// Draw the training curves (each metric per epoch, training and validation) into
    /// this PNG after every epoch.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// The images' shape for .rec data: channels,height,width (ImageRecordIter's
    /// data_shape).
    #[arg(long)]
    image_shape: Option<String>,
    /// An ImageRecordIter parameter for .rec data, KEY=VALUE by MXNet's name (repeatable):
    /// `resize=256`, `rand_crop=True`, `mean_r=123.68`. Validation data takes them without
    /// the random ones (crops, mirrors, shuffling, affine, colour and lighting jitter).
    #[arg(long = "iter-param", value_parser = parse_key_value)]
    iter_params: Vec<(String, String)>,
    /// The data input's name.
    #[arg(long, default_value = "data")]
    data_name: String,
    /// The label input's name.
    #[arg(long, default_value = "softmax_label")]
    label_name: String,
}

fn input(e: impl std::fmt::Display) -> Error {
    Error::Input(e.to_string())
}

/// Parses `KEY=VALUE` (the value may hold `=`).
pub fn parse_key_value(s: &str) -> std::result::Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("expected KEY=VALUE, got `{s}`")),
    }
}

/// The network: a symbol file when `model` names one, else a model of the zoo.
pub fn load_model(model: &str) -> Result<Symbol> {
    let path = Path::new(model);
    if path.exists() || model.ends_with(".json") {
        return Ok(Symbol::load(path)?);
    }
    Ok(kiln::models::get(model)?)
}

/// Parses `cpu(0),cpu(1)`: kiln trains on the CPU, split as MXNet splits over contexts.
fn contexts(spec: &str) -> Result<Vec<Device>> {
    (spec.split(','))
        .map(|c| match c.trim() {
            c if c == "cpu" || (c.starts_with("cpu(") && c.ends_with(')')) => Ok(Device::Cpu),
            c if c.starts_with("gpu") => Err(input(format!(
                "--contexts {c}: kiln's GPU backend does not train yet; use cpu(N)"
            ))),
            c => Err(input(format!("--contexts: `{c}` is not cpu(N)"))),
        })
        .collect()
}

/// Parameters from a .params file, `arg:`/`aux:` prefixes honoured (plain names are
/// arguments).
fn load_params(path: &Path) -> Result<(HashMap<String, NDArray>, HashMap<String, NDArray>)> {
    let (mut args, mut aux) = (HashMap::new(), HashMap::new());
    let arrays =
        NDArray::load(path).map_err(|e| input(format!("--arg-params {}: {e}", path.display())))?;
    for (key, array) in arrays {
        match key.split_once(':') {
            Some(("aux", name)) => aux.insert(name.to_string(), array),
            Some(("arg", name)) => args.insert(name.to_string(), array),
            _ => args.insert(key, array),
        };
    }
    Ok((args, aux))
}

/// The newest epoch with a complete checkpoint (parameters, and states when they are
/// saved) under `prefix`, or 0 when there is none yet.
fn newest_checkpoint(prefix: &str, with_states: bool) -> Result<usize> {
    let path = Path::new(prefix);
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let stem = path
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Ok(0);
    };
    let epochs: Vec<usize> = (entries.filter_map(|e| {
        let name = e.ok()?.file_name().into_string().ok()?;
        let epoch = name
            .strip_prefix(stem)?
            .strip_prefix('-')?
            .strip_suffix(".params")?;
        epoch.parse().ok()
    }))
    .collect();
    let complete = epochs
        .iter()
        .copied()
        .filter(|&e| !with_states || states_path(prefix, e).exists());
    match (complete.max(), epochs.iter().max()) {
        (Some(epoch), _) => Ok(epoch),
        // Starting over would overwrite them: the user decides.
        (None, Some(&newest)) => Err(input(format!(
            "--resume: {prefix}-{newest:04}.params has no optimizer states beside it; \
             continue without them with --begin-epoch {newest} (momentum and the schedule's count start afresh)"
        ))),
        (None, None) => {
            eprintln!("--resume: no checkpoint {prefix}-NNNN.params yet: starting at epoch 0");
            Ok(0)
        }
    }
}

/// The store `--kvstore` names. A distributed one starts MPI here: this process is a worker
/// of the job `mpirun` started, and its rank says which part of the data it trains on.
fn open_store(name: &str) -> Result<StoreChoice> {
    #[cfg(feature = "mpi")]
    if name.to_lowercase().starts_with("dist") {
        return Ok(StoreChoice::Value(kiln::dist::create(name).map_err(input)?));
    }
    KVStore::create(name).map_err(input)?;
    Ok(StoreChoice::Named(name.to_string()))
}

pub fn run(args: Args) -> Result<()> {
    // Under mpirun with server ranks, the same command serves on them (as MXNet's scripts).
    #[cfg(feature = "mpi")]
    if kiln::dist::serve().map_err(input)? {
        return Ok(());
    }
    let lower = args.kvstore.to_lowercase();
    if args.save_optimizer_states && lower.contains("dist") && lower.contains("_async") {
        return Err(input(format!(
            "--save-optimizer-states: with --kvstore {} the optimizer's states are on the servers, which do not save them (nor do MXNet's)",
            args.kvstore
        )));
    }
    let mut store = open_store(&args.kvstore)?;
    if args.gc_type != "none" {
        let StoreChoice::Value(kv) = &mut store else {
            return Err(input(format!(
                "--gc-type {}: gradients are compressed between the workers of a dist store, not in --kvstore {}",
                args.gc_type, args.kvstore
            )));
        };
        let threshold = args.gc_threshold.to_string();
        let params = [("type", args.gc_type.as_str()), ("threshold", &threshold)];
        kv.set_gradient_compression(&params).map_err(input)?;
    }
    // A distributed worker that fails ends the job, which would otherwise wait for it.
    #[cfg(feature = "mpi")]
    let worker = kiln::dist::Worker::current();
    let result = train(args, store);
    #[cfg(feature = "mpi")]
    if let (Err(error), Some(worker)) = (&result, worker) {
        worker.abort(error);
    }
    result
}

fn train(args: Args, store: StoreChoice) -> Result<()> {
    let symbol = load_model(&args.model)?;
    let arguments = symbol.list_arguments();
    if !arguments.contains(&args.data_name) {
        return Err(input(format!(
            "the network has no input `{}` (arguments: {}); name it with --data-name",
            args.data_name,
            arguments.join(", ")
        )));
    }
    let takes_label = arguments.contains(&args.label_name);
    let records = is_rec(&args.data);
    match (&args.label, takes_label) {
        (Some(_), _) if records => {
            return Err(input(format!(
                "--data {} holds its labels: drop --label",
                args.data.display()
            )))
        }
        (None, true) if records => {}
        (None, true) => {
            return Err(input(format!(
                "the network takes labels `{}`: give them with --label Y.npy",
                args.label_name
            )))
        }
        (Some(_), false) => {
            return Err(input(format!(
                "the network has no label input `{}` (a loss head without labels): drop --label",
                args.label_name
            )))
        }
        _ => {}
    }
    if args.batch_size == 0 {
        return Err(input("--batch-size must be at least 1"));
    }
    let last_batch: LastBatch = args.last_batch.parse().map_err(input)?;
    let devices = contexts(&args.contexts)?;
    // Every name is checked before anything runs.
    let kwargs: Vec<(&str, &str)> = (args.optimizer_params.iter())
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    Optimizer::create(&args.optimizer, &kwargs).map_err(input)?;
    let init = initializer::create(&args.initializer).map_err(input)?;
    let mut train_metric = metric::create(&args.metric).map_err(input)?;
    let shard = match &store {
        StoreChoice::Value(kv) => Shard {
            part: kv.rank(),
            parts: kv.num_workers(),
        },
        StoreChoice::Named(_) => Shard { part: 0, parts: 1 },
    };
    let iterator = |(data_flag, data): (&str, &Path),
                    label: Option<(&str, &PathBuf)>,
                    training: bool|
     -> Result<Data> {
        if is_rec(data) {
            return image_iterator(&args, data_flag, data, training, shard).map(Data::Images);
        }
        let data = shard.rows(&load_npy(data_flag, data)?)?;
        let labels = match label {
            Some((flag, path)) => {
                let labels = shard.rows(&load_npy(flag, path)?)?;
                vec![(args.label_name.clone(), labels)]
            }
            None => vec![],
        };
        let it = NDArrayIter::new(
            vec![(args.data_name.clone(), data)],
            labels,
            args.batch_size,
        )
        .map_err(|e| input(format!("{data_flag}: {e}")))?;
        check_label(&symbol, &it, label)?;
        Ok(Data::Arrays(it.with_last_batch(last_batch)))
    };
    let label = args.label.as_ref().map(|p| ("--label", p));
    let train = iterator(("--data", &args.data), label, true)?;
    let mut eval = match (&args.eval_data, &args.eval_label) {
        (None, Some(_)) => return Err(input("--eval-label needs --eval-data")),
        (None, None) => None,
        (Some(path), None) if takes_label && !is_rec(path) => {
            return Err(input(format!(
                "the network takes labels `{}`: give the validation ones with --eval-label",
                args.label_name
            )))
        }
        (Some(path), eval_label) => {
            let label = eval_label.as_ref().map(|p| ("--eval-label", p));
            let eval = iterator(("--eval-data", path), label, false)?;
            let (want, got) = (
                &train.iter().provide_data()[0].shape,
                &eval.iter().provide_data()[0].shape,
            );
            if want != got {
                return Err(input(format!(
                    "--eval-data {}: batches of shape {} but the training data's are {}",
                    path.display(),
                    fmt_shape(got),
                    fmt_shape(want)
                )));
            }
            Some(eval.for_validation())
        }
    };
    if let Some(prefix) = &args.save_prefix {
        check_writable("--save-prefix", Path::new(&format!("{prefix}-symbol.json")))?;
    }
    if let Some(plot) = &args.plot {
        check_writable("--plot", plot)?;
    }
    let begin = match (&args.save_prefix, args.resume, args.begin_epoch) {
        (None, true, _) | (None, _, 1..) => {
            return Err(input("--resume and --begin-epoch need --save-prefix"))
        }
        (Some(prefix), true, _) => newest_checkpoint(prefix, args.save_optimizer_states)?,
        (_, false, k) => k,
    };
    if begin >= args.epochs {
        if args.resume {
            eprintln!("--resume: checkpoint {begin} is there already: nothing left to train");
            return Ok(());
        }
        return Err(input(format!(
            "nothing to train: epoch {begin} is not before --epochs {}",
            args.epochs
        )));
    }
    let data_names = [args.data_name.as_str()];
    let label_names: Vec<&str> = takes_label
        .then_some(args.label_name.as_str())
        .into_iter()
        .collect();
    let (mut module, arg_params, aux_params) = match (&args.save_prefix, begin) {
        (Some(prefix), 1..) => {
            let states = states_path(prefix, begin).exists();
            let (module, args_, aux) =
                Module::load(prefix, begin, states, &data_names, &label_names, &devices)
                    .map_err(input)?;
            if module.symbol().to_json()? != symbol.to_json()? {
                return Err(input(format!(
                    "{prefix}-symbol.json is another network than {}: resume with the network it was saved from",
                    args.model
                )));
            }
            if args.arg_params.is_some() {
                eprintln!("--arg-params is not used: the parameters come from checkpoint {begin}");
            }
            (module, Some(args_), Some(aux))
        }
        _ => {
            let module =
                Module::new(&symbol, &data_names, &label_names, &devices).map_err(input)?;
            match &args.arg_params {
                Some(path) => {
                    let (a, x) = load_params(path)?;
                    let known = |n: &String| {
                        module.param_names().contains(n) || module.aux_names().contains(n)
                    };
                    if let Some(name) = a.keys().chain(x.keys()).find(|n| !known(n)) {
                        return Err(input(format!(
                            "--arg-params {}: `{name}` is not a parameter of the network (its parameters: {})",
                            path.display(),
                            module.param_names().join(", ")
                        )));
                    }
                    (module, Some(a), Some(x))
                }
                None => (module, None, None),
            }
        }
    };
    let shuffle = args.shuffle.then_some(args.seed);
    let (mut train, batches) = train.start_at(begin as u64, shuffle);
    let mut fit = Fit::new(args.epochs);
    fit.begin_epoch = begin;
    fit.eval_data = eval.as_mut().map(|e| &mut **e as &mut dyn DataIter);
    fit.kvstore = Some(store);
    fit.optimizer = OptimizerChoice::Named(args.optimizer.clone(), args.optimizer_params.clone());
    fit.initializer = init;
    fit.seed = args.seed;
    // Parameters --arg-params lacks come from the initializer; a checkpoint has them all.
    fit.allow_missing = begin == 0;
    fit.arg_params = arg_params;
    fit.aux_params = aux_params;
    std::mem::swap(&mut fit.eval_metric, &mut train_metric);
    let progress = super::progress::Progress::new(batches, args.batch_size, args.disp_batches);
    let bar = progress.clone();
    fit.batch_end_callback.push(Box::new(move |end| {
        bar.batch(end.epoch, end.nbatch, &mut *end.eval_metric);
        Ok(())
    }));
    let prefix = args.save_prefix.clone();
    let save_states = args.save_optimizer_states;
    let started = std::cell::Cell::new(Instant::now());
    let done = progress.clone();
    // One worker writes what every worker holds alike.
    let (plot, prefix) = match shard.part {
        0 => (args.plot.clone(), prefix),
        _ => (None, None),
    };
    let mut curves: Vec<Curve> = Vec::new();
    fit.epoch_end_callback.push(Box::new(move |end| {
        done.epoch_end(
            end.epoch,
            end.train,
            end.validation,
            started.replace(Instant::now()),
        );
        if let Some(path) = &plot {
            let train = end.train.iter().map(|(n, v)| (format!("Train-{n}"), *v));
            let validation = (end.validation.unwrap_or_default().iter())
                .map(|(n, v)| (format!("Validation-{n}"), *v));
            for (name, value) in train.chain(validation) {
                match curves.iter_mut().find(|c| c.name == name) {
                    Some(c) => c.values.push(value),
                    None => curves.push(Curve {
                        name,
                        values: vec![value],
                    }),
                }
            }
            super::plot::write(path, begin, &curves)
                .map_err(|e| kiln::train::Error::Input(e.to_string()))?;
        }
        if let Some(prefix) = &prefix {
            end.module
                .save_checkpoint(prefix, end.epoch + 1, save_states)?;
            done.line(&format!(
                "Saved checkpoint to \"{prefix}-{:04}.params\"",
                end.epoch + 1
            ));
        }
        Ok(())
    }));
    module.fit(&mut *train, fit).map_err(input)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_key_value;

    #[test]
    fn key_values_keep_equals_signs_in_the_value() {
        assert_eq!(
            parse_key_value("lr_scheduler=factor(step=2,factor=0.5)").unwrap(),
            ("lr_scheduler".into(), "factor(step=2,factor=0.5)".into())
        );
        assert!(parse_key_value("=1").is_err());
        assert!(parse_key_value("momentum").is_err());
    }
}
