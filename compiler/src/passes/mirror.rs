//! Recomputation in backward (MXNet's "mirror", off by default): a cheap element-wise
//! forward node whose result the backward pass reads is computed again just before its
//! first backward reader, so the forward result can die as soon as the forward pass is done
//! with it. It trades FLOPs (reported as [`MirrorOutput::extra_flops`]) for memory, and only
//! pays when the node's inputs are kept for backward anyway.

use super::{PassOutput, Rebuild};
use crate::error::Result;
use crate::graph::{Entry, Graph, NodeId};
use crate::node::Provenance;
use kiln_ops::{Compute, Pattern};
use std::collections::HashMap;

/// Nodes of at most this many arithmetic operations per element are recomputed.
const CHEAP_FLOPS: u64 = 4;

pub struct MirrorOutput {
    pub pass: PassOutput,
    /// The recomputed nodes' FLOPs (per step), given element counts per node.
    pub extra_flops: u64,
    pub mirrored: usize,
}

fn is_backward(g: &Graph, id: NodeId) -> bool {
    matches!(g.node(id).provenance, Provenance::Gradient { .. })
}

/// Mirrors cheap forward nodes of a training graph; `elements` gives each node's output
/// size, for the FLOP count.
pub fn mirror(g: &Graph, elements: impl Fn(NodeId) -> u64) -> Result<MirrorOutput> {
    let cheap = |id: NodeId| {
        let n = g.node(id);
        n.op.is_some_and(|op| {
            !op.side_effect
                && op.pattern == Pattern::ElemWise
                && n.num_outputs() == 1
                && matches!(op.compute, Compute::Scalar(f) if f(n.params.as_ref().expect("parsed")).flops() <= CHEAP_FLOPS)
        })
    };
    let candidates: Vec<bool> = g
        .node_ids()
        .map(|id| {
            !is_backward(g, id) && cheap(id) && g.consumers(id).iter().any(|&c| is_backward(g, c))
        })
        .collect();
    let mut r = Rebuild::new(g);
    let mut copies: HashMap<NodeId, Entry> = HashMap::new();
    let (mut extra_flops, mut mirrored) = (0, 0);
    for id in g.node_ids() {
        let n = g.node(id);
        if !is_backward(g, id) {
            r.copy(id);
            continue;
        }
        let mut inputs = Vec::with_capacity(n.inputs.len());
        for &e in &n.inputs {
            if !candidates[e.node.index()] {
                inputs.push(r.get(e).expect("inputs come first"));
                continue;
            }
            let copy = *copies.entry(e.node).or_insert_with(|| {
                let src = g.node(e.node);
                let args = src
                    .inputs
                    .iter()
                    .map(|&i| r.get(i).expect("inputs come first"))
                    .collect();
                let mut data = src.data.clone();
                data.name = format!("{}_mirror", src.name);
                data.provenance = Provenance::Gradient {
                    of: src.name.clone(),
                };
                extra_flops += elements(e.node)
                    * src.op.map_or(1, |op| match op.compute {
                        Compute::Scalar(f) => {
                            f(src.params.as_ref().expect("parsed")).flops().max(1)
                        }
                        _ => 1,
                    });
                mirrored += 1;
                Entry {
                    node: r.new.add_node(data, args),
                    index: 0,
                }
            });
            inputs.push(copy);
        }
        r.add(id, n.data.clone(), inputs);
    }
    Ok(MirrorOutput {
        pass: r.finish(),
        extra_flops,
        mirrored,
    })
}
