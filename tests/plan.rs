//! Fusion and memory planning: `a*b+1` is one kernel; on every zoo model the program's
//! layout is valid for its steps (no two simultaneously live buffers overlap, every value
//! is stored from its writer to its last reader, in-place reuse only where the step
//! allows it) and ordered as expected (lower bound ≤ arena; MXNet's both ≤ naive).

use kiln::compiler::passes::fuse;
use kiln::compiler::program::{compile, mxnet_strategies, Mode, Place, Spec, Target};
use kiln::compiler::{Entry, Graph};
use kiln::Symbol;
use std::collections::HashMap;

#[test]
fn a_times_b_plus_one_is_one_kernel() {
    let (a, b) = (Symbol::var("a"), Symbol::var("b"));
    let y = &(&a * &b) + 1.0;
    let f = fuse(&y.to_graph().unwrap());
    assert_eq!(f.groups.len(), 1);
    assert_eq!(f.groups[0].nodes.len(), 2);
    assert_eq!(f.groups[0].reason, "its result is a graph output");
}

#[test]
fn epilogues_join_gemm_and_boundaries_say_why() {
    let x = Symbol::var("data");
    let fc = Symbol::op("FullyConnected")
        .arg(&x)
        .attr("num_hidden", 8)
        .name("fc")
        .build()
        .unwrap();
    let act = Symbol::op("Activation")
        .arg(&fc)
        .attr("act_type", "relu")
        .name("relu")
        .build()
        .unwrap();
    let fc2 = Symbol::op("FullyConnected")
        .arg(&act)
        .attr("num_hidden", 4)
        .name("fc2")
        .build()
        .unwrap();
    let g = fc2.to_graph().unwrap();
    let f = fuse(&g);
    let names: Vec<Vec<&str>> = f
        .groups
        .iter()
        .map(|grp| grp.nodes.iter().map(|&n| g.node(n).name.as_str()).collect())
        .collect();
    assert_eq!(names, [vec!["fc", "relu"], vec!["fc2"]]);
    assert_eq!(
        f.groups[0].reason,
        "`fc2` (FullyConnected): gemm/convolution read materialized inputs"
    );
}

/// Checks the layout of `program` against its steps: no two values or workspace buffers
/// live at once overlap in the arena, every value lives from its writer's step to its
/// last reader's, an in-place chain only where the step allows it, and the arena is no
/// smaller than its lower bound. (It may exceed MXNet's plan: it holds the products'
/// real workspace — im2col of gradients, a product before its epilogue — which MXNet's
/// figure leaves out.)
fn check(sym: &Symbol, spec: &Spec, model: &str) {
    let p = compile(sym, spec).unwrap();
    let plan = &p.layout.plan;
    let mxnet: HashMap<&str, usize> = mxnet_strategies(sym, spec).unwrap().into_iter().collect();
    assert!(
        plan.lower_bound <= plan.bytes && mxnet["both"] <= mxnet["naive"],
        "{model}: bound {} arena {} both {} naive {}",
        plan.lower_bound,
        plan.bytes,
        mxnet["both"],
        mxnet["naive"]
    );
    assert_eq!(plan.bytes, p.layout.arena_bytes);
    for (i, a) in plan.buffers.iter().enumerate() {
        assert!(
            a.offset + a.bytes <= plan.bytes,
            "{model}: a buffer beyond the arena"
        );
        for b in &plan.buffers[i + 1..] {
            let together = a.start <= b.end && b.start <= a.end;
            let apart = a.offset + a.bytes <= b.offset || b.offset + b.bytes <= a.offset;
            assert!(!together || apart, "{model}: buffers overlap");
        }
    }
    let writer: HashMap<Entry, usize> = (p.steps.iter().enumerate())
        .flat_map(|(s, step)| step.outputs.iter().map(move |&e| (e, s)))
        .collect();
    for buf in &plan.buffers {
        for (k, e) in buf.entries.iter().enumerate() {
            assert_eq!(p.layout.places[e], Place::Arena(buf.offset), "{model}");
            assert!(buf.start <= writer[e], "{model}: stored before written");
            let next = buf.entries.get(k + 1);
            for (s, step) in p.steps.iter().enumerate() {
                if step.inputs.contains(e) && next.is_none_or(|n| writer[n] != s) {
                    assert!(s <= buf.end, "{model}: freed before its reader runs");
                }
            }
            if let Some(next) = next {
                let step = &p.steps[writer[next]];
                let i = step.inputs.iter().position(|x| x == e).unwrap();
                let o = step.outputs.iter().position(|x| x == next).unwrap();
                assert!(
                    step.overwrites(i, o),
                    "{model}: in place where `{}` may not",
                    step.name
                );
            }
        }
    }
}

fn batch_of_two(info: &kiln::models::ModelInfo) -> HashMap<String, Vec<usize>> {
    let mut shape = info.input_shape.to_vec();
    shape[0] = 2;
    HashMap::from([("data".to_string(), shape)])
}

#[test]
fn plans_are_valid_on_every_zoo_model() {
    for info in kiln::models::zoo() {
        let sym = info.build().unwrap();
        let spec = Spec::new(batch_of_two(info), Mode::Inference, Target::cpu());
        check(&sym, &spec, info.name);
    }
}

#[test]
fn training_plans_are_valid() {
    for name in [
        "mlp",
        "lenet",
        "resnet18_v1",
        "mobilenet0.25",
        "squeezenet1.1",
    ] {
        let info = kiln::models::info(name).unwrap();
        let sym = info.build().unwrap();
        let mode = Mode::train_parameters(&sym);
        let spec = Spec::new(batch_of_two(info), mode, Target::cpu());
        check(&sym, &spec, name);
    }
}

#[test]
fn cheap_producers_are_duplicated_into_their_consumers() {
    use kiln::compiler::passes::{DuplicateCheap, Pass};
    let x = Symbol::var("x");
    let y = Symbol::op("relu").arg(&x).name("y").build().unwrap();
    let a = Symbol::op("sum").arg(&(&y * 2.0)).build().unwrap();
    let b = Symbol::op("sum").arg(&(&y + 3.0)).build().unwrap();
    let g = Symbol::group(&[a, b]).to_graph().unwrap();
    let before = fuse(&g);
    let out = DuplicateCheap.run(&g).unwrap();
    let after = fuse(&out.graph);
    // The relu is recomputed in both consumers' kernels: it is no longer written out.
    assert_eq!(before.groups.len(), 3);
    assert_eq!(after.groups.len(), 2);
    let relus = out
        .graph
        .node_ids()
        .filter(|&id| out.graph.node(id).op_name() == "relu")
        .count();
    assert_eq!(relus, 2);
    let inputs = HashMap::from([(
        "x".to_string(),
        kiln::Tensor::new(kiln::DType::F64, vec![5], vec![-1.0, 2.0, -3.0, 4.0, 0.5]),
    )]);
    let run = |g: &Graph| {
        kiln::compiler::interpret(g, &inputs, kiln::compiler::RunOptions::default()).unwrap()
    };
    assert_eq!(run(&out.graph), run(&g));
}

#[test]
fn siblings_reading_one_entry_share_a_kernel_unless_one_depends_on_the_other() {
    let x = Symbol::var("x");
    let p = Symbol::op("relu").arg(&x).name("p").build().unwrap();
    let q = Symbol::op("tanh").arg(&x).name("q").build().unwrap();
    let g = Symbol::group(&[p.clone(), q]).to_graph().unwrap();
    let f = fuse(&g);
    assert_eq!(f.groups.len(), 1, "{f}");
    // r reads x and depends on s (through a gemm kernel), which also reads x: merging them
    // would form a cycle.
    let s = Symbol::op("sigmoid").arg(&x).name("s").build().unwrap();
    let t = Symbol::op("dot").arg(&s).arg(&s).name("t").build().unwrap();
    let r = Symbol::op("elemwise_add")
        .arg(&x)
        .arg(&t)
        .name("r")
        .build()
        .unwrap();
    let g = Symbol::group(&[r, s]).to_graph().unwrap();
    let f = fuse(&g);
    let group_of = |name: &str| {
        f.group_of[g
            .node_ids()
            .find(|&id| g.node(id).name == name)
            .unwrap()
            .index()]
    };
    assert_ne!(group_of("r"), group_of("s"), "{f}");
}

#[test]
fn diamonds_fuse_up_to_their_post_dominator() {
    // y = relu(x); z = y*a + y*b: y has two consumers that reconverge at the add.
    let (x, a, b) = (Symbol::var("x"), Symbol::var("a"), Symbol::var("b"));
    let y = Symbol::op("relu").arg(&x).name("y").build().unwrap();
    let z = &(&y * &a) + &(&y * &b);
    let f = fuse(&z.to_graph().unwrap());
    assert_eq!(f.groups.len(), 1, "{f}");
    // A diamond through a gemm does not fuse: the relu's result must be written.
    let w = Symbol::var("w");
    let d = Symbol::op("dot").arg(&y).arg(&w).build().unwrap();
    let z2 = &(&y * &a) + &d;
    let f = fuse(&z2.to_graph().unwrap());
    assert!(f.groups.len() >= 2, "{f}");
}

#[test]
fn diamonds_nested_in_diamonds_are_decided_through_the_post_dominator_tree() {
    // y's consumers reconverge at z, through u's own diamond: a transpose inside it keeps
    // y's diamond from fusing, element-wise work alone does not.
    let (x, a) = (Symbol::var("x"), Symbol::var("a"));
    for (inner, fuses) in [("sin", true), ("transpose", false)] {
        let y = Symbol::op("relu").arg(&x).name("y").build().unwrap();
        let u = Symbol::op("sin").arg(&y).name("u").build().unwrap();
        let v1 = Symbol::op("cos").arg(&u).build().unwrap();
        let v2 = Symbol::op(inner).arg(&u).build().unwrap();
        let w = &(&v1 + &v2) * &a;
        let z = &w + &y;
        let g = z.to_graph().unwrap();
        let f = fuse(&g);
        let group_of = |name: &str| {
            f.group_of[g
                .node_ids()
                .find(|&id| g.node(id).name == name)
                .unwrap()
                .index()]
        };
        assert_eq!(group_of("y") == group_of("u"), fuses, "{inner}: {f}");
    }
    // Fibonacci: every node's region overlaps the next ones'; all of it fuses.
    let mut prev = Symbol::op("relu").arg(&x).build().unwrap();
    let mut cur = Symbol::op("sin").arg(&prev).build().unwrap();
    for _ in 0..3000 {
        let next = &cur + &prev;
        prev = cur;
        cur = next;
    }
    let f = fuse(&cur.to_graph().unwrap());
    assert_eq!(f.groups.len(), 1);
}

#[test]
fn long_training_chains_plan_valid_layouts_in_near_linear_time() {
    // Thousands of buffers live at once (every activation waits for the backward pass):
    // past a few thousand the arena is planned by an allocator run over the steps.
    let (x, w) = (Symbol::var("data"), Symbol::var("w"));
    let mut y = &x * &w;
    for _ in 0..5000 {
        y = Symbol::op("sin").arg(&y).build().unwrap();
    }
    let y = Symbol::op("sum").arg(&y).build().unwrap();
    let shapes = HashMap::from([("data".into(), vec![2, 3]), ("w".into(), vec![2, 3])]);
    let spec = Spec::new(shapes, Mode::train_parameters(&y), Target::cpu());
    let p = compile(&y, &spec).unwrap();
    assert!(
        p.layout.plan.buffers.len() > 4096,
        "{}",
        p.layout.plan.buffers.len()
    );
    check(&y, &spec, "sin chain");
}
