//! Inference in parts of the batch: an inference program runs the prefix of its graph
//! whose operators compute every sample on its own a few samples at a time, so the
//! prefix's values take a few samples' memory instead of the batch's; the rest of the
//! graph then runs once on the whole batch.
//!
//! Parts run where the programs compiled in parts hold less internal memory than the
//! program of the whole batch: element-wise work fused into kernels that write their
//! outputs holds nothing in either, and parts would add the arrays they pass through.
//!
//! The prefix is where memory goes in a convolutional network — its first layers hold the
//! largest activations — and where a part costs nothing: its products already run image
//! by image ([`super::Stream`]). It ends at the first node that is not per sample
//! ([`kiln_ops::PerSample`]; element-wise operators and reductions keeping the first axis
//! are, by their computation) or that is not a convolution and whose other inputs
//! (weights) outweigh the samples of a part: run in parts, such a node would read its
//! weights once per part instead of once (a fully-connected layer).
//!
//! The program is then two programs: the prefix, compiled for `rows` samples, and the
//! rest (the returned [`Program`] itself), compiled for the batch, whose variables include
//! the values the prefix hands on. An executor copies each part's rows of the batch inputs
//! into the prefix's inputs, runs the prefix and copies its outputs into the rows of
//! whole-batch arrays ([`Prefix::handed`]), `parts` times, then runs the rest; both share
//! one arena. Training programs run whole (BatchNorm's batch statistics and the backward
//! pass read the batch), as do code generators that do not know their threads
//! (`network!`, [`Target::parts`] `None`).

use super::{finish, mb, Parts, Program, Spec, Target};
use crate::error::Result;
use crate::graph::{Entry, Graph, NodeId};
use crate::infer::{infer, Inferred};
use crate::node::{NodeData, Provenance};
use kiln_ops::shape::{fmt_shape, size};
use kiln_ops::{Compute, DType, Shape};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The per-sample prefix of an inference program, run in parts of the batch.
pub struct Prefix {
    /// The prefix, compiled for `rows` samples; its outputs are the handed values.
    pub program: Program,
    /// Samples per part.
    pub rows: usize,
    /// Parts of the batch: it holds `rows × parts` samples.
    pub parts: usize,
    /// The prefix's inputs that carry the batch, by name: each part copies its rows of the
    /// bound array into the prefix's own (of `rows` samples).
    pub inputs: Vec<String>,
    /// The values the prefix hands on, one per prefix output in order, as the names of
    /// the rest's variables: whole-batch arrays each part copies its rows into.
    pub handed: Vec<String>,
}

impl Prefix {
    /// Bytes of the arrays the parts pass through beside the two layouts: the prefix's
    /// copies of its inputs and its outputs (`rows` samples each), and the whole-batch
    /// handed arrays that are not outputs of `rest`.
    pub fn staging_bytes(&self, rest: &Program) -> usize {
        let p = &self.program;
        let variable =
            |g: &Graph, name: &String| g.variable(name).map(|node| Entry { node, index: 0 });
        let inputs: usize = (self.inputs.iter())
            .filter_map(|n| variable(p.graph(), n))
            .map(|e| bytes(&p.inferred, e))
            .sum();
        let outputs: usize = p.graph().heads.iter().map(|&e| bytes(&p.inferred, e)).sum();
        let rest_outputs = &rest.graph().heads[..rest.training.num_outputs];
        let handed: usize = (self.handed.iter())
            .filter_map(|n| variable(rest.graph(), n))
            .filter(|e| !rest_outputs.contains(e))
            .map(|e| bytes(&rest.inferred, e))
            .sum();
        inputs + outputs + handed
    }
}

/// The samples per part for `rows` wanted and a batch: the largest divisor of the batch
/// not above `rows` (parts are equal).
fn rows_for(batch: usize, rows: usize) -> usize {
    (1..=rows.min(batch))
        .rev()
        .find(|r| batch.is_multiple_of(*r))
        .unwrap_or(1)
}

/// The graph cut after its per-sample prefix.
struct Split {
    prefix: Graph,
    rest: Graph,
    /// Batch inputs the prefix reads.
    inputs: Vec<String>,
    /// The handed values: the rest's variable name and the entry of the whole graph.
    handed: Vec<(String, Entry)>,
}

/// Compiles an inference graph after its passes, its per-sample prefix in parts of at
/// most `rows` samples where it has one and the programs in parts hold less memory than
/// the whole batch's program (see the module doc), else whole.
pub(super) fn compile_in_parts(
    forward: Graph,
    shapes: &HashMap<String, Shape>,
    dtypes: &HashMap<String, DType>,
    spec: &Spec,
    rows: usize,
) -> Result<Program> {
    let batch_inputs = &spec.batch_inputs;
    let batch = (batch_inputs.iter())
        .filter_map(|n| shapes.get(n).and_then(|s| s.first().copied()))
        .collect::<HashSet<_>>();
    let (Some(&batch), 1) = (batch.iter().next(), batch.len()) else {
        return finish(forward, shapes, dtypes, spec, batch_inputs);
    };
    let rows = rows_for(batch, rows);
    let inferred = infer(&forward, shapes, dtypes)?;
    let carrying = carrying_variables(&forward, shapes, dtypes, batch_inputs, batch);
    let split = match (rows < batch)
        .then_some(carrying)
        .flatten()
        .and_then(|carrying| split(&forward, &inferred, &carrying, batch, rows))
    {
        Some(split) => split,
        None => return finish(forward, shapes, dtypes, spec, batch_inputs),
    };
    let mut prefix_shapes = shapes.clone();
    for name in &split.inputs {
        if let Some(s) = prefix_shapes.get_mut(name) {
            s[0] = rows;
        }
    }
    let prefix_spec = Spec {
        target: Target {
            parts: None,
            ..spec.target.clone()
        },
        ..spec.clone()
    };
    let prefix = finish(
        split.prefix,
        &prefix_shapes,
        dtypes,
        &prefix_spec,
        &split.inputs,
    );
    // Every handed value must be a part of the whole one: the batch's first axis in
    // `rows`, the rest of its shape the same.
    let mismatch = |p: &Program| {
        (split.handed.iter().zip(&p.graph().heads)).find_map(|((name, whole), &part)| {
            let (whole, part) = (inferred.shape(*whole), p.inferred.shape(part));
            let fits = part.first() == Some(&rows) && part[1..] == whole[1..];
            (!fits).then(|| {
                format!(
                    "`{name}` is {} for {rows} samples but {} for the batch",
                    fmt_shape(part),
                    fmt_shape(whole)
                )
            })
        })
    };
    let prefix = match prefix {
        Ok(p) => match mismatch(&p) {
            None => p,
            Some(why) => return declined(forward, shapes, dtypes, spec, why),
        },
        Err(e) => return declined(forward, shapes, dtypes, spec, e.to_string()),
    };
    let (mut rest_shapes, mut rest_dtypes) = (shapes.clone(), dtypes.clone());
    let mut rest_batch = batch_inputs.clone();
    for (name, e) in &split.handed {
        rest_shapes.insert(name.clone(), inferred.shape(*e).clone());
        if let Some(d) = inferred.dtype(*e) {
            rest_dtypes.insert(name.clone(), d);
        }
        rest_batch.push(name.clone());
    }
    let mut rest = finish(split.rest, &rest_shapes, &rest_dtypes, spec, &rest_batch)?;
    rest.parts = Parts::Prefix(Box::new(Prefix {
        program: prefix,
        rows,
        parts: batch / rows,
        inputs: split.inputs,
        handed: split.handed.into_iter().map(|(name, _)| name).collect(),
    }));
    // The estimate above sees the graph, not what fusion keeps out of memory: parts run
    // only where the compiled programs hold less than the whole batch's.
    let mut whole = finish(forward, shapes, dtypes, spec, batch_inputs)?;
    let (parts, once) = (rest.internal_bytes(), whole.internal_bytes());
    if parts < once {
        return Ok(rest);
    }
    whole.parts = Parts::Declined(format!(
        "in parts of {rows} it would hold {:.2} MB, whole {:.2} MB",
        mb(parts),
        mb(once)
    ));
    Ok(whole)
}

/// The whole graph at once, saying why its prefix does not run in parts.
fn declined(
    forward: Graph,
    shapes: &HashMap<String, Shape>,
    dtypes: &HashMap<String, DType>,
    spec: &Spec,
    why: String,
) -> Result<Program> {
    let mut p = finish(forward, shapes, dtypes, spec, &spec.batch_inputs)?;
    p.parts = Parts::Declined(why);
    Ok(p)
}

/// The variables whose first axis is the batch: the batch inputs and those inferred from
/// them (a label shaped by its loss), found as the variables whose first axis grows with
/// the batch inputs' and nothing else; `None` where a shape changes otherwise.
fn carrying_variables(
    g: &Graph,
    shapes: &HashMap<String, Shape>,
    dtypes: &HashMap<String, DType>,
    batch_inputs: &[String],
    batch: usize,
) -> Option<HashSet<String>> {
    let (mut given, mut grown) = (HashMap::new(), HashMap::new());
    for name in batch_inputs {
        let s = shapes.get(name)?;
        given.insert(name.clone(), s.clone());
        let mut s = s.clone();
        s[0] = batch + 1;
        grown.insert(name.clone(), s);
    }
    let (at, next) = (
        infer(g, &given, dtypes).ok()?,
        infer(g, &grown, dtypes).ok()?,
    );
    let mut carrying = HashSet::new();
    for id in g.node_ids().filter(|&id| g.node(id).is_variable()) {
        let e = Entry { node: id, index: 0 };
        let (a, b) = (at.shape(e), next.shape(e));
        if a == b {
            continue;
        }
        if a.first() != Some(&batch) || b.first() != Some(&(batch + 1)) || a[1..] != b[1..] {
            return None;
        }
        carrying.insert(g.node(id).name.clone());
    }
    Some(carrying)
}

/// Cuts `g` after its per-sample prefix for parts of `rows` samples, given the variables
/// that carry the batch; `None` where the prefix computes nothing or would save nothing.
fn split(
    g: &Graph,
    inferred: &Inferred,
    batch_inputs: &HashSet<String>,
    batch: usize,
    rows: usize,
) -> Option<Split> {
    let mut read: HashSet<Entry> = g.heads.iter().copied().collect();
    for id in g.node_ids() {
        read.extend(g.node(id).inputs.iter().copied());
    }
    // `carries`: the node's values depend on the batch inputs; `inside`: it is in the
    // prefix (with its batch-carrying inputs).
    let (mut carries, mut inside) = (vec![false; g.len()], vec![false; g.len()]);
    for id in g.node_ids() {
        let (node, i) = (g.node(id), id.index());
        if node.is_variable() {
            let e = Entry { node: id, index: 0 };
            carries[i] =
                batch_inputs.contains(&node.name) && inferred.shape(e).first() == Some(&batch);
            inside[i] = carries[i];
            continue;
        }
        let carrying: Vec<bool> = (node.inputs.iter())
            .map(|e| carries[e.node.index()])
            .collect();
        if !carrying.contains(&true) {
            continue;
        }
        carries[i] = true;
        inside[i] = (node.inputs.iter().zip(&carrying)).all(|(e, &c)| !c || inside[e.node.index()])
            && per_sample(g, inferred, id, &carrying, &read, batch)
            && (node.op.is_some_and(|op| op.convolution.is_some())
                || light_weights(inferred, &node.inputs, &carrying, batch, rows));
    }
    let computes = |id: NodeId| inside[id.index()] && !g.node(id).is_variable();
    // Handed on: what the prefix computes that a node after it or a head reads.
    let mut handed: Vec<Entry> = Vec::new();
    for id in g.node_ids().filter(|&id| !inside[id.index()]) {
        handed.extend(g.node(id).inputs.iter().filter(|e| computes(e.node)));
    }
    handed.extend(g.heads.iter().filter(|e| computes(e.node)));
    let mut seen = HashSet::new();
    handed.retain(|e| seen.insert(*e));
    // Parts pay where the prefix's largest step (its values, not the variables it reads)
    // outweighs the whole-batch arrays they hand on: the whole batch needs the former,
    // parts a part of it and the latter. (In u128: sizes from a user's shapes, times the
    // batch, need not fit a usize.)
    let bytes = |e: &Entry| bytes(inferred, *e) as u128;
    let largest_step = (g.node_ids().filter(|&id| computes(id)))
        .map(|id| {
            let node = g.node(id);
            let ins = node.inputs.iter().filter(|e| computes(e.node));
            let outs = (0..node.num_outputs()).map(|index| Entry { node: id, index });
            ins.map(bytes).sum::<u128>() + outs.map(|e| bytes(&e)).sum::<u128>()
        })
        .max()
        .unwrap_or(0);
    let handed_bytes: u128 = handed.iter().map(bytes).sum();
    let (batch, rows) = (batch as u128, rows as u128);
    if handed.is_empty() || largest_step * (batch - rows) <= handed_bytes * batch {
        return None;
    }
    let taken: HashSet<&str> = g.node_ids().map(|id| g.node(id).name.as_str()).collect();
    let named: Vec<(String, Entry)> = (handed.iter())
        .map(|&e| {
            let base = g.entry_name(e);
            let name = (0..)
                .map(|k| match k {
                    0 => base.clone(),
                    k => format!("{base}_{k}"),
                })
                .find(|n| !taken.contains(n.as_str()))
                .unwrap_or(base);
            (name, e)
        })
        .collect();
    let prefix = copy(g, &needed(g, &handed, &HashSet::new()), &[], &handed);
    let cut: HashSet<Entry> = handed.iter().copied().collect();
    let rest = copy(g, &needed(g, &g.heads, &cut), &named, &g.heads);
    let inputs = (prefix.node_ids())
        .map(|id| prefix.node(id))
        .filter(|n| n.is_variable() && batch_inputs.contains(&n.name))
        .map(|n| n.name.clone())
        .collect();
    Some(Split {
        prefix,
        rest,
        inputs,
        handed: named,
    })
}

/// Whether node `id` computes each sample on its own: its batch-carrying inputs and
/// visible outputs have the batch first, its hidden outputs go unread, and its operator
/// is per sample — by its computation (element-wise, broadcasting only the other inputs;
/// a reduction keeping the first axis) or by its declaration.
fn per_sample(
    g: &Graph,
    inferred: &Inferred,
    id: NodeId,
    carrying: &[bool],
    read: &HashSet<Entry>,
    batch: usize,
) -> bool {
    let node = g.node(id);
    let (Some(op), Some(attrs)) = (node.op, node.params.as_ref()) else {
        return false;
    };
    let ins: Vec<Shape> = (node.inputs.iter())
        .map(|&e| inferred.shape(e).clone())
        .collect();
    let outs = &inferred.shapes[id.index()];
    let visible = op.output_names(attrs).1.min(outs.len());
    let batch_first = |s: &Shape| s.first() == Some(&batch);
    let hidden_read = (visible..outs.len()).any(|index| read.contains(&Entry { node: id, index }));
    if hidden_read
        || !outs[..visible].iter().all(batch_first)
        || !(ins.iter().zip(carrying)).all(|(s, &c)| !c || batch_first(s))
    {
        return false;
    }
    match op.compute {
        Compute::Scalar(_) if !op.side_effect => {
            let rank = outs[0].len();
            (ins.iter().zip(carrying)).all(|(s, &c)| {
                if c {
                    s.len() == rank
                } else {
                    s.len() < rank || s[0] == 1
                }
            })
        }
        Compute::Reduce(reduction) if !op.side_effect => {
            carrying == [true]
                && reduction(attrs, &ins[0], &outs[0]).is_ok_and(|r| !r.axes.contains(&0))
        }
        _ => op.per_sample.holds(attrs, &ins, outs),
    }
}

/// Whether a node's inputs that do not carry the batch (weights) are no larger than a
/// part's samples of the ones that do: run in parts, it reads them once per part.
/// (A convolution reads its filters for every image anyway: its products stream.)
fn light_weights(
    inferred: &Inferred,
    inputs: &[Entry],
    carrying: &[bool],
    batch: usize,
    rows: usize,
) -> bool {
    let (mut weights, mut samples) = (0, 0);
    for (&e, &c) in inputs.iter().zip(carrying) {
        match c {
            true => samples += bytes(inferred, e),
            false => weights += bytes(inferred, e),
        }
    }
    weights <= rows * (samples / batch).max(1)
}

fn bytes(inferred: &Inferred, e: Entry) -> usize {
    size(inferred.shape(e)) * inferred.dtype(e).unwrap_or(DType::F32).size()
}

/// Which nodes `from` needs: walking inputs back from them, not past `cut`.
fn needed(g: &Graph, from: &[Entry], cut: &HashSet<Entry>) -> Vec<bool> {
    let mut need = vec![false; g.len()];
    let mut stack: Vec<NodeId> = (from.iter())
        .filter(|e| !cut.contains(e))
        .map(|e| e.node)
        .collect();
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut need[id.index()], true) {
            continue;
        }
        let inputs = g.node(id).inputs.iter().filter(|e| !cut.contains(e));
        stack.extend(inputs.map(|e| e.node).filter(|n| !need[n.index()]));
    }
    need
}

/// A graph of the `need`ed nodes of `g` (in their order), with each of `handed` a new
/// variable of its name, and `heads` as its heads.
fn copy(g: &Graph, need: &[bool], handed: &[(String, Entry)], heads: &[Entry]) -> Graph {
    let mut out = Graph::default();
    let mut map: HashMap<Entry, Entry> = HashMap::new();
    for (name, e) in handed {
        let data = NodeData::variable(name.clone(), BTreeMap::new(), Provenance::Generated);
        let node = out.add_node(data, vec![]);
        map.insert(*e, Entry { node, index: 0 });
    }
    for id in g.node_ids().filter(|id| need[id.index()]) {
        let node = g.node(id);
        let inputs = node.inputs.iter().map(|e| map[e]).collect();
        let new = out.add_node(node.data.clone(), inputs);
        for index in 0..node.num_outputs() {
            map.insert(Entry { node: id, index }, Entry { node: new, index });
        }
        if let Some(c) = g.constants.get(&id) {
            out.constants.insert(new, c.clone());
        }
    }
    out.heads = heads.iter().map(|e| map[e]).collect();
    out
}
