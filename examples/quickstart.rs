//! kiln's main job for now: build a zoo model, print its summary, and run a forward pass
//! with deterministic weights on the reference interpreter (the oracle) and on a bound
//! executor (its fusion groups JIT-compiled by LLVM where kiln is built with it),
//! printing both times and how far the two outputs are apart.
//!
//! `cargo run --release --example quickstart [MODEL]` (default `resnet18_v1`; any name of
//! `kiln_models::zoo()`).

use kiln::compiler::autodiff::GradReq;
use kiln::compiler::{infer, interpret, summary, RunOptions};
use kiln::models::{self, weights};
use kiln::runtime::{Device, Executor, GradReqs, NDArray};
use kiln::Tensor;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

fn main() -> kiln::Result<()> {
    let name = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "resnet18_v1".into());
    let info = models::info(&name)?;
    let net = info.build()?;
    let g = net.to_graph()?;
    let shape = info.input_shape.to_vec();
    let known = HashMap::from([("data".to_string(), shape.clone())]);
    let inferred = infer::infer(&g, &known, &HashMap::new())?;
    let s = summary::summarize(&g, &inferred, &HashSet::from(["data".to_string()]));
    println!("{name}: input data {shape:?}");
    println!("{}", s.totals());
    for (op, (count, flops)) in &s.by_op {
        println!(
            "  {op:<20} {count:>4} × {:>10}FLOPs",
            summary::human(*flops as f64)
        );
    }

    // Deterministic weights (the formula the MXNet parity fixtures use) and input.
    let mut values: HashMap<String, Tensor> = HashMap::new();
    for id in g.node_ids().filter(|&id| g.node(id).is_variable()) {
        let n = g.node(id);
        let entry = kiln::compiler::Entry { node: id, index: 0 };
        let value = match n.name.as_str() {
            "data" => weights::input("data", &shape),
            label if label.ends_with("label") => {
                Tensor::zeros(kiln::DType::F32, inferred.shape(entry).clone())
            }
            param => weights::parameter(param, inferred.shape(entry)),
        };
        values.insert(n.name.clone(), value);
    }
    let start = Instant::now();
    let out = interpret(&g, &values, RunOptions::default())?;
    let elapsed = start.elapsed();
    let probs = &out[0];
    let mut top: Vec<(usize, f64)> = probs.data.iter().copied().enumerate().collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1));
    println!(
        "forward pass (reference interpreter): {:.2} s, {:.2} GFLOP/s; output {:?}",
        elapsed.as_secs_f64(),
        s.flops as f64 / elapsed.as_secs_f64() / 1e9,
        probs.shape
    );
    for (class, p) in top.iter().take(5) {
        println!("  class {class:>4}: {p:.5}");
    }

    // The same forward pass through an executor.
    let exe = Executor::simple_bind(
        &net,
        Device::Cpu,
        &[("data", &shape)],
        GradReqs::All(GradReq::Null),
    )?;
    let arrays = |names: Vec<String>| -> kiln::Result<HashMap<String, NDArray>> {
        names
            .into_iter()
            .map(|n| Ok((n.clone(), NDArray::from_tensor(&values[&n], Device::Cpu)?)))
            .collect()
    };
    exe.copy_params_from(
        &arrays(net.list_arguments())?,
        &arrays(net.list_auxiliary_states())?,
        false,
    )?;
    let (backend, units) = (exe.backend().0, exe.inference_units()?);
    let run = || -> kiln::Result<(f64, Tensor)> {
        let start = Instant::now();
        exe.forward(false);
        let out = exe.outputs()[0].to_tensor()?;
        Ok((start.elapsed().as_secs_f64(), out))
    };
    let (first, _) = run()?;
    let (steady, out) = run()?;
    // A NaN or a missing value is no difference to report but a wrong output.
    let diff = out
        .max_rel_diff(probs)
        .unwrap_or_else(|e| panic!("the executor's output is not the interpreter's: {e}"));
    println!(
        "forward pass (executor, {backend:?}: {units}): \
         {steady:.3} s, {:.2} GFLOP/s (first run {first:.3} s); max |difference| from the \
         interpreter {diff:.1e} of the output scale",
        s.flops as f64 / steady / 1e9
    );
    Ok(())
}
