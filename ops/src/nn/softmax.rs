//! softmax, log_softmax (along any axis, with temperature and optional lengths) and the
//! legacy SoftmaxActivation (per instance or per channel).
//!
//! Their gradients are the backward operators `_backward_softmax`, `_backward_log_softmax`
//! and `_backward_SoftmaxActivation` (as MXNet), computed from the forward's output. As
//! MXNet, the softmax backward takes the data as well when a `dtype` override or lengths
//! are in play (the gradient has the data's dtype); lengths get no gradient.

use super::common::{all_grads, axis_of, elems, rank_error, split_at_axis, strings, Through};
use crate::def::PerSample;
use crate::native::Real;
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{invalid, same_dtype, same_shape, set_in, OpError, Shape, Slot};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradFn, GradGraph, Handle, Inputs, KernelCtx, OpDef,
    Outputs, Pattern, Registry, ShapeFn, Tensor,
};

const SOFTMAX_PARAMS: &[ParamDef] = &[
    param("axis", ParamType::Int, Some("-1"), "axis to normalize"),
    param(
        "temperature",
        ParamType::OptFloat,
        Some("None"),
        "divides the input (None = 1)",
    ),
    param(
        "dtype",
        ParamType::OptDType,
        Some("None"),
        "output dtype (float16, float32 or float64; None = the input's)",
    ),
    param(
        "use_length",
        ParamType::OptBool,
        Some("False"),
        "take a `length` input: only the first length[i] entries along the axis take part",
    ),
];

const fn softmax_op(
    name: &'static str,
    aliases: &'static [&'static str],
    doc: &'static str,
    inputs: Inputs,
    infer_shape: ShapeFn,
    compute: Compute,
    grad: GradFn,
) -> OpDef {
    OpDef {
        aliases,
        doc,
        params: SOFTMAX_PARAMS,
        inputs,
        infer_shape,
        infer_dtype: softmax_dtype,
        cost: softmax_cost,
        grad: Grad::Rule(grad),
        per_sample: PerSample::Where(|a, ins, _| PerSample::axis_not_first(a, "axis", ins)),
        ..OpDef::new(name, Pattern::Opaque, compute)
    }
}

/// softmax as max, subtraction, exp, sum and division along the axis (log_softmax:
/// subtraction of the sum's log); not with use_length or an output dtype.
fn expand(
    g: &mut dyn GradGraph,
    a: &Attrs,
    ins: &[Handle],
    log: bool,
) -> Result<Vec<Handle>, OpError> {
    if use_length(a) || a.opt_dtype("dtype").is_some() {
        return invalid("softmax: use_length and dtype keep the library kernel");
    }
    let axis = a.int("axis").to_string();
    let keep = [("axis", axis.as_str()), ("keepdims", "True")];
    let max = g.op("max", &[ins[0]], &keep)?[0];
    let mut shifted = g.op("broadcast_sub", &[ins[0], max], &[])?[0];
    if let Some(t) = a.opt_float("temperature").filter(|&t| t != 1.0) {
        shifted = g.op("_div_scalar", &[shifted], &[("scalar", &t.to_string())])?[0];
    }
    let e = g.op("exp", &[shifted], &[])?[0];
    let sum = g.op("sum", &[e], &keep)?[0];
    Ok(vec![if log {
        let log_sum = g.op("log", &[sum], &[])?[0];
        g.op("broadcast_sub", &[shifted, log_sum], &[])?[0]
    } else {
        g.op("broadcast_div", &[e, sum], &[])?[0]
    }])
}

static SOFTMAX: OpDef = OpDef {
    expand: Some(|g, a, ins, _| expand(g, a, ins, false)),
    ..softmax_op(
        "softmax",
        &["_npx_softmax"],
        "`exp((x − max)/T) / Σ exp((x − max)/T)` along `axis`. With use_length, entries at or \
     beyond length[i] along the axis are 0 and take no part.",
        Inputs::Dynamic(softmax_inputs),
        |a, ins, outs| softmax_shape("softmax", a, ins, outs),
        Compute::Library {
            kernel: "softmax",
            reference: |ctx, ins| softmax_ref(ctx, ins, false),
        },
        |g, ctx| softmax_grad(g, ctx, false),
    )
};

static LOG_SOFTMAX: OpDef = OpDef {
    expand: Some(|g, a, ins, _| expand(g, a, ins, true)),
    ..softmax_op(
        "log_softmax",
        &["_npx_log_softmax"],
        "`(x − max)/T − log Σ exp((x − max)/T)` along `axis`. MXNet 1.9.1's log_softmax \
     declares use_length but has no `length` input, so use_length=True is rejected.",
        Inputs::Fixed(&["data"]),
        log_softmax_shape,
        Compute::Library {
            kernel: "log_softmax",
            reference: |ctx, ins| softmax_ref(ctx, ins, true),
        },
        |g, ctx| softmax_grad(g, ctx, true),
    )
};

fn use_length(a: &Attrs) -> bool {
    a.opt_bool("use_length") == Some(true)
}

fn softmax_inputs(a: &Attrs) -> Vec<String> {
    let names: &[&str] = if use_length(a) {
        &["data", "length"]
    } else {
        &["data"]
    };
    names.iter().map(|s| s.to_string()).collect()
}

/// The output has the data's shape; `length` has the data's shape without the axis
/// ((1,) for 1-D data).
fn softmax_shape(
    op: &str,
    a: &Attrs,
    ins: &mut [Shape],
    outs: &mut [Shape],
) -> Result<(), OpError> {
    same_shape(a, &mut ins[..1], outs)?;
    if ins[0].is_empty() {
        return Ok(());
    }
    let ax = axis_of(op, "axis", a.int("axis"), &ins[0])?;
    if ins.len() > 1 {
        let mut l = ins[0].clone();
        l.remove(ax);
        if l.is_empty() {
            l.push(1);
        }
        set_in(ins, 1, &l)?;
    }
    Ok(())
}

fn log_softmax_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if use_length(a) {
        return invalid(
            "log_softmax: use_length=True is not supported (MXNet 1.9.1's log_softmax \
             takes no `length` input)",
        );
    }
    softmax_shape("log_softmax", a, ins, outs)
}

/// The output dtype is `dtype` when given, else the data's; `length` may be any dtype.
fn softmax_dtype(
    a: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    let Some(want) = a.opt_dtype("dtype") else {
        return same_dtype(a, &mut ins[..1], outs);
    };
    if !matches!(want, DType::F16 | DType::F32 | DType::F64) {
        return invalid(format!(
            "softmax: `dtype` must be float16, float32 or float64, got {want}"
        ));
    }
    match outs[0] {
        Some(have) if have != want => Err(OpError::DType {
            slot: Slot::Out(0),
            have,
            want,
        }),
        _ => {
            outs[0] = Some(want);
            ins[0].get_or_insert(want);
            Ok(())
        }
    }
}

fn softmax_cost(_: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    // max, subtract, exp, sum, divide
    elems(&ins[0]).saturating_mul(5)
}

/// Softmax (or log-softmax) of `x` along `axis`; `lengths` (indexed like the data without
/// the axis) limits each row to its first entries, the rest becoming 0.
pub(super) fn softmax_along(
    x: &Tensor,
    ax: usize,
    temperature: f64,
    log: bool,
    lengths: Option<&Tensor>,
) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    let view = split_at_axis(&x.shape, ax);
    let lengths = lengths.map(|l| l.data.as_slice());
    softmax_into(&x.data, view, temperature, log, lengths, &mut out);
    out
}

/// Softmax of `x` viewed as `(outer, m, inner)` along `m`, into `out` (untouched past a
/// row's length): shared by the reference (f64) and native kernels (f32).
pub(super) fn softmax_into<T: Real>(
    x: &[T],
    (outer, m, inner): (usize, usize, usize),
    temperature: f64,
    log: bool,
    lengths: Option<&[T]>,
    out: &mut [T],
) {
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| (o * m + j) * inner + i;
            // Out-of-range lengths are clipped to the axis.
            let len = lengths.map_or(m, |l| (l[o * inner + i].to_f64().max(0.0) as usize).min(m));
            if len == 0 {
                continue;
            }
            let max = (0..len)
                .map(|j| x[at(j)].to_f64())
                .fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = (0..len)
                .map(|j| ((x[at(j)].to_f64() - max) / temperature).exp())
                .sum();
            for j in 0..len {
                let z = (x[at(j)].to_f64() - max) / temperature;
                out[at(j)] = T::from_f64(if log { z - sum.ln() } else { z.exp() / sum });
            }
        }
    }
}

fn softmax_ref(ctx: &KernelCtx, ins: &[&Tensor], log: bool) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let x = ins[0];
    let ax = axis_of("softmax", "axis", a.int("axis"), &x.shape)?;
    let t = a.opt_float("temperature").unwrap_or(1.0);
    let data = softmax_along(x, ax, t, log, ins.get(1).copied());
    Ok(vec![Tensor { data, ..x.clone() }])
}

static SOFTMAX_ACTIVATION: OpDef = OpDef {
    // A 1-D input is one instance: the batch.
    per_sample: PerSample::Where(|_, ins, _| ins.first().is_some_and(|s| s.len() > 1)),
    doc: "Legacy softmax: mode=instance normalizes over the last axis (MXNet views the data \
          as 2-D by collapsing all leading axes, so for 2-D data each row is an instance); \
          mode=channel normalizes over axis 1 at every position (data of at least 3 \
          dimensions).",
    params: &[param(
        "mode",
        ParamType::Enum(&["channel", "instance"]),
        Some("instance"),
        "what to normalize over",
    )],
    infer_shape: softmax_activation_shape,
    cost: softmax_cost,
    grad: Grad::Rule(|g, ctx| {
        let args = [ctx.out_grads[0], ctx.outputs[0]];
        all_grads(g, ctx, "_backward_SoftmaxActivation", &args)
    }),
    ..OpDef::new(
        "SoftmaxActivation",
        Pattern::Opaque,
        Compute::Library {
            kernel: "softmax_activation",
            reference: softmax_activation_ref,
        },
    )
};

fn softmax_activation_shape(
    a: &Attrs,
    ins: &mut [Shape],
    outs: &mut [Shape],
) -> Result<(), OpError> {
    same_shape(a, ins, outs)?;
    if a.str("mode") == "channel" && !ins[0].is_empty() && ins[0].len() < 3 {
        let want = "at least 3-D for mode=channel";
        return rank_error("SoftmaxActivation", "data", want, &ins[0]);
    }
    Ok(())
}

/// Channel mode normalizes over axis 1, instance mode over the last axis.
fn softmax_activation_axis(a: &Attrs, shape: &[usize]) -> usize {
    match a.str("mode") {
        "channel" => 1,
        _ => shape.len().saturating_sub(1),
    }
}

fn softmax_activation_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let x = ins[0];
    let axis = softmax_activation_axis(ctx.attrs, &x.shape);
    let data = softmax_along(x, axis, 1.0, false, None);
    Ok(vec![Tensor { data, ..x.clone() }])
}

/// The gradient of softmax (or log-softmax) along `ax` from its output `y` and the head
/// gradient `g`: `y·(g − Σ g·y)/T` (log: `(g − exp(y)·Σ g)/T`), zero beyond each row's
/// length.
fn softmax_grad_along(
    g: &Tensor,
    y: &Tensor,
    ax: usize,
    temperature: f64,
    log: bool,
    lengths: Option<&Tensor>,
) -> Vec<f64> {
    let (outer, m, inner) = split_at_axis(&y.shape, ax);
    let mut dx = vec![0.0; y.len()];
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| (o * m + j) * inner + i;
            let len = lengths.map_or(m, |l| (l.data[o * inner + i].max(0.0) as usize).min(m));
            let dot: f64 = (0..len)
                .map(|j| g.data[at(j)] * if log { 1.0 } else { y.data[at(j)] })
                .sum();
            for j in 0..len {
                let (gv, yv) = (g.data[at(j)], y.data[at(j)]);
                dx[at(j)] = if log {
                    gv - yv.exp() * dot
                } else {
                    yv * (gv - dot)
                } / temperature;
            }
        }
    }
    dx
}

/// Whether the softmax backward takes the data too (MXNet's rule): with a dtype override
/// (the gradient has the data's dtype) or lengths.
fn backward_takes_data(a: &Attrs) -> bool {
    a.opt_dtype("dtype").is_some() || use_length(a)
}

/// The rule of softmax (`log`: log_softmax): the backward operator of the forward's
/// output; `length` gets no gradient.
fn softmax_grad(
    g: &mut dyn GradGraph,
    ctx: &GradCtx,
    log: bool,
) -> Result<Vec<Option<Handle>>, OpError> {
    let mut args = vec![ctx.out_grads[0]];
    if backward_takes_data(ctx.attrs) {
        args.extend(ctx.inputs); // data, and length if any
    }
    args.push(ctx.outputs[0]);
    let name = if log {
        "_backward_log_softmax"
    } else {
        "_backward_softmax"
    };
    let grads = g.op(name, &args, ctx.raw_attrs)?;
    let mut out = vec![None; ctx.inputs.len()];
    out[0] = Some(grads[0]);
    Ok(out)
}

const fn softmax_backward_op(
    name: &'static str,
    doc: &'static str,
    infer_shape: ShapeFn,
    compute: Compute,
) -> OpDef {
    OpDef {
        doc,
        params: SOFTMAX_PARAMS,
        inputs: Inputs::Dynamic(softmax_backward_inputs),
        outputs: Outputs::Fixed {
            names: &["data_grad"],
            visible: 1,
        },
        infer_shape,
        infer_dtype: |a, ins, outs| softmax_through(a).dtypes(softmax_dtype, a, ins, outs),
        // Each row reads all of ograd before writing.
        inplace: &[],
        cost: softmax_cost,
        grad: Grad::NotDifferentiable,
        ..OpDef::new(name, Pattern::Opaque, compute)
    }
}

static SOFTMAX_BACKWARD: OpDef = softmax_backward_op(
    "_backward_softmax",
    "Gradient of softmax from ograd and the forward output y: `y·(ograd − Σ ograd·y)/T` \
     along the axis, zero beyond each row's length. Inputs: ograd, then data (and length) \
     when a dtype override (or use_length) is set, then the output. Takes the forward's \
     parameters.",
    |a, ins, outs| {
        softmax_through(a).shapes(|a, i, o| softmax_shape("softmax", a, i, o), a, ins, outs)
    },
    Compute::Library {
        kernel: "softmax_backward",
        reference: |ctx, ins| softmax_backward_ref(ctx, ins, false),
    },
);

static LOG_SOFTMAX_BACKWARD: OpDef = softmax_backward_op(
    "_backward_log_softmax",
    "Gradient of log_softmax from ograd and the forward output y: \
     `(ograd − exp(y)·Σ ograd)/T` along the axis. Inputs: ograd, then data when a dtype \
     override is set, then the output. Takes the forward's parameters.",
    |a, ins, outs| softmax_through(a).shapes(log_softmax_shape, a, ins, outs),
    Compute::Library {
        kernel: "log_softmax_backward",
        reference: |ctx, ins| softmax_backward_ref(ctx, ins, true),
    },
);

fn softmax_backward_inputs(a: &Attrs) -> Vec<String> {
    strings(match (backward_takes_data(a), use_length(a)) {
        (true, true) => &["ograd", "data", "length", "output"],
        (true, false) => &["ograd", "data", "output"],
        _ => &["ograd", "output"],
    })
}

/// The forward's data is backward input 1 when taken (its length 2); ograd and the output
/// are the first and last inputs.
fn softmax_through(a: &Attrs) -> Through<'static> {
    match (backward_takes_data(a), use_length(a)) {
        (true, true) => Through {
            inputs: &[Some(1), Some(2)],
            outputs: &[&[0, 3]],
            grads: &[0],
        },
        (true, false) => Through {
            inputs: &[Some(1)],
            outputs: &[&[0, 2]],
            grads: &[0],
        },
        _ => Through {
            inputs: &[None],
            outputs: &[&[0, 1]],
            grads: &[0],
        },
    }
}

fn softmax_backward_ref(
    ctx: &KernelCtx,
    ins: &[&Tensor],
    log: bool,
) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let (og, y) = (ins[0], ins[ins.len() - 1]);
    let ax = axis_of("softmax", "axis", a.int("axis"), &y.shape)?;
    let t = a.opt_float("temperature").unwrap_or(1.0);
    let lengths = if use_length(a) {
        ins.get(2).copied()
    } else {
        None
    };
    let data = softmax_grad_along(og, y, ax, t, log, lengths);
    Ok(vec![Tensor { data, ..og.clone() }])
}

static SOFTMAX_ACTIVATION_BACKWARD: OpDef = OpDef {
    doc: "Gradient of SoftmaxActivation from ograd and the forward output y: \
          `y·(ograd − Σ ograd·y)` over the last axis (instance) or axis 1 (channel). Takes \
          the forward's parameters.",
    params: SOFTMAX_ACTIVATION.params,
    inputs: Inputs::Fixed(&["ograd", "output"]),
    inplace: &[],
    outputs: Outputs::Fixed {
        names: &["data_grad"],
        visible: 1,
    },
    infer_shape: |a, ins, outs| {
        let through = Through {
            inputs: &[None],
            outputs: &[&[0, 1]],
            grads: &[0],
        };
        through.shapes(softmax_activation_shape, a, ins, outs)
    },
    cost: softmax_cost,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_SoftmaxActivation",
        Pattern::Opaque,
        Compute::Library {
            kernel: "softmax_activation_backward",
            reference: |ctx, ins| {
                let (og, y) = (ins[0], ins[1]);
                let axis = softmax_activation_axis(ctx.attrs, &y.shape);
                let data = softmax_grad_along(og, y, axis, 1.0, false, None);
                Ok(vec![Tensor { data, ..og.clone() }])
            },
        },
    )
};

pub fn register(r: &mut Registry) {
    for op in [
        &SOFTMAX,
        &LOG_SOFTMAX,
        &SOFTMAX_ACTIVATION,
        &SOFTMAX_BACKWARD,
        &LOG_SOFTMAX_BACKWARD,
        &SOFTMAX_ACTIVATION_BACKWARD,
    ] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::DType;

    #[test]
    fn softmax_by_hand() {
        let out = run("softmax", &[], &[t(&[3], vec![1., 2., 3.])], false).unwrap();
        let e = [1f64.exp(), 2f64.exp(), 3f64.exp()];
        let s: f64 = e.iter().sum();
        assert_close(&out[0].data, &e.map(|v| v / s), 1e-15);
        // exp(x/2) = (1, 3).
        let x = t(&[2], vec![0., 2. * 3f64.ln()]);
        let out = run("softmax", &[("temperature", "2")], &[&x], false).unwrap();
        assert_close(&out[0].data, &[0.25, 0.75], 1e-15);
        let out = run("log_softmax", &[("temperature", "2")], &[x], false).unwrap();
        assert_close(&out[0].data, &[0.25f64.ln(), 0.75f64.ln()], 1e-15);
        // Large inputs do not overflow (the maximum is subtracted first).
        let out = run("softmax", &[], &[t(&[2], vec![1000., 1000.])], false).unwrap();
        assert_close(&out[0].data, &[0.5, 0.5], 0.0);
    }

    #[test]
    fn softmax_along_axis_zero() {
        let x = t(&[2, 2], vec![0., 0., 3f64.ln(), 0.]);
        let out = run("softmax", &[("axis", "0")], &[x], false).unwrap();
        assert_close(&out[0].data, &[0.25, 0.5, 0.75, 0.5], 1e-15);
    }

    #[test]
    fn lengths_mask_the_tail() {
        let (ins, _) = infer(
            "softmax",
            &[("use_length", "True"), ("axis", "1")],
            &[&[2, 3, 4]],
        )
        .unwrap();
        assert_eq!(ins[1], vec![2, 4]);
        let (ins, _) = infer("softmax", &[("use_length", "True")], &[&[5]]).unwrap();
        assert_eq!(ins[1], vec![1]);
        let x = t(&[2, 3], vec![0.; 6]);
        let len = t(&[2], vec![2., 0.]);
        let kv = [("use_length", "True")];
        let out = run("softmax", &kv, &[x, len], false).unwrap();
        assert_close(&out[0].data, &[0.5, 0.5, 0., 0., 0., 0.], 0.0);
        assert_eq!(
            infer_err("log_softmax", &kv, &[&[2, 3]]),
            "log_softmax: use_length=True is not supported (MXNet 1.9.1's log_softmax takes no \
             `length` input)"
        );
    }

    #[test]
    fn dtype_override() {
        let o = op("softmax");
        let a = attrs(o, &[("dtype", "float64")]);
        let (mut ins, mut outs) = (vec![Some(DType::F32)], vec![None]);
        (o.infer_dtype)(&a, &mut ins, &mut outs).unwrap();
        assert_eq!(outs, vec![Some(DType::F64)]);
        let a = attrs(o, &[("dtype", "int32")]);
        let e = (o.infer_dtype)(&a, &mut [None], &mut [None]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "softmax: `dtype` must be float16, float32 or float64, got int32"
        );
        assert_eq!(
            infer_err("log_softmax", &[("axis", "2")], &[&[2, 3]]),
            "log_softmax: axis=2 is out of range for data (2, 3)"
        );
    }

    #[test]
    fn softmax_activation_modes() {
        // (1, 2, 2): channel mode normalizes each position over 2 channels.
        let x = t(&[1, 2, 2], vec![0., 0., 3f64.ln(), 0.]);
        let out = run("SoftmaxActivation", &[("mode", "channel")], &[&x], false).unwrap();
        assert_close(&out[0].data, &[0.25, 0.5, 0.75, 0.5], 1e-15);
        // Instance mode normalizes over the last axis (MXNet's FlatTo2D keeps it).
        let out = run("SoftmaxActivation", &[], &[x], false).unwrap();
        assert_close(&out[0].data, &[0.5, 0.5, 0.75, 0.25], 1e-15);
        assert_eq!(
            infer_err("SoftmaxActivation", &[("mode", "channel")], &[&[2, 3]]),
            "SoftmaxActivation: `data` must be at least 3-D for mode=channel, got shape (2, 3)"
        );
    }

    #[test]
    fn gradients_match_finite_differences() {
        for op in ["softmax", "log_softmax"] {
            check_grad(op, &[], &[randn(&[3, 7], 1)], false, &[]);
            check_grad(op, &[], &[randn(&[1, 1], 2)], false, &[]);
            let kv = [("axis", "0"), ("temperature", "2.5")];
            check_grad(op, &kv, &[randn(&[3, 1, 2], 3)], false, &[]);
            let kv = [("axis", "1"), ("temperature", "0.7")];
            check_grad(op, &kv, &[randn(&[2, 3, 4], 4)], false, &[]);
            // A dtype override takes the data into the backward.
            let kv = [("axis", "-2"), ("dtype", "float64")];
            check_grad(op, &kv, &[randn(&[2, 3, 4], 5)], false, &[]);
        }
        // Lengths (0, clipped, in range) mask the tail and get no gradient.
        let kv = [("use_length", "True"), ("axis", "1")];
        let len = t(&[2, 3], vec![0., 1., 3., 5., 9., 2.]);
        check_grad(
            "softmax",
            &kv,
            &[randn(&[2, 5, 3], 6), len.clone()],
            false,
            &[1],
        );
        let g = analytic_grad("softmax", &kv, &[randn(&[2, 5, 3], 6), len], &[], false).unwrap();
        assert!(g[1].is_none());
        for (mode, shape) in [
            ("instance", &[2, 7][..]),
            ("instance", &[2, 3, 4]),
            ("channel", &[2, 3, 4]),
            ("channel", &[1, 3, 2, 2]),
        ] {
            let kv = [("mode", mode)];
            check_grad("SoftmaxActivation", &kv, &[randn(shape, 7)], false, &[]);
        }
    }

    #[test]
    fn backward_inputs_and_dtypes() {
        let o = op("_backward_softmax");
        let names = |kv: &[(&str, &str)]| o.input_names(&attrs(o, kv));
        assert_eq!(names(&[]), ["ograd", "output"]);
        assert_eq!(names(&[("dtype", "float16")]), ["ograd", "data", "output"]);
        assert_eq!(
            names(&[("use_length", "True")]),
            ["ograd", "data", "length", "output"]
        );
        // With a dtype override the gradient has the data's dtype, not the output's.
        let a = attrs(o, &[("dtype", "float64")]);
        let mut ins = vec![None, Some(DType::F32), None];
        let mut outs = vec![None];
        (o.infer_dtype)(&a, &mut ins, &mut outs).unwrap();
        assert_eq!(
            ins,
            vec![Some(DType::F64), Some(DType::F32), Some(DType::F64)]
        );
        assert_eq!(outs, vec![Some(DType::F32)]);
        let kv = [("use_length", "True"), ("axis", "0")];
        let (ins, outs) = infer("_backward_softmax", &kv, &[&[4, 3]]).unwrap();
        assert_eq!(&ins[1..], &[vec![4, 3], vec![3], vec![4, 3]]);
        assert_eq!(outs, vec![vec![4, 3]]);
        assert_eq!(
            infer_err(
                "_backward_log_softmax",
                &[("use_length", "True")],
                &[&[4, 3]]
            ),
            "log_softmax: use_length=True is not supported (MXNet 1.9.1's log_softmax takes no \
             `length` input)"
        );
    }
}
