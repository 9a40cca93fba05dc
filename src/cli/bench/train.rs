//! Training steps (W2 `mlp-train`, W3 `lenet-train`, W6 `resnet18-train`): forward in
//! training mode, backward, and an SGD update of every parameter (lr 0.1, gradients
//! rescaled by 1/batch as MXNet's Module does), all pushed to the engine; a run is one
//! whole step, waited for, and the variants take turns run by run, so a noisy minute of
//! the machine weighs on all. W2 and W3: plain SGD, the updates run as their gradients
//! complete (`kiln`), or together after backward (an ablation). W6: MXNet's SGD with
//! momentum 0.9 through the Module (what compare.sh reports) and through the executor
//! and kiln-train's optimizer (`kiln`). Where the program computes a convolution's data
//! gradient through columns (W3, W6), an ablation computes it as one product over every
//! input position (the `expand_backward` pass off); another runs a weight gradient's
//! images one after another, each split over the threads (shared sums off). With
//! `--module`, W2 and W3 through kiln-train's `Module` too (`forward_backward` and
//! `update` of a batch, the optimizer MXNet's SGD), and through the executor doing the
//! Module's work without it (the batch copied into its inputs, kiln-train's SGD after
//! backward): the Module's cost over that is the module's own, over `kiln` also the
//! batch's copy and MXNet's rule. Where a Module runs, the executor variants run on its
//! executor, so that all read the same memory. Beside each variant's median, the median
//! and quartiles of its step over the first variant's in the same round (paired, so the
//! machine's slow minutes cancel out); `host_us` is,
//! for every variant, the time the step's calls take before the wait, so the Module's
//! minus the executor's is the module's own work outside the kernels; `host_cpu_us` is
//! the CPU time the calling thread spent in them, which leaves out the time the kernels
//! already running took the core from it (with as many engine workers as cores, the wall
//! time counts both).

use super::{report, Args};
use kiln::compiler::autodiff::GradReq;
use kiln::io::{DataBatch, DataDesc};
use kiln::runtime::optim::Sgd;
use kiln::runtime::{random, Config, Device, Engine, Executor, GradReqs, NDArray, Operator};
use kiln::train::{Module, Optimizer};
use kiln::{DType, Error, Result, Symbol};
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

/// W2: 784-512-512-10, ReLU, softmax cross-entropy.
pub fn mlp() -> Result<Symbol> {
    let mut x = Symbol::var("data");
    for (i, hidden) in [(1, 512), (2, 512)] {
        x = Symbol::op("FullyConnected")
            .name(format!("fc{i}"))
            .arg(&x)
            .attr("num_hidden", hidden)
            .build()?;
        x = Symbol::op("Activation")
            .name(format!("relu{i}"))
            .arg(&x)
            .attr("act_type", "relu")
            .build()?;
    }
    let x = Symbol::op("FullyConnected")
        .name("fc3")
        .arg(&x)
        .attr("num_hidden", 10)
        .build()?;
    Ok(Symbol::op("SoftmaxOutput")
        .name("softmax")
        .arg(&x)
        .build()?)
}

/// Times one training step of `net` on random data of `data` shape with random labels in
/// `0..classes`. With a `momentum` (W6), the updates are MXNet's SGD with it, through the
/// Module and through an executor and kiln-train's optimizer, with the ablation on the
/// latter (the executor's update operations are plain SGD).
pub fn run(
    args: &Args,
    net: &Symbol,
    data: &[usize],
    classes: usize,
    momentum: Option<f64>,
) -> Result<()> {
    let batch = data[0];
    let params: Vec<String> = net
        .list_arguments()
        .into_iter()
        .filter(|n| n != "data" && n != "softmax_label")
        .collect();
    let config = Config::global().clone();
    let exe = bind(net, data, &params, &config)?;
    let args_by_name = exe.arg_dict();
    random::seed(7);
    for name in &params {
        let a = &args_by_name[name];
        let fan_in = a.shape().iter().skip(1).product::<usize>().max(1) as f64;
        let bound = (3.0 / fan_in).sqrt();
        a.copy_from(&random::uniform(-bound, bound, a.shape(), DType::F32)?)?;
    }
    args_by_name["data"].copy_from(&random::uniform(0.0, 1.0, data, DType::F32)?)?;
    let labels: Vec<f32> = (0..batch).map(|i| ((i * 7) % classes) as f32).collect();
    args_by_name["softmax_label"].copy_from(&NDArray::from_slice(&labels, &[batch])?)?;
    // The ablations, each bound under its configuration, where its program differs: a
    // convolution's data gradient as one product over every input position
    // (`_backward_Convolution` not expanded into columns and col2im); a 3x3 weight
    // gradient on im2col and gemm instead of Winograd's algorithm; and, for a network of
    // images, a weight gradient's images one after another, each split over the threads
    // (not shared among them); every Winograd convolution by F(2x2, 3x3).
    let images = data.len() == 4;
    let configs = [
        (
            "kiln, data gradients as one product",
            config.clone().disable_pass("expand_backward"),
            false,
        ),
        (
            "kiln, 3x3 weight gradients on im2col + gemm",
            config.clone().winograd_weight_gradients(false),
            false,
        ),
        (
            "kiln, weight gradients' images one after another",
            config.clone().shared_sums(false),
            images,
        ),
        (
            "kiln, Winograd by F(2x2, 3x3) only",
            config.clone().winograd_large_tiles(false),
            images,
        ),
    ];
    let mut ablations: Vec<(&str, Executor)> = Vec::new();
    for (name, config, always) in configs {
        let ablated = bind(net, data, &params, &config)?;
        if always || ablated.backend().1 != exe.backend().1 {
            for (name, a) in ablated.arg_dict() {
                a.copy_from(&args_by_name[&name])?;
            }
            ablations.push((name, ablated));
        }
    }
    let mut variants: Vec<(&str, Step)> = Vec::new();
    if let Some(momentum) = momentum {
        let (step, exe) = module_step(net, &exe, &params, data, momentum)?;
        variants.push(("kiln Module (forward_backward + update)", step));
        variants.push(("kiln", optimizer_step(&exe, &params, momentum, false)?));
        for (name, ablated) in &ablations {
            variants.push((name, optimizer_step(ablated, &params, momentum, false)?));
        }
    } else {
        let sgd = Sgd {
            lr: 0.1,
            wd: 0.0,
            rescale_grad: 1.0 / batch as f64,
        };
        let updates_of = |exe: &Executor| {
            let (weights, grads) = (exe.arg_dict(), exe.grad_dict());
            (params.iter())
                .map(|n| sgd.operator(&weights[n], &grads[n]))
                .collect::<Result<Vec<_>>>()
        };
        // With the Module, the executor variants run on its executor: every variant reads
        // the same memory (another executor's, cold after the others' steps, cost a few
        // percent).
        let exe = match args.module {
            true => {
                let (step, exe) = module_step(net, &exe, &params, data, 0.0)?;
                variants.push(("kiln Module (forward_backward + update)", step));
                let step = optimizer_step(&exe, &params, 0.0, true)?;
                variants.push(("kiln, batch copied in, kiln-train's SGD", step));
                exe
            }
            false => exe.clone(),
        };
        let updates = updates_of(&exe)?;
        // Each parameter's update is pushed with a higher priority, so it runs as soon as
        // its gradient is complete, while backward goes on; the ablation updates every
        // parameter in one operation after backward.
        let at_end = Engine::global().new_segment("sgd_update (all)", updates.clone());
        variants.push(("kiln", executor_step(&exe, updates, 1)));
        variants.push((
            "kiln, one update after backward",
            executor_step(&exe, vec![at_end], 0),
        ));
        for (name, ablated) in &ablations {
            variants.push((name, executor_step(ablated, updates_of(ablated)?, 1)));
        }
    }
    let first = variants[0].0;
    for (variant, times) in interleaved(args.runs, &mut variants)? {
        let units = (ablations.iter())
            .find(|(name, _)| *name == variant)
            .map_or(exe.backend().1, |(_, ablated)| ablated.backend().1);
        let rate = batch as f64 / times.wall.0;
        let mut row = json!({ "batch": batch, "samples_per_s": rate, "host_us": times.host_us,
            "host_cpu_us": times.host_cpu_us, "kernels": units.kernels,
            "products": units.products, "reference_nodes": units.reference,
            "over_first_quartiles": times.paired });
        let mut text = format!(
            "{rate:8.0} samples/s, batch {batch}, {:.0} µs in its calls",
            times.host_us
        );
        if variant != first {
            let [q1, q2, q3] = times.paired;
            text += &format!(", {q2:.3}× the first variant's step ({q1:.3}–{q3:.3})");
        }
        if let Some(update_us) = times.update_us {
            row["update_us"] = json!(update_us);
            text += &format!(" ({update_us:.0} in update)");
        }
        report(args, variant, times.wall, row, &format!("{text} ({units})"));
    }
    Ok(())
}

/// A variant's step: pushes one training step, returning the seconds its update call took
/// where it has one.
type Step<'a> = Box<dyn FnMut() -> Result<Option<f64>> + 'a>;

/// `net` bound for training at `data`'s shape under `config`, with gradients of `params`
/// only, as MXNet's Module (and the peers) bind.
fn bind(net: &Symbol, data: &[usize], params: &[String], config: &Config) -> Result<Executor> {
    let reqs = params.iter().map(|n| (n.clone(), GradReq::Write)).collect();
    Executor::simple_bind_with(
        config,
        net,
        Device::Cpu,
        &[("data", data), ("softmax_label", &[data[0]])],
        GradReqs::Each(reqs),
    )
}

/// The step through the executor: forward, backward, and `updates` pushed at `priority`.
fn executor_step<'a>(exe: &Executor, updates: Vec<Arc<Operator>>, priority: i32) -> Step<'a> {
    let exe = exe.clone();
    Box::new(move || {
        exe.forward(true);
        exe.backward(&[])?;
        for u in &updates {
            Engine::global().push(u, priority);
        }
        Ok(None)
    })
}

/// The step through the executor and kiln-train's optimizer: MXNet's SGD with the
/// Module variant's learning rate, rescaling and `momentum`, every parameter in one call
/// after backward, as the Module's `update` makes it; where `load`, the batch (a copy of
/// the executor's) copied into the executor's inputs first, as the Module's `forward`
/// does: the Module's work without the Module.
fn optimizer_step<'a>(
    exe: &Executor,
    params: &[String],
    momentum: f64,
    load: bool,
) -> Result<Step<'a>> {
    let train_err = |e: kiln::train::Error| Error::Input(e.to_string());
    let batch = exe.arg_dict()["data"].shape()[0];
    let mut optimizer = Optimizer::create(
        "sgd",
        &sgd_kwargs(batch, momentum)
            .each_ref()
            .map(|(k, v)| (*k, v.as_str())),
    )
    .map_err(train_err)?;
    let (weights, grads) = (exe.arg_dict(), exe.grad_dict());
    let pairs: Vec<(NDArray, NDArray)> = (params.iter())
        .map(|n| (weights[n].clone(), grads[n].clone()))
        .collect();
    let inputs: Vec<(NDArray, NDArray)> = match load {
        true => (["data", "softmax_label"].iter())
            .map(|n| Ok((weights[*n].clone(), weights[*n].copy_to(Device::Cpu)?)))
            .collect::<Result<_>>()?,
        false => vec![],
    };
    let exe = exe.clone();
    Ok(Box::new(move || {
        for (input, batch) in &inputs {
            input.copy_from(batch)?;
        }
        exe.forward(true);
        exe.backward(&[])?;
        let update = Instant::now();
        let list: Vec<_> = (pairs.iter().enumerate())
            .map(|(i, (w, g))| (i, w, g))
            .collect();
        optimizer.update_multi(&list).map_err(train_err)?;
        Ok(Some(update.elapsed().as_secs_f64()))
    }))
}

/// MXNet's SGD arguments of every variant: learning rate 0.1, gradients rescaled by
/// 1/batch, and `momentum`.
fn sgd_kwargs(batch: usize, momentum: f64) -> [(&'static str, String); 3] {
    [
        ("learning_rate", "0.1".into()),
        ("rescale_grad", format!("{}", 1.0 / batch as f64)),
        ("momentum", format!("{momentum}")),
    ]
}

/// What the runs of one variant measured.
struct Times {
    /// Median and minimum seconds of a whole step, waited for.
    wall: (f64, f64),
    /// Quartiles (first, median, third) of the step's time over the first variant's in
    /// the same round.
    paired: [f64; 3],
    host_us: f64,
    host_cpu_us: f64,
    update_us: Option<f64>,
}

/// Runs the variants' steps in turn, `runs` rounds after one to warm up, so that each
/// round's steps see the same machine (a slower minute slows all of them).
fn interleaved<'v>(runs: usize, variants: &'v mut [(&str, Step)]) -> Result<Vec<(&'v str, Times)>> {
    let mut samples = vec![[const { Vec::new() }; 4]; variants.len()];
    for round in 0..=runs.max(1) {
        for ((_, step), [wall, host, host_cpu, update]) in variants.iter_mut().zip(&mut samples) {
            let (start, start_cpu) = (Instant::now(), thread_cpu_s());
            let updating = step()?;
            let (pushed, pushed_cpu) = (start.elapsed(), thread_cpu_s() - start_cpu);
            Engine::global().wait_all()?;
            if round > 0 {
                wall.push(start.elapsed().as_secs_f64());
                host.push(pushed.as_secs_f64());
                host_cpu.push(pushed_cpu);
                update.extend(updating);
            }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let first = (samples.first())
        .map(|[wall, ..]| wall.clone())
        .unwrap_or_default();
    Ok((variants.iter().zip(samples))
        .map(
            |((name, _), [mut wall, mut host, mut host_cpu, mut update])| {
                let times = Times {
                    paired: super::paired_quartiles(&wall, &first),
                    wall: (median(&mut wall), wall[0]),
                    host_us: median(&mut host) * 1e6,
                    host_cpu_us: median(&mut host_cpu) * 1e6,
                    update_us: (!update.is_empty()).then(|| median(&mut update) * 1e6),
                };
                (*name, times)
            },
        )
        .collect())
}

/// The CPU time the calling thread has used, in seconds.
fn thread_cpu_s() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for clock_gettime to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// The step through `Module`: the executor's parameters and batch copied in, SGD with the
/// executor variant's learning rate and rescaling, and `momentum`; and the Module's own
/// executor, holding the same arguments.
fn module_step<'a>(
    net: &Symbol,
    exe: &Executor,
    params: &[String],
    data: &[usize],
    momentum: f64,
) -> Result<(Step<'a>, Executor)> {
    let batch = data[0];
    let train_err = |e: kiln::train::Error| Error::Input(e.to_string());
    let mut module =
        Module::new(net, &["data"], &["softmax_label"], &[Device::Cpu]).map_err(train_err)?;
    let shapes =
        [("data", data.to_vec()), ("softmax_label", vec![batch])].map(|(name, shape)| DataDesc {
            name: name.into(),
            shape,
            dtype: DType::F32,
        });
    module
        .bind(&shapes[..1], &shapes[1..], true, false, GradReq::Write)
        .map_err(train_err)?;
    let args_by_name = exe.arg_dict();
    let initial = (params.iter())
        .map(|n| (n.clone(), args_by_name[n].clone()))
        .collect();
    module
        .set_params(&initial, &exe.aux_dict(), false, false)
        .map_err(train_err)?;
    let kwargs = sgd_kwargs(batch, momentum);
    module
        .init_optimizer_by_name(
            None,
            "sgd",
            &kwargs.each_ref().map(|(k, v)| (*k, v.as_str())),
        )
        .map_err(train_err)?;
    let step = DataBatch {
        data: vec![args_by_name["data"].copy_to(Device::Cpu)?],
        label: vec![args_by_name["softmax_label"].copy_to(Device::Cpu)?],
        pad: 0,
    };
    let own = module.executors()[0].clone();
    let own_args = own.arg_dict();
    for (input, batch) in ["data", "softmax_label"]
        .iter()
        .zip(step.data.iter().chain(&step.label))
    {
        own_args[*input].copy_from(batch)?;
    }
    let step = Box::new(move || {
        module.forward_backward(&step).map_err(train_err)?;
        let update = Instant::now();
        module.update().map_err(train_err)?;
        Ok(Some(update.elapsed().as_secs_f64()))
    });
    Ok((step, own))
}
