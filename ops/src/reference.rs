//! The reference evaluation of any operator, derived from its [`Compute`]: scalar
//! expressions are evaluated per element with NumPy broadcasting, index maps are followed,
//! reductions are folded; library operators run their naive reference kernel. Outputs are
//! rounded to their storage dtype.

use crate::def::{Compute, KernelCtx, OpDef};
use crate::shape::{fmt_shape, invalid, OpError};
use crate::tensor::{for_each_index, reserve_values, strides};
use crate::Tensor;

/// Runs `op` on `inputs`; `ctx.out_shapes`/`out_dtypes` come from inference.
pub fn evaluate(op: &OpDef, ctx: &KernelCtx, inputs: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    if let Some(s) = ctx.out_shapes.iter().find(|s| !crate::shape::is_known(s)) {
        return invalid(format!(
            "{}: output shape {} is not fully inferred",
            op.name,
            fmt_shape(s)
        ));
    }
    let mut outs = match op.compute {
        Compute::Scalar(expr) => vec![scalar(&expr(ctx.attrs), ctx, inputs)?],
        Compute::Injective(map) => {
            let in_shapes: Vec<_> = inputs.iter().map(|t| t.shape.clone()).collect();
            (0..ctx.out_shapes.len())
                .map(|k| {
                    injective(
                        &map(ctx.attrs, &in_shapes, ctx.out_shapes, k)?,
                        k,
                        ctx,
                        inputs,
                    )
                })
                .collect::<Result<_, _>>()?
        }
        Compute::Reduce(reduction) => {
            let r = reduction(ctx.attrs, &inputs[0].shape, &ctx.out_shapes[0])?;
            vec![reduce(&r, ctx, inputs[0])]
        }
        Compute::Library { reference, .. } => {
            // Library kernels allocate their outputs themselves, infallibly. Their sizes
            // come from the user's shapes: reserving as much first, fallibly, makes memory
            // the machine cannot give an error rather than an abort.
            for s in ctx.out_shapes {
                drop(reserve_values(s)?);
            }
            reference(ctx, inputs)?
        }
    };
    for (i, t) in outs.iter_mut().enumerate() {
        if let Some(&d) = ctx.out_dtypes.get(i) {
            t.dtype = d;
        }
        let dtype = t.dtype;
        t.data.iter_mut().for_each(|v| *v = dtype.round(*v));
    }
    Ok(outs)
}

/// For each input, the strides to use when walking the output: 0 along broadcast axes.
fn broadcast_strides(input: &[usize], out: &[usize]) -> Result<Vec<usize>, OpError> {
    if input.len() > out.len() {
        return invalid(format!(
            "cannot broadcast {} to {}",
            fmt_shape(input),
            fmt_shape(out)
        ));
    }
    let st = strides(input);
    let lead = out.len() - input.len();
    (0..out.len())
        .map(|a| {
            if a < lead {
                return Ok(0);
            }
            match (input[a - lead], out[a]) {
                (d, o) if d == o => Ok(st[a - lead]),
                (1, _) => Ok(0),
                _ => invalid(format!(
                    "cannot broadcast {} to {}",
                    fmt_shape(input),
                    fmt_shape(out)
                )),
            }
        })
        .collect()
}

fn scalar(expr: &crate::Expr, ctx: &KernelCtx, inputs: &[&Tensor]) -> Result<Tensor, OpError> {
    let out_shape = ctx.out_shapes[0].clone();
    let n: usize = out_shape.iter().product();
    let mut data = reserve_values(&out_shape)?;
    let mut args = vec![0.0; inputs.len()];
    if inputs.iter().all(|t| t.shape == out_shape) {
        for i in 0..n {
            inputs
                .iter()
                .zip(&mut args)
                .for_each(|(t, a)| *a = t.data[i]);
            data.push(expr.eval(&args));
        }
    } else {
        let st: Vec<Vec<usize>> = inputs
            .iter()
            .map(|t| broadcast_strides(&t.shape, &out_shape))
            .collect::<Result<_, _>>()?;
        for_each_index(&out_shape, |idx| {
            for ((t, s), a) in inputs.iter().zip(&st).zip(&mut args) {
                *a = t.data[idx.iter().zip(s).map(|(i, s)| i * s).sum::<usize>()];
            }
            data.push(expr.eval(&args));
        });
    }
    Ok(Tensor {
        dtype: ctx.out_dtypes[0],
        shape: out_shape,
        data,
    })
}

fn injective(
    map: &crate::IndexMap,
    k: usize,
    ctx: &KernelCtx,
    inputs: &[&Tensor],
) -> Result<Tensor, OpError> {
    let out_shape = ctx.out_shapes[k].clone();
    let mut data = reserve_values(&out_shape)?;
    let mut err = None;
    for_each_index(&out_shape, |idx| {
        let v = map.locate(idx).and_then(|(i, coords)| {
            let t = inputs.get(i)?;
            let mut lin = 0usize;
            for ((&c, &d), s) in coords.iter().zip(&t.shape).zip(t.strides()) {
                if c < 0 || c as usize >= d {
                    return None;
                }
                lin += c as usize * s;
            }
            Some(t.data[lin])
        });
        match v {
            Some(v) => data.push(v),
            None => {
                err.get_or_insert(format!(
                    "index map reads outside the input at output {idx:?}"
                ));
                data.push(f64::NAN);
            }
        }
    });
    if let Some(e) = err {
        return invalid(e);
    }
    Ok(Tensor {
        dtype: ctx.out_dtypes[k],
        shape: out_shape,
        data,
    })
}

fn reduce(r: &crate::Reduction, ctx: &KernelCtx, input: &Tensor) -> Tensor {
    let out_shape = ctx.out_shapes[0].clone();
    // The output coordinate of each input coordinate: reduced axes dropped (or zeroed).
    let kept: Vec<usize> = (0..input.shape.len())
        .filter(|a| !r.axes.contains(a))
        .collect();
    let kept_shape: Vec<usize> = kept.iter().map(|&a| input.shape[a]).collect();
    let kept_strides = strides(&kept_shape);
    let n_out = kept_shape.iter().product::<usize>().max(1);
    let mut acc = vec![r.combiner.identity(); n_out];
    let count: usize = r.axes.iter().map(|&a| input.shape[a]).product();
    let mut pos = 0;
    for_each_index(&input.shape, |idx| {
        let o: usize = kept
            .iter()
            .zip(&kept_strides)
            .map(|(&a, s)| idx[a] * s)
            .sum();
        acc[o] = r.combiner.combine(acc[o], r.pre.eval(&[input.data[pos]]));
        pos += 1;
    });
    let data: Vec<f64> = acc
        .iter()
        .map(|&a| r.post.eval(&[a, count as f64]))
        .collect();
    // Kept and dropped reduced axes give the same row-major order: one loop serves both.
    Tensor {
        dtype: ctx.out_dtypes[0],
        shape: out_shape,
        data,
    }
}
