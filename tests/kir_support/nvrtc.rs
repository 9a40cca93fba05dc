//! NVRTC for the tests, loaded at run time from the `nvidia-cuda-nvrtc-cu12` wheel.
//! `.ci/run` installs it and sets `KILN_REQUIRE_NVRTC=1`, so there a missing library
//! fails; elsewhere CUDA sources are not compiled, with a note.

use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};
use std::sync::OnceLock;

/// Whether NVRTC loads; a missing library fails where `KILN_REQUIRE_NVRTC=1`.
pub fn present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        // SAFETY: only tries to open the library.
        let present = unsafe { cudarc::nvrtc::sys::is_culib_present() };
        let required = std::env::var("KILN_REQUIRE_NVRTC").is_ok_and(|v| v == "1");
        assert!(
            present || !required,
            "KILN_REQUIRE_NVRTC=1 but libnvrtc.so.12 does not load (LD_LIBRARY_PATH)"
        );
        if !present {
            eprintln!("note: libnvrtc not found; rendered CUDA kernels are not compiled");
        }
        present
    })
}

/// Compiles `src` for `compute_90`, panicking with NVRTC's log and the whole source.
pub fn compile(src: &str, what: &str) {
    if !present() {
        return;
    }
    let opts = CompileOptions {
        arch: Some("compute_90"),
        ..Default::default()
    };
    if let Err(e) = compile_ptx_with_opts(src, opts) {
        panic!("NVRTC rejected `{what}`: {e:?}\n{src}");
    }
}
