//! FullyConnected: `Y = X·Wᵀ + b`, a gemm with a fusable element-wise epilogue.

//!
//! Its gradient is one backward operator, `_backward_FullyConnected` (as MXNet), giving
//! the gradients of data, weight and bias from one pass over the head gradient.

use super::common::{
    all_grads, elems, flops, numel, positive, strings, weight_bias_inputs, Through,
};
use crate::contraction::{unflatten, Contraction, Read};
use crate::def::PerSample;
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{set_in, set_out, OpError, Shape};
use crate::{x, Combiner, IndexExpr};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs, Pattern,
    Registry, Tensor,
};

const OP: &str = "FullyConnected";

const FC_PARAMS: &[ParamDef] = &[
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
];

static FULLY_CONNECTED: OpDef = OpDef {
    per_sample: PerSample::Always,
    aliases: &["_npx_fully_connected"],
    doc: "Fully connected layer: `out = data·weightᵀ + bias` with weight (num_hidden, in). \
          flatten=True views data as (d0, prod(rest)); flatten=False applies to the last axis \
          and keeps the leading ones.",
    params: FC_PARAMS,
    inputs: Inputs::Dynamic(weight_bias_inputs),
    infer_shape: fc_shape,
    inplace: &[],
    cost: fc_cost,
    grad: Grad::Rule(fc_grad),
    contraction: Some(fc_contraction),
    // Flattened, the output is (batch, num_hidden); otherwise num_hidden is the last of
    // however many axes, which only -1 names for every rank.
    channel_weights: Some(|a| if a.bool("flatten") { &[1, -1] } else { &[-1] }),
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

/// Output (rows..., h) sums data viewed as (rows, K) at (row, k) times weight (h, k) over
/// k, plus the bias at h.
fn fc_contraction(
    a: &Attrs,
    ins: &[Shape],
    outs: &[Shape],
    _: usize,
) -> Result<Contraction, OpError> {
    let (w, out) = (&ins[1], &outs[0]);
    let (rank, k) = (out.len(), w[1]);
    let h = IndexExpr::Out(rank - 1);
    let row = (0..rank - 1).fold(IndexExpr::Const(0), |acc, ax| {
        acc * out[ax] as i64 + IndexExpr::Out(ax)
    });
    let at = row * k as i64 + IndexExpr::Out(rank);
    let read = |input, coords| Read {
        input,
        coords,
        padding: None,
    };
    let mut epilogue = vec![];
    if !a.bool("no_bias") {
        // The bias is (h,) or (h, 1).
        let mut coords = vec![h.clone()];
        coords.resize(ins[2].len(), IndexExpr::Const(0));
        epilogue.push(read(2, coords));
    }
    Ok(Contraction {
        combiner: Combiner::Sum,
        extents: vec![k],
        reads: vec![
            read(0, unflatten(at, &ins[0])),
            read(1, vec![h, IndexExpr::Out(rank)]),
        ],
        body: x(0) * x(1),
        post: if epilogue.is_empty() {
            x(0)
        } else {
            x(0) + x(1)
        },
        epilogue,
    })
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

fn fc_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    // The bias travels along only for its shape: (num_hidden,) or (num_hidden, 1).
    let args: Vec<Handle> = std::iter::once(ctx.out_grads[0])
        .chain(ctx.inputs.iter().copied())
        .collect();
    all_grads(g, ctx, "_backward_FullyConnected", &args)
}

static FULLY_CONNECTED_BACKWARD: OpDef = OpDef {
    doc: "Gradient of FullyConnected: data_grad = ograd·weight, weight_grad = ogradᵀ·data, \
          bias_grad = ograd summed over rows. Takes the forward's parameters; `bias` is read \
          only for its shape.",
    params: FC_PARAMS,
    inputs: Inputs::Dynamic(fc_backward_inputs),
    outputs: Outputs::Dynamic(fc_backward_outputs),
    infer_shape: fc_backward_shape,
    inplace: &[],
    cost: fc_backward_cost,
    grad: Grad::NotDifferentiable,
    contraction: Some(fc_backward_contraction),
    ..OpDef::new(
        "_backward_FullyConnected",
        Pattern::Opaque,
        Compute::Library {
            kernel: "gemm_backward",
            reference: fc_backward_ref,
        },
    )
};

fn fc_backward_inputs(a: &Attrs) -> Vec<String> {
    let mut v = strings(&["ograd"]);
    v.extend(weight_bias_inputs(a));
    v
}

fn fc_backward_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let names: &[&str] = if a.bool("no_bias") {
        &["data_grad", "weight_grad"]
    } else {
        &["data_grad", "weight_grad", "bias_grad"]
    };
    (strings(names), names.len())
}

fn fc_backward_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let through = if a.bool("no_bias") {
        Through {
            inputs: &[Some(1), Some(2)],
            outputs: &[&[0]],
            grads: &[0, 1],
        }
    } else {
        Through {
            inputs: &[Some(1), Some(2), Some(3)],
            outputs: &[&[0]],
            grads: &[0, 1, 2],
        }
    };
    through.shapes(fc_shape, a, ins, outs)
}

/// Two gemms of the forward's size (data and weight gradients).
fn fc_backward_cost(a: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    match ins {
        [og, fwd_ins @ ..] if !fwd_ins.is_empty() => {
            fc_cost(a, fwd_ins, std::slice::from_ref(og)).saturating_mul(2)
        }
        _ => 0,
    }
}

/// The row-major linear index of the output point of `shape`.
fn linear_out(shape: &[usize]) -> IndexExpr {
    (0..shape.len()).fold(IndexExpr::Const(0), |acc, ax| {
        acc * shape[ax] as i64 + IndexExpr::Out(ax)
    })
}

/// The gradients as contractions, with data viewed as (rows, K) and ograd as (rows, H):
/// data_grad (r, i) = Σ_j ograd (r, j)·weight (j, i); weight_grad (j, i) = Σ_r ograd (r, j)
/// · data (r, i); bias_grad (j) = Σ_r ograd (r, j).
fn fc_backward_contraction(
    _: &Attrs,
    ins: &[Shape],
    outs: &[Shape],
    k: usize,
) -> Result<Contraction, OpError> {
    let (og, data, w) = (&ins[0], &ins[1], &ins[2]);
    let (h, kk) = (w[0] as i64, w[1] as i64);
    let rows = (data.iter().product::<usize>() as i64 / kk.max(1)) as usize;
    let out = outs
        .get(k)
        .ok_or_else(|| OpError::Invalid(format!("no output {k}")))?;
    let red = IndexExpr::Out(out.len());
    let read = |input, at: IndexExpr, shape: &[usize]| Read {
        input,
        coords: unflatten(at, shape),
        padding: None,
    };
    let lin = linear_out(out);
    let (extent, reads, body) = match k {
        0 => {
            let (r, i) = (lin.clone() / kk, lin % kk);
            let reads = vec![read(0, r * h + red.clone(), og), read(2, red * kk + i, w)];
            (h as usize, reads, x(0) * x(1))
        }
        1 => {
            let (j, i) = (lin.clone() / kk, lin % kk);
            let reads = vec![
                read(0, red.clone() * h + j, og),
                read(1, red * kk + i, data),
            ];
            (rows, reads, x(0) * x(1))
        }
        _ => (rows, vec![read(0, red * h + lin, og)], x(0)),
    };
    Ok(Contraction {
        combiner: Combiner::Sum,
        extents: vec![extent],
        reads,
        body,
        epilogue: vec![],
        post: x(0),
    })
}

fn fc_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (og, x, w) = (ins[0], ins[1], ins[2]);
    let (h, k) = (w.shape[0], w.shape[1]);
    let rows = x.len() / k.max(1);
    let mut grads: Vec<Tensor> = ctx
        .out_shapes
        .iter()
        .map(|s| Tensor::zeros(x.dtype, s.clone()))
        .collect();
    for r in 0..rows {
        for j in 0..h {
            let gv = og.data[r * h + j];
            for i in 0..k {
                grads[0].data[r * k + i] += gv * w.data[j * k + i];
                grads[1].data[j * k + i] += gv * x.data[r * k + i];
            }
            if let Some(db) = grads.get_mut(2) {
                db.data[j] += gv;
            }
        }
    }
    Ok(grads)
}

pub fn register(r: &mut Registry) {
    r.add(&FULLY_CONNECTED);
    r.add(&FULLY_CONNECTED_BACKWARD);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;

    const FC: &str = "FullyConnected";

    #[test]
    fn backward_contractions_match_the_reference() {
        let (x, w, b) = (randn(&[2, 3, 5], 1), randn(&[4, 15], 2), randn(&[4], 3));
        let og = randn(&[2, 4], 4);
        let kv = [("num_hidden", "4")];
        check_contraction(
            "_backward_FullyConnected",
            &kv,
            &[og.clone(), x.clone(), w.clone(), b],
        );
        let kv = [("num_hidden", "4"), ("no_bias", "True")];
        check_contraction("_backward_FullyConnected", &kv, &[og, x, w]);
        // Not flattened: (2, 3, 5) data, (2, 3, 4) output.
        let kv = [("num_hidden", "4"), ("flatten", "False")];
        let (x, w, b, og) = (
            randn(&[2, 3, 5], 5),
            randn(&[4, 5], 6),
            randn(&[4], 7),
            randn(&[2, 3, 4], 8),
        );
        check_contraction(
            "_backward_FullyConnected",
            &kv,
            &[og.clone(), x.clone(), w.clone(), b.clone()],
        );
        check_contraction(FC, &kv, &[x, w, b]);
    }

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

    #[test]
    fn gradients_match_finite_differences() {
        // flatten=True on 3-D data, and batch 1.
        let kv = [("num_hidden", "3")];
        let ins = [randn(&[2, 3, 7], 1), randn(&[3, 21], 2), randn(&[3], 3)];
        check_grad(FC, &kv, &ins, false, &[]);
        let ins = [randn(&[1, 7], 4), randn(&[3, 7], 5), randn(&[3], 6)];
        check_grad(FC, &kv, &ins, false, &[]);
        // flatten=False applies to the last axis; without bias.
        let kv = [
            ("num_hidden", "1"),
            ("flatten", "False"),
            ("no_bias", "True"),
        ];
        check_grad(
            FC,
            &kv,
            &[randn(&[2, 3, 7], 7), randn(&[1, 7], 8)],
            false,
            &[],
        );
        let kv = [("num_hidden", "3"), ("flatten", "False")];
        let ins = [randn(&[3, 1, 2], 9), randn(&[3, 2], 10), randn(&[3], 11)];
        check_grad(FC, &kv, &ins, false, &[]);
        // A column bias (num_hidden, 1) gets a gradient of its own shape.
        let ins = [randn(&[2, 5], 12), randn(&[3, 5], 13), randn(&[3, 1], 14)];
        check_grad(FC, &[("num_hidden", "3")], &ins, false, &[]);
    }

    #[test]
    fn backward_operator_by_hand() {
        // x (2, 2), w (1, 2), ograd (2, 1) = (1, 2): dx = og·w, dw = ogᵀ·x, db = Σ og.
        let og = t(&[2, 1], vec![1., 2.]);
        let x = t(&[2, 2], vec![1., 2., 3., 4.]);
        let w = t(&[1, 2], vec![5., 6.]);
        let b = t(&[1], vec![0.]);
        let g = run(
            "_backward_FullyConnected",
            &[("num_hidden", "1")],
            &[og, x, w, b],
            false,
        )
        .unwrap();
        assert_eq!(g.len(), 3);
        assert_close(&g[0].data, &[5., 6., 10., 12.], 0.0);
        assert_close(&g[1].data, &[7., 10.], 0.0);
        assert_close(&g[2].data, &[3.], 0.0);
        // Inference runs through the forward's: the weight from data and ograd.
        let kv = [("num_hidden", "4"), ("no_bias", "True")];
        let (ins, outs) = infer("_backward_FullyConnected", &kv, &[&[2, 4], &[2, 3, 2]]).unwrap();
        assert_eq!(ins[2], vec![4, 6]);
        assert_eq!(outs, vec![vec![2, 3, 2], vec![4, 6]]);
        assert_eq!(
            infer_err("_backward_FullyConnected", &kv, &[&[2, 5], &[2, 6]]),
            "input `ograd` has shape (2, 5) but (2, 4) is required"
        );
    }
}
