//! Matrix products found in the kernel IR (`kir::matmul`): each recognized kernel, run as
//! the product it was recognized as (a naive triple loop over its strides, then its
//! epilogue on the IR interpreter), gives what the kernel itself gives on the interpreter;
//! and executors whose products run on kiln's gemm give what the graph interpreter
//! gives, forward and backward.

use kiln_compiler::autodiff::{differentiate, GradReq};
use kiln_compiler::infer::infer;
use kiln_compiler::kir::matmul::{
    pack_per_index, recognize, recognize_summing, Along, Chunks, MatMul,
};
use kiln_compiler::kir::{self, from_group, lower, Kernel, Schedule};
use kiln_compiler::passes::fuse;
use kiln_compiler::{DType, Symbol, Tensor};
use kiln_ops::compare;
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

/// The networks: products in every layout the operators have, with epilogues; channel
/// and feature sizes scaled by `s`.
fn networks(s: usize) -> Vec<Network> {
    let (x, y, w, b) = (
        Symbol::var("x"),
        Symbol::var("y"),
        Symbol::var("w"),
        Symbol::var("b"),
    );
    let n = |k: usize| (k * s).to_string();
    let relu = |v: &Symbol| call("Activation", &[v], &[("act_type", "relu")]);
    let mut nets = vec![
        (
            "fc flatten + bias + relu",
            relu(&call(
                "FullyConnected",
                &[&x, &w, &b],
                &[("num_hidden", &n(7))],
            )),
            vec![("x", vec![5 * s, 2 * s, 3, 4])],
        ),
        (
            "fc over the last axis, no bias",
            call(
                "FullyConnected",
                &[&x, &w],
                &[
                    ("num_hidden", &n(6)),
                    ("no_bias", "True"),
                    ("flatten", "False"),
                ],
            ),
            vec![("x", vec![3, 4 * s, 9 * s])],
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
                        ("num_filter", &n(5)),
                        ("no_bias", "True"),
                    ],
                )],
                &[],
            ),
            vec![("x", vec![2, 3 * s, 4, 6 * s])],
        ),
    ];
    let filters = n(4);
    let conv = |attrs: &[(&str, &str)]| {
        let mut a = vec![("num_filter", filters.as_str()), ("no_bias", "True")];
        a.extend_from_slice(attrs);
        call("Convolution", &[&x, &w], &a)
    };
    for (what, attrs) in [
        (
            "padded 3x3 convolution",
            &[("kernel", "(3,3)"), ("pad", "(1,1)")][..],
        ),
        (
            "strided, dilated 3x3 convolution",
            &[
                ("kernel", "(3,3)"),
                ("pad", "(2,1)"),
                ("stride", "(2,2)"),
                ("dilate", "(2,1)"),
            ],
        ),
        (
            "grouped 3x3 convolution",
            &[("kernel", "(3,3)"), ("pad", "(1,1)"), ("num_group", "2")],
        ),
        (
            "7x7 stride-2 convolution",
            &[("kernel", "(7,7)"), ("pad", "(3,3)"), ("stride", "(2,2)")],
        ),
        (
            "1x1 stride-2 convolution",
            &[("kernel", "(1,1)"), ("stride", "(2,2)")],
        ),
    ] {
        nets.push((what, conv(attrs), vec![("x", vec![2, 4 * s, 9, 8])]));
    }
    nets.push((
        "padded 3x3 convolution of 6 images of 64 tiles",
        conv(&[("kernel", "(3,3)"), ("pad", "(1,1)")]),
        vec![("x", vec![6, 2 * s, 16, 16])],
    ));
    nets.push((
        "padded 3x3 convolution of 2 images of 64 4x4 tiles",
        conv(&[("kernel", "(3,3)"), ("pad", "(1,1)")]),
        vec![("x", vec![2, 2 * s, 32, 32])],
    ));
    nets.push((
        "channel-last padded 3x3 convolution",
        conv(&[("kernel", "(3,3)"), ("pad", "(1,1)"), ("layout", "NHWC")]),
        vec![("x", vec![2, 9, 8, 4 * s])],
    ));
    nets.push((
        "strided, padded deconvolution with bias",
        call(
            "Deconvolution",
            &[&x, &w, &b],
            &[
                ("kernel", "(3,3)"),
                ("stride", "(2,2)"),
                ("pad", "(1,1)"),
                ("adj", "(1,0)"),
                ("num_filter", &n(3)),
                ("no_bias", "False"),
            ],
        ),
        vec![("x", vec![2, 4 * s, 5, 4])],
    ));
    nets.push((
        "padded 3x3 deconvolution of stride 1 with bias",
        call(
            "Deconvolution",
            &[&x, &w, &b],
            &[
                ("kernel", "(3,3)"),
                ("pad", "(1,1)"),
                ("num_filter", &n(3)),
                ("no_bias", "False"),
            ],
        ),
        vec![("x", vec![2, 4 * s, 7, 6])],
    ));
    nets.push((
        "3x3 convolution without padding: a sum of shifted products",
        conv(&[("kernel", "(3,3)")]),
        vec![("x", vec![1, 2 * s, 6, 6])],
    ));
    for (ta, tb) in [
        ("False", "False"),
        ("True", "False"),
        ("False", "True"),
        ("True", "True"),
    ] {
        let (sa, sb) = match (ta, tb) {
            ("False", "False") => (vec![4 * s, 6 * s], vec![6 * s, 5 * s]),
            ("True", "False") => (vec![6 * s, 4 * s], vec![6 * s, 5 * s]),
            ("False", "True") => (vec![4 * s, 6 * s], vec![5 * s, 6 * s]),
            _ => (vec![6 * s, 4 * s], vec![5 * s, 6 * s]),
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
        let batched = |v: &[usize]| [&[3][..], v].concat();
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
        vec![("x", vec![2, 3 * s, 4 * s]), ("y", vec![4 * s, 5 * s])],
    ));
    nets
}

/// `mm` run naively on `inputs`, then its epilogue on the IR interpreter.
fn run_as_product(mm: &MatMul, k: &Kernel, inputs: &[&Tensor], out_shape: &[usize]) -> Tensor {
    let run = |k: &Kernel, inputs: &[&Tensor], shape: Vec<usize>| {
        let nest = lower(k, &Schedule::cpu(k)).unwrap();
        kir::interp::run(&nest, inputs, &[], &[shape])
            .unwrap()
            .remove(0)
    };
    // Packed operands first, on the interpreter.
    let packed: Vec<Tensor> = mm
        .packs
        .iter()
        .map(|p| {
            let n = kir::interp::extent(&p.outputs[0].len, &[]).unwrap() as usize;
            run(p, inputs, vec![n])
        })
        .collect();
    let kernel_inputs = inputs;
    let inputs: Vec<&Tensor> = inputs.iter().copied().chain(&packed).collect();
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
            // The kernel's inputs, then the product (not the packed operands).
            let mut ins = kernel_inputs.to_vec();
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

/// `Σ_k a·b` of `mm` (no outer loops) on `operands` (by input), at each position of the
/// output it writes; NaN at the others.
fn naive(mm: &MatMul, operands: &[Vec<f64>]) -> Vec<f64> {
    let len = (mm.m - 1) * mm.out_rows + (mm.n - 1) * mm.out_cols + 1;
    let mut out = vec![f64::NAN; len as usize];
    let (a, b) = (&operands[mm.a.input], &operands[mm.b.input]);
    for i in 0..mm.m {
        for j in 0..mm.n {
            out[(i * mm.out_rows + j * mm.out_cols) as usize] = (0..mm.k)
                .map(|d| {
                    a[(mm.a.offset + i * mm.a.stride + d * mm.a.depth) as usize]
                        * b[(mm.b.offset + j * mm.b.stride + d * mm.b.depth) as usize]
                })
                .sum();
        }
    }
    out
}

/// A product recognized in a network's forward or backward kernels.
struct Recognized {
    what: &'static str,
    mm: MatMul,
    kernel: Kernel,
    /// Inputs for the kernel.
    ins: Vec<Tensor>,
    out_shape: Vec<usize>,
}

/// Every product recognized in the networks' forward and backward kernels.
fn recognized_products() -> Vec<Recognized> {
    let mut found = Vec::new();
    for (what, net, shapes) in networks(1) {
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
                let ins: Vec<Tensor> = l
                    .inputs
                    .iter()
                    .enumerate()
                    .map(|(i, e)| tensor(DType::F32, inferred.shape(*e), i as f64))
                    .collect();
                let out_shape = inferred.shape(l.outputs[0]).to_vec();
                found.push(Recognized {
                    what,
                    mm,
                    kernel: l.kernel,
                    ins,
                    out_shape,
                });
            }
        }
    }
    found
}

#[test]
fn products_recognized_in_the_ir_compute_what_their_kernels_compute() {
    let products = recognized_products();
    for Recognized {
        what,
        mm,
        kernel,
        ins,
        out_shape,
    } in &products
    {
        let refs: Vec<&Tensor> = ins.iter().collect();
        let nest = lower(kernel, &Schedule::cpu(kernel)).unwrap();
        let want = kir::interp::run(&nest, &refs, &[], std::slice::from_ref(out_shape)).unwrap();
        // As recognized, and with its outermost reduction a summed loop.
        for mm in [Some(mm.clone()), recognize_summing(kernel)]
            .iter()
            .flatten()
        {
            let got = run_as_product(mm, kernel, &refs, out_shape);
            let checked = compare::same_shape(&got.shape, &want[0].shape)
                .and_then(|()| compare::close(&got.data, &want[0].data, 1e-5));
            if let Err(e) = checked {
                panic!("{what}: {e}\n{mm:?}\n{nest}");
            }
        }
    }
    // The forward products and the data and weight gradients of the 20 networks.
    assert!(
        products.len() >= 60,
        "only {} products recognized",
        products.len()
    );
}

#[test]
fn packs_by_index_pack_each_index_alone() {
    let mut checked = [0; 2];
    for Recognized {
        what,
        mm,
        kernel,
        ins,
        ..
    } in recognized_products()
    {
        let refs: Vec<&Tensor> = ins.iter().collect();
        let summing = recognize_summing(&kernel);
        let variants = [(Along::Split, Some(mm)), (Along::Sum, summing)];
        for (v, (along, mm)) in variants.into_iter().enumerate() {
            let Some(mm) = mm else { continue };
            let Some(by_index) = mm.packs_by_index(along) else {
                continue;
            };
            let extent = mm.loop_along(along).unwrap().extent;
            for (p, _) in mm.packs.iter().zip(by_index).filter(|(_, one)| *one) {
                let len = kir::interp::extent(&p.outputs[0].len, &[]).unwrap();
                let nest = lower(p, &Schedule::cpu(p)).unwrap();
                let whole = kir::interp::run(&nest, &refs, &[], &[vec![len as usize]])
                    .unwrap()
                    .remove(0);
                let one = pack_per_index(p).unwrap();
                let nest = lower(&one, &Schedule::cpu(&one)).unwrap();
                let block = (len / extent) as usize;
                for i in 0..extent {
                    let got = kir::interp::run(&nest, &refs, &[i], &[vec![block]])
                        .unwrap()
                        .remove(0);
                    let at = i as usize * block;
                    let want = &whole.data[at..at + block];
                    assert_eq!(got.data, want, "{what}: {along:?} index {i} of {}", p.name);
                }
                checked[v] += 1;
            }
        }
    }
    // The padded, strided and dilated convolutions' forward and data-gradient packs of
    // each image, and their weight gradients' packs of each image summed over.
    assert!(
        checked[0] >= 6,
        "only {} packs checked by split index",
        checked[0]
    );
    assert!(
        checked[1] >= 6,
        "only {} packs checked by summed index",
        checked[1]
    );
}

#[test]
fn chunks_pack_and_multiply_what_an_index_does() {
    // Each chunk of an index packs what the whole pack holds at its rows (the last
    // chunk shorter), and its product, offset as the chunk says, gives the index's
    // product at those rows (columns).
    let mut checked = 0;
    for Recognized { what, mm, ins, .. } in recognized_products() {
        let refs: Vec<&Tensor> = ins.iter().collect();
        let Some(by_index) = mm.packs_by_index(Along::Split) else {
            continue;
        };
        // So small that every product that can chunks, a row at a time.
        let Some(chunks) = Chunks::find(&mm, &by_index, 1) else {
            continue;
        };
        let p = &mm.packs[chunks.pack];
        let len = kir::interp::extent(&p.outputs[0].len, &[]).unwrap() as usize;
        let run = |k: &Kernel, dims: &[i64], len: usize| {
            let nest = lower(k, &Schedule::cpu(k)).unwrap();
            kir::interp::run(&nest, &refs, dims, &[vec![len]])
                .unwrap()
                .remove(0)
                .data
        };
        let whole: Vec<Vec<f64>> = (mm.packs.iter())
            .map(|p| {
                run(
                    p,
                    &[],
                    kir::interp::extent(&p.outputs[0].len, &[]).unwrap() as usize,
                )
            })
            .collect();
        let extent = mm.loop_along(Along::Split).unwrap().extent;
        let block = len / extent as usize;
        let (outer, packed) = (mm.split_loop().unwrap(), p.inputs.len() + chunks.pack);
        let chunk = chunks.pack(p).unwrap();
        for i in 0..extent {
            // The index's products, the operand not packed read at the index.
            let mut per_index = mm.per_index(Along::Split).unwrap();
            match packed == mm.a.input {
                true => per_index.b.offset += i * outer.b,
                false => per_index.a.offset += i * outer.a,
            }
            // The kernel's inputs, then the packed operands: the one chunked in `slot`.
            let operands = |slot: &[f64]| -> Vec<Vec<f64>> {
                let mut packed = whole.clone();
                packed[chunks.pack] = slot.to_vec();
                refs.iter().map(|t| t.data.clone()).chain(packed).collect()
            };
            let index = &whole[chunks.pack][i as usize * block..][..block];
            let want = naive(&per_index, &operands(index));
            let mut got = vec![f64::NAN; want.len()];
            for first in chunks.starts() {
                let rows = chunks.rows_at(first) as usize;
                let len = block / chunks.extent as usize * rows;
                let slot = run(&chunk, &[i, first, rows as i64], len);
                let (product, out) = chunks.product(&per_index, p.inputs.len(), first).unwrap();
                let part = naive(&product, &operands(&slot));
                for (at, v) in part.into_iter().enumerate().filter(|(_, v)| !v.is_nan()) {
                    got[at + out as usize] = v;
                }
            }
            assert_eq!(
                got, want,
                "{what}: index {i} of {} in chunks of {}",
                p.name, chunks.rows
            );
        }
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} products checked by chunk");
}

#[test]
fn depth_chunks_add_up_to_what_an_index_does() {
    // A summed index packed and multiplied by chunks of its packs' outermost rows: each
    // chunk's rows, packed alone and stored where the whole pack stores them (NaN
    // elsewhere), hold every depth its product reads, and the chunks' products add up
    // to the index's.
    let mut checked = 0;
    for Recognized {
        what, kernel, ins, ..
    } in recognized_products()
    {
        let refs: Vec<&Tensor> = ins.iter().collect();
        let Some(mm) = recognize_summing(&kernel) else {
            continue;
        };
        let Some(by_index) = mm.packs_by_index(Along::Sum) else {
            continue;
        };
        // So small that every product that can chunks, a row at a time.
        let Some(rows) = Chunks::depth_rows(&mm, &by_index, 1) else {
            continue;
        };
        let run = |k: &Kernel, dims: &[i64], len: i64| {
            let nest = lower(k, &Schedule::cpu(k)).unwrap();
            (kir::interp::run(&nest, &refs, dims, &[vec![len as usize]]).unwrap())
                .remove(0)
                .data
        };
        let len = |k: &Kernel| kir::interp::extent(&k.outputs[0].len, &[]).unwrap();
        let outer = mm.loop_along(Along::Sum).unwrap();
        let inputs = refs.len();
        for i in 0..outer.extent {
            // The index's product: the kernel's inputs read at the index, the packs of
            // the index (whole packs as they are).
            let mut per_index = mm.per_index(Along::Sum).unwrap();
            if per_index.a.input < inputs {
                per_index.a.offset += i * outer.a;
            }
            if per_index.b.input < inputs {
                per_index.b.offset += i * outer.b;
            }
            let packs: Vec<Vec<f64>> = (mm.packs.iter().zip(&by_index))
                .map(|(p, &one)| match one {
                    true => {
                        let p = pack_per_index(p).unwrap();
                        run(&p, &[i], len(&p))
                    }
                    false => run(p, &[], len(p)),
                })
                .collect();
            let operands = |packs: &[Vec<f64>]| -> Vec<Vec<f64>> {
                (refs.iter().map(|t| t.data.clone()))
                    .chain(packs.iter().cloned())
                    .collect()
            };
            let want = naive(&per_index, &operands(&packs));
            let extent = mm.packs[by_index.iter().position(|&one| one).unwrap()].domain[1].clone();
            let extent = kir::interp::extent(&extent, &[]).unwrap();
            let per_row = per_index.k / extent;
            let mut got = vec![0.0; want.len()];
            for first in (0..extent).step_by(rows as usize) {
                let last = (first + rows).min(extent);
                let chunk_packs: Vec<Vec<f64>> = (mm.packs.iter().zip(&by_index))
                    .zip(&packs)
                    .map(|((p, &one), whole)| {
                        if !one {
                            return whole.clone();
                        }
                        let row_len = whole.len() as i64 / extent;
                        let chunk = Chunks {
                            pack: 0,
                            axis: 1,
                            extent,
                            rows: last - first,
                        };
                        let packed = run(
                            &chunk.pack(p).unwrap(),
                            &[i, first, last - first],
                            (last - first) * row_len,
                        );
                        let mut slot = vec![f64::NAN; whole.len()];
                        slot[(first * row_len) as usize..][..packed.len()].copy_from_slice(&packed);
                        slot
                    })
                    .collect();
                let mut depths = per_index.clone();
                depths.k = (last - first) * per_row;
                depths.a.offset += first * per_row * depths.a.depth;
                depths.b.offset += first * per_row * depths.b.depth;
                let part = naive(&depths, &operands(&chunk_packs));
                for (g, p) in got.iter_mut().zip(part) {
                    *g += p;
                }
            }
            for (at, (g, w)) in got.iter().zip(&want).enumerate() {
                let close = (w.is_nan() && g.is_nan()) || (g - w).abs() <= 1e-9 * w.abs().max(1.0);
                assert!(
                    close,
                    "{what}: index {i} in chunks of {rows} rows: {g} at {at}, not {w}"
                );
            }
        }
        checked += 1;
    }
    // The weight gradients of the padded, strided and dilated convolutions.
    assert!(
        checked >= 4,
        "only {checked} products checked by chunks of depth"
    );
}

#[test]
fn a_padded_convolution_packs_its_windows() {
    // Its reads of the data are guarded (zero outside the image): they are packed into
    // a (rows, window) matrix first, im2col; the weight is read where it is.
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
    let mm = recognize(&kernels[0].kernel).unwrap();
    assert_eq!(mm.packs.len(), 1);
    // 6x6 output positions by 2 channels × 3 × 3 taps.
    assert_eq!(mm.packs[0].outputs[0].len, kir::Idx::Const(36 * 18));
    assert_eq!((mm.m, mm.n, mm.k), (36, 4, 18));
}

#[test]
fn a_strided_1x1_convolution_packs_its_pixels() {
    // Its reads of the data are plain, but every second pixel of every second row does
    // not nest into one stride: packed, the pixels of an image are one gemm axis instead
    // of a product per output row; the images stay an outer loop (the output's filters
    // lie between them).
    let (x, w) = (Symbol::var("x"), Symbol::var("w"));
    let conv = call(
        "Convolution",
        &[&x, &w],
        &[
            ("kernel", "(1,1)"),
            ("stride", "(2,2)"),
            ("num_filter", "4"),
            ("no_bias", "True"),
        ],
    );
    let g = conv.to_graph().unwrap();
    let shapes = HashMap::from([("x".to_string(), vec![2, 3, 9, 8])]);
    let inferred = infer(&g, &shapes, &HashMap::new()).unwrap();
    let group = &fuse(&g).groups[0];
    let kernels = from_group(&g, &inferred, &group.nodes, "conv").unwrap();
    let mm = recognize(&kernels[0].kernel).unwrap();
    assert_eq!(mm.packs.len(), 1);
    // 5x4 output positions by 3 channels, per image.
    assert_eq!((mm.m, mm.n, mm.k), (20, 4, 3));
    let loops: Vec<i64> = mm.loops.iter().map(|l| l.extent).collect();
    assert_eq!(loops, [2], "outer loops");
}

/// Every network (8× larger) bound for training on the JIT, its products on gemm (the
/// padded 3x3 convolutions with Winograd's algorithm): outputs and gradients as the
/// interpreter computes them, relative to their scale.
#[cfg(feature = "llvm")]
#[test]
fn executors_run_products_on_gemm_as_the_interpreter_computes_them() {
    use kiln_runtime::{Backend, Device, Executor, GradReqs, NDArray};
    let (mut products, mut winograd, mut large_tiles, mut streamed) = (0, 0, 0, 0);
    for (what, net, shapes) in networks(8) {
        let loss = call(
            "MakeLoss",
            &[&call("sum", &[&call("tanh", &[&net], &[])], &[])],
            &[],
        );
        let shapes: Vec<(&str, &[usize])> = shapes.iter().map(|(n, s)| (*n, &s[..])).collect();
        let exe = Executor::simple_bind(&loss, Device::Cpu, &shapes, GradReqs::All(GradReq::Write))
            .unwrap()
            .rebind(Backend::Jit)
            .unwrap();
        products += exe.backend().1.products;
        winograd += exe.backend().1.winograd;
        large_tiles += exe.backend().1.large_tiles;
        streamed += exe.backend().1.streamed;
        for (i, a) in exe.arg_arrays().iter().enumerate() {
            let t = tensor(DType::F32, a.shape(), i as f64 + 0.5);
            a.copy_from(&NDArray::from_tensor(&t, Device::Cpu).unwrap())
                .unwrap();
        }
        let reference = exe.rebind(Backend::Interpreter).unwrap();
        let mut results = Vec::new();
        for e in [&exe, &reference] {
            e.forward(true);
            e.backward(&[]).unwrap();
            let mut r = vec![e.outputs()[0].to_tensor().unwrap()];
            let grads = e.grad_dict();
            let mut names: Vec<&String> = grads.keys().collect();
            names.sort();
            r.extend(names.iter().map(|n| grads[n.as_str()].to_tensor().unwrap()));
            results.push(r);
        }
        // f32 sums of up to a few thousand products (gemm's order) against f64.
        let worst = compare::each(&results[0], &results[1], |got, want| {
            compare::same_shape(&got.shape, &want.shape)?;
            compare::close_to_scale(&got.data, &want.data, 1e-4)
        })
        .unwrap_or_else(|e| panic!("{what}: {e}, against the interpreter"))
        .into_iter()
        .fold(0.0, f64::max);
        println!("{what}: {worst:.1e} from the interpreter");
    }
    assert!(products >= 40, "only {products} products ran on gemm");
    // The 3x3 convolutions of stride 1 and one group: padded channel-first (on 2 images of
    // 9x8, 6 of 16x16 and 2 of 32x32) and channel-last, and unpadded; the data gradients
    // of the padded four (the unpadded one's input is larger than its output: columns
    // and col2im); the weight gradients of the four channel-first ones (of 64 tiles an
    // image or more: by images; the others the whole layer at once); the stride-1
    // deconvolution.
    assert_eq!(winograd, 14, "Winograd convolutions");
    // By F(4x4, 3x3): the 6 images' convolution (96 such tiles) and its data gradient
    // (its weight gradient by chunks: 16 such tiles an image), and the 32x32 one's
    // convolution, data gradient and weight gradient (64 tiles an image: by images).
    assert_eq!(large_tiles, 5, "Winograd convolutions by F(4x4, 3x3)");
    // Products split along the batch run image by image: the convolutions and their data
    // gradients, the 6 images' Winograd convolution in blocks of images.
    assert!(streamed >= 10, "only {streamed} products streamed");
}

/// `loss` bound with `config` on `data` for training on the JIT, its arguments filled
/// with known values, and the same executor on the interpreter.
#[cfg(feature = "llvm")]
fn jit_and_interpreter(
    config: &kiln_runtime::Config,
    loss: &Symbol,
    data: &[usize],
    reqs: kiln_runtime::GradReqs,
) -> (kiln_runtime::Executor, kiln_runtime::Executor) {
    use kiln_runtime::{Backend, Device, Executor, NDArray};
    let exe = Executor::simple_bind_with(config, loss, Device::Cpu, &[("data", data)], reqs)
        .unwrap()
        .rebind(Backend::Jit)
        .unwrap();
    for (i, a) in exe.arg_arrays().iter().enumerate() {
        let t = tensor(DType::F32, a.shape(), i as f64 + 0.5);
        a.copy_from(&NDArray::from_tensor(&t, Device::Cpu).unwrap())
            .unwrap();
    }
    let reference = exe.rebind(Backend::Interpreter).unwrap();
    (exe, reference)
}

/// A weight gradient whose images are shared among two tasks, each image in chunks of
/// depth (its columns, 64 rows of 64 × 144 a image, exceed a core's L2 cache): as the
/// interpreter computes it.
#[cfg(feature = "llvm")]
#[test]
fn a_weight_gradient_shared_among_tasks_sums_what_the_interpreter_does() {
    use kiln::compiler::program::{compile, Mode, StepKind};
    use kiln_runtime::{Config, GradReqs};
    let conv = call(
        "Convolution",
        &[&Symbol::var("data"), &Symbol::var("w")],
        &[
            ("num_filter", "16"),
            ("kernel", "(3, 3)"),
            ("pad", "(1, 1)"),
            ("no_bias", "True"),
        ],
    );
    let loss = call(
        "MakeLoss",
        &[&call("sum", &[&call("tanh", &[&conv], &[])], &[])],
        &[],
    );
    let data = vec![4, 16, 64, 64];
    let config = Config::new().threads(2).winograd(false);
    let mode = Mode::train_parameters(&loss);
    let spec = config.spec(HashMap::from([("data".to_string(), data.clone())]), mode);
    let program = compile(&loss, &spec).unwrap();
    let shared = (program.steps.iter()).find_map(|s| match &s.kind {
        StepKind::Product(p) => p.stream.as_ref().filter(|s| s.along == Along::Sum),
        _ => None,
    });
    let shared = shared.expect("the weight gradient sums image by image");
    assert_eq!(shared.tasks, 2, "{shared:?}");
    assert!(shared.depth_rows.is_some_and(|r| r < 64), "{shared:?}");
    let reqs = GradReqs::Each(HashMap::from([("w".to_string(), GradReq::Write)]));
    let (exe, reference) = jit_and_interpreter(&config, &loss, &data, reqs);
    let grads: Vec<Tensor> = [&exe, &reference]
        .map(|e| {
            e.forward(true);
            e.backward(&[]).unwrap();
            e.grad_dict()["w"].to_tensor().unwrap()
        })
        .into();
    compare::close_to_scale(&grads[0].data, &grads[1].data, 1e-4)
        .unwrap_or_else(|e| panic!("the weight gradient: {e}, against the interpreter"));
}

/// Streams over the batch run only where they keep the pool's threads busy and their
/// products deep: a convolution of one image on two threads runs whole, its gemm split
/// over the pool, not summed channel by channel (an index's product of depth 9); its
/// weight gradient over a batch of 32x32 images sums image by image (depth 1024).
#[test]
fn streams_keep_threads_busy_and_products_deep() {
    use kiln::compiler::program::{compile, Mode, StepKind};
    use kiln::runtime::Config;
    let x = Symbol::var("data");
    let conv = call(
        "Convolution",
        &[&x, &Symbol::var("w"), &Symbol::var("b")],
        &[
            ("num_filter", "16"),
            ("kernel", "(3, 3)"),
            ("pad", "(1, 1)"),
        ],
    );
    let config = Config::new().threads(2).winograd(false);
    let products = |data: Vec<usize>, mode: Mode| {
        let shapes = HashMap::from([("data".to_string(), data)]);
        let p = compile(&conv, &config.spec(shapes, mode)).unwrap();
        (p.steps.iter())
            .filter_map(|s| match &s.kind {
                StepKind::Product(p) => Some((p.matmul.k, p.stream.as_ref().map(|s| s.along))),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(products(vec![1, 8, 32, 32], Mode::Inference), [(72, None)]);
    let training = products(vec![4, 8, 32, 32], Mode::train_parameters(&conv));
    assert!(
        training.contains(&(1024, Some(Along::Sum))),
        "no weight gradient summed image by image: {training:?}"
    );
}

/// Convolutions whose im2col gemm gathers straight into its panels (implicit gemm: the
/// stem-like 7×7/2, a dilated 3×3, unequal kernels, strides and padding, a 1-D one),
/// bound for training on the JIT at batch 1: outputs and gradients as the interpreter
/// computes them; the ablation (`implicit_gemm(false)`) gathers none.
#[cfg(feature = "llvm")]
#[test]
fn convolutions_gathered_into_gemms_panels_compute_what_the_interpreter_does() {
    use kiln::compiler::program::{compile, Mode, StepKind};
    use kiln_runtime::{Config, GradReqs};
    type Geometry = (
        &'static str,
        Vec<usize>,
        &'static [(&'static str, &'static str)],
    );
    let geometries: [Geometry; 4] = [
        (
            "7x7/2, padding 3",
            vec![1, 3, 160, 160],
            &[("kernel", "(7,7)"), ("stride", "(2,2)"), ("pad", "(3,3)")],
        ),
        (
            "3x3, dilation 2, padding 2",
            vec![1, 16, 96, 96],
            &[("kernel", "(3,3)"), ("dilate", "(2,2)"), ("pad", "(2,2)")],
        ),
        (
            "3x5/(3,2), padding (1,2)",
            vec![1, 32, 40, 200],
            &[("kernel", "(3,5)"), ("stride", "(3,2)"), ("pad", "(1,2)")],
        ),
        (
            "1-D 5/2, padding 2",
            vec![1, 256, 1000],
            &[("kernel", "(5,)"), ("stride", "(2,)"), ("pad", "(2,)")],
        ),
    ];
    for (what, data, attrs) in geometries {
        let mut attrs = attrs.to_vec();
        attrs.extend([("num_filter", "8"), ("no_bias", "True")]);
        let conv = call(
            "Convolution",
            &[&Symbol::var("data"), &Symbol::var("w")],
            &attrs,
        );
        // A sum of squares: no cancellation to magnify the products' rounding.
        let loss = call(
            "MakeLoss",
            &[&call("sum", &[&call("square", &[&conv], &[])], &[])],
            &[],
        );
        let gathered = |config: &Config| {
            let mode = Mode::train_parameters(&loss);
            let spec = config.spec(HashMap::from([("data".to_string(), data.clone())]), mode);
            let program = compile(&loss, &spec).unwrap();
            (program.steps.iter())
                .map(|s| match &s.kind {
                    StepKind::Product(p) => p.windows.iter().flatten().count(),
                    _ => 0,
                })
                .sum::<usize>()
        };
        let config = Config::new().threads(2);
        assert!(gathered(&config) >= 1, "{what}: no pack gathered");
        assert_eq!(gathered(&config.clone().implicit_gemm(false)), 0, "{what}");
        let reqs = GradReqs::All(GradReq::Write);
        let (exe, reference) = jit_and_interpreter(&config, &loss, &data, reqs);
        let results: Vec<Vec<Tensor>> = [&exe, &reference]
            .map(|e| {
                e.forward(true);
                e.backward(&[]).unwrap();
                let grads = e.grad_dict();
                let mut r = vec![e.outputs()[0].to_tensor().unwrap()];
                r.extend(["data", "w"].map(|n| grads[n].to_tensor().unwrap()));
                r
            })
            .into();
        compare::each(&results[0], &results[1], |got, want| {
            compare::same_shape(&got.shape, &want.shape)?;
            compare::close_to_scale(&got.data, &want.data, 1e-4)
        })
        .unwrap_or_else(|e| panic!("{what}: {e}, against the interpreter"));
    }
}
