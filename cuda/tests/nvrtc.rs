//! NVRTC compiles the module of every executor the emulated-device tests run, for sm_90,
//! as a real device's bind would (no GPU needed). `.ci/run` installs NVRTC and sets
//! `KILN_REQUIRE_NVRTC=1`, so there a missing library fails; elsewhere the test notes it
//! and passes.
#![cfg(feature = "driver")]

use kiln_compiler::program::Mode;
use kiln_cuda::emulated::Emulated;
use kiln_cuda::executor::GpuExecutor;
use kiln_cuda::pool::Pool;
use kiln_cuda::{driver, Arch, Gpu, GpuError};
use std::sync::Arc;

#[test]
fn executor_modules_compile_for_sm_90() {
    let required = std::env::var("KILN_REQUIRE_NVRTC").is_ok_and(|v| v == "1");
    let gpu: Arc<dyn Gpu> = Arc::new(Emulated::new(1 << 30));
    let pool = Arc::new(Pool::new(gpu).unwrap());
    for (name, data, train) in [
        ("mlp", vec![8, 784], true),
        ("lenet", vec![4, 1, 28, 28], true),
        ("resnet18_v1", vec![2, 3, 64, 64], true),
        ("resnet18_v1", vec![1, 3, 64, 64], false),
    ] {
        let symbol = kiln_models::get_with_classes(name, 10).unwrap();
        let mode = match train {
            true => Mode::train_parameters(&symbol),
            false => Mode::Inference,
        };
        let ex = GpuExecutor::bind(pool.clone(), &symbol, &[("data", &data)], mode).unwrap();
        let module = ex.module();
        match driver::compile(module, Arch { major: 9, minor: 0 }) {
            Ok(image) => {
                assert!(!image.is_empty(), "{name}: an empty image");
                eprintln!(
                    "{name} (train {train}): {} kernels, {} bytes",
                    module.kernels.len(),
                    image.len()
                );
            }
            Err(GpuError::Unavailable(why)) if !required => {
                eprintln!("note: {why}; the modules are not compiled");
                return;
            }
            Err(e) => panic!(
                "{name} (train {train}): {} kernels do not compile: {e}",
                module.kernels.len()
            ),
        }
    }
}
