//! Keeps only what the outputs need. Variables stay: they are the graph's interface
//! (arguments bound by name), even when unused — but unused constants go.

use super::{Pass, PassOutput, Rebuild};
use crate::error::Result;
use crate::graph::Graph;

pub struct Prune;

impl Pass for Prune {
    fn name(&self) -> &'static str {
        "prune"
    }

    fn run(&self, g: &Graph) -> Result<PassOutput> {
        let mut live = vec![false; g.len()];
        let mut stack: Vec<_> = g
            .heads
            .iter()
            .map(|e| e.node)
            .chain(
                g.node_ids()
                    .filter(|&id| g.node(id).is_variable() && !g.constants.contains_key(&id)),
            )
            .collect();
        while let Some(id) = stack.pop() {
            if !std::mem::replace(&mut live[id.index()], true) {
                stack.extend(g.node(id).inputs.iter().map(|e| e.node));
            }
        }
        let mut r = Rebuild::new(g);
        for id in g.node_ids().filter(|id| live[id.index()]) {
            r.copy(id);
        }
        Ok(r.finish())
    }
}
