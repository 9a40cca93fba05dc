//! NVRTC's compile latency per kernel of a zoo model's GPU training program (batch 1):
//!
//! - `nvrtc`: the whole module as one NVRTC program, compiled to the device's image
//!   (CUBIN where NVRTC knows the architecture);
//! - `nvrtc-parts`: in parts over the host's threads, as a bind on a GPU compiles it
//!   (the time per kernel is the wall time over the count);
//! - `load-disk` (with a GPU): a fresh device loading the module from its disk cache.
//!
//! The architecture is GPU 0's; without a GPU, sm_90's (NVRTC alone, no driver).

use super::{report_per_kernel, time, Args};
use kiln::compiler::program::{compile, Mode, Spec};
use kiln::cuda::driver::{compile_images, CudaGpu};
use kiln::cuda::{module, Arch, Gpu, GpuError};
use kiln::{Error, Result};
use serde_json::json;
use std::collections::HashMap;

fn gpu_error(e: GpuError) -> Error {
    Error::Input(e.to_string())
}

pub fn run(args: &Args) -> Result<()> {
    let info = kiln::models::info(&args.model)?;
    let sym = info.build()?;
    let shapes = HashMap::from([("data".to_string(), info.input_shape.to_vec())]);
    let spec = Spec::new(
        shapes,
        Mode::train_parameters(&sym),
        kiln::cuda::executor::target(),
    );
    let program = compile(&sym, &spec)?;
    let module = module::of_program(&program, &args.model).map_err(gpu_error)?;
    let count = module.kernels.len();
    let dir = std::env::temp_dir().join(format!("kiln-bench-nvrtc-{}", std::process::id()));
    let device = CudaGpu::new(0, Some(dir.clone()));
    let arch = match &device {
        Ok(gpu) => gpu.arch(),
        Err(e) => {
            eprintln!("note: {e}; compiling for sm_90 without loading");
            Arch { major: 9, minor: 0 }
        }
    };
    let mut failure = None;
    let mut compile_all = |parallel| {
        time(args.runs, || {
            if let Err(e) = compile_images(&module, arch, parallel) {
                failure.get_or_insert(e);
            }
        })
    };
    let mut variants = vec![
        ("nvrtc", compile_all(false)),
        ("nvrtc-parts", compile_all(true)),
    ];
    if let Ok(gpu) = &device {
        // Fill the cache once; each run then loads it on a fresh device handle.
        gpu.load(&module).map_err(gpu_error)?;
        let disk = time(args.runs, || {
            let loaded = CudaGpu::new(0, Some(dir.clone())).and_then(|g| g.load(&module));
            if let Err(e) = loaded {
                failure.get_or_insert(e);
            }
        });
        variants.push(("load-disk", disk));
    }
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(e) = failure {
        return Err(gpu_error(e));
    }
    let extra = json!({ "model": args.model, "arch": arch.to_string() });
    let what = format!("{} for {arch}", args.model);
    report_per_kernel(args, &variants, count, extra, &what);
    Ok(())
}
