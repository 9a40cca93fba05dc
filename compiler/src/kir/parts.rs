//! A graph cut into what a backend runs: each fusion group's nodes split into parts that
//! lower to kernels together, and nodes that run alone. Shared by the JIT executor and
//! the `network!` macro's ahead-of-time code, so both run the same kernels.

use super::group::{contraction_of, from_group, Lowered};
use crate::graph::{Entry, Graph, NodeId};
use crate::infer::Inferred;
use crate::passes::Fusion;
use std::collections::BTreeSet;

/// One piece of work.
pub enum Part {
    /// A node on its own kernel (native or reference): a library call without a
    /// contraction for every output, or a node of a group that did not lower.
    Node(NodeId),
    /// Nodes lowered together, named `name`.
    Fused {
        name: String,
        nodes: Vec<NodeId>,
        kernels: Vec<Lowered>,
    },
}

/// The parts of `g`'s fusion groups (`fusion`), in group order: within a group, library nodes alone,
/// the rest split by (forward or backward — ids from `forward_nodes` on are backward —,
/// after a library node of the group or not), so each part's kernel needs only values
/// computed before it starts.
pub fn parts(g: &Graph, inferred: &Inferred, fusion: &Fusion, forward_nodes: usize) -> Vec<Part> {
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
                    && (0..inferred.shapes[id.index()].len()).any(|index| {
                        contraction_of(g, inferred, Entry { node: id, index }).is_err()
                    })
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
                Err(_) => out.extend(nodes.into_iter().map(Part::Node)),
            }
        }
    }
    out
}
