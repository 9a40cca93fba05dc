//! gather_nd and scatter_nd: `indices` (M, Y...) addresses the first M axes of the data
//! (gather_nd) or of the output (scatter_nd); each of its Y... columns names one slice of
//! the remaining axes. Their gradients: scatter_nd's is gather_nd of the head gradient;
//! gather_nd's is `_backward_gather_nd`, which adds the head gradient into zeros of the
//! data's shape (MXNet's `_backward_gather_nd`, which unlike its forward does not wrap
//! negative indices; kiln's does, so the gradient matches the forward).
//!
//! scatter_nd writes every slice in order, so with repeated indices the last one wins
//! (MXNet's CPU order); its gradient, gather_nd, still gives each of them the head
//! gradient, as MXNet's does.

use super::{first_dtype, output};
use crate::param::{param, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::tensor_ops::{apply, fmt_ints};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Pattern,
    Registry, Tensor,
};

static GATHER_ND: OpDef = OpDef {
    aliases: &["_npi_gather_nd", "_npx_gather_nd"],
    doc: "Gathers slices of `data`: with `indices` of shape (M, Y...), out[y...] = \
          data[indices[0, y...], ..., indices[M-1, y...]], of shape Y... followed by data's \
          axes after the first M. Indices are truncated to integers; a negative one counts \
          from the end, and one outside [-size, size - 1] is an error.",
    inputs: Inputs::Fixed(&["data", "indices"]),
    infer_shape: gather_nd_shape,
    infer_dtype: first_dtype,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(gather_nd_grad),
    ..OpDef::new(
        "gather_nd",
        Pattern::Opaque,
        Compute::Library {
            kernel: "gather_nd",
            reference: gather_nd_ref,
        },
    )
};

/// M, the number of addressed axes, once `indices`' rank is known (its first dimension
/// may still be unknown: 0).
fn addressed(op: &str, indices: &[usize], target: &[usize], what: &str) -> Result<usize, OpError> {
    if indices.len() < 2 {
        return invalid(format!(
            "{op}: indices {} must have at least 2 dimensions (M, Y...)",
            fmt_shape(indices)
        ));
    }
    if indices[0] > target.len() {
        return invalid(format!(
            "{op}: indices {} address {} axes but {what} {} has {}",
            fmt_shape(indices),
            indices[0],
            fmt_shape(target),
            target.len()
        ));
    }
    Ok(indices[0])
}

/// The gathered shape: indices' Y... then the target's axes after the first M.
fn sliced(indices: &[usize], target: &[usize], m: usize) -> Shape {
    [&indices[1..], &target[m..]].concat()
}

fn gather_nd_shape(_: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() || ins[1].is_empty() {
        return Ok(());
    }
    match addressed("gather_nd", &ins[1], &ins[0], "data")? {
        0 => Ok(()),
        m => set_out(outs, 0, &sliced(&ins[1], &ins[0], m)),
    }
}

/// The linear offset of each addressed slice of `target` (in units of the slice size),
/// one per column of `indices`; `resolve` maps an index value on an axis of size n.
fn offsets(
    op: &str,
    indices: &Tensor,
    (target, what): (&[usize], &str),
    resolve: fn(f64, usize) -> Option<usize>,
) -> Result<Vec<usize>, OpError> {
    let m = addressed(op, &indices.shape, target, what)?;
    let cols = indices.len() / m.max(1);
    (0..cols)
        .map(|col| {
            (0..m).try_fold(0usize, |acc, axis| {
                let (v, n) = (indices.data[axis * cols + col], target[axis]);
                match resolve(v, n) {
                    Some(j) => Ok(acc * n + j),
                    None => invalid(format!(
                        "{op}: index {v} is out of range for axis {axis} of size {n}"
                    )),
                }
            })
        })
        .collect()
}

/// gather_nd's indices: -n <= v <= n - 1 (on the value, as MXNet checks), negative from
/// the end, then truncated.
fn wrap_index(v: f64, n: usize) -> Option<usize> {
    let n = n as f64;
    (-n <= v && v <= n - 1.0).then_some((if v < 0.0 { v + n } else { v }) as usize)
}

/// scatter_nd's indices: truncated, then 0 <= i < n.
fn plain_index(v: f64, n: usize) -> Option<usize> {
    let i = v as i64;
    (0..n as i64).contains(&i).then_some(i as usize)
}

fn slice_len(target: &[usize], m: usize) -> usize {
    target[m..].iter().product()
}

fn gather_nd_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (data, indices) = (ins[0], ins[1]);
    let offsets = offsets("gather_nd", indices, (&data.shape, "data"), wrap_index)?;
    let len = slice_len(&data.shape, indices.shape[0]);
    let out: Vec<f64> = offsets
        .iter()
        .flat_map(|&o| data.data[o * len..(o + 1) * len].iter().copied())
        .collect();
    Ok(vec![output("gather_nd", ctx, 0, out)?])
}

fn gather_nd_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[1], ctx.inputs[0]];
    let grad = apply(g, "_backward_gather_nd", &args, &[])?;
    Ok(vec![Some(grad), None])
}

static BACKWARD_GATHER_ND: OpDef = OpDef {
    doc: "The gradient of gather_nd: each slice of `ograd` added into zeros of `data`'s \
          shape where gather_nd read it (data's values are not read).",
    inputs: Inputs::Fixed(&["ograd", "indices", "data"]),
    infer_shape: backward_gather_nd_shape,
    infer_dtype: first_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_gather_nd",
        Pattern::Opaque,
        Compute::Library {
            kernel: "gather_nd_backward",
            reference: backward_gather_nd_ref,
        },
    )
};

/// The output has data's shape; ograd has the shape gather_nd gives data and indices.
fn backward_gather_nd_shape(
    a: &Attrs,
    ins: &mut [Shape],
    outs: &mut [Shape],
) -> Result<(), OpError> {
    set_out(outs, 0, &ins[2].clone())?;
    set_in(ins, 2, &outs[0].clone())?;
    let mut gathered = vec![Shape::new()];
    gather_nd_shape(a, &mut [ins[2].clone(), ins[1].clone()], &mut gathered)?;
    set_in(ins, 0, &gathered[0])
}

fn backward_gather_nd_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (ograd, indices, shape) = (ins[0], ins[1], &ctx.out_shapes[0]);
    let offsets = offsets("_backward_gather_nd", indices, (shape, "data"), wrap_index)?;
    let len = slice_len(shape, indices.shape[0]);
    if ograd.len() != offsets.len() * len {
        return invalid(format!(
            "_backward_gather_nd: ograd {} does not match indices {} and data {}",
            fmt_shape(&ograd.shape),
            fmt_shape(&indices.shape),
            fmt_shape(shape)
        ));
    }
    let mut out = vec![0.0; shape.iter().product()];
    for (k, &o) in offsets.iter().enumerate() {
        for t in 0..len {
            out[o * len + t] += ograd.data[k * len + t];
        }
    }
    Ok(vec![output("_backward_gather_nd", ctx, 0, out)?])
}

static SCATTER_ND: OpDef = OpDef {
    doc: "Scatters slices of `data` into zeros of `shape`: with `indices` of shape (M, Y...), \
          out[indices[0, y...], ..., indices[M-1, y...]] = data[y...], where data has shape \
          Y... followed by shape's axes after the first M. Indices are truncated to \
          integers and must lie in [0, size); with repeats the last slice wins.",
    params: &[param(
        "shape",
        ParamType::Shape,
        None,
        "shape of the output",
    )],
    inputs: Inputs::Fixed(&["data", "indices"]),
    infer_shape: scatter_nd_shape,
    infer_dtype: first_dtype,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(scatter_nd_grad),
    ..OpDef::new(
        "scatter_nd",
        Pattern::Opaque,
        Compute::Library {
            kernel: "scatter_nd",
            reference: scatter_nd_ref,
        },
    )
};

fn out_shape(a: &Attrs) -> Result<Shape, OpError> {
    let dims = a.shape("shape");
    if dims.is_empty() || dims.iter().any(|&d| d < 1) {
        return invalid(format!(
            "scatter_nd: shape={} must have positive dimensions",
            fmt_ints(dims)
        ));
    }
    Ok(dims.iter().map(|&d| d as usize).collect())
}

/// The output has `shape`; data has the shape gather_nd would give it from the output.
fn scatter_nd_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let out = out_shape(a)?;
    set_out(outs, 0, &out)?;
    if ins[1].is_empty() {
        return Ok(());
    }
    match addressed("scatter_nd", &ins[1], &out, "shape")? {
        0 => Ok(()),
        m => set_in(ins, 0, &sliced(&ins[1], &out, m)),
    }
}

fn scatter_nd_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (data, indices, shape) = (ins[0], ins[1], &ctx.out_shapes[0]);
    let offsets = offsets("scatter_nd", indices, (shape, "shape"), plain_index)?;
    let len = slice_len(shape, indices.shape[0]);
    if data.len() != offsets.len() * len {
        return invalid(format!(
            "scatter_nd: data {} does not match indices {} and shape {}",
            fmt_shape(&data.shape),
            fmt_shape(&indices.shape),
            fmt_shape(shape)
        ));
    }
    let mut out = vec![0.0; shape.iter().product()];
    for (k, &o) in offsets.iter().enumerate() {
        out[o * len..(o + 1) * len].copy_from_slice(&data.data[k * len..(k + 1) * len]);
    }
    Ok(vec![output("scatter_nd", ctx, 0, out)?])
}

fn scatter_nd_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let grad = apply(g, "gather_nd", &[ctx.out_grads[0], ctx.inputs[1]], &[])?;
    Ok(vec![Some(grad), None])
}

pub fn register(r: &mut Registry) {
    for op in [&GATHER_ND, &BACKWARD_GATHER_ND, &SCATTER_ND] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{
        analytic_grad, check_grad, infer, infer_err, iota, message, randn, run, tensor,
    };
    use crate::Tensor;

    fn gather(data: Tensor, indices: Tensor) -> Result<Tensor, crate::OpError> {
        run("gather_nd", &[], &[data, indices], false).map(|mut o| o.remove(0))
    }

    #[test]
    fn gather_nd_follows_mxnet() {
        let d = iota(&[2, 2]);
        let out = gather(d.clone(), tensor(&[2, 3], &[1.0, 1.0, 0.0, 0.0, 1.0, 0.0])).unwrap();
        assert_eq!(out.data, [2.0, 3.0, 0.0]);
        let out = gather(d.clone(), tensor(&[1, 2], &[1.0, 0.0])).unwrap();
        assert_eq!(
            (out.shape, out.data),
            (vec![2, 2], vec![2.0, 3.0, 0.0, 1.0])
        );
        // Negative indices count from the end; values are checked, then truncated.
        let out = gather(d.clone(), tensor(&[2, 2], &[-1.0, 0.0, 0.0, -2.0])).unwrap();
        assert_eq!(out.data, [2.0, 0.0]);
        let out = gather(
            d.clone(),
            tensor(&[2, 3], &[0.9, -0.5, -1.5, 0.0, 0.0, 0.0]),
        )
        .unwrap();
        assert_eq!(out.data, [0.0, 2.0, 0.0]);
        assert_eq!(
            message(gather(d.clone(), tensor(&[2, 1], &[1.2, 0.0]))),
            "gather_nd: index 1.2 is out of range for axis 0 of size 2"
        );
        assert_eq!(
            message(gather(d, tensor(&[2, 1], &[0.0, -3.0]))),
            "gather_nd: index -3 is out of range for axis 1 of size 2"
        );
        // Indices (2, 1, 2) into (2, 3, 4): M = 2, Y = (1, 2), slices of 4.
        let idx = tensor(&[2, 1, 2], &[1.0, 0.0, 2.0, 1.0]);
        let out = gather(iota(&[2, 3, 4]), idx).unwrap();
        assert_eq!(out.shape, [1, 2, 4]);
        assert_eq!(out.data, [20.0, 21.0, 22.0, 23.0, 4.0, 5.0, 6.0, 7.0]);
    }

    #[test]
    fn gather_nd_shapes_and_errors() {
        let s = |ins: &[&[usize]]| infer("gather_nd", &[], ins);
        assert_eq!(s(&[&[2, 3, 4], &[2, 5]]).unwrap().1[0], [5, 4]);
        assert_eq!(s(&[&[2, 3], &[2, 1, 7]]).unwrap().1[0], [1, 7]);
        assert_eq!(
            message(s(&[&[2, 3], &[2]])),
            "gather_nd: indices (2,) must have at least 2 dimensions (M, Y...)"
        );
        assert_eq!(
            message(s(&[&[2, 3], &[3, 1]])),
            "gather_nd: indices (3, 1) address 3 axes but data (2, 3) has 2"
        );
        assert_eq!(
            infer_err("_backward_gather_nd", &[], &[&[2, 3], &[1, 4], &[2, 3]]),
            "input `ograd` has shape (2, 3) but (4, 3) is required"
        );
    }

    #[test]
    fn scatter_nd_follows_mxnet() {
        let scatter = |data: Tensor, idx: Tensor, shape: &str| {
            run("scatter_nd", &[("shape", shape)], &[data, idx], false).map(|mut o| o.remove(0))
        };
        let idx = tensor(&[2, 3], &[1.0, 1.0, 0.0, 0.0, 1.0, 0.0]);
        let out = scatter(tensor(&[3], &[2.0, 3.0, 0.0]), idx, "(2, 2)").unwrap();
        assert_eq!(out.data, [0.0, 0.0, 2.0, 3.0]);
        // Repeats: the last wins.
        let idx = tensor(&[2, 3], &[1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
        let out = scatter(tensor(&[3], &[2.0, 3.0, 5.0]), idx, "(2, 2)").unwrap();
        assert_eq!(out.data, [0.0, 0.0, 5.0, 0.0]);
        let idx = tensor(&[1, 2], &[1.0, 0.0]);
        let out = scatter(iota(&[2, 2]), idx, "(2, 2)").unwrap();
        assert_eq!(out.data, [2.0, 3.0, 0.0, 1.0]);
        let idx = tensor(&[2, 2], &[1.7, 0.5, 0.0, 1.2]);
        let out = scatter(tensor(&[2], &[1.0, 2.0]), idx, "(2, 2)").unwrap();
        assert_eq!(out.data, [0.0, 2.0, 1.0, 0.0]);
        for bad in [-1.0, 2.0] {
            let idx = tensor(&[1, 1], &[bad]);
            assert_eq!(
                message(scatter(tensor(&[1], &[1.0]), idx, "(2,)")),
                format!("scatter_nd: index {bad} is out of range for axis 0 of size 2")
            );
        }
    }

    #[test]
    fn scatter_nd_shapes_and_errors() {
        let s = |shape: &str, ins: &[&[usize]]| infer("scatter_nd", &[("shape", shape)], ins);
        let (ins, outs) = s("(3, 4)", &[&[], &[1, 2]]).unwrap();
        assert_eq!(
            (ins[0].as_slice(), outs[0].as_slice()),
            (&[2, 4][..], &[3, 4][..])
        );
        assert_eq!(
            infer_err("scatter_nd", &[("shape", "(2, 2)")], &[&[3], &[2, 2]]),
            "input `data` has shape (3,) but (2,) is required"
        );
        assert_eq!(
            message(s("(2, 2)", &[&[2], &[3, 2]])),
            "scatter_nd: indices (3, 2) address 3 axes but shape (2, 2) has 2"
        );
        assert_eq!(
            message(s("(2, 0)", &[&[2], &[1, 2]])),
            "scatter_nd: shape=(2, 0) must have positive dimensions"
        );
    }

    #[test]
    fn gradients() {
        // gather_nd: repeated positions add up; a negative index lands where it read.
        let x = iota(&[2, 3]);
        let idx = tensor(&[2, 3], &[0.0, 0.0, 1.0, 1.0, 1.0, -1.0]);
        let head = tensor(&[3], &[1.0, 2.0, 3.0]);
        let g = analytic_grad("gather_nd", &[], &[x, idx], &[head], false).unwrap();
        assert_eq!(g[0].as_ref().unwrap().data, [0.0, 3.0, 0.0, 0.0, 0.0, 3.0]);
        assert!(g[1].is_none());
        let idx = tensor(&[2, 2], &[0.0, 2.0, 4.0, -1.0]);
        check_grad("gather_nd", &[], &[randn(&[3, 7], 1), idx], false, &[1]);
        let idx = tensor(&[1, 3], &[2.0, 0.0, -3.0]);
        check_grad("gather_nd", &[], &[randn(&[3, 1, 7], 2), idx], false, &[1]);
        let idx = tensor(&[1, 1], &[0.0]);
        check_grad("gather_nd", &[], &[randn(&[1], 3), idx], false, &[1]);
        // scatter_nd's gradient reads the head gradient where each slice went.
        let idx = tensor(&[2, 3], &[0.0, 2.0, 1.0, 6.0, 0.0, 3.0]);
        let kv = [("shape", "(3, 7)")];
        check_grad("scatter_nd", &kv, &[randn(&[3], 4), idx], false, &[1]);
        let idx = tensor(&[1, 2], &[2.0, 0.0]);
        let kv = [("shape", "(3, 1, 7)")];
        check_grad("scatter_nd", &kv, &[randn(&[2, 1, 7], 5), idx], false, &[1]);
    }
}
