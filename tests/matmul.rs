//! Matrix products found in the kernel IR (`kir::matmul`): each recognized kernel, run as
//! the product it was recognized as (a naive triple loop over its strides, then its
//! epilogue on the IR interpreter), gives what the kernel itself gives on the interpreter;
//! and executors whose products run on the gemm crate give what the graph interpreter
//! gives, forward and backward.

use kiln_compiler::autodiff::{differentiate, GradReq};
use kiln_compiler::infer::infer;
use kiln_compiler::kir::matmul::{recognize, MatMul};
use kiln_compiler::kir::{self, from_group, lower, Kernel, Schedule};
use kiln_compiler::passes::fuse;
use kiln_compiler::{DType, Symbol, Tensor};
use std::collections::HashMap;

fn call(op: &str, args: &[&Symbol], attrs: &[(&str, &str)]) -> Symbol {
    let mut c = Symbol::op(op).args(args.iter().copied());
    for (k, v) in attrs {
        c = c.attr(k, v);
    }
    c.build().unwrap()
}

fn tensor(dtype: DType, shape: &[usize], seed: f64) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::new(
        dtype,
        shape.to_vec(),
        (0..n).map(|i| (i as f64 * 0.37 + seed).sin()).collect(),
    )
}

/// A network, what it is, and its input shapes.
type Network = (&'static str, Symbol, Vec<(&'static str, Vec<usize>)>);

/// The networks: products in every layout the operators have, with epilogues.
fn networks() -> Vec<Network> {
    let (x, y, w, b) = (
        Symbol::var("x"),
        Symbol::var("y"),
        Symbol::var("w"),
        Symbol::var("b"),
    );
    let relu = |s: &Symbol| call("Activation", &[s], &[("act_type", "relu")]);
    let mut nets = vec![
        (
            "fc flatten + bias + relu",
            relu(&call(
                "FullyConnected",
                &[&x, &w, &b],
                &[("num_hidden", "7")],
            )),
            vec![("x", vec![5, 2, 3, 4])],
        ),
        (
            "fc over the last axis, no bias",
            call(
                "FullyConnected",
                &[&x, &w],
                &[
                    ("num_hidden", "6"),
                    ("no_bias", "True"),
                    ("flatten", "False"),
                ],
            ),
            vec![("x", vec![3, 4, 9])],
        ),
        (
            "1x1 convolution + tanh",
            call(
                "tanh",
                &[&call(
                    "Convolution",
                    &[&x, &w],
                    &[
                        ("kernel", "(1,1)"),
                        ("num_filter", "5"),
                        ("no_bias", "True"),
                    ],
                )],
                &[],
            ),
            vec![("x", vec![2, 3, 4, 6])],
        ),
    ];
    nets.push((
        "3x3 convolution without padding: a sum of shifted products",
        call(
            "Convolution",
            &[&x, &w],
            &[
                ("kernel", "(3,3)"),
                ("num_filter", "4"),
                ("no_bias", "True"),
            ],
        ),
        vec![("x", vec![1, 2, 6, 6])],
    ));
    for (ta, tb) in [
        ("False", "False"),
        ("True", "False"),
        ("False", "True"),
        ("True", "True"),
    ] {
        let (sa, sb) = match (ta, tb) {
            ("False", "False") => (vec![4, 6], vec![6, 5]),
            ("True", "False") => (vec![6, 4], vec![6, 5]),
            ("False", "True") => (vec![4, 6], vec![5, 6]),
            _ => (vec![6, 4], vec![5, 6]),
        };
        nets.push((
            "dot",
            call(
                "dot",
                &[&x, &y],
                &[("transpose_a", ta), ("transpose_b", tb)],
            ),
            vec![("x", sa.clone()), ("y", sb.clone())],
        ));
        let batched = |s: &[usize]| [&[3][..], s].concat();
        nets.push((
            "batch_dot",
            call(
                "batch_dot",
                &[&x, &y],
                &[("transpose_a", ta), ("transpose_b", tb)],
            ),
            vec![("x", batched(&sa)), ("y", batched(&sb))],
        ));
    }
    nets.push((
        "dot of a 3-d and a 2-d array",
        call("dot", &[&x, &y], &[]),
        vec![("x", vec![2, 3, 4]), ("y", vec![4, 5])],
    ));
    nets
}

/// `mm` run naively on `inputs`, then its epilogue on the IR interpreter.
fn run_as_product(mm: &MatMul, k: &Kernel, inputs: &[&Tensor], out_shape: &[usize]) -> Tensor {
    let mut out = Tensor::zeros(mm.dtype, out_shape.to_vec());
    // Outer loops, then the summed loops, as one odometer.
    let all: Vec<_> = mm.loops.iter().chain(&mm.sums).collect();
    let total: i64 = all.iter().map(|l| l.extent).product();
    for l in 0..total {
        let (mut a, mut b, mut o, mut rest) = (mm.a.offset, mm.b.offset, 0, l);
        for lp in all.iter().rev() {
            let i = rest % lp.extent;
            rest /= lp.extent;
            (a, b, o) = (a + i * lp.a, b + i * lp.b, o + i * lp.out);
        }
        for i in 0..mm.m {
            for j in 0..mm.n {
                let acc: f64 = (0..mm.k)
                    .map(|d| {
                        inputs[mm.a.input].data[(a + i * mm.a.stride + d * mm.a.depth) as usize]
                            * inputs[mm.b.input].data
                                [(b + j * mm.b.stride + d * mm.b.depth) as usize]
                    })
                    .sum();
                out.data[(o + i * mm.out_rows + j * mm.out_cols) as usize] += acc;
            }
        }
    }
    match &mm.epilogue {
        None => out,
        Some(e) => {
            let mut ins = inputs.to_vec();
            ins.push(&out);
            let nest = lower(e, &Schedule::cpu(e)).unwrap();
            let shapes = vec![out_shape.to_vec()];
            assert_eq!(nest.outputs.len(), 1, "{k:?}");
            kir::interp::run(&nest, &ins, &[], &shapes)
                .unwrap()
                .remove(0)
        }
    }
}

#[test]
fn products_recognized_in_the_ir_compute_what_their_kernels_compute() {
    let mut recognized = 0;
    for (what, net, shapes) in networks() {
        let loss = call("MakeLoss", &[&call("sum", &[&net], &[])], &[]);
        let g = loss.to_graph().unwrap();
        let reqs: HashMap<String, GradReq> = g
            .argument_ids()
            .into_iter()
            .map(|id| (g.node(id).name.clone(), GradReq::Write))
            .collect();
        let g = differentiate(&g, &reqs, true).unwrap().graph;
        let shapes: HashMap<String, Vec<usize>> = shapes
            .into_iter()
            .map(|(n, s)| (n.to_string(), s))
            .collect();
        let inferred = infer(&g, &shapes, &HashMap::new()).unwrap();
        for (gi, group) in fuse(&g).groups.iter().enumerate() {
            let Ok(kernels) = from_group(&g, &inferred, &group.nodes, &format!("g{gi}")) else {
                continue;
            };
            for l in kernels {
                let Some(mm) = recognize(&l.kernel) else {
                    continue;
                };
                recognized += 1;
                let ins: Vec<Tensor> = l
                    .inputs
                    .iter()
                    .enumerate()
                    .map(|(i, e)| tensor(DType::F32, inferred.shape(*e), i as f64))
                    .collect();
                let refs: Vec<&Tensor> = ins.iter().collect();
                let out_shape = inferred.shape(l.outputs[0]).to_vec();
                let nest = lower(&l.kernel, &Schedule::cpu(&l.kernel)).unwrap();
                let want =
                    kir::interp::run(&nest, &refs, &[], std::slice::from_ref(&out_shape)).unwrap();
                let got = run_as_product(&mm, &l.kernel, &refs, &out_shape);
                for (i, (g, w)) in got.data.iter().zip(&want[0].data).enumerate() {
                    assert!(
                        (g - w).abs() <= 1e-5 * (1.0 + w.abs()),
                        "{what}: element {i}: {g} != {w}\n{mm:?}\n{nest}"
                    );
                }
            }
        }
    }
    // Each network's forward product and both gradients: FullyConnected (2 × 3), the
    // convolutions (1x1: 3; 3x3: the forward and the weight gradient), dot and batch_dot
    // (8 × 3), dot of a 3-d array (3).
    assert!(recognized >= 38, "only {recognized} products recognized");
}

#[test]
fn a_padded_convolution_is_not_a_plain_product() {
    // Its reads of the data are guarded (zero outside), not plain loads.
    let (x, w) = (Symbol::var("x"), Symbol::var("w"));
    let conv = call(
        "Convolution",
        &[&x, &w],
        &[
            ("kernel", "(3,3)"),
            ("pad", "(1,1)"),
            ("num_filter", "4"),
            ("no_bias", "True"),
        ],
    );
    let g = conv.to_graph().unwrap();
    let shapes = HashMap::from([("x".to_string(), vec![1, 2, 6, 6])]);
    let inferred = infer(&g, &shapes, &HashMap::new()).unwrap();
    let group = &fuse(&g).groups[0];
    let kernels = from_group(&g, &inferred, &group.nodes, "conv").unwrap();
    assert!(recognize(&kernels[0].kernel).is_none());
}
