//! FullyConnected: `Y = X·Wᵀ + b`, a gemm with a fusable element-wise epilogue.

use super::common::{elems, flops, numel, positive, weight_bias_inputs};
use crate::param::{param, ParamType};
use crate::shape::{set_in, set_out, OpError, Shape};
use crate::{Attrs, Compute, Inputs, KernelCtx, OpDef, Pattern, Registry, Tensor};

const OP: &str = "FullyConnected";

static FULLY_CONNECTED: OpDef = OpDef {
    aliases: &["_npx_fully_connected"],
    doc: "Fully connected layer: `out = data·weightᵀ + bias` with weight (num_hidden, in). \
          flatten=True views data as (d0, prod(rest)); flatten=False applies to the last axis \
          and keeps the leading ones.",
    params: &[
        param("num_hidden", ParamType::Int, None, "number of hidden units"),
        param(
            "no_bias",
            ParamType::Bool,
            Some("False"),
            "whether to omit the bias",
        ),
        param(
            "flatten",
            ParamType::Bool,
            Some("True"),
            "whether to collapse all but the first axis of the input",
        ),
    ],
    inputs: Inputs::Dynamic(weight_bias_inputs),
    infer_shape: fc_shape,
    inplace: &[],
    cost: fc_cost,
    ..OpDef::new(
        OP,
        Pattern::OutEWiseFusable,
        Compute::Library {
            kernel: "gemm",
            reference: fc_ref,
        },
    )
};

/// Infers weight/bias/output from data, and data's batch and input width back from the
/// output and the weight (MXNet only does the batch).
fn fc_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let h = positive(a, OP, "num_hidden")?;
    let flatten = a.bool("flatten");
    // Backward: what the weight and the output say about the data.
    let k_from_weight = ins[1].get(1).copied().unwrap_or(0);
    if ins[0].is_empty() && !flatten && !outs[0].is_empty() {
        // (…, num_hidden) comes from (…, in).
        let mut d = outs[0].clone();
        if let Some(last) = d.last_mut() {
            *last = k_from_weight;
        }
        set_in(ins, 0, &d)?;
    }
    if ins[0].is_empty() {
        return Ok(());
    }
    let mut d = ins[0].clone();
    if let Some(o) = outs[0].first() {
        if d[0] == 0 {
            d[0] = *o;
        }
    }
    if !flatten && d.len() == outs[0].len() {
        for i in 0..d.len() - 1 {
            if d[i] == 0 {
                d[i] = outs[0][i];
            }
        }
    }
    if k_from_weight != 0 {
        if !flatten || d.len() == 2 {
            let last = d.len() - 1;
            if d[last] == 0 {
                d[last] = k_from_weight;
            }
        } else if d.len() > 2 {
            // One unknown trailing dim is determined by the flattened width.
            let unknown: Vec<usize> = (1..d.len()).filter(|&i| d[i] == 0).collect();
            let known = d[1..]
                .iter()
                .filter(|&&x| x != 0)
                .fold(1usize, |a, &x| a.saturating_mul(x));
            if let [i] = unknown[..] {
                if k_from_weight % known == 0 {
                    d[i] = k_from_weight / known;
                }
            }
        }
    }
    set_in(ins, 0, &d)?;
    let d = ins[0].clone();

    // Forward.
    let k = if flatten {
        if d[1..].contains(&0) {
            0
        } else {
            numel(&d[1..])
        }
    } else {
        d[d.len() - 1]
    };
    set_in(ins, 1, &[h, k])?;
    if !a.bool("no_bias") && ins[2] != [h, 1] {
        set_in(ins, 2, &[h])?;
    }
    let out = if flatten {
        vec![d[0], h]
    } else {
        let mut o = d.clone();
        if let Some(last) = o.last_mut() {
            *last = h;
        }
        o
    };
    set_out(outs, 0, &out)
}

fn fc_cost(a: &Attrs, ins: &[Shape], outs: &[Shape]) -> u64 {
    let h = a.int("num_hidden").max(1) as u64;
    let k = ins.get(1).and_then(|w| w.get(1)).copied().unwrap_or(0) as u64;
    let out = elems(&outs[0]);
    let rows = out / h;
    flops(&[2, rows, k, h]).saturating_add(if a.bool("no_bias") { 0 } else { out })
}

fn fc_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (x, w) = (ins[0], ins[1]);
    let out_shape = ctx.out_shapes[0].clone();
    let (h, k) = (w.shape[0], w.shape[1]);
    let rows = x.len() / k.max(1);
    let mut out = Tensor::zeros(x.dtype, out_shape);
    for r in 0..rows {
        for j in 0..h {
            let mut acc = ins.get(2).map_or(0.0, |b| b.data[j]);
            for i in 0..k {
                acc += x.data[r * k + i] * w.data[j * k + i];
            }
            out.data[r * h + j] = acc;
        }
    }
    Ok(vec![out])
}

pub fn register(r: &mut Registry) {
    r.add(&FULLY_CONNECTED);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;

    const FC: &str = "FullyConnected";

    #[test]
    fn infers_weight_bias_and_output() {
        let (ins, outs) = infer(FC, &[("num_hidden", "4")], &[&[2, 3, 5]]).unwrap();
        assert_eq!(ins, vec![vec![2, 3, 5], vec![4, 15], vec![4]]);
        assert_eq!(outs, vec![vec![2, 4]]);

        let kv = [
            ("num_hidden", "4"),
            ("flatten", "False"),
            ("no_bias", "True"),
        ];
        let (ins, outs) = infer(FC, &kv, &[&[2, 3, 5]]).unwrap();
        assert_eq!(ins, vec![vec![2, 3, 5], vec![4, 5]]);
        assert_eq!(outs, vec![vec![2, 3, 4]]);
    }

    #[test]
    fn infers_data_backward() {
        // Batch from the output, width from the weight.
        let (ins, _) =
            infer_both(FC, &[("num_hidden", "4")], &[&[0, 0], &[4, 6]], &[&[8, 4]]).unwrap();
        assert_eq!(ins[0], vec![8, 6]);
        // One unknown trailing dim of a flattened input.
        let (ins, _) = infer(FC, &[("num_hidden", "4")], &[&[2, 3, 0], &[4, 12]]).unwrap();
        assert_eq!(ins[0], vec![2, 3, 4]);
        // flatten=False: data from the output and the weight.
        let kv = [("num_hidden", "4"), ("flatten", "False")];
        let (ins, _) = infer_both(FC, &kv, &[&[], &[4, 6]], &[&[2, 3, 4]]).unwrap();
        assert_eq!(ins[0], vec![2, 3, 6]);
    }

    #[test]
    fn accepts_column_bias_and_reports_conflicts() {
        let (ins, _) = infer(FC, &[("num_hidden", "2")], &[&[1, 3], &[], &[2, 1]]).unwrap();
        assert_eq!(ins[2], vec![2, 1]);
        let e = infer_err(FC, &[("num_hidden", "4")], &[&[2, 3], &[4, 5]]);
        assert_eq!(e, "input `weight` has shape (4, 5) but (4, 3) is required");
        let e = infer_err(FC, &[("num_hidden", "4")], &[&[2, 3], &[], &[5]]);
        assert_eq!(e, "input `bias` has shape (5,) but (4,) is required");
        let e = infer_err(FC, &[("num_hidden", "0")], &[&[2, 3]]);
        assert_eq!(e, "FullyConnected: `num_hidden` must be positive, got 0");
    }

    #[test]
    fn computes_x_wt_plus_b() {
        // x (2, 3), w (2, 3), b (2,): out[n][j] = Σ_i x[n][i] w[j][i] + b[j].
        let x = t(&[2, 3], vec![1., 2., 3., 4., 5., 6.]);
        let w = t(&[2, 3], vec![1., 0., -1., 0.5, 0.5, 0.5]);
        let b = t(&[2], vec![10., 20.]);
        let out = run(FC, &[("num_hidden", "2")], &[x, w, b], false).unwrap();
        // Row 0: 1-3+10 = 8, 3+20 = 23; row 1: 4-6+10 = 8, 7.5+20 = 27.5.
        assert_close(&out[0].data, &[8., 23., 8., 27.5], 0.0);
    }

    #[test]
    fn flatten_false_applies_to_last_axis() {
        let x = t(&[2, 1, 2], vec![1., 2., 3., 4.]);
        let w = t(&[1, 2], vec![1., 10.]);
        let kv = [
            ("num_hidden", "1"),
            ("flatten", "False"),
            ("no_bias", "True"),
        ];
        let out = run(FC, &kv, &[x, w], false).unwrap();
        assert_eq!(out[0].shape, vec![2, 1, 1]);
        assert_close(&out[0].data, &[21., 43.], 0.0);
    }

    #[test]
    fn cost_is_2nkm_plus_bias() {
        let o = op(FC);
        let a = attrs(o, &[("num_hidden", "4")]);
        let c = (o.cost)(&a, &[vec![8, 6], vec![4, 6], vec![4]], &[vec![8, 4]]);
        assert_eq!(c, 2 * 8 * 6 * 4 + 32);
    }
}
