//! LRN: local response normalization across channels (AlexNet). Its gradient is the
//! backward operator `_backward_LRN` (as MXNet), which reuses the forward's hidden
//! normalizer.

use std::ops::Range;
use std::sync::Mutex;

use super::common::{all_grads, elems, flops, positive, rank_error, Through};
use crate::def::PerSample;
use crate::native::{no_scratch, serial, Native, ParallelFor, Real};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{invalid, same_shape, OpError, Shape};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs, Pattern,
    Registry, Tensor,
};

const OP: &str = "LRN";

const LRN_PARAMS: &[ParamDef] = &[
    param(
        "alpha",
        ParamType::Float,
        Some("0.0001"),
        "scale of the sum of squares",
    ),
    param(
        "beta",
        ParamType::Float,
        Some("0.75"),
        "exponent of the normalizer",
    ),
    param("knorm", ParamType::Float, Some("2.0"), "additive constant"),
    param(
        "nsize",
        ParamType::Int,
        None,
        "channels in the window (odd in practice)",
    ),
];

static LRN: OpDef = OpDef {
    per_sample: PerSample::Always,
    doc: "Local response normalization across channels of NCHW data: \
          `tmp_norm_c = knorm + alpha/nsize · Σ_{|j−c| ≤ nsize/2} x_j²`, \
          `out_c = x_c · tmp_norm_c^(−beta)`; the window is clipped at the first and last \
          channel, and tmp_norm is a hidden output.",
    params: LRN_PARAMS,
    outputs: Outputs::Fixed {
        names: &["output", "tmp_norm"],
        visible: 1,
    },
    infer_shape: lrn_shape,
    inplace: &[],
    cost: lrn_cost,
    grad: Grad::Rule(lrn_grad),
    native: Some(LRN_NATIVE),
    ..OpDef::new(
        OP,
        Pattern::Opaque,
        Compute::Library {
            kernel: "lrn",
            reference: lrn_ref,
        },
    )
};

fn lrn_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    positive(a, OP, "nsize")?;
    same_shape(a, ins, outs)?;
    if !ins[0].is_empty() && ins[0].len() != 4 {
        return rank_error(OP, "data", "4-D (batch, channel, y, x)", &ins[0]);
    }
    Ok(())
}

fn lrn_cost(a: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    let window = (a.int("nsize").max(1) as u64).saturating_mul(2);
    flops(&[elems(&ins[0]), window.saturating_add(3)])
}

/// LRN's parameters, resolved.
struct Lrn {
    half: usize,
    /// alpha/nsize.
    salpha: f64,
    knorm: f64,
    beta: f64,
}

impl Lrn {
    fn new(a: &Attrs) -> Result<Lrn, OpError> {
        let nsize = positive(a, OP, "nsize")?;
        Ok(Lrn {
            half: nsize / 2,
            salpha: a.float("alpha") / nsize as f64,
            knorm: a.float("knorm"),
            beta: a.float("beta"),
        })
    }

    /// The channels of channel `ch`'s window, clipped to `c` channels.
    fn window(&self, ch: usize, c: usize) -> Range<usize> {
        ch.saturating_sub(self.half)..ch.saturating_add(self.half + 1).min(c)
    }
}

/// Tasks a call splits into at least (where there are as many pixels).
const TASKS: usize = 16;
/// Pixels of one task at most, so its f64 buffers (one row per channel) stay small.
const MAX_BLOCK: usize = 512;

/// NCHW data cut into tasks of one image's block of consecutive pixels, all channels: the
/// windows run across channels, so a task has all it reads, and a batch of one still
/// splits.
struct Tiles {
    n: usize,
    c: usize,
    inner: usize,
    /// Pixels per task (the image's last task may have fewer).
    block: usize,
    /// Tasks per image.
    per_image: usize,
}

impl Tiles {
    fn new(shape: &[usize]) -> Tiles {
        let (n, c) = (shape[0], shape[1]);
        let inner = shape[2..].iter().product::<usize>();
        let block = inner.div_ceil(TASKS.div_ceil(n.max(1))).clamp(1, MAX_BLOCK);
        let per_image = inner.div_ceil(block);
        Tiles {
            n,
            c,
            inner,
            block,
            per_image,
        }
    }

    /// Task `t`'s pixels.
    fn pixels(&self, t: usize) -> Range<usize> {
        let start = t % self.per_image * self.block;
        start..(start + self.block).min(self.inner)
    }

    /// Channel `ch` of task `t`'s pixels in `data`.
    fn row<'a, T>(&self, data: &'a [T], t: usize, ch: usize) -> &'a [T] {
        let first = (t / self.per_image * self.c + ch) * self.inner;
        let pixels = self.pixels(t);
        &data[first + pixels.start..first + pixels.end]
    }

    /// `buf` cut into the tasks' disjoint parts, one slice per channel (`row`'s).
    fn split<'a, T>(&self, buf: &'a mut [T]) -> Vec<Vec<&'a mut [T]>> {
        let mut parts: Vec<Vec<&mut [T]>> = (0..self.n * self.per_image)
            .map(|_| Vec::with_capacity(self.c))
            .collect();
        for (r, row) in buf.chunks_mut(self.inner.max(1)).enumerate() {
            let first = r / self.c * self.per_image;
            for (k, piece) in row.chunks_mut(self.block).enumerate() {
                parts[first + k].push(piece);
            }
        }
        parts
    }
}

fn lrn_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let x = ins[0];
    let (mut out, mut norm) = (x.clone(), x.clone());
    let outs = [&mut out.data[..], &mut norm.data];
    lrn_forward(&Lrn::new(ctx.attrs)?, &x.shape, &x.data, outs, &serial);
    Ok(vec![out, norm])
}

/// LRN of `x` (NCHW of `shape`) into `[out, tmp_norm]`, tasks over `parallel`: shared by
/// the reference (f64, serial) and the native kernel (f32). Each window's sum of squares
/// is summed afresh in f64 (nsize adds, as the reference): a running sum would lose a
/// small channel's square next to a huge one that has left the window.
fn lrn_forward<T: Real>(
    p: &Lrn,
    shape: &[usize],
    x: &[T],
    [out, norm]: [&mut [T]; 2],
    parallel: ParallelFor,
) {
    let tiles = Tiles::new(shape);
    let c = tiles.c;
    let parts: Vec<Mutex<_>> = tiles
        .split(out)
        .into_iter()
        .zip(tiles.split(norm))
        .map(Mutex::new)
        .collect();
    parallel(parts.len(), &|t| {
        let mut guard = parts[t].lock().unwrap_or_else(|e| e.into_inner());
        let (out, norm) = &mut *guard;
        let mut sums = vec![0.0; tiles.block];
        for ch in 0..c {
            sums.fill(0.0);
            for j in p.window(ch, c) {
                for (s, v) in sums.iter_mut().zip(tiles.row(x, t, j)) {
                    *s += v.to_f64().powi(2);
                }
            }
            let row = out[ch].iter_mut().zip(&mut *norm[ch]);
            for (((o, n), v), s) in row.zip(tiles.row(x, t, ch)).zip(&sums) {
                let nv = p.knorm + p.salpha * s;
                *n = T::from_f64(nv);
                *o = T::from_f64(v.to_f64() * nv.powf(-p.beta));
            }
        }
    });
}

fn lrn_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[0], ctx.outputs[1]];
    all_grads(g, ctx, "_backward_LRN", &args)
}

static LRN_BACKWARD: OpDef = OpDef {
    doc: "Gradient of LRN, from ograd, data and the forward's hidden tmp_norm N: \
          `dx_i = g_i·N_i^(−beta) − 2·beta·alpha/nsize·x_i·Σ_{c: |c−i| ≤ nsize/2} g_c·x_c·N_c^(−beta−1)`. \
          Takes the forward's parameters.",
    params: LRN_PARAMS,
    inputs: Inputs::Fixed(&["ograd", "data", "tmp_norm"]),
    outputs: Outputs::Fixed {
        names: &["data_grad"],
        visible: 1,
    },
    infer_shape: |a, ins, outs| {
        let through = Through {
            inputs: &[Some(1)],
            outputs: &[&[0], &[2]],
            grads: &[0],
        };
        through.shapes(lrn_shape, a, ins, outs)
    },
    inplace: &[],
    cost: |a, ins, outs| lrn_cost(a, ins, outs).saturating_mul(2),
    grad: Grad::NotDifferentiable,
    native: Some(LRN_BACKWARD_NATIVE),
    ..OpDef::new(
        "_backward_LRN",
        Pattern::Opaque,
        Compute::Library {
            kernel: "lrn_backward",
            reference: lrn_backward_ref,
        },
    )
};

fn lrn_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let x = ins[1];
    let mut dx = x.clone();
    let ins = [&ins[0].data[..], &x.data, &ins[2].data];
    lrn_backward(&Lrn::new(ctx.attrs)?, &x.shape, ins, &mut dx.data, &serial);
    Ok(vec![dx])
}

/// LRN's gradient into `dx` from `[ograd, data, tmp_norm]` (NCHW of `shape`), tasks over
/// `parallel`: shared by the reference (f64, serial) and the native kernel (f32).
fn lrn_backward<T: Real>(
    p: &Lrn,
    shape: &[usize],
    [og, x, norm]: [&[T]; 3],
    dx: &mut [T],
    parallel: ParallelFor,
) {
    let tiles = Tiles::new(shape);
    let c = tiles.c;
    let parts: Vec<Mutex<_>> = tiles.split(dx).into_iter().map(Mutex::new).collect();
    parallel(parts.len(), &|t| {
        let mut dx = parts[t].lock().unwrap_or_else(|e| e.into_inner());
        let len = tiles.pixels(t).len();
        // Ograd, data and tmp_norm of channel j at these pixels.
        let values = |j| {
            let (g, xs, ns) = (
                tiles.row(og, t, j),
                tiles.row(x, t, j),
                tiles.row(norm, t, j),
            );
            (g.iter().zip(xs).zip(ns)).map(|((g, x), n)| (g.to_f64(), x.to_f64(), n.to_f64()))
        };
        // g_c·x_c·N_c^(−beta−1) of every channel at these pixels, by channel: each is in
        // nsize windows.
        let mut through = Vec::with_capacity(c * len);
        for j in 0..c {
            through.extend(values(j).map(|(g, x, n)| g * x * n.powf(-p.beta - 1.0)));
        }
        let mut cross = vec![0.0; len];
        for ch in 0..c {
            cross.fill(0.0);
            // The windows are symmetric: channel ch is in c's window iff c is in ch's.
            for j in p.window(ch, c) {
                for (s, v) in cross.iter_mut().zip(&through[j * len..]) {
                    *s += v;
                }
            }
            for (d, ((g, x, n), s)) in dx[ch].iter_mut().zip(values(ch).zip(&cross)) {
                *d = T::from_f64(g * n.powf(-p.beta) - 2.0 * p.beta * p.salpha * x * s);
            }
        }
    });
}

/// LRN's native kernels: 4-D data, every parameter.
const LRN_NATIVE: Native = Native {
    supports: |_, shapes| matches!(shapes, [x] if x.len() == 4),
    scratch: no_scratch,
    run: |ctx, io| match io.outputs {
        [out, norm] => {
            let p = Lrn::new(ctx.attrs)?;
            lrn_forward(&p, &io.in_shapes[0], io.inputs[0], [out, norm], io.parallel);
            Ok(())
        }
        _ => invalid(format!("{OP}: two outputs expected")),
    },
};
const LRN_BACKWARD_NATIVE: Native = Native {
    supports: |_, shapes| matches!(shapes, [og, x, n] if x.len() == 4 && og == x && n == x),
    scratch: no_scratch,
    run: |ctx, io| {
        let ins = [io.inputs[0], io.inputs[1], io.inputs[2]];
        let p = Lrn::new(ctx.attrs)?;
        lrn_backward(&p, &io.in_shapes[1], ins, io.outputs[0], io.parallel);
        Ok(())
    },
};

pub fn register(r: &mut Registry) {
    r.add(&LRN);
    r.add(&LRN_BACKWARD);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;

    #[test]
    fn shapes_and_errors() {
        let (_, outs) = infer("LRN", &[("nsize", "5")], &[&[2, 8, 3, 3]]).unwrap();
        assert_eq!(outs, vec![vec![2, 8, 3, 3]; 2]);
        assert_eq!(
            infer_err("LRN", &[("nsize", "5")], &[&[2, 8]]),
            "LRN: `data` must be 4-D (batch, channel, y, x), got shape (2, 8)"
        );
        assert_eq!(
            infer_err("LRN", &[("nsize", "0")], &[&[2, 8, 1, 1]]),
            "LRN: `nsize` must be positive, got 0"
        );
    }

    #[test]
    fn normalizes_across_a_clipped_channel_window() {
        // alpha/nsize = 1, beta = 1, knorm = 1: norms 1+1+4, 1+1+4+9, 1+4+9.
        let x = t(&[1, 3, 1, 1], vec![1., 2., 3.]);
        let kv = [
            ("nsize", "3"),
            ("alpha", "3"),
            ("beta", "1"),
            ("knorm", "1"),
        ];
        let out = run("LRN", &kv, &[&x], false).unwrap();
        assert_close(&out[1].data, &[6., 15., 14.], 1e-15);
        assert_close(&out[0].data, &[1. / 6., 2. / 15., 3. / 14.], 1e-15);
        // Defaults (alpha 1e-4, beta 0.75, knorm 2) with a window of one channel.
        let out = run("LRN", &[("nsize", "1")], &[x], false).unwrap();
        let want: Vec<f64> = [1f64, 2., 3.]
            .iter()
            .map(|v| v * (2.0 + 1e-4 * v * v).powf(-0.75))
            .collect();
        assert_close(&out[0].data, &want, 1e-15);
    }

    #[test]
    fn windows_stay_within_one_pixel() {
        // Two pixels: the sum of squares never mixes spatial positions or batch items.
        let x = t(&[2, 2, 1, 2], vec![1., 10., 2., 20., 3., 30., 4., 40.]);
        let kv = [
            ("nsize", "3"),
            ("alpha", "3"),
            ("beta", "1"),
            ("knorm", "0"),
        ];
        let out = run("LRN", &kv, &[x], false).unwrap();
        assert_close(
            &out[1].data,
            &[5., 500., 5., 500., 25., 2500., 25., 2500.],
            1e-15,
        );
    }

    #[test]
    fn gradients_match_finite_differences() {
        // Windows of 1, 3 and 5 channels (clipped at both ends), a large alpha so the
        // normalizer matters, batch 1 and odd spatial sizes.
        for nsize in ["1", "3", "5"] {
            let kv = [
                ("nsize", nsize),
                ("alpha", "2"),
                ("beta", "0.6"),
                ("knorm", "1.5"),
            ];
            check_grad("LRN", &kv, &[randn(&[2, 4, 3, 1], 1)], false, &[]);
        }
        check_grad(
            "LRN",
            &[("nsize", "3")],
            &[randn(&[1, 7, 1, 3], 2)],
            false,
            &[],
        );
    }

    #[test]
    fn the_native_kernels_compute_what_the_references_compute() {
        // Fewer channels than the window, one image split into pixel blocks (the last
        // shorter), one pixel per image, and images split at MAX_BLOCK.
        let shapes: [&[usize]; 4] = [
            &[2, 4, 3, 5],
            &[1, 2, 7, 9],
            &[17, 7, 1, 1],
            &[16, 3, 1, 600],
        ];
        for (seed, shape) in (1..).zip(shapes) {
            let x = randn(shape, seed);
            let og = randn(shape, seed + 10);
            for nsize in ["1", "3", "5"] {
                let kv = [
                    ("nsize", nsize),
                    ("alpha", "2"),
                    ("beta", "0.6"),
                    ("knorm", "1.5"),
                ];
                check_native("LRN", &kv, std::slice::from_ref(&x), false, 1e-6);
                let norm = run("LRN", &kv, &[&x], false).unwrap().remove(1);
                let back = [og.clone(), x.clone(), norm];
                check_native("_backward_LRN", &kv, &back, false, 1e-5);
            }
        }
    }
}
