//! UpSampling of NCHW data by an integer scale: nearest neighbour (any number of inputs,
//! concatenated along channels or summed) or bilinear (a grouped deconvolution with the
//! user's weight).
//!
//! Nearest: the output is (N, ΣC or C, h0·scale, w0·scale) with (h0, w0) the first input's
//! size; every input is repeated up to that size, input i by out_h/h_i along both axes (as
//! MXNet, which takes the factor from the height), which must give the output's size. Bilinear (inputs data and weight, as MXNet): the deconvolution with
//! kernel `2·scale − scale mod 2`, stride `scale`, pad `⌈(scale − 1)/2⌉`, num_group =
//! num_filter = C, no bias; the weight is (C, 1, kernel, kernel) and num_filter must be the
//! data's channels.
//!
//! Gradients: nearest through `_backward_UpSampling` (each input's gradient sums its
//! blocks of the head gradient); bilinear through `_backward_Deconvolution` with the
//! derived parameters, so the weight gets its gradient too.

use super::common::{elems, flops, positive, rank_error, strings, Dims, Through};
use super::conv::Geometry;
use super::deconv::deconvolve;
use crate::def::PerSample;
use crate::elemwise::numbered_args;
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs, Pattern,
    Registry, Tensor,
};

const OP: &str = "UpSampling";

const UP_PARAMS: &[ParamDef] = &[
    param("scale", ParamType::Int, None, "up-sampling factor"),
    param(
        "num_filter",
        ParamType::Int,
        Some("0"),
        "bilinear only: the data's number of channels",
    ),
    param(
        "sample_type",
        ParamType::Enum(&["bilinear", "nearest"]),
        None,
        "nearest neighbour or bilinear (a deconvolution with the given weight)",
    ),
    param(
        "multi_input_mode",
        ParamType::Enum(&["concat", "sum"]),
        Some("concat"),
        "nearest with several inputs: concatenate along channels or add",
    ),
    param(
        "num_args",
        ParamType::Int,
        None,
        "number of inputs (nearest); bilinear takes data and weight",
    ),
    param(
        "workspace",
        ParamType::Int,
        Some("512"),
        "MXNet workspace limit in MB (ignored)",
    ),
];

static UPSAMPLING: OpDef = OpDef {
    per_sample: PerSample::Always,
    doc: "Up-samples NCHW data by an integer `scale`. nearest: inputs arg0..., each repeated \
          (by one factor along both axes) to (h0·scale, w0·scale) of the first, then concatenated along channels \
          (multi_input_mode concat) or added (sum). bilinear: inputs data and weight (C, 1, \
          k, k), k = 2·scale − scale mod 2: the deconvolution with stride scale, pad \
          ⌈(scale−1)/2⌉ and num_group = num_filter = C.",
    params: UP_PARAMS,
    inputs: Inputs::Dynamic(up_inputs),
    num_args_param: Some("num_args"),
    infer_shape: up_shape,
    inplace: &[],
    cost: up_cost,
    grad: Grad::Rule(up_grad),
    ..OpDef::new(
        OP,
        Pattern::Opaque,
        Compute::Library {
            kernel: "upsampling",
            reference: up_ref,
        },
    )
};

fn bilinear(a: &Attrs) -> bool {
    a.str("sample_type") == "bilinear"
}

fn up_inputs(a: &Attrs) -> Vec<String> {
    if bilinear(a) {
        strings(&["data", "weight"])
    } else {
        numbered_args(a)
    }
}

/// The bilinear deconvolution's (kernel, stride, pad) for `scale`.
fn bilinear_window(scale: usize) -> (usize, usize, usize) {
    (2 * scale - scale % 2, scale, (scale - 1).div_ceil(2))
}

fn scale(a: &Attrs) -> Result<usize, OpError> {
    match positive(a, OP, "scale")? {
        s if s > 1 << 20 => invalid(format!("{OP}: `scale` {s} is too large")),
        s => Ok(s),
    }
}

fn up_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let s = scale(a)?;
    for (i, shape) in ins.iter().enumerate() {
        if !shape.is_empty() && shape.len() != 4 {
            let name = up_inputs(a).get(i).cloned().unwrap_or_default();
            return rank_error(OP, &name, "4-D (batch, channel, y, x)", shape);
        }
    }
    if bilinear(a) {
        return bilinear_shape(a, s, ins, outs);
    }
    let n = a.int("num_args");
    if n < 1 || n as usize != ins.len() {
        return invalid(format!(
            "{OP}: num_args={n} but {} inputs are given",
            ins.len()
        ));
    }
    if ins[0].is_empty() {
        return Ok(());
    }
    let d = ins[0].clone();
    let (oh, ow) = (d[2].saturating_mul(s), d[3].saturating_mul(s));
    let sum = a.str("multi_input_mode") == "sum";
    let mut channels = if sum { d[1] } else { 0 };
    let mut all_known = true;
    for i in 0..ins.len() {
        let mut want = vec![d[0], 0, 0, 0];
        if sum {
            want[1] = d[1];
        }
        set_in(ins, i, &want)?;
        let x = &ins[i];
        if x.is_empty() {
            all_known = false;
            continue;
        }
        // Each input is repeated by one factor, its height's (as MXNet).
        if x[2] != 0 && oh != 0 && oh % x[2] != 0 {
            return invalid(format!(
                "{OP}: the height {} of input arg{i} {} does not divide the output height {oh}",
                x[2],
                fmt_shape(x)
            ));
        }
        if x[2] != 0 && x[3] != 0 && oh != 0 && x[3].saturating_mul(oh / x[2]) != ow {
            return invalid(format!(
                "{OP}: input arg{i} {} is repeated {}× (output height {oh} over its height), \
                 which gives width {}, not the output width {ow}",
                fmt_shape(x),
                oh / x[2],
                x[3].saturating_mul(oh / x[2])
            ));
        }
        if !sum {
            all_known &= x[1] != 0;
            channels = channels.saturating_add(x[1]);
        }
    }
    let c = if all_known { channels } else { 0 };
    set_out(outs, 0, &[d[0], c, oh, ow])
}

fn bilinear_shape(
    a: &Attrs,
    s: usize,
    ins: &mut [Shape],
    outs: &mut [Shape],
) -> Result<(), OpError> {
    if ins.len() != 2 {
        return invalid(format!(
            "{OP}: bilinear takes data and weight, got {} inputs",
            ins.len()
        ));
    }
    let d = ins[0].clone();
    if d.is_empty() {
        return Ok(());
    }
    let filters = a.int("num_filter");
    if d[1] != 0 && filters != d[1] as i64 {
        return invalid(format!(
            "{OP}: bilinear needs num_filter equal to the data's channels: data {} has {}, \
             num_filter is {filters}",
            fmt_shape(&d),
            d[1]
        ));
    }
    let (k, _, _) = bilinear_window(s);
    set_in(ins, 1, &[d[1], 1, k, k])?;
    let mut o = d.clone();
    o[2] = d[2].saturating_mul(s);
    o[3] = d[3].saturating_mul(s);
    set_out(outs, 0, &o)
}

fn up_cost(a: &Attrs, _: &[Shape], outs: &[Shape]) -> u64 {
    let out = elems(&outs[0]);
    if bilinear(a) {
        let k = a.int("scale").clamp(1, 1 << 20) as u64 * 2;
        flops(&[2, out, k, k])
    } else {
        out
    }
}

/// The bilinear mode's deconvolution geometry for data with `c` channels.
fn bilinear_geometry(s: usize, c: usize) -> Geometry {
    let (k, stride, pad) = bilinear_window(s);
    Geometry {
        kernel: Dims::filled(2, k),
        stride: Dims::filled(2, stride),
        dilate: Dims::filled(2, 1),
        pad: Dims::filled(2, pad),
        filters: c,
        groups: c,
        last: false,
    }
}

/// Calls `f(input index, input element, output element)` for every element of the nearest
/// up-sampling's output.
fn for_each_source(
    a: &Attrs,
    shapes: &[&[usize]],
    out: &[usize],
    mut f: impl FnMut(usize, usize, usize),
) {
    let sum = a.str("multi_input_mode") == "sum";
    let (n, oc, oh, ow) = (out[0], out[1], out[2], out[3]);
    let mut c_off = 0;
    for (i, s) in shapes.iter().enumerate() {
        let (c, h, w) = (s[1], s[2], s[3]);
        let rep = (oh / h.max(1)).max(1);
        for b in 0..n {
            for ch in 0..c {
                let oc_i = if sum { ch } else { c_off + ch };
                for y in 0..oh {
                    for x in 0..ow {
                        let src = ((b * c + ch) * h + y / rep) * w + x / rep;
                        f(i, src, ((b * oc + oc_i) * oh + y) * ow + x);
                    }
                }
            }
        }
        c_off += c;
    }
}

fn up_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let out_shape = ctx.out_shapes[0].clone();
    let data = if bilinear(a) {
        let (x, w) = (ins[0], ins[1]);
        let g = bilinear_geometry(scale(a)?, x.shape[1]);
        deconvolve(&g.pad, &g, x, w, None, &out_shape)
    } else {
        let shapes: Vec<&[usize]> = ins.iter().map(|t| t.shape.as_slice()).collect();
        let mut out = vec![0.0; out_shape.iter().product()];
        for_each_source(a, &shapes, &out_shape, |i, src, o| {
            out[o] += ins[i].data[src]
        });
        out
    };
    Ok(vec![Tensor {
        dtype: ins[0].dtype,
        shape: out_shape,
        data,
    }])
}

fn up_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let a = ctx.attrs;
    let mut args = vec![ctx.out_grads[0]];
    args.extend_from_slice(ctx.inputs);
    let grads = if bilinear(a) {
        let (k, s, p) = bilinear_window(scale(a)?);
        let (k, s, p) = (
            format!("({k}, {k})"),
            format!("({s}, {s})"),
            format!("({p}, {p})"),
        );
        let c = a.int("num_filter").to_string();
        let kv = [
            ("kernel", k.as_str()),
            ("stride", s.as_str()),
            ("pad", p.as_str()),
            ("num_filter", c.as_str()),
            ("num_group", c.as_str()),
            ("no_bias", "True"),
        ];
        g.op("_backward_Deconvolution", &args, &kv)?
    } else {
        g.op("_backward_UpSampling", &args, ctx.raw_attrs)?
    };
    Ok(grads.into_iter().map(Some).collect())
}

static UPSAMPLING_BACKWARD: OpDef = OpDef {
    doc: "Gradient of nearest UpSampling from ograd and the forward's inputs (for their \
          shapes): each input's gradient sums the head gradient over the block of outputs \
          each of its elements was copied to (its channel slice with concat, all channels \
          with sum). Takes the forward's parameters; bilinear differentiates through \
          _backward_Deconvolution instead.",
    params: UP_PARAMS,
    inputs: Inputs::Dynamic(up_backward_inputs),
    outputs: Outputs::Dynamic(up_backward_outputs),
    infer_shape: up_backward_shape,
    inplace: &[],
    cost: |_, ins, _| elems(&ins[0]),
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_UpSampling",
        Pattern::Opaque,
        Compute::Library {
            kernel: "upsampling_backward",
            reference: up_backward_ref,
        },
    )
};

fn up_backward_inputs(a: &Attrs) -> Vec<String> {
    std::iter::once("ograd".to_string())
        .chain(numbered_args(a))
        .collect()
}

fn up_backward_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let names: Vec<String> = numbered_args(a)
        .into_iter()
        .map(|n| format!("{n}_grad"))
        .collect();
    let n = names.len();
    (names, n)
}

fn up_backward_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if bilinear(a) {
        return invalid(format!(
            "_backward_{OP}: only nearest mode has this backward operator (bilinear uses \
             _backward_Deconvolution)"
        ));
    }
    let n = ins.len().saturating_sub(1);
    if outs.len() != n {
        return invalid(format!(
            "_backward_{OP}: {n} inputs besides ograd but {} gradients",
            outs.len()
        ));
    }
    let inputs: Vec<Option<usize>> = (1..=n).map(Some).collect();
    let grads: Vec<usize> = (0..n).collect();
    let through = Through {
        inputs: &inputs,
        outputs: &[&[0]],
        grads: &grads,
    };
    through.shapes(up_shape, a, ins, outs)
}

fn up_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let og = ins[0];
    let inputs = &ins[1..];
    let shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape.as_slice()).collect();
    let mut grads: Vec<Tensor> = inputs
        .iter()
        .map(|t| Tensor::zeros(og.dtype, t.shape.clone()))
        .collect();
    for_each_source(ctx.attrs, &shapes, &og.shape, |i, src, o| {
        grads[i].data[src] += og.data[o]
    });
    Ok(grads)
}

pub fn register(r: &mut Registry) {
    r.add(&UPSAMPLING);
    r.add(&UPSAMPLING_BACKWARD);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;

    const UP: &str = "UpSampling";

    fn nearest(n: &str) -> Vec<(&'static str, &str)> {
        vec![("sample_type", "nearest"), ("scale", "2"), ("num_args", n)]
    }

    #[test]
    fn nearest_shapes() {
        let (_, outs) = infer(UP, &nearest("1"), &[&[2, 3, 4, 5]]).unwrap();
        assert_eq!(outs[0], vec![2, 3, 8, 10]);
        // Concat: channels add up; the second input is repeated 4×.
        let (_, outs) = infer(UP, &nearest("2"), &[&[2, 3, 4, 6], &[2, 2, 2, 3]]).unwrap();
        assert_eq!(outs[0], vec![2, 5, 8, 12]);
        let (_, outs) = infer(UP, &nearest("2"), &[&[2, 3, 4, 5]]).unwrap();
        assert_eq!(outs[0], vec![2, 0, 8, 10], "channels unknown until arg1 is");
        let mut sum = nearest("2");
        sum.push(("multi_input_mode", "sum"));
        let (ins, outs) = infer(UP, &sum, &[&[2, 3, 4, 5]]).unwrap();
        assert_eq!(ins[1], vec![2, 3, 0, 0]);
        assert_eq!(outs[0], vec![2, 3, 8, 10]);
        assert_eq!(
            infer_err(UP, &sum, &[&[2, 3, 4, 5], &[2, 2, 4, 5]]),
            "input `arg1` has shape (2, 2, 4, 5) but (2, 3, ?, ?) is required"
        );
        assert_eq!(
            infer_err(UP, &nearest("2"), &[&[2, 3, 4, 5], &[2, 2, 3, 5]]),
            "UpSampling: the height 3 of input arg1 (2, 2, 3, 5) does not divide the output \
             height 8"
        );
        assert_eq!(
            infer_err(UP, &nearest("2"), &[&[2, 3, 4, 5], &[2, 2, 2, 2]]),
            "UpSampling: input arg1 (2, 2, 2, 2) is repeated 4× (output height 8 over its \
             height), which gives width 8, not the output width 10"
        );
        assert_eq!(
            infer_err(UP, &nearest("1"), &[&[2, 3, 4]]),
            "UpSampling: `arg0` must be 4-D (batch, channel, y, x), got shape (2, 3, 4)"
        );
    }

    #[test]
    fn bilinear_shapes() {
        let kv = [
            ("sample_type", "bilinear"),
            ("scale", "3"),
            ("num_filter", "3"),
            ("num_args", "2"),
        ];
        let (ins, outs) = infer(UP, &kv, &[&[2, 3, 4, 5]]).unwrap();
        assert_eq!(ins[1], vec![3, 1, 5, 5]);
        assert_eq!(outs[0], vec![2, 3, 12, 15]);
        let kv = [
            ("sample_type", "bilinear"),
            ("scale", "2"),
            ("num_args", "2"),
        ];
        assert_eq!(
            infer_err(UP, &kv, &[&[2, 3, 4, 5]]),
            "UpSampling: bilinear needs num_filter equal to the data's channels: data (2, 3, \
             4, 5) has 3, num_filter is 0"
        );
    }

    #[test]
    fn nearest_by_hand() {
        let x = t(&[1, 1, 1, 2], vec![1., 2.]);
        let out = run(UP, &nearest("1"), &[&x], false).unwrap();
        assert_eq!(out[0].data, vec![1., 1., 2., 2., 1., 1., 2., 2.]);
        // Sum with a second 1×2 input, also repeated 2×.
        let mut sum = nearest("2");
        sum.push(("multi_input_mode", "sum"));
        let y = t(&[1, 1, 1, 2], vec![10., 20.]);
        let out = run(UP, &sum, &[&x, &y], false).unwrap();
        assert_eq!(out[0].data, vec![11., 11., 22., 22., 11., 11., 22., 22.]);
        // Concat with a 2×4 input, repeated once.
        let y = t(&[1, 1, 2, 4], (1..=8).map(f64::from).collect());
        let out = run(UP, &nearest("2"), &[&x, &y], false).unwrap();
        assert_eq!(out[0].shape, vec![1, 2, 2, 4]);
        assert_eq!(out[0].data[8..], y.data);
    }

    #[test]
    fn bilinear_matches_mxnet_example() {
        // MXNet's documented example: ones (3×3), weight ones (4×4), scale 2.
        let kv = [
            ("sample_type", "bilinear"),
            ("scale", "2"),
            ("num_filter", "1"),
            ("num_args", "2"),
        ];
        let x = t(&[1, 1, 3, 3], vec![1.; 9]);
        let w = t(&[1, 1, 4, 4], vec![1.; 16]);
        let out = run(UP, &kv, &[x, w], false).unwrap();
        let row = |e: f64, m: f64| vec![e, m, m, m, m, e];
        let want: Vec<f64> = [
            row(1., 2.),
            row(2., 4.),
            row(2., 4.),
            row(2., 4.),
            row(2., 4.),
            row(1., 2.),
        ]
        .concat();
        assert_eq!(out[0].data, want);
    }

    #[test]
    fn gradients_match_finite_differences() {
        let ins = [randn(&[2, 3, 1, 2], 1), randn(&[2, 2, 1, 2], 2)];
        check_grad(UP, &nearest("2"), &ins, false, &[]);
        let mut sum = nearest("2");
        sum.push(("multi_input_mode", "sum"));
        sum[1] = ("scale", "3");
        let ins = [randn(&[1, 2, 1, 1], 3), randn(&[1, 2, 3, 3], 4)];
        check_grad(UP, &sum, &ins, false, &[]);
        for (s, k) in [("1", 1), ("2", 4), ("3", 5)] {
            let kv = [
                ("sample_type", "bilinear"),
                ("scale", s),
                ("num_filter", "2"),
                ("num_args", "2"),
            ];
            let ins = [randn(&[1, 2, 3, 2], 5), randn(&[2, 1, k, k], 6)];
            check_grad(UP, &kv, &ins, false, &[]);
        }
    }
}
