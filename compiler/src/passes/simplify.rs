//! Algebraic simplification: operators that are the identity — always (`Identity::Always`:
//! `_copy`) or where their attributes say so (`Identity::Where`: `x * 1`, `x / 1`,
//! `x + (-0)`, `x - 0`) — become `x`; an operator applied to its
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

fn rewrite(g: &Graph, id: NodeId) -> Rewrite {
    let n = g.node(id);
    let (Some(op), Some(params)) = (n.op, &n.params) else {
        return Rewrite::Keep;
    };
    let input = |i: usize| n.inputs[i];
    match op.identity {
        Identity::Always => return Rewrite::Alias(input(0)),
        Identity::Where(holds) if holds(params) => return Rewrite::Alias(input(0)),
        _ => {}
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
    Rewrite::Keep
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
