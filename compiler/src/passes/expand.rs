//! Expansion: operators that declare an equivalent graph of other operators
//! (`OpDef::expand`: softmax as max, exp, sum and a division) are replaced by it, so fusion
//! and the kernel IR see operators they can compile. Where an expansion declines (an
//! option it does not cover), the node stays.

use super::{Pass, PassOutput, Rebuild};
use crate::autodiff::Builder;
use crate::error::Result;
use crate::graph::Graph;
use kiln_ops::Handle;

pub struct Expand;

impl Pass for Expand {
    fn name(&self) -> &'static str {
        "expand"
    }

    fn run(&self, g: &Graph) -> Result<PassOutput> {
        let mut r = Rebuild::new(g);
        for id in g.node_ids() {
            let n = g.node(id);
            if let (Some(f), Some(params)) = (n.op.and_then(|op| op.expand), &n.params) {
                let inputs = r.inputs(id);
                let mut b = Builder::expansion(&mut r.new, &n.name);
                let handles: Vec<Handle> = inputs.iter().map(|&e| b.handle(e)).collect();
                // An expansion declines before adding any node.
                if let Ok(outputs) = f(&mut b, params, &handles) {
                    let entries: Vec<_> = outputs.iter().map(|&h| b.entry(h)).collect();
                    for (index, e) in entries.into_iter().enumerate() {
                        r.alias(id, index, e);
                    }
                    continue;
                }
            }
            r.copy(id);
        }
        Ok(r.finish())
    }
}
