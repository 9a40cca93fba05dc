//! Algebraic simplification: `x * 1`, `x / 1`, `x + 0`, `x - 0` and operators that are
//! always the identity (`Identity::Always`: `_copy`) become `x`; an operator applied to its
//! own output becomes one application (or `x`) where it declares how it composes
//! (`OpDef::composes`: transpose of transpose, Reshape of a Reshape whose target does not
//! refer to the inner shape).

use super::{Pass, PassOutput, Rebuild};
use crate::error::Result;
use crate::graph::{Entry, Graph, NodeId};
use crate::node::NodeData;
use kiln_ops::{Composed, Identity};

pub struct Simplify;

/// What a node becomes.
enum Rewrite {
    Keep,
    /// Its output is this (old) entry.
    Alias(Entry),
    /// It becomes this node applied to these (old) entries.
    Replace(NodeData, Vec<Entry>),
}

fn scalar(g: &Graph, id: NodeId) -> Option<f64> {
    g.node(id).params.as_ref().map(|p| p.float("scalar"))
}

fn rewrite(g: &Graph, id: NodeId) -> Rewrite {
    let n = g.node(id);
    let (Some(op), Some(params)) = (n.op, &n.params) else {
        return Rewrite::Keep;
    };
    let input = |i: usize| n.inputs[i];
    if matches!(op.identity, Identity::Always) {
        return Rewrite::Alias(input(0));
    }
    if let Some(compose) = op.composes {
        let inner = g.node(input(0).node);
        return match (inner.op, &inner.params) {
            (Some(o), Some(inner_params)) if std::ptr::eq(o, op) => {
                composed(&n.data, compose(params, inner_params), inner.inputs[0])
            }
            _ => Rewrite::Keep,
        };
    }
    match op.name {
        "_mul_scalar" | "_div_scalar" if scalar(g, id) == Some(1.0) => Rewrite::Alias(input(0)),
        // x − 0 and x + (−0) are x bit for bit; x + 0 is not (−0 + 0 = +0).
        "_minus_scalar" if scalar(g, id).map(f64::to_bits) == Some(0f64.to_bits()) => {
            Rewrite::Alias(input(0))
        }
        "_plus_scalar" if scalar(g, id).map(f64::to_bits) == Some((-0f64).to_bits()) => {
            Rewrite::Alias(input(0))
        }
        _ => Rewrite::Keep,
    }
}

/// Node `n` applied to its own output, composed into one application to `source`.
fn composed(n: &NodeData, c: Option<Composed>, source: Entry) -> Rewrite {
    match c {
        None => Rewrite::Keep,
        Some(Composed::Identity) => Rewrite::Alias(source),
        Some(Composed::Outer(set)) => {
            let mut data = n.clone();
            (data.attrs).extend(set.into_iter().map(|(k, v)| (k.to_string(), v)));
            match (data.op).map(|op| kiln_ops::Attrs::parse(op.params, &data.attrs)) {
                Some(Ok(p)) => {
                    data.params = Some(p);
                    Rewrite::Replace(data, vec![source])
                }
                _ => Rewrite::Keep,
            }
        }
    }
}

impl Pass for Simplify {
    fn name(&self) -> &'static str {
        "simplify"
    }

    fn run(&self, g: &Graph) -> Result<PassOutput> {
        let mut r = Rebuild::new(g);
        for id in g.node_ids() {
            match rewrite(g, id) {
                Rewrite::Keep => {
                    r.copy(id);
                }
                Rewrite::Alias(to) => {
                    let to = r.get(to).expect("inputs come first");
                    r.alias(id, 0, to);
                }
                Rewrite::Replace(data, inputs) => {
                    let inputs = inputs
                        .into_iter()
                        .map(|e| r.get(e).expect("inputs come first"))
                        .collect();
                    r.add(id, data, inputs);
                }
            }
        }
        Ok(r.finish())
    }
}
