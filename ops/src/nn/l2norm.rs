//! L2Normalization: `x / sqrt(Σ x² + eps)` over each instance (all axes but the first),
//! each position across channels (axis 1), or each channel's spatial plane (axes 2...).
//!
//! As MXNet: the norm `sqrt(Σ x² + eps)` is a hidden output, shaped (N,) for instance
//! mode, data's shape with axis 1 set to 1 for channel mode, and (N, C) for spatial mode;
//! channel and spatial modes need data of rank ≥ 3. The gradient is
//! `_backward_L2Normalization` (as MXNet), computed from the output and the norm.

use super::common::{elems, rank_error, Through};
use crate::def::PerSample;
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{same_shape, set_out, OpError, Shape};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs, Pattern,
    Registry, Tensor,
};

const OP: &str = "L2Normalization";

const L2_PARAMS: &[ParamDef] = &[
    param(
        "eps",
        ParamType::Float,
        Some("1e-10"),
        "added to the sum of squares",
    ),
    param(
        "mode",
        ParamType::Enum(&["channel", "instance", "spatial"]),
        Some("instance"),
        "instance: one norm per instance; channel: across channels at each position; \
         spatial: over each channel's positions",
    ),
];

static L2_NORMALIZATION: OpDef = OpDef {
    per_sample: PerSample::Always,
    doc: "L2 normalization: `out = x / sqrt(Σ x² + eps)`, the sum over all axes but the first \
          (mode instance), over axis 1 (channel) or over axes 2... (spatial). The norm is a \
          hidden output: (N,), data's shape with axis 1 set to 1, or (N, C).",
    params: L2_PARAMS,
    outputs: Outputs::Fixed {
        names: &["output", "norm"],
        visible: 1,
    },
    infer_shape: l2_shape,
    inplace: &[],
    cost: |_, ins, _| elems(&ins[0]).saturating_mul(3),
    grad: Grad::Rule(l2_grad),
    ..OpDef::new(
        OP,
        Pattern::Opaque,
        Compute::Library {
            kernel: "l2_normalization",
            reference: l2_ref,
        },
    )
};

fn norm_shape(a: &Attrs, d: &[usize]) -> Result<Shape, OpError> {
    match a.str("mode") {
        "instance" => Ok(vec![d[0]]),
        _ if d.len() < 3 => rank_error(
            OP,
            "data",
            &format!("at least 3-D in {} mode", a.str("mode")),
            d,
        ),
        "channel" => {
            let mut s = d.to_vec();
            s[1] = 1;
            Ok(s)
        }
        _ => Ok(vec![d[0], d[1]]),
    }
}

fn l2_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    same_shape(a, ins, &mut outs[..1])?;
    if ins[0].is_empty() {
        return Ok(());
    }
    let n = norm_shape(a, &ins[0])?;
    set_out(outs, 1, &n)
}

/// The norm entry of each element of `shape` (row-major) and the number of norms.
fn sets(a: &Attrs, shape: &[usize]) -> Result<(Vec<usize>, usize), OpError> {
    let count = norm_shape(a, shape)?.iter().product::<usize>();
    let n: usize = shape.iter().product();
    let set = match a.str("mode") {
        "channel" => {
            let (c, plane) = (shape[1], n / (shape[0] * shape[1]).max(1));
            (0..n)
                .map(|i| (i / (c * plane)) * plane + i % plane)
                .collect()
        }
        _ => {
            let per = n / count.max(1);
            (0..n).map(|i| i / per.max(1)).collect()
        }
    };
    Ok((set, count))
}

fn l2_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let x = ins[0];
    let (set, count) = sets(ctx.attrs, &x.shape)?;
    let mut norm = vec![0.0; count];
    for (v, &k) in x.data.iter().zip(&set) {
        norm[k] += v * v;
    }
    let eps = ctx.attrs.float("eps");
    norm.iter_mut().for_each(|n| *n = (*n + eps).sqrt());
    let mut out = x.clone();
    for (o, &k) in out.data.iter_mut().zip(&set) {
        *o /= norm[k];
    }
    let norm = Tensor {
        dtype: x.dtype,
        shape: ctx.out_shapes[1].clone(),
        data: norm,
    };
    Ok(vec![out, norm])
}

fn l2_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.outputs[0], ctx.outputs[1]];
    let dx = g.op("_backward_L2Normalization", &args, ctx.raw_attrs)?[0];
    Ok(vec![Some(dx)])
}

static L2_NORMALIZATION_BACKWARD: OpDef = OpDef {
    doc: "Gradient of L2Normalization from ograd g, the output y and the norm n: \
          `(g − y·Σ g·y) / n`, the sum over each norm's elements. Takes the forward's \
          parameters.",
    params: L2_PARAMS,
    inputs: Inputs::Fixed(&["ograd", "output", "norm"]),
    outputs: Outputs::Fixed {
        names: &["data_grad"],
        visible: 1,
    },
    infer_shape: |a, ins, outs| {
        let through = Through {
            inputs: &[None],
            outputs: &[&[0, 1], &[2]],
            grads: &[0],
        };
        through.shapes(l2_shape, a, ins, outs)
    },
    // The gradient may take ograd's buffer (as MXNet).
    inplace: &[(0, 0)],
    cost: |_, ins, _| elems(&ins[0]).saturating_mul(4),
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_L2Normalization",
        Pattern::Opaque,
        Compute::Library {
            kernel: "l2_normalization_backward",
            reference: l2_backward_ref,
        },
    )
};

fn l2_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (og, y, norm) = (ins[0], ins[1], ins[2]);
    let (set, count) = sets(ctx.attrs, &y.shape)?;
    let mut dot = vec![0.0; count];
    for i in 0..y.len() {
        dot[set[i]] += og.data[i] * y.data[i];
    }
    let mut dx = og.clone();
    for (i, d) in dx.data.iter_mut().enumerate() {
        let k = set[i];
        *d = (og.data[i] - y.data[i] * dot[k]) / norm.data[k];
    }
    Ok(vec![dx])
}

pub fn register(r: &mut Registry) {
    r.add(&L2_NORMALIZATION);
    r.add(&L2_NORMALIZATION_BACKWARD);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;

    const L2: &str = "L2Normalization";

    #[test]
    fn norm_shapes_per_mode() {
        let (_, outs) = infer(L2, &[], &[&[2, 3, 4, 5]]).unwrap();
        assert_eq!(outs, vec![vec![2, 3, 4, 5], vec![2]]);
        let (_, outs) = infer(L2, &[("mode", "channel")], &[&[2, 3, 4, 5]]).unwrap();
        assert_eq!(outs[1], vec![2, 1, 4, 5]);
        let (_, outs) = infer(L2, &[("mode", "spatial")], &[&[2, 3, 4, 5]]).unwrap();
        assert_eq!(outs[1], vec![2, 3]);
        let (_, outs) = infer(L2, &[], &[&[3]]).unwrap();
        assert_eq!(outs[1], vec![3]);
        assert_eq!(
            infer_err(L2, &[("mode", "spatial")], &[&[2, 3]]),
            "L2Normalization: `data` must be at least 3-D in spatial mode, got shape (2, 3)"
        );
    }

    #[test]
    fn normalizes_by_hand() {
        // (N=1, C=2, 2 positions): channel 0 = (3, 0), channel 1 = (4, 5).
        let x = t(&[1, 2, 2], vec![3., 0., 4., 5.]);
        let kv = [("eps", "0")];
        let out = run(L2, &kv, &[&x], false).unwrap();
        let n = 50f64.sqrt();
        assert_close(&out[0].data, &[3. / n, 0., 4. / n, 5. / n], 1e-15);
        assert_close(&out[1].data, &[n], 1e-15);
        let kv = [("eps", "0"), ("mode", "channel")];
        let out = run(L2, &kv, &[&x], false).unwrap();
        assert_close(&out[0].data, &[0.6, 0., 0.8, 1.], 1e-15);
        assert_close(&out[1].data, &[5., 5.], 1e-15);
        let kv = [("eps", "0"), ("mode", "spatial")];
        let out = run(L2, &kv, &[&x], false).unwrap();
        let m = 41f64.sqrt();
        assert_close(&out[0].data, &[1., 0., 4. / m, 5. / m], 1e-15);
        // eps keeps an all-zero instance finite: 0 / sqrt(eps).
        let out = run(L2, &[], &[t(&[1, 2], vec![0., 0.])], false).unwrap();
        assert_eq!(out[0].data, vec![0., 0.]);
        assert_close(&out[1].data, &[1e-5], 1e-12);
    }

    #[test]
    fn gradients_match_finite_differences() {
        check_grad(L2, &[], &[randn(&[3, 7], 1)], false, &[]);
        for mode in ["instance", "channel", "spatial"] {
            let kv = [("mode", mode), ("eps", "0.01")];
            check_grad(L2, &kv, &[randn(&[2, 3, 1, 3], 2)], false, &[]);
            check_grad(L2, &kv, &[randn(&[1, 1, 7], 3)], false, &[]);
        }
    }
}
