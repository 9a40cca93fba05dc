//! Inference mode: Dropout and BlockGrad are identities when nothing trains. (BatchNorm
//! with global statistics becoming a scale-shift folded into the preceding convolution is
//! the parameter-aware pass of the Passes issue.)

use super::{Pass, PassOutput, Rebuild};
use crate::error::Result;
use crate::graph::Graph;

pub struct InferenceMode;

impl Pass for InferenceMode {
    fn name(&self) -> &'static str {
        "inference_mode"
    }

    fn run(&self, g: &Graph) -> Result<PassOutput> {
        // A Dropout whose mask someone reads stays (the mask is all ones at inference).
        let mask_read = |id| {
            g.consumers(id).iter().any(|&c| {
                g.node(c)
                    .inputs
                    .iter()
                    .any(|e| e.node == id && e.index == 1)
            }) || g.heads.iter().any(|e| e.node == id && e.index == 1)
        };
        let mut r = Rebuild::new(g);
        for id in g.node_ids() {
            let n = g.node(id);
            let identity = match n.op_name() {
                "BlockGrad" => true,
                "Dropout" => {
                    n.params
                        .as_ref()
                        .is_some_and(|p| p.str("mode") == "training")
                        && !mask_read(id)
                }
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
