//! The kernel IR against the graph interpreter, one test list for every backend: each
//! element-wise, injective or reduction fusion group lowered to a loop nest and run on the
//! loop interpreter gives what the graph interpreter gives for the same entries; so do the
//! SIMT emulator, the LLVM JIT (feature `llvm`) and the rendered Rust (compiled with
//! rustc), and the rendered CUDA C compiles under NVRTC for `compute_90`.
//!
//! NVRTC is loaded at run time (`kir_support/nvrtc.rs`).

use kiln_compiler::infer::infer;
use kiln_compiler::kir::{
    self, cuda, from_group, gpu, lower, Buffer, Idx, Kernel, LoopNest, Lowered, Schedule, Stmt, Val,
};
use kiln_compiler::passes::fuse;
use kiln_compiler::{interpret, DType, Entry, Graph, NodeId, RunOptions, Symbol, Tensor};
use kiln_ops::compare;
use kiln_ops::expr::{Binary, Unary};
use proptest::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

#[cfg(feature = "llvm")]
#[path = "kir_support/llvm.rs"]
mod llvm;
#[path = "kir_support/nvrtc.rs"]
mod nvrtc;
#[path = "kir_support/rustc.rs"]
mod rustc;

fn tensor(dtype: DType, shape: &[usize], seed: f64) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::new(
        dtype,
        shape.to_vec(),
        (0..n).map(|i| (i as f64 * 0.37 + seed).sin()).collect(),
    )
}

/// The values of `entries`, by the graph interpreter.
fn values_of(g: &Graph, entries: &[Entry], inputs: &HashMap<String, Tensor>) -> Vec<Tensor> {
    let mut g = g.clone();
    g.heads = entries.to_vec();
    interpret(&g, inputs, RunOptions::default()).unwrap()
}

/// Renders `kernel` to CUDA C and compiles it with NVRTC, failing with the whole source.
fn compile_cuda(kernel: &Kernel) {
    nvrtc::compile(&cuda::render(kernel).unwrap(), &kernel.name);
}

/// The SIMT emulator gives `expected` under launches smaller than, near, and larger than
/// the domain: kernels with reductions under the block schedule CUDA renders them with
/// (at several block sizes; the tree sums in another order, hence a tolerance), the rest
/// under the grid-stride schedule (exactly).
fn assert_simt_matches(
    k: &Kernel,
    inputs: &[&Tensor],
    dims: &[i64],
    shapes: &[Vec<usize>],
    expected: &[Tensor],
) {
    if gpu::block_reduce(k, cuda::REDUCTION_BLOCK).is_ok() {
        for block in [32, 64, cuda::REDUCTION_BLOCK] {
            let gk = gpu::block_reduce(k, block).unwrap();
            for grid in [1, 3, 64] {
                let got = kir::simt::run_block(&gk, grid, inputs, dims, shapes)
                    .unwrap_or_else(|e| panic!("{e}\n{gk}"));
                let nest = lower(k, &Schedule::cpu(k)).unwrap();
                assert_close(expected, &got, 1e-6, &nest);
            }
        }
        return;
    }
    for (grid, block) in [(1, 1), (3, 32), (1024, 256)] {
        let got = kir::simt::run(k, grid, block, inputs, dims, shapes).unwrap();
        let exact = compare::each(&got, expected, |have, want| {
            compare::same_shape(&have.shape, &want.shape)?;
            compare::close(&have.data, &want.data, 0.0)
        });
        if let Err(e) = exact {
            panic!(
                "SIMT {grid} x {block} differs from the loop interpreter on `{}`: {e}",
                k.name
            );
        }
    }
}

/// Lowers every loop-able fusion group of `sym` and compares it with the interpreter;
/// returns the number of kernels and their loop nests as text.
fn check(sym: &Symbol, inputs: &HashMap<String, Tensor>, tolerance: f64) -> (usize, String) {
    check_with(sym, inputs, tolerance, true)
}

/// [`check`], compiling the kernels with rustc only when `with_rustc`.
fn check_with(
    sym: &Symbol,
    inputs: &HashMap<String, Tensor>,
    tolerance: f64,
    with_rustc: bool,
) -> (usize, String) {
    let g = sym.to_graph().unwrap();
    let groups: Vec<Vec<NodeId>> = fuse(&g).groups.into_iter().map(|grp| grp.nodes).collect();
    check_groups(&g, &groups, inputs, tolerance, with_rustc)
}

/// [`check_with`] on the given groups of `g`'s nodes.
fn check_groups(
    g: &Graph,
    groups: &[Vec<NodeId>],
    inputs: &HashMap<String, Tensor>,
    tolerance: f64,
    with_rustc: bool,
) -> (usize, String) {
    let shapes = inputs
        .iter()
        .map(|(k, t)| (k.clone(), t.shape.clone()))
        .collect();
    let dtypes = inputs.iter().map(|(k, t)| (k.clone(), t.dtype)).collect();
    let inferred = infer(g, &shapes, &dtypes).unwrap();
    let (mut lowered, mut text, mut rendered) = (0, String::new(), Vec::new());
    for (i, group) in groups.iter().enumerate() {
        let kernels = match from_group(g, &inferred, group, &format!("k{i}")) {
            Ok(k) => k,
            Err(e) => {
                assert!(
                    e.to_string().contains("library calls keep their kernels"),
                    "{e}"
                );
                continue;
            }
        };
        for Lowered {
            kernel,
            inputs: ins,
            outputs: outs,
        } in kernels
        {
            compile_cuda(&kernel);
            let nest = lower(&kernel, &Schedule::cpu(&kernel)).unwrap();
            let in_values = values_of(g, &ins, inputs);
            let expected = values_of(g, &outs, inputs);
            let shapes: Vec<Vec<usize>> = expected.iter().map(|t| t.shape.clone()).collect();
            let in_refs: Vec<&Tensor> = in_values.iter().collect();
            let got = kir::interp::run(&nest, &in_refs, &[], &shapes).unwrap();
            assert_close(&expected, &got, tolerance, &nest);
            assert_simt_matches(&kernel, &in_refs, &[], &shapes, &got);
            rendered.push((nest.clone(), in_values, vec![], shapes, expected));
            lowered += 1;
            text += &nest.to_string();
        }
    }
    assert_backends_match(&rendered, tolerance, with_rustc);
    (lowered, text)
}

/// `got` equals `expected`: as many outputs, each of the same dtype and shape, every value
/// within a relative `tolerance` (NaN only where NaN is expected).
fn assert_close(expected: &[Tensor], got: &[Tensor], tolerance: f64, nest: &LoopNest) {
    let checked = compare::each(got, expected, |have, want| {
        assert_eq!(have.dtype, want.dtype, "{nest}");
        compare::same_shape(&have.shape, &want.shape)?;
        compare::close(&have.data, &want.data, tolerance)
    });
    if let Err(e) = checked {
        panic!("{e} in\n{nest}");
    }
}

/// A lowered kernel with its inputs, symbolic dims, output shapes and expected outputs.
type Case = (
    LoopNest,
    Vec<Tensor>,
    Vec<i64>,
    Vec<Vec<usize>>,
    Vec<Tensor>,
);

/// Runs the cases' kernels on the compiled backends and compares: the LLVM JIT, and Rust
/// compiled with rustc when `with_rustc` (it takes a while). Both compute in the kernel's
/// compute type, so f32 kernels get an f32 tolerance.
fn assert_backends_match(cases: &[Case], tolerance: f64, with_rustc: bool) {
    static BUILDS: AtomicUsize = AtomicUsize::new(0);
    if cases.is_empty() {
        return;
    }
    let tolerance_of = |nest: &LoopNest| {
        if nest.compute == DType::F32 {
            tolerance.max(1e-5)
        } else {
            tolerance
        }
    };
    #[cfg(feature = "llvm")]
    for (nest, inputs, dims, shapes, expected) in cases {
        let got = llvm::run(nest, &inputs.iter().collect::<Vec<_>>(), dims, shapes);
        assert_close(expected, &got, tolerance_of(nest), nest);
    }
    if !with_rustc {
        return;
    }
    let mut nests: Vec<LoopNest> = cases.iter().map(|c| c.0.clone()).collect();
    nests.dedup_by(|a, b| a.name == b.name);
    let lib = rustc::compile(&nests, &BUILDS.fetch_add(1, Ordering::Relaxed).to_string());
    for (nest, inputs, dims, shapes, expected) in cases {
        let got = lib.run(nest, &inputs.iter().collect::<Vec<_>>(), dims, shapes);
        assert_close(expected, &got, tolerance_of(nest), nest);
    }
}

fn call(op: &str, args: &[&Symbol], attrs: &[(&str, &str)]) -> Symbol {
    let mut c = Symbol::op(op).args(args.iter().copied());
    for (k, v) in attrs {
        c = c.attr(k, v);
    }
    c.build().unwrap()
}

#[test]
fn a_times_b_plus_one_is_one_loop_nest_with_one_store() {
    let (a, b) = (Symbol::var("a"), Symbol::var("b"));
    let y = &(&a * &b) + 1.0;
    let inputs = HashMap::from([
        ("a".to_string(), tensor(DType::F64, &[3, 5], 0.1)),
        ("b".to_string(), tensor(DType::F64, &[3, 5], 1.3)),
    ]);
    let (lowered, text) = check(&y, &inputs, 0.0);
    assert_eq!(lowered, 1);
    assert_eq!(text.matches("for ").count(), 2, "{text}");
    assert_eq!(text.matches(" = ").count(), 1, "{text}");
    // In f32 on the GPU: float4 loads and stores where the buffers allow, scalar otherwise.
    let g = y.to_graph().unwrap();
    let shapes = HashMap::from([("a".to_string(), vec![3, 5]), ("b".to_string(), vec![3, 5])]);
    let inferred = infer(&g, &shapes, &HashMap::new()).unwrap();
    let group: Vec<NodeId> = g
        .node_ids()
        .filter(|&id| !g.node(id).is_variable())
        .collect();
    let k = from_group(&g, &inferred, &group, "w1")
        .unwrap()
        .remove(0)
        .kernel;
    let source = cuda::render(&k).unwrap();
    assert!(
        source.contains("reinterpret_cast<const float4*>(in0)[q]"),
        "{source}"
    );
    assert!(source.contains("out0[lin] ="), "{source}");
    compile_cuda(&k);
}

#[test]
fn broadcasts_and_index_maps_compose_into_loads() {
    let (x, bias, y) = (Symbol::var("x"), Symbol::var("bias"), Symbol::var("y"));
    let shifted = call("broadcast_add", &[&x, &bias], &[]);
    let t = call("transpose", &[&shifted], &[("axes", "(1, 0, 2)")]);
    let r = call("Reshape", &[&t], &[("shape", "(4, -1)")]);
    let act = call("Activation", &[&r], &[("act_type", "sigmoid")]);
    let sliced = call(
        "slice_axis",
        &[&act],
        &[("axis", "1"), ("begin", "1"), ("end", "5")],
    );
    let yy = call("Reshape", &[&y], &[("shape", "(4, 6)")]);
    let joined = call("concat", &[&sliced, &yy], &[("dim", "1")]);
    let out = call("tanh", &[&joined], &[]);
    for dtype in [DType::F64, DType::F32] {
        let inputs = HashMap::from([
            ("x".to_string(), tensor(dtype, &[2, 4, 3], 0.2)),
            ("bias".to_string(), tensor(dtype, &[4, 1], 0.9)),
            ("y".to_string(), tensor(dtype, &[24], 2.1)),
        ]);
        let tolerance = if dtype == DType::F64 { 1e-12 } else { 1e-6 };
        let (lowered, _) = check(&out, &inputs, tolerance);
        assert!(lowered >= 1);
    }
}

#[test]
fn reductions_lower_with_their_prologues_and_epilogues() {
    let x = Symbol::var("x");
    let reduce = |op: &str, input: &Symbol, attrs: &[(&str, &str)]| call(op, &[input], attrs);
    // Softmax's numerator: a keepdims max, broadcast back and exponentiated.
    let m = reduce("max", &x, &[("axis", "1"), ("keepdims", "1")]);
    let shifted = call("exp", &[&call("broadcast_sub", &[&x, &m], &[])], &[]);
    let cases = [
        shifted,
        reduce("sum", &call("exp", &[&x], &[]), &[("axis", "0")]),
        reduce("mean", &x, &[("axis", "(0, 2)")]),
        reduce("prod", &(&x + 1.0), &[]),
        reduce("min", &x, &[("axis", "2"), ("keepdims", "1")]),
        call("sqrt", &[&reduce("norm", &x, &[("axis", "1")])], &[]),
        reduce("sum", &x, &[("axis", "1"), ("exclude", "1")]),
    ];
    for (i, y) in cases.iter().enumerate() {
        let shape: &[usize] = if i == 0 { &[3, 7] } else { &[3, 4, 5] };
        let inputs = HashMap::from([("x".to_string(), tensor(DType::F64, shape, 0.4))]);
        let (lowered, text) = check(y, &inputs, 1e-12);
        assert_eq!(lowered, 1, "case {i}");
        assert!(text.contains("reduce_"), "{text}");
        if i == 0 {
            // The row maximum is computed once per row, outside the column loop.
            let (max_at, column_loop) = (
                text.find("= reduce_max").unwrap(),
                text.find("for i1").unwrap(),
            );
            assert!(max_at < column_loop, "{text}");
        }
    }
}

#[test]
fn schedules_must_cover_every_axis_once() {
    let a = Symbol::var("a");
    let y = call("relu", &[&a], &[]);
    let g = y.to_graph().unwrap();
    let shapes = HashMap::from([("a".to_string(), vec![2, 3])]);
    let inferred = infer(&g, &shapes, &HashMap::new()).unwrap();
    let f = fuse(&g);
    let kernel = from_group(&g, &inferred, &f.groups[0].nodes, "relu")
        .unwrap()
        .remove(0)
        .kernel;
    let mut s = Schedule::cpu(&kernel);
    s.order.pop();
    let err = lower(&kernel, &s).unwrap_err();
    assert!(
        err.to_string()
            .contains("does not cover the 2 domain axes of `relu`"),
        "{err}"
    );
    s.order = Schedule::cpu(&kernel).order.into_iter().rev().collect();
    let nest = lower(&kernel, &s).unwrap();
    assert!(matches!(nest.body[0], Stmt::Loop { axis: 1, .. }));
}

/// A kernel over a symbolic batch `D0` × 3 whose outputs apply every scalar function.
fn every_function(compute: DType) -> Kernel {
    let buffer = |name: &str, dtype| Buffer {
        name: name.into(),
        dtype,
        len: Idx::Dim(0) * Idx::Const(3),
    };
    let at = || Idx::Coord(0) * Idx::Const(3) + Idx::Coord(1);
    let load = |b| Val::Load {
        buffer: b,
        index: at(),
    };
    let unary = Unary::ALL
        .iter()
        .map(|&op| Val::Unary(op, Box::new(load(0))));
    let binary = Binary::ALL
        .iter()
        .map(|&op| Val::Binary(op, Box::new(load(0)), Box::new(load(1))));
    let select = Val::Select(
        Box::new(load(0)),
        Box::new(Val::Const(f64::INFINITY)),
        Box::new(Val::Index(at())),
    );
    let values: Vec<Val> = unary.chain(binary).chain([select]).collect();
    Kernel {
        name: format!("every_function_{compute}"),
        temps: vec![],
        domain: vec![Idx::Dim(0), Idx::Const(3)],
        inputs: vec![buffer("a", compute), buffer("b", DType::I32)],
        outputs: (0..values.len())
            .map(|o| buffer(&format!("y{o}"), compute))
            .collect(),
        values,
        compute,
    }
}

#[test]
fn every_scalar_function_renders_to_rust_and_cuda_and_runs_at_any_batch() {
    for compute in [DType::F32, DType::F64] {
        let k = every_function(compute);
        assert_eq!(k.symbolic_dims(), 1);
        compile_cuda(&k);
        let nest = lower(&k, &Schedule::cpu(&k)).unwrap();
        let mut cases = Vec::new();
        for batch in [1usize, 4] {
            let a = tensor(compute, &[batch, 3], 0.3);
            let b = Tensor::new(
                DType::I32,
                vec![batch, 3],
                (0..batch * 3).map(|i| i as f64 - 2.0).collect(),
            );
            let shapes = vec![vec![batch, 3]; k.outputs.len()];
            let out = kir::interp::run(&nest, &[&a, &b], &[batch as i64], &shapes).unwrap();
            assert_simt_matches(&k, &[&a, &b], &[batch as i64], &shapes, &out);
            // Spot checks computed by hand: the first unary is negation, the first binary
            // addition, the last output the select.
            for i in 0..batch * 3 {
                assert_eq!(out[0].data[i], -a.data[i]);
                let sum = out[Unary::ALL.len()].data[i];
                assert!((sum - (a.data[i] + b.data[i])).abs() < 1e-6);
                let want = if a.data[i] != 0.0 {
                    f64::INFINITY
                } else {
                    i as f64
                };
                assert_eq!(out.last().unwrap().data[i], want);
            }
            cases.push((nest.clone(), vec![a, b], vec![batch as i64], shapes, out));
        }
        assert_backends_match(&cases, 1e-12, true);
    }
}

#[test]
fn nvrtc_rejections_are_not_ignored() {
    if nvrtc::present() {
        let bad = "extern \"C\" __global__ void f() { undefined_name = 1; }";
        let caught = std::panic::catch_unwind(|| nvrtc::compile(bad, "f"));
        assert!(caught.is_err());
    }
}

#[test]
fn simt_reports_out_of_bounds_loads_with_the_thread() {
    let mut k = every_function(DType::F64);
    // Read one row past the end.
    k.values = vec![Val::Load {
        buffer: 0,
        index: (Idx::Coord(0) + Idx::Const(1)) * Idx::Const(3) + Idx::Coord(1),
    }];
    k.outputs.truncate(1);
    let a = tensor(DType::F64, &[2, 3], 0.0);
    let b = tensor(DType::I32, &[2, 3], 0.0);
    let err = kir::simt::run(&k, 2, 2, &[&a, &b], &[2], &[vec![2, 3]]).unwrap_err();
    assert!(
        err.to_string()
            .contains("block 0 thread 0, element 4: in0[7] is out of bounds (6 elements)"),
        "{err}"
    );
}

#[test]
fn every_output_of_a_multi_output_node_leaving_the_group_is_stored() {
    let x = Symbol::var("x");
    let doubled = &x * 2.0;
    let parts = call(
        "SliceChannel",
        &[&doubled],
        &[("num_outputs", "2"), ("axis", "1")],
    );
    let heads = Symbol::group(&[parts.output(0).unwrap(), parts.output(1).unwrap()]);
    let inputs = HashMap::from([("x".to_string(), tensor(DType::F64, &[3, 4], 0.5))]);
    let (lowered, text) = check(&heads, &inputs, 0.0);
    assert_eq!(lowered, 1);
    assert_eq!(text.matches("out1[").count(), 1, "{text}");
}

#[test]
fn values_read_twice_become_temporaries_so_deep_diamonds_stay_linear() {
    // y ← sin(y · y), 40 times: inlining every read would build 2^40 nodes.
    let mut y = Symbol::var("x");
    for _ in 0..40 {
        y = call("sin", &[&(&y * &y)], &[]);
    }
    let inputs = HashMap::from([("x".to_string(), tensor(DType::F64, &[2, 3], 0.7))]);
    let (lowered, text) = check(&y, &inputs, 1e-12);
    assert_eq!(lowered, 1);
    assert_eq!(text.matches(" = ").count(), 40, "{text}");
}

/// One step of a random program over values of shape (2, 3, 4), each step built from
/// operators whose index maps or reductions compose in the kernel IR.
#[derive(Clone, Debug)]
enum Step {
    Unary(&'static str, usize),
    Binary(&'static str, usize, usize),
    /// `Reshape(transpose(a, perm), (2, 3, 4))`.
    Permute(usize, usize),
    /// `concat(slice(a, ..k), slice(a, k..), dim=2)`.
    SplitJoin(usize, usize),
    /// `reverse(a, axis)`.
    Reverse(usize, usize),
    /// `broadcast_sub(a, reduce(a, axis, keepdims))`.
    Center(&'static str, usize, usize),
}

fn step(n: usize) -> impl Strategy<Value = Step> {
    let i = 0..n;
    prop_oneof![
        (
            prop::sample::select(vec!["relu", "sigmoid", "tanh", "negative", "exp"]),
            i.clone()
        )
            .prop_map(|(op, a)| Step::Unary(op, a)),
        (
            prop::sample::select(vec!["elemwise_add", "elemwise_mul", "_maximum"]),
            i.clone(),
            i.clone()
        )
            .prop_map(|(op, a, b)| Step::Binary(op, a, b)),
        (i.clone(), 0..5usize).prop_map(|(a, p)| Step::Permute(a, p)),
        (i.clone(), 1..4usize).prop_map(|(a, k)| Step::SplitJoin(a, k)),
        (i.clone(), 0..3usize).prop_map(|(a, axis)| Step::Reverse(a, axis)),
        (
            prop::sample::select(vec!["sum", "max", "mean"]),
            i,
            0..3usize
        )
            .prop_map(|(op, a, axis)| Step::Center(op, a, axis)),
    ]
}

fn program() -> impl Strategy<Value = Vec<Step>> {
    (1..8usize).prop_flat_map(|len| (0..len).map(|k| step(k + 2).boxed()).collect::<Vec<_>>())
}

fn build(steps: &[Step]) -> Symbol {
    let mut values = vec![Symbol::var("x"), Symbol::var("y")];
    for s in steps {
        let v = match s {
            Step::Unary(op, a) => call(op, &[&values[*a]], &[]),
            Step::Binary(op, a, b) => call(op, &[&values[*a], &values[*b]], &[]),
            Step::Permute(a, p) => {
                let perms = [
                    "(1, 0, 2)",
                    "(2, 1, 0)",
                    "(0, 2, 1)",
                    "(1, 2, 0)",
                    "(2, 0, 1)",
                ];
                let t = call("transpose", &[&values[*a]], &[("axes", perms[*p])]);
                call("Reshape", &[&t], &[("shape", "(2, 3, 4)")])
            }
            Step::SplitJoin(a, k) => {
                let k = k.to_string();
                let head = call(
                    "slice_axis",
                    &[&values[*a]],
                    &[("axis", "2"), ("begin", "0"), ("end", &k)],
                );
                let tail = call(
                    "slice_axis",
                    &[&values[*a]],
                    &[("axis", "2"), ("begin", &k), ("end", "4")],
                );
                call("concat", &[&head, &tail], &[("dim", "2")])
            }
            Step::Reverse(a, axis) => {
                call("reverse", &[&values[*a]], &[("axis", &axis.to_string())])
            }
            Step::Center(op, a, axis) => {
                let r = call(
                    op,
                    &[&values[*a]],
                    &[("axis", &axis.to_string()), ("keepdims", "1")],
                );
                call("broadcast_sub", &[&values[*a], &r], &[])
            }
        };
        values.push(v);
    }
    values.pop().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random programs lower group by group, and the loop interpreter and the SIMT
    /// emulator agree with the graph interpreter on every group.
    #[test]
    fn random_programs_lower_and_match_the_oracle(steps in program()) {
        let inputs = HashMap::from([
            ("x".to_string(), tensor(DType::F64, &[2, 3, 4], 0.3)),
            ("y".to_string(), tensor(DType::F64, &[2, 3, 4], 1.1)),
        ]);
        let (lowered, _) = check_with(&build(&steps), &inputs, 1e-9, false);
        prop_assert!(lowered >= 1);
    }
}

#[test]
fn a_group_with_outputs_of_two_shapes_lowers_to_two_kernels() {
    let y = call("relu", &[&Symbol::var("x")], &[]);
    let e = call("exp", &[&y], &[]);
    let s = call("sum", &[&y], &[("axis", "1")]);
    let g = Symbol::group(&[e, s]).to_graph().unwrap();
    let inputs = HashMap::from([("x".to_string(), tensor(DType::F64, &[3, 4], 0.2))]);
    // One group of every operator node, as a fusion that joins siblings would make.
    let group: Vec<NodeId> = g
        .node_ids()
        .filter(|&id| !g.node(id).is_variable())
        .collect();
    let (lowered, text) = check_groups(&g, &[group], &inputs, 1e-12, true);
    assert_eq!(lowered, 2, "{text}");
    assert!(
        text.contains("kernel k0_0(") && text.contains("kernel k0_1("),
        "{text}"
    );
}

#[test]
fn awkward_sizes_on_every_backend() {
    // Element-wise, strided (every other element, a non-contiguous view), broadcast and
    // reduction kernels at sizes that divide no vector width or block size.
    for n in [1usize, 3, 50, 783, 4099] {
        let x = Symbol::var("x");
        let w = Symbol::var("w");
        let activated = call("relu", &[&(&(&x * 2.0) + 1.0)], &[]);
        let strided = call(
            "slice",
            &[&x],
            &[("begin", "(0,)"), ("end", "(None,)"), ("step", "(2,)")],
        );
        let column = call("Reshape", &[&x], &[("shape", &format!("({n}, 1)"))]);
        let outer = call("broadcast_mul", &[&column, &w], &[]);
        let summed = call("sum", &[&outer], &[("axis", "0")]);
        let heads = Symbol::group(&[activated, call("tanh", &[&strided], &[]), summed]);
        let inputs = HashMap::from([
            ("x".to_string(), tensor(DType::F32, &[n], 0.1)),
            ("w".to_string(), tensor(DType::F32, &[1, 3], 2.0)),
        ]);
        let (lowered, _) = check(&heads, &inputs, 1e-5);
        assert!(lowered >= 3, "size {n}: {lowered} kernels");
    }
}

#[test]
fn column_sums_run_jammed_and_match_the_oracle() {
    // A sum over the leading axis (a bias gradient) loads consecutive elements from one
    // output to the next: the JIT runs a vector's worth of outputs per pass over the
    // rows. Widths under, at and past a vector with a remainder, one row and many, the
    // sum alone and scaled after it; the pool splits the wider ones at odd columns.
    for (rows, cols) in [(1usize, 7usize), (5, 8), (128, 11), (64, 37), (300, 1003)] {
        let x = Symbol::var("x");
        let summed = call("sum", &[&x], &[("axis", "0")]);
        let heads = Symbol::group(&[summed.clone(), &(&summed * 0.5) + 1.0]);
        let inputs = HashMap::from([("x".to_string(), tensor(DType::F32, &[rows, cols], 0.3))]);
        let (lowered, text) = check_with(&heads, &inputs, 1e-5, rows < 100);
        assert!(lowered >= 1, "{rows}x{cols}: {text}");
    }
}

#[test]
fn storage_dtypes_convert_on_load_and_store_on_every_backend() {
    // Every storage dtype in and out of an f32 kernel: y = 2.5 * x - 1.25, with NaN,
    // infinities, negatives and values past each integer range.
    let dtypes = [
        DType::F16,
        DType::BF16,
        DType::U8,
        DType::I8,
        DType::I32,
        DType::I64,
        DType::Bool,
        DType::F64,
    ];
    let n = 37usize;
    let raw: Vec<f64> = (0..n)
        .map(|i| match i {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => -300.0,
            3 => 70000.0,
            _ => (i as f64 * 0.731).sin() * 150.0,
        })
        .collect();
    // Half-precision outputs may round the other way from an f32 intermediate.
    let (mut half, mut exact) = (Vec::new(), Vec::new());
    for &from in &dtypes {
        for &to in &dtypes {
            let k = Kernel {
                name: format!("convert_{from}_{to}"),
                domain: vec![Idx::Const(n as i64)],
                inputs: vec![Buffer {
                    name: "x".into(),
                    dtype: from,
                    len: Idx::Const(n as i64),
                }],
                outputs: vec![Buffer {
                    name: "y".into(),
                    dtype: to,
                    len: Idx::Const(n as i64),
                }],
                temps: vec![],
                values: vec![Val::Binary(
                    Binary::Sub,
                    Box::new(Val::Binary(
                        Binary::Mul,
                        Box::new(Val::Const(2.5)),
                        Box::new(Val::Load {
                            buffer: 0,
                            index: Idx::Coord(0),
                        }),
                    )),
                    Box::new(Val::Const(1.25)),
                )],
                compute: DType::F32,
            };
            let nest = lower(&k, &Schedule::cpu(&k)).unwrap();
            let x = Tensor::new(from, vec![n], raw.clone());
            let shapes = vec![vec![n]];
            let want = kir::interp::run(&nest, &[&x], &[], &shapes).unwrap();
            compile_cuda(&k);
            assert_simt_matches(&k, &[&x], &[], &shapes, &want);
            let case = (nest, vec![x], vec![], shapes, want);
            if matches!(to, DType::F16 | DType::BF16) {
                half.push(case);
            } else {
                exact.push(case);
            }
        }
    }
    assert_backends_match(&half, 8e-3, true);
    assert_backends_match(&exact, 1e-6, true);
}

#[cfg(feature = "llvm")]
#[test]
fn jit_kernels_are_cached_in_memory_and_on_disk() {
    use kiln_llvm::{Jit, Origin};
    let dir = std::env::temp_dir().join(format!("kiln-jit-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let k = every_function(DType::F32);
    let nest = lower(&k, &Schedule::cpu(&k)).unwrap();
    let first = Jit::new(Some(dir.clone())).unwrap();
    assert_eq!(first.compile(&nest).unwrap().1, Origin::Compiled);
    assert_eq!(first.compile(&nest).unwrap().1, Origin::Memory);
    // The same computation under another name is the same kernel.
    let renamed = LoopNest {
        name: "other".into(),
        ..nest.clone()
    };
    assert_eq!(first.compile(&renamed).unwrap().1, Origin::Memory);
    // A second process (a fresh JIT) links the object file from disk, and its kernel
    // (calling the shims and libm) computes what the first one does.
    let second = Jit::new(Some(dir.clone())).unwrap();
    let (kernel, origin) = second.compile(&nest).unwrap();
    assert_eq!(origin, Origin::Disk);
    assert_eq!(kernel.num_buffers(), nest.inputs.len() + nest.outputs.len());
    let a = tensor(DType::F32, &[5, 3], 0.3);
    let b = Tensor::new(DType::I32, vec![5, 3], (0..15).map(f64::from).collect());
    let shapes = vec![vec![5, 3]; nest.outputs.len()];
    let from_disk = llvm::run_on(&second, &nest, &[&a, &b], &[5], &shapes);
    let fresh = llvm::run_on(&first, &nest, &[&a, &b], &[5], &shapes);
    compare::each(&from_disk, &fresh, |d, f| {
        compare::close(&d.data, &f.data, 0.0)
    })
    .unwrap();
    // A damaged cache file is rebuilt, not trusted, and the kernel still links.
    for entry in std::fs::read_dir(&dir).unwrap() {
        std::fs::write(entry.unwrap().path(), b"not an object").unwrap();
    }
    let third = Jit::new(Some(dir.clone())).unwrap();
    assert_eq!(third.compile(&nest).unwrap().1, Origin::Compiled);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gradients_summed_back_to_broadcast_shapes_lower_as_reductions() {
    // Leading axes dropped, size-1 axes kept, and both: (4, 3, 2) summed to (1, 2), (3, 1)
    // and (2,).
    let data = Symbol::var("data");
    for like in [vec![1usize, 2], vec![3, 1], vec![2], vec![4, 1, 2]] {
        let l = Symbol::var("like");
        let summed = call("_broadcast_backward", &[&data, &l], &[]);
        let inputs = HashMap::from([
            ("data".to_string(), tensor(DType::F64, &[4, 3, 2], 0.4)),
            ("like".to_string(), tensor(DType::F64, &like, 0.0)),
        ]);
        let (lowered, text) = check(&summed, &inputs, 1e-12);
        assert_eq!(lowered, 1, "{like:?}: {text}");
    }
}

/// Every f32 `x` in `lo..hi` on a grid of `n` points, plus the special values.
#[cfg(feature = "llvm")]
fn f32_sweep(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let mut xs: Vec<f64> = (0..n)
        .map(|i| (lo + (hi - lo) * i as f64 / (n - 1) as f64) as f32 as f64)
        .collect();
    xs.extend([
        0.0,
        -0.0,
        1e-30,
        -1e-30,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ]);
    xs
}

#[cfg(feature = "llvm")]
#[test]
fn math_polynomials_meet_their_stated_error_bounds() {
    // (function, sweep, bound on the relative error for normal results) as
    // `kir::math` states them.
    let cases = [
        (Unary::Exp, f32_sweep(-110.0, 90.0, 200_001), 1.5e-7),
        (Unary::Tanh, f32_sweep(-12.0, 12.0, 200_001), 2e-7),
        (Unary::Tanh, f32_sweep(-0.7, 0.7, 100_001), 2e-7),
        (Unary::Log, f32_sweep(0.0, 1e4, 200_001), 1.5e-7),
        (Unary::Log, f32_sweep(0.5, 2.0, 100_001), 1.5e-7),
        (
            Unary::Log,
            [1e-40, 1e-45, 3e-39, 1e-20, 1e30, 3.4e38, -1.0, -0.0]
                .map(|v: f64| v as f32 as f64)
                .to_vec(),
            1.5e-7,
        ),
        (Unary::Expm1, f32_sweep(-30.0, 90.0, 200_001), 1.5e-7),
        (Unary::Expm1, f32_sweep(-1.0, 1.0, 100_001), 1.5e-7),
        (Unary::Log1p, f32_sweep(-1.0, 1e4, 200_001), 2.5e-7),
        (Unary::Log1p, f32_sweep(-0.01, 0.01, 100_001), 2.5e-7),
        (Unary::Erf, f32_sweep(-6.0, 6.0, 200_001), 2.5e-7),
        (Unary::Erf, f32_sweep(-1.1, 1.1, 100_001), 2.5e-7),
    ];
    for (op, xs, bound) in cases {
        let n = xs.len() as i64;
        let k = Kernel {
            name: "math".into(),
            domain: vec![Idx::Const(n)],
            inputs: vec![Buffer {
                name: "x".into(),
                dtype: DType::F32,
                len: Idx::Const(n),
            }],
            outputs: vec![Buffer {
                name: "y".into(),
                dtype: DType::F32,
                len: Idx::Const(n),
            }],
            temps: vec![],
            values: vec![Val::Unary(
                op,
                Box::new(Val::Load {
                    buffer: 0,
                    index: Idx::Coord(0),
                }),
            )],
            compute: DType::F32,
        };
        let nest = lower(&k, &Schedule::cpu(&k)).unwrap();
        let expanded = kir::math::expand(&nest);
        assert!(
            expanded.to_string().contains("pow2i(") || expanded.to_string().contains("mantissa("),
            "{expanded}"
        );
        let x = Tensor::new(DType::F32, vec![xs.len()], xs.clone());
        let shapes = vec![vec![xs.len()]];
        let jit = llvm::run(&nest, &[&x], &[], &shapes);
        let interp = kir::interp::run(&expanded, &[&x], &[], &shapes).unwrap();
        let mut worst = (0.0f64, 0.0f64);
        for (i, &xi) in xs.iter().enumerate() {
            let want = op.apply(xi);
            for got in [jit[0].data[i], interp[0].data[i]] {
                if want.is_nan() || got.is_nan() {
                    assert!(
                        want.is_nan() && got.is_nan(),
                        "{op:?}({xi}) = {got}, not {want}"
                    );
                    continue;
                }
                let rounded = want as f32;
                if rounded.is_infinite() || rounded.abs() < f32::MIN_POSITIVE {
                    // Overflow to infinity; subnormal results within two of their spacing.
                    let spacing = 2f64.powi(-149);
                    assert!(
                        got == want as f32 as f64 || (got - want).abs() <= 2.0 * spacing,
                        "{op:?}({xi}) = {got}, not {want}"
                    );
                    continue;
                }
                let rel = ((got - want) / want).abs();
                if rel > worst.0 {
                    worst = (rel, xi);
                }
            }
        }
        eprintln!("{op:?}: worst {:e} at {}", worst.0, worst.1);
        assert!(
            worst.0 <= bound,
            "{op:?}: relative error {:e} at {} exceeds {bound:e}",
            worst.0,
            worst.1
        );
    }
}

#[test]
fn reductions_run_as_block_reductions_with_barriers_and_shuffles() {
    // Softmax over rows of 37: two reductions (max, then the sum of exponentials), each a
    // strided accumulation, a shared-memory tree and a warp of shuffles.
    let x = Symbol::var("x");
    let keep = [("axis", "1"), ("keepdims", "1")];
    let e = call(
        "exp",
        &[&call(
            "broadcast_sub",
            &[&x, &call("max", &[&x], &keep)],
            &[],
        )],
        &[],
    );
    let sm = call("broadcast_div", &[&e, &call("sum", &[&e], &keep)], &[]);
    let inputs = HashMap::from([("x".to_string(), tensor(DType::F32, &[5, 37], 0.7))]);
    let g = sm.to_graph().unwrap();
    let shapes = HashMap::from([("x".to_string(), vec![5, 37])]);
    let inferred = infer(&g, &shapes, &HashMap::new()).unwrap();
    let group: Vec<NodeId> = g
        .node_ids()
        .filter(|&id| !g.node(id).is_variable())
        .collect();
    let k = from_group(&g, &inferred, &group, "softmax")
        .unwrap()
        .remove(0)
        .kernel;
    let gk = gpu::block_reduce(&k, 64).unwrap();
    let text = gk.to_string();
    // Per reduction: after the partials, one halving step (64 → 32), after the warp, and
    // after everyone read the result; five shuffles.
    // The max and the sum, each once (the max is read inside the sum's body too).
    let reductions = k
        .temps
        .iter()
        .filter(|t| matches!(t, Val::Reduce { .. }))
        .count();
    assert_eq!(reductions, 2, "{text}");
    assert_eq!(text.matches("barrier").count(), 4 * reductions, "{text}");
    assert_eq!(
        text.matches("shuffle_down").count(),
        5 * reductions,
        "{text}"
    );
    let source = cuda::render(&k).unwrap();
    assert!(
        source.contains("__syncthreads()") && source.contains("__shfl_down_sync"),
        "{source}"
    );
    compile_cuda(&k);
    check(&sm, &inputs, 1e-5);

    // A missing barrier is a race the emulator reports.
    let mut broken = gk.clone();
    fn drop_first_barrier(body: &mut Vec<gpu::GStmt>) -> bool {
        if let Some(i) = body.iter().position(|s| *s == gpu::GStmt::Barrier) {
            body.remove(i);
            return true;
        }
        body.iter_mut().any(|s| match s {
            gpu::GStmt::For { body, .. } | gpu::GStmt::IfLess { body, .. } => {
                drop_first_barrier(body)
            }
            _ => false,
        })
    }
    assert!(drop_first_barrier(&mut broken.body));
    let xs = tensor(DType::F32, &[5, 37], 0.7);
    let err = kir::simt::run_block(&broken, 2, &[&xs], &[], &[vec![5, 37]]).unwrap_err();
    assert!(err.to_string().contains("shared-memory race"), "{err}");
}

#[test]
fn library_operators_lower_through_their_contractions() {
    // Convolution (strided, padded, dilated, grouped; with a bias and a ReLU epilogue),
    // pooling (max with padding, average, global), FullyConnected over a 4-D input, and
    // transposed dot and batch_dot: each lowers to one kernel per group that every
    // backend runs like the interpreter.
    let x = Symbol::var("x");
    let conv = call(
        "Convolution",
        &[&x, &Symbol::var("w"), &Symbol::var("b")],
        &[
            ("kernel", "(3, 2)"),
            ("stride", "(2, 1)"),
            ("pad", "(1, 1)"),
            ("dilate", "(1, 2)"),
            ("num_filter", "4"),
            ("num_group", "2"),
        ],
    );
    let relu = call("relu", &[&conv], &[]);
    let max = call(
        "Pooling",
        &[&x],
        &[
            ("kernel", "(3, 3)"),
            ("stride", "(2, 2)"),
            ("pad", "(1, 1)"),
        ],
    );
    let avg = call(
        "Pooling",
        &[&x],
        &[
            ("kernel", "(2, 2)"),
            ("pool_type", "avg"),
            ("stride", "(1, 2)"),
        ],
    );
    let global = call(
        "Pooling",
        &[&x],
        &[
            ("kernel", "(1, 1)"),
            ("global_pool", "True"),
            ("pool_type", "avg"),
        ],
    );
    let fc = call(
        "FullyConnected",
        &[&x, &Symbol::var("fw"), &Symbol::var("fb")],
        &[("num_hidden", "5")],
    );
    let dot = call(
        "dot",
        &[&Symbol::var("p"), &Symbol::var("q")],
        &[("transpose_a", "True"), ("transpose_b", "True")],
    );
    let bdot = call(
        "batch_dot",
        &[&Symbol::var("p3"), &Symbol::var("q3")],
        &[("transpose_b", "True")],
    );
    let heads = Symbol::group(&[relu, max, avg, global, fc, dot, bdot]);
    let inputs = HashMap::from([
        ("x".to_string(), tensor(DType::F32, &[2, 4, 7, 6], 0.1)),
        ("w".to_string(), tensor(DType::F32, &[4, 2, 3, 2], 0.2)),
        ("b".to_string(), tensor(DType::F32, &[4], 0.3)),
        ("fw".to_string(), tensor(DType::F32, &[5, 168], 0.4)),
        ("fb".to_string(), tensor(DType::F32, &[5], 0.5)),
        ("p".to_string(), tensor(DType::F32, &[3, 50], 0.6)),
        ("q".to_string(), tensor(DType::F32, &[7, 3], 0.7)),
        ("p3".to_string(), tensor(DType::F32, &[2, 3, 4], 0.8)),
        ("q3".to_string(), tensor(DType::F32, &[2, 5, 4], 0.9)),
    ]);
    let (lowered, text) = check(&heads, &inputs, 1e-5);
    assert!(lowered >= 7, "{lowered} kernels:\n{text}");
    assert!(text.matches("reduce_").count() >= 7, "{text}");
}

#[test]
fn library_gradients_lower_through_their_contractions() {
    // The training graph of a strided, grouped Deconvolution with a bias (forward too),
    // a strided, padded Convolution and a FullyConnected layer: their forward and backward
    // operators lower to kernels every backend runs like the interpreter.
    use kiln_compiler::autodiff::{differentiate, GradReq};
    let x = Symbol::var("x");
    let deconv = call(
        "Deconvolution",
        &[&x, &Symbol::var("dw"), &Symbol::var("db")],
        &[
            ("kernel", "(3, 2)"),
            ("stride", "(2, 1)"),
            ("pad", "(1, 0)"),
            ("adj", "(1, 0)"),
            ("num_filter", "4"),
            ("num_group", "2"),
            ("no_bias", "False"),
        ],
    );
    let conv = call(
        "Convolution",
        &[&x, &Symbol::var("w")],
        &[
            ("kernel", "(3, 3)"),
            ("stride", "(2, 2)"),
            ("pad", "(1, 1)"),
            ("num_filter", "3"),
            ("no_bias", "True"),
        ],
    );
    let fc = call(
        "FullyConnected",
        &[&conv, &Symbol::var("fw"), &Symbol::var("fb")],
        &[("num_hidden", "5")],
    );
    let loss = |s: &Symbol| {
        call(
            "MakeLoss",
            &[&call("sum", &[&call("tanh", &[s], &[])], &[])],
            &[],
        )
    };
    let heads = Symbol::group(&[loss(&deconv), loss(&fc)]);
    let g = heads.to_graph().unwrap();
    let reqs: HashMap<String, GradReq> = g
        .argument_ids()
        .into_iter()
        .map(|id| (g.node(id).name.clone(), GradReq::Write))
        .collect();
    let g = differentiate(&g, &reqs, true).unwrap().graph;
    let inputs = HashMap::from([
        ("x".to_string(), tensor(DType::F32, &[2, 4, 5, 4], 0.1)),
        ("dw".to_string(), tensor(DType::F32, &[4, 2, 3, 2], 0.2)),
        ("db".to_string(), tensor(DType::F32, &[4], 0.3)),
        ("w".to_string(), tensor(DType::F32, &[3, 4, 3, 3], 0.4)),
        ("fw".to_string(), tensor(DType::F32, &[5, 18], 0.5)),
        ("fb".to_string(), tensor(DType::F32, &[5], 0.6)),
    ]);
    let groups: Vec<Vec<NodeId>> = fuse(&g).groups.into_iter().map(|grp| grp.nodes).collect();
    let (lowered, text) = check_groups(&g, &groups, &inputs, 1e-5, false);
    // Forward: the two layers and the FullyConnected; backward: data, weight and bias
    // gradients of each.
    for op in [
        "_backward_Deconvolution",
        "_backward_Convolution",
        "_backward_FullyConnected",
    ] {
        assert!(
            groups
                .iter()
                .flatten()
                .any(|&id| g.node(id).op.is_some_and(|o| o.name == op)),
            "{op} missing"
        );
    }
    assert!(lowered >= 10, "{lowered} kernels:\n{text}");
}

#[test]
fn operators_reading_their_input_twice_share_it_so_chains_stay_linear() {
    // relu is `x > 0 ? x : 0`: substituting its input twice per operator would double
    // the kernel's expression 200 times.
    let mut y = Symbol::var("x");
    for _ in 0..200 {
        y = call("relu", &[&y], &[]);
    }
    let inputs = HashMap::from([("x".to_string(), tensor(DType::F64, &[2, 3], 0.2))]);
    let (lowered, text) = check(&y, &inputs, 1e-12);
    assert_eq!(lowered, 1);
    // One temporary per relu but the last, which is stored.
    assert_eq!(text.matches(" = ").count(), 200, "{text}");
}

#[test]
fn reduction_prologues_share_values_read_twice_as_locals() {
    // The sum's body is the whole chain, at every point of the reduction: values it
    // reads twice are locals of the reduction, computed once per point.
    let mut y = call("exp", &[&Symbol::var("x")], &[]);
    for _ in 0..60 {
        y = call("relu", &[&y], &[]);
    }
    let s = call("sum", &[&y], &[("axis", "1")]);
    let inputs = HashMap::from([("x".to_string(), tensor(DType::F64, &[4, 37], 0.4))]);
    let (lowered, text) = check(&s, &inputs, 1e-12);
    assert_eq!(lowered, 1);
    assert!(
        text.contains("l59 = ") && !text.contains("l60 = "),
        "{text}"
    );
    assert_eq!(text.matches("exp(").count(), 1, "{text}");
}

#[test]
fn long_chains_lower_to_shallow_values() {
    // 3000 operators each reading its input once: one kernel, its values no deeper than
    // a bound whatever the chain's length (every pass and renderer recurses over them).
    let mut y = Symbol::var("x");
    for i in 0..3000 {
        y = call(if i % 2 == 0 { "sin" } else { "negative" }, &[&y], &[]);
    }
    let inputs = HashMap::from([("x".to_string(), tensor(DType::F64, &[3, 2], 0.1))]);
    let (lowered, text) = check_with(&y, &inputs, 1e-12, false);
    assert_eq!(lowered, 1);
    let g = y.to_graph().unwrap();
    let nodes: Vec<NodeId> = g
        .node_ids()
        .filter(|&id| !g.node(id).is_variable())
        .collect();
    let inferred = infer(
        &g,
        &HashMap::from([("x".into(), vec![3, 2])]),
        &HashMap::new(),
    )
    .unwrap();
    let [k] = from_group(&g, &inferred, &nodes, "chain")
        .unwrap()
        .try_into()
        .ok()
        .unwrap();
    let deepest = k
        .kernel
        .temps
        .iter()
        .chain(&k.kernel.values)
        .map(Val::depth)
        .max();
    assert!(deepest.is_some_and(|d| d <= 40), "depth {deepest:?}");
    assert!(
        k.kernel.temps.len() < 3000 / 16,
        "{} temporaries",
        k.kernel.temps.len()
    );
    assert!(text.contains("sin("));
}

#[test]
fn a_kernel_that_cannot_share_stops_at_a_size_and_does_not_lower() {
    // slice(concat(y, y)) reads y at two places per level (one under each piece's guard):
    // 40 levels would be 2^40 values. The group does not lower, and says why.
    let mut y = Symbol::var("x");
    for _ in 0..40 {
        let both = call("concat", &[&y, &y], &[("dim", "1"), ("num_args", "2")]);
        y = call(
            "slice_axis",
            &[&both],
            &[("axis", "1"), ("begin", "0"), ("end", "4")],
        );
    }
    let g = y.to_graph().unwrap();
    let nodes: Vec<NodeId> = g
        .node_ids()
        .filter(|&id| !g.node(id).is_variable())
        .collect();
    let inferred = infer(
        &g,
        &HashMap::from([("x".into(), vec![2, 4])]),
        &HashMap::new(),
    )
    .unwrap();
    let err = from_group(&g, &inferred, &nodes, "doubling")
        .err()
        .expect("too large to lower");
    assert!(err.to_string().contains("more than"), "{err}");
    // Index expressions have no temporaries: each reshape's coordinates hold its whole
    // linear index, so reshapes between transposes multiply them by the rank.
    let mut y = Symbol::var("x");
    for k in 0..60 {
        let t = call("transpose", &[&y], &[]);
        let shape = if k % 2 == 0 { "(4, 6)" } else { "(6, 4)" };
        y = call("relu", &[&call("Reshape", &[&t], &[("shape", shape)])], &[]);
    }
    let g = y.to_graph().unwrap();
    let nodes: Vec<NodeId> = g
        .node_ids()
        .filter(|&id| !g.node(id).is_variable())
        .collect();
    let inferred = infer(
        &g,
        &HashMap::from([("x".into(), vec![4, 6])]),
        &HashMap::new(),
    )
    .unwrap();
    let err = from_group(&g, &inferred, &nodes, "reshapes")
        .err()
        .expect("too large to lower");
    assert!(err.to_string().contains("coordinates grow"), "{err}");
}

#[test]
fn concatenations_of_many_pieces_and_sums_of_many_inputs_stay_shallow() {
    // A concatenation of 300 inputs nests 300 selects and add_n of 300 inputs 300 sums,
    // unless they are bound as they grow.
    let xs: Vec<Symbol> = (0..300).map(|i| Symbol::var(&format!("x{i}"))).collect();
    let refs: Vec<&Symbol> = xs.iter().collect();
    let cat = call("concat", &refs, &[("dim", "1"), ("num_args", "300")]);
    let sum = call("add_n", &refs, &[("num_args", "300")]);
    let y = call("sin", &[&cat], &[]);
    let z = call("cos", &[&sum], &[]);
    let inputs: HashMap<String, Tensor> = (0..300)
        .map(|i| (format!("x{i}"), tensor(DType::F64, &[2, 1], i as f64)))
        .collect();
    for (sym, out) in [(y, vec![2, 300]), (z, vec![2, 1])] {
        let (lowered, _) = check_with(&sym, &inputs, 1e-12, false);
        assert_eq!(lowered, 1);
        let g = sym.to_graph().unwrap();
        let nodes: Vec<NodeId> = g
            .node_ids()
            .filter(|&id| !g.node(id).is_variable())
            .collect();
        let shapes = inputs
            .iter()
            .map(|(k, t)| (k.clone(), t.shape.clone()))
            .collect();
        let inferred = infer(&g, &shapes, &HashMap::new()).unwrap();
        let [k] = from_group(&g, &inferred, &nodes, "wide")
            .unwrap()
            .try_into()
            .ok()
            .unwrap();
        assert_eq!(
            k.kernel.domain,
            out.iter()
                .map(|&d| Idx::Const(d as i64))
                .collect::<Vec<_>>()
        );
        let deepest = k
            .kernel
            .temps
            .iter()
            .chain(&k.kernel.values)
            .map(Val::depth)
            .max();
        assert!(deepest.is_some_and(|d| d <= 40), "depth {deepest:?}");
    }
}

#[cfg(unix)]
#[test]
fn jit_cache_links_only_objects_kiln_wrote_in_a_folder_of_the_users_own() {
    use kiln_llvm::{Jit, Origin};
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().mode() & 0o777;
    let root = std::env::temp_dir().join(format!("kiln-jit-trust-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("jit");
    let k = every_function(DType::F32);
    let nest = lower(&k, &Schedule::cpu(&k)).unwrap();
    // Created private; each object beside the sidecar holding its hash, both private.
    let jit = Jit::new(Some(dir.clone())).unwrap();
    assert_eq!(jit.cache_folder(), Ok(Some(dir.as_path())));
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(jit.compile(&nest).unwrap().1, Origin::Compiled);
    let files = |ext: &str| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect()
    };
    let (object, sum) = (files("o").remove(0), files("sum").remove(0));
    assert_eq!((mode(&object), mode(&sum)), (0o600, 0o600));
    assert_eq!(
        Jit::new(Some(dir.clone()))
            .unwrap()
            .compile(&nest)
            .unwrap()
            .1,
        Origin::Disk
    );
    // An object kiln did not write there (no sidecar), or whose bytes are not the ones
    // hashed, is compiled again and overwritten, never linked.
    let good = std::fs::read(&object).unwrap();
    std::fs::remove_file(&sum).unwrap();
    assert_eq!(
        Jit::new(Some(dir.clone()))
            .unwrap()
            .compile(&nest)
            .unwrap()
            .1,
        Origin::Compiled
    );
    let mut planted = good.clone();
    let last = planted.len() - 1;
    planted[last] ^= 1;
    std::fs::write(&object, &planted).unwrap();
    assert_eq!(
        Jit::new(Some(dir.clone()))
            .unwrap()
            .compile(&nest)
            .unwrap()
            .1,
        Origin::Compiled
    );
    assert_eq!(std::fs::read(&object).unwrap(), good);
    assert_eq!(
        Jit::new(Some(dir.clone()))
            .unwrap()
            .compile(&nest)
            .unwrap()
            .1,
        Origin::Disk
    );
    // A folder others may write to is not used at all.
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let open = Jit::new(Some(dir.clone())).unwrap();
    assert!(open
        .cache_folder()
        .is_err_and(|why| why.contains("others may write")));
    assert_eq!(open.compile(&nest).unwrap().1, Origin::Compiled);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    // Nor one another user owns (only root can make one to try).
    if std::fs::metadata(&root).unwrap().uid() == 0 {
        std::os::unix::fs::chown(&dir, Some(65534), None).unwrap();
        let theirs = Jit::new(Some(dir.clone())).unwrap();
        assert!(theirs
            .cache_folder()
            .is_err_and(|why| why.contains("owned by user 65534")));
        assert_eq!(theirs.compile(&nest).unwrap().1, Origin::Compiled);
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn chains_of_slices_compose_to_one_offset() {
    // Each slice adds its start to the coordinate: 2000 of them are one constant.
    let mut y = Symbol::var("x");
    for _ in 0..2000 {
        y = call(
            "slice_axis",
            &[&y],
            &[("axis", "1"), ("begin", "1"), ("end", "None")],
        );
    }
    let y = call("sin", &[&y], &[]);
    let inputs = HashMap::from([("x".to_string(), tensor(DType::F64, &[2, 2003], 0.3))]);
    let (lowered, text) = check_with(&y, &inputs, 1e-12, false);
    assert_eq!(lowered, 1);
    assert!(text.contains("in0[(i0*2003 + (i1 + 2000))]"), "{text}");
}
