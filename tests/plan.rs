//! Fusion and memory planning: `a*b+1` is one kernel; on every zoo model the plan is
//! valid under its schedule (no two simultaneously live buffers overlap, every entry is
//! stored from its writer to its last reader, in-place reuse only where the operator
//! allows it) and ordered as expected (lower bound ≤ kiln ≤ MXNet's both ≤ naive).

use kiln::compiler::autodiff::{differentiate, GradReq};
use kiln::compiler::passes::{fuse, Pipeline};
use kiln::compiler::plan::{plan, MemoryPlan, Strategy};
use kiln::compiler::{infer, Entry, Graph};
use kiln::Symbol;
use std::collections::{HashMap, HashSet};

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

fn check(g: &Graph, external: &HashSet<Entry>, data: &[usize], model: &str) -> MemoryPlan {
    let inferred = infer::infer(
        g,
        &HashMap::from([("data".to_string(), data.to_vec())]),
        &HashMap::new(),
    )
    .unwrap();
    let fusion = fuse(g);
    let plans: Vec<MemoryPlan> = [Strategy::Naive, Strategy::Both, Strategy::Kiln]
        .iter()
        .map(|&s| plan(g, &inferred, Some(&fusion), external, s))
        .collect();
    let (naive, both, kiln) = (&plans[0], &plans[1], &plans[2]);
    assert!(
        kiln.lower_bound <= kiln.bytes && kiln.bytes <= both.bytes && both.bytes <= naive.bytes,
        "{model}: {} {} {} {}",
        kiln.lower_bound,
        kiln.bytes,
        both.bytes,
        naive.bytes
    );
    // No two buffers live at the same time overlap in the arena.
    for (i, a) in kiln.buffers.iter().enumerate() {
        for b in &kiln.buffers[i + 1..] {
            let together = a.start <= b.end && b.start <= a.end;
            let apart = a.offset + a.bytes <= b.offset || b.offset + b.bytes <= a.offset;
            assert!(
                !together || apart || a.bytes == 0 || b.bytes == 0,
                "{model}: buffers overlap"
            );
        }
    }
    // Every stored entry lives from its writer's step to its last reader's step, and
    // in-place chains follow the operators' in-place pairs.
    let step_of: HashMap<_, _> = kiln
        .steps
        .iter()
        .enumerate()
        .flat_map(|(s, ns)| ns.iter().map(move |&n| (n, s)))
        .collect();
    for buf in &kiln.buffers {
        for (k, e) in buf.entries.iter().enumerate() {
            assert!(
                buf.start <= step_of[&e.node],
                "{model}: stored before written"
            );
            for c in g.consumers(e.node) {
                if g.node(c).inputs.contains(e)
                    && buf.entries.get(k + 1).is_none_or(|next| next.node != c)
                {
                    assert!(
                        step_of[&c] <= buf.end,
                        "{model}: freed before its reader runs"
                    );
                }
            }
            if let Some(next) = buf.entries.get(k + 1) {
                let n = g.node(next.node);
                let pairs = n.op.map_or(&[][..], |op| op.inplace);
                assert!(
                    pairs
                        .iter()
                        .any(|&(i, o)| o == next.index && n.inputs.get(i) == Some(e)),
                    "{model}: in-place where {} does not allow it",
                    n.op_name()
                );
            }
        }
    }
    kiln.clone()
}

#[test]
fn plans_are_valid_on_every_zoo_model() {
    for info in kiln::models::zoo() {
        let sym = info.build().unwrap();
        let (out, _) = Pipeline::inference().run(&sym.to_graph().unwrap()).unwrap();
        let mut shape = info.input_shape.to_vec();
        shape[0] = 2;
        check(&out.graph, &HashSet::new(), &shape, info.name);
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
        let reqs: HashMap<String, GradReq> = sym
            .list_arguments()
            .into_iter()
            .filter(|n| n != "data" && !n.ends_with("label"))
            .map(|n| (n, GradReq::Write))
            .collect();
        let tg = differentiate(&sym.to_graph().unwrap(), &reqs, true).unwrap();
        let (out, _) = Pipeline::standard().run(&tg.graph).unwrap();
        let external: HashSet<Entry> = out.graph.heads[tg.num_outputs..].iter().copied().collect();
        let mut shape = info.input_shape.to_vec();
        shape[0] = 2;
        check(&out.graph, &external, &shape, name);
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
