//! GPU workloads on GPU 0 (`--device cuda`, the default) or the emulated device
//! (`--device emulated`: the same code paths, at sizes the emulator finishes):
//!
//! - `gpu-elementwise` (W1 on the GPU): `y = a*b + 1` over 2^`--log2-size` f32 (default
//!   28) through a bound GPU executor, against the device's own copy of the same array
//!   (`cuMemcpyDtoD`): bandwidth counts 3 arrays moved for `a*b + 1`, 2 for the copy
//!   (target: ≥ 0.9×).
//! - `gpu-resnet50`: resnet50_v1 at 224×224, inference at `--batch` (default 1) and, with
//!   `--train`, a training step (forward and backward): images/s, against the bound a
//!   cuBLAS product sets — the network's multiply-adds at the rate cuBLAS reaches on a
//!   4096³ product measured in the same run.

use super::{report, time, Args};
use kiln::compiler::program::Mode;
use kiln::cuda::driver::CudaGpu;
use kiln::cuda::emulated::Emulated;
use kiln::cuda::executor::GpuExecutor;
use kiln::cuda::pool::Pool;
use kiln::cuda::{Gemm, Gpu, GpuError};
use kiln::{Error, Result, Symbol, Tensor};
use serde_json::json;
use std::sync::Arc;

fn gpu_error(e: GpuError) -> Error {
    Error::Input(e.to_string())
}

fn device(args: &Args) -> Result<Arc<dyn Gpu>> {
    match args.device.as_deref() {
        Some("emulated") => Ok(Arc::new(Emulated::new(16 << 30))),
        _ => {
            let cache = kiln::runtime::Config::global().cache_dir.clone();
            let gpu = CudaGpu::new(0, cache).map_err(gpu_error)?;
            Ok(Arc::new(gpu))
        }
    }
}

/// Runs `f` `args.runs` times (after a warm-up), each run waited for; the first error
/// ends the measurement.
fn timed(args: &Args, f: &dyn Fn() -> kiln::cuda::Result<()>) -> Result<(f64, f64)> {
    let mut failure = None;
    let t = time(args.runs, || {
        if failure.is_none() {
            failure = f().err();
        }
    });
    failure.map_or(Ok(t), |e| Err(gpu_error(e)))
}

pub fn elementwise(args: &Args) -> Result<()> {
    let gpu = device(args)?;
    let n = 1usize << args.log2_size;
    let bytes = n * 4;
    let s = gpu.new_stream().map_err(gpu_error)?;
    let (src, dst) = (gpu.alloc(bytes), gpu.alloc(bytes));
    let (src, dst) = (src.map_err(gpu_error)?, dst.map_err(gpu_error)?);
    let copy = timed(args, &|| {
        gpu.copy_on_device(s, dst, src, bytes)?;
        gpu.synchronize(s)
    })?;
    gpu.free(src).map_err(gpu_error)?;
    gpu.free(dst).map_err(gpu_error)?;
    let copy_gbps = 2.0 * bytes as f64 / copy.0 / 1e9;
    report(
        args,
        "copy",
        copy,
        json!({ "gbps": copy_gbps, "elements": n, "device": gpu.name() }),
        &format!(
            "{copy_gbps:7.1} GB/s (device-to-device copy on {})",
            gpu.name()
        ),
    );
    let (a, b) = (Symbol::var("a"), Symbol::var("b"));
    let y = &(&a * &b) + 1.0;
    let pool = Arc::new(Pool::new(gpu.clone()).map_err(gpu_error)?);
    let shape = [n];
    let shapes = [("a", &shape[..]), ("b", &shape[..])];
    let ex = GpuExecutor::bind(pool, &y, &shapes, Mode::Inference).map_err(gpu_error)?;
    for name in ["a", "b"] {
        let t = Tensor::full(kiln::DType::F32, vec![n], 1.5);
        ex.set(name, &t).map_err(gpu_error)?;
    }
    let run = timed(args, &|| {
        ex.forward()?;
        ex.synchronize()
    })?;
    let gbps = 3.0 * bytes as f64 / run.0 / 1e9;
    report(
        args,
        "executor",
        run,
        json!({ "gbps": gbps, "elements": n, "of_copy": gbps / copy_gbps }),
        &format!("{gbps:7.1} GB/s, {:.2}× the copy", gbps / copy_gbps),
    );
    Ok(())
}

pub fn resnet50(args: &Args) -> Result<()> {
    let gpu = device(args)?;
    let batch = args.batch.unwrap_or(1);
    let symbol = kiln::models::get("resnet50_v1")?;
    let data = [batch, 3, 224, 224];
    let flops = {
        let g = symbol.to_graph()?;
        let shapes = std::collections::HashMap::from([("data".to_string(), data.to_vec())]);
        let inferred = kiln::compiler::infer::infer(&g, &shapes, &Default::default())?;
        let inputs = std::collections::HashSet::from(["data".to_string()]);
        kiln::compiler::summary::summarize(&g, &inferred, &inputs).flops as f64
    };
    let gemm_rate = gemm_flops(args, &gpu)?;
    let pool = Arc::new(Pool::new(gpu.clone()).map_err(gpu_error)?);
    let passes: &[bool] = if args.train { &[false, true] } else { &[false] };
    for &train in passes {
        let mode = match train {
            true => Mode::train_parameters(&symbol),
            false => Mode::Inference,
        };
        let ex = GpuExecutor::bind(pool.clone(), &symbol, &[("data", &data)], mode)
            .map_err(gpu_error)?;
        let inferred = symbol.infer_shape(&[("data", &data)])?;
        for (name, shape) in symbol.list_arguments().iter().zip(&inferred.arguments) {
            let t = match name.as_str() {
                "data" | "softmax_label" => Tensor::zeros(kiln::DType::F32, shape.clone()),
                _ => kiln::models::weights::parameter(name, shape),
            };
            ex.set(name, &t).map_err(gpu_error)?;
        }
        let step = timed(args, &|| {
            ex.forward()?;
            if train {
                ex.backward(&[])?;
            }
            ex.synchronize()
        })?;
        // A training step is about three forward passes of work.
        let work = if train { 3.0 * flops } else { flops };
        let (rate, bound) = (batch as f64 / step.0, batch as f64 * gemm_rate / work);
        let variant = if train { "train" } else { "infer" };
        report(
            args,
            variant,
            step,
            json!({ "batch": batch, "images_per_s": rate, "bound_images_per_s": bound, "host_steps": ex.host_steps() }),
            &format!(
                "batch {batch}: {rate:8.1} images/s, {:.2} of the cuBLAS bound ({bound:.0}/s); {} steps on the host",
                rate / bound,
                ex.host_steps()
            ),
        );
    }
    Ok(())
}

/// Multiply-adds per second cuBLAS reaches on a square f32 product (4096³ on a GPU, 256³
/// on the emulated device), as FLOPs (2 per multiply-add).
fn gemm_flops(args: &Args, gpu: &Arc<dyn Gpu>) -> Result<f64> {
    let n = if args.device.as_deref() == Some("emulated") {
        256
    } else {
        4096
    };
    let s = gpu.new_stream().map_err(gpu_error)?;
    let bytes = n * n * 4;
    let mut buffers = Vec::new();
    for _ in 0..3 {
        let p = gpu.alloc(bytes).map_err(gpu_error)?;
        gpu.fill_zero(s, p, bytes).map_err(gpu_error)?;
        buffers.push(p);
    }
    let g = Gemm {
        dtype: kiln::DType::F32,
        trans_a: false,
        trans_b: false,
        m: n,
        n,
        k: n,
        alpha: 1.0,
        a: buffers[0],
        lda: n,
        b: buffers[1],
        ldb: n,
        beta: 0.0,
        c: buffers[2],
        ldc: n,
        batch: 1,
        strides: [0; 3],
    };
    let t = timed(args, &|| {
        gpu.gemm(s, &g)?;
        gpu.synchronize(s)
    })?;
    for p in buffers {
        gpu.free(p).map_err(gpu_error)?;
    }
    let rate = 2.0 * (n * n * n) as f64 / t.0;
    report(
        args,
        "gemm",
        t,
        json!({ "n": n, "tflops": rate / 1e12 }),
        &format!("{:.1} TFLOP/s (cuBLAS sgemm {n}³)", rate / 1e12),
    );
    Ok(rate)
}
