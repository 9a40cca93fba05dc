//! BatchNorm: normalization by per-channel batch statistics (training) or the moving
//! statistics (inference, use_global_stats), then scale by gamma and shift by beta.
//!
//! MXNet 1.9.1 semantics, as in its CPU, MKLDNN and cuDNN kernels: the hidden `var` output
//! holds the **inverse standard deviation** `1/sqrt(var + eps)` of the statistics used,
//! not the variance (apache/mxnet#9216; `batch_norm.cc` stores `VARIANCE_TO_INVSTD` into
//! it and the backward converts it back with `1/invstd² − eps` to update `moving_var`).
//! Only the data output is visible unless `output_mean_var`. The moving-average update of
//! `moving_mean`/`moving_var` (the mutable inputs 3 and 4) is not part of the forward
//! pass: it is the operator's `aux_update`, built from scalar operators, which a training
//! step applies (MXNet's CPU path does it in the backward pass).
//!
//! The gradient is the backward operator `_backward_BatchNorm` (as MXNet). In training
//! with batch statistics it flows through the mean and the variance; otherwise the
//! statistics are constants. As MXNet, fix_gamma gives gamma a zero gradient, the
//! moving statistics get none, and the head gradients of the `mean`/`var` outputs are
//! ignored even when output_mean_var makes them visible.

use super::common::{axis_of, elems, split_at_axis, Through};
use crate::def::PerSample;
use crate::native::{for_blocks, serial, Native, NativeIo, ParallelFor, Real};
use crate::param::{param, py_float, ParamDef, ParamType};
use crate::shape::{invalid, same_shape, set_in, set_out, OpError, Shape, Slot};
use crate::{
    Attrs, ChannelNorm, Compute, DType, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef,
    Outputs, Pattern, Registry, Tensor,
};

const OP: &str = "BatchNorm";

const BN_PARAMS: &[ParamDef] = &[
    param(
        "eps",
        ParamType::Float,
        Some("0.001"),
        "added to the variance",
    ),
    param(
        "momentum",
        ParamType::Float,
        Some("0.9"),
        "moving-average momentum",
    ),
    param(
        "fix_gamma",
        ParamType::Bool,
        Some("True"),
        "treat gamma as 1",
    ),
    param(
        "use_global_stats",
        ParamType::Bool,
        Some("False"),
        "use the moving statistics in training too",
    ),
    param(
        "output_mean_var",
        ParamType::Bool,
        Some("False"),
        "make the mean and inverse-std outputs visible",
    ),
    param("axis", ParamType::Int, Some("1"), "channel axis"),
    param(
        "cudnn_off",
        ParamType::Bool,
        Some("False"),
        "turn off cuDNN (ignored)",
    ),
    param(
        "min_calib_range",
        ParamType::OptFloat,
        Some("None"),
        "quantization calibration minimum (ignored)",
    ),
    param(
        "max_calib_range",
        ParamType::OptFloat,
        Some("None"),
        "quantization calibration maximum (ignored)",
    ),
];

static BATCH_NORM: OpDef = OpDef {
    // On its moving statistics: inference is what per sample speaks of.
    per_sample: PerSample::Always,
    aliases: &["_npx_batch_norm"],
    doc: "Batch normalization: `(x − mean)/sqrt(var + eps)·gamma + beta` per channel (axis). \
          Training (unless use_global_stats) uses the batch mean and biased variance over all \
          other axes, inference the moving statistics; fix_gamma treats gamma as 1. Hidden \
          outputs: mean and the inverse std `1/sqrt(var + eps)`, as MXNet.",
    params: BN_PARAMS,
    inputs: Inputs::Fixed(&["data", "gamma", "beta", "moving_mean", "moving_var"]),
    outputs: Outputs::Dynamic(bn_outputs),
    mutable_inputs: &[3, 4],
    infer_shape: bn_shape,
    infer_dtype: bn_dtype,
    inplace: &[],
    cost: bn_cost,
    grad: Grad::Rule(bn_grad),
    aux_update: Some(bn_aux_update),
    expand: Some(bn_expand),
    recompute: Some(bn_recompute),
    native: Some(BN_NATIVE),
    channel_norm: Some(|a| ChannelNorm {
        axis: a.int("axis"),
        eps: a.float("eps"),
        fix_gamma: a.bool("fix_gamma"),
    }),
    ..OpDef::new(
        OP,
        Pattern::Opaque,
        Compute::Library {
            kernel: "batch_norm",
            reference: bn_ref,
        },
    )
};

/// With the moving statistics (inference, or use_global_stats), BatchNorm is a
/// per-channel scale and shift, `x·s + t` with `s = gamma/sqrt(moving_var + eps)` and
/// `t = beta − moving_mean·s`: element-wise operators that fuse into the producer's
/// epilogue. The hidden outputs are the statistics used, as the library kernel's.
/// Declines in training with batch statistics, and where the data's rank or dtypes are
/// unknown or mixed (half-precision data with f32 statistics).
fn bn_expand(
    g: &mut dyn GradGraph,
    a: &Attrs,
    ins: &[Handle],
    ctx: &crate::ExpandCtx,
) -> Result<Vec<Handle>, OpError> {
    if ctx.training && !a.bool("use_global_stats") {
        return invalid("BatchNorm expansion: training uses batch statistics");
    }
    let shape = stats_shape(a, ctx)?;
    let (x, gamma, beta, moving_mean, moving_var) = (ins[0], ins[1], ins[2], ins[3], ins[4]);
    let eps = py_float(a.float("eps"));
    let var_eps = g.op("_plus_scalar", &[moving_var], &[("scalar", &eps)])?[0];
    let invstd = g.op("rsqrt", &[var_eps], &[])?[0];
    let out = scale_shift(g, a, &shape, [x, gamma, beta], [moving_mean, invstd])?;
    Ok(vec![out, moving_mean, invstd])
}

/// The output of a training BatchNorm again, from its data and the statistics it output
/// (mean and inverse std): the same scale and shift as in inference.
fn bn_recompute(
    g: &mut dyn GradGraph,
    a: &Attrs,
    ins: &[Handle],
    stats: &[Handle],
    ctx: &crate::ExpandCtx,
) -> Result<Handle, OpError> {
    let shape = stats_shape(a, ctx)?;
    let [mean, invstd] = stats else {
        return invalid("BatchNorm recomputation: the mean and inverse std are needed");
    };
    scale_shift(g, a, &shape, [ins[0], ins[1], ins[2]], [*mean, *invstd])
}

/// The shape per-channel statistics broadcast from (the channel axis kept, the others
/// 1), as a Reshape target; declines where the data's shape or dtype is unknown or the
/// statistics' dtype differs (half-precision data with f32 statistics).
fn stats_shape(a: &Attrs, ctx: &crate::ExpandCtx) -> Result<String, OpError> {
    let (Some(data), Some(d), Some(p)) = (
        ctx.shapes.first(),
        ctx.dtypes.first().copied().flatten(),
        ctx.dtypes.get(1).copied().flatten(),
    ) else {
        return invalid("BatchNorm expansion: the data's shape or dtype is unknown");
    };
    if d != p || data.is_empty() {
        return invalid("BatchNorm expansion: the data and the statistics differ in dtype");
    }
    let ax = channel_axis(a, data)?;
    let along_axis: Vec<String> = (0..data.len())
        .map(|i| match i == ax {
            true => data[ax].to_string(),
            false => "1".into(),
        })
        .collect();
    Ok(format!("({})", along_axis.join(",")))
}

/// `x·s + t` with `s = gamma·invstd` (invstd under fix_gamma) and `t = beta − mean·s`,
/// the statistics reshaped to `shape` to broadcast along the channel axis.
fn scale_shift(
    g: &mut dyn GradGraph,
    a: &Attrs,
    shape: &str,
    [x, gamma, beta]: [Handle; 3],
    [mean, invstd]: [Handle; 2],
) -> Result<Handle, OpError> {
    let scale = if a.bool("fix_gamma") {
        invstd
    } else {
        g.op("elemwise_mul", &[gamma, invstd], &[])?[0]
    };
    let mean_scaled = g.op("elemwise_mul", &[mean, scale], &[])?[0];
    let shift = g.op("elemwise_sub", &[beta, mean_scaled], &[])?[0];
    let s = g.op("Reshape", &[scale], &[("shape", shape)])?[0];
    let t = g.op("Reshape", &[shift], &[("shape", shape)])?[0];
    let scaled = g.op("broadcast_mul", &[x, s], &[])?[0];
    Ok(g.op("broadcast_add", &[scaled, t], &[])?[0])
}

fn bn_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let names = ["output", "mean", "var"].map(String::from).to_vec();
    (names, if a.bool("output_mean_var") { 3 } else { 1 })
}

fn channel_axis(a: &Attrs, data: &[usize]) -> Result<usize, OpError> {
    axis_of(OP, "axis", a.int("axis"), data)
}

/// Every per-channel vector (gamma, beta, moving stats, mean, var) is (C,) with C the data's
/// size along `axis`; C also flows back from any of them into the data.
fn bn_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    same_shape(a, &mut ins[..1], &mut outs[..1])?;
    if ins[0].is_empty() {
        return Ok(());
    }
    let ax = channel_axis(a, &ins[0])?;
    if ins[0][ax] == 0 {
        let known = ins[1..]
            .iter()
            .chain(&outs[1..])
            .find_map(|s| match s.as_slice() {
                &[c] if c != 0 => Some(c),
                _ => None,
            });
        if let Some(c) = known {
            let mut d = ins[0].clone();
            d[ax] = c;
            set_in(ins, 0, &d)?;
            same_shape(a, &mut ins[..1], &mut outs[..1])?;
        }
    }
    let c = ins[0][ax];
    for i in 1..ins.len() {
        set_in(ins, i, &[c])?;
    }
    for i in 1..outs.len() {
        set_out(outs, i, &[c])?;
    }
    Ok(())
}

/// Data and output share a dtype; the per-channel tensors use the accumulation dtype
/// (f32 for half-precision data), as MXNet's `MSHADOW_REAL_TYPE_SWITCH_EX`.
fn bn_dtype(
    _: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    let Some(d) = ins[0].or(outs[0]) else {
        return Ok(());
    };
    let p = match d {
        DType::F16 | DType::BF16 => DType::F32,
        d => d,
    };
    let slots = ins
        .iter_mut()
        .enumerate()
        .map(|(i, s)| (Slot::In(i), s, if i == 0 { d } else { p }))
        .chain(
            outs.iter_mut()
                .enumerate()
                .map(|(i, s)| (Slot::Out(i), s, if i == 0 { d } else { p })),
        );
    for (slot, have, want) in slots {
        match *have {
            Some(h) if h != want => {
                return Err(OpError::DType {
                    slot,
                    have: h,
                    want,
                })
            }
            _ => *have = Some(want),
        }
    }
    Ok(())
}

fn bn_cost(_: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    // Mean, variance, then one multiply-add with a per-channel scale and shift.
    elems(&ins[0]).saturating_mul(4)
}

fn bn_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    on_tensors(ctx, ins, 0, bn_forward)
}

/// Both directions' kernels: `[data-shaped, per-channel, per-channel] = core([5
/// inputs])`, the data being input `data`, tasks over the parallel loop, with two f64 per
/// channel of working space.
type Core<T> = fn(
    &KernelCtx,
    &[usize],
    [&[T]; 5],
    [&mut [T]; 3],
    ParallelFor,
    &mut [f64],
) -> Result<(), OpError>;

/// `core` on the reference's f64 tensors; the per-channel outputs in gamma's dtype.
fn on_tensors(
    ctx: &KernelCtx,
    ins: &[&Tensor],
    data: usize,
    core: Core<f64>,
) -> Result<Vec<Tensor>, OpError> {
    let (x, gamma) = (ins[data], ins[data + 1]);
    let c = x.shape[channel_axis(ctx.attrs, &x.shape)?];
    let mut full = x.clone();
    let (mut first, mut second) = (vec![0.0; c], vec![0.0; c]);
    let values: [&[f64]; 5] = std::array::from_fn(|i| ins[i].data.as_slice());
    core(
        ctx,
        &x.shape,
        values,
        [&mut full.data, &mut first, &mut second],
        &serial,
        &mut vec![0.0; 2 * c],
    )?;
    let vector = |data| Tensor {
        dtype: gamma.dtype,
        shape: vec![c],
        data,
    };
    Ok(vec![full, vector(first), vector(second)])
}

/// `core` on a native call's f32 buffers.
fn on_buffers(ctx: &KernelCtx, io: NativeIo, data: usize, core: Core<f32>) -> Result<(), OpError> {
    let ins: [&[f32]; 5] = std::array::from_fn(|i| io.inputs[i]);
    let (shape, parallel, scratch) = (&io.in_shapes[data], io.parallel, io.scratch);
    match io.outputs {
        [a, b, c] => core(ctx, shape, ins, [a, b, c], parallel, scratch),
        _ => invalid(format!("{OP}: three outputs expected")),
    }
}

/// Working space of a native call: two f64 per channel of the data (input `data`).
fn scratch(a: &Attrs, shapes: &[Shape], data: usize) -> usize {
    let shape = &shapes[data];
    channel_axis(a, shape).map_or(0, |axis| 2 * shape[axis])
}

/// Accumulators per sum of [`channel_sums`]: consecutive elements add into different
/// ones, so the additions do not wait for one another.
const LANES: usize = 8;

/// `K` sums over channel `ch` of an `outer × c × inner` buffer: of `f(i)` for each of the
/// channel's linear indices `i`.
fn channel_sums<const K: usize>(
    [outer, c, inner]: [usize; 3],
    ch: usize,
    f: impl Fn(usize) -> [f64; K],
) -> [f64; K] {
    let mut lanes = [[0.0; K]; LANES];
    let add = |lane: &mut [f64; K], v: [f64; K]| {
        for (sum, v) in lane.iter_mut().zip(v) {
            *sum += v;
        }
    };
    for o in 0..outer {
        let (start, end) = ((o * c + ch) * inner, (o * c + ch + 1) * inner);
        let whole = start + (end - start) / LANES * LANES;
        for block in (start..whole).step_by(LANES) {
            for (j, lane) in lanes.iter_mut().enumerate() {
                add(lane, f(block + j));
            }
        }
        for i in whole..end {
            add(&mut lanes[0], f(i));
        }
    }
    std::array::from_fn(|k| lanes.iter().map(|lane| lane[k]).sum())
}

/// Tasks a call splits into at least (where there are as many channels or planes).
const TASKS: usize = 16;

/// `slots[ch] = f(ch)` for every channel `ch < c` (its statistics or sums, each
/// independent), blocks of channels over `parallel`, each block writing its own slots, in
/// the call's working space (two f64 per channel).
fn per_channel<'s>(
    c: usize,
    parallel: ParallelFor,
    f: impl Fn(usize) -> [f64; 2] + Sync,
    scratch: &'s mut [f64],
) -> Result<&'s [[f64; 2]], OpError> {
    let (slots, _) = scratch.as_chunks_mut::<2>();
    let Some(slots) = slots.get_mut(..c) else {
        return invalid(format!("{OP}: working space for {c} channels expected"));
    };
    let per = c.div_ceil(TASKS).max(1);
    for_blocks(slots, per, parallel, &|b, block| {
        for (j, slot) in block.iter_mut().enumerate() {
            *slot = f(b * per + j);
        }
    });
    Ok(slots)
}

/// `f(ch, start, plane)` for every plane of `inner` consecutive elements of the
/// data-shaped `out` (outer × c × inner), `ch` its channel and `start` its first index,
/// blocks of planes over `parallel`: a channel's elements interleave with the others' in
/// memory, but the planes are disjoint.
fn per_plane<T: Send>(
    out: &mut [T],
    c: usize,
    inner: usize,
    parallel: ParallelFor,
    f: impl Fn(usize, usize, &mut [T]) + Sync,
) {
    let inner = inner.max(1);
    let per = (out.len() / inner).div_ceil(TASKS).max(1);
    for_blocks(out, per * inner, parallel, &|b, block| {
        for (j, plane) in block.chunks_mut(inner).enumerate() {
            let r = b * per + j;
            f(r % c, r * inner, plane);
        }
    });
}

/// The forward pass into `[out, mean, invstd]` from `[data, gamma, beta, moving_mean,
/// moving_var]`, data of `shape`, tasks over `parallel`: shared by the reference (f64,
/// serial) and native (f32) kernels. The statistics first, by channel, then the outputs,
/// by plane.
fn bn_forward<T: Real>(
    ctx: &KernelCtx,
    shape: &[usize],
    [x, gamma, beta, moving_mean, moving_var]: [&[T]; 5],
    [out, means, invstds]: [&mut [T]; 3],
    parallel: ParallelFor,
    scratch: &mut [f64],
) -> Result<(), OpError> {
    let a = ctx.attrs;
    let eps = a.float("eps");
    let batch_stats = ctx.is_train && !a.bool("use_global_stats");
    let fix_gamma = a.bool("fix_gamma");
    let (outer, c, inner) = split_at_axis(shape, channel_axis(a, shape)?);
    let m = (outer * inner) as f64;
    let dims = [outer, c, inner];
    let statistics = |ch| {
        if batch_stats {
            let [sum] = channel_sums(dims, ch, |i| [x[i].to_f64()]);
            let mean = sum / m;
            let [sq] = channel_sums(dims, ch, |i| [(x[i].to_f64() - mean).powi(2)]);
            // MXNet avoids 1/0 for a constant channel without eps.
            let invstd = if sq == 0.0 && eps == 0.0 {
                0.0
            } else {
                1.0 / (sq / m + eps).sqrt()
            };
            [mean, invstd]
        } else {
            [
                moving_mean[ch].to_f64(),
                1.0 / (moving_var[ch].to_f64() + eps).sqrt(),
            ]
        }
    };
    let stats = per_channel(c, parallel, statistics, scratch)?;
    per_plane(out, c, inner, parallel, |ch, start, plane| {
        let [mean, invstd] = stats[ch];
        let g = if fix_gamma { 1.0 } else { gamma[ch].to_f64() };
        let b = beta[ch].to_f64();
        for (o, v) in plane.iter_mut().zip(&x[start..]) {
            *o = T::from_f64((v.to_f64() - mean) * invstd * g + b);
        }
    });
    for ((mean, invstd), &[mu, s]) in means.iter_mut().zip(invstds).zip(stats) {
        *mean = T::from_f64(mu);
        *invstd = T::from_f64(s);
    }
    Ok(())
}

/// BatchNorm's native kernels: every configuration.
const BN_NATIVE: Native = Native {
    supports: |_, shapes| shapes.len() == 5 && !shapes[0].is_empty(),
    scratch: |a, shapes| scratch(a, shapes, 0),
    run: |ctx, io| on_buffers(ctx, io, 0, bn_forward),
};
const BN_BACKWARD_NATIVE: Native = Native {
    supports: |_, shapes| shapes.len() == 5 && !shapes[1].is_empty(),
    scratch: |a, shapes| scratch(a, shapes, 1),
    run: |ctx, io| on_buffers(ctx, io, 1, bn_backward),
};

fn bn_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let (i, o) = (ctx.inputs, ctx.outputs);
    let args = [ctx.out_grads[0], i[0], i[1], o[1], o[2]];
    let grads = g.op("_backward_BatchNorm", &args, ctx.raw_attrs)?;
    Ok(vec![
        Some(grads[0]),
        Some(grads[1]),
        Some(grads[2]),
        None,
        None,
    ])
}

/// `moving·momentum + batch·(1 − momentum)` for the mean and the (biased) variance, the
/// variance recovered from the hidden inverse std as `1/invstd² − eps`. With
/// use_global_stats the moving statistics stay as they are.
fn bn_aux_update(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Handle>, OpError> {
    let (moving_mean, moving_var) = (ctx.inputs[3], ctx.inputs[4]);
    if ctx.attrs.bool("use_global_stats") {
        return Ok(vec![moving_mean, moving_var]);
    }
    let (momentum, eps) = (ctx.attrs.float("momentum"), ctx.attrs.float("eps"));
    let (mean, invstd) = (ctx.outputs[1], ctx.outputs[2]);
    let invstd_sq = g.op("square", &[invstd], &[])?[0];
    let var_eps = scalar_op(g, "_rdiv_scalar", invstd_sq, 1.0)?;
    let var = scalar_op(g, "_minus_scalar", var_eps, eps)?;
    Ok(vec![
        blend(g, moving_mean, mean, momentum)?,
        blend(g, moving_var, var, momentum)?,
    ])
}

fn scalar_op(g: &mut dyn GradGraph, op: &str, x: Handle, v: f64) -> Result<Handle, OpError> {
    let v = py_float(v);
    Ok(g.op(op, &[x], &[("scalar", &v), ("is_int", "False")])?[0])
}

/// `moving·momentum + batch·(1 − momentum)`.
fn blend(
    g: &mut dyn GradGraph,
    moving: Handle,
    batch: Handle,
    momentum: f64,
) -> Result<Handle, OpError> {
    let kept = scalar_op(g, "_mul_scalar", moving, momentum)?;
    let new = scalar_op(g, "_mul_scalar", batch, 1.0 - momentum)?;
    Ok(g.op("elemwise_add", &[kept, new], &[])?[0])
}

static BATCH_NORM_BACKWARD: OpDef = OpDef {
    doc: "Gradient of BatchNorm, from ograd, data, gamma and the forward's hidden `mean` and \
          inverse-std `var` outputs: data_grad, gamma_grad (zero with fix_gamma) and \
          beta_grad. In training without use_global_stats the statistics are the batch's \
          and the gradient flows through them; otherwise they are constants. Takes the \
          forward's parameters.",
    params: BN_PARAMS,
    inputs: Inputs::Fixed(&["ograd", "data", "gamma", "mean", "var"]),
    outputs: Outputs::Fixed {
        names: &["data_grad", "gamma_grad", "beta_grad"],
        visible: 3,
    },
    infer_shape: |a, ins, outs| BN_THROUGH.shapes(bn_shape, a, ins, outs),
    infer_dtype: |a, ins, outs| BN_THROUGH.dtypes(bn_dtype, a, ins, outs),
    native: Some(BN_BACKWARD_NATIVE),
    inplace: &[],
    // About twice the forward's passes over the data.
    cost: |_, ins, _| ins.get(1).map_or(0, |d| elems(d).saturating_mul(8)),
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_BatchNorm",
        Pattern::Opaque,
        Compute::Library {
            kernel: "batch_norm_backward",
            reference: bn_backward_ref,
        },
    )
};

/// Forward data and gamma are backward inputs 1 and 2 (and outputs 0 and 1, their
/// gradients; beta's is output 2); the forward's outputs are ograd, mean and var.
const BN_THROUGH: Through = Through {
    inputs: &[Some(1), Some(2), None, None, None],
    outputs: &[&[0], &[3], &[4]],
    grads: &[0, 1, 2],
};

fn bn_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    on_tensors(ctx, ins, 1, bn_backward)
}

/// The gradient into `[dx, dgamma, dbeta]` from `[ograd, data, gamma, mean, invstd]`,
/// data of `shape`, tasks over `parallel`: shared by the reference (f64, serial) and
/// native (f32) kernels. The sums first, by channel, then dx, by plane.
fn bn_backward<T: Real>(
    ctx: &KernelCtx,
    shape: &[usize],
    [og, x, gamma, mean, invstd]: [&[T]; 5],
    [dx, dgamma, dbeta]: [&mut [T]; 3],
    parallel: ParallelFor,
    scratch: &mut [f64],
) -> Result<(), OpError> {
    let a = ctx.attrs;
    let batch_stats = ctx.is_train && !a.bool("use_global_stats");
    let fix_gamma = a.bool("fix_gamma");
    let (outer, c, inner) = split_at_axis(shape, channel_axis(a, shape)?);
    let m = (outer * inner) as f64;
    // Σ dy and Σ dy·x̂ of each channel, in one pass over its planes.
    let sums = |ch: usize| {
        let mu = mean[ch].to_f64();
        let [sum_dy, sum_dy_x] = channel_sums([outer, c, inner], ch, |i| {
            let dy = og[i].to_f64();
            [dy, dy * (x[i].to_f64() - mu)]
        });
        [sum_dy, sum_dy_x * invstd[ch].to_f64()]
    };
    let sums = per_channel(c, parallel, sums, scratch)?;
    per_plane(dx, c, inner, parallel, |ch, start, plane| {
        let g = if fix_gamma { 1.0 } else { gamma[ch].to_f64() };
        let (mu, s) = (mean[ch].to_f64(), invstd[ch].to_f64());
        let [sum_dy, sum_dy_xhat] = sums[ch];
        // Through the batch mean and variance: −mean(dy) − x̂·mean(dy·x̂).
        let (shift, slope) = match batch_stats {
            true => (-sum_dy / m, -sum_dy_xhat / m),
            false => (0.0, 0.0),
        };
        let end = start + plane.len();
        for ((d, &dy), &xv) in plane.iter_mut().zip(&og[start..end]).zip(&x[start..end]) {
            let xhat = (xv.to_f64() - mu) * s;
            *d = T::from_f64(g * s * (dy.to_f64() + shift + xhat * slope));
        }
    });
    for ((dg, db), &[sum_dy, sum_dy_xhat]) in dgamma.iter_mut().zip(dbeta).zip(sums) {
        *dg = T::from_f64(if fix_gamma { 0.0 } else { sum_dy_xhat });
        *db = T::from_f64(sum_dy);
    }
    Ok(())
}

pub fn register(r: &mut Registry) {
    r.add(&BATCH_NORM);
    r.add(&BATCH_NORM_BACKWARD);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::{DType, GradCtx, Handle, Tensor};

    const BN: &str = "BatchNorm";

    fn params(c: usize) -> Vec<Tensor> {
        vec![
            t(&[c], vec![1.0; c]),
            t(&[c], vec![0.0; c]),
            t(&[c], vec![0.0; c]),
            t(&[c], vec![1.0; c]),
        ]
    }

    #[test]
    fn infers_per_channel_shapes_both_ways() {
        let (ins, outs) = infer(BN, &[], &[&[2, 3, 4, 4]]).unwrap();
        assert_eq!(&ins[1..], &[vec![3], vec![3], vec![3], vec![3]]);
        assert_eq!(outs, vec![vec![2, 3, 4, 4], vec![3], vec![3]]);
        let (ins, _) = infer(BN, &[("axis", "-1")], &[&[2, 5]]).unwrap();
        assert_eq!(ins[1], vec![5]);
        let (ins, _) = infer(BN, &[], &[&[2, 0, 4], &[], &[], &[3]]).unwrap();
        assert_eq!(ins[0], vec![2, 3, 4]);
        assert_eq!(
            infer_err(BN, &[], &[&[2, 3], &[], &[], &[], &[4]]),
            "input `moving_var` has shape (4,) but (3,) is required"
        );
        assert_eq!(
            infer_err(BN, &[("axis", "2")], &[&[2, 3]]),
            "BatchNorm: axis=2 is out of range for data (2, 3)"
        );
        let o = op(BN);
        assert_eq!(o.output_names(&attrs(o, &[])).1, 1);
        assert_eq!(o.output_names(&attrs(o, &[("output_mean_var", "1")])).1, 3);
        assert_eq!(o.mutable_inputs, &[3, 4]);
    }

    #[test]
    fn half_data_keeps_f32_statistics() {
        let o = op(BN);
        let a = attrs(o, &[]);
        let mut ins = vec![Some(DType::F16), None, None, None, None];
        let mut outs = vec![None; 3];
        (o.infer_dtype)(&a, &mut ins, &mut outs).unwrap();
        assert_eq!(ins[1..], [Some(DType::F32); 4]);
        assert_eq!(
            outs,
            vec![Some(DType::F16), Some(DType::F32), Some(DType::F32)]
        );
        let mut ins = vec![Some(DType::F64), Some(DType::F32), None, None, None];
        assert!((o.infer_dtype)(&a, &mut ins, &mut [None; 3]).is_err());
    }

    #[test]
    fn training_uses_batch_statistics() {
        // Channel 0 holds {1, 3}: mean 2, variance 1; channel 1 {10, 30}: mean 20, var 100.
        let x = t(&[2, 2], vec![1., 10., 3., 30.]);
        let gamma = t(&[2], vec![2., 3.]);
        let beta = t(&[2], vec![0.5, -1.]);
        let mut inputs = vec![x, gamma, beta];
        inputs.extend(params(2).into_iter().skip(2));
        let kv = [("eps", "0"), ("fix_gamma", "False")];
        let out = run(BN, &kv, &inputs, true).unwrap();
        // (1-2)·1·2+0.5, (10-20)·0.1·3-1, (3-2)·2+0.5, (30-20)·0.1·3-1
        assert_close(&out[0].data, &[-1.5, -4., 2.5, 2.], 1e-15);
        assert_close(&out[1].data, &[2., 20.], 0.0);
        assert_close(&out[2].data, &[1., 0.1], 1e-15); // inverse std
                                                       // fix_gamma (the default) ignores gamma; eps 1e-3 enters the inverse std.
        let out = run(BN, &[], &inputs, true).unwrap();
        let (i0, i1) = (1.0 / 1.001f64.sqrt(), 1.0 / 100.001f64.sqrt());
        let want = [-i0 + 0.5, -10. * i1 - 1., i0 + 0.5, 10. * i1 - 1.];
        assert_close(&out[0].data, &want, 1e-15);
        assert_close(&out[2].data, &[i0, i1], 1e-15);
    }

    #[test]
    fn inference_and_global_stats_use_moving_statistics() {
        let x = t(&[2, 2], vec![1., 10., 3., 30.]);
        let inputs = vec![
            x,
            t(&[2], vec![2., 3.]),
            t(&[2], vec![0.5, -1.]),
            t(&[2], vec![1., 2.]),
            t(&[2], vec![4., 0.25]),
        ];
        let kv = [("eps", "0"), ("fix_gamma", "False")];
        // (x - mm)/sqrt(mv)·g + b
        let want = [
            0. + 0.5,
            8. / 0.5 * 3. - 1.,
            2. / 2. * 2. + 0.5,
            28. / 0.5 * 3. - 1.,
        ];
        let out = run(BN, &kv, &inputs, false).unwrap();
        assert_close(&out[0].data, &want, 1e-15);
        assert_close(&out[1].data, &[1., 2.], 0.0);
        assert_close(&out[2].data, &[0.5, 2.], 0.0);
        let kv = [
            ("eps", "0"),
            ("fix_gamma", "False"),
            ("use_global_stats", "True"),
        ];
        let out = run(BN, &kv, &inputs, true).unwrap();
        assert_close(&out[0].data, &want, 1e-15);
    }

    #[test]
    fn four_d_statistics_cover_batch_and_space() {
        let x = ramp(&[2, 3, 2, 2]);
        let mut inputs = vec![x.clone()];
        inputs.extend(params(3));
        let out = run(BN, &[("eps", "0")], &inputs, true).unwrap();
        for c in 0..3 {
            let vals: Vec<f64> = (0..2)
                .flat_map(|n| (0..4).map(move |p| (n * 3 + c) * 4 + p))
                .map(|i| x.data[i])
                .collect();
            let mean = vals.iter().sum::<f64>() / 8.0;
            let var = vals.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 8.0;
            assert!((out[1].data[c] - mean).abs() < 1e-15);
            assert!((out[2].data[c] - 1.0 / var.sqrt()).abs() < 1e-12);
            for n in 0..2 {
                for p in 0..4 {
                    let i = (n * 3 + c) * 4 + p;
                    let want = (x.data[i] - mean) / var.sqrt();
                    assert!((out[0].data[i] - want).abs() < 1e-12);
                }
            }
        }
    }

    /// Training-mode inputs: random data, gamma and beta; moving statistics that training
    /// does not read.
    fn inputs(data: &[usize], c: usize, seed: u64) -> Vec<Tensor> {
        let mut var = randn(&[c], seed + 4);
        var.data.iter_mut().for_each(|v| *v = v.abs() + 0.5);
        vec![
            randn(data, seed),
            randn(&[c], seed + 1),
            randn(&[c], seed + 2),
            randn(&[c], seed + 3),
            var,
        ]
    }

    #[test]
    fn gradients_match_finite_differences() {
        // Training: the gradient flows through the batch mean and variance.
        let kv = [("fix_gamma", "False")];
        check_grad(BN, &kv, &inputs(&[3, 2, 5], 2, 1), true, &[]);
        check_grad(BN, &kv, &inputs(&[1, 3, 2, 2], 3, 2), true, &[]); // batch 1
        check_grad(BN, &kv, &inputs(&[7, 1], 1, 3), true, &[]);
        // Other axes, and eps = 0.
        let kv = [("fix_gamma", "False"), ("axis", "-1"), ("eps", "0")];
        check_grad(BN, &kv, &inputs(&[4, 3], 3, 4), true, &[]);
        let kv = [("fix_gamma", "False"), ("axis", "2")];
        check_grad(BN, &kv, &inputs(&[2, 3, 3, 2], 3, 5), true, &[]);
        let kv = [("fix_gamma", "False"), ("axis", "0")];
        check_grad(BN, &kv, &inputs(&[3, 1, 7], 3, 6), true, &[]);
        // fix_gamma (the default): gamma does not act, and its gradient is zero.
        check_grad(BN, &[], &inputs(&[3, 2, 5], 2, 7), true, &[]);
        // Moving statistics as constants (use_global_stats, or inference); they get no
        // gradient, as MXNet's aux states.
        let kv = [("fix_gamma", "False"), ("use_global_stats", "True")];
        check_grad(BN, &kv, &inputs(&[3, 2, 5], 2, 8), true, &[3, 4]);
        check_grad(
            BN,
            &[("fix_gamma", "False")],
            &inputs(&[3, 2, 5], 2, 9),
            false,
            &[3, 4],
        );
    }

    #[test]
    fn fix_gamma_gives_a_zero_gradient_and_mean_var_heads_are_ignored() {
        let ins = inputs(&[3, 2, 5], 2, 10);
        let head = randn(&[3, 2, 5], 11);
        let g = analytic_grad(BN, &[], &ins, std::slice::from_ref(&head), true).unwrap();
        assert_eq!(g[1].as_ref().unwrap().data, vec![0.0, 0.0]);
        assert!(g[3].is_none() && g[4].is_none());
        // output_mean_var makes mean and var visible; as MXNet, their head gradients do
        // not reach the inputs.
        let kv = [("output_mean_var", "True"), ("fix_gamma", "False")];
        let heads = [head.clone(), randn(&[2], 12), randn(&[2], 13)];
        let with = analytic_grad(BN, &kv, &ins, &heads, true).unwrap();
        let without = analytic_grad(BN, &[("fix_gamma", "False")], &ins, &[head], true).unwrap();
        assert_eq!(with, without);
    }

    #[test]
    fn backward_operator_shapes_and_dtypes() {
        let (ins, outs) = infer("_backward_BatchNorm", &[], &[&[2, 3, 4]]).unwrap();
        assert_eq!(&ins[1..], &[vec![2, 3, 4], vec![3], vec![3], vec![3]]);
        assert_eq!(outs, vec![vec![2, 3, 4], vec![3], vec![3]]);
        let o = op("_backward_BatchNorm");
        let a = attrs(o, &[]);
        let mut ins = vec![Some(DType::F16), None, None, None, None];
        let mut outs = vec![None; 3];
        (o.infer_dtype)(&a, &mut ins, &mut outs).unwrap();
        assert_eq!(
            ins[1..],
            [
                Some(DType::F16),
                Some(DType::F32),
                Some(DType::F32),
                Some(DType::F32)
            ]
        );
        assert_eq!(
            outs,
            vec![Some(DType::F16), Some(DType::F32), Some(DType::F32)]
        );
    }

    /// The new moving statistics a training step computes, through the operator's
    /// `aux_update` on an eager graph.
    fn aux_update(kv: &[(&str, &str)], ins: &[Tensor]) -> Vec<Tensor> {
        let o = op(BN);
        let a = attrs(o, kv);
        let outs = run(BN, kv, ins, true).unwrap();
        let mut g = Eager {
            values: vec![],
            is_train: true,
        };
        let inputs: Vec<Handle> = ins.iter().map(|t| g.add(t.clone())).collect();
        let outputs: Vec<Handle> = outs.iter().map(|t| g.add(t.clone())).collect();
        let ctx = GradCtx {
            attrs: &a,
            raw_attrs: kv,
            inputs: &inputs,
            outputs: &outputs,
            out_grads: &[],
        };
        let new = (o.aux_update.unwrap())(&mut g, &ctx).unwrap();
        new.iter().map(|h| g.values[h.0].clone()).collect()
    }

    #[test]
    fn aux_update_blends_batch_statistics_into_the_moving_ones() {
        // Channel 0 holds {1, 3}: mean 2, biased variance 1; channel 1 {10, 30}: 20, 100.
        let ins = vec![
            t(&[2, 2], vec![1., 10., 3., 30.]),
            t(&[2], vec![1., 1.]),
            t(&[2], vec![0., 0.]),
            t(&[2], vec![0.5, -1.]),
            t(&[2], vec![2., 4.]),
        ];
        let new = aux_update(&[], &ins);
        // mean: 0.5·0.9 + 2·0.1, -1·0.9 + 20·0.1; var: 2·0.9 + 1·0.1, 4·0.9 + 100·0.1.
        assert_close(&new[0].data, &[0.65, 1.1], 1e-14);
        assert_close(&new[1].data, &[1.9, 13.6], 1e-12);
        let new = aux_update(&[("momentum", "0.5"), ("eps", "0.25")], &ins);
        assert_close(&new[0].data, &[1.25, 9.5], 1e-14);
        assert_close(&new[1].data, &[1.5, 52.], 1e-12);
        // use_global_stats leaves them as they are.
        let new = aux_update(&[("use_global_stats", "True")], &ins);
        assert_eq!((&new[0], &new[1]), (&ins[3], &ins[4]));
    }

    #[test]
    fn the_native_kernels_compute_what_the_references_compute() {
        // Four channels along axis 1 and along the last axis.
        let x = randn(&[3, 4, 5, 4], 1);
        let (gamma, beta) = (randn(&[4], 2), randn(&[4], 3));
        let (mm, mv) = (randn(&[4], 4), t(&[4], vec![0.5, 1.0, 1.5, 2.0]));
        let ins = [x.clone(), gamma.clone(), beta, mm, mv];
        for (kv, train) in [
            (&[("fix_gamma", "False")][..], true),
            (&[("fix_gamma", "True"), ("eps", "0.01")][..], true),
            (&[("fix_gamma", "False")][..], false),
            (
                &[("fix_gamma", "False"), ("use_global_stats", "True")][..],
                true,
            ),
            (&[("fix_gamma", "False"), ("axis", "-1")][..], true),
        ] {
            check_native(BN, kv, &ins, train, 1e-5);
            let refs: Vec<&Tensor> = ins.iter().collect();
            let fwd = run(BN, kv, &refs, train).unwrap();
            let og = randn(&x.shape, 5);
            let back = [og, x.clone(), gamma.clone(), fwd[1].clone(), fwd[2].clone()];
            check_native("_backward_BatchNorm", kv, &back, train, 1e-5);
        }
        // More channels and planes than tasks: blocks of several, the last shorter.
        let x = randn(&[2, 37, 3], 6);
        let mut ins = vec![x.clone(), randn(&[37], 7), randn(&[37], 8), randn(&[37], 9)];
        ins.push(t(&[37], vec![1.5; 37]));
        let kv = [("fix_gamma", "False")];
        check_native(BN, &kv, &ins, true, 1e-5);
        let fwd = run(BN, &kv, &ins, true).unwrap();
        let back = [
            randn(&x.shape, 10),
            x,
            ins[1].clone(),
            fwd[1].clone(),
            fwd[2].clone(),
        ];
        check_native("_backward_BatchNorm", &kv, &back, true, 1e-5);
    }
}
