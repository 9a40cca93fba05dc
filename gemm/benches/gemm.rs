//! kiln's matrix product against the gemm crate (its former backend) on one thread, on
//! the products kiln's benchmark networks run (as `matmul` blocks them over two threads):
//! `cargo bench -p kiln-gemm` prints GFLOP/s of both, the ratio of their
//! times (best of five runs each) and the geometric mean of the ratios.

use kiln_gemm::{run, Product, Strided};
use std::time::Instant;

/// One product: sizes, the strides (row, column) of A, B and C, and where it comes from.
struct Shape {
    mnk: [usize; 3],
    strides: [(isize, isize); 3],
    from: &'static str,
}

const fn shape(mnk: [usize; 3], strides: [(isize, isize); 3], from: &'static str) -> Shape {
    Shape { mnk, strides, from }
}

const SHAPES: &[Shape] = &[
    shape(
        [128, 128, 784],
        [(784, 1), (1, 784), (512, 1)],
        "mlp-train fc1 forward",
    ),
    shape(
        [128, 128, 512],
        [(512, 1), (1, 512), (512, 1)],
        "mlp-train fc2 forward",
    ),
    shape(
        [128, 10, 512],
        [(512, 1), (1, 512), (10, 1)],
        "mlp-train fc3 forward",
    ),
    shape(
        [512, 196, 128],
        [(1, 512), (784, 1), (784, 1)],
        "mlp-train fc1 weight gradient",
    ),
    shape(
        [128, 512, 128],
        [(1, 512), (512, 1), (512, 1)],
        "mlp-train fc2 weight gradient",
    ),
    shape(
        [128, 196, 512],
        [(512, 1), (784, 1), (784, 1)],
        "mlp-train fc2 data gradient",
    ),
    shape(
        [128, 128, 512],
        [(512, 1), (512, 1), (512, 1)],
        "mlp-train fc3 data gradient",
    ),
    shape(
        [576, 20, 25],
        [(1, 36864), (1, 25), (1, 576)],
        "lenet-train conv1, per sample",
    ),
    shape(
        [64, 50, 500],
        [(1, 4096), (1, 500), (1, 64)],
        "lenet-train conv2, per sample",
    ),
    shape(
        [144, 20, 1250],
        [(1, 9216), (20, 1), (1, 144)],
        "lenet-train conv2 data gradient",
    ),
    shape(
        [20, 6, 36864],
        [(1, 20), (25, 1), (25, 1)],
        "lenet-train conv1 weight gradient",
    ),
    shape(
        [50, 125, 4096],
        [(1, 50), (500, 1), (500, 1)],
        "lenet-train conv2 weight gradient",
    ),
    shape(
        [64, 125, 800],
        [(800, 1), (1, 800), (500, 1)],
        "lenet-train fc1 forward",
    ),
    shape(
        [500, 200, 64],
        [(1, 500), (800, 1), (800, 1)],
        "lenet-train fc1 weight gradient",
    ),
    shape(
        [64, 784, 64],
        [(1, 64), (784, 1), (784, 1)],
        "resnet18-infer Winograd, layer1",
    ),
    shape(
        [128, 196, 128],
        [(1, 128), (196, 1), (196, 1)],
        "resnet18-infer Winograd, layer2",
    ),
    shape(
        [256, 49, 256],
        [(1, 256), (49, 1), (49, 1)],
        "resnet18-infer Winograd, layer3",
    ),
    shape(
        [512, 16, 512],
        [(1, 512), (16, 1), (16, 1)],
        "resnet18-infer Winograd, layer4",
    ),
    shape(
        [28, 32, 64],
        [(2, 3136), (1, 64), (1, 784)],
        "resnet18-infer 1x1/2 downsample",
    ),
    shape(
        [3136, 64, 147],
        [(1, 12544), (1, 147), (1, 12544)],
        "resnet18-infer 7x7/2 stem",
    ),
    shape(
        [49, 128, 4608],
        [(1, 49), (1, 4608), (1, 49)],
        "resnet18-infer layer4 3x3",
    ),
    shape(
        [1, 1000, 512],
        [(0, 1), (1, 512), (0, 1)],
        "resnet18-infer fc, batch 1",
    ),
];

/// Elements a strided `rows × cols` operand spans.
fn span(rows: usize, cols: usize, (rs, cs): (isize, isize)) -> usize {
    ((rows - 1) as isize * rs + (cols - 1) as isize * cs) as usize + 1
}

fn main() {
    println!(
        "{:>16}  {:>9}  {:>9}  {:>5}  product",
        "m x n x k", "kiln GF/s", "gemm GF/s", "ratio"
    );
    let mut log_ratios = 0.0;
    let only = std::env::var("KILN_GEMM_ONLY").ok();
    for s in SHAPES
        .iter()
        .filter(|s| only.as_deref().is_none_or(|o| s.from.contains(o)))
    {
        let [m, n, k] = s.mnk;
        let [(a_rs, a_cs), (b_rs, b_cs), (c_rs, c_cs)] = s.strides;
        let a: Vec<f32> = (0..span(m, k, (a_rs, a_cs)))
            .map(|i| ((i * 7 % 13) as f32 - 6.0) * 0.1)
            .collect();
        let b: Vec<f32> = (0..span(k, n, (b_rs, b_cs)))
            .map(|i| ((i * 5 % 11) as f32 - 5.0) * 0.1)
            .collect();
        let (mut ours, mut peer) = (
            vec![0f32; span(m, n, (c_rs, c_cs))],
            vec![0f32; span(m, n, (c_rs, c_cs))],
        );
        // SAFETY: each vector spans every element its strides reach (`span`); C is its own vector
        // and every shape's C strides keep its m × n elements apart.
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
                c_rs,
                c_cs,
                accumulate: false,
            })
        };
        // SAFETY: the same operands as kiln's, in the gemm crate's order (dst, then lhs, rhs),
        // with the same strides; `read_dst` is false and C is written only.
        let crate_gemm = |c: &mut Vec<f32>| unsafe {
            gemm::gemm(
                m,
                n,
                k,
                c.as_mut_ptr(),
                c_cs,
                c_rs,
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
        let reps = (3e8 / (2.0 * (m * n * k) as f64)).max(3.0) as usize;
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
        // A NaN on either side fails (a fold with f32::max would skip it).
        assert_eq!(ours.len(), peer.len());
        let far = ours.iter().zip(&peer).position(|(x, y)| {
            let d = (x - y).abs();
            d.is_nan() || d >= 1e-2
        });
        assert!(far.is_none(), "{m}x{n}x{k}: results differ at {far:?}");
        let gflops = |t: f64| 2.0 * (m * n * k) as f64 / t / 1e9;
        log_ratios += (t_kiln / t_peer).ln();
        println!(
            "{:>16}  {:>9.1}  {:>9.1}  {:>5.2}  {}",
            format!("{m}x{n}x{k}"),
            gflops(t_kiln),
            gflops(t_peer),
            t_kiln / t_peer,
            s.from
        );
    }
    println!(
        "geometric mean of the ratios: {:.2}",
        (log_ratios / SHAPES.len() as f64).exp()
    );
}
