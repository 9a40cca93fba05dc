//! Inference: a BatchNorm using its moving statistics (any `OpDef::channel_norm`) is a
//! per-channel scale and shift, `y = x·s + t` with `s = γ/√(var+ε)` (γ = 1 under fix_gamma)
//! and `t = β − mean·s`. When it directly follows an operator whose output channels are
//! its weight's (`OpDef::channel_weights`: Convolution, FullyConnected) and whose weights
//! are known, the scale and shift fold into them — `W' = W·s` per output channel,
//! `b' = b·s + t` — and the normalization disappears. The folded weights are new variables
//! (`<node>_weight_bnfold`, `<node>_bias_bnfold`), so weights shared with other nodes stay
//! as they were.

use super::{PassOutput, Rebuild};
use crate::error::{Error, Result};
use crate::graph::{Entry, Graph, NodeId};
use crate::node::{NodeData, Provenance};
use kiln_ops::{Attrs, Tensor};
use std::collections::{BTreeMap, HashMap};

/// A normalization that can fold into the producer of its input.
struct Foldable {
    bn: NodeId,
    producer: NodeId,
    scale: Vec<f64>,
    shift: Vec<f64>,
}

fn value<'a>(g: &Graph, params: &'a HashMap<String, Tensor>, e: Entry) -> Option<&'a Tensor> {
    let n = g.node(e.node);
    n.is_variable().then(|| params.get(&n.name)).flatten()
}

fn foldable(g: &Graph, params: &HashMap<String, Tensor>, bn: NodeId) -> Option<Foldable> {
    let n = g.node(bn);
    let norm = (n.op?.channel_norm?)(n.params.as_ref()?);
    let producer = n.inputs[0].node;
    let prod = g.node(producer);
    let channel_axes = (prod.op?.channel_weights?)(prod.params.as_ref()?);
    let channel_axis_ok = channel_axes.contains(&norm.axis) && prod.num_visible_outputs() == 1;
    // The producer's output must feed only this normalization and not be a graph output.
    if !channel_axis_ok
        || g.consumers(producer).len() != 1
        || g.heads.iter().any(|e| e.node == producer)
    {
        return None;
    }
    // Only the normalized output may be used: the batch statistics outputs go away.
    if g.heads.iter().any(|e| e.node == bn && e.index != 0)
        || g.consumers(bn).iter().any(|&c| {
            g.node(c)
                .inputs
                .iter()
                .any(|e| e.node == bn && e.index != 0)
        })
    {
        return None;
    }
    let [gamma, beta, mean, var] = [1, 2, 3, 4].map(|i| value(g, params, n.inputs[i]));
    let (beta, mean, var) = (beta?, mean?, var?);
    value(g, params, prod.inputs[1])?; // the weight must be known
    let scale: Vec<f64> = (0..var.len())
        .map(|c| {
            let gm = if norm.fix_gamma {
                1.0
            } else {
                gamma.map_or(1.0, |t| t.data[c])
            };
            gm / (var.data[c] + norm.eps).sqrt()
        })
        .collect();
    let shift = (0..var.len())
        .map(|c| beta.data[c] - mean.data[c] * scale[c])
        .collect();
    Some(Foldable {
        bn,
        producer,
        scale,
        shift,
    })
}

/// Folds inference-mode normalizations into the preceding operators whose output channels
/// are their weight's. Returns the rewritten graph and the folded weights to bind (under
/// their new names).
pub fn fold_batch_norm(
    g: &Graph,
    params: &HashMap<String, Tensor>,
) -> Result<(PassOutput, HashMap<String, Tensor>)> {
    let folds: Vec<Foldable> = g
        .node_ids()
        .filter_map(|id| foldable(g, params, id))
        .collect();
    let by_producer: HashMap<NodeId, &Foldable> = folds.iter().map(|f| (f.producer, f)).collect();
    let by_bn: HashMap<NodeId, &Foldable> = folds.iter().map(|f| (f.bn, f)).collect();
    let mut new_params = HashMap::new();
    let mut r = Rebuild::new(g);
    for id in g.node_ids() {
        if let Some(f) = by_producer.get(&id) {
            let n = g.node(id);
            let p = n.params.as_ref().expect("parsed");
            let weight = value(g, params, n.inputs[1]).expect("checked foldable");
            let channels = f.scale.len();
            let per = weight.len() / channels.max(1);
            let w: Vec<f64> = weight
                .data
                .iter()
                .enumerate()
                .map(|(i, v)| v * f.scale[i / per])
                .collect();
            let bias = (!p.bool("no_bias"))
                .then(|| value(g, params, n.inputs[2]))
                .flatten();
            if !p.bool("no_bias") && bias.is_none() {
                return Err(Error::Input(format!(
                    "fold_batch_norm: the bias of `{}` has no value",
                    n.name
                )));
            }
            let b: Vec<f64> = (0..channels)
                .map(|c| bias.map_or(0.0, |t| t.data[c]) * f.scale[c] + f.shift[c])
                .collect();
            let (wname, bname) = (
                format!("{}_weight_bnfold", n.name),
                format!("{}_bias_bnfold", n.name),
            );
            let dtype = weight.dtype;
            new_params.insert(wname.clone(), Tensor::new(dtype, weight.shape.clone(), w));
            new_params.insert(bname.clone(), Tensor::new(dtype, vec![channels], b));
            let var = |name: String, r: &mut Rebuild| {
                let node = r.new.add_node(
                    NodeData::variable(name, BTreeMap::new(), Provenance::Generated),
                    vec![],
                );
                Entry { node, index: 0 }
            };
            let wv = var(wname, &mut r);
            let bv = var(bname, &mut r);
            let data = r.get(n.inputs[0]).expect("inputs come first");
            let mut node = n.data.clone();
            node.attrs.insert("no_bias".into(), "False".into());
            node.params = Some(
                Attrs::parse(n.op.expect("operator").params, &node.attrs)
                    .map_err(|e| Error::Input(e.to_string()))?,
            );
            node.provenance = n.provenance.clone();
            r.add(id, node, vec![data, wv, bv]);
        } else if by_bn.contains_key(&id) {
            let producer = r.get(g.node(id).inputs[0]).expect("inputs come first");
            r.alias(id, 0, producer);
        } else {
            r.copy(id);
        }
    }
    Ok((r.finish(), new_params))
}
