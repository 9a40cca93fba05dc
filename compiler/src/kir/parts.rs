//! A graph cut into what a backend runs: each fusion group's nodes split into parts that
//! lower to kernels together, and nodes that run alone. The program's steps are made
//! from them (`program::compile`), so every consumer runs the same kernels.

use super::error::KirError;
use super::group::{contraction_of, from_group, Lowered};
use crate::graph::{Entry, Graph, NodeId};
use crate::infer::Inferred;
use crate::passes::Fusion;
use std::collections::BTreeSet;

/// One piece of work.
pub enum Part {
    /// A library call on its own kernel: its native one, or where it has no contraction
    /// for every output, its reference one.
    Node(NodeId),
    /// Nodes that did not lower together, each then on its own kernel.
    Unlowered(Unlowered),
    /// Nodes lowered together, named `name`.
    Fused {
        name: String,
        nodes: Vec<NodeId>,
        kernels: Vec<Lowered>,
    },
}

/// A part whose nodes did not lower to kernels, and why: kept so a program can say why
/// they run node by node.
#[derive(Clone, Debug)]
pub struct Unlowered {
    /// The name its kernel would have had (`g3_0`).
    pub name: String,
    pub nodes: Vec<NodeId>,
    pub reason: KirError,
}

/// Whether node `id` can run on its operator's native f32 kernel: the kernel covers its
/// attributes and input shapes, and every input and output is f32.
pub fn runs_native(g: &Graph, inferred: &Inferred, id: NodeId) -> bool {
    let n = g.node(id);
    let f32 = |e: Entry| inferred.dtype(e) == Some(kiln_ops::DType::F32);
    let outputs = 0..inferred.shapes[id.index()].len();
    match (n.op.and_then(|op| op.native), &n.params) {
        (Some(native), Some(attrs)) => {
            let shapes: Vec<Vec<usize>> = (n.inputs.iter())
                .map(|&e| inferred.shape(e).to_vec())
                .collect();
            (native.supports)(attrs, &shapes)
                && n.inputs.iter().all(|&e| f32(e))
                && outputs
                    .into_iter()
                    .all(|index| f32(Entry { node: id, index }))
        }
        _ => false,
    }
}

/// The parts of `g`'s fusion groups (`fusion`), in group order: within a group, library nodes alone,
/// the rest split by (forward or backward — ids from `forward_nodes` on are backward —,
/// after a library node of the group or not), so each part's kernel needs only values
/// computed before it starts. Where `native` (the target runs native kernels), a library
/// node that [`runs_native`] is one of them even where it has a contraction: an operator
/// has a native kernel where that beats the compiled contraction (col2im's adds along
/// rows against a gather per input element).
pub fn parts(
    g: &Graph,
    inferred: &Inferred,
    fusion: &Fusion,
    forward_nodes: usize,
    native: bool,
) -> Vec<Part> {
    let mut out = Vec::new();
    for (gi, group) in fusion.groups.iter().enumerate() {
        let mut keyed: Vec<((bool, bool), Vec<NodeId>)> = Vec::new();
        let mut after_library: BTreeSet<NodeId> = BTreeSet::new();
        let mut sorted = group.nodes.clone();
        sorted.sort();
        for &id in &sorted {
            let n = g.node(id);
            let library = n.op.is_some_and(|op| {
                matches!(op.compute, kiln_ops::Compute::Library { .. })
                    && ((native && runs_native(g, inferred, id))
                        || (0..inferred.shapes[id.index()].len()).any(|index| {
                            contraction_of(g, inferred, Entry { node: id, index }).is_err()
                        }))
            });
            if library {
                after_library.insert(id);
                out.push(Part::Node(id));
                continue;
            }
            let after = n.inputs.iter().any(|e| after_library.contains(&e.node));
            if after {
                after_library.insert(id);
            }
            let key = (id.index() >= forward_nodes, after);
            match keyed.iter_mut().find(|(k, _)| *k == key) {
                Some((_, nodes)) => nodes.push(id),
                None => keyed.push((key, vec![id])),
            }
        }
        for (pi, (_, nodes)) in keyed.into_iter().enumerate() {
            let name = format!("g{gi}_{pi}");
            match from_group(g, inferred, &nodes, &name) {
                Ok(kernels) => out.push(Part::Fused {
                    name,
                    nodes,
                    kernels,
                }),
                Err(reason) => out.push(Part::Unlowered(Unlowered {
                    name,
                    nodes,
                    reason,
                })),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::Group;
    use crate::Symbol;
    use std::collections::HashMap;

    /// A group fusion never makes (a sum over a FullyConnected: a reduction inside its
    /// contraction) does not lower; its part keeps why instead of becoming bare nodes.
    #[test]
    fn a_group_that_does_not_lower_keeps_why() {
        let fc = Symbol::op("FullyConnected")
            .args([&Symbol::var("x"), &Symbol::var("w")])
            .attr("num_hidden", "4")
            .attr("no_bias", "True")
            .build()
            .unwrap();
        let sum = Symbol::op("sum")
            .args([&fc])
            .attr("axis", "1")
            .build()
            .unwrap();
        let g = sum.to_graph().unwrap();
        let shapes = HashMap::from([("x".into(), vec![2, 3]), ("w".into(), vec![4, 3])]);
        let inferred = crate::infer::infer(&g, &shapes, &HashMap::new()).unwrap();
        let nodes: Vec<NodeId> = g
            .node_ids()
            .filter(|&id| !g.node(id).is_variable())
            .collect();
        let fusion = Fusion {
            groups: vec![Group {
                nodes: nodes.clone(),
                anchor: None,
                reason: String::new(),
            }],
            group_of: g
                .node_ids()
                .map(|id| (!g.node(id).is_variable()).then_some(0))
                .collect(),
        };
        let parts = parts(&g, &inferred, &fusion, g.node_ids().len(), true);
        let [Part::Unlowered(u)] = parts.as_slice() else {
            panic!("one unlowered part expected");
        };
        assert_eq!((u.name.as_str(), &u.nodes), ("g0_0", &nodes));
        assert!(
            matches!(&u.reason, KirError::Unlowerable { node, reason }
                if node.starts_with("FullyConnected") && reason == "a reduction inside a reduction"),
            "{}",
            u.reason
        );
    }
}
