//! The location-scale samplers of MXNet's NumPy interface, `_npi_logistic` and
//! `_npi_gumbel` (`src/operator/numpy/random/np_location_scale_op.cc`; MXNet 1.9.1 has no
//! `_random_logistic`/`_random_gumbel`, so kiln adds those names as aliases). Each of `loc`
//! and `scale` is either a scalar parameter or, when the parameter is `None`, an array input
//! (`input1`, then `input2`); the output has shape `size` when given (the arrays must
//! broadcast to it), else the arrays' broadcast shape. Like MXNet, both outputs are float32
//! and the hidden second output holds the standardized noise z, with output = loc + scale·z.
//!
//! z is a transformation of one Philox uniform u in the open interval (0, 1) (stream 0):
//! ln u − ln(1 − u) for the logistic, −ln(−ln u) for the Gumbel (inversion of their CDFs,
//! as MXNet computes them).
//!
//! MXNet differentiates these with respect to array `loc`/`scale` (reparameterization);
//! kiln does not yet, so asking for that gradient is an error.

use super::{draw, require};
use crate::param::{param, ParamType};
use crate::shape::{broadcast, fmt_shape, invalid, is_known, set_out, OpError, Shape};
use crate::{
    Attrs, Compute, DType, Inputs, KernelCtx, OpDef, Outputs, Pattern, Registry, Resource, Tensor,
};

const PARAMS: &[crate::ParamDef] = &[
    param(
        "loc",
        ParamType::OptFloat,
        None,
        "location; None: taken from the next array input",
    ),
    param(
        "scale",
        ParamType::OptFloat,
        None,
        "scale (≥ 0); None: taken from the next array input",
    ),
    param(
        "size",
        ParamType::OptShape,
        Some("None"),
        "output shape (None: the broadcast shape of the array inputs)",
    ),
    param(
        "ctx",
        ParamType::Str,
        Some("cpu"),
        "device (ignored: arrays say where they live)",
    ),
];

const fn location_scale(
    name: &'static str,
    aliases: &'static [&'static str],
    doc: &'static str,
    infer_shape: crate::ShapeFn,
    reference: crate::RefKernel,
) -> OpDef {
    OpDef {
        aliases,
        doc,
        params: PARAMS,
        inputs: Inputs::Dynamic(input_names),
        outputs: Outputs::Fixed {
            names: &["output0", "output1"],
            visible: 1,
        },
        infer_shape,
        infer_dtype: float32_outputs,
        inplace: &[],
        resources: &[Resource::Random],
        side_effect: true,
        dtypes: &[DType::F32],
        ..OpDef::new(
            name,
            Pattern::Opaque,
            Compute::Library {
                kernel: "random",
                reference,
            },
        )
    }
}

const LOGISTIC_OP: &str = "_npi_logistic";
const GUMBEL_OP: &str = "_npi_gumbel";

static LOGISTIC: OpDef = location_scale(
    LOGISTIC_OP,
    &["_random_logistic", "random_logistic"],
    "Samples from a logistic distribution: loc + scale·(ln u − ln(1 − u)) for a Philox \
     uniform u (mean loc, variance scale²π²/3). `loc`/`scale` = None take them from array \
     inputs, broadcast. Outputs float32; the hidden second output is the standardized noise.",
    |a, ins, outs| location_scale_shape(LOGISTIC_OP, a, ins, outs),
    logistic_ref,
);

static GUMBEL: OpDef = location_scale(
    GUMBEL_OP,
    &["_random_gumbel", "random_gumbel"],
    "Samples from a Gumbel (type I extreme value) distribution: loc − scale·ln(−ln u) for a \
     Philox uniform u (mean loc + γ·scale, variance scale²π²/6). `loc`/`scale` = None take \
     them from array inputs, broadcast. Outputs float32; the hidden second output is the \
     standardized noise.",
    |a, ins, outs| location_scale_shape(GUMBEL_OP, a, ins, outs),
    gumbel_ref,
);

/// MXNet's `FListInputNames`: one input per parameter given as None.
fn input_names(a: &Attrs) -> Vec<String> {
    let arrays = [a.opt_float("loc"), a.opt_float("scale")]
        .iter()
        .filter(|v| v.is_none())
        .count();
    ["input1", "input2"][..arrays]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn check_scalar_scale(op: &str, a: &Attrs) -> Result<(), OpError> {
    match a.opt_float("scale") {
        Some(s) => require(op, "scale", s, s >= 0.0, "non-negative"),
        None => Ok(()),
    }
}

/// `size` when given and non-empty, checked positive.
fn size_param(op: &str, a: &Attrs) -> Result<Option<Shape>, OpError> {
    match a.opt_shape("size") {
        Some(dims) if !dims.is_empty() => {
            if dims.iter().any(|&d| d <= 0) {
                return invalid(format!(
                    "{op}: `size` {dims:?} must have positive dimensions"
                ));
            }
            Ok(Some(dims.iter().map(|&d| d as usize).collect()))
        }
        _ => Ok(None),
    }
}

/// Whether `from` broadcasts to `to` (NumPy rules, `to` unchanged).
fn broadcasts_to(from: &[usize], to: &[usize]) -> bool {
    from.len() <= to.len()
        && from
            .iter()
            .rev()
            .zip(to.iter().rev())
            .all(|(&f, &t)| f == 1 || f == t)
}

fn location_scale_shape(
    op: &str,
    a: &Attrs,
    ins: &mut [Shape],
    outs: &mut [Shape],
) -> Result<(), OpError> {
    check_scalar_scale(op, a)?;
    if let Some(size) = size_param(op, a)? {
        set_out(outs, 0, &size)?;
        for (i, s) in ins.iter().enumerate() {
            if is_known(s) && !broadcasts_to(s, &size) {
                return invalid(format!(
                    "{op}: input{} of shape {} cannot broadcast to `size` {}",
                    i + 1,
                    fmt_shape(s),
                    fmt_shape(&size)
                ));
            }
        }
    } else if ins.iter().all(|s| is_known(s)) {
        // With no array input and no `size` the output is a 0-d scalar in MXNet, which the
        // legacy shape convention cannot express: it stays unknown.
        match ins {
            [a, b] => set_out(outs, 0, &broadcast(a, b)?)?,
            [a] => set_out(outs, 0, &a.clone())?,
            _ => {}
        }
    }
    let first = outs[0].clone();
    set_out(outs, 1, &first)?;
    let second = outs[1].clone();
    set_out(outs, 0, &second)
}

/// Both outputs are float32, whatever the inputs (MXNet's `NumpyLocationScaleOpType`).
fn float32_outputs(
    _: &Attrs,
    _: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    for (i, d) in outs.iter_mut().enumerate() {
        match *d {
            Some(have) if have != DType::F32 => {
                return Err(OpError::DType {
                    slot: crate::Slot::Out(i),
                    have,
                    want: DType::F32,
                })
            }
            _ => *d = Some(DType::F32),
        }
    }
    Ok(())
}

/// For every element of `out`, the flat index of the element of `t` broadcast onto it.
fn broadcast_sources(t: &Tensor, out: &[usize]) -> Vec<usize> {
    let lead = out.len() - t.shape.len();
    let in_strides = t.strides();
    let strides: Vec<usize> = (0..out.len())
        .map(|a| match a.checked_sub(lead) {
            Some(k) if t.shape[k] != 1 => in_strides[k],
            _ => 0,
        })
        .collect();
    let mut sources = Vec::with_capacity(out.iter().product());
    crate::tensor::for_each_index(out, |idx| {
        sources.push(idx.iter().zip(&strides).map(|(i, s)| i * s).sum());
    });
    sources
}

/// A parameter's value for each output element: a scalar, or an array broadcast.
enum Source<'a> {
    Scalar(f64),
    Array(&'a Tensor, Vec<usize>),
}

impl Source<'_> {
    fn at(&self, i: usize) -> f64 {
        match self {
            Source::Scalar(v) => *v,
            Source::Array(t, src) => t.data[src[i]],
        }
    }
}

fn location_scale_ref(
    op: &str,
    ctx: &KernelCtx,
    inputs: &[&Tensor],
    noise: fn(f64) -> f64,
) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    check_scalar_scale(op, a)?;
    let out_shape = &ctx.out_shapes[0];
    let mut arrays = inputs.iter();
    let mut source = |name: &str| -> Result<Source, OpError> {
        match a.opt_float(name) {
            Some(v) => Ok(Source::Scalar(v)),
            None => match arrays.next() {
                Some(t) if broadcasts_to(&t.shape, out_shape) => {
                    Ok(Source::Array(t, broadcast_sources(t, out_shape)))
                }
                Some(t) => invalid(format!(
                    "{op}: array `{name}` of shape {} cannot broadcast to the output {}",
                    fmt_shape(&t.shape),
                    fmt_shape(out_shape)
                )),
                None => invalid(format!("{op}: `{name}` is None but no array is given")),
            },
        }
    };
    let (loc, scale) = (source("loc")?, source("scale")?);
    if let Source::Array(t, _) = &scale {
        if let Some(bad) = t.data.iter().find(|&&s| s < 0.0) {
            return invalid(format!(
                "{op}: `scale` must be non-negative, got an array holding {bad}"
            ));
        }
    }
    let n: usize = out_shape.iter().product();
    let z: Vec<f64> = (0..n as u64)
        .map(|i| noise(draw::open_uniform(ctx.rng_key, 0, i)))
        .collect();
    let out = (0..n).map(|i| loc.at(i) + scale.at(i) * z[i]).collect();
    Ok(vec![
        Tensor::new(ctx.out_dtypes[0], out_shape.clone(), out),
        Tensor::new(ctx.out_dtypes[1], out_shape.clone(), z),
    ])
}

fn logistic_ref(ctx: &KernelCtx, inputs: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    location_scale_ref(LOGISTIC_OP, ctx, inputs, |u| u.ln() - (1.0 - u).ln())
}

fn gumbel_ref(ctx: &KernelCtx, inputs: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    location_scale_ref(GUMBEL_OP, ctx, inputs, |u| -(-u.ln()).ln())
}

pub(super) fn register(r: &mut Registry) {
    r.add(&LOGISTIC);
    r.add(&GUMBEL);
}

#[cfg(test)]
mod tests {
    use super::super::stats::{assert_ks, assert_moments, outputs, N};
    use crate::testutil::{infer, infer_err, message, op, run, t};
    use crate::DType;
    use std::f64::consts::PI;

    fn samples(name: &str, loc: &str, scale: &str) -> Vec<f64> {
        let size = format!("({N},)");
        let out = outputs(name, &[("loc", loc), ("scale", scale), ("size", &size)]);
        assert_eq!(out.len(), 2, "the hidden noise output");
        assert!(out.iter().all(|t| t.dtype == DType::F32));
        out[0].data.clone()
    }

    #[test]
    fn logistic_has_the_right_distribution() {
        let (mu, s) = (1.0, 2.0);
        let xs = samples("_npi_logistic", "1", "2");
        // Variance s²π²/3, excess kurtosis 6/5.
        assert_moments("logistic(1, 2)", &xs, mu, s * s * PI * PI / 3.0, 1.2);
        assert_ks("logistic(1, 2)", xs, |x| {
            1.0 / (1.0 + (-(x - mu) / s).exp())
        });
    }

    #[test]
    fn gumbel_has_the_right_distribution() {
        let (mu, s) = (-1.0, 0.5);
        let euler_gamma = 0.577_215_664_901_532_9;
        let xs = samples("_npi_gumbel", "-1", "0.5");
        // Mean μ + γs, variance s²π²/6, excess kurtosis 12/5.
        assert_moments(
            "gumbel(-1, 0.5)",
            &xs,
            mu + euler_gamma * s,
            s * s * PI * PI / 6.0,
            2.4,
        );
        assert_ks("gumbel(-1, 0.5)", xs, |x| (-(-(x - mu) / s).exp()).exp());
    }

    #[test]
    fn array_parameters_broadcast() {
        let loc = t(&[3, 1], vec![-10.0, 0.0, 10.0]);
        let scale = t(&[1, 4], vec![0.0, 1.0, 2.0, 3.0]);
        for name in ["_npi_logistic", "_npi_gumbel"] {
            let kv = [("loc", "None"), ("scale", "None")];
            let (ins, outs) = infer(name, &kv, &[&[3, 1], &[1, 4]]).unwrap();
            assert_eq!((ins.len(), outs), (2, vec![vec![3, 4], vec![3, 4]]));
            let out = run(name, &kv, &[&loc, &scale], false).unwrap();
            let (x, z) = (&out[0].data, &out[1].data);
            for i in 0..3 {
                for j in 0..4 {
                    let want = loc.data[i] + scale.data[j] * z[i * 4 + j];
                    assert!((x[i * 4 + j] - want).abs() < 1e-5 * (1.0 + want.abs()));
                }
            }
            // With `size`, the arrays broadcast to it.
            let kv = [("loc", "None"), ("scale", "2"), ("size", "(2, 3, 4)")];
            let out = run(name, &kv, &[&loc], false).unwrap();
            assert_eq!(out[0].shape, vec![2, 3, 4]);
            // One array: the output takes its shape; the other parameter is a scalar.
            let kv = [("loc", "0.5"), ("scale", "None")];
            assert_eq!(infer(name, &kv, &[&[1, 4]]).unwrap().1[0], vec![1, 4]);
            let names = op(name).input_names(&crate::testutil::attrs(op(name), &kv));
            assert_eq!(names, ["input1"]);
        }
    }

    #[test]
    fn bad_scales_and_shapes_are_errors() {
        let e = message(infer(
            "_npi_logistic",
            &[("loc", "0"), ("scale", "-1"), ("size", "(3,)")],
            &[],
        ));
        assert!(e.contains("`scale`") && e.contains("_npi_logistic"), "{e}");
        let negative = t(&[2], vec![1.0, -1.0]);
        let e = message(run(
            "_npi_gumbel",
            &[("loc", "0"), ("scale", "None")],
            &[&negative],
            false,
        ));
        assert!(e.contains("`scale`") && e.contains("-1"), "{e}");
        let e = infer_err(
            "_npi_gumbel",
            &[("loc", "None"), ("scale", "1"), ("size", "(2, 3)")],
            &[&[4]],
        );
        assert!(
            e.contains("cannot broadcast") && e.contains("`size`"),
            "{e}"
        );
        let e = infer_err(
            "_npi_gumbel",
            &[("loc", "None"), ("scale", "None")],
            &[&[2, 3], &[4]],
        );
        assert!(e.contains("cannot be broadcast"), "{e}");
        // A zero scale is allowed (MXNet checks scale ≥ 0): the output is loc.
        let out = run::<crate::Tensor>(
            "_npi_logistic",
            &[("loc", "3"), ("scale", "0"), ("size", "(5,)")],
            &[],
            false,
        )
        .unwrap();
        assert!(out[0].data.iter().all(|&x| x == 3.0));
    }
}
