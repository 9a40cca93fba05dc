//! LayerNorm, InstanceNorm and GroupNorm: normalization by the mean and the biased variance
//! of a set of elements (along one axis; over each (instance, channel) plane; over each
//! group of channels of an instance), then a per-parameter scale and shift.
//!
//! They differ only in how elements fall into sets and which gamma/beta entry each uses,
//! so one forward and one backward kernel serve all three. As MXNet 1.9.1: LayerNorm and
//! GroupNorm have hidden outputs mean and **std** `sqrt(var + eps)` (visible with
//! output_mean_var), InstanceNorm hidden mean and **variance**; GroupNorm's gamma and beta
//! have one entry per group (not per channel). The gradients are the backward operators
//! `_backward_LayerNorm`, `_backward_InstanceNorm` and `_backward_GroupNorm` (as MXNet),
//! which take the forward's statistics; the head gradients of mean and std are ignored, as
//! MXNet does.

use super::common::{axis_of, elems, positive, rank_error, split_at_axis, Through};
use crate::def::PerSample;
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, same_shape, set_in, set_out, OpError, Shape};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradFn, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs,
    Pattern, RefKernel, Registry, ShapeFn, Tensor,
};

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Layer,
    Instance,
    Group,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Layer => "LayerNorm",
            Kind::Instance => "InstanceNorm",
            Kind::Group => "GroupNorm",
        }
    }
}

const EPS_DOC: &str = "added to the variance";
const OMV_DOC: &str = "make the mean and std outputs visible";

const LAYER_PARAMS: &[ParamDef] = &[
    param("axis", ParamType::Int, Some("-1"), "axis to normalize"),
    param("eps", ParamType::Float, Some("1e-05"), EPS_DOC),
    param("output_mean_var", ParamType::Bool, Some("False"), OMV_DOC),
];
const INSTANCE_PARAMS: &[ParamDef] = &[param("eps", ParamType::Float, Some("0.001"), EPS_DOC)];
const GROUP_PARAMS: &[ParamDef] = &[
    param(
        "num_groups",
        ParamType::Int,
        Some("1"),
        "number of channel groups",
    ),
    param("eps", ParamType::Float, Some("1e-05"), EPS_DOC),
    param("output_mean_var", ParamType::Bool, Some("False"), OMV_DOC),
];

/// What tells the three operators apart.
struct Variant {
    name: &'static str,
    aliases: &'static [&'static str],
    doc: &'static str,
    params: &'static [ParamDef],
    outputs: fn(&Attrs) -> (Vec<String>, usize),
    infer_shape: ShapeFn,
    reference: RefKernel,
    grad: GradFn,
    per_sample: PerSample,
}

const fn norm_op(v: Variant) -> OpDef {
    OpDef {
        aliases: v.aliases,
        doc: v.doc,
        params: v.params,
        inputs: Inputs::Fixed(&["data", "gamma", "beta"]),
        outputs: Outputs::Dynamic(v.outputs),
        infer_shape: v.infer_shape,
        inplace: &[],
        cost: |_, ins, _| elems(&ins[0]).saturating_mul(5),
        grad: Grad::Rule(v.grad),
        per_sample: v.per_sample,
        ..OpDef::new(
            v.name,
            Pattern::Opaque,
            Compute::Library {
                kernel: "norm",
                reference: v.reference,
            },
        )
    }
}

static LAYER_NORM: OpDef = norm_op(Variant {
    name: "LayerNorm",
    aliases: &["_npx_layer_norm"],
    doc: "Layer normalization along `axis`: `(x − mean)/sqrt(var + eps)·gamma + beta` with the \
     mean and biased variance of each lane along the axis; gamma and beta have the axis' \
     length. Hidden outputs mean and std = sqrt(var + eps), shaped like data with the axis \
          set to 1 (visible with output_mean_var).",
    params: LAYER_PARAMS,
    outputs: mean_std_outputs,
    infer_shape: |a, ins, outs| norm_shape(Kind::Layer, a, ins, outs),
    reference: |ctx, ins| norm_ref(Kind::Layer, ctx, ins),
    grad: |g, ctx| norm_grad(g, ctx, "_backward_LayerNorm"),
    per_sample: PerSample::Where(|a, ins, _| PerSample::axis_not_first(a, "axis", ins)),
});

static INSTANCE_NORM: OpDef = norm_op(Variant {
    name: "InstanceNorm",
    aliases: &[],
    doc: "Instance normalization of (N, C, ...) data (rank ≥ 3): each (instance, channel) plane \
     is normalized by its own mean and biased variance, `(x − mean)/sqrt(var + eps)·gamma + \
          beta` with per-channel gamma and beta. Hidden outputs mean and var, (N, C).",
    params: INSTANCE_PARAMS,
    outputs: instance_outputs,
    infer_shape: |a, ins, outs| norm_shape(Kind::Instance, a, ins, outs),
    reference: |ctx, ins| norm_ref(Kind::Instance, ctx, ins),
    grad: |g, ctx| norm_grad(g, ctx, "_backward_InstanceNorm"),
    per_sample: PerSample::Always,
});

static GROUP_NORM: OpDef = norm_op(Variant {
    name: "GroupNorm",
    aliases: &[],
    doc: "Group normalization of (N, C, ...) data (rank ≥ 3): the C channels form num_groups \
     groups, each (instance, group) is normalized by its mean and biased variance, then \
     scaled and shifted by that group's gamma and beta (shape (num_groups,), as MXNet 1.x). \
     Hidden outputs mean and std = sqrt(var + eps), (N, num_groups) (visible with \
          output_mean_var).",
    params: GROUP_PARAMS,
    outputs: mean_std_outputs,
    infer_shape: |a, ins, outs| norm_shape(Kind::Group, a, ins, outs),
    reference: |ctx, ins| norm_ref(Kind::Group, ctx, ins),
    grad: |g, ctx| norm_grad(g, ctx, "_backward_GroupNorm"),
    per_sample: PerSample::Always,
});

fn mean_std_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let names = ["output", "mean", "std"].map(String::from).to_vec();
    (names, if a.bool("output_mean_var") { 3 } else { 1 })
}

fn instance_outputs(_: &Attrs) -> (Vec<String>, usize) {
    (["output", "mean", "var"].map(String::from).to_vec(), 1)
}

/// The shape of gamma/beta and of the statistics for known data `d`.
fn param_and_stat_shapes(kind: Kind, a: &Attrs, d: &[usize]) -> Result<(Shape, Shape), OpError> {
    let op = kind.name();
    if kind == Kind::Layer {
        let ax = axis_of(op, "axis", a.int("axis"), d)?;
        let mut stat = d.to_vec();
        stat[ax] = 1;
        return Ok((vec![d[ax]], stat));
    }
    if d.len() < 3 {
        return rank_error(op, "data", "at least 3-D (batch, channel, ...)", d);
    }
    if kind == Kind::Instance {
        return Ok((vec![d[1]], vec![d[0], d[1]]));
    }
    let groups = positive(a, op, "num_groups")?;
    if !d[1].is_multiple_of(groups) {
        return invalid(format!(
            "{op}: data {} has {} channels, not divisible by num_groups {groups}",
            fmt_shape(d),
            d[1]
        ));
    }
    Ok((vec![groups], vec![d[0], groups]))
}

/// Data and output share a shape; gamma, beta and the statistics follow from it.
fn norm_shape(kind: Kind, a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if kind == Kind::Group {
        positive(a, kind.name(), "num_groups")?;
    }
    same_shape(a, &mut ins[..1], &mut outs[..1])?;
    if ins[0].is_empty() {
        return Ok(());
    }
    let d = ins[0].clone();
    let (p, stat) = param_and_stat_shapes(kind, a, &d)?;
    set_in(ins, 1, &p)?;
    set_in(ins, 2, &p)?;
    set_out(outs, 1, &stat)?;
    set_out(outs, 2, &stat)
}

/// How the elements of one data shape fall into normalization sets.
struct Sets {
    /// The set of each element (row-major), in the statistics' order.
    set: Vec<usize>,
    /// The gamma/beta entry of each element.
    param: Vec<usize>,
    count: usize,
    /// Elements per set.
    size: usize,
}

fn sets(kind: Kind, a: &Attrs, shape: &[usize]) -> Result<Sets, OpError> {
    let n: usize = shape.iter().product();
    let (set, param, count): (Vec<usize>, Vec<usize>, usize) = match kind {
        Kind::Layer => {
            let ax = axis_of(kind.name(), "axis", a.int("axis"), shape)?;
            let (_, c, inner) = split_at_axis(shape, ax);
            let set = (0..n)
                .map(|i| (i / (c * inner)) * inner + i % inner)
                .collect();
            let param = (0..n).map(|i| (i / inner) % c).collect();
            (set, param, n / c.max(1))
        }
        Kind::Instance | Kind::Group => {
            if shape.len() < 3 {
                return rank_error(kind.name(), "data", "at least 3-D", shape);
            }
            let c = shape[1];
            let groups = if kind == Kind::Group {
                positive(a, kind.name(), "num_groups")?
            } else {
                c
            };
            let per_set = n / (shape[0] * groups).max(1);
            let set: Vec<usize> = (0..n).map(|i| i / per_set.max(1)).collect();
            let param = set.iter().map(|s| s % groups).collect();
            (set, param, shape[0] * groups)
        }
    };
    Ok(Sets {
        set,
        param,
        count,
        size: n / count.max(1),
    })
}

fn norm_ref(kind: Kind, ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (x, gamma, beta) = (ins[0], ins[1], ins[2]);
    let eps = ctx.attrs.float("eps");
    let s = sets(kind, ctx.attrs, &x.shape)?;
    let m = s.size as f64;
    let mut mean = vec![0.0; s.count];
    for (v, &k) in x.data.iter().zip(&s.set) {
        mean[k] += v / m;
    }
    let mut var = vec![0.0; s.count];
    for (v, &k) in x.data.iter().zip(&s.set) {
        var[k] += (v - mean[k]).powi(2) / m;
    }
    let std: Vec<f64> = var.iter().map(|v| (v + eps).sqrt()).collect();
    let mut out = x.clone();
    for (i, o) in out.data.iter_mut().enumerate() {
        let (k, p) = (s.set[i], s.param[i]);
        *o = (x.data[i] - mean[k]) / std[k] * gamma.data[p] + beta.data[p];
    }
    let stat = |data| Tensor {
        dtype: x.dtype,
        shape: ctx.out_shapes[1].clone(),
        data,
    };
    let second = if kind == Kind::Instance { var } else { std };
    Ok(vec![out, stat(mean), stat(second)])
}

fn norm_grad(
    g: &mut dyn GradGraph,
    ctx: &GradCtx,
    backward: &str,
) -> Result<Vec<Option<Handle>>, OpError> {
    let (i, o) = (ctx.inputs, ctx.outputs);
    let args = [ctx.out_grads[0], i[0], i[1], o[1], o[2]];
    let grads = g.op(backward, &args, ctx.raw_attrs)?;
    Ok(grads.into_iter().map(Some).collect())
}

const fn norm_backward_op(
    name: &'static str,
    doc: &'static str,
    params: &'static [ParamDef],
    infer_shape: ShapeFn,
    reference: RefKernel,
) -> OpDef {
    OpDef {
        doc,
        params,
        inputs: Inputs::Fixed(&["ograd", "data", "gamma", "mean", "std"]),
        outputs: Outputs::Fixed {
            names: &["data_grad", "gamma_grad", "beta_grad"],
            visible: 3,
        },
        infer_shape,
        inplace: &[],
        cost: |_, ins, _| ins.get(1).map_or(0, |d| elems(d).saturating_mul(8)),
        grad: Grad::NotDifferentiable,
        ..OpDef::new(
            name,
            Pattern::Opaque,
            Compute::Library {
                kernel: "norm_backward",
                reference,
            },
        )
    }
}

/// Forward data and gamma are backward inputs 1 and 2 (their gradients outputs 0 and 1,
/// beta's output 2); the forward's outputs are ograd and the two statistics.
const NORM_THROUGH: Through = Through {
    inputs: &[Some(1), Some(2), None],
    outputs: &[&[0], &[3], &[4]],
    grads: &[0, 1, 2],
};

static LAYER_NORM_BACKWARD: OpDef = norm_backward_op(
    "_backward_LayerNorm",
    "Gradient of LayerNorm from ograd, data, gamma and the forward's mean and std: with x̂ = \
     (x − mean)/std and w = ograd·gamma, data_grad = (w − mean(w) − x̂·mean(w·x̂))/std along \
     the axis; gamma_grad = Σ ograd·x̂ and beta_grad = Σ ograd over the other axes. Takes \
     the forward's parameters.",
    LAYER_PARAMS,
    |a, ins, outs| NORM_THROUGH.shapes(LAYER_NORM.infer_shape, a, ins, outs),
    |ctx, ins| norm_backward_ref(Kind::Layer, ctx, ins),
);

static INSTANCE_NORM_BACKWARD: OpDef = norm_backward_op(
    "_backward_InstanceNorm",
    "Gradient of InstanceNorm from ograd, data, gamma and the forward's mean and variance \
     (input `std` holds the variance): the LayerNorm formula over each (instance, channel) \
     plane with std = sqrt(var + eps); gamma and beta gradients per channel. Takes the \
     forward's parameters.",
    INSTANCE_PARAMS,
    |a, ins, outs| NORM_THROUGH.shapes(INSTANCE_NORM.infer_shape, a, ins, outs),
    |ctx, ins| norm_backward_ref(Kind::Instance, ctx, ins),
);

static GROUP_NORM_BACKWARD: OpDef = norm_backward_op(
    "_backward_GroupNorm",
    "Gradient of GroupNorm from ograd, data, gamma and the forward's mean and std: the \
     LayerNorm formula over each (instance, group); gamma and beta gradients per group. \
     Takes the forward's parameters.",
    GROUP_PARAMS,
    |a, ins, outs| NORM_THROUGH.shapes(GROUP_NORM.infer_shape, a, ins, outs),
    |ctx, ins| norm_backward_ref(Kind::Group, ctx, ins),
);

fn norm_backward_ref(kind: Kind, ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (og, x, gamma, mean, second) = (ins[0], ins[1], ins[2], ins[3], ins[4]);
    let eps = ctx.attrs.float("eps");
    let std: Vec<f64> = match kind {
        Kind::Instance => second.data.iter().map(|v| (v + eps).sqrt()).collect(),
        _ => second.data.clone(),
    };
    let s = sets(kind, ctx.attrs, &x.shape)?;
    let m = s.size as f64;
    let xhat = |i: usize| (x.data[i] - mean.data[s.set[i]]) / std[s.set[i]];
    let (mut mean_w, mut mean_wx) = (vec![0.0; s.count], vec![0.0; s.count]);
    let (mut dgamma, mut dbeta) = (vec![0.0; gamma.len()], vec![0.0; gamma.len()]);
    for i in 0..x.len() {
        let (k, p) = (s.set[i], s.param[i]);
        let w = og.data[i] * gamma.data[p];
        mean_w[k] += w / m;
        mean_wx[k] += w * xhat(i) / m;
        dgamma[p] += og.data[i] * xhat(i);
        dbeta[p] += og.data[i];
    }
    let mut dx = x.clone();
    for (i, d) in dx.data.iter_mut().enumerate() {
        let (k, p) = (s.set[i], s.param[i]);
        let w = og.data[i] * gamma.data[p];
        *d = (w - mean_w[k] - xhat(i) * mean_wx[k]) / std[k];
    }
    let vector = |data| Tensor {
        dtype: gamma.dtype,
        shape: gamma.shape.clone(),
        data,
    };
    Ok(vec![dx, vector(dgamma), vector(dbeta)])
}

pub fn register(r: &mut Registry) {
    for op in [
        &LAYER_NORM,
        &INSTANCE_NORM,
        &GROUP_NORM,
        &LAYER_NORM_BACKWARD,
        &INSTANCE_NORM_BACKWARD,
        &GROUP_NORM_BACKWARD,
    ] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::Tensor;

    #[test]
    fn infers_parameter_and_statistic_shapes() {
        let (ins, outs) = infer("LayerNorm", &[], &[&[2, 3, 4]]).unwrap();
        assert_eq!(ins[1..], [vec![4], vec![4]]);
        assert_eq!(outs, vec![vec![2, 3, 4], vec![2, 3, 1], vec![2, 3, 1]]);
        let (ins, outs) = infer("LayerNorm", &[("axis", "0")], &[&[5]]).unwrap();
        assert_eq!((ins[1].clone(), outs[1].clone()), (vec![5], vec![1]));
        let (ins, outs) = infer("InstanceNorm", &[], &[&[2, 3, 4, 1]]).unwrap();
        assert_eq!(ins[1..], [vec![3], vec![3]]);
        assert_eq!(outs[1..], [vec![2, 3], vec![2, 3]]);
        let kv = [("num_groups", "2")];
        let (ins, outs) = infer("GroupNorm", &kv, &[&[2, 6, 5]]).unwrap();
        assert_eq!(ins[1..], [vec![2], vec![2]]);
        assert_eq!(outs[1..], [vec![2, 2], vec![2, 2]]);
        // Visible outputs.
        for (name, kv, visible) in [
            ("LayerNorm", vec![], 1),
            ("LayerNorm", vec![("output_mean_var", "True")], 3),
            ("GroupNorm", vec![("output_mean_var", "1")], 3),
            ("InstanceNorm", vec![], 1),
        ] {
            let o = op(name);
            assert_eq!(o.output_names(&attrs(o, &kv)).1, visible, "{name}");
        }
        assert_eq!(op("_npx_layer_norm").name, "LayerNorm");
    }

    #[test]
    fn reports_bad_shapes() {
        assert_eq!(
            infer_err("LayerNorm", &[("axis", "3")], &[&[2, 3, 4]]),
            "LayerNorm: axis=3 is out of range for data (2, 3, 4)"
        );
        assert_eq!(
            infer_err("InstanceNorm", &[], &[&[2, 3]]),
            "InstanceNorm: `data` must be at least 3-D (batch, channel, ...), got shape (2, 3)"
        );
        assert_eq!(
            infer_err("GroupNorm", &[("num_groups", "4")], &[&[2, 6, 3]]),
            "GroupNorm: data (2, 6, 3) has 6 channels, not divisible by num_groups 4"
        );
        assert_eq!(
            infer_err("GroupNorm", &[("num_groups", "0")], &[&[2, 6, 3]]),
            "GroupNorm: `num_groups` must be positive, got 0"
        );
        assert_eq!(
            infer_err("LayerNorm", &[], &[&[2, 3], &[2]]),
            "input `gamma` has shape (2,) but (3,) is required"
        );
    }

    #[test]
    fn layer_norm_by_hand() {
        // Rows (1, 3) and (10, 30): means 2 and 20, variances 1 and 100.
        let x = t(&[2, 2], vec![1., 3., 10., 30.]);
        let gamma = t(&[2], vec![2., 3.]);
        let beta = t(&[2], vec![0.5, -1.]);
        let kv = [("eps", "0"), ("output_mean_var", "True")];
        let out = run("LayerNorm", &kv, &[x, gamma, beta], false).unwrap();
        assert_close(&out[0].data, &[-1.5, 2., -1.5, 2.], 1e-15);
        assert_close(&out[1].data, &[2., 20.], 1e-15);
        assert_close(&out[2].data, &[1., 10.], 1e-15);
        // Along axis 0 of the same numbers: columns (1, 10) and (3, 30).
        let x = t(&[2, 2], vec![1., 3., 10., 30.]);
        let kv = [("eps", "0"), ("axis", "0")];
        let ones = t(&[2], vec![1., 1.]);
        let zeros = t(&[2], vec![0., 0.]);
        let out = run("LayerNorm", &kv, &[x, ones, zeros], false).unwrap();
        assert_close(&out[0].data, &[-1., -1., 1., 1.], 1e-15);
        assert_close(&out[2].data, &[4.5, 13.5], 1e-15);
    }

    #[test]
    fn instance_and_group_norm_by_hand() {
        // One instance, 2 channels of 2: (1, 3) and (10, 30).
        let x = t(&[1, 2, 2], vec![1., 3., 10., 30.]);
        let gamma = t(&[2], vec![2., 3.]);
        let beta = t(&[2], vec![0.5, -1.]);
        let out = run("InstanceNorm", &[("eps", "0")], &[&x, &gamma, &beta], false).unwrap();
        assert_close(&out[0].data, &[-1.5, 2.5, -4., 2.], 1e-15);
        assert_close(&out[1].data, &[2., 20.], 1e-15);
        assert_close(&out[2].data, &[1., 100.], 1e-15); // variance, not std
                                                        // GroupNorm with 2 groups of 1 channel is InstanceNorm, with std as statistic.
        let kv = [("eps", "0"), ("num_groups", "2")];
        let out = run("GroupNorm", &kv, &[&x, &gamma, &beta], false).unwrap();
        assert_close(&out[0].data, &[-1.5, 2.5, -4., 2.], 1e-15);
        assert_close(&out[2].data, &[1., 10.], 1e-15);
        // One group over both channels: mean 11, gamma[0] and beta[0] for all.
        let kv = [("eps", "0")];
        let g1 = t(&[1], vec![2.]);
        let b1 = t(&[1], vec![1.]);
        let out = run("GroupNorm", &kv, &[&x, &g1, &b1], false).unwrap();
        let var = [100., 64., 1., 361.].iter().sum::<f64>() / 4.;
        let want: Vec<f64> = x
            .data
            .iter()
            .map(|v| (v - 11.) / var.sqrt() * 2. + 1.)
            .collect();
        assert_close(&out[0].data, &want, 1e-15);
    }

    fn inputs(data: &[usize], p: usize, seed: u64) -> Vec<Tensor> {
        vec![
            randn(data, seed),
            randn(&[p], seed + 1),
            randn(&[p], seed + 2),
        ]
    }

    #[test]
    fn gradients_match_finite_differences() {
        check_grad("LayerNorm", &[], &inputs(&[3, 7], 7, 1), false, &[]);
        let kv = [("axis", "1"), ("eps", "0.1")];
        check_grad("LayerNorm", &kv, &inputs(&[2, 3, 2], 3, 2), false, &[]);
        check_grad(
            "LayerNorm",
            &[("axis", "0")],
            &inputs(&[3, 1], 3, 3),
            true,
            &[],
        );
        check_grad("InstanceNorm", &[], &inputs(&[2, 3, 3], 3, 4), false, &[]);
        check_grad(
            "InstanceNorm",
            &[],
            &inputs(&[1, 1, 7, 1], 1, 5),
            false,
            &[],
        );
        let kv = [("num_groups", "3")];
        check_grad("GroupNorm", &kv, &inputs(&[2, 6, 1, 2], 3, 6), false, &[]);
        check_grad("GroupNorm", &[], &inputs(&[1, 3, 3], 1, 7), false, &[]);
    }

    #[test]
    fn statistics_heads_are_ignored() {
        let ins = inputs(&[2, 3], 3, 8);
        let head = randn(&[2, 3], 9);
        let kv = [("output_mean_var", "True")];
        let heads = [head.clone(), randn(&[2, 1], 10), randn(&[2, 1], 11)];
        let with = analytic_grad("LayerNorm", &kv, &ins, &heads, false).unwrap();
        let without = analytic_grad("LayerNorm", &[], &ins, &[head], false).unwrap();
        assert_eq!(with, without);
    }

    #[test]
    fn backward_operator_shapes() {
        let kv = [("num_groups", "2")];
        let (ins, outs) = infer("_backward_GroupNorm", &kv, &[&[], &[2, 4, 3]]).unwrap();
        assert_eq!(ins[0], vec![2, 4, 3]);
        assert_eq!(ins[2..], [vec![2], vec![2, 2], vec![2, 2]]);
        assert_eq!(outs, vec![vec![2, 4, 3], vec![2], vec![2]]);
    }
}
