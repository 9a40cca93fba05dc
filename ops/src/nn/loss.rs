//! Loss heads: SoftmaxOutput and the regression outputs. Their forward pass is a softmax,
//! the identity or a sigmoid; what makes them losses (`OpDef::loss`) is their gradient,
//! which ignores the head gradient and uses the label: the backward operators
//! `_backward_SoftmaxOutput` and `_backward_{Linear,Logistic,MAE}RegressionOutput` (MXNet's
//! `_backward_*_reg_out` are aliases). Labels get no gradient.
//!
//! As MXNet: a label shaped like the data is a probability target whose gradient is
//! `(out − label)·grad_scale`, neither normalized nor smoothed; `valid` normalization
//! counts the labels different from ignore_label even without use_ignore; labels compare
//! as integers truncated toward zero; the MAE gradient of a zero residual is −1.
//! SoftmaxOutput's out_grad=True multiplies by the head gradient (an `elemwise_mul` after
//! the backward operator), but the flag is per operator, so a graph that ends in such a
//! node gets no head-gradient variable for it.

use std::ops::Range;

use super::common::{elems, numel, Through};
use super::softmax::softmax_into;
use crate::def::PerSample;
use crate::native::{for_blocks, no_scratch, serial, Native, ParallelFor, Real};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, is_known, same_shape, set_in, unify, OpError, Shape, Slot};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradFn, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs,
    Pattern, RefKernel, Registry, Tensor,
};

const DATA_LABEL: Inputs = Inputs::Fixed(&["data", "label"]);

const SO: &str = "SoftmaxOutput";

const SO_PARAMS: &[ParamDef] = &[
    param(
        "grad_scale",
        ParamType::Float,
        Some("1.0"),
        "scales the gradient",
    ),
    param(
        "ignore_label",
        ParamType::Float,
        Some("-1.0"),
        "label ignored with use_ignore",
    ),
    param(
        "multi_output",
        ParamType::Bool,
        Some("False"),
        "softmax over axis 1 per position",
    ),
    param(
        "use_ignore",
        ParamType::Bool,
        Some("False"),
        "skip rows labelled ignore_label",
    ),
    param(
        "preserve_shape",
        ParamType::Bool,
        Some("False"),
        "softmax over the last axis",
    ),
    param(
        "normalization",
        ParamType::Enum(&["batch", "null", "valid"]),
        Some("null"),
        "how the gradient is normalized",
    ),
    param(
        "out_grad",
        ParamType::Bool,
        Some("False"),
        "multiply by the head gradient",
    ),
    param(
        "smooth_alpha",
        ParamType::Float,
        Some("0.0"),
        "label smoothing",
    ),
];

static SOFTMAX_OUTPUT: OpDef = OpDef {
    per_sample: PerSample::Always,
    aliases: &["Softmax"],
    doc: "Softmax with a cross-entropy gradient. Forward: softmax over axis 1 of data viewed \
          as (n, rest); multi_output: over axis 1 of (n, k, rest); preserve_shape: over the \
          last axis. The label is data's shape minus the last axis by default ((n, rest/k) \
          with multi_output); a label shaped like data is a probability target.",
    params: SO_PARAMS,
    inputs: DATA_LABEL,
    infer_shape: softmax_output_shape,
    cost: |_, ins, _| elems(&ins[0]).saturating_mul(5),
    grad: Grad::Rule(softmax_output_grad),
    native: Some(SOFTMAX_OUTPUT_NATIVE),
    loss: true,
    ..OpDef::new(
        SO,
        Pattern::Opaque,
        Compute::Library {
            kernel: "softmax_output",
            reference: softmax_output_ref,
        },
    )
};

fn softmax_output_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    same_shape(a, &mut ins[..1], outs)?;
    let d = ins[0].clone();
    // A label shaped like the data is a probability target; 1-D data has no default label.
    if d.len() < 2 || ins[1] == d {
        return Ok(());
    }
    if !a.bool("multi_output") {
        return set_in(ins, 1, &d[..d.len() - 1]);
    }
    // (n, prod(spatial)), (n, spatial...) or (n, 1, spatial...).
    let spatial = if d[2..].contains(&0) {
        0
    } else {
        numel(&d[2..])
    };
    let flat = vec![d[0], spatial];
    let mut squeezed = d.clone();
    squeezed.remove(1);
    let mut keep = d.clone();
    keep[1] = 1;
    if ins[1].is_empty() {
        return set_in(ins, 1, &flat);
    }
    for want in [&flat, &squeezed, &keep] {
        let mut l = ins[1].clone();
        if unify(Slot::In(1), &mut l, want).is_ok() {
            ins[1] = l;
            return Ok(());
        }
    }
    invalid(format!(
        "{SO}: label {} does not fit data {} with multi_output (expected {}, {} or {})",
        fmt_shape(&ins[1]),
        fmt_shape(&d),
        fmt_shape(&flat),
        fmt_shape(&squeezed),
        fmt_shape(&keep)
    ))
}

fn softmax_output_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let x = ins[0];
    let mut data = vec![0.0; x.len()];
    softmax_output_forward(ctx.attrs, (&x.data, &x.shape), &mut data, &serial);
    Ok(vec![Tensor { data, ..x.clone() }])
}

/// The softmax of `x` (with its shape) into `out`, tasks over `parallel`: shared by the
/// reference (f64, serial) and the native kernel (f32).
fn softmax_output_forward<T: Real>(
    a: &Attrs,
    (x, shape): (&[T], &[usize]),
    out: &mut [T],
    parallel: ParallelFor,
) {
    let (n, k, s) = view(a, shape);
    per_sample(out, n, k * s, parallel, |items, out| {
        out.fill(T::from_f64(0.0));
        let x = &x[items.start * k * s..];
        softmax_into(x, (items.len(), k, s), 1.0, false, None, out);
    });
}

/// Tasks a call splits into at least (where there are as many items).
const TASKS: usize = 16;

/// `f(items, chunk)` for blocks of the `n` items of `buf` (the view's n, of `len` = k·s
/// consecutive elements each), over `parallel`: the items' softmaxes and gradients are
/// independent, and each block writes its own chunk.
fn per_sample<T: Send>(
    buf: &mut [T],
    n: usize,
    len: usize,
    parallel: ParallelFor,
    f: impl Fn(Range<usize>, &mut [T]) + Sync,
) {
    let per = n.div_ceil(TASKS).max(1);
    for_blocks(buf, per * len, parallel, &|t, chunk| {
        let first = t * per;
        f(first..(first + per).min(n), chunk);
    });
}

/// The softmax's view of data of `shape`: n rows of k classes at s positions, class
/// stride s.
fn view(a: &Attrs, shape: &[usize]) -> (usize, usize, usize) {
    let len = numel(shape);
    if a.bool("multi_output") && shape.len() >= 2 {
        let (n, k) = (shape[0], shape[1]);
        (n, k, len / (n * k).max(1))
    } else if a.bool("preserve_shape") {
        let k = shape.last().copied().unwrap_or(1);
        (len / k.max(1), k, 1)
    } else {
        let n = shape.first().copied().unwrap_or(1);
        (n, len / n.max(1), 1)
    }
}

/// SoftmaxOutput's native kernels: every configuration.
const SOFTMAX_OUTPUT_NATIVE: Native = Native {
    supports: |_, shapes| !shapes.is_empty(),
    scratch: no_scratch,
    run: |ctx, io| {
        let x = (io.inputs[0], io.in_shapes[0].as_slice());
        softmax_output_forward(ctx.attrs, x, io.outputs[0], io.parallel);
        Ok(())
    },
};
const SOFTMAX_OUTPUT_BACKWARD_NATIVE: Native = Native {
    supports: |_, shapes| shapes.len() == 2,
    scratch: no_scratch,
    run: |ctx, io| {
        let (p, label) = (
            (io.inputs[0], &io.in_shapes[0]),
            (io.inputs[1], &io.in_shapes[1]),
        );
        softmax_output_backward(ctx.attrs, p, label, io.outputs[0], io.parallel);
        Ok(())
    },
};

fn softmax_output_grad(
    g: &mut dyn GradGraph,
    ctx: &GradCtx,
) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.outputs[0], ctx.inputs[1]];
    let mut dx = g.op("_backward_SoftmaxOutput", &args, ctx.raw_attrs)?[0];
    if ctx.attrs.bool("out_grad") {
        dx = g.op("elemwise_mul", &[dx, ctx.out_grads[0]], &[])?[0];
    }
    Ok(vec![Some(dx), None])
}

static SOFTMAX_OUTPUT_BACKWARD: OpDef = OpDef {
    doc: "Gradient of SoftmaxOutput from its output p and the label, ignoring any head \
          gradient: `(p − target)·grad_scale/norm` with target the one-hot label (smoothed: \
          1 − smooth_alpha on the label, smooth_alpha/(k−1) elsewhere), zero rows where \
          use_ignore and label = ignore_label. norm: null 1, batch the label count, valid the \
          labels ≠ ignore_label (at least 1); multi_output's null and batch also divide by \
          the spatial size. A label shaped like p is a probability target: \
          `(p − label)·grad_scale`. Takes the forward's parameters.",
    params: SO_PARAMS,
    inputs: Inputs::Fixed(&["output", "label"]),
    // Element by element: the gradient may take the output's buffer (as MXNet).
    inplace: &[(0, 0)],
    outputs: Outputs::Fixed {
        names: &["data_grad"],
        visible: 1,
    },
    infer_shape: |a, ins, outs| {
        let through = Through {
            inputs: &[None, Some(1)],
            outputs: &[&[0]],
            grads: &[0],
        };
        through.shapes(softmax_output_shape, a, ins, outs)
    },
    cost: |_, ins, _| elems(&ins[0]).saturating_mul(2),
    grad: Grad::NotDifferentiable,
    native: Some(SOFTMAX_OUTPUT_BACKWARD_NATIVE),
    ..OpDef::new(
        "_backward_SoftmaxOutput",
        Pattern::Opaque,
        Compute::Library {
            kernel: "softmax_output_backward",
            reference: softmax_output_backward_ref,
        },
    )
};

fn softmax_output_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (p, label) = (ins[0], ins[1]);
    let mut dx = p.clone();
    let ins = (
        (p.data.as_slice(), &p.shape),
        (label.data.as_slice(), &label.shape),
    );
    softmax_output_backward(ctx.attrs, ins.0, ins.1, &mut dx.data, &serial);
    Ok(vec![dx])
}

/// The gradient into `dx` from the output `p` and the label, each with its shape, tasks
/// over `parallel`: shared by the reference (f64, serial) and the native kernel (f32).
/// The normalization counts over the whole label first, then the items split.
fn softmax_output_backward<T: Real>(
    a: &Attrs,
    (p, p_shape): (&[T], &Shape),
    (label, label_shape): (&[T], &Shape),
    dx: &mut [T],
    parallel: ParallelFor,
) {
    let scale = a.float("grad_scale");
    let (n, k, s) = view(a, p_shape);
    if label_shape == p_shape {
        per_sample(dx, n, k * s, parallel, |items, dx| {
            let at = items.start * k * s;
            for ((d, &pv), &l) in dx.iter_mut().zip(&p[at..]).zip(&label[at..]) {
                *d = T::from_f64((pv.to_f64() - l.to_f64()) * scale);
            }
        });
        return;
    }
    let multi = a.bool("multi_output") && p_shape.len() >= 2;
    let ignore = a.float("ignore_label") as i64;
    let use_ignore = a.bool("use_ignore");
    let alpha = a.float("smooth_alpha");
    let off_label = if k > 1 { alpha / (k - 1) as f64 } else { 0.0 };
    let valid = label
        .iter()
        .filter(|&&l| l.to_f64() as i64 != ignore)
        .count();
    let norm = match a.str("normalization") {
        "valid" => valid.max(1),
        "batch" if multi => n * s,
        "batch" => label.len(),
        _ if multi => s,
        _ => 1,
    };
    let factor = scale / norm.max(1) as f64;
    per_sample(dx, n, k * s, parallel, |items, dx| {
        let first = items.start * k * s;
        for b in items {
            for pos in 0..s {
                // Row (b, pos) reads the flattened label's entry b·s + pos, as MXNet.
                let class = label.get(b * s + pos).map_or(-1, |&l| l.to_f64() as i64);
                let ignored = use_ignore && class == ignore;
                for j in 0..k {
                    let i = (b * k + j) * s + pos;
                    let pv = p[i].to_f64();
                    let g = if ignored {
                        0.0
                    } else if j as i64 == class {
                        pv - 1.0 + alpha
                    } else {
                        pv - off_label
                    };
                    dx[i - first] = T::from_f64(g * factor);
                }
            }
        }
    });
}

const REGRESSION_PARAMS: &[ParamDef] = &[param(
    "grad_scale",
    ParamType::Float,
    Some("1.0"),
    "scales the gradient",
)];

const fn regression(
    name: &'static str,
    doc: &'static str,
    reference: RefKernel,
    grad: GradFn,
) -> OpDef {
    OpDef {
        doc,
        params: REGRESSION_PARAMS,
        inputs: DATA_LABEL,
        infer_shape: regression_shape,
        cost: |_, ins, _| elems(&ins[0]),
        grad: Grad::Rule(grad),
        loss: true,
        ..OpDef::new(
            name,
            Pattern::Opaque,
            Compute::Library {
                kernel: "regression_output",
                reference,
            },
        )
    }
}

static LINEAR_REGRESSION: OpDef = regression(
    "LinearRegressionOutput",
    "Squared-loss head: forward is the identity; the gradient is (out − label)·grad_scale / \
     (label.size / label.shape[0]). The label defaults to data's shape, or (n,) for (n, 1).",
    identity_ref,
    |g, ctx| regression_grad(g, ctx, "_backward_LinearRegressionOutput"),
);
static LOGISTIC_REGRESSION: OpDef = regression(
    "LogisticRegressionOutput",
    "Logistic head: forward is sigmoid(data); the gradient is (out − label)·grad_scale / \
     (label.size / label.shape[0]). The label defaults to data's shape, or (n,) for (n, 1).",
    sigmoid_ref,
    |g, ctx| regression_grad(g, ctx, "_backward_LogisticRegressionOutput"),
);
static MAE_REGRESSION: OpDef = regression(
    "MAERegressionOutput",
    "Absolute-loss head: forward is the identity; the gradient is sign(out − label)·grad_scale \
     / (label.size / label.shape[0]). The label defaults to data's shape, or (n,) for (n, 1).",
    identity_ref,
    |g, ctx| regression_grad(g, ctx, "_backward_MAERegressionOutput"),
);

/// The label is any shape with the data's first dimension and size.
fn regression_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    same_shape(a, &mut ins[..1], outs)?;
    if ins[1].is_empty() {
        if ins[0].len() == 2 && ins[0][1] == 1 {
            let n = ins[0][0];
            return set_in(ins, 1, &[n]);
        }
        let d = ins[0].clone();
        return set_in(ins, 1, &d);
    }
    if is_known(&ins[0])
        && is_known(&ins[1])
        && (ins[0][0] != ins[1][0] || numel(&ins[0]) != numel(&ins[1]))
    {
        return invalid(format!(
            "regression output: label {} does not match data {} (the first dimension and the \
             size must agree)",
            fmt_shape(&ins[1]),
            fmt_shape(&ins[0])
        ));
    }
    Ok(())
}

fn identity_ref(_: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    Ok(vec![ins[0].clone()])
}

fn sigmoid_ref(_: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let mut out = ins[0].clone();
    out.data
        .iter_mut()
        .for_each(|v| *v = 1.0 / (1.0 + (-*v).exp()));
    Ok(vec![out])
}

/// The backward operator `name` of the output and the label; the label gets none.
fn regression_grad(
    g: &mut dyn GradGraph,
    ctx: &GradCtx,
    name: &str,
) -> Result<Vec<Option<Handle>>, OpError> {
    let dx = g.op(name, &[ctx.inputs[1], ctx.outputs[0]], ctx.raw_attrs)?[0];
    Ok(vec![Some(dx), None])
}

/// A regression backward operator: `residual(out, label)·grad_scale/num_output`, with
/// num_output = label.size/label.shape[0].
const fn regression_backward(
    name: &'static str,
    aliases: &'static [&'static str],
    doc: &'static str,
    reference: RefKernel,
) -> OpDef {
    OpDef {
        aliases,
        doc,
        params: REGRESSION_PARAMS,
        inputs: Inputs::Fixed(&["label", "output"]),
        // The gradient may take the output's buffer, never the label's.
        inplace: &[(1, 0)],
        outputs: Outputs::Fixed {
            names: &["data_grad"],
            visible: 1,
        },
        infer_shape: |a, ins, outs| {
            let through = Through {
                inputs: &[None, Some(0)],
                outputs: &[&[1]],
                grads: &[0],
            };
            through.shapes(regression_shape, a, ins, outs)
        },
        cost: |_, ins, _| elems(&ins[0]).saturating_mul(2),
        grad: Grad::NotDifferentiable,
        ..OpDef::new(
            name,
            Pattern::Opaque,
            Compute::Library {
                kernel: "regression_output_backward",
                reference,
            },
        )
    }
}

static LINEAR_REGRESSION_BACKWARD: OpDef = regression_backward(
    "_backward_LinearRegressionOutput",
    &["_backward_linear_reg_out"],
    "Gradient of LinearRegressionOutput from the label and the output, ignoring any head \
     gradient: `(out − label)·grad_scale/num_output`, num_output = label.size/label.shape[0].",
    |ctx, ins| regression_backward_ref(ctx, ins, |o, l| o - l),
);
static LOGISTIC_REGRESSION_BACKWARD: OpDef = regression_backward(
    "_backward_LogisticRegressionOutput",
    &["_backward_logistic_reg_out"],
    "Gradient of LogisticRegressionOutput from the label and the (sigmoid) output, ignoring \
     any head gradient: `(out − label)·grad_scale/num_output`, num_output = \
     label.size/label.shape[0].",
    |ctx, ins| regression_backward_ref(ctx, ins, |o, l| o - l),
);
static MAE_REGRESSION_BACKWARD: OpDef = regression_backward(
    "_backward_MAERegressionOutput",
    &["_backward_mae_reg_out"],
    "Gradient of MAERegressionOutput from the label and the output, ignoring any head \
     gradient: `(out − label > 0 ? 1 : −1)·grad_scale/num_output` (−1 at a zero residual, as \
     MXNet), num_output = label.size/label.shape[0].",
    |ctx, ins| regression_backward_ref(ctx, ins, |o, l| if o - l > 0.0 { 1.0 } else { -1.0 }),
);

fn regression_backward_ref(
    ctx: &KernelCtx,
    ins: &[&Tensor],
    residual: fn(f64, f64) -> f64,
) -> Result<Vec<Tensor>, OpError> {
    let (label, out) = (ins[0], ins[1]);
    let num_output = label.len() / label.shape.first().copied().unwrap_or(1).max(1);
    let factor = ctx.attrs.float("grad_scale") / num_output.max(1) as f64;
    let mut dx = out.clone();
    for (d, l) in dx.data.iter_mut().zip(&label.data) {
        *d = residual(*d, *l) * factor;
    }
    Ok(vec![dx])
}

pub fn register(r: &mut Registry) {
    for op in [
        &SOFTMAX_OUTPUT,
        &LINEAR_REGRESSION,
        &LOGISTIC_REGRESSION,
        &MAE_REGRESSION,
        &SOFTMAX_OUTPUT_BACKWARD,
        &LINEAR_REGRESSION_BACKWARD,
        &LOGISTIC_REGRESSION_BACKWARD,
        &MAE_REGRESSION_BACKWARD,
    ] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::Tensor;

    const SO: &str = "SoftmaxOutput";

    #[test]
    fn softmax_output_label_shapes() {
        assert_eq!(infer(SO, &[], &[&[4, 10]]).unwrap().0[1], vec![4]);
        assert_eq!(infer(SO, &[], &[&[2, 3, 5]]).unwrap().0[1], vec![2, 3]);
        assert_eq!(
            infer(SO, &[], &[&[4, 10], &[4, 10]]).unwrap().0[1],
            vec![4, 10]
        );
        let mo = [("multi_output", "True")];
        assert_eq!(infer(SO, &mo, &[&[2, 3, 4, 5]]).unwrap().0[1], vec![2, 20]);
        assert_eq!(infer(SO, &mo, &[&[2, 3]]).unwrap().0[1], vec![2, 1]);
        assert_eq!(
            infer(SO, &mo, &[&[2, 3, 4, 5], &[2, 4, 5]]).unwrap().0[1],
            vec![2, 4, 5]
        );
        let l = infer(SO, &mo, &[&[2, 3, 4, 5], &[2, 1, 4, 0]]).unwrap().0[1].clone();
        assert_eq!(l, vec![2, 1, 4, 5]);
        assert_eq!(
            infer_err(SO, &mo, &[&[2, 3, 4, 5], &[2, 7]]),
            "SoftmaxOutput: label (2, 7) does not fit data (2, 3, 4, 5) with multi_output \
             (expected (2, 20), (2, 4, 5) or (2, 1, 4, 5))"
        );
        assert_eq!(
            infer_err(SO, &[], &[&[4, 10], &[5]]),
            "input `label` has shape (5,) but (4,) is required"
        );
        assert_eq!(op("Softmax").name, SO);
    }

    #[test]
    fn softmax_output_forward_variants() {
        let label = t(&[1], vec![0.]);
        // Default: each item (1, 2, 2) is one row of 4: e^x = (1, 3, 1, 1) over 6.
        let x = t(&[1, 2, 2], vec![0., 3f64.ln(), 0., 0.]);
        let out = run(SO, &[], &[x.clone(), t(&[1, 2], vec![0., 0.])], false).unwrap();
        assert_close(&out[0].data, &[1. / 6., 0.5, 1. / 6., 1. / 6.], 1e-15);
        let out = run(
            SO,
            &[("preserve_shape", "1")],
            &[x.clone(), t(&[1, 2], vec![0.; 2])],
            false,
        )
        .unwrap();
        assert_close(&out[0].data, &[0.25, 0.75, 0.5, 0.5], 1e-15);
        // multi_output: over axis 1 at each of the 2 positions.
        let x = t(&[1, 2, 2], vec![0., 0., 3f64.ln(), 0.]);
        let out = run(
            SO,
            &[("multi_output", "1")],
            &[x, t(&[1, 2], vec![0.; 2])],
            false,
        )
        .unwrap();
        assert_close(&out[0].data, &[0.25, 0.5, 0.75, 0.5], 1e-15);
        let x = t(&[1, 2], vec![0., 3f64.ln()]);
        let out = run("Softmax", &[], &[x, label], false).unwrap();
        assert_close(&out[0].data, &[0.25, 0.75], 1e-15);
    }

    #[test]
    fn regression_label_shapes() {
        let lr = "LinearRegressionOutput";
        assert_eq!(infer(lr, &[], &[&[4, 1]]).unwrap().0[1], vec![4]);
        assert_eq!(infer(lr, &[], &[&[4, 3]]).unwrap().0[1], vec![4, 3]);
        assert_eq!(
            infer(lr, &[], &[&[4, 3], &[4, 3, 1]]).unwrap().0[1],
            vec![4, 3, 1]
        );
        assert_eq!(
            infer_err(lr, &[], &[&[4, 3], &[3, 4]]),
            "regression output: label (3, 4) does not match data (4, 3) (the first dimension \
             and the size must agree)"
        );
    }

    #[test]
    fn regression_forward() {
        let x = t(&[2, 1], vec![0., 3f64.ln()]);
        let label = t(&[2], vec![1., 1.]);
        for name in ["LinearRegressionOutput", "MAERegressionOutput"] {
            let out = run(name, &[], &[x.clone(), label.clone()], false).unwrap();
            assert_eq!(out[0].data, x.data);
        }
        let out = run("LogisticRegressionOutput", &[], &[x, label], false).unwrap();
        assert_close(&out[0].data, &[0.5, 0.75], 1e-15);
    }

    /// The gradient a loss gives its data for random head gradients: heads must not matter,
    /// so it is also checked against the one for zero heads. The label gets none.
    fn loss_grad(name: &str, kv: &[(&str, &str)], x: &Tensor, label: &Tensor) -> Vec<f64> {
        let ins = [x.clone(), label.clone()];
        let head = randn(&x.shape, 99);
        let g = analytic_grad(name, kv, &ins, &[head], true).unwrap();
        let g0 = analytic_grad(name, kv, &ins, &[], true).unwrap();
        assert!(g[1].is_none(), "{name}: the label gets no gradient");
        assert_eq!(g[0], g0[0], "{name} ignores the head gradient");
        g[0].clone().unwrap().data
    }

    /// `(p − target)·factor` element by element.
    fn scaled_residual(p: &[f64], target: &[f64], factor: f64) -> Vec<f64> {
        p.iter()
            .zip(target)
            .map(|(p, t)| (p - t) * factor)
            .collect()
    }

    #[test]
    fn softmax_output_gradient_is_p_minus_onehot() {
        // 4 rows of 3 classes; labels 2, 0, 1, 1.
        let x = randn(&[4, 3], 1);
        let label = t(&[4], vec![2., 0., 1., 1.]);
        let p = run(SO, &[], &[&x, &label], false).unwrap()[0].data.clone();
        #[rustfmt::skip]
        let onehot = [0., 0., 1., 1., 0., 0., 0., 1., 0., 0., 1., 0.];
        let g = loss_grad(SO, &[], &x, &label);
        assert_close(&g, &scaled_residual(&p, &onehot, 1.0), 1e-15);
        // grad_scale over the batch.
        let kv = [("grad_scale", "3"), ("normalization", "batch")];
        let g = loss_grad(SO, &kv, &x, &label);
        assert_close(&g, &scaled_residual(&p, &onehot, 0.75), 1e-15);
        // use_ignore zeroes the rows labelled 1; valid counts the other 2 labels.
        let kv = [
            ("use_ignore", "True"),
            ("ignore_label", "1"),
            ("normalization", "valid"),
        ];
        let g = loss_grad(SO, &kv, &x, &label);
        let mut want = scaled_residual(&p, &onehot, 0.5);
        want[6..].fill(0.0);
        assert_close(&g, &want, 1e-15);
        // valid counts non-ignored labels even without use_ignore (MXNet).
        let kv = [("ignore_label", "1"), ("normalization", "valid")];
        let g = loss_grad(SO, &kv, &x, &label);
        assert_close(&g, &scaled_residual(&p, &onehot, 0.5), 1e-15);
        // Label smoothing: 1 − α on the label, α/(k − 1) elsewhere.
        let kv = [("smooth_alpha", "0.2")];
        let g = loss_grad(SO, &kv, &x, &label);
        let smoothed: Vec<f64> = onehot
            .iter()
            .map(|&o| if o == 1.0 { 0.8 } else { 0.1 })
            .collect();
        assert_close(&g, &scaled_residual(&p, &smoothed, 1.0), 1e-15);
        // out_grad multiplies by the head gradient instead of ignoring it.
        let head = randn(&[4, 3], 2);
        let kv = [("out_grad", "True")];
        let g = analytic_grad(
            SO,
            &kv,
            &[x.clone(), label.clone()],
            std::slice::from_ref(&head),
            true,
        )
        .unwrap();
        let want: Vec<f64> = scaled_residual(&p, &onehot, 1.0)
            .iter()
            .zip(&head.data)
            .map(|(r, h)| r * h)
            .collect();
        assert_close(&g[0].as_ref().unwrap().data, &want, 1e-15);
    }

    #[test]
    fn softmax_output_gradient_variants() {
        // A probability label (same shape as the data): (p − label)·grad_scale, never
        // normalized.
        let x = randn(&[2, 3], 3);
        let prob = t(&[2, 3], vec![0.2, 0.3, 0.5, 1., 0., 0.]);
        let kv = [("grad_scale", "2"), ("normalization", "batch")];
        let p = run(SO, &kv, &[&x, &prob], false).unwrap()[0].data.clone();
        let g = loss_grad(SO, &kv, &x, &prob);
        assert_close(&g, &scaled_residual(&p, &prob.data, 2.0), 1e-15);

        // multi_output: (n=2, k=3, 2 positions); labels per (item, position).
        let x = randn(&[2, 3, 2], 4);
        let label = t(&[2, 2], vec![0., 2., 1., 1.]);
        let mo = ("multi_output", "True");
        let p = run(SO, &[mo], &[&x, &label], false).unwrap()[0]
            .data
            .clone();
        // Layout (item, class, position): target 1 at class label[item][position].
        #[rustfmt::skip]
        let onehot = [1., 0., 0., 0., 0., 1., 0., 0., 1., 1., 0., 0.];
        // null divides by the spatial size, batch by it and the batch, valid by the
        // count of labels ≠ ignore_label.
        for (norm, factor) in [("null", 0.5), ("batch", 0.25), ("valid", 1.0 / 3.0)] {
            let kv = [mo, ("normalization", norm), ("ignore_label", "2")];
            let g = loss_grad(SO, &kv, &x, &label);
            assert_close(&g, &scaled_residual(&p, &onehot, factor), 1e-15);
        }
        // Smoothing along the class axis.
        let kv = [mo, ("smooth_alpha", "0.3")];
        let g = loss_grad(SO, &kv, &x, &label);
        let smoothed: Vec<f64> = onehot
            .iter()
            .map(|&o| if o == 1.0 { 0.7 } else { 0.15 })
            .collect();
        assert_close(&g, &scaled_residual(&p, &smoothed, 0.5), 1e-15);
        // The (n, 1, spatial) label form, with ignore.
        let label4 = t(&[2, 1, 2], label.data.clone());
        let kv = [mo, ("use_ignore", "True"), ("ignore_label", "2")];
        let g = loss_grad(SO, &kv, &x, &label4);
        let mut want = scaled_residual(&p, &onehot, 0.5);
        [1, 3, 5].iter().for_each(|&i| want[i] = 0.0); // item 0, position 1
        assert_close(&g, &want, 1e-15);

        // preserve_shape: softmax over the last axis of (2, 2, 3), 4 labels; batch divides
        // by the label count.
        let x = randn(&[2, 2, 3], 5);
        let label = t(&[2, 2], vec![1., 0., 2., 2.]);
        let kv = [("preserve_shape", "True"), ("normalization", "batch")];
        let p = run(SO, &kv, &[&x, &label], false).unwrap()[0].data.clone();
        #[rustfmt::skip]
        let onehot = [0., 1., 0., 1., 0., 0., 0., 0., 1., 0., 0., 1.];
        let g = loss_grad(SO, &kv, &x, &label);
        assert_close(&g, &scaled_residual(&p, &onehot, 0.25), 1e-15);
    }

    #[test]
    fn regression_gradients() {
        let x = randn(&[4, 3], 6);
        let label = randn(&[4, 3], 7);
        let kv = [("grad_scale", "1.5")];
        // num_output = 3.
        let g = loss_grad("LinearRegressionOutput", &kv, &x, &label);
        assert_close(&g, &scaled_residual(&x.data, &label.data, 0.5), 1e-15);
        let s: Vec<f64> = x.data.iter().map(|v| 1.0 / (1.0 + (-v).exp())).collect();
        let g = loss_grad("LogisticRegressionOutput", &kv, &x, &label);
        assert_close(&g, &scaled_residual(&s, &label.data, 0.5), 1e-15);
        let g = loss_grad("MAERegressionOutput", &kv, &x, &label);
        let want: Vec<f64> = x
            .data
            .iter()
            .zip(&label.data)
            .map(|(o, l)| if o > l { 0.5 } else { -0.5 })
            .collect();
        assert_close(&g, &want, 0.0);
        // A zero residual counts as negative (MXNet's minus_sign).
        let g = loss_grad(
            "MAERegressionOutput",
            &[],
            &t(&[2, 1], vec![1., 2.]),
            &t(&[2], vec![1., 1.]),
        );
        assert_eq!(g, vec![-1., 1.]);
        // (n, 1) data with an (n,) label: num_output 1; a label of another shape with the
        // same size: num_output from the label (4·3·1 / 4).
        let x1 = randn(&[4, 1], 8);
        let l1 = randn(&[4], 9);
        let g = loss_grad("LinearRegressionOutput", &[], &x1, &l1);
        assert_close(&g, &scaled_residual(&x1.data, &l1.data, 1.0), 1e-15);
        let l3 = t(&[4, 3, 1], label.data.clone());
        let g = loss_grad("LinearRegressionOutput", &[], &x, &l3);
        assert_close(&g, &scaled_residual(&x.data, &label.data, 1.0 / 3.0), 1e-15);
        assert_eq!(
            op("_backward_linear_reg_out").name,
            "_backward_LinearRegressionOutput"
        );
        assert!(op("SoftmaxOutput").loss && op("MAERegressionOutput").loss);
        // Backward inference runs through the forward's: the label from the output.
        let (ins, outs) = infer("_backward_SoftmaxOutput", &[], &[&[4, 10]]).unwrap();
        assert_eq!((ins[1].clone(), outs), (vec![4], vec![vec![4, 10]]));
        let (ins, outs) = infer("_backward_MAERegressionOutput", &[], &[&[], &[4, 1]]).unwrap();
        assert_eq!((ins[0].clone(), outs), (vec![4], vec![vec![4, 1]]));
    }

    #[test]
    fn softmax_output_natives_compute_what_the_references_compute() {
        let configs: [&[(&str, &str)]; 4] = [
            &[],
            &[("normalization", "batch"), ("grad_scale", "2.5")],
            &[
                ("use_ignore", "True"),
                ("ignore_label", "3"),
                ("normalization", "valid"),
            ],
            &[("smooth_alpha", "0.1")],
        ];
        // 4 rows, one a task, and 37, in blocks of 3 with a shorter last one.
        let labels37 = (0..37).map(|i| (i * 3 % 5) as f64).collect();
        for (x, labels) in [
            (randn(&[4, 5], 1), t(&[4], vec![0.0, 3.0, 4.0, 1.0])),
            (randn(&[37, 5], 3), t(&[37], labels37)),
        ] {
            for kv in configs {
                let ins = [x.clone(), labels.clone()];
                check_native("SoftmaxOutput", kv, &ins, true, 1e-6);
                let p = run("SoftmaxOutput", kv, &ins, true).unwrap().remove(0);
                check_native(
                    "_backward_SoftmaxOutput",
                    kv,
                    &[p, labels.clone()],
                    true,
                    1e-6,
                );
            }
        }
        // multi_output over (n, k, spatial) with a (n, spatial) label.
        let kv = [("multi_output", "True")];
        let x = randn(&[2, 3, 4], 2);
        let labels = t(&[2, 4], vec![0.0, 1.0, 2.0, 0.0, 2.0, 2.0, 1.0, 0.0]);
        check_native(
            "SoftmaxOutput",
            &kv,
            &[x.clone(), labels.clone()],
            true,
            1e-6,
        );
        let p = run("SoftmaxOutput", &kv, &[&x, &labels], true)
            .unwrap()
            .remove(0);
        check_native("_backward_SoftmaxOutput", &kv, &[p, labels], true, 1e-6);
    }
}
