//! Recomputation in backward (MXNet's "mirror"), on by default in training programs: a
//! forward value the backward pass reads is computed again just before its first backward
//! reader, where that is cheap, so the forward value dies as soon as the forward pass is
//! done with it. Cheap: an element-wise operator of a few operations per element, a data
//! movement (concatenation, reshape), or an operator declaring how to rebuild its output
//! from its inputs and other outputs ([`kiln_ops::OpDef::recompute`]: BatchNorm in
//! training, from the batch statistics it output).
//!
//! A recomputation reads only values the backward pass keeps anyway (a convolution's
//! output, which BatchNorm's gradient reads; the statistics), variables, or other
//! recomputations, at most [`MAX_DEPTH`] deep — so a chain through a network (each residual
//! block's output from the previous one's) never makes the backward pass recompute, and
//! hold, the whole forward pass at once. It trades FLOPs ([`MirrorOutput::flops`], by the
//! operators' costs) for memory: in a convolutional network with BatchNorm, the activated
//! values (half of what training keeps) become a scale, shift and activation per layer.

use super::{PassOutput, Rebuild};
use crate::autodiff::Builder;
use crate::error::Result;
use crate::graph::{Entry, Graph, NodeId};
use crate::infer::Inferred;
use crate::node::Provenance;
use kiln_ops::{Compute, ExpandCtx, Handle, Pattern, Shape};
use std::collections::{HashMap, HashSet};

/// Element-wise operators of at most this many arithmetic operations per element are
/// recomputed.
const CHEAP_FLOPS: u64 = 4;

/// Recomputations read recomputed values at most this deep (BatchNorm, a residual sum,
/// an activation).
pub const MAX_DEPTH: usize = 3;

pub struct MirrorOutput {
    pub pass: PassOutput,
    /// Forward nodes computed again in backward.
    pub mirrored: usize,
    /// Their FLOPs per step, by their operators' costs.
    pub flops: u64,
}

/// How a forward node is computed again.
#[derive(Clone, Copy)]
enum Again {
    /// A copy of the node on its (recomputed or kept) inputs.
    Copy,
    /// Its operator's recomputation of output 0 from its inputs and other outputs.
    Recompute(kiln_ops::RecomputeFn),
}

/// Recomputes, in the backward pass of training graph `g` (forward nodes
/// `0..forward_nodes`), the cheap forward values it reads; `inferred` gives the shapes
/// and dtypes operators' recomputations need.
pub fn mirror(g: &Graph, forward_nodes: usize, inferred: &Inferred) -> Result<MirrorOutput> {
    let forward = |id: NodeId| id.index() < forward_nodes;
    let mut kept: HashSet<Entry> = HashSet::new();
    for id in g.node_ids().filter(|&id| !forward(id)) {
        kept.extend(g.node(id).inputs.iter().filter(|e| forward(e.node)));
    }
    let held = held_with_descendants(g, &forward);
    // How deep each forward node's recomputation reads recomputed values (`None`: it is
    // not recomputed).
    let mut plan: Vec<Option<(Again, usize)>> = vec![None; g.len()];
    for id in g
        .node_ids()
        .filter(|&id| forward(id) && !held.contains(&id))
    {
        let Some(again) = how(g, id) else {
            continue;
        };
        let node = g.node(id);
        // Other outputs a recomputation reads must be kept (they are not rebuilt).
        let others_kept =
            (1..node.num_outputs()).all(|index| kept.contains(&Entry { node: id, index }));
        if matches!(again, Again::Recompute(_)) && !others_kept {
            continue;
        }
        let depth = node.inputs.iter().try_fold(0, |deepest, e| {
            let d = match plan[e.node.index()] {
                Some((_, d)) => d,
                None if g.node(e.node).is_variable() || kept.contains(e) => 0,
                None => return None,
            };
            Some(deepest.max(d))
        });
        if let Some(d) = depth.map(|d| d + 1).filter(|&d| d <= MAX_DEPTH) {
            plan[id.index()] = Some((again, d));
        }
    }
    let mut m = Mirror {
        g,
        inferred,
        plan,
        r: Rebuild::new(g),
        copies: HashMap::new(),
        mirrored: 0,
        flops: 0,
    };
    for id in g.node_ids() {
        let n = g.node(id);
        if forward(id) {
            m.r.copy(id);
            continue;
        }
        let inputs = (n.inputs.iter())
            .map(|&e| m.value(e))
            .collect::<Result<Vec<_>>>()?;
        m.r.add(id, n.data.clone(), inputs);
    }
    Ok(MirrorOutput {
        pass: m.r.finish(),
        mirrored: m.mirrored,
        flops: m.flops,
    })
}

/// The forward nodes a backward node reads together with a forward value computed from
/// them (max pooling's gradient reads its input and its output, and finds the maximum by
/// equality): recomputed, such a value could differ in its last bits from the one its
/// descendant was computed from, so it is kept.
fn held_with_descendants(g: &Graph, forward: &dyn Fn(NodeId) -> bool) -> HashSet<NodeId> {
    let mut held = HashSet::new();
    for id in g.node_ids().filter(|&id| !forward(id)) {
        let read: Vec<NodeId> = (g.node(id).inputs.iter())
            .map(|e| e.node)
            .filter(|&n| forward(n) && !g.node(n).is_variable())
            .collect();
        for &ancestor in &read {
            if read
                .iter()
                .any(|&d| d != ancestor && descends(g, d, ancestor))
            {
                held.insert(ancestor);
            }
        }
    }
    held
}

/// Whether forward node `d` is computed from `ancestor` (indices are topological, so the
/// walk stops below it).
fn descends(g: &Graph, d: NodeId, ancestor: NodeId) -> bool {
    let (mut stack, mut seen) = (vec![d], HashSet::new());
    while let Some(n) = stack.pop() {
        if n == ancestor {
            return true;
        }
        if n.index() > ancestor.index() && seen.insert(n) {
            stack.extend(g.node(n).inputs.iter().map(|e| e.node));
        }
    }
    false
}

/// Whether and how forward node `id` may be computed again: it has no side effect and one
/// output, and is cheap (see the module doc).
fn how(g: &Graph, id: NodeId) -> Option<Again> {
    let n = g.node(id);
    let (op, params) = (n.op?, n.params.as_ref()?);
    if op.side_effect {
        return None;
    }
    if let Some(f) = op.recompute {
        return Some(Again::Recompute(f));
    }
    let cheap = match op.compute {
        Compute::Scalar(f) => op.pattern == Pattern::ElemWise && f(params).flops() <= CHEAP_FLOPS,
        Compute::Injective(_) => true,
        Compute::Reduce(_) | Compute::Library { .. } => false,
    };
    (cheap && n.num_outputs() == 1).then_some(Again::Copy)
}

/// The rebuild of a training graph with recomputations.
struct Mirror<'g> {
    g: &'g Graph,
    inferred: &'g Inferred,
    plan: Vec<Option<(Again, usize)>>,
    r: Rebuild<'g>,
    /// The recomputed value of each forward entry recomputed so far.
    copies: HashMap<Entry, Entry>,
    mirrored: usize,
    flops: u64,
}

impl Mirror<'_> {
    /// What a backward node reads for forward entry `e`: its recomputation where it is
    /// recomputed, else the value itself.
    fn value(&mut self, e: Entry) -> Result<Entry> {
        match self.plan[e.node.index()] {
            Some((again @ Again::Copy, _)) => self.again(e, again),
            // Only the first output is rebuilt; the others are kept.
            Some((again @ Again::Recompute(_), _)) if e.index == 0 => self.again(e, again),
            _ => Ok(self.r.get(e).expect("inputs come first")),
        }
    }

    /// Entry `e` computed again (once; recursion is at most [`MAX_DEPTH`] deep).
    fn again(&mut self, e: Entry, again: Again) -> Result<Entry> {
        if let Some(&c) = self.copies.get(&e) {
            return Ok(c);
        }
        let (g, id) = (self.g, e.node);
        let src = g.node(id);
        let args = (src.inputs.iter())
            .map(|&i| self.value(i))
            .collect::<Result<Vec<_>>>()?;
        let copy = match again {
            Again::Copy => {
                let mut data = src.data.clone();
                data.name = format!("{}_mirror", src.name);
                data.provenance = Provenance::Gradient {
                    of: src.name.clone(),
                };
                Entry {
                    node: self.r.new.add_node(data, args),
                    index: 0,
                }
            }
            Again::Recompute(f) => {
                let others: Vec<Entry> = (1..src.num_outputs())
                    .map(|index| self.r.get(Entry { node: id, index }).expect("copied"))
                    .collect();
                let shapes: Vec<Shape> = src
                    .inputs
                    .iter()
                    .map(|&i| self.inferred.shape(i).clone())
                    .collect();
                let dtypes: Vec<_> = src.inputs.iter().map(|&i| self.inferred.dtype(i)).collect();
                let ctx = ExpandCtx {
                    training: true,
                    shapes: &shapes,
                    dtypes: &dtypes,
                };
                let params = src.params.as_ref().expect("an operator node");
                let mut b = Builder::mirror(&mut self.r.new, &src.name);
                let ins: Vec<Handle> = args.iter().map(|&a| b.handle(a)).collect();
                let outs: Vec<Handle> = others.iter().map(|&o| b.handle(o)).collect();
                match f(&mut b, params, &ins, &outs, &ctx) {
                    Ok(h) => b.entry(h),
                    // It declined before adding a node: the forward value is read.
                    Err(_) => return Ok(self.r.get(e).expect("copied")),
                }
            }
        };
        let ins: Vec<Shape> = src
            .inputs
            .iter()
            .map(|&i| self.inferred.shape(i).clone())
            .collect();
        let outs = &self.inferred.shapes[id.index()];
        if let (Some(op), Some(params)) = (src.op, &src.params) {
            self.flops += (op.cost)(params, &ins, outs);
        }
        self.mirrored += 1;
        self.copies.insert(e, copy);
        Ok(copy)
    }
}
