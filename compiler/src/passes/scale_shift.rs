//! Inference: a BatchNorm using its moving statistics (any `OpDef::channel_norm`) becomes
//! a per-channel scale and shift, `y = x·s + t` with `s = γ·rsqrt(var+ε)` (γ = 1 under
//! fix_gamma) and `t = β − mean·s`, written with ordinary operators. The two broadcast
//! operations on `x` then fuse into the preceding convolution as its epilogue, so the
//! convolution's output never reaches memory; `s` and `t` are small per-channel vectors
//! (constants once the parameters are known). Needs the data's rank to shape `s` for
//! broadcasting, hence the input shapes.

use super::{Pass, PassOutput, Rebuild};
use crate::error::{Error, Result};
use crate::graph::{Entry, Graph, NodeId};
use crate::infer::infer_shapes;
use crate::node::{NodeData, Provenance};
use kiln_ops::{lookup, Attrs, Shape};
use std::collections::{BTreeMap, HashMap};

pub struct BatchNormToScaleShift {
    pub shapes: HashMap<String, Shape>,
}

/// Adds `op(inputs)` (string attributes) on behalf of `of`; returns its first output.
fn apply(
    r: &mut Rebuild,
    of: &str,
    k: &mut usize,
    op: &str,
    inputs: Vec<Entry>,
    kv: &[(&str, String)],
) -> Result<Entry> {
    let def =
        lookup(op).ok_or_else(|| Error::Input(format!("scale-shift: unknown operator {op}")))?;
    let attrs: BTreeMap<String, String> =
        kv.iter().map(|(a, b)| (a.to_string(), b.clone())).collect();
    let params = Attrs::parse(def.params, &attrs)
        .map_err(|e| Error::Input(format!("scale-shift: {op}: {e}")))?;
    *k += 1;
    let data = NodeData {
        op: Some(def),
        name: format!("{of}_scale_shift{k}"),
        attrs,
        params: Some(params),
        provenance: Provenance::Generated,
    };
    Ok(Entry {
        node: r.new.add_node(data, inputs),
        index: 0,
    })
}

impl Pass for BatchNormToScaleShift {
    fn name(&self) -> &'static str {
        "batchnorm_scale_shift"
    }

    fn run(&self, g: &Graph) -> Result<PassOutput> {
        let shapes = infer_shapes(g, &self.shapes)?;
        let mut r = Rebuild::new(g);
        for id in g.node_ids() {
            let n = g.node(id);
            let rank = n
                .inputs
                .first()
                .map_or(0, |e| shapes[e.node.index()][e.index].len());
            let norm = match (n.op.and_then(|op| op.channel_norm), &n.params) {
                (Some(norm), Some(p)) if rank >= 2 && only_output_zero_used(g, id) => norm(p),
                _ => {
                    r.copy(id);
                    continue;
                }
            };
            let axis = if norm.axis < 0 {
                norm.axis + rank as i64
            } else {
                norm.axis
            };
            if !(0..rank as i64).contains(&axis) {
                r.copy(id);
                continue;
            }
            let ins = r.inputs(id);
            let (x, gamma, beta, mean, var) = (ins[0], ins[1], ins[2], ins[3], ins[4]);
            // Only the normalization constrained the statistics' shapes: keep them declared
            // (Gluon exports declare `(0,)`, unknown, for deferred parameters).
            let channels = shapes[n.inputs[0].node.index()][n.inputs[0].index][axis as usize];
            for e in [gamma, beta, mean, var] {
                let v = &mut r.new.g[e.node].data;
                if v.is_variable() {
                    v.attrs.insert("__shape__".into(), format!("({channels},)"));
                }
            }
            let mut k = 0;
            let of = n.name.clone();
            let eps = kiln_ops::param::py_float(norm.eps);
            let shifted = apply(
                &mut r,
                &of,
                &mut k,
                "_plus_scalar",
                vec![var],
                &[("scalar", eps)],
            )?;
            let mut scale = apply(&mut r, &of, &mut k, "rsqrt", vec![shifted], &[])?;
            if !norm.fix_gamma {
                scale = apply(&mut r, &of, &mut k, "elemwise_mul", vec![gamma, scale], &[])?;
            }
            let mean_scaled = apply(&mut r, &of, &mut k, "elemwise_mul", vec![mean, scale], &[])?;
            let shift = apply(
                &mut r,
                &of,
                &mut k,
                "elemwise_sub",
                vec![beta, mean_scaled],
                &[],
            )?;
            // (C,) → (1, …, C, …, 1) along the normalized axis.
            let dims: Vec<String> = (0..rank as i64)
                .map(|d| if d == axis { "-1".into() } else { "1".into() })
                .collect();
            let target = format!("({})", dims.join(", "));
            let scale = apply(
                &mut r,
                &of,
                &mut k,
                "Reshape",
                vec![scale],
                &[("shape", target.clone())],
            )?;
            let shift = apply(
                &mut r,
                &of,
                &mut k,
                "Reshape",
                vec![shift],
                &[("shape", target)],
            )?;
            let scaled = apply(&mut r, &of, &mut k, "broadcast_mul", vec![x, scale], &[])?;
            let out = apply(
                &mut r,
                &of,
                &mut k,
                "broadcast_add",
                vec![scaled, shift],
                &[],
            )?;
            r.alias(id, 0, out);
        }
        Ok(r.finish())
    }
}

/// The batch statistics outputs go away: only the normalized output may be read.
fn only_output_zero_used(g: &Graph, id: NodeId) -> bool {
    let reads_hidden = |e: &Entry| e.node == id && e.index != 0;
    !g.heads.iter().any(reads_hidden)
        && g.consumers(id)
            .iter()
            .all(|&c| !g.node(c).inputs.iter().any(reads_hidden))
}
