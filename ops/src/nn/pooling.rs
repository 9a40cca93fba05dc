//! Pooling (max, avg, sum, lp) over 1 to 3 spatial dimensions, channel-first or last.
//!
//! Its gradient is the backward operator `_backward_Pooling` (as MXNet), which walks the
//! forward's windows again.

use super::common::{
    all_grads, channel_last, channels_first, channels_last, dims3, elems, flops, from_ncx,
    rank_error, spatial, to_ncx, Dims, Through, LAYOUTS, MAX_WINDOW,
};
use crate::contraction::{Contraction, Read};
use crate::def::PerSample;
use crate::native::{for_blocks, no_scratch, serial, Native, ParallelFor, Real};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::{c, x, Combiner, IndexExpr};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs, Pattern,
    Registry, Tensor,
};

const OP: &str = "Pooling";

const POOL_PARAMS: &[ParamDef] = &[
    param(
        "kernel",
        ParamType::Shape,
        Some("()"),
        "window size: (w,), (h, w) or (d, h, w)",
    ),
    param(
        "pool_type",
        ParamType::Enum(&["avg", "lp", "max", "sum"]),
        Some("max"),
        "pooling function",
    ),
    param(
        "global_pool",
        ParamType::Bool,
        Some("False"),
        "pool over all spatial dims",
    ),
    param(
        "cudnn_off",
        ParamType::Bool,
        Some("False"),
        "turn off cuDNN (ignored)",
    ),
    param(
        "pooling_convention",
        ParamType::Enum(&["full", "same", "valid"]),
        Some("valid"),
        "output size rounding",
    ),
    param(
        "stride",
        ParamType::Shape,
        Some("()"),
        "stride; () means 1 per dimension",
    ),
    param(
        "pad",
        ParamType::Shape,
        Some("()"),
        "padding; () means 0 per dimension",
    ),
    param(
        "p_value",
        ParamType::OptInt,
        Some("None"),
        "p of lp pooling (1, 2 or 3)",
    ),
    param(
        "count_include_pad",
        ParamType::OptBool,
        Some("None"),
        "avg: count padding in the divisor (None means True)",
    ),
    param(
        "layout",
        ParamType::Enum(LAYOUTS),
        Some("None"),
        "data layout; None means NCW, NCHW or NCDHW",
    ),
];

static POOLING: OpDef = OpDef {
    per_sample: PerSample::Always,
    aliases: &["_npx_pooling"],
    doc: "Pooling over 1 to 3 spatial dimensions. Output size per dimension: valid \
          floor((x+2p−k)/s)+1, full ceil((x+2p−k)/s)+1, same ceil(x/s) (1-D only). \
          Stride defaults to 1. Windows are clipped to the input; avg divides by the window \
          clipped to the padded input (count_include_pad, the default) or to the real input. \
          global_pool pools every spatial dimension to 1.",
    params: POOL_PARAMS,
    infer_shape: pool_shape,
    inplace: &[],
    cost: pool_cost,
    grad: Grad::Rule(pool_grad),
    contraction: Some(pool_contraction),
    native: Some(MAX_POOL_NATIVE),
    ..OpDef::new(
        OP,
        Pattern::OutEWiseFusable,
        Compute::Library {
            kernel: "pooling",
            reference: pool_ref,
        },
    )
};

/// The window of one pooling, resolved for a data rank.
struct Window {
    /// Empty for global pooling (the kernel is the input's spatial extent).
    kernel: Dims,
    stride: Dims,
    pad: Dims,
    last: bool,
}

impl Window {
    /// Validates the parameters against a data rank (3, 4 or 5).
    fn new(a: &Attrs, rank: usize) -> Result<Window, OpError> {
        if a.str("pool_type") == "lp" && !matches!(a.opt_int("p_value"), Some(1..=3)) {
            return invalid(format!(
                "{OP}: pool_type 'lp' needs p_value 1, 2 or 3, got {}",
                a.get("p_value").to_mxnet_string()
            ));
        }
        if a.bool("global_pool") {
            if !(3..=5).contains(&rank) {
                return invalid(format!("{OP}: data must be 3-D to 5-D, got {rank}-D"));
            }
            let n = rank - 2;
            return Ok(Window {
                kernel: Dims::filled(0, 0),
                stride: Dims::filled(n, 1),
                pad: Dims::filled(n, 0),
                last: channel_last(a, OP, n)?,
            });
        }
        let k = a.shape("kernel");
        if k.is_empty() || k.len() > 3 || k.iter().any(|&x| !(1..=MAX_WINDOW).contains(&x)) {
            return invalid(format!(
                "{OP}: `kernel` must have 1 to 3 positive entries unless global_pool, got {k:?}"
            ));
        }
        let n = k.len();
        let mut kernel = Dims::filled(n, 0);
        for (slot, &x) in kernel.iter_mut().zip(k) {
            *slot = x as usize;
        }
        let w = Window {
            kernel,
            stride: spatial(a, OP, "stride", n, 1, 1)?,
            pad: spatial(a, OP, "pad", n, 0, 0)?,
            last: channel_last(a, OP, n)?,
        };
        if a.str("pooling_convention") == "same" && (n != 1 || w.pad.iter().any(|&p| p != 0)) {
            return invalid(format!(
                "{OP}: pooling_convention 'same' supports only 1-D pooling without padding"
            ));
        }
        Ok(w)
    }
}

fn pool_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    // Without the data's rank only the window can be checked.
    let rank = match (ins[0].len(), outs[0].len()) {
        (0, 0) => {
            if !a.bool("global_pool") {
                Window::new(a, a.shape("kernel").len() + 2)?;
            }
            return Ok(());
        }
        (0, r) | (r, _) => r,
    };
    if !(3..=5).contains(&rank) {
        let shape = if ins[0].is_empty() { &outs[0] } else { &ins[0] };
        return rank_error(OP, "data", "3-D to 5-D (batch, channel, spatial...)", shape);
    }
    let w = Window::new(a, rank)?;
    if !w.kernel.is_empty() && rank != w.kernel.len() + 2 {
        let want = format!("{}-D for a {}-D kernel", w.kernel.len() + 2, w.kernel.len());
        return rank_error(OP, "data", &want, &ins[0]);
    }
    // Batch and channels pass straight through, in both directions.
    let mut d = if ins[0].is_empty() {
        vec![0; rank]
    } else {
        to_ncx(&ins[0], w.last)
    };
    if outs[0].len() == rank {
        let o = to_ncx(&outs[0], w.last);
        for i in 0..2 {
            if d[i] == 0 {
                d[i] = o[i];
            }
        }
    }
    let mut o = d[..2].to_vec();
    for i in 0..rank - 2 {
        let x = d[2 + i];
        if w.kernel.is_empty() {
            o.push(1);
            continue;
        }
        if x == 0 {
            o.push(0);
            continue;
        }
        let (k, s, padded) = (w.kernel[i], w.stride[i], x.saturating_add(2 * w.pad[i]));
        if k > padded {
            return invalid(format!(
                "{OP}: kernel {k} exceeds the padded input ({padded}) along spatial axis {i} \
                 of data {}",
                fmt_shape(&from_ncx(&d, w.last))
            ));
        }
        o.push(match a.str("pooling_convention") {
            "valid" => (padded - k) / s + 1,
            "full" => (padded - k).div_ceil(s) + 1,
            _ => padded.div_ceil(s), // same
        });
    }
    set_out(outs, 0, &from_ncx(&o, w.last))?;
    if d.iter().any(|&x| x != 0) {
        set_in(ins, 0, &from_ncx(&d, w.last))?;
    }
    Ok(())
}

fn pool_cost(a: &Attrs, ins: &[Shape], outs: &[Shape]) -> u64 {
    if a.bool("global_pool") {
        return elems(&ins[0]);
    }
    let window: Vec<u64> = a.shape("kernel").iter().map(|&k| k.max(1) as u64).collect();
    flops(&window).saturating_mul(elems(&outs[0]))
}

/// The window of output position `o` along one axis: the input range it reads, clipped to
/// the input, and its size clipped to the padded input (the count_include_pad divisor).
fn window(o: usize, k: usize, stride: usize, pad: usize, len: usize) -> (usize, usize, usize) {
    let start = (o * stride) as i64 - pad as i64;
    let end = (start + k as i64).min((len + pad) as i64);
    let lo = start.max(0) as usize;
    let hi = (end.max(0) as usize).min(len);
    (lo, hi.max(lo), (end - start).max(0) as usize)
}

/// The in-plane indices of the input elements a window covers (clipped to the input, in
/// row-major order), from its ranges along the 3 spatial dims of an input of dims `xd`.
#[derive(Clone, Copy)]
struct Taps {
    ranges: [(usize, usize); 3],
    xd: [usize; 3],
}

impl Taps {
    fn iter(self) -> impl Iterator<Item = usize> {
        let ([z, y, x], xd) = (self.ranges, self.xd);
        (z.0..z.1).flat_map(move |z| {
            (y.0..y.1).flat_map(move |y| {
                let row = (z * xd[1] + y) * xd[2];
                (x.0..x.1).map(move |x| row + x)
            })
        })
    }

    /// The first tap (in order) for which `f` is true; nested loops, as the kernels' hot
    /// path (`iter` is for the reference's clarity).
    fn find(self, mut f: impl FnMut(usize) -> bool) -> Option<usize> {
        let ([z, y, x], xd) = (self.ranges, self.xd);
        for zi in z.0..z.1 {
            for yi in y.0..y.1 {
                let row = (zi * xd[1] + yi) * xd[2];
                if let Some(xi) = (x.0..x.1).find(|&xi| f(row + xi)) {
                    return Some(row + xi);
                }
            }
        }
        None
    }

    fn for_each(self, mut f: impl FnMut(usize)) {
        self.find(|t| {
            f(t);
            false
        });
    }

    fn len(self) -> usize {
        self.ranges.iter().map(|(lo, hi)| hi - lo).product()
    }

    fn last(self) -> Option<usize> {
        let [z, y, x] = self.ranges;
        (self.len() > 0).then(|| ((z.1 - 1) * self.xd[1] + y.1 - 1) * self.xd[2] + x.1 - 1)
    }
}

/// Calls `f(plane, o, taps, padded)` for every output element of the planes `planes`
/// (all of them: `0..n·c`), in channel-first order with every case run as 3-D (missing
/// leading spatial dims have size 1): `plane` is the (batch, channel) plane, `o` the
/// element's index in its output plane, `taps` its window's inputs, `padded` the window's
/// size clipped to the padded input (the count_include_pad divisor). The one loop nest of
/// the forward and backward kernels.
fn for_each_window(
    w: &Window,
    x_shape: &[usize],
    o_shape: &[usize],
    planes: std::ops::Range<usize>,
    mut f: impl FnMut(usize, usize, Taps, usize),
) {
    let kernel = if w.kernel.is_empty() {
        Dims::from_slice(&x_shape[2..]) // global: the whole input
    } else {
        w.kernel
    };
    let (xd, od) = (dims3(&x_shape[2..], 1), dims3(&o_shape[2..], 1));
    let (k, s, p) = (dims3(&kernel, 1), dims3(&w.stride, 1), dims3(&w.pad, 0));
    // Nested loops over the output's axes: each window bound is computed once per row, and
    // no output index is divided back into coordinates.
    for plane in planes {
        let mut o = 0;
        for oz in 0..od[0] {
            let wz = window(oz, k[0], s[0], p[0], xd[0]);
            for oy in 0..od[1] {
                let wy = window(oy, k[1], s[1], p[1], xd[1]);
                for ox in 0..od[2] {
                    let wx = window(ox, k[2], s[2], p[2], xd[2]);
                    let taps = Taps {
                        ranges: [(wz.0, wz.1), (wy.0, wy.1), (wx.0, wx.1)],
                        xd,
                    };
                    f(plane, o, taps, wz.2 * wy.2 * wx.2);
                    o += 1;
                }
            }
        }
    }
}

/// The resolved pooling function.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Max,
    /// With count_include_pad.
    Avg(bool),
    Sum,
    /// With p.
    Lp(i32),
}

fn kind(a: &Attrs) -> Kind {
    match a.str("pool_type") {
        "max" => Kind::Max,
        "avg" => Kind::Avg(a.opt_bool("count_include_pad").unwrap_or(true)),
        "sum" => Kind::Sum,
        _ => Kind::Lp(a.opt_int("p_value").unwrap_or(1) as i32),
    }
}

/// Channel-first pooling as a contraction over the window's taps, reading the data at
/// o·stride + t − pad (outside the input: −∞ for max, 0 otherwise). Average pooling is
/// declared only where its divisor is the same for every output (every window inside the
/// padded input, and padding counted or absent); the rest keeps the reference kernel.
fn pool_contraction(
    a: &Attrs,
    ins: &[Shape],
    outs: &[Shape],
    _: usize,
) -> Result<Contraction, OpError> {
    let (x_shape, o_shape) = (&ins[0], &outs[0]);
    let w = Window::new(a, x_shape.len())?;
    if w.last {
        return invalid("Pooling: channel-last layouts are not declared as a contraction");
    }
    let kernel = if w.kernel.is_empty() {
        Dims::from_slice(&x_shape[2..])
    } else {
        w.kernel
    };
    let rank = o_shape.len();
    let mut coords = vec![IndexExpr::Out(0), IndexExpr::Out(1)];
    for d in 0..kernel.len() {
        coords.push(
            IndexExpr::Out(2 + d) * w.stride[d] as i64
                + IndexExpr::Out(rank + d)
                + IndexExpr::Const(-(w.pad[d] as i64)),
        );
    }
    let inside_padded = (0..kernel.len()).all(|d| {
        (o_shape[2 + d].max(1) - 1) * w.stride[d] + kernel[d] <= x_shape[2 + d] + 2 * w.pad[d]
    });
    let taps: usize = kernel.iter().product();
    let kind = kind(a);
    let (combiner, padding, body, post) = match kind {
        Kind::Max => (Combiner::Max, f64::NEG_INFINITY, x(0), x(0)),
        Kind::Sum | Kind::Lp(1) => (Combiner::Sum, 0.0, x(0), x(0)),
        Kind::Lp(2) => (Combiner::Sum, 0.0, x(0) * x(0), x(0).sqrt()),
        Kind::Lp(_) => (Combiner::Sum, 0.0, x(0) * x(0) * x(0), x(0).cbrt()),
        Kind::Avg(counted) if inside_padded && (counted || w.pad.iter().all(|&p| p == 0)) => {
            (Combiner::Sum, 0.0, x(0), x(0) / c(taps as f64))
        }
        Kind::Avg(_) => {
            return invalid("Pooling: this average's divisor varies by window; no contraction")
        }
    };
    Ok(Contraction {
        combiner,
        extents: kernel.to_vec(),
        reads: vec![Read {
            input: 0,
            coords,
            padding: Some(padding),
        }],
        body,
        epilogue: vec![],
        post,
    })
}

/// Pooling in channel-first order.
fn pool_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let w = Window::new(ctx.attrs, ins[0].shape.len())?;
    let x = channels_first(ins[0], w.last);
    let out_shape = to_ncx(&ctx.out_shapes[0], w.last);
    let o_plane: usize = out_shape[2..].iter().product();
    let x_plane: usize = x.shape[2..].iter().product();
    let kind = kind(ctx.attrs);
    let mut out = vec![0.0; out_shape.iter().product()];
    let planes = 0..x.shape[0] * x.shape[1];
    for_each_window(
        &w,
        &x.shape,
        &out_shape,
        planes,
        |plane, o, taps, padded| {
            let vals = taps.iter().map(|t| x.data[plane * x_plane + t]);
            out[plane * o_plane + o] = match kind {
                // An empty window (all padding) stays at the lowest value.
                Kind::Max => vals.fold(f64::NEG_INFINITY, |m, v| if v > m { v } else { m }),
                Kind::Avg(true) => vals.sum::<f64>() / padded as f64,
                Kind::Avg(false) => vals.sum::<f64>() / taps.len() as f64,
                Kind::Sum | Kind::Lp(1) => vals.sum(),
                Kind::Lp(2) => vals.map(|v| v * v).sum::<f64>().sqrt(),
                Kind::Lp(_) => vals.map(|v| v.powi(3)).sum::<f64>().cbrt(),
            };
        },
    );
    let out = Tensor {
        dtype: x.dtype,
        shape: out_shape,
        data: out,
    };
    Ok(vec![channels_last(out, w.last)])
}

fn pool_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[0], ctx.outputs[0]];
    all_grads(g, ctx, "_backward_Pooling", &args)
}

static POOLING_BACKWARD: OpDef = OpDef {
    doc: "Gradient of Pooling, from ograd, data and the forward output: max routes each \
          output's gradient to the first input of its window equal to the output (as \
          MXNet); avg spreads it over the window divided by the forward's divisor; sum \
          copies it; lp scales it by (x/out)^(p−1). Takes the forward's parameters.",
    params: POOL_PARAMS,
    inputs: Inputs::Fixed(&["ograd", "data", "output"]),
    outputs: Outputs::Fixed {
        names: &["data_grad"],
        visible: 1,
    },
    infer_shape: pool_backward_shape,
    native: Some(POOL_BACKWARD_NATIVE),
    inplace: &[],
    cost: |a, ins, _| match ins {
        [og, data, ..] => pool_cost(a, std::slice::from_ref(data), std::slice::from_ref(og)),
        _ => 0,
    },
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_Pooling",
        Pattern::Opaque,
        Compute::Library {
            kernel: "pooling_backward",
            reference: pool_backward_ref,
        },
    )
};

fn pool_backward_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let through = Through {
        inputs: &[Some(1)],
        outputs: &[&[0, 2]],
        grads: &[0],
    };
    through.shapes(pool_shape, a, ins, outs)
}

fn pool_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let w = Window::new(ctx.attrs, ins[1].shape.len())?;
    let og = channels_first(ins[0], w.last);
    let x = channels_first(ins[1], w.last);
    let y = channels_first(ins[2], w.last);
    let mut dx = vec![0.0; x.len()];
    let shapes = [og.shape.as_slice(), &x.shape];
    let ins = [og.data.as_slice(), &x.data, &y.data];
    pool_backward(&w, kind(ctx.attrs), shapes, ins, &mut dx, &serial);
    Ok(vec![channels_last(Tensor { data: dx, ..x }, w.last)])
}

/// The gradient into `dx` (channel-first), from the output gradient, input and output
/// (`ins`) of shapes `[output, input]`, planes split over `parallel`: shared by the
/// reference (f64, serial) and the native kernel (f32).
fn pool_backward<T: Real>(
    w: &Window,
    kind: Kind,
    [o_shape, x_shape]: [&[usize]; 2],
    [og, x, y]: [&[T]; 3],
    dx: &mut [T],
    parallel: ParallelFor,
) {
    let o_plane: usize = o_shape[2..].iter().product();
    let x_plane: usize = x_shape[2..].iter().product::<usize>().max(1);
    let planes = x_shape[0] * x_shape[1];
    // Blocks of whole planes, each task writing its own.
    let per_task = planes.div_ceil(16).max(1);
    for_blocks(dx, per_task * x_plane, parallel, &|b, dx| {
        dx.fill(T::from_f64(0.0));
        let first = b * per_task;
        let mine = first..(first + per_task).min(planes);
        for_each_window(w, x_shape, o_shape, mine, |plane, o, taps, padded| {
            let (gv, yv) = (
                og[plane * o_plane + o].to_f64(),
                y[plane * o_plane + o].to_f64(),
            );
            let at = |t: usize| plane * x_plane + t;
            let local = |t: usize| (plane - first) * x_plane + t;
            let mut add = |t: usize, v: f64| {
                let i = local(t);
                dx[i] = T::from_f64(dx[i].to_f64() + v)
            };
            match kind {
                // The first input equal to the maximum takes it all; MXNet falls back to
                // the window's last input when none is (NaN).
                // Every tap is compared, the first equal one kept by a select: where the
                // maximum sits varies from window to window, so a loop that stops at it
                // mispredicts its exit about once a window.
                Kind::Max => {
                    let mut first = usize::MAX;
                    taps.for_each(|t| {
                        let equal = x[at(t)].to_f64() == yv;
                        first = if equal && first == usize::MAX {
                            t
                        } else {
                            first
                        };
                    });
                    let hit = if first == usize::MAX {
                        taps.last()
                    } else {
                        Some(first)
                    };
                    if let Some(t) = hit {
                        add(t, gv);
                    }
                }
                _ => {
                    taps.for_each(|t| {
                        let xv = x[at(t)].to_f64();
                        add(
                            t,
                            gv * match kind {
                                Kind::Avg(true) => 1.0 / padded as f64,
                                Kind::Avg(false) => 1.0 / taps.len() as f64,
                                Kind::Lp(2) => xv / yv,
                                Kind::Lp(3) => (xv / yv).powi(2),
                                _ => 1.0, // sum, lp with p = 1
                            },
                        );
                    });
                }
            }
        });
    });
}

/// Max pooling's gradient over at most two spatial dims (or 3-D windows one deep along
/// the first): each window adds its gradient at its first maximum (or its last input where
/// none equals the maximum: NaN, as MXNet), from loops over the window's rows with its
/// bounds clipped once per row and column — no closures or f64 conversions per tap, as
/// [`pool_backward`]'s walk of every kind has. `None` where the windows are not such.
fn max_backward_2d(
    w: &Window,
    [o_shape, x_shape]: [&[usize]; 2],
    [og, x, y]: [&[f32]; 3],
    dx: &mut [f32],
    parallel: ParallelFor,
) -> Option<()> {
    let [xd, od, k, s, p] = window_2d(w, x_shape, o_shape)?;
    let ([_, xh, xw], [_, oh, ow]) = (xd, od);
    let (x_plane, o_plane) = (xd[0] * xh * xw, od[0] * oh * ow);
    if o_plane == 0 {
        return None;
    }
    let planes = x_shape[0] * x_shape[1];
    let per_task = planes.div_ceil(16).max(1);
    for_blocks(dx, per_task * x_plane, parallel, &|b, dx| {
        dx.fill(0.0);
        for (local, dx) in dx.chunks_exact_mut(x_plane).enumerate() {
            let plane = b * per_task + local;
            let x = &x[plane * x_plane..][..x_plane];
            let (og, y) = (
                &og[plane * o_plane..][..o_plane],
                &y[plane * o_plane..][..o_plane],
            );
            for (row, (og, y)) in og.chunks_exact(ow).zip(y.chunks_exact(ow)).enumerate() {
                let (z, oy) = (row / oh, row % oh);
                let (y0, y1, _) = window(oy, k[1], s[1], p[1], xh);
                for (ox, (&g, &m)) in og.iter().zip(y).enumerate() {
                    let (x0, x1, _) = window(ox, k[2], s[2], p[2], xw);
                    if y0 == y1 || x0 == x1 {
                        continue;
                    }
                    let plane_row = |r: usize| (z * xh + r) * xw;
                    // Taps from last to first, each equal one taking the place: the
                    // first equal remains, and the last tap where none is.
                    let mut hit = plane_row(y1 - 1) + x1 - 1;
                    for r in (y0..y1).rev() {
                        let line = plane_row(r);
                        for t in (line + x0..line + x1).rev() {
                            hit = if x[t] == m { t } else { hit };
                        }
                    }
                    dx[hit] += g;
                }
            }
        }
    });
    Some(())
}

/// Max pooling's gradient (channel-first, [`max_pool_2d_geometry`]): each window adds its
/// gradient at its first maximum, or at its last input where none equals the maximum
/// (NaN, as MXNet). The window rows' inputs split into phases as [`max_pool_2d`] splits
/// them (NaN past the input's edges, which equals nothing), each window's first maximum
/// is found for a whole row of windows at once (taps from last to first, each equal one
/// taking the place), then each window adds its gradient there. `None` where the windows
/// are not such.
fn max_backward_phases(
    w: &Window,
    [o_shape, x_shape]: [&[usize]; 2],
    [og, x, y]: [&[f32]; 3],
    dx: &mut [f32],
    parallel: ParallelFor,
) -> Option<()> {
    let ([xd, od, k, s, p], span) = max_pool_2d_geometry(w, x_shape, o_shape)?;
    let ([_, xh, xw], [_, oh, ow]) = (xd, od);
    let (x_plane, o_plane) = (xd[0] * xh * xw, od[0] * oh * ow);
    if o_plane == 0 || ow > HITS {
        return None;
    }
    let (sx, lead) = (s[2], p[2].div_ceil(s[2]));
    let planes = x_shape[0] * x_shape[1];
    let per_task = planes.div_ceil(16).max(1);
    for_blocks(dx, per_task * x_plane, parallel, &|b, dx| {
        dx.fill(0.0);
        let mut phases = [f32::NAN; PHASES];
        let mut hits = [0u32; HITS];
        for (local, dx) in dx.chunks_exact_mut(x_plane).enumerate() {
            let plane = b * per_task + local;
            let x = &x[plane * x_plane..][..x_plane];
            let (og, y) = (
                &og[plane * o_plane..][..o_plane],
                &y[plane * o_plane..][..o_plane],
            );
            for (row, (og, y)) in og.chunks_exact(ow).zip(y.chunks_exact(ow)).enumerate() {
                let (z, oy) = (row / oh, row % oh);
                let (y0, y1, _) = window(oy, k[1], s[1], p[1], xh);
                if y0 == y1 {
                    continue;
                }
                for (r, yi) in (y0..y1).enumerate() {
                    let src = &x[(z * xh + yi) * xw..][..xw];
                    split_row(src, &mut phases[r * sx * span..][..sx * span], sx, lead);
                }
                // Tap (r << 16) | t: window row r, column t (no division to split it
                // back; the windows' sides fit 16 bits, as their phases fit PHASES). Where
                // none equals the maximum, the window's last input: its last row, its last
                // column inside the input.
                let last_row = (y1 - y0 - 1) << 16;
                for (ox, hit) in hits[..ow].iter_mut().enumerate() {
                    let end = (xw + p[2]).saturating_sub(sx * ox).min(k[2]);
                    *hit = (last_row + end.max(1) - 1) as u32;
                }
                for r in (0..y1 - y0).rev() {
                    for t in (0..k[2]).rev() {
                        let at = r * sx * span + tap_start(t, p[2], sx, span, lead);
                        let tap = ((r << 16) | t) as u32;
                        let taps = phases[at..at + ow].iter().zip(y);
                        for (hit, (&v, &m)) in hits[..ow].iter_mut().zip(taps) {
                            *hit = if v == m { tap } else { *hit };
                        }
                    }
                }
                for (ox, (&hit, &g)) in hits[..ow].iter().zip(og).enumerate() {
                    let (r, t) = (hit as usize >> 16, hit as usize & 0xffff);
                    // Inside the input: the first maximum, or the last input.
                    let col = (sx * ox + t).wrapping_sub(p[2]);
                    if col < xw {
                        dx[(z * xh + y0 + r) * xw + col] += g;
                    }
                }
            }
        }
    });
    Some(())
}

/// Windows a row of [`max_backward_phases`] takes at most (its hits on the stack).
const HITS: usize = 1024;

/// Whether windows reach past the input (padding): where they do, the compiled
/// contraction checks the bounds of every tap, which keeps LLVM from vectorizing its loads,
/// and the kernels on phases ([`max_pool_2d`], [`max_backward_phases`]) pay — ResNet's
/// 3x3 windows of stride 2 padded by 1 over 112×112: 0.42–0.45 → 0.28–0.31 ms forward at
/// batch 1, 8.3 → 4.5 ms backward at batch 8. Unpadded windows compile to loads without
/// checks, and on rows of a few windows the phases' set-up per row costs more than the
/// walk over each window's taps ([`max_backward_2d`]): LeNet's 2x2 windows over 24×24
/// and 8×8, 156 and 57 µs forward compiled against 406 and 236 on phases, 0.67 and
/// 0.24 ms backward walked against 1.1 and 0.67.
fn padded(w: &Window) -> bool {
    w.pad.iter().any(|&p| p > 0)
}

/// Floats of the input rows' phases a [`max_pool_2d`] task keeps on its stack.
const PHASES: usize = 2048;

/// The windows of a channel-first pooling over at most two spatial dims (or 3-D windows
/// one deep along the first), as `[input dims, output dims, kernel, stride, pad]` (3-D,
/// missing leading dims 1); `None` where they are not such.
fn window_2d(w: &Window, x_shape: &[usize], o_shape: &[usize]) -> Option<[[usize; 3]; 5]> {
    let (xd, od) = (dims3(&x_shape[2..], 1), dims3(&o_shape[2..], 1));
    let kernel = match w.kernel.is_empty() {
        true => xd, // global: the whole input
        false => dims3(&w.kernel, 1),
    };
    let (k, s, p) = (kernel, dims3(&w.stride, 1), dims3(&w.pad, 0));
    let one_deep = k[0] == 1 && s[0] == 1 && p[0] == 0 && od[0] == xd[0];
    (one_deep && !w.last).then_some([xd, od, k, s, p])
}

/// [`window_2d`]'s geometry and the length of one input row's phases; `None` where the
/// windows are not such or a row of windows' phases would not fit [`PHASES`].
fn max_pool_2d_geometry(
    w: &Window,
    x_shape: &[usize],
    o_shape: &[usize],
) -> Option<([[usize; 3]; 5], usize)> {
    let geometry @ [_, od, k, s, p] = window_2d(w, x_shape, o_shape)?;
    // Phase j of a row reads column s·(j − lead) + phase: the window of output column o
    // reads tap t at phase (t − pad) mod s, index o + lead + ⌊(t − pad)/s⌋.
    let lead = p[2].div_ceil(s[2]);
    let span = od[2] + lead + (k[2] - 1) / s[2] + 1;
    (k[1] * s[2] * span <= PHASES).then_some((geometry, span))
}

/// Max pooling (channel-first, [`max_pool_2d_geometry`]) vectorized along output columns:
/// each input row a window row reads is split into its stride's phases (columns s·j + c
/// for each c < s, −∞ past the input's edges), so a tap of a whole row of windows reads a
/// run of consecutive values of one phase, where the compiled contraction gathers every
/// s-th value (a strided load LLVM turns into gathers) behind a bounds check per tap.
/// Taps are taken in the reference's order (rows, then columns) with the same `>`, so
/// ties, signed zeros and NaN (never taken) come out as the reference has them.
fn max_pool_2d(
    w: &Window,
    [x_shape, o_shape]: [&[usize]; 2],
    x: &[f32],
    out: &mut [f32],
    parallel: ParallelFor,
) -> Option<()> {
    let ([xd, od, k, s, p], span) = max_pool_2d_geometry(w, x_shape, o_shape)?;
    let ([_, xh, xw], [_, oh, ow]) = (xd, od);
    let (x_plane, o_plane) = (xd[0] * xh * xw, od[0] * oh * ow);
    if o_plane == 0 {
        return Some(());
    }
    let (sx, lead) = (s[2], p[2].div_ceil(s[2]));
    let planes = x_shape[0] * x_shape[1];
    let per_task = planes.div_ceil(16).max(1);
    for_blocks(out, per_task * o_plane, parallel, &|b, out| {
        let mut phases = [f32::NEG_INFINITY; PHASES];
        for (local, out) in out.chunks_exact_mut(o_plane).enumerate() {
            let x = &x[(b * per_task + local) * x_plane..][..x_plane];
            for (row, out) in out.chunks_exact_mut(ow).enumerate() {
                let (z, oy) = (row / oh, row % oh);
                let (y0, y1, _) = window(oy, k[1], s[1], p[1], xh);
                // Each window row's phases, one after another.
                for (r, y) in (y0..y1).enumerate() {
                    let src = &x[(z * xh + y) * xw..][..xw];
                    split_row(src, &mut phases[r * sx * span..][..sx * span], sx, lead);
                }
                out.fill(f32::NEG_INFINITY);
                for r in 0..y1 - y0 {
                    for t in 0..k[2] {
                        let at = r * sx * span + tap_start(t, p[2], sx, span, lead);
                        for (m, &v) in out.iter_mut().zip(&phases[at..at + ow]) {
                            *m = if v > *m { v } else { *m };
                        }
                    }
                }
            }
        }
    });
    Some(())
}

/// Where tap `t` of a row of windows (padding `pad`, stride `s`) starts in its window
/// row's phases: phase (t − pad) mod s, from value lead + ⌊(t − pad)/s⌋.
fn tap_start(t: usize, pad: usize, s: usize, span: usize, lead: usize) -> usize {
    let u = t as isize - pad as isize;
    let (phase, shift) = (u.rem_euclid(s as isize), u.div_euclid(s as isize));
    phase as usize * span + (lead as isize + shift) as usize
}

/// One input row's `s` phases of `row.len() / s` values each into `row` ([`split`]).
#[inline(always)]
fn split_row(src: &[f32], row: &mut [f32], s: usize, lead: usize) {
    let span = row.len() / s;
    match s {
        1 => split::<1>(src, row, span, lead),
        2 => split::<2>(src, row, span, lead),
        _ => split_any(src, row, s, span, lead),
    }
}

/// Splits `src` into its `S` phases of `span` values each in `row` (phase c's value j is
/// column S·(j − lead) + c): chunks of `S` columns, which the compiler vectorizes as a
/// deinterleave for a constant `S`. Values outside `src` are left as they are: −∞ from
/// the phases' start, as every row of a call writes the same places.
#[inline(always)]
fn split<const S: usize>(src: &[f32], row: &mut [f32], span: usize, lead: usize) {
    let whole = (src.len() / S).min(span - lead);
    for (i, chunk) in src.chunks_exact(S).take(whole).enumerate() {
        for (c, &v) in chunk.iter().enumerate() {
            row[c * span + lead + i] = v;
        }
    }
    // The last columns, short of a chunk.
    for col in whole * S..src.len().min((span - lead) * S) {
        row[col % S * span + lead + col / S] = src[col];
    }
}

/// [`split`] for a stride known at run time only.
fn split_any(src: &[f32], row: &mut [f32], s: usize, span: usize, lead: usize) {
    for (c, phase) in row.chunks_exact_mut(span).enumerate() {
        for (j, slot) in phase.iter_mut().enumerate() {
            if let Some(&v) = src.get((s * j + c).wrapping_sub(s * lead)) {
                *slot = v;
            }
        }
    }
}

/// Max pooling's native kernel where [`max_pool_2d`] covers the windows: channel-first
/// layouts.
const MAX_POOL_NATIVE: Native = Native {
    supports: |a, shapes| {
        kind(a) == Kind::Max
            && shapes.len() == 1
            && Window::new(a, shapes[0].len()).is_ok_and(|w| {
                let mut outs = [Vec::new()];
                padded(&w)
                    && pool_shape(a, &mut [shapes[0].clone()], &mut outs).is_ok()
                    && max_pool_2d_geometry(&w, &shapes[0], &outs[0]).is_some()
            })
    },
    scratch: no_scratch,
    run: |ctx, io| {
        let w = Window::new(ctx.attrs, io.in_shapes[0].len())?;
        let shapes = [io.in_shapes[0].as_slice(), &ctx.out_shapes[0]];
        max_pool_2d(&w, shapes, io.inputs[0], io.outputs[0], io.parallel).ok_or_else(|| {
            OpError::Invalid("Pooling: not a window the native kernel covers".into())
        })
    },
};

/// The native kernel: channel-first layouts.
const POOL_BACKWARD_NATIVE: Native = Native {
    supports: |a, shapes| {
        shapes.len() == 3 && Window::new(a, shapes[1].len()).is_ok_and(|w| !w.last)
    },
    scratch: no_scratch,
    run: |ctx, io| {
        let w = Window::new(ctx.attrs, io.in_shapes[1].len())?;
        let shapes = [io.in_shapes[0].as_slice(), &io.in_shapes[1]];
        let ins = [io.inputs[0], io.inputs[1], io.inputs[2]];
        let kind = kind(ctx.attrs);
        let (dx, parallel) = (&mut *io.outputs[0], io.parallel);
        let fast = match kind {
            Kind::Max if padded(&w) => max_backward_phases(&w, shapes, ins, dx, parallel)
                .or_else(|| max_backward_2d(&w, shapes, ins, dx, parallel)),
            Kind::Max => max_backward_2d(&w, shapes, ins, dx, parallel),
            _ => None,
        };
        if fast.is_none() {
            pool_backward(&w, kind, shapes, ins, dx, parallel);
        }
        Ok(())
    },
};

pub fn register(r: &mut Registry) {
    r.add(&POOLING);
    r.add(&POOLING_BACKWARD);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;

    const POOL: &str = "Pooling";

    #[test]
    fn output_size_per_convention() {
        let kv = [("kernel", "(2, 2)"), ("stride", "(2, 2)")];
        assert_eq!(
            infer(POOL, &kv, &[&[1, 1, 5, 5]]).unwrap().1[0],
            vec![1, 1, 2, 2]
        );
        let kv = [
            ("kernel", "(2, 2)"),
            ("stride", "(2, 2)"),
            ("pooling_convention", "full"),
        ];
        assert_eq!(
            infer(POOL, &kv, &[&[1, 1, 5, 5]]).unwrap().1[0],
            vec![1, 1, 3, 3]
        );
        let kv = [
            ("kernel", "(3,)"),
            ("stride", "(2,)"),
            ("pooling_convention", "same"),
        ];
        assert_eq!(infer(POOL, &kv, &[&[1, 1, 5]]).unwrap().1[0], vec![1, 1, 3]);
        // Stride defaults to 1, not to the kernel.
        let kv = [("kernel", "(2, 2)")];
        assert_eq!(
            infer(POOL, &kv, &[&[1, 1, 4, 4]]).unwrap().1[0],
            vec![1, 1, 3, 3]
        );
        let kv = [("kernel", "(2, 2, 2)"), ("pad", "(1, 0, 0)")];
        let got = infer(POOL, &kv, &[&[1, 2, 3, 4, 5]]).unwrap().1[0].clone();
        assert_eq!(got, vec![1, 2, 4, 3, 4]);
    }

    #[test]
    fn global_and_channel_last() {
        let kv = [("global_pool", "True"), ("kernel", "(3, 3)")];
        assert_eq!(
            infer(POOL, &kv, &[&[2, 3, 5, 7]]).unwrap().1[0],
            vec![2, 3, 1, 1]
        );
        let kv = [("global_pool", "True"), ("layout", "NHWC")];
        assert_eq!(
            infer(POOL, &kv, &[&[2, 5, 7, 3]]).unwrap().1[0],
            vec![2, 1, 1, 3]
        );
        let kv = [("kernel", "(2, 2)"), ("layout", "NHWC")];
        assert_eq!(
            infer(POOL, &kv, &[&[2, 5, 7, 3]]).unwrap().1[0],
            vec![2, 4, 6, 3]
        );
        // Batch and channels flow back from the output.
        let (ins, _) = infer_both(POOL, &kv, &[&[0, 5, 7, 0]], &[&[2, 4, 6, 3]]).unwrap();
        assert_eq!(ins[0], vec![2, 5, 7, 3]);
    }

    #[test]
    fn reports_bad_configurations() {
        let kv = [("kernel", "(4, 4)")];
        assert_eq!(
            infer_err(POOL, &kv, &[&[1, 1, 3, 8]]),
            "Pooling: kernel 4 exceeds the padded input (3) along spatial axis 0 of data \
             (1, 1, 3, 8)"
        );
        let kv = [("kernel", "(2, 2)"), ("pooling_convention", "same")];
        assert_eq!(
            infer_err(POOL, &kv, &[&[1, 1, 3, 8]]),
            "Pooling: pooling_convention 'same' supports only 1-D pooling without padding"
        );
        let kv = [("kernel", "(2, 2)"), ("pool_type", "lp")];
        assert_eq!(
            infer_err(POOL, &kv, &[&[1, 1, 3, 8]]),
            "Pooling: pool_type 'lp' needs p_value 1, 2 or 3, got None"
        );
        let kv = [("kernel", "(2, 2)")];
        assert_eq!(
            infer_err(POOL, &kv, &[&[1, 3, 8]]),
            "Pooling: `data` must be 4-D for a 2-D kernel, got shape (1, 3, 8)"
        );
        assert_eq!(
            infer_err(POOL, &[("global_pool", "True")], &[&[2, 8]]),
            "Pooling: `data` must be 3-D to 5-D (batch, channel, spatial...), got shape (2, 8)"
        );
        assert_eq!(
            infer_err(POOL, &[], &[&[1, 3, 8, 8]]),
            "Pooling: `kernel` must have 1 to 3 positive entries unless global_pool, got []"
        );
    }

    #[test]
    fn max_pool_by_hand() {
        let x = t(&[1, 1, 4, 4], (1..=16).map(f64::from).collect());
        let kv = [("kernel", "(2, 2)"), ("stride", "(2, 2)")];
        let out = run(POOL, &kv, &[x], false).unwrap();
        assert_close(&out[0].data, &[6., 8., 14., 16.], 0.0);
    }

    #[test]
    fn avg_divisor_follows_count_include_pad() {
        // x = 1..9 (3×3), 3×3 windows starting at -1 and 1 (pad 1, stride 2): each window
        // holds 4 real values; padded window is 3×3 = 9 (the right/bottom edge is clipped
        // at x + pad = 4, so the window [1, 4) keeps size 3).
        let x = t(&[1, 1, 3, 3], (1..=9).map(f64::from).collect());
        let sums = [
            1. + 2. + 4. + 5.,
            2. + 3. + 5. + 6.,
            4. + 5. + 7. + 8.,
            5. + 6. + 8. + 9.,
        ];
        let mut kv = vec![
            ("kernel", "(3, 3)"),
            ("pad", "(1, 1)"),
            ("stride", "(2, 2)"),
            ("pool_type", "avg"),
        ];
        let out = run(POOL, &kv, &[&x], false).unwrap();
        assert_close(&out[0].data, &sums.map(|s| s / 9.0), 1e-15);
        kv.push(("count_include_pad", "False"));
        let out = run(POOL, &kv, &[x], false).unwrap();
        assert_close(&out[0].data, &sums.map(|s| s / 4.0), 1e-15);
    }

    #[test]
    fn full_convention_clips_the_last_window() {
        // Windows [0, 3) and [2, 5) on x = 1..4; the second is clipped to [2, 4): size 2.
        let x = t(&[1, 1, 4], vec![1., 2., 3., 4.]);
        let kv = [
            ("kernel", "(3,)"),
            ("stride", "(2,)"),
            ("pool_type", "avg"),
            ("pooling_convention", "full"),
        ];
        let out = run(POOL, &kv, &[x], false).unwrap();
        assert_close(&out[0].data, &[2.0, 3.5], 0.0);
    }

    #[test]
    fn sum_lp_and_global() {
        let x = t(&[1, 1, 4], vec![-2., 1., 3., 4.]);
        let kv = [("kernel", "(2,)"), ("stride", "(2,)"), ("pool_type", "sum")];
        assert_close(
            &run(POOL, &kv, &[&x], false).unwrap()[0].data,
            &[-1., 7.],
            0.0,
        );
        let kv = [
            ("kernel", "(2,)"),
            ("stride", "(2,)"),
            ("pool_type", "lp"),
            ("p_value", "2"),
        ];
        let out = run(POOL, &kv, &[&x], false).unwrap();
        assert_close(&out[0].data, &[5f64.sqrt(), 5.0], 1e-15);
        let kv = [
            ("kernel", "(2,)"),
            ("stride", "(2,)"),
            ("pool_type", "lp"),
            ("p_value", "3"),
        ];
        let out = run(POOL, &kv, &[&x], false).unwrap();
        assert_close(&out[0].data, &[(-7f64).cbrt(), 91f64.cbrt()], 1e-15);
        let kv = [("global_pool", "True"), ("pool_type", "avg")];
        assert_close(&run(POOL, &kv, &[x], false).unwrap()[0].data, &[1.5], 0.0);
        let x = t(&[1, 1, 2, 2, 2], (1..=8).map(f64::from).collect());
        let kv = [("kernel", "(2, 2, 2)"), ("pool_type", "avg")];
        assert_close(&run(POOL, &kv, &[x], false).unwrap()[0].data, &[4.5], 0.0);
    }

    #[test]
    fn channel_last_matches_channel_first() {
        // Two channels of a 3×3 image: NCHW and the same values in NHWC.
        let nchw: Vec<f64> = (0..18).map(|i| ((i * 5) % 7) as f64).collect();
        let mut nhwc = vec![0.0; 18];
        for c in 0..2 {
            for p in 0..9 {
                nhwc[p * 2 + c] = nchw[c * 9 + p];
            }
        }
        let kv = [
            ("kernel", "(2, 2)"),
            ("pad", "(1, 1)"),
            ("stride", "(2, 2)"),
        ];
        let a = run(POOL, &kv, &[t(&[1, 2, 3, 3], nchw)], false).unwrap();
        let mut kv = kv.to_vec();
        kv.push(("layout", "NHWC"));
        let b = run(POOL, &kv, &[t(&[1, 3, 3, 2], nhwc)], false).unwrap();
        assert_eq!(b[0].shape, vec![1, 2, 2, 2]);
        for c in 0..2 {
            for p in 0..4 {
                assert_eq!(a[0].data[c * 4 + p], b[0].data[p * 2 + c]);
            }
        }
    }

    /// Positive inputs, so lp pooling with p = 3 stays away from a zero output.
    fn positive(shape: &[usize], seed: u64) -> crate::Tensor {
        let mut x = randn(shape, seed);
        x.data.iter_mut().for_each(|v| *v = v.abs() + 0.5);
        x
    }

    #[test]
    fn gradients_match_finite_differences() {
        let x = || randn(&[2, 3, 7, 6], 1);
        let base = [
            ("kernel", "(3, 2)"),
            ("stride", "(2, 1)"),
            ("pad", "(1, 1)"),
        ];
        for (pool_type, extra) in [
            ("max", None),
            ("avg", None),
            ("avg", Some(("count_include_pad", "False"))),
            ("sum", None),
            ("max", Some(("pooling_convention", "full"))),
            ("avg", Some(("pooling_convention", "full"))),
        ] {
            let mut kv = base.to_vec();
            kv.push(("pool_type", pool_type));
            kv.extend(extra);
            check_grad(POOL, &kv, &[x()], false, &[]);
            // The same channel-last.
            kv.push(("layout", "NHWC"));
            check_grad(POOL, &kv, &[randn(&[2, 7, 6, 3], 2)], false, &[]);
        }
        for p in ["1", "2", "3"] {
            let kv = [
                ("kernel", "(2, 3)"),
                ("stride", "(1, 2)"),
                ("pool_type", "lp"),
                ("p_value", p),
            ];
            check_grad(POOL, &kv, &[positive(&[1, 2, 3, 7], 3)], false, &[]);
        }
        // Global pooling ignores kernel and pad.
        for pool_type in ["max", "avg", "sum"] {
            let kv = [
                ("global_pool", "True"),
                ("kernel", "(3, 3)"),
                ("pool_type", pool_type),
            ];
            check_grad(POOL, &kv, &[randn(&[2, 3, 5, 3], 4)], false, &[]);
            let kv = [
                ("global_pool", "True"),
                ("pool_type", pool_type),
                ("layout", "NWC"),
            ];
            check_grad(POOL, &kv, &[randn(&[1, 7, 3], 5)], false, &[]);
        }
        // 1-D 'same', 3-D with uneven windows in both layouts, batch 1.
        let kv = [
            ("kernel", "(3,)"),
            ("stride", "(2,)"),
            ("pooling_convention", "same"),
        ];
        check_grad(POOL, &kv, &[randn(&[1, 2, 7], 6)], false, &[]);
        for layout in ["NCDHW", "NDHWC"] {
            let kv = [
                ("kernel", "(2, 1, 3)"),
                ("stride", "(1, 2, 2)"),
                ("pad", "(1, 0, 1)"),
                ("pool_type", "avg"),
                ("count_include_pad", "False"),
                ("layout", layout),
            ];
            check_grad(POOL, &kv, &[randn(&[1, 3, 3, 3, 3], 7)], false, &[]);
            let kv = [
                ("kernel", "(2, 1, 3)"),
                ("stride", "(1, 2, 2)"),
                ("pooling_convention", "full"),
                ("layout", layout),
            ];
            check_grad(POOL, &kv, &[randn(&[1, 3, 3, 3, 3], 8)], false, &[]);
        }
    }

    #[test]
    fn max_gradient_goes_to_the_first_maximum() {
        // Ties (not reachable by finite differences): MXNet routes to the first match.
        let x = t(&[1, 1, 4], vec![2., 2., 1., 2.]);
        let kv = [("kernel", "(2,)"), ("stride", "(2,)")];
        let y = run(POOL, &kv, &[&x], false).unwrap();
        let og = t(&[1, 1, 2], vec![10., 20.]);
        let g = run("_backward_Pooling", &kv, &[&og, &x, &y[0]], false).unwrap();
        assert_close(&g[0].data, &[10., 0., 0., 20.], 0.0);
        let (ins, outs) = infer("_backward_Pooling", &kv, &[&[1, 1, 2], &[1, 1, 5]]).unwrap();
        assert_eq!((ins[2].clone(), outs), (vec![1, 1, 2], vec![vec![1, 1, 5]]));
        assert_eq!(
            infer_err("_backward_Pooling", &kv, &[&[1, 1, 3], &[1, 1, 5]]),
            "input `ograd` has shape (1, 1, 3) but (1, 1, 2) is required"
        );
    }

    /// A pooling's attributes (`key=value`, `; ` between) and its input's shape.
    type Case<'a> = (&'a str, &'a [usize]);

    /// A case's attributes as `run` takes them.
    fn pairs(case: &str) -> Vec<(&str, &str)> {
        (case.split("; "))
            .map(|kv| kv.split_once('=').expect("key=value"))
            .collect()
    }

    /// Max windows that reach past the input (the kernels on phases): overlapping and
    /// clipped at both edges (odd sizes), the full convention's last window, stride 1 and 3
    /// (a stride without a split of its own), a wide kernel, 1-D, 3-D one deep.
    const PADDED: [Case; 8] = [
        ("kernel=(3, 3); stride=(2, 2); pad=(1, 1)", &[2, 3, 11, 13]),
        (
            "kernel=(3, 3); stride=(2, 2); pad=(1, 1); pooling_convention=full",
            &[1, 3, 8, 7],
        ),
        ("kernel=(3, 3); stride=(1, 1); pad=(1, 1)", &[1, 2, 7, 9]),
        ("kernel=(2, 3); stride=(2, 3); pad=(1, 1)", &[2, 17, 7, 8]),
        ("kernel=(5, 5); stride=(3, 3); pad=(2, 2)", &[1, 2, 12, 14]),
        ("kernel=(7, 7); stride=(2, 2); pad=(3, 3)", &[1, 1, 20, 19]),
        ("kernel=(3,); stride=(2,); pad=(1,)", &[2, 2, 10]),
        (
            "kernel=(1, 3, 3); stride=(1, 2, 2); pad=(0, 1, 1)",
            &[1, 2, 3, 6, 7],
        ),
    ];

    #[test]
    fn the_native_max_pooling_computes_what_the_reference_computes() {
        for (case, shape) in PADDED {
            let kv = &pairs(case);
            let x = randn(shape, 13);
            check_native(POOL, kv, std::slice::from_ref(&x), false, 0.0);
            // Ties, and NaN (never the maximum; a window of NaNs pools to −∞).
            let mut tied = x.clone();
            tied.data.iter_mut().for_each(|v| *v = v.round());
            check_native(POOL, kv, &[tied], false, 0.0);
            let mut nan = x;
            let half = nan.data.len() / 2;
            nan.data[..half].fill(f64::NAN);
            nan.data[half..]
                .iter_mut()
                .step_by(3)
                .for_each(|v| *v = f64::NAN);
            check_native(POOL, kv, &[nan], false, 0.0);
        }
        // Unpadded windows and other pooling types keep the compiled contraction.
        let native = op(POOL).native.unwrap();
        for kv in [
            &[("kernel", "(2, 2)"), ("stride", "(2, 2)")][..],
            &[
                ("kernel", "(3, 3)"),
                ("pad", "(1, 1)"),
                ("pool_type", "avg"),
            ],
        ] {
            assert!(!(native.supports)(
                &attrs(op(POOL), kv),
                &[vec![1, 1, 8, 8]]
            ));
        }
    }

    #[test]
    fn the_native_backward_computes_what_the_reference_computes() {
        // Max windows (the 2-D kernel) that tile the input: whole, with rows and columns
        // no window covers, in 1-D, and in 3-D one deep; overlapping and clipped (full
        // convention); global; and the padded ones (on phases).
        let cases: [Case; 10] = [
            (
                "kernel=(3, 3); stride=(2, 2); pooling_convention=full",
                &[1, 3, 8, 7],
            ),
            (
                "global_pool=True; kernel=(1, 1); pool_type=max",
                &[2, 3, 4, 5],
            ),
            ("kernel=(2, 2); stride=(2, 2)", &[2, 3, 8, 6]),
            ("kernel=(2, 3); stride=(2, 3)", &[2, 17, 7, 8]),
            ("kernel=(3,); stride=(3,)", &[2, 2, 10]),
            ("kernel=(1, 2, 2); stride=(1, 2, 2)", &[1, 2, 3, 4, 6]),
            ("kernel=(3, 3); stride=(2, 2); pad=(1, 1)", &[1, 2, 7, 9]),
            (
                "kernel=(3, 3); pool_type=avg; pooling_convention=full; count_include_pad=False",
                &[2, 2, 6, 5],
            ),
            ("kernel=(2,); pool_type=sum", &[2, 3, 9]),
            ("global_pool=True; kernel=(1, 1)", &[2, 3, 4, 5]),
        ];
        for (case, shape) in cases.into_iter().chain(PADDED) {
            let kv = &pairs(case);
            let x = randn(shape, 11);
            let y = run(POOL, kv, &[&x], false).unwrap().remove(0);
            // Ties (values rounded to integers: most windows hold their maximum twice or
            // more) route the gradient to the first.
            let mut tied = x.clone();
            tied.data.iter_mut().for_each(|v| *v = v.round());
            let y_tied = run(POOL, kv, &[&tied], false).unwrap().remove(0);
            // NaN: a window of NaNs routes its gradient to its last input (the first half
            // of the input all NaN), one with some NaNs to its first maximum.
            let mut nan = x.clone();
            let half = nan.data.len() / 2;
            nan.data[..half].fill(f64::NAN);
            nan.data[half..]
                .iter_mut()
                .step_by(3)
                .for_each(|v| *v = f64::NAN);
            let y_nan = run(POOL, kv, &[&nan], false).unwrap().remove(0);
            let og = randn(&y.shape, 12);
            check_native("_backward_Pooling", kv, &[og.clone(), x, y], false, 1e-6);
            check_native(
                "_backward_Pooling",
                kv,
                &[og.clone(), tied, y_tied],
                false,
                1e-6,
            );
            check_native("_backward_Pooling", kv, &[og, nan, y_nan], false, 1e-6);
        }
    }
}
