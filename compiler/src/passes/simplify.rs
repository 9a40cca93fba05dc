//! Algebraic simplification: `x * 1`, `x / 1`, `x + 0`, `x - 0` and identity copies become
//! `x`; `transpose(transpose(x))` becomes one transpose (or `x`); `Reshape(Reshape(x))`
//! becomes one Reshape when the outer target does not refer to the inner shape.

use super::{Pass, PassOutput, Rebuild};
use crate::error::Result;
use crate::graph::{Entry, Graph, NodeId};
use crate::node::NodeData;
use kiln_ops::Value;

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

fn axes(g: &Graph, id: NodeId) -> Vec<i64> {
    g.node(id)
        .params
        .as_ref()
        .map(|p| p.shape("axes").to_vec())
        .unwrap_or_default()
}

fn rewrite(g: &Graph, id: NodeId) -> Rewrite {
    let n = g.node(id);
    let Some(op) = n.op else { return Rewrite::Keep };
    let input = |i: usize| n.inputs[i];
    let producer = |i: usize| g.node(input(i).node);
    match op.name {
        "_mul_scalar" | "_div_scalar" if scalar(g, id) == Some(1.0) => Rewrite::Alias(input(0)),
        // x − 0 and x + (−0) are x bit for bit; x + 0 is not (−0 + 0 = +0).
        "_minus_scalar" if scalar(g, id).map(f64::to_bits) == Some(0f64.to_bits()) => {
            Rewrite::Alias(input(0))
        }
        "_plus_scalar" if scalar(g, id).map(f64::to_bits) == Some((-0f64).to_bits()) => {
            Rewrite::Alias(input(0))
        }
        "_copy" => Rewrite::Alias(input(0)),
        "transpose" if producer(0).op_name() == "transpose" => {
            let (outer, inner) = (axes(g, id), axes(g, input(0).node));
            // Empty axes reverse all: composing needs the rank, so only explicit axes here.
            if outer.is_empty() || inner.is_empty() || outer.len() != inner.len() {
                return Rewrite::Keep;
            }
            let rank = outer.len() as i64;
            let norm = |a: i64| if a < 0 { a + rank } else { a };
            let combined: Vec<i64> = outer
                .iter()
                .map(|&o| norm(inner[norm(o) as usize]))
                .collect();
            let source = producer(0).inputs[0];
            if combined.iter().enumerate().all(|(i, &a)| a == i as i64) {
                return Rewrite::Alias(source);
            }
            let mut data = n.data.clone();
            data.attrs
                .insert("axes".into(), Value::Shape(combined).to_mxnet_string());
            match data
                .op
                .map(|op| kiln_ops::Attrs::parse(op.params, &data.attrs))
            {
                Some(Ok(p)) => {
                    data.params = Some(p);
                    Rewrite::Replace(data, vec![source])
                }
                _ => Rewrite::Keep,
            }
        }
        "Reshape" if producer(0).op_name() == "Reshape" => {
            let p = n.params.as_ref().expect("parsed");
            // Codes 0, -2, -3, -4 read the input's dimensions; -1 and positive ones do not.
            let independent = !p.shape("shape").is_empty()
                && p.shape("shape").iter().all(|&d| d > 0 || d == -1)
                && !p.bool("reverse");
            if independent {
                Rewrite::Replace(n.data.clone(), vec![producer(0).inputs[0]])
            } else {
                Rewrite::Keep
            }
        }
        _ => Rewrite::Keep,
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
