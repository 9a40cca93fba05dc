//! Convolution (1-D, 2-D, 3-D; grouped, dilated, padded; channel-first or channel-last).
//!
//! Its gradient is one backward operator, `_backward_Convolution` (as MXNet), which runs
//! the forward's loop nest once and accumulates the data, weight and bias gradients;
//! where the input is larger than the output (a stride, little padding), compiled code
//! computes its data gradient through columns (`conv_cols.rs`).

use super::common::{
    all_grads, channel_last, channels_first, channels_last, dims3, elems, flops, from_ncx,
    positive, rank_error, spatial, strings, to_ncx, weight_bias_inputs, Dims, Through, LAYOUTS,
    MAX_WINDOW,
};
use crate::contraction::{Contraction, Read};
use crate::def::PerSample;
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::{x, Combiner, IndexExpr};
use crate::{
    Attrs, Compute, ConvKind, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs,
    Pattern, Registry, Tensor,
};

const OP: &str = "Convolution";

pub(super) const CONV_PARAMS: &[ParamDef] = &[
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
        "stride; () means 1 per dimension",
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
        "zero padding; () means 0 per dimension",
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
        Some("1024"),
        "MXNet workspace limit in MB (ignored)",
    ),
    param(
        "no_bias",
        ParamType::Bool,
        Some("False"),
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

static CONVOLUTION: OpDef = OpDef {
    aliases: &["_npx_convolution"],
    doc: "Convolution (cross-correlation) over 1 to 3 spatial dimensions. Weight is \
          (num_filter, C/num_group, *kernel), or (num_filter, *kernel, C/num_group) for \
          channel-last layouts; out = floor((in + 2·pad − (dilate·(kernel−1)+1)) / stride) + 1.",
    params: CONV_PARAMS,
    inputs: Inputs::Dynamic(weight_bias_inputs),
    infer_shape: conv_shape,
    inplace: &[],
    cost: conv_cost,
    grad: Grad::Rule(conv_grad),
    contraction: Some(conv_contraction),
    channel_weights: Some(conv_out_channel_axis),
    convolution: Some(ConvKind::Direct),
    per_sample: PerSample::Always,
    ..OpDef::new(
        OP,
        Pattern::OutEWiseFusable,
        Compute::Library {
            kernel: "conv",
            reference: conv_ref,
        },
    )
};

/// The filter axis of the output: first after the batch, or last for channel-last layouts.
fn conv_out_channel_axis(a: &Attrs) -> &'static [i64] {
    if a.str("layout").ends_with('C') {
        &[-1]
    } else {
        &[1]
    }
}

/// The validated parameters of one convolution (Deconvolution runs the same loop nest with
/// its roles of data and output swapped).
pub(super) struct Geometry {
    pub kernel: Dims,
    pub stride: Dims,
    pub dilate: Dims,
    pub pad: Dims,
    /// Output channels of the convolution.
    pub filters: usize,
    pub groups: usize,
    /// Channel-last layout (NWC, NHWC, NDHWC).
    pub last: bool,
}

impl Geometry {
    fn new(a: &Attrs) -> Result<Geometry, OpError> {
        Geometry::parse(a, OP)
    }

    /// The kernel, stride, dilate, pad, num_filter, num_group and layout parameters of
    /// operator `op`, checked.
    pub(super) fn parse(a: &Attrs, op: &str) -> Result<Geometry, OpError> {
        let k = a.shape("kernel");
        if k.is_empty() || k.len() > 3 || k.iter().any(|&x| !(1..=MAX_WINDOW).contains(&x)) {
            return invalid(format!(
                "{op}: `kernel` must have 1 to 3 positive entries, got {k:?}"
            ));
        }
        let n = k.len();
        let mut kernel = Dims::filled(n, 0);
        for (slot, &x) in kernel.iter_mut().zip(k) {
            *slot = x as usize;
        }
        let g = Geometry {
            kernel,
            stride: spatial(a, op, "stride", n, 1, 1)?,
            dilate: spatial(a, op, "dilate", n, 1, 1)?,
            pad: spatial(a, op, "pad", n, 0, 0)?,
            filters: positive(a, op, "num_filter")?,
            groups: positive(a, op, "num_group")?,
            last: channel_last(a, op, n)?,
        };
        if !g.filters.is_multiple_of(g.groups) {
            return invalid(format!(
                "{op}: num_filter {} is not divisible by num_group {}",
                g.filters, g.groups
            ));
        }
        Ok(g)
    }

    /// Extent of the dilated kernel along spatial axis `i`.
    pub(super) fn dilated(&self, i: usize) -> usize {
        self.dilate[i] * (self.kernel[i] - 1) + 1
    }
}

/// Forward: weight, bias and output from data. Backward: channels from the weight, batch
/// from the output, and spatial sizes from the output where the stride is 1 (as MXNet).
fn conv_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let g = Geometry::new(a)?;
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
        d[1] = to_ncx(&ins[1], g.last)[1].saturating_mul(g.groups);
    }
    if outs[0].len() == rank {
        let o = to_ncx(&outs[0], g.last);
        if d[0] == 0 {
            d[0] = o[0];
        }
        for i in 0..n {
            let (x, p) = (o[2 + i].saturating_add(g.dilated(i) - 1), 2 * g.pad[i]);
            if d[2 + i] == 0 && o[2 + i] != 0 && g.stride[i] == 1 && x > p {
                d[2 + i] = x - p;
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
    let mut w = vec![g.filters, d[1] / g.groups];
    w.extend_from_slice(&g.kernel);
    set_in(ins, 1, &from_ncx(&w, g.last))?;
    if !a.bool("no_bias") {
        set_in(ins, 2, &[g.filters])?;
    }
    let mut o = vec![d[0], g.filters];
    for i in 0..n {
        if d[2 + i] == 0 {
            o.push(0);
            continue;
        }
        let padded = d[2 + i].saturating_add(2 * g.pad[i]);
        if g.dilated(i) > padded {
            return invalid(format!(
                "{OP}: the kernel (extent {} with dilation) is larger than the padded input \
                 ({padded}) along spatial axis {i} of data {}",
                g.dilated(i),
                fmt_shape(&from_ncx(&d, g.last))
            ));
        }
        o.push((padded - g.dilated(i)) / g.stride[i] + 1);
    }
    set_out(outs, 0, &from_ncx(&o, g.last))?;
    if d.iter().any(|&x| x != 0) {
        set_in(ins, 0, &from_ncx(&d, g.last))?;
    }
    Ok(())
}

/// 2 FLOPs per multiply-add: every output element sums C/num_group × prod(kernel) products.
fn conv_cost(a: &Attrs, ins: &[Shape], outs: &[Shape]) -> u64 {
    let filters = a.int("num_filter").max(1) as u64;
    let per_output = elems(&ins[1]) / filters;
    let out = elems(&outs[0]);
    flops(&[2, out, per_output]).saturating_add(if a.bool("no_bias") { 0 } else { out })
}

/// Input coordinate of output position `o` and kernel tap `k` along one axis, `None` in the
/// zero padding.
pub(super) fn tap(
    o: usize,
    k: usize,
    stride: usize,
    dilate: usize,
    pad: usize,
    len: usize,
) -> Option<usize> {
    (o * stride + k * dilate)
        .checked_sub(pad)
        .filter(|&i| i < len)
}

/// Calls `f(x, w, o)` with the linear indices (channel-first) of every (input, weight,
/// output) triple the convolution multiplies, every case run as 3-D (missing leading
/// spatial dims have size 1): the one loop nest of the forward and backward kernels (and
/// of Deconvolution's, the transposed convolution).
pub(super) fn for_each_tap(
    g: &Geometry,
    x_shape: &[usize],
    o_shape: &[usize],
    mut f: impl FnMut(usize, usize, usize),
) {
    let (n, c, nf) = (x_shape[0], x_shape[1], g.filters);
    let (xd, od) = (dims3(&x_shape[2..], 1), dims3(&o_shape[2..], 1));
    let (k, s) = (dims3(&g.kernel, 1), dims3(&g.stride, 1));
    let (dl, p) = (dims3(&g.dilate, 1), dims3(&g.pad, 0));
    let (x_plane, o_plane) = (xd.iter().product::<usize>(), od.iter().product::<usize>());
    let taps = k.iter().product::<usize>();
    let cg = c / g.groups; // input channels per group
    let fg = nf / g.groups; // filters per group
    for b in 0..n {
        for fi in 0..nf {
            let o_base = (b * nf + fi) * o_plane;
            for ci in 0..cg {
                let x_base = (b * c + (fi / fg) * cg + ci) * x_plane;
                let w_base = (fi * cg + ci) * taps;
                for (t, ((ka, kb), kc)) in (0..k[0])
                    .flat_map(|a| (0..k[1]).map(move |b| (a, b)))
                    .flat_map(|ab| (0..k[2]).map(move |c| (ab, c)))
                    .enumerate()
                {
                    for z in 0..od[0] {
                        let Some(iz) = tap(z, ka, s[0], dl[0], p[0], xd[0]) else {
                            continue;
                        };
                        for y in 0..od[1] {
                            let Some(iy) = tap(y, kb, s[1], dl[1], p[1], xd[1]) else {
                                continue;
                            };
                            let o_row = o_base + (z * od[1] + y) * od[2];
                            let x_row = x_base + (iz * xd[1] + iy) * xd[2];
                            for xo in 0..od[2] {
                                if let Some(ix) = tap(xo, kc, s[2], dl[2], p[2], xd[2]) {
                                    f(x_row + ix, w_base + t, o_row + xo);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Convolution as a contraction: output (n, f, o...) sums, over the group's input channels
/// c and the taps t..., data (n, group(f)·Cg + c, o·stride + t·dilate − pad) (zero
/// outside) times weight (f, c, t...), plus the bias at f; channel-last layouts hold the
/// channel last in the output, data and weight alike.
fn conv_contraction(
    a: &Attrs,
    ins: &[Shape],
    outs: &[Shape],
    _: usize,
) -> Result<Contraction, OpError> {
    let g = Geometry::new(a)?;
    let rank = outs[0].len();
    // Channel-first (N, C, spatial...) or channel-last (N, spatial..., C), the weight
    // (F, C/g, kernel...) or (F, kernel..., C/g) alike.
    let (f_axis, first_spatial) = if g.last { (rank - 1, 1) } else { (1, 2) };
    let cg = ins[1][if g.last { ins[1].len() - 1 } else { 1 }];
    let fg = (g.filters / g.groups) as i64;
    let out = IndexExpr::Out;
    let red = |j: usize| IndexExpr::Out(rank + j);
    let channel = (out(f_axis) / fg) * cg as i64 + red(0);
    let spatial: Vec<IndexExpr> = (0..g.kernel.len())
        .map(|d| window(&g, &g.pad, d, out(first_spatial + d), red(1 + d)))
        .collect();
    let taps = (0..g.kernel.len()).map(|d| red(1 + d));
    let (data, weight): (Vec<IndexExpr>, Vec<IndexExpr>) = if g.last {
        (
            [out(0)]
                .into_iter()
                .chain(spatial)
                .chain([channel])
                .collect(),
            [out(f_axis)]
                .into_iter()
                .chain(taps)
                .chain([red(0)])
                .collect(),
        )
    } else {
        (
            [out(0), channel].into_iter().chain(spatial).collect(),
            [out(f_axis), red(0)].into_iter().chain(taps).collect(),
        )
    };
    let mut epilogue = vec![];
    if !a.bool("no_bias") {
        epilogue.push(Read {
            input: 2,
            coords: vec![out(f_axis)],
            padding: None,
        });
    }
    Ok(Contraction {
        combiner: Combiner::Sum,
        extents: std::iter::once(cg)
            .chain(g.kernel.iter().copied())
            .collect(),
        reads: vec![
            Read {
                input: 0,
                coords: data,
                padding: Some(0.0),
            },
            Read {
                input: 1,
                coords: weight,
                padding: None,
            },
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

fn conv_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let g = Geometry::new(ctx.attrs)?;
    let x = channels_first(ins[0], g.last);
    let w = channels_first(ins[1], g.last);
    let out_shape = to_ncx(&ctx.out_shapes[0], g.last);
    let o_plane: usize = out_shape[2..].iter().product();
    let mut out = vec![0.0; out_shape.iter().product()];
    if let Some(bias) = ins.get(2) {
        for (plane, o) in out.chunks_mut(o_plane.max(1)).enumerate() {
            o.fill(bias.data[plane % g.filters]);
        }
    }
    for_each_tap(&g, &x.shape, &out_shape, |xi, wi, oi| {
        out[oi] += w.data[wi] * x.data[xi]
    });
    let out = Tensor {
        dtype: x.dtype,
        shape: out_shape,
        data: out,
    };
    Ok(vec![channels_last(out, g.last)])
}

fn conv_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[0], ctx.inputs[1]];
    all_grads(g, ctx, "_backward_Convolution", &args)
}

static CONVOLUTION_BACKWARD: OpDef = OpDef {
    doc: "Gradient of Convolution: from ograd, data and weight, the gradients of data (the \
          transposed convolution of ograd), weight (ograd correlated with data) and bias \
          (ograd summed over batch and space). Takes the forward's parameters.",
    params: CONV_PARAMS,
    inputs: Inputs::Fixed(&["ograd", "data", "weight"]),
    outputs: Outputs::Dynamic(conv_backward_outputs),
    infer_shape: conv_backward_shape,
    inplace: &[],
    cost: conv_backward_cost,
    grad: Grad::NotDifferentiable,
    contraction: Some(conv_backward_contraction),
    expand: Some(super::conv_cols::expand_backward),
    ..OpDef::new(
        "_backward_Convolution",
        Pattern::Opaque,
        Compute::Library {
            kernel: "conv_backward",
            reference: conv_backward_ref,
        },
    )
};

/// Output names of a convolution-like backward operator (Deconvolution's too).
pub(super) fn conv_backward_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let names: &[&str] = if a.bool("no_bias") {
        &["data_grad", "weight_grad"]
    } else {
        &["data_grad", "weight_grad", "bias_grad"]
    };
    (strings(names), names.len())
}

fn conv_backward_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let through = Through {
        inputs: &[Some(1), Some(2), None],
        outputs: &[&[0]],
        grads: &[0, 1, 2][..outs.len()],
    };
    through.shapes(conv_shape, a, ins, outs)
}

/// Data and weight gradients: twice the forward's multiply-adds.
fn conv_backward_cost(a: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    match ins {
        [og, data, weight] => {
            let fwd = [data.clone(), weight.clone()];
            conv_cost(a, &fwd, std::slice::from_ref(og)).saturating_mul(2)
        }
        _ => 0,
    }
}

/// Coordinates written channel-first — (batch, channel, spatial...) — over an output of
/// `rank` axes followed by the reduction axes, and laid out per layout: channel-last moves
/// the channel axis after the spatial ones, in the output coordinates and in every read
/// alike.
pub(super) struct ChannelFirst {
    pub rank: usize,
    pub last: bool,
}

impl ChannelFirst {
    /// Output axis `i` of the channel-first order.
    pub(super) fn out(&self, i: usize) -> IndexExpr {
        IndexExpr::Out(match (self.last && self.rank > 1, i) {
            (true, 1) => self.rank - 1,
            (true, i) if i >= 2 => i - 1,
            _ => i,
        })
    }

    pub(super) fn red(&self, j: usize) -> IndexExpr {
        IndexExpr::Out(self.rank + j)
    }

    /// A read of `input` at channel-first `coords` (at least two).
    pub(super) fn read(
        &self,
        input: usize,
        mut coords: Vec<IndexExpr>,
        padding: Option<f64>,
    ) -> Read {
        if self.last {
            let channel = coords.remove(1);
            coords.push(channel);
        }
        Read {
            input,
            coords,
            padding,
        }
    }
}

/// Where a convolution reads along spatial axis `d` for output position `o` and tap `t`:
/// `o·stride + t·dilate − pad`.
pub(super) fn window(
    g: &Geometry,
    pad: &[usize],
    d: usize,
    o: IndexExpr,
    t: IndexExpr,
) -> IndexExpr {
    o * g.stride[d] as i64 + t * g.dilate[d] as i64 + IndexExpr::Const(-(pad[d] as i64))
}

/// The transposed direction: the position `p` with `p·stride + t·dilate − pad = i` along
/// spatial axis `d` of a source of length `len`; where the stride does not divide, the
/// remainder pushes the coordinate past the source, onto the padding.
pub(super) fn transposed_window(
    g: &Geometry,
    pad: &[usize],
    d: usize,
    len: usize,
    i: IndexExpr,
    t: IndexExpr,
) -> IndexExpr {
    let (s, reach) = (g.stride[d] as i64, ((g.kernel[d] - 1) * g.dilate[d]) as i64);
    let num = i + t * -(g.dilate[d] as i64) + IndexExpr::Const(pad[d] as i64);
    let past = len as i64 + reach / s + 2;
    num.clone() / s + (num % s) * past
}

/// A sum over `extents` of the product of two reads (or of one).
pub(super) fn sum_of(extents: Vec<usize>, reads: Vec<Read>) -> Contraction {
    Contraction {
        combiner: Combiner::Sum,
        extents,
        body: if reads.len() == 2 { x(0) * x(1) } else { x(0) },
        reads,
        epilogue: vec![],
        post: x(0),
    }
}

/// The gradients as contractions (channel-first): weight_grad (f, c, t...) sums ograd
/// (n, f, o...) · data (n, group(f)·Cg + c, o·stride + t·dilate − pad) over n and o...;
/// bias_grad (f) sums ograd over n and o...; data_grad (n, c, i...) sums ograd (n, f,
/// (i + pad − t·dilate) / stride) · weight (f, c mod Cg, t...) over the group's filters and
/// the taps where the stride divides (the others read the padding).
fn conv_backward_contraction(
    a: &Attrs,
    ins: &[Shape],
    outs: &[Shape],
    k: usize,
) -> Result<Contraction, OpError> {
    let g = Geometry::new(a)?;
    let (og, w) = (&ins[0], &ins[2]);
    let spatial = g.kernel.len();
    let last = g.last;
    let cf = ChannelFirst {
        rank: outs.get(k).map(Vec::len).unwrap_or(0),
        last,
    };
    let (out, red) = (|i| cf.out(i), |j| cf.red(j));
    let og_spatial = |d: usize| og[if last { 1 + d } else { 2 + d }];
    let cg = w[if last { w.len() - 1 } else { 1 }] as i64;
    let fg = (g.filters / g.groups) as i64;
    // Reductions over the batch and the output positions (weight and bias gradients).
    let over_outputs: Vec<usize> = std::iter::once(og[0])
        .chain((0..spatial).map(og_spatial))
        .collect();
    Ok(match k {
        0 => {
            let f = (out(1) / cg) * fg + red(0);
            let mut o = vec![out(0), f.clone()];
            let mut wt = vec![f, out(1) % cg];
            for d in 0..spatial {
                o.push(transposed_window(
                    &g,
                    &g.pad,
                    d,
                    og_spatial(d),
                    out(2 + d),
                    red(1 + d),
                ));
                wt.push(red(1 + d));
            }
            let extents = std::iter::once(fg as usize)
                .chain(g.kernel.iter().copied())
                .collect();
            sum_of(
                extents,
                vec![cf.read(0, o, Some(0.0)), cf.read(2, wt, None)],
            )
        }
        1 => {
            let mut o = vec![red(0), out(0)];
            let mut data = vec![red(0), (out(0) / fg) * cg + out(1)];
            for d in 0..spatial {
                o.push(red(1 + d));
                data.push(window(&g, &g.pad, d, red(1 + d), out(2 + d)));
            }
            sum_of(
                over_outputs,
                vec![cf.read(0, o, None), cf.read(1, data, Some(0.0))],
            )
        }
        _ => {
            let o = [red(0), out(0)]
                .into_iter()
                .chain((0..spatial).map(|d| red(1 + d)))
                .collect();
            sum_of(over_outputs, vec![cf.read(0, o, None)])
        }
    })
}

fn conv_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let g = Geometry::new(ctx.attrs)?;
    let og = channels_first(ins[0], g.last);
    let x = channels_first(ins[1], g.last);
    let w = channels_first(ins[2], g.last);
    let (mut dx, mut dw) = (vec![0.0; x.len()], vec![0.0; w.len()]);
    for_each_tap(&g, &x.shape, &og.shape, |xi, wi, oi| {
        dx[xi] += w.data[wi] * og.data[oi];
        dw[wi] += x.data[xi] * og.data[oi];
    });
    let dx = Tensor { data: dx, ..x };
    let dw = Tensor { data: dw, ..w };
    let mut grads = vec![channels_last(dx, g.last), channels_last(dw, g.last)];
    if !ctx.attrs.bool("no_bias") {
        let o_plane: usize = og.shape[2..].iter().product();
        let mut db = vec![0.0; g.filters];
        for (plane, o) in og.data.chunks(o_plane.max(1)).enumerate() {
            db[plane % g.filters] += o.iter().sum::<f64>();
        }
        grads.push(Tensor {
            dtype: og.dtype,
            shape: vec![g.filters],
            data: db,
        });
    }
    Ok(grads)
}

pub fn register(r: &mut Registry) {
    r.add(&CONVOLUTION);
    r.add(&CONVOLUTION_BACKWARD);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::Tensor;

    const CONV: &str = "Convolution";

    #[test]
    fn the_output_channel_axis_follows_the_layout() {
        let c = op(CONV);
        let axes = |layout| {
            let a = attrs(
                c,
                &[
                    ("kernel", "(3, 3)"),
                    ("num_filter", "4"),
                    ("layout", layout),
                ],
            );
            (c.channel_weights.unwrap())(&a)
        };
        for (layout, axis) in [("None", 1), ("NCHW", 1), ("NHWC", -1), ("NDHWC", -1)] {
            assert_eq!(axes(layout), [axis], "{layout}");
        }
    }

    #[test]
    fn backward_contractions_match_the_reference() {
        // Grouped, padded and dilated, in 2-D (with bias) and 1-D (without); the data
        // gradient is declared for stride 1, the others for any stride.
        let kv = [
            ("kernel", "(3, 2)"),
            ("pad", "(1, 1)"),
            ("dilate", "(1, 2)"),
            ("num_filter", "4"),
            ("num_group", "2"),
        ];
        let (x, w, og) = (
            randn(&[2, 4, 6, 5], 1),
            randn(&[4, 2, 3, 2], 2),
            randn(&[2, 4, 6, 5], 3),
        );
        check_contraction("_backward_Convolution", &kv, &[og, x, w]);
        let kv = [
            ("kernel", "(3,)"),
            ("pad", "(2,)"),
            ("num_filter", "3"),
            ("no_bias", "True"),
        ];
        let (x, w, og) = (
            randn(&[2, 2, 7], 4),
            randn(&[3, 2, 3], 5),
            randn(&[2, 3, 9], 6),
        );
        check_contraction("_backward_Convolution", &kv, &[og, x, w]);
        // Strided (and dilated, padded): positions the stride skips get no gradient.
        let kv = [
            ("kernel", "(3, 2)"),
            ("stride", "(2, 3)"),
            ("pad", "(1, 1)"),
            ("dilate", "(2, 1)"),
            ("num_filter", "2"),
        ];
        let (x, w) = (randn(&[1, 3, 9, 8], 7), randn(&[2, 3, 3, 2], 8));
        let og = randn(&[1, 2, 4, 3], 9);
        check_contraction("_backward_Convolution", &kv, &[og, x, w]);
    }

    #[test]
    fn channel_last_convolutions_are_contractions_too() {
        // 2-D grouped, strided, dilated with bias; 1-D and 3-D without.
        let kv = [
            ("kernel", "(3, 2)"),
            ("stride", "(2, 1)"),
            ("pad", "(1, 1)"),
            ("dilate", "(1, 2)"),
            ("num_filter", "4"),
            ("num_group", "2"),
            ("layout", "NHWC"),
        ];
        let (x, w, b) = (
            randn(&[2, 7, 6, 4], 1),
            randn(&[4, 3, 2, 2], 2),
            randn(&[4], 3),
        );
        check_contraction("Convolution", &kv, &[x, w, b]);
        let kv = [
            ("kernel", "(3,)"),
            ("pad", "(1,)"),
            ("num_filter", "3"),
            ("no_bias", "True"),
            ("layout", "NWC"),
        ];
        check_contraction(
            "Convolution",
            &kv,
            &[randn(&[2, 8, 2], 4), randn(&[3, 3, 2], 5)],
        );
        let kv = [
            ("kernel", "(2, 2, 2)"),
            ("num_filter", "2"),
            ("no_bias", "True"),
            ("layout", "NDHWC"),
        ];
        let (x, w) = (randn(&[1, 3, 4, 3, 2], 6), randn(&[2, 2, 2, 2, 2], 7));
        check_contraction("Convolution", &kv, &[x, w]);
        // Their gradients: grouped and strided with bias in 2-D, plain in 1-D.
        let kv = [
            ("kernel", "(3, 2)"),
            ("stride", "(2, 1)"),
            ("pad", "(1, 1)"),
            ("num_filter", "4"),
            ("num_group", "2"),
            ("layout", "NHWC"),
        ];
        let (x, w, og) = (
            randn(&[2, 7, 6, 4], 8),
            randn(&[4, 3, 2, 2], 9),
            randn(&[2, 4, 7, 4], 10),
        );
        check_contraction("_backward_Convolution", &kv, &[og, x, w]);
        let kv = [
            ("kernel", "(3,)"),
            ("num_filter", "3"),
            ("no_bias", "True"),
            ("layout", "NWC"),
        ];
        let (x, w, og) = (
            randn(&[2, 8, 2], 11),
            randn(&[3, 3, 2], 12),
            randn(&[2, 6, 3], 13),
        );
        check_contraction("_backward_Convolution", &kv, &[og, x, w]);
    }

    #[test]
    fn infers_weight_bias_output() {
        let kv = [
            ("kernel", "(3, 3)"),
            ("num_filter", "4"),
            ("num_group", "2"),
            ("stride", "(2, 2)"),
            ("pad", "(1, 1)"),
        ];
        let (ins, outs) = infer(CONV, &kv, &[&[2, 6, 7, 7]]).unwrap();
        assert_eq!(ins[1], vec![4, 3, 3, 3]);
        assert_eq!(ins[2], vec![4]);
        // (7 + 2 - 3) / 2 + 1 = 4
        assert_eq!(outs[0], vec![2, 4, 4, 4]);
    }

    #[test]
    fn channel_last_weight_is_filter_kernel_channel() {
        let kv = [
            ("kernel", "(3, 3)"),
            ("num_filter", "4"),
            ("layout", "NHWC"),
        ];
        let (ins, outs) = infer(CONV, &kv, &[&[2, 7, 7, 6]]).unwrap();
        assert_eq!(ins[1], vec![4, 3, 3, 6]);
        assert_eq!(outs[0], vec![2, 5, 5, 4]);
    }

    #[test]
    fn one_and_three_dimensional_with_dilation() {
        let kv = [("kernel", "(3,)"), ("num_filter", "2"), ("dilate", "(2,)")];
        let (ins, outs) = infer(CONV, &kv, &[&[1, 2, 10]]).unwrap();
        assert_eq!(ins[1], vec![2, 2, 3]);
        // Dilated extent 5: 10 - 5 + 1 = 6.
        assert_eq!(outs[0], vec![1, 2, 6]);
        let kv = [
            ("kernel", "(2, 2, 2)"),
            ("num_filter", "3"),
            ("no_bias", "True"),
        ];
        let (ins, outs) = infer(CONV, &kv, &[&[1, 1, 4, 5, 6]]).unwrap();
        assert_eq!(ins.len(), 2);
        assert_eq!(ins[1], vec![3, 1, 2, 2, 2]);
        assert_eq!(outs[0], vec![1, 3, 3, 4, 5]);
    }

    #[test]
    fn infers_data_backward() {
        // Channels from the weight, batch and spatial size (stride 1) from the output.
        let kv = [("kernel", "(3, 3)"), ("num_filter", "4"), ("pad", "(1, 0)")];
        let (ins, _) = infer_both(CONV, &kv, &[&[], &[4, 3, 3, 3]], &[&[2, 4, 5, 5]]).unwrap();
        assert_eq!(ins[0], vec![2, 3, 5, 7]);
    }

    #[test]
    fn reports_bad_configurations() {
        let kv = [
            ("kernel", "(3, 3)"),
            ("num_filter", "4"),
            ("num_group", "2"),
        ];
        assert_eq!(
            infer_err(CONV, &kv, &[&[1, 5, 8, 8]]),
            "Convolution: data (1, 5, 8, 8) has 5 channels, not divisible by num_group 2"
        );
        let kv = [("kernel", "(5, 5)"), ("num_filter", "4")];
        assert_eq!(
            infer_err(CONV, &kv, &[&[1, 1, 8, 3]]),
            "Convolution: the kernel (extent 5 with dilation) is larger than the padded input \
             (3) along spatial axis 1 of data (1, 1, 8, 3)"
        );
        let kv = [
            ("kernel", "(3, 3)"),
            ("num_filter", "4"),
            ("stride", "(1, 1, 1)"),
        ];
        assert_eq!(
            infer_err(CONV, &kv, &[&[1, 1, 8, 8]]),
            "Convolution: `stride` has 3 entries but the kernel has 2 dimension(s)"
        );
        let kv = [("kernel", "(3, 3)"), ("num_filter", "4")];
        assert_eq!(
            infer_err(CONV, &kv, &[&[1, 8, 8]]),
            "Convolution: `data` must be 4-D for a 2-D kernel, got shape (1, 8, 8)"
        );
        let kv = [
            ("kernel", "(3, 3)"),
            ("num_filter", "3"),
            ("num_group", "2"),
        ];
        assert_eq!(
            infer_err(CONV, &kv, &[&[1, 4, 8, 8]]),
            "Convolution: num_filter 3 is not divisible by num_group 2"
        );
        let kv = [("kernel", "(3, 3000000000)"), ("num_filter", "3")];
        assert_eq!(
            infer_err(CONV, &kv, &[&[1, 4, 8, 8]]),
            "Convolution: `kernel` must have 1 to 3 positive entries, got [3, 3000000000]"
        );
        let kv = [("kernel", "(3,)"), ("num_filter", "3"), ("layout", "NCHW")];
        assert_eq!(
            infer_err(CONV, &kv, &[&[1, 4, 8]]),
            "Convolution: layout NCHW does not fit 1 spatial dimension(s)"
        );
        let kv = [("kernel", "(3, 3)"), ("num_filter", "2")];
        assert_eq!(
            infer_err(CONV, &kv, &[&[1, 4, 8, 8], &[2, 3, 3, 3]]),
            "input `weight` has shape (2, 3, 3, 3) but (2, 4, 3, 3) is required"
        );
    }

    #[test]
    fn padded_strided_2d_by_hand() {
        // x = 1..9 in a 3×3 image, w = [[1, 0], [0, -1]]: out = x[p] - x[p + (1, 1)], with
        // taps in the padding reading 0.
        let x = t(&[1, 1, 3, 3], (1..=9).map(f64::from).collect());
        let w = t(&[1, 1, 2, 2], vec![1., 0., 0., -1.]);
        let kv = [
            ("kernel", "(2, 2)"),
            ("num_filter", "1"),
            ("no_bias", "True"),
        ];
        let out = run(CONV, &kv, &[x.clone(), w.clone()], false).unwrap();
        assert_close(&out[0].data, &[-4., -4., -4., -4.], 0.0);
        let kv = [
            ("kernel", "(2, 2)"),
            ("num_filter", "1"),
            ("no_bias", "True"),
            ("pad", "(1, 1)"),
            ("stride", "(2, 2)"),
        ];
        let out = run(CONV, &kv, &[x, w], false).unwrap();
        // Windows start at (-1,-1), (-1,1), (1,-1), (1,1).
        assert_close(&out[0].data, &[-1., -3., -7., 5. - 9.], 0.0);
    }

    #[test]
    fn dilated_1d_and_grouped_bias_by_hand() {
        let x = t(&[1, 1, 5], vec![1., 2., 3., 4., 5.]);
        let w = t(&[1, 1, 2], vec![1., 1.]);
        let kv = [
            ("kernel", "(2,)"),
            ("num_filter", "1"),
            ("dilate", "(2,)"),
            ("no_bias", "1"),
        ];
        let out = run(CONV, &kv, &[x, w], false).unwrap();
        assert_close(&out[0].data, &[4., 6., 8.], 0.0); // x[i] + x[i+2]

        // Two groups of one channel each: filter 0 sees channel 0 only, filter 1 channel 1.
        let x = t(&[1, 2, 3], vec![1., 2., 3., 4., 5., 6.]);
        let w = t(&[2, 1, 1], vec![2., 3.]);
        let b = t(&[2], vec![1., -1.]);
        let kv = [("kernel", "(1,)"), ("num_filter", "2"), ("num_group", "2")];
        let out = run(CONV, &kv, &[x, w, b], false).unwrap();
        assert_close(&out[0].data, &[3., 5., 7., 11., 14., 17.], 0.0);
    }

    /// An independent direct convolution for NCHW, groups and all.
    fn direct(x: &Tensor, w: &Tensor, groups: usize, s: usize, p: usize) -> Vec<f64> {
        let (n, c, h, wd) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3]);
        let (f, cg, kh, kw) = (w.shape[0], w.shape[1], w.shape[2], w.shape[3]);
        let (oh, ow) = ((h + 2 * p - kh) / s + 1, (wd + 2 * p - kw) / s + 1);
        let mut out = vec![];
        for b in 0..n {
            for o in 0..f {
                let g = o / (f / groups);
                for y in 0..oh {
                    for xx in 0..ow {
                        let mut acc = 0.0;
                        for ci in 0..cg {
                            for dy in 0..kh {
                                for dx in 0..kw {
                                    let (iy, ix) = (y * s + dy, xx * s + dx);
                                    if iy < p || ix < p || iy - p >= h || ix - p >= wd {
                                        continue;
                                    }
                                    let ch = g * cg + ci;
                                    let xv = x.data[((b * c + ch) * h + iy - p) * wd + ix - p];
                                    acc += xv * w.data[((o * cg + ci) * kh + dy) * kw + dx];
                                }
                            }
                        }
                        out.push(acc);
                    }
                }
            }
        }
        out
    }

    /// Moves axis 1 to the end.
    fn nchw_to_nhwc(x: &Tensor) -> Tensor {
        let (n, c, h, w) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3]);
        let mut v = vec![0.0; x.len()];
        for b in 0..n {
            for ch in 0..c {
                for y in 0..h {
                    for xx in 0..w {
                        v[((b * h + y) * w + xx) * c + ch] =
                            x.data[((b * c + ch) * h + y) * w + xx];
                    }
                }
            }
        }
        t(&[n, h, w, c], v)
    }

    #[test]
    fn grouped_conv_matches_direct_sum_in_both_layouts() {
        let x = ramp(&[2, 4, 5, 6]);
        let w = ramp(&[6, 2, 3, 2]);
        let kv = [
            ("kernel", "(3, 2)"),
            ("num_filter", "6"),
            ("num_group", "2"),
            ("stride", "(2, 2)"),
            ("pad", "(1, 1)"),
            ("no_bias", "True"),
        ];
        let want = direct(&x, &w, 2, 2, 1);
        let out = run(CONV, &kv, &[x.clone(), w.clone()], false).unwrap();
        assert_eq!(out[0].shape, vec![2, 6, 3, 4]);
        assert_close(&out[0].data, &want, 1e-12);

        let mut kv = kv.to_vec();
        kv.push(("layout", "NHWC"));
        let out = run(CONV, &kv, &[nchw_to_nhwc(&x), nchw_to_nhwc(&w)], false).unwrap();
        assert_eq!(out[0].shape, vec![2, 3, 4, 6]);
        let want = nchw_to_nhwc(&t(&[2, 6, 3, 4], want));
        assert_close(&out[0].data, &want.data, 1e-12);
    }

    #[test]
    fn cost_counts_multiply_adds() {
        let o = op(CONV);
        let a = attrs(
            o,
            &[
                ("kernel", "(3, 3)"),
                ("num_filter", "4"),
                ("num_group", "2"),
            ],
        );
        let c = (o.cost)(
            &a,
            &[vec![1, 6, 5, 5], vec![4, 3, 3, 3], vec![4]],
            &[vec![1, 4, 3, 3]],
        );
        assert_eq!(c, 2 * 36 * 27 + 36);
    }

    #[test]
    fn gradients_match_finite_differences() {
        // 2-D: non-square kernel, stride, dilation, padding, groups, bias.
        let kv = [
            ("kernel", "(3, 2)"),
            ("num_filter", "6"),
            ("num_group", "2"),
            ("stride", "(2, 1)"),
            ("dilate", "(1, 2)"),
            ("pad", "(1, 0)"),
        ];
        let ins = [
            randn(&[2, 4, 7, 6], 1),
            randn(&[6, 2, 3, 2], 2),
            randn(&[6], 3),
        ];
        check_grad(CONV, &kv, &ins, false, &[]);
        // The same channel-last (weight (filters, kernel..., channels/groups)).
        let mut nhwc = kv.to_vec();
        nhwc.push(("layout", "NHWC"));
        let ins = [
            randn(&[2, 7, 6, 4], 4),
            randn(&[6, 3, 2, 2], 5),
            randn(&[6], 6),
        ];
        check_grad(CONV, &nhwc, &ins, false, &[]);
        // 1-D without bias, batch 1, both layouts.
        let kv = [
            ("kernel", "(3,)"),
            ("num_filter", "2"),
            ("stride", "(2,)"),
            ("pad", "(1,)"),
            ("dilate", "(2,)"),
            ("no_bias", "True"),
        ];
        check_grad(
            CONV,
            &kv,
            &[randn(&[1, 3, 7], 7), randn(&[2, 3, 3], 8)],
            false,
            &[],
        );
        let mut nwc = kv.to_vec();
        nwc.push(("layout", "NWC"));
        check_grad(
            CONV,
            &nwc,
            &[randn(&[1, 7, 3], 9), randn(&[2, 3, 3], 10)],
            false,
            &[],
        );
        // 3-D with uneven padding and stride per axis; depthwise (groups = channels).
        let kv = [
            ("kernel", "(2, 3, 1)"),
            ("num_filter", "2"),
            ("num_group", "2"),
            ("stride", "(1, 2, 1)"),
            ("pad", "(1, 0, 1)"),
        ];
        let ins = [
            randn(&[1, 2, 3, 4, 3], 11),
            randn(&[2, 1, 2, 3, 1], 12),
            randn(&[2], 13),
        ];
        check_grad(CONV, &kv, &ins, false, &[]);
        let mut ndhwc = kv.to_vec();
        ndhwc.push(("layout", "NDHWC"));
        let ins = [
            randn(&[1, 3, 4, 3, 2], 14),
            randn(&[2, 2, 3, 1, 1], 15),
            randn(&[2], 16),
        ];
        check_grad(CONV, &ndhwc, &ins, false, &[]);
        // A 1×1 kernel on a single pixel.
        let kv = [("kernel", "(1, 1)"), ("num_filter", "1")];
        let ins = [
            randn(&[1, 1, 1, 1], 17),
            randn(&[1, 1, 1, 1], 18),
            randn(&[1], 19),
        ];
        check_grad(CONV, &kv, &ins, false, &[]);
    }

    #[test]
    fn backward_operator_shapes_and_bias() {
        let kv = [("kernel", "(2, 2)"), ("num_filter", "3")];
        let (ins, outs) = infer(
            "_backward_Convolution",
            &kv,
            &[&[2, 3, 4, 4], &[2, 5, 5, 5]],
        )
        .unwrap();
        assert_eq!(ins[2], vec![3, 5, 2, 2]);
        assert_eq!(outs, vec![vec![2, 5, 5, 5], vec![3, 5, 2, 2], vec![3]]);
        // Bias gradient: ograd summed over batch and space, per filter.
        let og = t(&[2, 3, 1, 1], vec![1., 2., 3., 10., 20., 30.]);
        let g = run(
            "_backward_Convolution",
            &kv,
            &[og, ramp(&[2, 5, 2, 2]), ramp(&[3, 5, 2, 2])],
            false,
        )
        .unwrap();
        assert_close(&g[2].data, &[11., 22., 33.], 0.0);
    }
}
