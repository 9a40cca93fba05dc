//! Inference mode: operators that are the identity when nothing trains
//! (`Identity::InInference`: Dropout, BlockGrad) become their input. Those that are always
//! the identity are simplification's.

use super::{Pass, PassOutput, Rebuild};
use crate::error::Result;
use crate::graph::Graph;
use kiln_ops::Identity;

pub struct InferenceMode;

impl Pass for InferenceMode {
    fn name(&self) -> &'static str {
        "inference_mode"
    }

    fn run(&self, g: &Graph) -> Result<PassOutput> {
        // A node whose hidden output someone reads stays (a Dropout's mask, all ones at
        // inference).
        let hidden_read = |id| {
            g.consumers(id).iter().any(|&c| {
                g.node(c)
                    .inputs
                    .iter()
                    .any(|e| e.node == id && e.index != 0)
            }) || g.heads.iter().any(|e| e.node == id && e.index != 0)
        };
        let mut r = Rebuild::new(g);
        for id in g.node_ids() {
            let n = g.node(id);
            let identity = match (n.op.map(|op| op.identity), &n.params) {
                (Some(Identity::InInference(when)), Some(p)) => when(p) && !hidden_read(id),
                _ => false,
            };
            if identity {
                let to = r.get(n.inputs[0]).expect("inputs come first");
                r.alias(id, 0, to);
            } else {
                r.copy(id);
            }
        }
        Ok(r.finish())
    }
}
