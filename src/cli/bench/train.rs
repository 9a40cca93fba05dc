//! Training steps (W2 `mlp-train`, W3 `lenet-train`): forward in training mode, backward,
//! and an SGD update of every parameter (lr 0.1, gradients rescaled by 1/batch as MXNet's
//! Module does), all pushed to the engine; a run is one whole step, waited for. The
//! updates run as their gradients complete (`kiln`), or together after backward (the
//! ablation). With `--module`, the same step through kiln-train's `Module`
//! (`forward_backward` and `update` of a batch, the optimizer MXNet's SGD), whose cost
//! over the executor's is the module's; `host_us` is, for every variant, the time the
//! step's calls take before the wait, so the Module's minus the executor's is the module's
//! own work outside the kernels.

use super::{report, time, Args};
use kiln::compiler::autodiff::GradReq;
use kiln::io::{DataBatch, DataDesc};
use kiln::runtime::optim::Sgd;
use kiln::runtime::{random, Device, Engine, Executor, GradReqs, NDArray};
use kiln::train::Module;
use kiln::{DType, Error, Result, Symbol};
use serde_json::json;
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
/// `0..classes`.
pub fn run(args: &Args, net: &Symbol, data: &[usize], classes: usize) -> Result<()> {
    let batch = data[0];
    let exe = Executor::simple_bind(
        net,
        Device::Cpu,
        &[("data", data), ("softmax_label", &[batch])],
        GradReqs::All(GradReq::Write),
    )?;
    let params: Vec<String> = net
        .list_arguments()
        .into_iter()
        .filter(|n| n != "data" && n != "softmax_label")
        .collect();
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
    let sgd = Sgd {
        lr: 0.1,
        wd: 0.0,
        rescale_grad: 1.0 / batch as f64,
    };
    let grads = exe.grad_dict();
    let updates = params
        .iter()
        .map(|n| sgd.operator(&args_by_name[n], &grads[n]))
        .collect::<Result<Vec<_>>>()?;
    // Each parameter's update is pushed with a higher priority, so it runs as soon as its
    // gradient is complete, while backward goes on; the ablation updates every parameter
    // in one operation after backward.
    let at_end = Engine::global().new_segment("sgd_update (all)", updates.clone());
    let variants: [(&str, &[std::sync::Arc<_>], i32); 2] = [
        ("kiln", &updates, 1),
        (
            "kiln, one update after backward",
            std::slice::from_ref(&at_end),
            0,
        ),
    ];
    let units = exe.backend().1;
    if args.module {
        module_step(args, net, &exe, &params, data, batch, units)?;
    }
    for (variant, ops, priority) in variants {
        let mut failed = None;
        let mut host = Vec::new();
        let timing = time(args.runs, || {
            let start = Instant::now();
            exe.forward(true);
            if let Err(e) = exe.backward(&[]) {
                failed.get_or_insert(e);
            }
            for u in ops {
                Engine::global().push(u, priority);
            }
            host.push(start.elapsed().as_secs_f64());
            if let Err(e) = Engine::global().wait_all() {
                failed.get_or_insert(Error::from(e));
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        let rate = batch as f64 / timing.0;
        let host_us = median_host_us(host);
        report(
            args,
            variant,
            timing,
            json!({ "batch": batch, "samples_per_s": rate, "host_us": host_us, "kernels": units.kernels,
                    "products": units.products, "reference_nodes": units.reference }),
            &format!("{rate:8.0} samples/s, batch {batch}, {host_us:.0} µs pushing ({units})"),
        );
    }
    Ok(())
}

/// The median of the host times of a step's calls (before the wait), in µs, the warm-up
/// step left out.
fn median_host_us(mut host: Vec<f64>) -> f64 {
    host.remove(0);
    host.sort_by(f64::total_cmp);
    host[host.len() / 2] * 1e6
}

/// The step through `Module`: the executor's parameters and batch copied in, SGD with the
/// executor variant's learning rate and rescaling.
fn module_step(
    args: &Args,
    net: &Symbol,
    exe: &Executor,
    params: &[String],
    data: &[usize],
    batch: usize,
    units: kiln::runtime::StepCounts,
) -> Result<()> {
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
    let rescale = format!("{}", 1.0 / batch as f64);
    let kwargs = [("learning_rate", "0.1"), ("rescale_grad", rescale.as_str())];
    module
        .init_optimizer_by_name(None, "sgd", &kwargs)
        .map_err(train_err)?;
    let step = DataBatch {
        data: vec![args_by_name["data"].copy_to(Device::Cpu)?],
        label: vec![args_by_name["softmax_label"].copy_to(Device::Cpu)?],
        pad: 0,
    };
    let (mut failed, mut host, mut updating) = (None, Vec::new(), Vec::new());
    let timing = time(args.runs, || {
        let start = Instant::now();
        let pushed = module.forward_backward(&step);
        let update = Instant::now();
        let pushed = pushed.and_then(|()| module.update());
        updating.push(update.elapsed().as_secs_f64());
        host.push(start.elapsed().as_secs_f64());
        if let Err(e) = pushed {
            failed.get_or_insert(train_err(e));
        }
        if let Err(e) = Engine::global().wait_all() {
            failed.get_or_insert(Error::from(e));
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let (host_us, update_us) = (median_host_us(host), median_host_us(updating));
    let rate = batch as f64 / timing.0;
    report(
        args,
        "kiln Module (forward_backward + update)",
        timing,
        json!({ "batch": batch, "samples_per_s": rate, "host_us": host_us, "update_us": update_us, "kernels": units.kernels,
                "products": units.products, "reference_nodes": units.reference }),
        &format!("{rate:8.0} samples/s, batch {batch}, {host_us:.0} µs in the module's calls ({update_us:.0} in update)"),
    );
    Ok(())
}
