//! Loss building blocks: MakeLoss (a loss head over any expression), smooth_l1 (Huber,
//! element-wise) and softmax_cross_entropy (summed over the batch).
//!
//! MakeLoss is the identity whose gradient ignores the head gradient (`OpDef::loss`):
//! `grad_scale / norm` everywhere, norm 1 (null), the product of all dims but the last
//! (batch: MXNet divides by the first dim of the data viewed as 2-D, so a (2, 3, 4) input
//! divides by 6 and a 1-D input by 1), or the count of elements > valid_thresh, at least 1
//! (valid); the gradient is built from `ones_like`, sums and a broadcast division, so it
//! compiles to one fused kernel (`_backward_MakeLoss` computes the same for symbol files
//! that name it). smooth_l1 is a scalar
//! expression, differentiated symbolically. softmax_cross_entropy's gradient is
//! `_backward_softmax_cross_entropy`, `(softmax − onehot)·ograd`; as MXNet, the forward
//! floors the chosen probability at 1e-8 (`−log max(p, 1e-8)`) while the gradient ignores
//! that floor, labels are truncated toward zero, and the label gets no gradient. MXNet
//! reads outside the row for labels out of [0, K); kiln clips them into it.

use super::common::elems;
use super::softmax::softmax_along;
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, same_shape, set_in, set_out, OpError, Shape};
use crate::{
    c, x, Attrs, Compute, Expr, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef,
    Outputs, Pattern, Registry, Tensor,
};

const MAKE_LOSS_PARAMS: &[ParamDef] = &[
    param(
        "grad_scale",
        ParamType::Float,
        Some("1.0"),
        "the gradient's value before normalization",
    ),
    param(
        "valid_thresh",
        ParamType::Float,
        Some("0.0"),
        "valid normalization counts the elements above it",
    ),
    param(
        "normalization",
        ParamType::Enum(&["batch", "null", "valid"]),
        Some("null"),
        "what grad_scale is divided by",
    ),
];

static MAKE_LOSS: OpDef = OpDef {
    doc: "Makes a loss of any expression: the identity, whose gradient ignores the head \
          gradient and is grad_scale/norm everywhere; norm: null 1, batch the product of \
          all dims but the last, valid the number of elements > valid_thresh (at least 1).",
    params: MAKE_LOSS_PARAMS,
    grad: Grad::Rule(make_loss_grad),
    loss: true,
    ..OpDef::new("MakeLoss", Pattern::ElemWise, Compute::Scalar(|_| x(0)))
};

/// The gradient built from element-wise operators and reductions (so it fuses into one
/// compiled kernel): `grad_scale · ones`, divided for batch by a sum of ones over every
/// axis but the last, for valid by the count of elements above the threshold (at least 1).
fn make_loss_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let a = ctx.attrs;
    let data = ctx.inputs[0];
    let ones = g.op("ones_like", &[data], &[])?[0];
    let scale = a.float("grad_scale").to_string();
    let scaled = g.op("_mul_scalar", &[ones], &[("scalar", &scale)])?[0];
    let norm = match a.str("normalization") {
        "batch" => g.op("sum", &[ones], &[("axis", "-1"), ("exclude", "True")])?[0],
        "valid" => {
            let thresh = a.float("valid_thresh").to_string();
            let above = g.op("_greater_scalar", &[data], &[("scalar", &thresh)])?[0];
            let count = g.op("sum", &[above], &[])?[0];
            g.op("_maximum_scalar", &[count], &[("scalar", "1")])?[0]
        }
        _ => return Ok(vec![Some(scaled)]),
    };
    let dx = g.op("broadcast_div", &[scaled, norm], &[])?[0];
    Ok(vec![Some(dx)])
}

static MAKE_LOSS_BACKWARD: OpDef = OpDef {
    doc: "Gradient of MakeLoss from its data: grad_scale/norm in every element (norm as \
          MakeLoss describes). Takes the forward's parameters.",
    params: MAKE_LOSS_PARAMS,
    outputs: Outputs::Fixed {
        names: &["data_grad"],
        visible: 1,
    },
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_MakeLoss",
        Pattern::Opaque,
        Compute::Library {
            kernel: "make_loss_backward",
            reference: make_loss_backward_ref,
        },
    )
};

fn make_loss_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let x = ins[0];
    let norm = match a.str("normalization") {
        "batch" => x.len() / x.shape.last().copied().unwrap_or(1).max(1),
        "valid" => {
            let t = a.float("valid_thresh");
            x.data.iter().filter(|&&v| v > t).count()
        }
        _ => 1,
    };
    let v = a.float("grad_scale") / norm.max(1) as f64;
    Ok(vec![Tensor::full(x.dtype, x.shape.clone(), v)])
}

static SMOOTH_L1: OpDef = OpDef {
    aliases: &["_npx_smooth_l1"],
    doc: "Smooth L1 (Huber) with σ = `scalar`: `0.5·(σx)²` where |x| < 1/σ², else \
          `|x| − 0.5/σ²`.",
    params: &[param(
        "scalar",
        ParamType::Float,
        Some("1.0"),
        "σ: the quadratic part spans |x| < 1/σ²",
    )],
    ..OpDef::new("smooth_l1", Pattern::ElemWise, Compute::Scalar(smooth_l1))
};

fn smooth_l1(a: &Attrs) -> Expr {
    let s2 = a.float("scalar").powi(2);
    let (t, half) = (c(1.0 / s2), c(0.5 / s2));
    x(0).gt(t.clone()).select(
        x(0) - half.clone(),
        x(0).lt(-t).select(-x(0) - half, c(0.5 * s2) * x(0) * x(0)),
    )
}

static SOFTMAX_CROSS_ENTROPY: OpDef = OpDef {
    doc: "Cross entropy of softmax(data) against integer labels, summed over the batch: data \
          (N, K), label (N,), output (1,) = Σ_n −log max(softmax(data_n)[label_n], 1e-8).",
    params: &[],
    inputs: Inputs::Fixed(&["data", "label"]),
    infer_shape: sce_shape,
    inplace: &[],
    cost: |_, ins, _| elems(&ins[0]).saturating_mul(5),
    grad: Grad::Rule(sce_grad),
    ..OpDef::new(
        "softmax_cross_entropy",
        Pattern::Opaque,
        Compute::Library {
            kernel: "softmax_cross_entropy",
            reference: sce_ref,
        },
    )
};

fn sce_shape(_: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    const OP: &str = "softmax_cross_entropy";
    if !ins[0].is_empty() && ins[0].len() != 2 {
        return invalid(format!(
            "{OP}: `data` must be 2-D (batch, classes), got shape {}",
            fmt_shape(&ins[0])
        ));
    }
    if !ins[1].is_empty() && ins[1].len() != 1 {
        return invalid(format!(
            "{OP}: `label` must be 1-D (batch,), got shape {}",
            fmt_shape(&ins[1])
        ));
    }
    let n = ins[0].first().copied().unwrap_or(0);
    let m = ins[1].first().copied().unwrap_or(0);
    if n != 0 && m != 0 && n != m {
        return invalid(format!(
            "{OP}: data {} and label {} disagree on the batch size",
            fmt_shape(&ins[0]),
            fmt_shape(&ins[1])
        ));
    }
    if n.max(m) != 0 {
        set_in(ins, 0, &[n.max(m), 0])?;
        set_in(ins, 1, &[n.max(m)])?;
    }
    set_out(outs, 0, &[1])
}

/// The class of each row: the label truncated toward zero, clipped into [0, k).
fn classes(label: &Tensor, k: usize) -> impl Iterator<Item = usize> + '_ {
    label
        .data
        .iter()
        .map(move |&l| (l.trunc().max(0.0) as usize).min(k.saturating_sub(1)))
}

fn sce_ref(_: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (x, label) = (ins[0], ins[1]);
    let k = x.shape[1];
    let p = softmax_along(x, 1, 1.0, false, None);
    let loss: f64 = classes(label, k)
        .enumerate()
        .map(|(n, c)| -p[n * k + c].max(1e-8).ln())
        .sum();
    Ok(vec![Tensor {
        dtype: x.dtype,
        shape: vec![1],
        data: vec![loss],
    }])
}

fn sce_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[0], ctx.inputs[1]];
    let dx = g.op("_backward_softmax_cross_entropy", &args, &[])?[0];
    Ok(vec![Some(dx), None])
}

static SOFTMAX_CROSS_ENTROPY_BACKWARD: OpDef = OpDef {
    doc: "Gradient of softmax_cross_entropy with respect to its data: `(softmax(data) − \
          onehot(label))·ograd`, ograd of shape (1,).",
    params: &[],
    inputs: Inputs::Fixed(&["ograd", "data", "label"]),
    outputs: Outputs::Fixed {
        names: &["data_grad"],
        visible: 1,
    },
    infer_shape: |a, ins, outs| {
        set_in(ins, 0, &[1])?;
        sce_shape(a, &mut ins[1..], &mut [vec![1]])?;
        same_shape(a, &mut ins[1..2], outs)
    },
    inplace: &[],
    cost: |_, ins, _| ins.get(1).map_or(0, |d| elems(d).saturating_mul(5)),
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_softmax_cross_entropy",
        Pattern::Opaque,
        Compute::Library {
            kernel: "softmax_cross_entropy_backward",
            reference: sce_backward_ref,
        },
    )
};

fn sce_backward_ref(_: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (og, x, label) = (ins[0], ins[1], ins[2]);
    let k = x.shape[1];
    let mut p = softmax_along(x, 1, 1.0, false, None);
    for (n, c) in classes(label, k).enumerate() {
        p[n * k + c] -= 1.0;
    }
    let scale = og.data[0];
    p.iter_mut().for_each(|v| *v *= scale);
    Ok(vec![Tensor {
        data: p,
        ..x.clone()
    }])
}

pub fn register(r: &mut Registry) {
    for op in [
        &MAKE_LOSS,
        &MAKE_LOSS_BACKWARD,
        &SMOOTH_L1,
        &SOFTMAX_CROSS_ENTROPY,
        &SOFTMAX_CROSS_ENTROPY_BACKWARD,
    ] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::Tensor;

    /// The data gradient for random heads, checked to ignore them.
    fn loss_grad(kv: &[(&str, &str)], x: &Tensor) -> Vec<f64> {
        let head = randn(&x.shape, 7);
        let g = analytic_grad("MakeLoss", kv, std::slice::from_ref(x), &[head], true).unwrap();
        let g0 = analytic_grad("MakeLoss", kv, std::slice::from_ref(x), &[], true).unwrap();
        assert_eq!(g, g0, "MakeLoss ignores the head gradient");
        g[0].clone().unwrap().data
    }

    #[test]
    fn make_loss_is_the_identity_with_a_normalized_constant_gradient() {
        let x = t(&[2, 3], vec![0.5, -1., 2., 0., 3., -0.2]);
        let out = run("MakeLoss", &[], &[&x], false).unwrap();
        assert_eq!(out[0], x);
        assert!(op("MakeLoss").loss);
        let g = loss_grad(&[("grad_scale", "3")], &x);
        assert_eq!(g, vec![3.; 6]);
        let g = loss_grad(&[("grad_scale", "3"), ("normalization", "batch")], &x);
        assert_eq!(g, vec![1.5; 6]);
        // valid: 3 elements above 0.4 (strictly).
        let kv = [
            ("grad_scale", "3"),
            ("normalization", "valid"),
            ("valid_thresh", "0.5"),
        ];
        assert_eq!(loss_grad(&kv, &x), vec![1.5; 6]);
        // None valid: divided by 1. Batch on (2, 3, 4) divides by 6 (MXNet's 2-D view).
        let kv = [("normalization", "valid"), ("valid_thresh", "9")];
        assert_eq!(loss_grad(&kv, &x), vec![1.; 6]);
        let kv = [("grad_scale", "6"), ("normalization", "batch")];
        assert_eq!(loss_grad(&kv, &randn(&[2, 3, 4], 1)), vec![1.; 24]);
        assert_eq!(loss_grad(&kv, &randn(&[5], 2)), vec![6.; 5]);
    }

    #[test]
    fn smooth_l1_by_hand() {
        let x = t(&[6], vec![-2., -0.5, 0.1, 0.25, 1.0, 3.]);
        let out = run("smooth_l1", &[], &[&x], false).unwrap();
        assert_close(&out[0].data, &[1.5, 0.125, 0.005, 0.03125, 0.5, 2.5], 1e-15);
        let out = run("smooth_l1", &[("scalar", "2")], &[&x], false).unwrap();
        assert_close(
            &out[0].data,
            &[1.875, 0.375, 0.02, 0.125, 0.875, 2.875],
            1e-15,
        );
        // MXNet's gradient: ±1 outside, σ²x inside (1 at the boundary x = 1/σ²).
        let head = t(&[6], vec![1.; 6]);
        let g = analytic_grad("smooth_l1", &[("scalar", "2")], &[x], &[head], false).unwrap();
        assert_close(
            &g[0].as_ref().unwrap().data,
            &[-1., -1., 0.4, 1., 1., 1.],
            1e-15,
        );
        check_grad(
            "smooth_l1",
            &[("scalar", "0.7")],
            &[randn(&[3, 7], 3)],
            false,
            &[],
        );
    }

    #[test]
    fn softmax_cross_entropy_by_hand() {
        let x = t(&[2, 3], vec![1., 2., 3., 0.5, -1., 0.]);
        let label = t(&[2], vec![2., 1.]);
        let out = run("softmax_cross_entropy", &[], &[&x, &label], false).unwrap();
        let lse = |r: &[f64]| r.iter().map(|v| v.exp()).sum::<f64>().ln();
        let want = (lse(&x.data[..3]) - 3.) + (lse(&x.data[3..]) + 1.);
        assert_close(&out[0].data, &[want], 1e-14);
        assert_eq!(out[0].shape, vec![1]);
        // A vanishing probability is floored at 1e-8.
        let x1 = t(&[1, 3], vec![1000., 0., -1000.]);
        let out = run(
            "softmax_cross_entropy",
            &[],
            &[&x1, &t(&[1], vec![2.])],
            false,
        )
        .unwrap();
        assert_close(&out[0].data, &[-(1e-8f64).ln()], 1e-14);
        // Gradient: (p − onehot)·ograd; the label gets none.
        check_grad(
            "softmax_cross_entropy",
            &[],
            &[x.clone(), label.clone()],
            false,
            &[1],
        );
        let g = analytic_grad("softmax_cross_entropy", &[], &[x, label], &[], false).unwrap();
        assert!(g[1].is_none());
    }

    #[test]
    fn softmax_cross_entropy_shapes() {
        let sce = "softmax_cross_entropy";
        let (ins, outs) = infer(sce, &[], &[&[4, 3]]).unwrap();
        assert_eq!((ins[1].clone(), outs[0].clone()), (vec![4], vec![1]));
        let (ins, _) = infer(sce, &[], &[&[], &[5]]).unwrap();
        assert_eq!(ins[0], vec![5, 0]);
        assert_eq!(
            infer_err(sce, &[], &[&[2, 3, 4]]),
            "softmax_cross_entropy: `data` must be 2-D (batch, classes), got shape (2, 3, 4)"
        );
        assert_eq!(
            infer_err(sce, &[], &[&[2, 3], &[3]]),
            "softmax_cross_entropy: data (2, 3) and label (3,) disagree on the batch size"
        );
        let (ins, outs) = infer("_backward_softmax_cross_entropy", &[], &[&[], &[2, 3]]).unwrap();
        assert_eq!(ins[0], vec![1]);
        assert_eq!(outs[0], vec![2, 3]);
    }
}
