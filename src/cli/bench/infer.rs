//! Inference (W4 `resnet18-infer`): a forward pass of the zoo's resnet18_v1 at 224×224 in
//! inference mode through a bound executor, `--batch N` images (default 1).

use super::{report, time, Args};
use kiln::compiler::{infer, summary};
use kiln::runtime::{random, Backend, Config, Device, Executor, GradReqs};
use kiln::{DType, Result};
use serde_json::json;
use std::collections::{HashMap, HashSet};

pub fn run(args: &Args) -> Result<()> {
    let batch = args.batch.unwrap_or(1);
    let net = kiln::models::get("resnet18_v1")?;
    let data = [batch, 3, 224, 224];
    let g = net.to_graph()?;
    let shapes = HashMap::from([("data".to_string(), data.to_vec())]);
    let inferred = infer::infer(&g, &shapes, &HashMap::new())?;
    let flops =
        summary::summarize(&g, &inferred, &HashSet::from(["data".to_string()])).flops as f64;
    // The ablations: each product's epilogue (bias, batch norm, ReLU, residual add) as a
    // second pass over its whole output instead of on each block while it is in cache;
    // Winograd's phases each over the whole layer instead of in bands of tiles; 3x3
    // convolutions on im2col and gemm instead of Winograd's algorithm.
    let variants = [
        ("kiln", true, true, true),
        ("kiln, epilogues as a second pass", false, true, true),
        ("kiln, Winograd's phases layer by layer", true, true, false),
        ("kiln, 3x3 convolutions on im2col + gemm", true, false, true),
    ];
    for (variant, fused, winograd, bands) in variants {
        let config = (Config::global().clone())
            .backend(Backend::Jit)
            .fused_epilogues(fused)
            .winograd(winograd)
            .winograd_bands(bands);
        let exe = bind(&net, &data, &config)?;
        let units = exe.inference_units()?;
        let mut failed = None;
        let timing = time(args.runs, || {
            exe.forward(false);
            if let Err(e) = exe.outputs()[0].wait_to_read() {
                failed.get_or_insert(e);
            }
        });
        if let Some(e) = failed {
            return Err(kiln::Error::from(e));
        }
        let rate = batch as f64 / timing.0;
        report(
            args,
            variant,
            timing,
            json!({ "batch": batch, "images_per_s": rate, "gflops": flops / timing.0 / 1e9,
                    "kernels": units.kernels, "products": units.products,
                    "winograd": units.winograd, "reference_nodes": units.reference }),
            &format!(
                "{rate:8.1} images/s, {:.1} GFLOP/s, batch {batch} ({units})",
                flops / timing.0 / 1e9
            ),
        );
    }
    Ok(())
}

/// resnet18 bound for inference at `data`'s shape, with the same random weights on
/// every call.
fn bind(net: &kiln::Symbol, data: &[usize], config: &Config) -> Result<Executor> {
    let exe = Executor::simple_bind_with(
        config,
        net,
        Device::Cpu,
        &[("data", data)],
        GradReqs::All(kiln::compiler::autodiff::GradReq::Null),
    )?;
    random::seed(7);
    for (name, a) in exe.arg_dict().into_iter().chain(exe.aux_dict()) {
        let v = if name.ends_with("_var") {
            random::uniform(0.5, 1.5, a.shape(), DType::F32)?
        } else {
            random::uniform(-0.1, 0.1, a.shape(), DType::F32)?
        };
        a.copy_from(&v)?;
    }
    Ok(exe)
}
