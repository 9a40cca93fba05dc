//! kiln's matrix product on one core against the core's peak, with the parameters it took
//! from this machine ([`kiln::runtime::cpu::gemm::machine`]):
//!
//! - `peak`: independent fused multiply-adds in the product's vectors, measured — the
//!   limit every ratio is against (2 FLOPs each; its row's time is one GFLOP's);
//! - one row per shape (single-threaded, f32, row-major operands): a square product, a
//!   ResNet 3x3 convolution's (56² pixels, 64 filters, 64·9 deep), LeNet's second
//!   convolution at batch 64 (8² pixels × 64 images, 50 filters, 20·25 deep) and the MLP's
//!   first layer at batch 128;
//! - `fixed`: the same shapes blocked as kiln's former constants (KC 512, MC 192, NC 1024,
//!   tuned on one Zen 4 machine), the ablation of the machine's blocking;
//! - `in-place`: the same shapes with B read in place wherever its rows are contiguous,
//!   the ablation of the slowdown this CPU measured for it
//!   ([`kiln::runtime::cpu::wisdom`]), which decides where B is packed.

use super::{report, time, Args};
use kiln::runtime::cpu::gemm::machine::{self, Blocking};
use kiln::runtime::cpu::gemm::{self, Product, Real};
use kiln::Result;
use serde_json::json;

const SHAPES: [(&str, [usize; 3]); 4] = [
    ("square", [1024, 1024, 1024]),
    ("resnet-conv3x3", [3136, 64, 576]),
    ("lenet-conv2", [4096, 50, 500]),
    ("mlp-fc1", [128, 512, 784]),
];

const FIXED: Blocking = Blocking {
    kc: 512,
    mc: 192,
    nc: 1024,
};

pub fn run(args: &Args) -> Result<()> {
    let config = kiln::runtime::Config::global();
    kiln::runtime::cpu::wisdom::apply_in_place_b(config.cache_dir.as_deref());
    let slowdown = gemm::in_place_b_slowdown();
    let caches = machine::caches();
    let (mr, nr) = f32::tile();
    let blocking = gemm::machine_blocking::<f32>();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("model name"))?;
            Some(line.split_once(':')?.1.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let kib = |b: usize| b >> 10;
    let l3 = caches.l3.map_or("none".into(), |b| {
        format!("{} KiB shared by {}", kib(b), caches.l3_sharing)
    });
    if !args.json {
        println!(
            "{cpu}: L1d {} KiB, L2 {} KiB, L3 {l3}; f32 tile {mr}×{nr}; blocking KC {} MC {} NC {}; \
             B's panels in place {slowdown:.2}× as slow as packed",
            kib(caches.l1d),
            kib(caches.l2),
            blocking.kc,
            blocking.mc,
            blocking.nc
        );
    }
    let peak = 2.0 * machine::peak_fmas::<f32>(0.1);
    let machine_fields = json!({
        "cpu": cpu, "l1d": caches.l1d, "l2": caches.l2, "l3": caches.l3,
        "tile": [mr, nr], "kc": blocking.kc, "mc": blocking.mc, "nc": blocking.nc,
        "peak_gflops": peak / 1e9, "in_place_b_slowdown": slowdown,
    });
    // The peak's row times a GFLOP at that rate.
    let seconds = 1e9 / peak;
    report(
        args,
        "peak",
        (seconds, seconds),
        machine_fields,
        &format!(
            "{:.1} GFLOP/s per core (f32 FMA), the time of one GFLOP",
            peak / 1e9
        ),
    );
    for variant in ["machine", "fixed", "in-place"] {
        for (name, [m, n, k]) in SHAPES {
            let (a, b) = (vec![0.5f32; m * k], vec![0.25f32; k * n]);
            let mut c = vec![0f32; m * n];
            let product = Product::row_major(m, n, k, &a, &b, &mut c);
            // SAFETY: A, B and C are vectors of their sizes (checked by `row_major`), alive
            // here; C is its own vector.
            let once = || unsafe { gemm::run(&product) };
            let t = match variant {
                "fixed" => gemm::with_blocking(FIXED, || time(args.runs, once)),
                "in-place" => gemm::with_in_place_b_slowdown(1.0, || time(args.runs, once)),
                _ => time(args.runs, once),
            };
            let gflops = 2.0 * (m * n * k) as f64 / t.0 / 1e9;
            report(
                args,
                &format!("{variant}/{name}"),
                t,
                json!({ "m": m, "n": n, "k": k, "gflops": gflops, "of_peak": gflops * 1e9 / peak }),
                &format!(
                    "{m}×{n}×{k}: {gflops:6.1} GFLOP/s, {:.2} of peak",
                    gflops * 1e9 / peak
                ),
            );
        }
    }
    Ok(())
}
