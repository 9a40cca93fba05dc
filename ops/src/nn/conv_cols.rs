//! A convolution's data gradient in two steps, as MXNet's CPU convolution computes it:
//! the columns `Wᵀ·dY` (one product, no window) and their scatter back onto the input
//! (`col2im`).
//!
//! `_backward_Convolution` computes the data gradient as one contraction over filters and
//! taps for every input position, reading the output gradient through the transposed
//! window: the product it lowers to has as many rows as the input has positions, and
//! multiplies zeros wherever a tap reads outside the output gradient. Where the input is
//! larger than the output — a stride s > 1 (only one tap in s reads inside: 3 in 4 terms
//! are zeros for a 2-D stride of 2), or less padding than the kernel's reach (LeNet's
//! unpadded 5x5 on 12x12: 144 rows for 64 outputs) — the columns take exactly the
//! forward's multiply-adds, and col2im only adds. `_backward_Convolution` expands to them
//! (with itself for the weight and bias gradients) there, for channel-first layouts,
//! where the compiler expands the backward pass; the reference interpreter keeps the one
//! operator.

use super::common::{dims3, elems, flops, rank_error};
use super::conv::{sum_of, tap, transposed_window, Geometry};
use crate::contraction::{Contraction, Read};
use crate::native::{for_blocks, no_scratch, Native};
use crate::shape::{fmt_shape, invalid, set_out, OpError, Shape};
use crate::{x, Combiner, IndexExpr};
use crate::{
    Attrs, Compute, ExpandCtx, Grad, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs, Pattern,
    Registry, Tensor,
};

const COLS: &str = "_backward_Convolution_cols";
const COL2IM: &str = "_backward_Convolution_col2im";

/// `_backward_Convolution` (ograd, data, weight) with its data gradient through columns;
/// declines for channel-last layouts, and unless the input is larger than the output
/// along some axis and smaller along none (the one product then multiplies no zeros, or
/// columns would multiply more).
pub(super) fn expand_backward(
    g: &mut dyn GradGraph,
    a: &Attrs,
    ins: &[Handle],
    _: &ExpandCtx,
) -> Result<Vec<Handle>, OpError> {
    let geometry = Geometry::parse(a, "Convolution")?;
    // Along axis d, with stride 1, the output is the input plus twice the padding less
    // the kernel's reach.
    let reach = |d: usize| geometry.dilate[d] * (geometry.kernel[d] - 1);
    let shrinks = |d: usize| geometry.stride[d] > 1 || reach(d) > 2 * geometry.pad[d];
    let grows = |d: usize| geometry.stride[d] == 1 && reach(d) < 2 * geometry.pad[d];
    let axes = 0..geometry.kernel.len();
    if geometry.last || !axes.clone().any(shrinks) || axes.clone().any(grows) {
        return invalid("_backward_Convolution: the input is not larger than the output; kept");
    }
    let owned = a.to_mxnet_strings();
    let kv: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let [ograd, data, weight] = [ins[0], ins[1], ins[2]];
    let mut grads = g.op("_backward_Convolution", &[ograd, data, weight], &kv)?;
    let cols = g.op(COLS, &[ograd, weight], &kv)?[0];
    grads[0] = g.op(COL2IM, &[cols, data], &kv)?[0];
    Ok(grads)
}

/// The convolution's geometry, channel-first only.
fn geometry(a: &Attrs, op: &str) -> Result<Geometry, OpError> {
    let g = Geometry::parse(a, "Convolution")?;
    if g.last {
        return invalid(format!("{op}: channel-last layouts are not supported"));
    }
    Ok(g)
}

/// Columns (n, C, k..., o...) from ograd (n, F, o...) and weight (F, C/g, k...).
fn cols_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let g = geometry(a, COLS)?;
    let rank = g.kernel.len() + 2;
    for (i, name) in [(0, "ograd"), (1, "weight")] {
        if !ins[i].is_empty() && ins[i].len() != rank {
            return rank_error(COLS, name, &format!("{rank}-D"), &ins[i]);
        }
    }
    let (og, w) = (&ins[0], &ins[1]);
    if og.is_empty() || w.is_empty() {
        return Ok(());
    }
    if og[1] != g.filters || w[0] != g.filters || w[2..] != g.kernel[..] {
        return invalid(format!(
            "{COLS}: ograd {} and weight {} do not fit num_filter {} and kernel {:?}",
            fmt_shape(og),
            fmt_shape(w),
            g.filters,
            g.kernel
        ));
    }
    let mut cols = vec![og[0], w[1] * g.groups];
    cols.extend_from_slice(&g.kernel);
    cols.extend_from_slice(&og[2..]);
    set_out(outs, 0, &cols)
}

/// cols (n, c, t..., o...) sums, over the filters f of c's group, ograd (n, f, o...) ·
/// weight (f, c mod C/g, t...): a product with no window.
fn cols_contraction(
    a: &Attrs,
    ins: &[Shape],
    outs: &[Shape],
    _: usize,
) -> Result<Contraction, OpError> {
    let g = geometry(a, COLS)?;
    let spatial = g.kernel.len();
    let rank = outs[0].len();
    let out = IndexExpr::Out;
    let red = IndexExpr::Out(rank);
    let cg = ins[1][1] as i64;
    let fg = (g.filters / g.groups) as i64;
    let f = (out(1) / cg) * fg + red;
    let og = [out(0), f.clone()]
        .into_iter()
        .chain((0..spatial).map(|d| out(2 + spatial + d)))
        .collect();
    let w = [f, out(1) % cg]
        .into_iter()
        .chain((0..spatial).map(|d| out(2 + d)))
        .collect();
    let read = |input, coords| Read {
        input,
        coords,
        padding: None,
    };
    Ok(sum_of(vec![fg as usize], vec![read(0, og), read(1, w)]))
}

fn cols_cost(a: &Attrs, _: &[Shape], outs: &[Shape]) -> u64 {
    let fg = Geometry::parse(a, "Convolution").map_or(0, |g| g.filters / g.groups);
    flops(&[2, elems(&outs[0]), fg as u64])
}

fn cols_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let g = geometry(ctx.attrs, COLS)?;
    let (og, w) = (ins[0], ins[1]);
    let shape = &ctx.out_shapes[0];
    let (n, c, cg) = (shape[0], shape[1], w.shape[1]);
    let fg = g.filters / g.groups;
    let taps: usize = g.kernel.iter().product();
    let o_plane: usize = og.shape[2..].iter().product();
    let mut cols = vec![0.0; shape.iter().product()];
    for b in 0..n {
        for ci in 0..c {
            for t in 0..taps {
                let row = ((b * c + ci) * taps + t) * o_plane;
                for fi in (ci / cg) * fg..(ci / cg + 1) * fg {
                    let wv = w.data[(fi * cg + ci % cg) * taps + t];
                    let og_row = (b * g.filters + fi) * o_plane;
                    for o in 0..o_plane {
                        cols[row + o] += wv * og.data[og_row + o];
                    }
                }
            }
        }
    }
    Ok(vec![Tensor {
        dtype: og.dtype,
        shape: shape.clone(),
        data: cols,
    }])
}

/// The data gradient, shaped as data, from columns (n, C, k..., o...).
fn col2im_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let g = geometry(a, COL2IM)?;
    let spatial = g.kernel.len();
    let (cols, data) = (&ins[0], &ins[1]);
    if !cols.is_empty() && cols.len() != 2 + 2 * spatial {
        return rank_error(COL2IM, "cols", &format!("{}-D", 2 + 2 * spatial), cols);
    }
    if data.is_empty() {
        return Ok(());
    }
    if data.len() != 2 + spatial {
        return rank_error(COL2IM, "data", &format!("{}-D", 2 + spatial), data);
    }
    if !cols.is_empty() {
        let mut want = vec![data[0], data[1]];
        want.extend_from_slice(&g.kernel);
        for d in 0..spatial {
            let padded = data[2 + d] + 2 * g.pad[d];
            want.push(padded.saturating_sub(g.dilated(d)) / g.stride[d] + 1);
        }
        if *cols != want {
            return invalid(format!(
                "{COL2IM}: cols {} do not fit data {} (expected {})",
                fmt_shape(cols),
                fmt_shape(data),
                fmt_shape(&want)
            ));
        }
    }
    set_out(outs, 0, &data.clone())
}

/// data_grad (n, c, i...) sums, over the taps t..., cols (n, c, t..., p...) at the output
/// position p with p·stride + t·dilate − pad = i (zero where the stride does not divide).
fn col2im_contraction(
    a: &Attrs,
    ins: &[Shape],
    outs: &[Shape],
    _: usize,
) -> Result<Contraction, OpError> {
    let g = geometry(a, COL2IM)?;
    let spatial = g.kernel.len();
    let rank = outs[0].len();
    let out = IndexExpr::Out;
    let red = |d: usize| IndexExpr::Out(rank + d);
    let coords = [out(0), out(1)]
        .into_iter()
        .chain((0..spatial).map(red))
        .chain((0..spatial).map(|d| {
            let len = ins[0][2 + spatial + d];
            transposed_window(&g, &g.pad, d, len, out(2 + d), red(d))
        }))
        .collect();
    Ok(Contraction {
        combiner: Combiner::Sum,
        extents: g.kernel.to_vec(),
        reads: vec![Read {
            input: 0,
            coords,
            padding: Some(0.0),
        }],
        body: x(0),
        epilogue: vec![],
        post: x(0),
    })
}

fn col2im_cost(_: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    elems(&ins[0])
}

fn col2im_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let g = geometry(ctx.attrs, COL2IM)?;
    let (cols, data) = (ins[0], ins[1]);
    let spatial = g.kernel.len();
    let (xd, od) = (
        dims3(&data.shape[2..], 1),
        dims3(&cols.shape[2 + spatial..], 1),
    );
    let (k, s) = (dims3(&g.kernel, 1), dims3(&g.stride, 1));
    let (dl, p) = (dims3(&g.dilate, 1), dims3(&g.pad, 0));
    let (x_plane, o_plane) = (xd.iter().product::<usize>(), od.iter().product::<usize>());
    let taps = k.iter().product::<usize>();
    let at = |d: usize, o: usize, t: usize| tap(o, t, s[d], dl[d], p[d], xd[d]);
    let mut dx = vec![0.0; data.data.len()];
    for plane in 0..data.shape[0] * data.shape[1] {
        for t in 0..taps {
            let tap = [t / (k[1] * k[2]), t / k[2] % k[1], t % k[2]];
            let row = (plane * taps + t) * o_plane;
            for o in 0..o_plane {
                let pos = [o / (od[1] * od[2]), o / od[2] % od[1], o % od[2]];
                let (Some(z), Some(y), Some(xi)) = (
                    at(0, pos[0], tap[0]),
                    at(1, pos[1], tap[1]),
                    at(2, pos[2], tap[2]),
                ) else {
                    continue;
                };
                dx[plane * x_plane + (z * xd[1] + y) * xd[2] + xi] += cols.data[row + o];
            }
        }
    }
    Ok(vec![Tensor {
        dtype: data.dtype,
        shape: data.shape.clone(),
        data: dx,
    }])
}

/// The native col2im: for each (image, channel) plane, every column (a tap) added row by
/// row onto the zeroed plane — contiguous adds along a row for stride 1 — where the
/// compiled contraction gathers a tap at a time for each input element, dividing its
/// index back into coordinates.
const COL2IM_NATIVE: Native = Native {
    supports: |a, shapes| {
        let spatial = geometry(a, COL2IM).map_or(0, |g| g.kernel.len());
        (1..=3).contains(&spatial)
            && shapes.len() == 2
            && shapes[0].len() == 2 + 2 * spatial
            && shapes[1].len() == 2 + spatial
    },
    scratch: no_scratch,
    run: |ctx, io| {
        let g = geometry(ctx.attrs, COL2IM)?;
        let spatial = g.kernel.len();
        let (cols, data) = (&io.in_shapes[0], &io.in_shapes[1]);
        let (xd, od) = (dims3(&data[2..], 1), dims3(&cols[2 + spatial..], 1));
        let (k, s) = (dims3(&g.kernel, 1), dims3(&g.stride, 1));
        let (dl, p) = (dims3(&g.dilate, 1), dims3(&g.pad, 0));
        let (x_plane, o_plane) = (xd.iter().product::<usize>(), od.iter().product::<usize>());
        let taps = k.iter().product::<usize>();
        let cols = io.inputs[0];
        // Along the last axis, the outputs a tap reads inside the input: `ox` from `lo` to
        // `hi` reads input column ox·s + kx·dl − p.
        let inside = |kx: usize| {
            let start = kx * dl[2];
            let lo = p[2].saturating_sub(start).div_ceil(s[2]);
            let hi = (xd[2] + p[2])
                .saturating_sub(start)
                .div_ceil(s[2])
                .min(od[2]);
            (lo, hi.max(lo))
        };
        for_blocks(io.outputs[0], x_plane.max(1), io.parallel, &|plane, dx| {
            dx.fill(0.0);
            for t in 0..taps {
                let [kz, ky, kx] = [t / (k[1] * k[2]), t / k[2] % k[1], t % k[2]];
                let column = &cols[(plane * taps + t) * o_plane..][..o_plane];
                let (lo, hi) = inside(kx);
                if lo == hi {
                    continue;
                }
                for oz in 0..od[0] {
                    let z = tap(oz, kz, s[0], dl[0], p[0], xd[0]);
                    for oy in 0..od[1] {
                        let column = &column[(oz * od[1] + oy) * od[2]..][..od[2]];
                        let (Some(z), Some(y)) = (z, tap(oy, ky, s[1], dl[1], p[1], xd[1])) else {
                            continue;
                        };
                        let line = &mut dx[(z * xd[1] + y) * xd[2]..][..xd[2]];
                        let first = lo * s[2] + kx * dl[2] - p[2];
                        if s[2] == 1 {
                            let line = &mut line[first..first + hi - lo];
                            line.iter_mut()
                                .zip(&column[lo..hi])
                                .for_each(|(d, c)| *d += c);
                        } else {
                            let line = line[first..].iter_mut().step_by(s[2]);
                            line.zip(&column[lo..hi]).for_each(|(d, c)| *d += c);
                        }
                    }
                }
            }
        });
        Ok(())
    },
};

static COLUMNS: OpDef = OpDef {
    doc: "The columns of a strided convolution's data gradient: from ograd (n, F, o...) and \
          weight (F, C/num_group, k...), cols (n, C, k..., o...) = weightᵀ·ograd within each \
          group. Takes the convolution's parameters (channel-first layouts).",
    params: super::conv::CONV_PARAMS,
    inputs: Inputs::Fixed(&["ograd", "weight"]),
    outputs: Outputs::Fixed {
        names: &["cols"],
        visible: 1,
    },
    infer_shape: cols_shape,
    inplace: &[],
    cost: cols_cost,
    grad: Grad::NotDifferentiable,
    contraction: Some(cols_contraction),
    ..OpDef::new(
        COLS,
        Pattern::Opaque,
        Compute::Library {
            kernel: "conv_cols",
            reference: cols_ref,
        },
    )
};

static COL2IM_OP: OpDef = OpDef {
    doc: "A strided convolution's data gradient from its columns (n, C, k..., o...): each \
          column entry added at the input position its output position and tap read (col2im). \
          The second input, the convolution's data, gives the shape. Takes the convolution's \
          parameters (channel-first layouts).",
    params: super::conv::CONV_PARAMS,
    inputs: Inputs::Fixed(&["cols", "data"]),
    outputs: Outputs::Fixed {
        names: &["data_grad"],
        visible: 1,
    },
    infer_shape: col2im_shape,
    native: Some(COL2IM_NATIVE),
    inplace: &[],
    cost: col2im_cost,
    grad: Grad::NotDifferentiable,
    contraction: Some(col2im_contraction),
    ..OpDef::new(
        COL2IM,
        Pattern::Opaque,
        Compute::Library {
            kernel: "conv_col2im",
            reference: col2im_ref,
        },
    )
};

pub fn register(r: &mut Registry) {
    r.add(&COLUMNS);
    r.add(&COL2IM_OP);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::ExpandCtx;

    /// `_backward_Convolution`'s expansion against its reference (which loops over every
    /// (input, weight, output) triple), strided in every dimension count, padded, dilated,
    /// grouped, with and without bias, and unpadded with stride 1; each step's contraction
    /// against its reference; and the expansion declined where the output is as large.
    #[test]
    fn the_expansion_gives_the_convolution_gradients() {
        type Case = (&'static [usize], &'static [(&'static str, &'static str)]);
        let cases: &[Case] = &[
            (
                &[2, 3, 9, 8],
                &[
                    ("kernel", "(3, 3)"),
                    ("stride", "(2, 2)"),
                    ("pad", "(1, 1)"),
                    ("num_filter", "4"),
                ],
            ),
            (
                &[1, 2, 7, 7],
                &[
                    ("kernel", "(1, 1)"),
                    ("stride", "(2, 2)"),
                    ("num_filter", "3"),
                ],
            ),
            (
                &[1, 4, 11],
                &[
                    ("kernel", "(3,)"),
                    ("stride", "(3,)"),
                    ("dilate", "(2,)"),
                    ("num_filter", "2"),
                ],
            ),
            (
                &[1, 4, 6, 7],
                &[
                    ("kernel", "(2, 3)"),
                    ("stride", "(2, 1)"),
                    ("pad", "(0, 1)"),
                    ("num_group", "2"),
                    ("num_filter", "6"),
                    ("no_bias", "True"),
                ],
            ),
            (
                &[1, 2, 5, 4, 6],
                &[
                    ("kernel", "(1, 2, 2)"),
                    ("stride", "(1, 2, 2)"),
                    ("num_filter", "2"),
                ],
            ),
            // Unpadded, stride 1 (LeNet's second convolution, smaller).
            (&[2, 3, 8, 7], &[("kernel", "(5, 5)"), ("num_filter", "4")]),
        ];
        let backward = op("_backward_Convolution");
        let expand = backward.expand.expect("_backward_Convolution expands");
        let ctx = ExpandCtx {
            training: true,
            shapes: &[],
            dtypes: &[],
        };
        for &(data_shape, kv) in cases {
            let (ins, outs) = infer("Convolution", kv, &[data_shape]).unwrap();
            let (data, weight, ograd) = (randn(&ins[0], 1), randn(&ins[1], 2), randn(&outs[0], 3));
            let args = [ograd.clone(), data.clone(), weight.clone()];
            let want = run("_backward_Convolution", kv, &args, true).unwrap();
            let mut g = Eager {
                values: vec![],
                is_train: true,
            };
            let handles: Vec<_> = args.iter().map(|t| g.add(t.clone())).collect();
            let got = expand(&mut g, &attrs(backward, kv), &handles, &ctx).unwrap();
            assert_eq!(got.len(), want.len(), "{kv:?}");
            for (h, w) in got.iter().zip(&want) {
                assert_eq!(g.values[h.0].shape, w.shape, "{kv:?}");
                assert_close(&g.values[h.0].data, &w.data, 1e-12);
            }
            let cols = run("_backward_Convolution_cols", kv, &[&ograd, &weight], true).unwrap();
            check_contraction("_backward_Convolution_cols", kv, &[ograd, weight]);
            check_contraction(
                "_backward_Convolution_col2im",
                kv,
                &[cols[0].clone(), data.clone()],
            );
            check_native(
                "_backward_Convolution_col2im",
                kv,
                &[cols[0].clone(), data],
                true,
                1e-6,
            );
        }
        let mut g = Eager {
            values: vec![],
            is_train: true,
        };
        let handles: Vec<_> = (1..=3).map(|i| g.add(randn(&[1, 1, 3, 3], i))).collect();
        // The output as large as the input, or larger along one axis: kept.
        let same = [("kernel", "(3, 3)"), ("pad", "(1, 1)"), ("num_filter", "1")];
        let grows = [("kernel", "(3, 3)"), ("pad", "(2, 0)"), ("num_filter", "1")];
        let pointwise = [("kernel", "(1, 1)"), ("num_filter", "1")];
        for kv in [&same[..], &grows, &pointwise] {
            let declined = expand(&mut g, &attrs(backward, kv), &handles, &ctx);
            assert!(declined.is_err() && g.values.len() == 3, "{kv:?}");
        }
    }
}
