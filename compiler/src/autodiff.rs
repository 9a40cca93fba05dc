//! Symbolic differentiation: from a graph and the arguments to differentiate, one training
//! graph holding the forward pass, the gradients and the updated aux states.
//!
//! Gradients are built backward from the heads with each operator's rule
//! ([`kiln_ops::gradient`]), so the backward pass is made of ordinary operators that every
//! backend and pass understands. Only nodes between a differentiated argument and a head
//! are differentiated; an entry used several times gets the sum of its gradients
//! (`add_n`); an argument no gradient reaches gets zeros.

use crate::error::{Error, Result};
use crate::graph::{Entry, Graph, NodeId};
use crate::node::{NodeData, Provenance};
use kiln_ops::{lookup, Attrs, GradCtx, GradGraph, Handle, OpError};
use std::collections::{BTreeMap, HashMap};

/// What happens to an argument's gradient (MXNet's `grad_req`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GradReq {
    /// Overwrite the gradient array.
    Write,
    /// Add to it (the caller zeroes it when it wants).
    Add,
    /// No gradient.
    Null,
}

impl GradReq {
    pub fn parse(s: &str) -> Result<GradReq> {
        match s {
            "write" => Ok(GradReq::Write),
            "add" => Ok(GradReq::Add),
            "null" => Ok(GradReq::Null),
            _ => Err(Error::Input(format!(
                "grad_req `{s}` is not one of write, add, null"
            ))),
        }
    }
}

/// A forward graph extended with its backward pass. `graph.heads` holds, in order, the
/// forward outputs, one gradient per entry of `grads`, and one new value per entry of
/// `aux_updates`.
#[derive(Clone, Debug)]
pub struct TrainingGraph {
    pub graph: Graph,
    /// The forward nodes come first: `graph` nodes `0..forward_nodes`.
    pub forward_nodes: usize,
    pub num_outputs: usize,
    /// Differentiated arguments (variable node, grad_req), in argument order.
    pub grads: Vec<(NodeId, GradReq)>,
    /// Aux states a training step updates (BatchNorm's moving statistics).
    pub aux_updates: Vec<NodeId>,
    /// The head-gradient variable of each forward output; `None` for loss outputs, which
    /// ignore the head gradient.
    pub head_grads: Vec<Option<NodeId>>,
}

impl TrainingGraph {
    /// This training graph with only what its heads and `keep` need.
    pub(crate) fn pruned(self, keep: &[NodeId]) -> TrainingGraph {
        let (graph, map) = self.graph.prune(keep);
        let moved = |id: NodeId| map[id.index()].expect("kept");
        TrainingGraph {
            graph,
            forward_nodes: (map[..self.forward_nodes].iter())
                .filter(|m| m.is_some())
                .count(),
            grads: self
                .grads
                .iter()
                .map(|&(id, req)| (moved(id), req))
                .collect(),
            aux_updates: self.aux_updates.iter().map(|&id| moved(id)).collect(),
            head_grads: (self.head_grads.iter())
                .map(|h| h.and_then(|id| map[id.index()]))
                .collect(),
            ..self
        }
    }

    /// This training graph after a pass over its graph that keeps the forward nodes in
    /// place: the variables it names followed to where the pass moved them.
    pub(crate) fn rebuilt(self, out: crate::passes::PassOutput) -> TrainingGraph {
        let map = &out.map;
        let node = |id: NodeId| map[id.index()][0].map_or(id, |e| e.node);
        TrainingGraph {
            grads: self.grads.iter().map(|&(id, r)| (node(id), r)).collect(),
            aux_updates: self.aux_updates.iter().map(|&id| node(id)).collect(),
            head_grads: self.head_grads.iter().map(|h| h.map(node)).collect(),
            graph: out.graph,
            ..self
        }
    }

    /// The gradient entry of the `i`-th differentiated argument.
    pub fn grad_entry(&self, i: usize) -> Entry {
        self.graph.heads[self.num_outputs + i]
    }
    /// The new-value entry of the `i`-th updated aux state.
    pub fn aux_entry(&self, i: usize) -> Entry {
        self.graph.heads[self.num_outputs + self.grads.len() + i]
    }
}

/// Adds nodes to a graph on behalf of one node: its backward nodes, the operators it
/// expands into, or its recomputation in backward.
pub(crate) struct Builder<'g> {
    graph: &'g mut Graph,
    handles: Vec<Entry>,
    of: String,
    created: usize,
    kind: Built,
}

/// What a [`Builder`] adds, which names its nodes and gives their provenance.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Built {
    Backward,
    Expansion,
    Mirror,
}

impl<'g> Builder<'g> {
    /// A builder of `of`'s expansion into other operators.
    pub(crate) fn expansion(graph: &'g mut Graph, of: &str) -> Builder<'g> {
        Builder {
            graph,
            handles: vec![],
            of: of.to_string(),
            created: 0,
            kind: Built::Expansion,
        }
    }

    /// A builder of `of`'s recomputation in backward (part of the gradient).
    pub(crate) fn mirror(graph: &'g mut Graph, of: &str) -> Builder<'g> {
        Builder {
            graph,
            handles: vec![],
            of: of.to_string(),
            created: 0,
            kind: Built::Mirror,
        }
    }

    pub(crate) fn handle(&mut self, e: Entry) -> Handle {
        self.handles.push(e);
        Handle(self.handles.len() - 1)
    }

    pub(crate) fn entry(&self, h: Handle) -> Entry {
        self.handles[h.0]
    }

    fn add(
        &mut self,
        op_name: &str,
        inputs: &[Entry],
        kv: &[(&str, &str)],
    ) -> std::result::Result<NodeId, OpError> {
        let op = lookup(op_name).ok_or_else(|| {
            OpError::Invalid(format!("gradient rule uses unknown operator `{op_name}`"))
        })?;
        let attrs: BTreeMap<String, String> = kv
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let params = Attrs::parse(op.params, &attrs)
            .map_err(|e| OpError::Invalid(format!("gradient rule: {op_name}: {e}")))?;
        let expected = op.input_names(&params).len();
        if expected != inputs.len() {
            return Err(OpError::Invalid(format!(
                "gradient rule gives {op_name} {} inputs, it takes {expected}",
                inputs.len()
            )));
        }
        let suffix = match self.kind {
            Built::Backward => "backward",
            Built::Expansion => "expanded",
            Built::Mirror => "mirror",
        };
        let name = match self.created {
            0 => format!("{}_{suffix}", self.of),
            n => format!("{}_{suffix}{n}", self.of),
        };
        self.created += 1;
        let provenance = match self.kind {
            Built::Expansion => Provenance::Generated,
            Built::Backward | Built::Mirror => Provenance::Gradient {
                of: self.of.clone(),
            },
        };
        let data = NodeData {
            op: Some(op),
            name,
            attrs,
            params: Some(params),
            provenance,
        };
        Ok(self.graph.add_node(data, inputs.to_vec()))
    }
}

impl GradGraph for Builder<'_> {
    fn op(
        &mut self,
        op: &str,
        inputs: &[Handle],
        kv: &[(&str, &str)],
    ) -> std::result::Result<Vec<Handle>, OpError> {
        let entries: Vec<Entry> = inputs.iter().map(|&h| self.entry(h)).collect();
        let id = self.add(op, &entries, kv)?;
        let n = self.graph.node(id).num_outputs();
        Ok((0..n)
            .map(|index| self.handle(Entry { node: id, index }))
            .collect())
    }
}

/// The sum of `terms` (one node `add_n` when there are several).
fn sum(graph: &mut Graph, terms: &[Entry], of: &str) -> Result<Entry> {
    match terms {
        [one] => Ok(*one),
        _ => {
            let mut b = Builder {
                graph,
                handles: vec![],
                of: format!("{of}_sum"),
                created: 0,
                kind: Built::Backward,
            };
            let n = terms.len().to_string();
            let id = b
                .add("add_n", terms, &[("num_args", &n)])
                .map_err(|e| Error::Input(e.to_string()))?;
            Ok(Entry { node: id, index: 0 })
        }
    }
}

/// A node applying `op` to one entry (zeros_like, ...).
fn unary(graph: &mut Graph, op: &str, input: Entry, of: &str) -> Result<Entry> {
    let mut b = Builder {
        graph,
        handles: vec![],
        of: of.to_string(),
        created: 0,
        kind: Built::Backward,
    };
    let id = b
        .add(op, &[input], &[])
        .map_err(|e| Error::Input(e.to_string()))?;
    Ok(Entry { node: id, index: 0 })
}

/// Differentiates `g` with respect to the arguments named in `grad_reqs` (others get no
/// gradient). Non-loss outputs get a head-gradient variable `<output>_head_grad`; with
/// `is_train`, operators with an aux update (BatchNorm) contribute new aux values.
pub fn differentiate(
    g: &Graph,
    grad_reqs: &HashMap<String, GradReq>,
    is_train: bool,
) -> Result<TrainingGraph> {
    let mut graph = g.clone();
    let forward_len = g.len();
    let wrt: Vec<(NodeId, GradReq)> = g
        .argument_ids()
        .into_iter()
        .filter_map(|id| match grad_reqs.get(&g.node(id).name) {
            Some(&req) if req != GradReq::Null => Some((id, req)),
            _ => None,
        })
        .collect();
    for name in grad_reqs.keys() {
        if g.argument_ids().iter().all(|&id| &g.node(id).name != name) {
            return Err(Error::Input(format!(
                "grad_req names `{name}`, which is not an argument"
            )));
        }
    }
    // Which nodes a differentiated argument reaches.
    let mut needs = vec![false; forward_len];
    for &(id, _) in &wrt {
        needs[id.index()] = true;
    }
    for id in g.node_ids() {
        if g.node(id).inputs.iter().any(|e| needs[e.node.index()]) {
            needs[id.index()] = true;
        }
    }
    // Head gradients: a variable per non-loss output.
    let mut pending: HashMap<Entry, Vec<Entry>> = HashMap::new();
    let mut head_grads = Vec::with_capacity(g.heads.len());
    for &head in &g.heads {
        let node = g.node(head.node);
        let is_loss = node.op.is_some_and(|op| op.loss);
        if is_loss {
            head_grads.push(None);
            continue;
        }
        let var = graph.add_node(
            NodeData::variable(
                format!("{}_head_grad", g.entry_name(head)),
                BTreeMap::new(),
                Provenance::Generated,
            ),
            vec![],
        );
        head_grads.push(Some(var));
        pending.entry(head).or_default().push(Entry {
            node: var,
            index: 0,
        });
    }
    // Backward sweep over the forward nodes.
    for id in g.node_ids().rev() {
        let node = g.node(id);
        let (Some(op), true) = (node.op, needs[id.index()]) else {
            continue;
        };
        let n_out = node.num_outputs();
        let outputs: Vec<Entry> = (0..n_out).map(|index| Entry { node: id, index }).collect();
        if outputs.iter().all(|e| !pending.contains_key(e)) && !is_loss_head(g, id) {
            continue;
        }
        let mut out_grads = Vec::with_capacity(n_out);
        for &e in &outputs {
            let grad = match pending.remove(&e) {
                Some(terms) => sum(&mut graph, &terms, &node.name)?,
                None => unary(&mut graph, "zeros_like", e, &node.name)?,
            };
            out_grads.push(grad);
        }
        let raw = param_attrs(node);
        let mut b = Builder {
            graph: &mut graph,
            handles: vec![],
            of: node.name.clone(),
            created: 0,
            kind: Built::Backward,
        };
        let inputs: Vec<Handle> = node.inputs.iter().map(|&e| b.handle(e)).collect();
        let outs: Vec<Handle> = outputs.iter().map(|&e| b.handle(e)).collect();
        let ograds: Vec<Handle> = out_grads.iter().map(|&e| b.handle(e)).collect();
        let params = node.params.as_ref().expect("operators have parsed params");
        let ctx = GradCtx {
            attrs: params,
            raw_attrs: &raw,
            inputs: &inputs,
            outputs: &outs,
            out_grads: &ograds,
        };
        let grads = kiln_ops::gradient(op, &ctx, &mut b).map_err(|e| Error::Node {
            op: op.name.into(),
            node: node.name.clone(),
            msg: format!(
                "cannot differentiate (needed for a requested gradient): {}",
                e.render(&node.input_names(), &node.output_names().0)
            ),
        })?;
        let grads: Vec<Option<Entry>> = grads.into_iter().map(|h| h.map(|h| b.entry(h))).collect();
        for (input, grad) in node.inputs.iter().zip(grads) {
            if let (Some(grad), true) = (grad, needs[input.node.index()]) {
                pending.entry(*input).or_default().push(grad);
            }
        }
    }
    let mut heads = g.heads.clone();
    for &(id, _) in &wrt {
        let e = Entry { node: id, index: 0 };
        let grad = match pending.remove(&e) {
            Some(terms) => sum(&mut graph, &terms, &g.node(id).name)?,
            None => unary(&mut graph, "zeros_like", e, &g.node(id).name)?,
        };
        heads.push(grad);
    }
    let mut aux_updates = Vec::new();
    if is_train {
        for id in g.node_ids() {
            let node = g.node(id);
            let Some((op, update)) = node.op.and_then(|op| op.aux_update.map(|u| (op, u))) else {
                continue;
            };
            let raw = param_attrs(node);
            let mut b = Builder {
                graph: &mut graph,
                handles: vec![],
                of: format!("{}_aux", node.name),
                created: 0,
                kind: Built::Backward,
            };
            let inputs: Vec<Handle> = node.inputs.iter().map(|&e| b.handle(e)).collect();
            let outs: Vec<Handle> = (0..node.num_outputs())
                .map(|index| b.handle(Entry { node: id, index }))
                .collect();
            let params = node.params.as_ref().expect("operators have parsed params");
            let ctx = GradCtx {
                attrs: params,
                raw_attrs: &raw,
                inputs: &inputs,
                outputs: &outs,
                out_grads: &[],
            };
            let new_values = update(&mut b, &ctx).map_err(|e| Error::Node {
                op: op.name.into(),
                node: node.name.clone(),
                msg: format!("aux update: {e}"),
            })?;
            let new_values: Vec<Entry> = new_values.into_iter().map(|h| b.entry(h)).collect();
            for (&slot, value) in op.mutable_inputs.iter().zip(new_values) {
                aux_updates.push(node.inputs[slot].node);
                heads.push(value);
            }
        }
    }
    graph.heads = heads;
    // Rules compute every input's gradient; drop what no requested gradient uses. Every
    // argument and aux state stays bound, used or not.
    let keep: Vec<NodeId> = g
        .node_ids()
        .filter(|&id| g.node(id).is_variable())
        .collect();
    let training = TrainingGraph {
        graph,
        forward_nodes: forward_len,
        num_outputs: g.heads.len(),
        grads: wrt,
        aux_updates,
        head_grads,
    };
    Ok(training.pruned(&keep))
}

/// A node's operator parameters as given (hidden `__x__` attributes left out), for the
/// backward operators its rules create.
fn param_attrs(node: &NodeData) -> Vec<(&str, &str)> {
    node.attrs
        .iter()
        .filter(|(k, _)| !kiln_ops::param::is_hidden_attr(k))
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// A loss head has a gradient even though nothing flows into it.
fn is_loss_head(g: &Graph, id: NodeId) -> bool {
    g.node(id).op.is_some_and(|op| op.loss) && g.heads.iter().any(|e| e.node == id)
}
