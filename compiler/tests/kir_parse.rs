//! The kernel IR's textual form reads back (`kir::parse_kernel`, `kir::parse_nest`):
//! printing, parsing and printing again gives the same value and the same text, for
//! random kernels built value by value, for the kernels of random fused programs, and for
//! every kernel (with its loop nest, its polynomial expansion, its product's packs and
//! epilogue, its generalization over the batch size) of small zoo-like networks. Any
//! other text is an error, never a panic.

use kiln_compiler::infer::infer;
use kiln_compiler::kir::{
    self, from_group, generalize, lower, matmul, parse_kernel, parse_kernels, parse_nest, BitOp,
    Buffer, Idx, Kernel, KirError, LoopNest, Schedule, Val,
};
use kiln_compiler::passes::{fuse, Expand, Pass, Simplify};
use kiln_compiler::{DType, Entry, Graph, Symbol};
use kiln_ops::expr::{Binary, Unary};
use kiln_ops::Combiner;
use proptest::prelude::*;
use std::collections::HashMap;

fn call(op: &str, args: &[&Symbol], attrs: &[(&str, &str)]) -> Symbol {
    let mut c = Symbol::op(op).args(args.iter().copied());
    for (k, v) in attrs {
        c = c.attr(k, v);
    }
    c.build().unwrap()
}

/// The same value: equal `Debug` forms, which tell -0.0 from 0.0 (floats print
/// exactly) and take every NaN for one (`==` would not, and the math expansions put
/// NaN constants in kernels).
fn assert_same<T: std::fmt::Debug>(back: &T, orig: &T, text: &str) {
    assert_eq!(format!("{back:?}"), format!("{orig:?}"), "{text}");
}

/// `k` prints, parses back to `k`, and prints the same again.
fn assert_kernel_round_trips(k: &Kernel) {
    let text = k.to_string();
    let back = parse_kernel(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_same(&back, k, &text);
    assert_eq!(back.to_string(), text);
}

fn assert_nest_round_trips(n: &LoopNest) {
    let text = n.to_string();
    let back = parse_nest(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_same(&back, n, &text);
    assert_eq!(back.to_string(), text);
}

/// Every form of `k` the compiler makes: the kernel, its CPU loop nest, the nest with
/// exp/tanh/... as polynomials, and a recognized product's packs and epilogue.
fn assert_round_trips(k: &Kernel) -> usize {
    assert_kernel_round_trips(k);
    let nest = lower(k, &Schedule::cpu(k)).unwrap();
    assert_nest_round_trips(&nest);
    assert_nest_round_trips(&kir::math::expand(&nest));
    let mut kernels = 1;
    if let Some(mm) = matmul::recognize(k) {
        for p in mm.packs.iter().chain(&mm.epilogue) {
            assert_kernel_round_trips(p);
            kernels += 1;
        }
    }
    kernels
}

/// The kernels of every loop-able group of `g`.
fn kernels_of(g: &Graph, shapes: &HashMap<String, Vec<usize>>) -> Vec<Kernel> {
    let inferred = infer(g, shapes, &HashMap::new()).unwrap();
    let mut out = Vec::new();
    for (i, group) in fuse(g).groups.iter().enumerate() {
        match from_group(g, &inferred, &group.nodes, &format!("k{i}")) {
            Ok(ks) => out.extend(ks.into_iter().map(|l| l.kernel)),
            Err(e) => assert!(matches!(e, KirError::Library { .. }), "{e}"),
        }
    }
    out
}

/// `sym` as inference compiles it (simplified, softmax and BatchNorm expanded), and the
/// shape of every variable (which the expanded nodes need).
fn inference_graph(
    sym: &Symbol,
    shapes: &[(&str, Vec<usize>)],
) -> (Graph, HashMap<String, Vec<usize>>) {
    let g = Simplify.run(&sym.to_graph().unwrap()).unwrap().graph;
    let given: HashMap<String, Vec<usize>> = shapes
        .iter()
        .map(|(n, s)| (n.to_string(), s.clone()))
        .collect();
    let inferred = infer(&g, &given, &HashMap::new()).unwrap();
    let all = g
        .node_ids()
        .filter(|&id| g.node(id).is_variable())
        .map(|id| {
            let e = Entry { node: id, index: 0 };
            (g.node(id).name.clone(), inferred.shape(e).clone())
        })
        .collect();
    let expand = Expand {
        training: false,
        inferred: Some(&inferred),
        first: 0,
    };
    (expand.expand(&g).unwrap().0.graph, all)
}

/// A network, what it is, and its input shapes.
type Network = (&'static str, Symbol, Vec<(&'static str, Vec<usize>)>);

/// Small networks in the zoo's style, with their input shapes at batch size `n`.
fn networks(n: usize) -> Vec<Network> {
    let v = Symbol::var;
    let relu = |s: &Symbol| call("Activation", &[s], &[("act_type", "relu")]);
    let fc = call(
        "FullyConnected",
        &[&v("data"), &v("fc_w"), &v("fc_b")],
        &[("num_hidden", "10")],
    );
    let conv = call(
        "Convolution",
        &[&v("data"), &v("conv_w")],
        &[
            ("kernel", "(3,3)"),
            ("pad", "(1,1)"),
            ("num_filter", "4"),
            ("no_bias", "True"),
        ],
    );
    let bn = call(
        "BatchNorm",
        &[&conv, &v("gamma"), &v("beta"), &v("mean"), &v("var")],
        &[("fix_gamma", "False")],
    );
    let pool = call(
        "Pooling",
        &[&relu(&bn)],
        &[
            ("kernel", "(2,2)"),
            ("stride", "(2,2)"),
            ("pool_type", "max"),
        ],
    );
    let avg = call(
        "Pooling",
        &[&v("data")],
        &[("kernel", "(3,3)"), ("pad", "(1,1)"), ("pool_type", "avg")],
    );
    let t = call("transpose", &[&v("data")], &[("axes", "(0, 2, 1, 3)")]);
    let sliced = call(
        "slice",
        &[&t],
        &[("begin", "(0, 1, 0, 0)"), ("end", "(None, 5, 3, 4)")],
    );
    let parts = call(
        "SliceChannel",
        &[&v("data")],
        &[("num_outputs", "3"), ("axis", "1")],
    );
    let joined = call(
        "concat",
        &[&parts.output(2).unwrap(), &parts.output(0).unwrap()],
        &[("dim", "1")],
    );
    let image = vec![("data", vec![n, 3, 6, 4])];
    vec![
        ("fc + relu", relu(&fc), vec![("data", vec![n, 3, 4])]),
        ("conv + bn + relu + max pool", pool, image.clone()),
        ("padded average pool", avg, image.clone()),
        (
            "softmax",
            call("softmax", &[&v("data")], &[("axis", "-1")]),
            vec![("data", vec![n, 7])],
        ),
        (
            "mean and variance",
            {
                let m = call(
                    "mean",
                    &[&v("data")],
                    &[("axis", "(1, 2)"), ("keepdims", "1")],
                );
                let d = call("broadcast_sub", &[&v("data"), &m], &[]);
                call(
                    "mean",
                    &[&call("square", &[&d], &[])],
                    &[("axis", "(1, 2)")],
                )
            },
            image.clone(),
        ),
        (
            "transpose + slice",
            call("tanh", &[&sliced], &[]),
            image.clone(),
        ),
        (
            "split + concat",
            call("sigmoid", &[&joined], &[]),
            image.clone(),
        ),
        (
            "batch_dot",
            call("batch_dot", &[&v("a"), &v("b")], &[("transpose_b", "True")]),
            vec![("a", vec![n, 3, 5]), ("b", vec![n, 4, 5])],
        ),
        (
            "log_softmax of exp and erf",
            {
                let e = call("exp", &[&v("data")], &[]);
                let f = call("erf", &[&e], &[]);
                call("log_softmax", &[&f], &[("axis", "1")])
            },
            vec![("data", vec![n, 6])],
        ),
    ]
}

#[test]
fn every_kernel_of_zoo_like_networks_round_trips() {
    let mut total = 0;
    for (what, sym, shapes) in networks(2) {
        let (g, all) = inference_graph(&sym, &shapes);
        let ks = kernels_of(&g, &all);
        assert!(!ks.is_empty(), "{what}: no kernel");
        for k in &ks {
            total += assert_round_trips(k);
        }
        // Several kernels, one after another.
        let text: String = ks.iter().map(Kernel::to_string).collect();
        assert_eq!(parse_kernels(&text).unwrap(), ks, "{what}");
        // Over a symbolic batch size: lengths and extents in `D0`.
        let at = |b: usize| {
            let shapes: Vec<_> = shapes
                .iter()
                .map(|(n, s)| (*n, [&[b][..], &s[1..]].concat()))
                .collect();
            let (g, all) = inference_graph(&sym, &shapes);
            kernels_of(&g, &all)
        };
        for (k2, k3) in at(2).iter().zip(&at(3)) {
            if let Some(general) = generalize(k2, 2, k3, 3) {
                total += assert_round_trips(&general);
            }
        }
    }
    assert!(total >= 25, "only {total} kernels");
}

/// One step of a random program over values of shape (2, 3, 4) (as in the root
/// `tests/kir.rs`), with scalar operations to put float constants in the kernels.
#[derive(Clone, Debug)]
enum Step {
    Unary(&'static str, usize),
    Binary(&'static str, usize, usize),
    Scalar(&'static str, f64, usize),
    Permute(usize, usize),
    SplitJoin(usize, usize),
    Center(&'static str, usize, usize),
}

fn step(n: usize) -> impl Strategy<Value = Step> {
    let i = 0..n;
    prop_oneof![
        (
            prop::sample::select(vec!["relu", "sigmoid", "tanh", "exp", "erf", "sqrt"]),
            i.clone()
        )
            .prop_map(|(op, a)| Step::Unary(op, a)),
        (
            prop::sample::select(vec!["elemwise_add", "elemwise_mul", "_maximum"]),
            i.clone(),
            i.clone()
        )
            .prop_map(|(op, a, b)| Step::Binary(op, a, b)),
        (
            prop::sample::select(vec!["_mul_scalar", "_plus_scalar", "_rdiv_scalar"]),
            prop::sample::select(vec![0.0, -1.5, 1e-7, 3.0e20, 0.1]),
            i.clone()
        )
            .prop_map(|(op, s, a)| Step::Scalar(op, s, a)),
        (i.clone(), 0..3usize).prop_map(|(a, p)| Step::Permute(a, p)),
        (i.clone(), 1..4usize).prop_map(|(a, k)| Step::SplitJoin(a, k)),
        (
            prop::sample::select(vec!["sum", "max", "mean"]),
            i,
            0..3usize
        )
            .prop_map(|(op, a, axis)| Step::Center(op, a, axis)),
    ]
}

fn program() -> impl Strategy<Value = Vec<Step>> {
    (1..7usize).prop_flat_map(|len| (0..len).map(|k| step(k + 2).boxed()).collect::<Vec<_>>())
}

/// The program over inputs named `names` (odd names are quoted in the text).
fn build(steps: &[Step], names: &[String; 2]) -> Symbol {
    let mut values = vec![Symbol::var(&names[0]), Symbol::var(&names[1])];
    for s in steps {
        let v = match s {
            Step::Unary(op, a) => call(op, &[&values[*a]], &[]),
            Step::Binary(op, a, b) => call(op, &[&values[*a], &values[*b]], &[]),
            Step::Scalar(op, s, a) => call(op, &[&values[*a]], &[("scalar", &s.to_string())]),
            Step::Permute(a, p) => {
                let perms = ["(1, 0, 2)", "(2, 1, 0)", "(0, 2, 1)"];
                let t = call("transpose", &[&values[*a]], &[("axes", perms[*p])]);
                call("Reshape", &[&t], &[("shape", "(2, 3, 4)")])
            }
            Step::SplitJoin(a, k) => {
                let k = k.to_string();
                let slice = |b: &str, e: &str| {
                    call(
                        "slice_axis",
                        &[&values[*a]],
                        &[("axis", "2"), ("begin", b), ("end", e)],
                    )
                };
                call(
                    "concat",
                    &[&slice("0", &k), &slice(&k, "4")],
                    &[("dim", "2")],
                )
            }
            Step::Center(op, a, axis) => {
                let attrs = [("axis", axis.to_string()), ("keepdims", "1".to_string())];
                let attrs: Vec<(&str, &str)> =
                    attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
                let r = call(op, &[&values[*a]], &attrs);
                call("broadcast_sub", &[&values[*a], &r], &[])
            }
        };
        values.push(v);
    }
    values.pop().unwrap()
}

/// A random kernel built value by value: any index and value form (symbolic dimensions,
/// shared slots, exact bit operations, reductions of several axes), every operator and
/// combiner, awkward constants and names.
fn idx(rank: usize, red: usize) -> BoxedStrategy<Idx> {
    let mut leaves = vec![
        (-100i64..100).prop_map(Idx::Const).boxed(),
        prop::sample::select(vec![i64::MIN, i64::MAX, -1, 0, 1])
            .prop_map(Idx::Const)
            .boxed(),
        (0..3usize).prop_map(Idx::Dim).boxed(),
    ];
    if rank > 0 {
        leaves.push((0..rank).prop_map(Idx::Coord).boxed());
    }
    if red > 0 {
        leaves.push((0..red).prop_map(Idx::Red).boxed());
    }
    prop::strategy::Union::new(leaves)
        .prop_recursive(4, 24, 2, |inner| {
            (0..4u8, inner.clone(), inner).prop_map(|(op, a, b)| {
                let (a, b) = (Box::new(a), Box::new(b));
                match op {
                    0 => Idx::Add(a, b),
                    1 => Idx::Mul(a, b),
                    2 => Idx::Div(a, b),
                    _ => Idx::Mod(a, b),
                }
            })
        })
        .boxed()
}

fn constant() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("NaN is not equal to itself", |x| !x.is_nan()),
        prop::sample::select(vec![
            0.0,
            -0.0,
            1.0,
            0.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            1e16,
            1e-7,
        ]),
    ]
}

/// A value over `rank` domain axes and `red` reduction axes, reading `inputs` buffers,
/// `temps` temporaries and `locals` locals of the reduction it is in.
fn val(rank: usize, red: usize, inputs: usize, temps: usize, locals: usize) -> BoxedStrategy<Val> {
    let mut leaves = vec![
        constant().prop_map(Val::Const).boxed(),
        idx(rank, red).prop_map(Val::Index).boxed(),
        idx(rank, red).prop_map(Val::Shared).boxed(),
    ];
    if inputs > 0 {
        leaves.push(
            (0..inputs, idx(rank, red))
                .prop_map(|(buffer, index)| Val::Load { buffer, index })
                .boxed(),
        );
    }
    if temps > 0 {
        leaves.push((0..temps).prop_map(Val::Temp).boxed());
    }
    if locals > 0 {
        leaves.push((0..locals).prop_map(Val::Local).boxed());
    }
    let bits = vec![BitOp::Pow2i, BitOp::Exponent, BitOp::Mantissa];
    prop::strategy::Union::new(leaves)
        .prop_recursive(4, 32, 3, move |inner| {
            prop_oneof![
                (prop::sample::select(Unary::ALL.to_vec()), inner.clone())
                    .prop_map(|(op, a)| Val::Unary(op, Box::new(a))),
                (prop::sample::select(bits.clone()), inner.clone())
                    .prop_map(|(op, a)| Val::Bits(op, Box::new(a))),
                (
                    prop::sample::select(Binary::ALL.to_vec()),
                    inner.clone(),
                    inner.clone()
                )
                    .prop_map(|(op, a, b)| Val::Binary(
                        op,
                        Box::new(a),
                        Box::new(b)
                    )),
                (inner.clone(), inner.clone(), inner).prop_map(|(c, a, b)| Val::Select(
                    Box::new(c),
                    Box::new(a),
                    Box::new(b)
                )),
            ]
        })
        .boxed()
}

/// A temporary: a value, or a reduction of 0 to 3 axes and 0 to 2 locals around one.
fn temp(rank: usize, inputs: usize, temps: usize) -> BoxedStrategy<Val> {
    let combiners = vec![Combiner::Sum, Combiner::Prod, Combiner::Max, Combiner::Min];
    prop_oneof![
        val(rank, 0, inputs, temps, 0),
        (0..4usize, 0..3usize)
            .prop_flat_map(move |(axes, n)| {
                let locals: Vec<_> = (0..n).map(|l| val(rank, axes, inputs, temps, l)).collect();
                (
                    prop::sample::select(combiners.clone()),
                    prop::collection::vec(idx(rank, 0), axes),
                    locals,
                    val(rank, axes, inputs, temps, n),
                )
            })
            .prop_map(|(combiner, extents, locals, body)| Val::Reduce {
                combiner,
                extents,
                locals,
                body: Box::new(body),
            }),
    ]
    .boxed()
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_][a-z0-9_]{0,8}",
        Just(String::new()),
        "[ -~]{0,6}",
        prop::sample::select(vec![
            "x y".to_string(),
            "a\"b\\c".to_string(),
            "tab\there".to_string(),
            "données".to_string(),
            "e\u{301}".to_string(),
            "stage1/conv0:out".to_string(),
            "9lives".to_string(),
            "inf".to_string(),
            "kernel".to_string(),
        ]),
    ]
}

fn buffer(rank: usize) -> impl Strategy<Value = Buffer> {
    (
        name(),
        prop::sample::select(DType::ALL.to_vec()),
        idx(rank, 0),
    )
        .prop_map(|(name, dtype, len)| Buffer { name, dtype, len })
}

fn kernel() -> impl Strategy<Value = Kernel> {
    (0..4usize, 0..4usize, 0..3usize, 0..4usize).prop_flat_map(|(rank, inputs, outputs, temps)| {
        let temp_vals: Vec<BoxedStrategy<Val>> =
            (0..temps).map(|t| temp(rank, inputs, t)).collect();
        (
            name(),
            prop::collection::vec(idx(0, 0), rank),
            prop::collection::vec(buffer(0), inputs),
            prop::collection::vec(buffer(0), outputs),
            temp_vals,
            prop::collection::vec(val(rank, 0, inputs, temps, 0), outputs),
            prop::sample::select(DType::ALL.to_vec()),
        )
            .prop_map(
                |(name, domain, inputs, outputs, temps, values, compute)| Kernel {
                    name,
                    domain,
                    inputs,
                    outputs,
                    temps,
                    values,
                    compute,
                },
            )
    })
}

/// The words of the textual form, for random token sequences.
const VOCABULARY: [&str; 40] = [
    "kernel",
    "k",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "=",
    "+",
    "*",
    "/",
    "%",
    "<",
    "->",
    "..",
    "compute",
    "float32",
    "domain",
    "for",
    "in",
    "0",
    "3",
    "-1",
    "1.5",
    "inf",
    "i0",
    "i1",
    "D0",
    "r0",
    "t0",
    "out0",
    "in0",
    "reduce_sum",
    "select",
    "add",
    "neg",
    "Parallel",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_kernels_round_trip(k in kernel()) {
        assert_kernel_round_trips(&k);
    }

    /// A random loop order and kinds over a random kernel's domain.
    #[test]
    fn random_loop_nests_round_trip(k in kernel(), seed in any::<u64>()) {
        use kiln_compiler::kir::LoopKind;
        let rank = k.domain.len();
        let mut order: Vec<usize> = (0..rank).collect();
        let mut s = seed;
        for i in (1..rank).rev() {
            order.swap(i, (s % (i as u64 + 1)) as usize);
            s /= 7;
        }
        let kinds = [
            LoopKind::Serial,
            LoopKind::Parallel,
            LoopKind::Vectorized(8),
            LoopKind::GpuBlock(1),
            LoopKind::GpuThread(0),
        ];
        let schedule = Schedule {
            order: order
                .into_iter()
                .enumerate()
                .map(|(d, a)| (a, kinds[(seed as usize + d) % kinds.len()]))
                .collect(),
        };
        assert_nest_round_trips(&lower(&k, &schedule).unwrap());
    }

    /// No text makes the parser panic; what parses prints and parses to itself. Texts
    /// are printed kernels and nests with a character deleted, inserted or replaced, or
    /// truncated; random characters; and random sequences of the format's words.
    #[test]
    fn any_text_is_a_kernel_or_an_error(
        k in kernel(),
        nest in any::<bool>(),
        at in any::<prop::sample::Index>(),
        edit in 0..4u8,
        c in prop::sample::select("()[]{},:=+*/%<->.;\"\\ \n0-9eiDrtxin_".chars().collect::<Vec<_>>()),
        random in "\\PC{0,40}",
        words in prop::collection::vec(prop::sample::select(VOCABULARY.to_vec()), 0..80),
    ) {
        let text = if nest {
            lower(&k, &Schedule::cpu(&k)).unwrap().to_string()
        } else {
            k.to_string()
        };
        let chars: Vec<char> = text.chars().collect();
        let i = at.index(chars.len().max(1)).min(chars.len());
        let mut edited: Vec<char> = chars.clone();
        match edit {
            0 if i < chars.len() => { edited.remove(i); }
            1 => edited.insert(i, c),
            2 if i < chars.len() => edited[i] = c,
            _ => edited.truncate(i),
        }
        let edited: String = edited.into_iter().collect();
        let words = words.join(" ");
        for t in [edited.as_str(), random.as_str(), words.as_str()] {
            if let Ok(k) = parse_kernel(t) {
                let again = k.to_string();
                prop_assert_eq!(parse_kernel(&again).unwrap().to_string(), again);
            }
            if let Ok(n) = parse_nest(t) {
                let again = n.to_string();
                prop_assert_eq!(parse_nest(&again).unwrap().to_string(), again);
            }
            let _ = parse_kernels(t);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// The kernels of random fused programs (element-wise, transposes, slices and
    /// concatenations, reductions) round-trip in every form.
    #[test]
    fn random_programs_kernels_round_trip(steps in program(), names in [name(), name()]) {
        // Prefixed, so no input is named like an operator's node.
        prop_assume!(names[0] != names[1]);
        let names = names.map(|n| format!("v_{n}"));
        let sym = build(&steps, &names);
        let shapes = names.iter().map(|n| (n.clone(), vec![2, 3, 4])).collect();
        let g = sym.to_graph().unwrap();
        for k in kernels_of(&g, &shapes) {
            assert_round_trips(&k);
        }
    }
}

#[test]
fn nan_prints_and_reads_back_as_nan() {
    let k = parse_kernel(
        "kernel k() -> (y: float32[1]) compute float32 {\n  domain [1]\n  out0 = add(NaN, -inf)\n}\n",
    )
    .unwrap();
    match &k.values[0] {
        Val::Binary(Binary::Add, a, b) => {
            assert!(matches!(**a, Val::Const(c) if c.is_nan()));
            assert_eq!(**b, Val::Const(f64::NEG_INFINITY));
        }
        v => panic!("{v:?}"),
    }
    assert_eq!(
        parse_kernel(&k.to_string()).unwrap().to_string(),
        k.to_string()
    );
}
