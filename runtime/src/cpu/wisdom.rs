//! What no model of the CPU decides, measured once per CPU model and kept on disk, as
//! FFTW keeps its wisdom: `<cache>/wisdom/<cpu>.json`, one JSON object per CPU model
//! (the name and family/model/stepping the OS reports), written whole or not at all.
//!
//! The vector width of compiled kernels: 128 bits without AVX2, 256 without AVX-512 (the
//! instruction sets the products use decide, `kiln_gemm::isa`); with AVX-512 it depends on the core (a Zen 4 core runs
//! 512-bit operations in two halves; Intel cores may lower their clock), so the JIT
//! compiles one kernel at both widths and times them at first use — an in-cache
//! element-wise kernel with a transcendental (`tanh`, a polynomial of some 20 operations),
//! alternating widths over rounds so a drift in the machine's speed hits both — and 512
//! is kept where it is at least 3% faster. Without LLVM, or where measuring fails, 256.
//!
//! How much slower kiln-gemm's register tile runs with B's panel read where B lies than
//! from a packed copy ([`kiln_gemm::in_place_b_slowdown`]): it depends on the tile's
//! width against the caches (AVX2's 16 f32 columns are one cache line a row, whose panel
//! in place scatters over few cache sets; AVX-512's 64 stream from L2 either way), so
//! one product is timed both ways at first use ([`kiln_gemm::machine::measure_in_place_b`])
//! and the products weigh packing B against it from then on.

use kiln_compiler::formats::atomic::write_atomically;
use kiln_compiler::kir::{lower, parse_kernel, Schedule};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

/// The width kernels compile with where nothing is measured.
const DEFAULT_BITS: u32 = kiln_llvm::DEFAULT_VECTOR_BITS;

/// The vector width of compiled kernels on this CPU: from its wisdom file under `cache`,
/// else measured now (and kept there). Decided once per process.
pub fn vector_bits(cache: Option<&Path>) -> u32 {
    static BITS: OnceLock<u32> = OnceLock::new();
    *BITS.get_or_init(|| load_or_measure(cache.map(wisdom_file).as_deref()))
}

/// The vector width recorded in this CPU's wisdom `file`, else measured (and recorded
/// there where it can be written).
pub fn load_or_measure(file: Option<&Path>) -> u32 {
    match kiln_gemm::isa() {
        kiln_gemm::Isa::Baseline => return 128,
        kiln_gemm::Isa::Avx2 => return 256,
        kiln_gemm::Isa::Avx512 => {}
    }
    let mut wisdom = read(file);
    let recorded = wisdom["vector_bits"]
        .as_u64()
        .and_then(|b| u32::try_from(b).ok());
    if let Some(bits) = recorded.filter(|b| [128, 256, 512].contains(b)) {
        return bits;
    }
    let Some([t256, t512]) = measure() else {
        return DEFAULT_BITS;
    };
    let bits = if t512 < 0.97 * t256 { 512 } else { 256 };
    wisdom["vector_bits"] = json!(bits);
    wisdom["vector_bits_measured_us"] = json!({ "256": t256 * 1e6, "512": t512 * 1e6 });
    keep(file, &wisdom);
    bits
}

/// Sets kiln-gemm's in-place-B slowdown for this CPU from its wisdom file under `cache`,
/// else measured now (and kept there). Once per process. A debug build takes a kept
/// figure but neither measures nor keeps one (else 1): its products run with overflow
/// checks, in place and packed alike (1.000–1.006 measured in tests, 1.23 in release on
/// the same Zen 3), and a test suite run first on a machine would turn packing off for
/// the release builds after it.
pub fn apply_in_place_b(cache: Option<&Path>) {
    static APPLIED: OnceLock<()> = OnceLock::new();
    APPLIED.get_or_init(|| {
        let file = cache.map(wisdom_file);
        let slowdown = match cfg!(debug_assertions) {
            true => recorded_in_place_b(&read(file.as_deref())).unwrap_or(1.0),
            false => in_place_b(file.as_deref()),
        };
        kiln_gemm::set_in_place_b_slowdown(slowdown)
    });
}

/// The in-place-B slowdown recorded in this CPU's wisdom `file` for the instruction set
/// products use, else measured (and recorded there where it can be written).
pub fn in_place_b(file: Option<&Path>) -> f64 {
    let mut wisdom = read(file);
    if let Some(slowdown) = recorded_in_place_b(&wisdom) {
        return slowdown;
    }
    let key = in_place_b_key();
    let [in_place, packed] = kiln_gemm::machine::measure_in_place_b();
    let slowdown = (in_place / packed).max(1.0);
    wisdom[&key] = json!(slowdown);
    wisdom[format!("{key}_measured_us")] =
        json!({ "in_place": in_place * 1e6, "packed": packed * 1e6 });
    keep(file, &wisdom);
    slowdown
}

/// The wisdom's key for the in-place-B slowdown of the instruction set products use.
fn in_place_b_key() -> String {
    format!("in_place_b_slowdown_{}", kiln_gemm::isa().name())
}

/// The in-place-B slowdown `wisdom` records, where it holds a usable one.
fn recorded_in_place_b(wisdom: &Value) -> Option<f64> {
    wisdom[in_place_b_key()].as_f64().filter(|s| *s >= 1.0)
}

/// The wisdom kept in `file`: an empty object where there is none (or it is not one).
fn read(file: Option<&Path>) -> Value {
    file.and_then(|f| std::fs::read_to_string(f).ok())
        .and_then(|s| serde_json::from_str::<Value>(&s).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}))
}

/// Writes `wisdom` to `file`, whole or not at all.
fn keep(file: Option<&Path>, wisdom: &Value) {
    if let Some(f) = file {
        // The wisdom only saves a measurement: a folder that cannot be written is skipped.
        let _ = f.parent().map(std::fs::create_dir_all);
        let _ = write_atomically(f, wisdom.to_string().as_bytes());
    }
}

/// This CPU model, as a file name: its name, family, model and stepping.
fn cpu_id() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        (info.lines())
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
            .and_then(|l| l.split_once(':'))
            .map_or(String::new(), |(_, v)| v.trim().to_string())
    };
    let id = format!(
        "{}-{}-{}-{}",
        field("model name"),
        field("cpu family"),
        field("model"),
        field("stepping")
    );
    (id.chars())
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Elements of the measured kernel's arrays: 3 × 64 KiB, in L2.
const N: usize = 1 << 14;

/// Seconds of one run of the probe kernel at 256 and at 512 bits (the best of its
/// rounds), or `None` where it cannot be compiled.
fn measure() -> Option<[f64; 2]> {
    let src = format!(
        "kernel wisdom_probe(a: float32[{N}], b: float32[{N}]) -> (y: float32[{N}]) compute float32 {{
  domain [{N}]
  out0 = add(tanh(mul(in0[i0], in1[i0])), 1.0)
}}"
    );
    // The probe is a constant kernel: it parses and lowers unless kiln's own IR is broken,
    // which the test below sees (no measurement, no file kept); the default width stands.
    let kernel = parse_kernel(&src).ok()?;
    let nest = lower(&kernel, &Schedule::cpu(&kernel)).ok()?;
    let compiled = [256, 512].map(|bits| {
        // No JIT (a build without LLVM, a host it cannot target): nothing to measure, and
        // the default width is what such a process compiles with, if anything.
        let jit = kiln_llvm::Jit::new(None).ok();
        jit.and_then(|j| j.with_vector_bits(bits).compile(&nest).ok())
            .map(|(k, _)| k)
    });
    let [Some(k256), Some(k512)] = compiled else {
        return None;
    };
    let (mut a, mut b) = (vec![0.5f32; N], vec![0.25f32; N]);
    let mut y = vec![0f32; N];
    let buffers: [*mut u8; 3] = [
        a.as_mut_ptr().cast(),
        b.as_mut_ptr().cast(),
        y.as_mut_ptr().cast(),
    ];
    let rows = k256.rows(&[]).ok()?.map_or(1, |(rows, _)| rows);
    let mut best = [f64::INFINITY; 2];
    for _ in 0..15 {
        for (slot, k) in best.iter_mut().zip([&k256, &k512]) {
            let start = Instant::now();
            // SAFETY: three buffers of N f32, as the kernel declares; all of its rows on
            // this thread.
            unsafe { k.run_range(&buffers, &[], 0, rows) };
            *slot = slot.min(start.elapsed().as_secs_f64());
        }
    }
    Some(best)
}

/// Where this CPU's wisdom is kept under `cache`.
pub fn wisdom_file(cache: &Path) -> PathBuf {
    cache.join("wisdom").join(format!("{}.json", cpu_id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A measured width is kept and read back; a recorded one is taken as it is.
    #[test]
    fn the_width_is_measured_once_and_kept() {
        let dir = std::env::temp_dir().join(format!("kiln-wisdom-{}", std::process::id()));
        let file = wisdom_file(&dir);
        let bits = load_or_measure(Some(&file));
        assert!([128, 256, 512].contains(&bits));
        if kiln_gemm::isa() == kiln_gemm::Isa::Avx512 && kiln_llvm::AVAILABLE {
            let kept: Value =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            assert_eq!(kept["vector_bits"], json!(bits));
            std::fs::write(&file, r#"{"vector_bits": 128}"#).unwrap();
            assert_eq!(
                load_or_measure(Some(&file)),
                128,
                "read back, not measured again"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The in-place-B slowdown is measured for the instruction set products use, kept, and
    /// read back (a recorded one taken as it is).
    #[test]
    fn the_in_place_b_slowdown_is_measured_once_and_kept() {
        let dir = std::env::temp_dir().join(format!("kiln-wisdom-b-{}", std::process::id()));
        let file = wisdom_file(&dir);
        let slowdown = in_place_b(Some(&file));
        assert!(slowdown.is_finite() && slowdown >= 1.0, "{slowdown}");
        let key = in_place_b_key();
        let kept: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        // JSON's decimal form reads back within an ulp or so.
        let read_back = kept[&key].as_f64().unwrap();
        assert!((read_back - slowdown).abs() <= 1e-12 * slowdown, "{kept}");
        let times = &kept[format!("{key}_measured_us")];
        assert!(times["in_place"].as_f64().unwrap() > 0.0, "{kept}");
        std::fs::write(&file, format!(r#"{{"{key}": 3.5}}"#)).unwrap();
        assert_eq!(
            in_place_b(Some(&file)),
            3.5,
            "read back, not measured again"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
