//! Expansion: operators that declare an equivalent graph of other operators
//! (`OpDef::expand`: softmax as max, exp, sum and a division; BatchNorm in inference as a
//! scale and shift) are replaced by it, so fusion and the kernel IR see operators they
//! can compile. Where an expansion declines (an option it does not cover, a mode, an
//! unknown shape), the node stays. A training graph's backward operators expand too, after
//! differentiation (`_backward_Convolution`: its data gradient through columns where the
//! input is larger than the output).

use super::{Pass, PassOutput, Rebuild};
use crate::autodiff::Builder;
use crate::error::Result;
use crate::graph::Graph;
use crate::infer::Inferred;
use kiln_ops::{ExpandCtx, Handle};

/// The pass, for one mode; with the graph's inferred shapes and dtypes where they are
/// known (expansions that need them decline without).
pub struct Expand<'a> {
    pub training: bool,
    pub inferred: Option<&'a Inferred>,
    /// Nodes before this index are copied unexpanded: a training graph's forward nodes,
    /// expanded before it was differentiated, when its backward nodes expand.
    pub first: usize,
}

impl Expand<'_> {
    /// The expanded graph and how many nodes were expanded.
    pub fn expand(&self, g: &Graph) -> Result<(PassOutput, usize)> {
        let mut r = Rebuild::new(g);
        let mut expanded = 0;
        for id in g.node_ids() {
            let n = g.node(id);
            let op = n.op.filter(|_| id.index() >= self.first);
            if let (Some(f), Some(params)) = (op.and_then(|op| op.expand), &n.params) {
                let inputs = r.inputs(id);
                let (shapes, dtypes) = match self.inferred {
                    Some(inf) => (
                        n.inputs.iter().map(|&e| inf.shape(e).to_vec()).collect(),
                        n.inputs.iter().map(|&e| inf.dtype(e)).collect(),
                    ),
                    None => (vec![], vec![]),
                };
                let ctx = ExpandCtx {
                    training: self.training,
                    shapes: &shapes,
                    dtypes: &dtypes,
                };
                let mut b = Builder::expansion(&mut r.new, &n.name);
                let handles: Vec<Handle> = inputs.iter().map(|&e| b.handle(e)).collect();
                // An expansion declines before adding any node.
                if let Ok(outputs) = f(&mut b, params, &handles, &ctx) {
                    let entries: Vec<_> = outputs.iter().map(|&h| b.entry(h)).collect();
                    for (index, e) in entries.into_iter().enumerate() {
                        r.alias(id, index, e);
                    }
                    expanded += 1;
                    continue;
                }
            }
            r.copy(id);
        }
        Ok((r.finish(), expanded))
    }
}

impl Pass for Expand<'_> {
    fn name(&self) -> &'static str {
        "expand"
    }

    fn run(&self, g: &Graph) -> Result<PassOutput> {
        Ok(self.expand(g)?.0)
    }
}
