//! Duplication of cheap producers: an element-wise operator of a few arithmetic operations
//! whose result feeds several consumers that could each absorb it (element-wise,
//! broadcast, injective or reduction kernels) is recomputed inside each of them instead of
//! being written to memory and read back.

use super::{Pass, PassOutput, Rebuild};
use crate::error::Result;
use crate::graph::{Entry, Graph, NodeId};
use kiln_ops::{Compute, Pattern};
use std::collections::HashMap;

/// Producers up to this many arithmetic operations per element are worth recomputing.
const CHEAP_FLOPS: u64 = 4;

pub struct DuplicateCheap;

fn duplicable(g: &Graph, id: NodeId) -> bool {
    let n = g.node(id);
    let Some(op) = n.op else { return false };
    let cheap = match op.compute {
        Compute::Scalar(f) => {
            op.pattern == Pattern::ElemWise
                && f(n.params.as_ref().expect("parsed")).flops() <= CHEAP_FLOPS
        }
        _ => false,
    };
    let consumers = g.consumers(id);
    cheap
        && !op.side_effect
        && n.num_outputs() == 1
        && consumers.len() > 1
        && !g.heads.iter().any(|e| e.node == id)
        && consumers
            .iter()
            .all(|&c| g.node(c).op.is_some_and(|op| op.pattern <= Pattern::Reduce))
}

impl Pass for DuplicateCheap {
    fn name(&self) -> &'static str {
        "duplicate_cheap"
    }

    fn run(&self, g: &Graph) -> Result<PassOutput> {
        let mut r = Rebuild::new(g);
        // A copy reads its producer's inputs, so those must exist: a cheap producer of a
        // cheap producer stays materialized.
        let mut dup = vec![false; g.len()];
        for id in g.node_ids() {
            dup[id.index()] =
                duplicable(g, id) && g.node(id).inputs.iter().all(|e| !dup[e.node.index()]);
        }
        // The first copy stands for the original in the entry map.
        let mut first_copy: HashMap<NodeId, Entry> = HashMap::new();
        for id in g.node_ids() {
            if dup[id.index()] {
                continue;
            }
            let n = g.node(id);
            let mut inputs = Vec::with_capacity(n.inputs.len());
            for &e in &n.inputs {
                if dup[e.node.index()] {
                    // A private copy of the cheap producer for this consumer.
                    let src = g.node(e.node);
                    let args = src
                        .inputs
                        .iter()
                        .map(|&i| r.get(i).expect("inputs come first"))
                        .collect();
                    let mut data = src.data.clone();
                    data.name = format!("{}_dup{}", src.name, id.index());
                    let copy = Entry {
                        node: r.new.add_node(data, args),
                        index: 0,
                    };
                    first_copy.entry(e.node).or_insert(copy);
                    inputs.push(copy);
                } else {
                    inputs.push(r.get(e).expect("inputs come first"));
                }
            }
            r.add(id, n.data.clone(), inputs);
        }
        for (node, copy) in first_copy {
            r.alias(node, 0, copy);
        }
        Ok(r.finish())
    }
}
