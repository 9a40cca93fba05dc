//! Deconvolution: the transposed convolution (1-D, 2-D, 3-D; grouped, dilated, padded,
//! with an output adjustment or a target shape).
//!
//! It is the data gradient of the Convolution with the same kernel, stride, dilation and
//! padding whose input is the deconvolution's output, so it runs Convolution's loop nest
//! with the roles of data and output swapped; the weight is `(C, num_filter/num_group,
//! *kernel)` with C the data's channels. As MXNet: no_bias defaults to True; `adj` must be
//! smaller than the stride; a target_shape (all entries set) overrides pad and adj with
//! `t = stride·(in−1) + dilated kernel − target`, `adj = t mod 2`, `pad = ⌈t/2⌉`.
//! MXNet 1.9.1's CPU kernels refuse 3-D deconvolution and channel-last layouts; kiln runs
//! them all.
//!
//! The gradient is `_backward_Deconvolution` (as MXNet): one pass of the same loop nest
//! accumulating the data, weight and bias gradients.

use super::common::{
    all_grads, channels_first, channels_last, elems, flops, from_ncx, rank_error, spatial, to_ncx,
    weight_bias_inputs, Dims, Through,
};
use super::conv::{for_each_tap, sum_of, transposed_window, window, ChannelFirst, Geometry};
use crate::contraction::{Contraction, Read};
use crate::def::PerSample;
use crate::expr::x as arg;
use crate::index::IndexExpr;
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::{
    Attrs, Compute, ConvKind, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs,
    Pattern, Registry, Tensor,
};

const OP: &str = "Deconvolution";

/// MXNet's Deconvolution layouts (no NWC).
const LAYOUTS: &[&str] = &["None", "NCW", "NCHW", "NCDHW", "NHWC", "NDHWC"];

pub(super) const DECONV_PARAMS: &[ParamDef] = &[
    param(
        "kernel",
        ParamType::Shape,
        None,
        "kernel size: (w,), (h, w) or (d, h, w)",
    ),
    param(
        "stride",
        ParamType::Shape,
        Some("()"),
        "stride of the corresponding convolution; () means 1 per dimension",
    ),
    param(
        "dilate",
        ParamType::Shape,
        Some("()"),
        "dilation; () means 1 per dimension",
    ),
    param(
        "pad",
        ParamType::Shape,
        Some("()"),
        "padding of the corresponding convolution; () means 0 (ignored with target_shape)",
    ),
    param(
        "adj",
        ParamType::Shape,
        Some("()"),
        "added to the output size, below the stride; () means 0 (ignored with target_shape)",
    ),
    param(
        "target_shape",
        ParamType::Shape,
        Some("()"),
        "output spatial size; derives pad and adj when set",
    ),
    param(
        "num_filter",
        ParamType::Int,
        None,
        "number of output channels",
    ),
    param(
        "num_group",
        ParamType::Int,
        Some("1"),
        "number of channel groups",
    ),
    param(
        "workspace",
        ParamType::Int,
        Some("512"),
        "MXNet workspace limit in MB (ignored)",
    ),
    param(
        "no_bias",
        ParamType::Bool,
        Some("True"),
        "whether to omit the bias",
    ),
    param(
        "cudnn_tune",
        ParamType::Enum(&["None", "off", "limited_workspace", "fastest"]),
        Some("None"),
        "cuDNN algorithm selection (ignored)",
    ),
    param(
        "cudnn_off",
        ParamType::Bool,
        Some("False"),
        "turn off cuDNN (ignored)",
    ),
    param(
        "layout",
        ParamType::Enum(LAYOUTS),
        Some("None"),
        "data layout; None means NCW, NCHW or NCDHW",
    ),
];

static DECONVOLUTION: OpDef = OpDef {
    per_sample: PerSample::Always,
    aliases: &["_npx_deconvolution"],
    doc: "Transposed convolution over 1 to 3 spatial dimensions. Weight is (C, \
          num_filter/num_group, *kernel) (channel-last: (C, *kernel, num_filter/num_group)); \
          out = stride·(in − 1) + dilate·(kernel − 1) + 1 − 2·pad + adj, or target_shape, \
          which then sets pad and adj. no_bias defaults to True.",
    params: DECONV_PARAMS,
    inputs: Inputs::Dynamic(weight_bias_inputs),
    infer_shape: deconv_shape,
    inplace: &[],
    cost: deconv_cost,
    grad: Grad::Rule(deconv_grad),
    contraction: Some(deconv_contraction),
    convolution: Some(ConvKind::Transposed),
    ..OpDef::new(
        OP,
        Pattern::OutEWiseFusable,
        Compute::Library {
            kernel: "deconv",
            reference: deconv_ref,
        },
    )
};

/// The validated parameters of one deconvolution.
struct Deconv {
    /// Kernel, stride, dilate, pad, groups and layout; `filters` is num_filter.
    g: Geometry,
    adj: Vec<usize>,
    target: Option<Vec<usize>>,
}

impl Deconv {
    fn new(a: &Attrs) -> Result<Deconv, OpError> {
        let g = Geometry::parse(a, OP)?;
        let n = g.kernel.len();
        let adj = spatial(a, OP, "adj", n, 0, 0)?;
        let t = a.shape("target_shape");
        let target = if t.iter().all(|&x| x == 0) {
            None
        } else if t.len() != n || t.iter().any(|&x| x < 1 || x > i32::MAX as i64) {
            return invalid(format!(
                "{OP}: `target_shape` needs {n} positive entries (one per kernel dimension), \
                 got {t:?}"
            ));
        } else {
            Some(t.iter().map(|&x| x as usize).collect())
        };
        Ok(Deconv {
            g,
            adj: adj.to_vec(),
            target,
        })
    }

    /// The padding per spatial axis and the output's spatial size (0 where the input's is
    /// unknown), for input spatial sizes `input` (0 = unknown).
    fn resolve(&self, input: &[usize]) -> Result<(Vec<usize>, Vec<usize>), OpError> {
        let g = &self.g;
        let (mut pad, mut adj, mut out) = (g.pad.to_vec(), self.adj.clone(), vec![0; input.len()]);
        for (i, &len) in input.iter().enumerate() {
            if len == 0 {
                continue;
            }
            let full = g.stride[i]
                .saturating_mul(len - 1)
                .saturating_add(g.dilated(i));
            if let Some(target) = &self.target {
                if full < target[i] {
                    return invalid(format!(
                        "{OP}: target_shape {target:?} is too big along spatial axis {i}: the \
                         unpadded output has {full}"
                    ));
                }
                let t = full - target[i];
                adj[i] = t % 2;
                pad[i] = t.div_ceil(2);
            }
            if adj[i] >= g.stride[i] {
                return invalid(format!(
                    "{OP}: adj {} must be smaller than the stride {} along spatial axis {i}",
                    adj[i], g.stride[i]
                ));
            }
            match full.saturating_add(adj[i]).checked_sub(2 * pad[i]) {
                Some(o) if o > 0 => out[i] = o,
                _ => {
                    return invalid(format!(
                        "{OP}: padding {} leaves no output along spatial axis {i} (input {len}, \
                         unpadded output {})",
                        pad[i],
                        full.saturating_add(adj[i])
                    ))
                }
            }
        }
        Ok((pad, out))
    }
}

/// Convolution's geometry of the transposed problem for channel-first data with `c`
/// channels: its output channels are the deconvolution's input channels.
fn transposed(g: &Geometry, pad: &[usize], c: usize) -> Geometry {
    Geometry {
        kernel: g.kernel,
        stride: g.stride,
        dilate: g.dilate,
        pad: Dims::from_slice(pad),
        filters: c,
        groups: g.groups,
        last: false,
    }
}

/// Forward: weight, bias and output from the data. Backward: channels from the weight,
/// batch from the output, and spatial sizes from the output when they divide evenly (no
/// target_shape).
fn deconv_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let dc = Deconv::new(a)?;
    let g = &dc.g;
    let n = g.kernel.len();
    let rank = n + 2;
    for (i, name) in [(0, "data"), (1, "weight")] {
        if !ins[i].is_empty() && ins[i].len() != rank {
            let want = format!("{rank}-D for a {n}-D kernel");
            return rank_error(OP, name, &want, &ins[i]);
        }
    }
    let mut d = if ins[0].is_empty() {
        vec![0; rank]
    } else {
        to_ncx(&ins[0], g.last)
    };
    if ins[1].len() == rank && d[1] == 0 {
        d[1] = ins[1][0];
    }
    if outs[0].len() == rank {
        let o = to_ncx(&outs[0], g.last);
        if d[0] == 0 {
            d[0] = o[0];
        }
        for i in 0..n {
            let span =
                (o[2 + i].saturating_add(2 * g.pad[i])).checked_sub(dc.adj[i] + g.dilated(i));
            if let (0, Some(span), None) = (d[2 + i], span, &dc.target) {
                if o[2 + i] != 0 && span % g.stride[i] == 0 {
                    d[2 + i] = span / g.stride[i] + 1;
                }
            }
        }
    }
    if d[1] != 0 && d[1] % g.groups != 0 {
        return invalid(format!(
            "{OP}: data {} has {} channels, not divisible by num_group {}",
            fmt_shape(&from_ncx(&d, g.last)),
            d[1],
            g.groups
        ));
    }
    let mut w = vec![d[1], g.filters / g.groups];
    w.extend_from_slice(&g.kernel);
    set_in(ins, 1, &from_ncx(&w, g.last))?;
    if !a.bool("no_bias") {
        set_in(ins, 2, &[g.filters])?;
    }
    let (_, spatial_out) = dc.resolve(&d[2..])?;
    let mut o = vec![d[0], g.filters];
    o.extend(spatial_out);
    set_out(outs, 0, &from_ncx(&o, g.last))?;
    if d.iter().any(|&x| x != 0) {
        set_in(ins, 0, &from_ncx(&d, g.last))?;
    }
    Ok(())
}

/// 2 FLOPs per multiply-add: every input element meets num_filter/num_group × prod(kernel)
/// weights.
fn deconv_cost(a: &Attrs, ins: &[Shape], outs: &[Shape]) -> u64 {
    let c = ins[0].get(1).copied().unwrap_or(0).max(1) as u64;
    let per_input = elems(&ins[1]) / c;
    let bias = if a.bool("no_bias") {
        0
    } else {
        elems(&outs[0])
    };
    flops(&[2, elems(&ins[0]), per_input]).saturating_add(bias)
}

/// The deconvolution of channel-first `x` by channel-first `w` into `out_shape`
/// (channel-first), bias included; shared with UpSampling's bilinear mode.
pub(super) fn deconvolve(
    pad: &[usize],
    g: &Geometry,
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    out_shape: &[usize],
) -> Vec<f64> {
    let o_plane: usize = out_shape[2..].iter().product();
    let filters = out_shape[1];
    let mut out = vec![0.0; out_shape.iter().product()];
    if let Some(bias) = bias {
        for (plane, o) in out.chunks_mut(o_plane.max(1)).enumerate() {
            o.fill(bias.data[plane % filters]);
        }
    }
    let view = transposed(g, pad, x.shape[1]);
    for_each_tap(&view, out_shape, &x.shape, |oi, wi, xi| {
        out[oi] += w.data[wi] * x.data[xi]
    });
    out
}

/// The deconvolution's geometry, its padding (resolved for the data's spatial sizes), the
/// data's channels per group and the filters per group, for data of shape `x`.
fn resolved(a: &Attrs, x: &[usize]) -> Result<(Geometry, Vec<usize>, usize, usize), OpError> {
    let dc = Deconv::new(a)?;
    let x = to_ncx(x, dc.g.last);
    let (pad, _) = dc.resolve(&x[2..])?;
    let (cg, fg) = (x[1] / dc.g.groups, dc.g.filters / dc.g.groups);
    Ok((dc.g, pad, cg, fg))
}

/// Deconvolution as a contraction (written channel-first): output (n, f, i...) sums, over
/// the group's data channels c and the taps t..., data (n, group(f)·Cg + c, (i + pad −
/// t·dilate) / stride) — where the stride divides, else the zero padding — times weight
/// (group(f)·Cg + c, f mod Fg, t...), plus the bias at f.
fn deconv_contraction(
    a: &Attrs,
    ins: &[Shape],
    outs: &[Shape],
    _: usize,
) -> Result<Contraction, OpError> {
    let (g, pad, cg, fg) = resolved(a, &ins[0])?;
    let cf = ChannelFirst {
        rank: outs[0].len(),
        last: g.last,
    };
    let x_spatial = to_ncx(&ins[0], g.last);
    let channel = (cf.out(1) / fg as i64) * cg as i64 + cf.red(0);
    let mut data = vec![cf.out(0), channel.clone()];
    let mut weight = vec![channel, cf.out(1) % fg as i64];
    for d in 0..g.kernel.len() {
        let (i, t) = (cf.out(2 + d), cf.red(1 + d));
        data.push(transposed_window(&g, &pad, d, x_spatial[2 + d], i, t));
        weight.push(cf.red(1 + d));
    }
    let extents = std::iter::once(cg)
        .chain(g.kernel.iter().copied())
        .collect();
    let mut c = sum_of(
        extents,
        vec![cf.read(0, data, Some(0.0)), cf.read(1, weight, None)],
    );
    if !a.bool("no_bias") {
        c.epilogue.push(Read {
            input: 2,
            coords: vec![cf.out(1)],
            padding: None,
        });
        c.post = arg(0) + arg(1);
    }
    Ok(c)
}

fn deconv_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let dc = Deconv::new(ctx.attrs)?;
    let x = channels_first(ins[0], dc.g.last);
    let w = channels_first(ins[1], dc.g.last);
    let (pad, _) = dc.resolve(&x.shape[2..])?;
    let out_shape = to_ncx(&ctx.out_shapes[0], dc.g.last);
    let data = deconvolve(&pad, &dc.g, &x, &w, ins.get(2).copied(), &out_shape);
    let out = Tensor {
        dtype: x.dtype,
        shape: out_shape,
        data,
    };
    Ok(vec![channels_last(out, dc.g.last)])
}

fn deconv_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[0], ctx.inputs[1]];
    all_grads(g, ctx, "_backward_Deconvolution", &args)
}

static DECONVOLUTION_BACKWARD: OpDef = OpDef {
    doc: "Gradient of Deconvolution: from ograd, data and weight, the gradients of data (the \
          convolution of ograd), weight (data correlated with ograd) and bias (ograd summed \
          over batch and space). Takes the forward's parameters.",
    params: DECONV_PARAMS,
    inputs: Inputs::Fixed(&["ograd", "data", "weight"]),
    outputs: Outputs::Dynamic(super::conv::conv_backward_outputs),
    infer_shape: deconv_backward_shape,
    inplace: &[],
    cost: deconv_backward_cost,
    grad: Grad::NotDifferentiable,
    contraction: Some(deconv_backward_contraction),
    ..OpDef::new(
        "_backward_Deconvolution",
        Pattern::Opaque,
        Compute::Library {
            kernel: "deconv_backward",
            reference: deconv_backward_ref,
        },
    )
};

fn deconv_backward_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let through = Through {
        inputs: &[Some(1), Some(2), None],
        outputs: &[&[0]],
        grads: &[0, 1, 2][..outs.len()],
    };
    through.shapes(deconv_shape, a, ins, outs)
}

fn deconv_backward_cost(a: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    match ins {
        [og, data, weight] => {
            let fwd = [data.clone(), weight.clone()];
            deconv_cost(a, &fwd, std::slice::from_ref(og)).saturating_mul(2)
        }
        _ => 0,
    }
}

/// The data, weight and (unless no_bias) bias gradients of a channel-first deconvolution
/// from its channel-first head gradient `og`.
pub(super) fn deconvolve_backward(
    pad: &[usize],
    g: &Geometry,
    og: &Tensor,
    x: &Tensor,
    w: &Tensor,
    bias: bool,
) -> Vec<Tensor> {
    let view = transposed(g, pad, x.shape[1]);
    let (mut dx, mut dw) = (vec![0.0; x.len()], vec![0.0; w.len()]);
    for_each_tap(&view, &og.shape, &x.shape, |oi, wi, xi| {
        dx[xi] += w.data[wi] * og.data[oi];
        dw[wi] += og.data[oi] * x.data[xi];
    });
    let mut grads = vec![
        Tensor {
            data: dx,
            ..x.clone()
        },
        Tensor {
            data: dw,
            ..w.clone()
        },
    ];
    if bias {
        let filters = og.shape[1];
        let o_plane: usize = og.shape[2..].iter().product();
        let mut db = vec![0.0; filters];
        for (plane, o) in og.data.chunks(o_plane.max(1)).enumerate() {
            db[plane % filters] += o.iter().sum::<f64>();
        }
        grads.push(Tensor {
            dtype: og.dtype,
            shape: vec![filters],
            data: db,
        });
    }
    grads
}

/// The gradients as contractions (written channel-first): data_grad (n, c, j...) sums
/// ograd (n, group(c)·Fg + f, j·stride + t·dilate − pad) · weight (c, f, t...) over the
/// group's filters f and the taps — a convolution of ograd; weight_grad (c, f, t...) sums
/// data (n, c, j...) · ograd (n, group(c)·Fg + f, j·stride + t·dilate − pad) over n and
/// j...; bias_grad (f) sums ograd over n and its positions.
fn deconv_backward_contraction(
    a: &Attrs,
    ins: &[Shape],
    outs: &[Shape],
    k: usize,
) -> Result<Contraction, OpError> {
    let (g, pad, cg, fg) = resolved(a, &ins[1])?;
    let cf = ChannelFirst {
        rank: outs.get(k).map(Vec::len).unwrap_or(0),
        last: g.last,
    };
    let (out, red) = (|i| cf.out(i), |j| cf.red(j));
    let spatial = g.kernel.len();
    let (og, x) = (to_ncx(&ins[0], g.last), to_ncx(&ins[1], g.last));
    let filter = |c: IndexExpr, f: IndexExpr| (c / cg as i64) * fg as i64 + f;
    Ok(match k {
        0 => {
            let mut o = vec![out(0), filter(out(1), red(0))];
            let mut w = vec![out(1), red(0)];
            for d in 0..spatial {
                o.push(window(&g, &pad, d, out(2 + d), red(1 + d)));
                w.push(red(1 + d));
            }
            let extents = std::iter::once(fg)
                .chain(g.kernel.iter().copied())
                .collect();
            sum_of(extents, vec![cf.read(0, o, Some(0.0)), cf.read(2, w, None)])
        }
        1 => {
            let mut data = vec![red(0), out(0)];
            let mut o = vec![red(0), filter(out(0), out(1))];
            for d in 0..spatial {
                data.push(red(1 + d));
                o.push(window(&g, &pad, d, red(1 + d), out(2 + d)));
            }
            let extents = std::iter::once(x[0])
                .chain(x[2..].iter().copied())
                .collect();
            sum_of(
                extents,
                vec![cf.read(1, data, None), cf.read(0, o, Some(0.0))],
            )
        }
        _ => {
            let o = [red(0), out(0)]
                .into_iter()
                .chain((0..spatial).map(|d| red(1 + d)))
                .collect();
            let extents = std::iter::once(og[0])
                .chain(og[2..].iter().copied())
                .collect();
            sum_of(extents, vec![cf.read(0, o, None)])
        }
    })
}

fn deconv_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let dc = Deconv::new(ctx.attrs)?;
    let last = dc.g.last;
    let og = channels_first(ins[0], last);
    let x = channels_first(ins[1], last);
    let w = channels_first(ins[2], last);
    let (pad, _) = dc.resolve(&x.shape[2..])?;
    let bias = !ctx.attrs.bool("no_bias");
    // The bias gradient is 1-D: channels_last leaves it as it is.
    let grads = deconvolve_backward(&pad, &dc.g, &og, &x, &w, bias);
    Ok(grads.into_iter().map(|t| channels_last(t, last)).collect())
}

pub fn register(r: &mut Registry) {
    r.add(&DECONVOLUTION);
    r.add(&DECONVOLUTION_BACKWARD);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;

    const DC: &str = "Deconvolution";

    #[test]
    fn infers_weight_and_output() {
        // 2·(4−1) + 3 − 2 + 1 = 8; 2·(5−1) + 3 − 2 + 1 = 10.
        let kv = [
            ("kernel", "(3, 3)"),
            ("num_filter", "4"),
            ("num_group", "2"),
            ("stride", "(2, 2)"),
            ("pad", "(1, 1)"),
            ("adj", "(1, 1)"),
        ];
        let (ins, outs) = infer(DC, &kv, &[&[2, 6, 4, 5]]).unwrap();
        assert_eq!(ins.len(), 2, "no bias by default");
        assert_eq!(ins[1], vec![6, 2, 3, 3]);
        assert_eq!(outs[0], vec![2, 4, 8, 10]);
        // target_shape overrides pad and adj: full 2·3 + 3 = 9, target 8: t = 1, pad 1, adj 1.
        let kv = [
            ("kernel", "(3,)"),
            ("num_filter", "3"),
            ("stride", "(2,)"),
            ("pad", "(5,)"),
            ("target_shape", "(8,)"),
            ("no_bias", "False"),
        ];
        let (ins, outs) = infer(DC, &kv, &[&[1, 2, 4]]).unwrap();
        assert_eq!(ins[1..], [vec![2, 3, 3], vec![3]]);
        assert_eq!(outs[0], vec![1, 3, 8]);
        // 3-D, dilated, channel-last: weight (C, *kernel, num_filter/num_group).
        let kv = [
            ("kernel", "(2, 2, 1)"),
            ("num_filter", "3"),
            ("dilate", "(2, 1, 1)"),
            ("layout", "NDHWC"),
        ];
        let (ins, outs) = infer(DC, &kv, &[&[1, 2, 3, 4, 5]]).unwrap();
        assert_eq!(ins[1], vec![5, 2, 2, 1, 3]);
        assert_eq!(outs[0], vec![1, 4, 4, 4, 3]);
    }

    #[test]
    fn infers_data_backward() {
        let kv = [
            ("kernel", "(3, 3)"),
            ("num_filter", "4"),
            ("stride", "(2, 3)"),
            ("pad", "(1, 0)"),
        ];
        // Output (8, 10) from input (4, 3): 2·3 + 3 − 2 = 7 ≠ 8 (no adj), 3·2 + 3 = 9.
        let (ins, _) = infer_both(DC, &kv, &[&[], &[5, 4, 3, 3]], &[&[2, 4, 7, 9]]).unwrap();
        assert_eq!(ins[0], vec![2, 5, 4, 3]);
    }

    #[test]
    fn reports_bad_configurations() {
        let kv = [("kernel", "(3,)"), ("num_filter", "2"), ("adj", "(1,)")];
        assert_eq!(
            infer_err(DC, &kv, &[&[1, 2, 5]]),
            "Deconvolution: adj 1 must be smaller than the stride 1 along spatial axis 0"
        );
        // Stride 1 with an odd difference to the target asks for adj 1, as in MXNet.
        let kv = [
            ("kernel", "(3,)"),
            ("num_filter", "2"),
            ("target_shape", "(6,)"),
        ];
        assert_eq!(
            infer_err(DC, &kv, &[&[1, 2, 5]]),
            "Deconvolution: adj 1 must be smaller than the stride 1 along spatial axis 0"
        );
        let kv = [
            ("kernel", "(3,)"),
            ("num_filter", "2"),
            ("target_shape", "(9,)"),
        ];
        assert_eq!(
            infer_err(DC, &kv, &[&[1, 2, 5]]),
            "Deconvolution: target_shape [9] is too big along spatial axis 0: the unpadded \
             output has 7"
        );
        let kv = [
            ("kernel", "(3, 3)"),
            ("num_filter", "2"),
            ("target_shape", "(9,)"),
        ];
        assert_eq!(
            infer_err(DC, &kv, &[&[1, 2, 5, 5]]),
            "Deconvolution: `target_shape` needs 2 positive entries (one per kernel dimension), \
             got [9]"
        );
        let kv = [("kernel", "(2,)"), ("num_filter", "2"), ("pad", "(2,)")];
        assert_eq!(
            infer_err(DC, &kv, &[&[1, 2, 1]]),
            "Deconvolution: padding 2 leaves no output along spatial axis 0 (input 1, unpadded \
             output 2)"
        );
        let kv = [("kernel", "(2,)"), ("num_filter", "4"), ("num_group", "2")];
        assert_eq!(
            infer_err(DC, &kv, &[&[1, 3, 4]]),
            "Deconvolution: data (1, 3, 4) has 3 channels, not divisible by num_group 2"
        );
        let kv = [("kernel", "(2,)"), ("num_filter", "3"), ("num_group", "2")];
        assert_eq!(
            infer_err(DC, &kv, &[&[1, 4, 4]]),
            "Deconvolution: num_filter 3 is not divisible by num_group 2"
        );
        let kv = [("kernel", "(2, 2)"), ("num_filter", "3")];
        assert_eq!(
            infer_err(DC, &kv, &[&[1, 4, 4]]),
            "Deconvolution: `data` must be 4-D for a 2-D kernel, got shape (1, 4, 4)"
        );
        assert_eq!(
            infer_err(DC, &kv, &[&[1, 4, 4, 4], &[4, 2, 2, 2]]),
            "input `weight` has shape (4, 2, 2, 2) but (4, 3, 2, 2) is required"
        );
    }

    #[test]
    fn strided_1d_by_hand() {
        // x = (1, 2, 3), w = (1, 10), stride 2: out[2i + k] += x[i]·w[k] → (1, 10, 2, 20, 3, 30);
        // pad 1 crops one at each end, adj 1 adds one back at the end.
        let x = t(&[1, 1, 3], vec![1., 2., 3.]);
        let w = t(&[1, 1, 2], vec![1., 10.]);
        let kv = [("kernel", "(2,)"), ("num_filter", "1"), ("stride", "(2,)")];
        let out = run(DC, &kv, &[x.clone(), w.clone()], false).unwrap();
        assert_close(&out[0].data, &[1., 10., 2., 20., 3., 30.], 0.0);
        let kv = [
            ("kernel", "(2,)"),
            ("num_filter", "1"),
            ("stride", "(2,)"),
            ("pad", "(1,)"),
            ("adj", "(1,)"),
        ];
        let out = run(DC, &kv, &[x.clone(), w.clone()], false).unwrap();
        assert_close(&out[0].data, &[10., 2., 20., 3., 30.], 0.0);
        // Dilation 2, stride 1: out[i + 2k] += x[i]·w[k] → (1, 2, 13, 20, 30); bias 0.5.
        let kv = [
            ("kernel", "(2,)"),
            ("num_filter", "1"),
            ("dilate", "(2,)"),
            ("no_bias", "False"),
        ];
        let b = t(&[1], vec![0.5]);
        let out = run(DC, &kv, &[x, w, b], false).unwrap();
        assert_close(&out[0].data, &[1.5, 2.5, 13.5, 20.5, 30.5], 0.0);
    }

    #[test]
    fn contractions_match_the_reference_kernels() {
        // Strided, grouped, dilated, padded with an adjustment and a bias; 1-D with a
        // target shape; channel-last; 3-D.
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a [usize], &'a [usize]);
        let cases: [Case; 4] = [
            (
                &[
                    ("kernel", "(3, 2)"),
                    ("num_filter", "4"),
                    ("num_group", "2"),
                    ("stride", "(2, 1)"),
                    ("pad", "(1, 1)"),
                    ("dilate", "(1, 2)"),
                    ("adj", "(1, 0)"),
                    ("no_bias", "False"),
                ],
                &[2, 6, 3, 4],
                &[6, 2, 3, 2],
            ),
            (
                &[
                    ("kernel", "(3,)"),
                    ("num_filter", "3"),
                    ("stride", "(3,)"),
                    ("target_shape", "(10,)"),
                ],
                &[2, 2, 4],
                &[2, 3, 3],
            ),
            (
                &[
                    ("kernel", "(2, 3)"),
                    ("num_filter", "2"),
                    ("stride", "(2, 2)"),
                    ("pad", "(0, 1)"),
                    ("layout", "NHWC"),
                ],
                &[1, 3, 2, 3],
                &[3, 2, 3, 2],
            ),
            (
                &[
                    ("kernel", "(2, 2, 2)"),
                    ("num_filter", "2"),
                    ("stride", "(2, 1, 1)"),
                ],
                &[1, 2, 2, 3, 2],
                &[2, 2, 2, 2, 2],
            ),
        ];
        for (i, (kv, x, w)) in cases.into_iter().enumerate() {
            let seed = 10 * i as u64;
            let (x, w) = (randn(x, seed), randn(w, seed + 1));
            let mut ins = vec![x.clone(), w.clone()];
            if kv.contains(&("no_bias", "False")) {
                ins.push(randn(&[4], seed + 2));
            }
            check_contraction(DC, kv, &ins);
            let out = run(DC, kv, &ins.iter().collect::<Vec<_>>(), false).unwrap();
            let og = randn(&out[0].shape, seed + 3);
            check_contraction("_backward_Deconvolution", kv, &[og, x, w]);
        }
    }

    #[test]
    fn grouped_2d_is_the_transpose_of_convolution() {
        // <deconv(x, w), y> = <x, conv(y, w)> for the convolution with the same geometry.
        let kv = [
            ("kernel", "(3, 2)"),
            ("num_filter", "4"),
            ("num_group", "2"),
            ("stride", "(2, 1)"),
            ("pad", "(1, 1)"),
            ("dilate", "(1, 2)"),
            ("adj", "(1, 0)"),
        ];
        let x = randn(&[2, 6, 3, 4], 1);
        let w = randn(&[6, 2, 3, 2], 2);
        let out = run(DC, &kv, &[&x, &w], false).unwrap();
        assert_eq!(out[0].shape, vec![2, 4, 6, 4]);
        let y = randn(&out[0].shape, 3);
        let conv = [
            ("kernel", "(3, 2)"),
            ("num_filter", "6"),
            ("num_group", "2"),
            ("stride", "(2, 1)"),
            ("pad", "(1, 1)"),
            ("dilate", "(1, 2)"),
            ("no_bias", "True"),
        ];
        let cy = run("Convolution", &conv, &[&y, &w], false).unwrap();
        assert_eq!(cy[0].shape, x.shape);
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
        let (lhs, rhs) = (dot(&out[0].data, &y.data), dot(&x.data, &cy[0].data));
        assert!(
            (lhs - rhs).abs() < 1e-12 * lhs.abs().max(1.0),
            "{lhs} vs {rhs}"
        );
    }

    #[test]
    fn gradients_match_finite_differences() {
        // 2-D: stride, pad, adj, groups, bias.
        let kv = [
            ("kernel", "(3, 2)"),
            ("num_filter", "4"),
            ("num_group", "2"),
            ("stride", "(2, 3)"),
            ("pad", "(1, 0)"),
            ("adj", "(1, 2)"),
            ("no_bias", "False"),
        ];
        let ins = [
            randn(&[2, 2, 3, 1], 1),
            randn(&[2, 2, 3, 2], 2),
            randn(&[4], 3),
        ];
        check_grad(DC, &kv, &ins, false, &[]);
        // 1-D with target_shape (pad and adj derived), dilation, batch 1.
        let kv = [
            ("kernel", "(3,)"),
            ("num_filter", "3"),
            ("stride", "(2,)"),
            ("dilate", "(2,)"),
            ("target_shape", "(8,)"),
        ];
        check_grad(
            DC,
            &kv,
            &[randn(&[1, 1, 3], 4), randn(&[1, 3, 3], 5)],
            false,
            &[],
        );
        // Channel-last 2-D and a 3-D case.
        let kv = [
            ("kernel", "(2, 3)"),
            ("num_filter", "2"),
            ("stride", "(1, 2)"),
            ("layout", "NHWC"),
            ("no_bias", "False"),
        ];
        let ins = [
            randn(&[1, 3, 2, 3], 6),
            randn(&[3, 2, 3, 2], 7),
            randn(&[2], 8),
        ];
        check_grad(DC, &kv, &ins, false, &[]);
        let kv = [
            ("kernel", "(2, 1, 2)"),
            ("num_filter", "2"),
            ("stride", "(2, 1, 1)"),
            ("pad", "(0, 0, 1)"),
        ];
        check_grad(
            DC,
            &kv,
            &[randn(&[1, 2, 2, 3, 2], 9), randn(&[2, 2, 2, 1, 2], 10)],
            false,
            &[],
        );
        // A single pixel through a 1×1 kernel.
        let kv = [("kernel", "(1, 1)"), ("num_filter", "1")];
        let ins = [randn(&[1, 1, 1, 1], 11), randn(&[1, 1, 1, 1], 12)];
        check_grad(DC, &kv, &ins, false, &[]);
    }
}
