//! Common-subexpression elimination: two nodes applying the same operator with the same
//! parameters to the same inputs become one. Side-effecting operators (random samplers,
//! Dropout) are never merged, nor are variables.

use super::{Pass, PassOutput, Rebuild};
use crate::error::Result;
use crate::graph::{Entry, Graph, NodeId};
use std::collections::HashMap;

pub struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn run(&self, g: &Graph) -> Result<PassOutput> {
        let mut r = Rebuild::new(g);
        let mut seen: HashMap<(&'static str, String, Vec<Entry>), NodeId> = HashMap::new();
        for id in g.node_ids() {
            let n = g.node(id);
            let Some(op) = n.op.filter(|op| !op.side_effect) else {
                r.copy(id);
                continue;
            };
            let params = n.params.as_ref().map(|p| p.summary()).unwrap_or_default();
            let key = (op.name, params, r.inputs(id));
            match seen.get(&key) {
                Some(&same) => {
                    for index in 0..n.num_outputs() {
                        r.alias(id, index, Entry { node: same, index });
                    }
                }
                None => {
                    let new = r.copy(id);
                    seen.insert(key, new);
                }
            }
        }
        Ok(r.finish())
    }
}
