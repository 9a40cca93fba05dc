//! kiln's matrix product against the gemm crate (its former backend) on one thread, on
//! the shapes kiln's benchmark networks multiply: `cargo bench -p kiln-runtime --bench
//! gemm` prints GFLOP/s of both and the ratio of their times (best of five runs each).

use kiln_runtime::cpu::gemm::{run, Product, Strided};
use std::time::Instant;

/// A matrix product's shape and where it comes from: `m × n × k`, A row-major (else
/// column-major), B row-major (else column-major).
struct Shape {
    m: usize,
    n: usize,
    k: usize,
    a_rows: bool,
    b_rows: bool,
    from: &'static str,
}

const SHAPES: [Shape; 12] = [
    shape(64, 500, 784, true, false, "MLP fc1 forward (x·Wᵀ)"),
    shape(500, 784, 64, false, true, "MLP fc1 weight gradient (gᵀ·x)"),
    shape(64, 784, 500, true, true, "MLP fc1 data gradient (g·W)"),
    shape(1, 1000, 512, true, false, "ResNet-18 fc, batch 1"),
    shape(8, 1000, 512, true, false, "ResNet-18 fc, batch 8"),
    shape(
        64,
        3136,
        576,
        true,
        true,
        "ResNet-18 layer1 3x3 conv (im2col)",
    ),
    shape(
        256,
        196,
        2304,
        true,
        true,
        "ResNet-18 layer3 3x3 conv (im2col)",
    ),
    shape(
        512,
        49,
        4608,
        true,
        true,
        "ResNet-18 layer4 3x3 conv (im2col)",
    ),
    shape(64, 784, 64, true, true, "Winograd product, layer1"),
    shape(128, 196, 128, true, true, "Winograd product, layer2"),
    shape(20, 576, 25, true, true, "LeNet conv1 (im2col)"),
    shape(50, 64, 500, true, true, "LeNet conv2 (im2col)"),
];

const fn shape(
    m: usize,
    n: usize,
    k: usize,
    a_rows: bool,
    b_rows: bool,
    from: &'static str,
) -> Shape {
    Shape {
        m,
        n,
        k,
        a_rows,
        b_rows,
        from,
    }
}

fn main() {
    println!(
        "{:>16}  {:>10}  {:>10}  {:>5}  shape",
        "m x n x k", "kiln GF/s", "gemm GF/s", "ratio"
    );
    let only = std::env::var("KILN_GEMM_SHAPE").ok();
    for s in SHAPES.iter().filter(|s| {
        only.as_deref()
            .is_none_or(|o| o == format!("{}x{}x{}", s.m, s.n, s.k))
    }) {
        let (m, n, k) = (s.m, s.n, s.k);
        let a: Vec<f32> = (0..m * k)
            .map(|i| ((i * 7 % 13) as f32 - 6.0) * 0.1)
            .collect();
        let b: Vec<f32> = (0..k * n)
            .map(|i| ((i * 5 % 11) as f32 - 5.0) * 0.1)
            .collect();
        let (a_rs, a_cs) = if s.a_rows {
            (k as isize, 1)
        } else {
            (1, m as isize)
        };
        let (b_rs, b_cs) = if s.b_rows {
            (n as isize, 1)
        } else {
            (1, k as isize)
        };
        let (mut ours, mut peer) = (vec![0f32; m * n], vec![0f32; m * n]);
        let kiln = |c: &mut Vec<f32>| unsafe {
            run(&Product {
                m,
                n,
                k,
                a: Strided {
                    ptr: a.as_ptr(),
                    rs: a_rs,
                    cs: a_cs,
                },
                b: Strided {
                    ptr: b.as_ptr(),
                    rs: b_rs,
                    cs: b_cs,
                },
                c: c.as_mut_ptr(),
                c_rs: n as isize,
                c_cs: 1,
                accumulate: false,
            })
        };
        let crate_gemm = |c: &mut Vec<f32>| unsafe {
            gemm::gemm(
                m,
                n,
                k,
                c.as_mut_ptr(),
                1,
                n as isize,
                false,
                a.as_ptr(),
                a_cs,
                a_rs,
                b.as_ptr(),
                b_cs,
                b_rs,
                0.0f32,
                1.0f32,
                false,
                false,
                false,
                gemm::Parallelism::None,
            )
        };
        let reps = (1e9 / (2.0 * (m * n * k) as f64)).max(3.0) as usize;
        let best = |f: &dyn Fn(&mut Vec<f32>), c: &mut Vec<f32>| {
            (0..5)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..reps {
                        f(c);
                    }
                    t.elapsed().as_secs_f64() / reps as f64
                })
                .fold(f64::MAX, f64::min)
        };
        let (t_kiln, t_peer) = (best(&kiln, &mut ours), best(&crate_gemm, &mut peer));
        let worst = ours
            .iter()
            .zip(&peer)
            .map(|(x, y)| (x - y).abs())
            .fold(0f32, f32::max);
        assert!(worst < 1e-2, "{m}x{n}x{k}: results differ by {worst}");
        let gflops = |t: f64| 2.0 * (m * n * k) as f64 / t / 1e9;
        println!(
            "{:>16}  {:>10.1}  {:>10.1}  {:>5.2}  {}",
            format!("{m}x{n}x{k}"),
            gflops(t_kiln),
            gflops(t_peer),
            t_kiln / t_peer,
            s.from
        );
    }
}
