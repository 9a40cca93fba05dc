//! Inference (W4 `resnet18-infer`): a forward pass of the zoo's resnet18_v1 at 224×224 in
//! inference mode through a bound executor, `--batch N` images (default 1).

use super::{median_and_min, paired_quartiles, report, Args};
use kiln::compiler::{infer, summary};
use kiln::runtime::{random, Backend, Config, Device, Executor, GradReqs};
use kiln::{DType, Result};
use serde_json::json;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

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
    // Winograd's phases each over the whole layer instead of in bands of tiles; every
    // Winograd convolution by F(2x2, 3x3); 3x3 convolutions on im2col and gemm instead
    // of Winograd's algorithm; im2col written whole for the other convolutions (the
    // stem, strided and 1x1 ones) instead of gathered into gemm's panels.
    let config = Config::global().clone().backend(Backend::Jit);
    let variants = [
        ("kiln", config.clone()),
        (
            "kiln, epilogues as a second pass",
            config.clone().fused_epilogues(false),
        ),
        (
            "kiln, Winograd's phases layer by layer",
            config.clone().winograd_bands(false),
        ),
        (
            "kiln, Winograd by F(2x2, 3x3) only",
            config.clone().winograd_large_tiles(false),
        ),
        (
            "kiln, 3x3 convolutions on im2col + gemm",
            config.clone().winograd(false),
        ),
        (
            "kiln, im2col written whole, then gemm",
            config.clone().implicit_gemm(false),
        ),
    ];
    let mut bound = Vec::new();
    for (variant, config) in variants {
        let exe = bind(&net, &data, &config)?;
        let units = exe.inference_units()?;
        bound.push((variant, exe, units));
    }
    // The variants take turns run by run, so a slow minute of the machine weighs on all.
    let mut walls = vec![Vec::new(); bound.len()];
    for round in 0..=args.runs.max(1) {
        for ((_, exe, _), wall) in bound.iter().zip(&mut walls) {
            let start = Instant::now();
            exe.forward(false);
            exe.outputs()[0].wait_to_read()?;
            if round > 0 {
                wall.push(start.elapsed().as_secs_f64());
            }
        }
    }
    for ((variant, _, units), wall) in bound.iter().zip(&walls) {
        let [q1, q2, q3] = paired_quartiles(wall, &walls[0]);
        let timing = median_and_min(wall);
        let rate = batch as f64 / timing.0;
        let mut text = format!(
            "{rate:8.1} images/s, {:.1} GFLOP/s, batch {batch}",
            flops / timing.0 / 1e9
        );
        if *variant != bound[0].0 {
            text += &format!(", {q2:.3}× the first variant's run ({q1:.3}–{q3:.3})");
        }
        report(
            args,
            variant,
            timing,
            json!({ "batch": batch, "images_per_s": rate, "gflops": flops / timing.0 / 1e9,
                    "kernels": units.kernels, "products": units.products,
                    "winograd": units.winograd, "large_tiles": units.large_tiles, "reference_nodes": units.reference,
                    "over_first_quartiles": [q1, q2, q3] }),
            &format!("{text} ({units})"),
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
