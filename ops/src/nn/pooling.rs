//! Pooling (max, avg, sum, lp) over 1 to 3 spatial dimensions, channel-first or last.

use super::common::{
    channel_last, channels_first, channels_last, dims3, elems, flops, from_ncx, rank_error,
    spatial, to_ncx, LAYOUTS, MAX_WINDOW,
};
use crate::param::{param, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::{Attrs, Compute, KernelCtx, OpDef, Pattern, Registry, Tensor};

const OP: &str = "Pooling";

static POOLING: OpDef = OpDef {
    aliases: &["_npx_pooling"],
    doc: "Pooling over 1 to 3 spatial dimensions. Output size per dimension: valid \
          floor((x+2p−k)/s)+1, full ceil((x+2p−k)/s)+1, same ceil(x/s) (1-D only). \
          Stride defaults to 1. Windows are clipped to the input; avg divides by the window \
          clipped to the padded input (count_include_pad, the default) or to the real input. \
          global_pool pools every spatial dimension to 1.",
    params: &[
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
    ],
    infer_shape: pool_shape,
    inplace: &[],
    cost: pool_cost,
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
    kernel: Vec<usize>,
    stride: Vec<usize>,
    pad: Vec<usize>,
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
                kernel: vec![],
                stride: vec![1; n],
                pad: vec![0; n],
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
        let w = Window {
            kernel: k.iter().map(|&x| x as usize).collect(),
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

/// Pooling in channel-first order, every case run as 3-D (missing leading spatial dims have
/// size 1).
fn pool_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let w = Window::new(a, ins[0].shape.len())?;
    let x = channels_first(ins[0], w.last);
    let out_shape = to_ncx(&ctx.out_shapes[0], w.last);
    let kernel = if w.kernel.is_empty() {
        x.shape[2..].to_vec() // global: the whole input
    } else {
        w.kernel.clone()
    };
    let (xd, od) = (dims3(&x.shape[2..], 1), dims3(&out_shape[2..], 1));
    let (k, s, p) = (dims3(&kernel, 1), dims3(&w.stride, 1), dims3(&w.pad, 0));
    let (x_plane, o_plane) = (xd.iter().product::<usize>(), od.iter().product::<usize>());
    let pool_type = a.str("pool_type");
    let p_value = a.opt_int("p_value").unwrap_or(1);
    let include_pad = a.opt_bool("count_include_pad").unwrap_or(true);
    let mut out = vec![0.0; x.shape[0] * x.shape[1] * o_plane];
    for plane in 0..x.shape[0] * x.shape[1] {
        let src = &x.data[plane * x_plane..(plane + 1) * x_plane];
        for (o, slot) in out[plane * o_plane..(plane + 1) * o_plane]
            .iter_mut()
            .enumerate()
        {
            let pos = [o / (od[1] * od[2]), o / od[2] % od[1], o % od[2]];
            let win: [_; 3] = std::array::from_fn(|i| window(pos[i], k[i], s[i], p[i], xd[i]));
            let mut acc = if pool_type == "max" {
                f64::NEG_INFINITY // an empty window (all padding) stays at the lowest value
            } else {
                0.0
            };
            for z in win[0].0..win[0].1 {
                for y in win[1].0..win[1].1 {
                    for v in &src[(z * xd[1] + y) * xd[2]..][win[2].0..win[2].1] {
                        acc = match pool_type {
                            "max" if *v > acc => *v,
                            "max" => acc,
                            "lp" => acc + v.powi(p_value as i32),
                            _ => acc + v, // avg, sum
                        };
                    }
                }
            }
            let real: usize = win.iter().map(|(lo, hi, _)| hi - lo).product();
            let padded: usize = win.iter().map(|w| w.2).product();
            *slot = match pool_type {
                "avg" if include_pad => acc / padded as f64,
                "avg" => acc / real as f64,
                "lp" if p_value == 2 => acc.sqrt(),
                "lp" if p_value == 3 => acc.cbrt(),
                _ => acc, // max, sum, lp with p = 1
            };
        }
    }
    let out = Tensor {
        dtype: x.dtype,
        shape: out_shape,
        data: out,
    };
    Ok(vec![channels_last(out, w.last)])
}

pub fn register(r: &mut Registry) {
    r.add(&POOLING);
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
}
