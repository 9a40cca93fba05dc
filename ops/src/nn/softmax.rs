//! softmax, log_softmax (along any axis, with temperature and optional lengths) and the
//! legacy SoftmaxActivation (per instance or per channel).

use super::common::{axis_of, elems, rank_error, split_at_axis};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{invalid, same_dtype, same_shape, set_in, OpError, Shape, Slot};
use crate::{Attrs, Compute, DType, Inputs, KernelCtx, OpDef, Pattern, Registry, ShapeFn, Tensor};

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
) -> OpDef {
    OpDef {
        aliases,
        doc,
        params: SOFTMAX_PARAMS,
        inputs,
        infer_shape,
        infer_dtype: softmax_dtype,
        cost: softmax_cost,
        ..OpDef::new(name, Pattern::Opaque, compute)
    }
}

static SOFTMAX: OpDef = softmax_op(
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
);

static LOG_SOFTMAX: OpDef = softmax_op(
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
);

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
    let (outer, m, inner) = split_at_axis(&x.shape, ax);
    let mut out = vec![0.0; x.len()];
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| (o * m + j) * inner + i;
            // Out-of-range lengths are clipped to the axis.
            let len = lengths.map_or(m, |l| (l.data[o * inner + i].max(0.0) as usize).min(m));
            if len == 0 {
                continue;
            }
            let max = (0..len)
                .map(|j| x.data[at(j)])
                .fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = (0..len)
                .map(|j| ((x.data[at(j)] - max) / temperature).exp())
                .sum();
            for j in 0..len {
                let z = (x.data[at(j)] - max) / temperature;
                out[at(j)] = if log { z - sum.ln() } else { z.exp() / sum };
            }
        }
    }
    out
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

fn softmax_activation_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let x = ins[0];
    let axis = match ctx.attrs.str("mode") {
        "channel" => 1,
        _ => x.shape.len() - 1,
    };
    let data = softmax_along(x, axis, 1.0, false, None);
    Ok(vec![Tensor { data, ..x.clone() }])
}

pub fn register(r: &mut Registry) {
    for op in [&SOFTMAX, &LOG_SOFTMAX, &SOFTMAX_ACTIVATION] {
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
}
