//! NVRTC for the tests, through the GPU backend's compiler (kiln-cuda, built with the
//! `cuda` feature), loaded at run time from the `nvidia-cuda-nvrtc-cu12` wheel. `.ci/run`
//! installs it and sets `KILN_REQUIRE_NVRTC=1`, so there a missing library fails;
//! elsewhere CUDA sources are not compiled, with a note.

use std::sync::OnceLock;

/// Whether NVRTC loads; a missing library fails where `KILN_REQUIRE_NVRTC=1`.
pub fn present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        let probe = compile_source("extern \"C\" __global__ void probe() {}", "probe");
        let required = std::env::var("KILN_REQUIRE_NVRTC").is_ok_and(|v| v == "1");
        if let Err(why) = &probe {
            assert!(
                !required,
                "KILN_REQUIRE_NVRTC=1 but NVRTC does not compile: {why} (LD_LIBRARY_PATH)"
            );
            eprintln!("note: {why}; rendered CUDA kernels are not compiled");
        }
        probe.is_ok()
    })
}

/// Why a source did not compile: NVRTC's error (missing, or its log).
#[cfg(feature = "cuda")]
type Failure = kiln_cuda::GpuError;

/// Without the GPU backend there is no NVRTC to compile with.
#[cfg(not(feature = "cuda"))]
#[derive(Debug, thiserror::Error)]
#[error("built without the `cuda` feature")]
struct Failure;

#[cfg(feature = "cuda")]
fn compile_source(src: &str, what: &str) -> Result<(), Failure> {
    let sm_90 = kiln_cuda::Arch { major: 9, minor: 0 };
    kiln_cuda::driver::compile_source(what, src, sm_90).map(drop)
}

#[cfg(not(feature = "cuda"))]
fn compile_source(_: &str, _: &str) -> Result<(), Failure> {
    Err(Failure)
}

/// Compiles `src` for sm_90, panicking with NVRTC's log and the whole source.
pub fn compile(src: &str, what: &str) {
    if !present() {
        return;
    }
    if let Err(e) = compile_source(src, what) {
        panic!("NVRTC rejected `{what}`: {e}\n{src}");
    }
}
