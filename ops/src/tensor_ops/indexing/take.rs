//! take (rows of `a` along an axis, chosen by `indices`), Embedding (rows of a weight
//! matrix: take along axis 0 in clip mode) and their gradient `_backward_take`, which adds
//! the head gradient into zeros of the data's shape at the rows read.

use super::{around, first_dtype, output, Mode};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, OpError, Shape, Slot};
use crate::tensor_ops::{apply, axis_of};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Pattern,
    Registry, Tensor,
};

const TAKE_PARAMS: &[ParamDef] = &[
    param(
        "axis",
        ParamType::Int,
        Some("0"),
        "the axis of `a` to take from (negative counts from the end)",
    ),
    param(
        "mode",
        ParamType::Enum(&["clip", "raise", "wrap"]),
        Some("clip"),
        "out-of-range indices: clip to the axis, wrap around it, or raise an error",
    ),
];

static TAKE: OpDef = OpDef {
    aliases: &["_npi_take"],
    doc: "Takes slices of `a` along `axis` at the positions in `indices` (truncated to \
          integers): the output shape is a's dims before axis, then indices' shape, then \
          a's dims after axis.",
    params: TAKE_PARAMS,
    inputs: Inputs::Fixed(&["a", "indices"]),
    infer_shape: take_shape,
    infer_dtype: first_dtype,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(take_grad),
    ..OpDef::new(
        "take",
        Pattern::Opaque,
        Compute::Library {
            kernel: "take",
            reference: take_ref,
        },
    )
};

/// take's output shape for known ranks.
fn take_out(a: &Attrs, data: &[usize], indices: &[usize]) -> Result<Shape, OpError> {
    let ax = axis_of("take", "axis", a.int("axis"), data)?;
    Ok([&data[..ax], indices, &data[ax + 1..]].concat())
}

fn take_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    let out = take_out(a, &ins[0], &ins[1])?;
    if ins[1].is_empty() {
        return Ok(());
    }
    set_out(outs, 0, &out)
}

/// The slices of `data` along `axis` at `indices`, in take's output order.
fn gather_rows(
    op: &str,
    data: &Tensor,
    indices: &Tensor,
    axis: usize,
    mode: Mode,
) -> Result<Vec<f64>, OpError> {
    let (outer, n, inner) = around(&data.shape, axis);
    let rows = indices
        .data
        .iter()
        .map(|&v| row(op, v, n, axis, mode))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(outer * rows.len() * inner);
    for o in 0..outer {
        for &j in &rows {
            let at = (o * n + j) * inner;
            out.extend_from_slice(&data.data[at..at + inner]);
        }
    }
    Ok(out)
}

fn row(op: &str, v: f64, n: usize, axis: usize, mode: Mode) -> Result<usize, OpError> {
    match mode.resolve(v, n) {
        Some(j) => Ok(j),
        None => invalid(format!(
            "{op}: index {v} is out of range for axis {axis} of size {n}{}",
            if mode == Mode::Raise {
                " (mode=raise)"
            } else {
                ""
            }
        )),
    }
}

fn take_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (data, indices) = (ins[0], ins[1]);
    let axis = axis_of("take", "axis", ctx.attrs.int("axis"), &data.shape)?;
    let out = gather_rows("take", data, indices, axis, Mode::of(ctx.attrs))?;
    Ok(vec![output("take", ctx, 0, out)?])
}

fn take_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[1], ctx.inputs[0]];
    let grad = apply(g, "_backward_take", &args, ctx.raw_attrs)?;
    Ok(vec![Some(grad), None])
}

static BACKWARD_TAKE: OpDef = OpDef {
    doc: "The gradient of take (and of Embedding's weight): each slice of `ograd` added \
          into zeros of `a`'s shape at the position along `axis` its index selects (a's \
          values are not read).",
    params: TAKE_PARAMS,
    inputs: Inputs::Fixed(&["ograd", "indices", "a"]),
    infer_shape: backward_take_shape,
    infer_dtype: first_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_take",
        Pattern::Opaque,
        Compute::Library {
            kernel: "take_backward",
            reference: backward_take_ref,
        },
    )
};

/// The output has a's shape; ograd has the shape take gives a and indices.
fn backward_take_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    set_out(outs, 0, &ins[2].clone())?;
    set_in(ins, 2, &outs[0].clone())?;
    if !ins[2].is_empty() && !ins[1].is_empty() {
        let window = take_out(a, &ins[2], &ins[1])?;
        set_in(ins, 0, &window)?;
    }
    Ok(())
}

fn backward_take_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (ograd, indices, shape) = (ins[0], ins[1], &ctx.out_shapes[0]);
    let axis = axis_of("_backward_take", "axis", ctx.attrs.int("axis"), shape)?;
    let mode = Mode::of(ctx.attrs);
    let (outer, n, inner) = around(shape, axis);
    let m = indices.len();
    if ograd.len() != outer * m * inner {
        return invalid(format!(
            "_backward_take: ograd {} does not match indices {} and a {}",
            fmt_shape(&ograd.shape),
            fmt_shape(&indices.shape),
            fmt_shape(shape)
        ));
    }
    let mut out = vec![0.0; outer * n * inner];
    for (k, &v) in indices.data.iter().enumerate() {
        let j = row("_backward_take", v, n, axis, mode)?;
        for o in 0..outer {
            let (src, dst) = ((o * m + k) * inner, (o * n + j) * inner);
            for t in 0..inner {
                out[dst + t] += ograd.data[src + t];
            }
        }
    }
    Ok(vec![output("_backward_take", ctx, 0, out)?])
}

static EMBEDDING: OpDef = OpDef {
    aliases: &["_npx_embedding", "_sparse_Embedding"],
    doc: "Looks up rows of `weight` (input_dim, output_dim): the output is data's shape \
          followed by output_dim, each index truncated to an integer and clamped to \
          [0, input_dim - 1]. Its dtype is weight's (`dtype` when weight's is not known).",
    params: &[
        param(
            "input_dim",
            ParamType::Int,
            None,
            "number of rows of the weight (the vocabulary size)",
        ),
        param(
            "output_dim",
            ParamType::Int,
            None,
            "length of each embedding vector",
        ),
        param(
            "dtype",
            ParamType::Enum(&[
                "bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8",
            ]),
            Some("float32"),
            "dtype of the weight, when not known otherwise",
        ),
        param(
            "sparse_grad",
            ParamType::Bool,
            Some("False"),
            "MXNet's row_sparse weight gradient (kiln's gradient is always dense)",
        ),
    ],
    inputs: Inputs::Fixed(&["data", "weight"]),
    infer_shape: embedding_shape,
    infer_dtype: embedding_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    grad: Grad::Rule(embedding_grad),
    ..OpDef::new(
        "Embedding",
        Pattern::Opaque,
        Compute::Library {
            kernel: "embedding",
            reference: embedding_ref,
        },
    )
};

fn embedding_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let (rows, cols) = (a.int("input_dim"), a.int("output_dim"));
    if rows < 1 || cols < 1 {
        return invalid(format!(
            "Embedding: input_dim={rows} and output_dim={cols} must both be at least 1"
        ));
    }
    set_in(ins, 1, &[rows as usize, cols as usize])?;
    if !ins[0].is_empty() {
        let out = [&ins[0][..], &[cols as usize]].concat();
        set_out(outs, 0, &out)?;
    }
    Ok(())
}

/// Weight and output share a dtype: weight's, else the output's, else `dtype`; data (the
/// indices) may have any dtype.
fn embedding_dtype(
    a: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    let d = match (ins[1], outs[0]) {
        (Some(w), Some(o)) if w != o => {
            return Err(OpError::DType {
                slot: Slot::Out(0),
                have: o,
                want: w,
            })
        }
        (Some(d), _) | (None, Some(d)) => d,
        (None, None) => DType::parse(a.str("dtype")).unwrap_or(DType::F32),
    };
    ins[1] = Some(d);
    outs[0] = Some(d);
    Ok(())
}

fn embedding_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (indices, weight) = (ins[0], ins[1]);
    if weight.shape.len() != 2 {
        return invalid(format!(
            "Embedding: weight {} is not a matrix",
            fmt_shape(&weight.shape)
        ));
    }
    let out = gather_rows("Embedding", weight, indices, 0, Mode::Clip)?;
    Ok(vec![output("Embedding", ctx, 0, out)?])
}

/// The weight's gradient is take's with axis 0 and clip; the indices get none.
fn embedding_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[0], ctx.inputs[1]];
    let kv = [("axis", "0"), ("mode", "clip")];
    let grad = apply(g, "_backward_take", &args, &kv)?;
    Ok(vec![None, Some(grad)])
}

pub fn register(r: &mut Registry) {
    for op in [&TAKE, &BACKWARD_TAKE, &EMBEDDING] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{
        analytic_grad, check_grad, infer, infer_err, iota, message, randn, run, tensor,
    };
    use crate::{DType, Tensor};

    /// A finite-difference case: data shape, attributes, indices.
    type Case<'a> = (&'a [usize], &'a [(&'a str, &'a str)], Tensor);

    /// [[1, 2, 3], [4, 5, 6]]
    fn a() -> Tensor {
        tensor(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    }

    fn take(kv: &[(&str, &str)], indices: &[f64]) -> Result<Tensor, crate::OpError> {
        let idx = tensor(&[indices.len()], indices);
        run("take", kv, &[a(), idx], false).map(|mut o| o.remove(0))
    }

    #[test]
    fn take_modes_follow_mxnet() {
        let idx = [-1.0, 0.0, 2.0, 5.0, 1.7, -0.5];
        let out = take(&[("axis", "1")], &idx).unwrap();
        assert_eq!(out.shape, [2, 6]);
        assert_eq!(out.data[..6], [1.0, 1.0, 3.0, 3.0, 2.0, 1.0]);
        let out = take(&[("axis", "-1"), ("mode", "wrap")], &idx).unwrap();
        assert_eq!(out.data[6..], [6.0, 4.0, 6.0, 6.0, 5.0, 4.0]);
        let out = take(&[("mode", "raise")], &[1.0, 0.0, 0.5]).unwrap();
        assert_eq!(out.data, [4.0, 5.0, 6.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
        assert_eq!(
            message(take(&[("axis", "1"), ("mode", "raise")], &[0.0, 2.5])),
            "take: index 2.5 is out of range for axis 1 of size 3 (mode=raise)"
        );
        assert_eq!(
            message(take(&[("mode", "raise")], &[-1.0])),
            "take: index -1 is out of range for axis 0 of size 2 (mode=raise)"
        );
    }

    #[test]
    fn take_shapes() {
        let s = |kv: &[(&str, &str)], ins: &[&[usize]]| infer("take", kv, ins);
        assert_eq!(s(&[], &[&[4, 5], &[2, 3]]).unwrap().1[0], [2, 3, 5]);
        assert_eq!(
            s(&[("axis", "-2")], &[&[7, 4, 5], &[3]]).unwrap().1[0],
            [7, 3, 5]
        );
        assert_eq!(s(&[("axis", "1")], &[&[4, 5], &[]]).unwrap().1[0], [0; 0]);
        assert_eq!(
            message(s(&[("axis", "2")], &[&[4, 5], &[3]])),
            "take: axis=2 is out of range for input (4, 5)"
        );
        // Indices of any dtype; the output has a's.
        let out = run(
            "take",
            &[],
            &[a().cast(DType::I8), tensor(&[1], &[1.0])],
            false,
        );
        assert_eq!(out.unwrap()[0].dtype, DType::I8);
    }

    #[test]
    fn take_gradient_adds_into_the_rows_read() {
        // Row 0 of head [1, 2, 3, 4] goes to columns 0, 0, 2, 2 (5 clipped).
        let idx = tensor(&[4], &[0.0, 0.0, 2.0, 5.0]);
        let head = tensor(&[2, 4], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        let g = analytic_grad("take", &[("axis", "1")], &[a(), idx], &[head], false).unwrap();
        assert_eq!(
            g[0].as_ref().unwrap().data,
            [3.0, 0.0, 7.0, 11.0, 0.0, 15.0]
        );
        assert!(g[1].is_none());
        // Wrap: -1 and 5 both land on column 2.
        let idx = tensor(&[4], &[0.0, -1.0, 2.0, 5.0]);
        let head = tensor(&[2, 4], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        let kv = [("axis", "1"), ("mode", "wrap")];
        let g = analytic_grad("take", &kv, &[a(), idx], &[head], false).unwrap();
        assert_eq!(g[0].as_ref().unwrap().data, [1.0, 0.0, 9.0, 5.0, 0.0, 21.0]);
    }

    #[test]
    fn take_gradients_match_finite_differences() {
        // Index values away from integers, so finite differences do not move them.
        let idx = |v: &[f64]| tensor(&[v.len()], v);
        let cases: [Case; 5] = [
            (&[3, 7], &[("axis", "1")], idx(&[0.5, 6.2, 9.0, -3.0, 2.5])),
            (
                &[3, 7],
                &[("axis", "-1"), ("mode", "wrap")],
                idx(&[-1.5, 8.3]),
            ),
            (&[7], &[("mode", "raise")], idx(&[6.0, 0.0, 3.5, 3.2])),
            (
                &[1, 3, 2],
                &[("axis", "-2")],
                tensor(&[2, 2], &[0.0, 2.0, 2.0, 1.0]),
            ),
            (&[1], &[], idx(&[0.0, 0.0, 0.0])),
        ];
        for (shape, kv, indices) in cases {
            check_grad("take", kv, &[randn(shape, 1), indices], false, &[1]);
        }
    }

    #[test]
    fn backward_take_shapes() {
        let kv = [("axis", "1")];
        assert_eq!(
            infer_err("_backward_take", &kv, &[&[2, 3], &[4], &[2, 3]]),
            "input `ograd` has shape (2, 3) but (2, 4) is required"
        );
    }

    #[test]
    fn embedding_clamps_and_keeps_the_weight_dtype() {
        let w = iota(&[4, 3]);
        let idx = tensor(&[2, 2], &[0.0, 3.0, 5.0, -1.0]);
        let kv = [("input_dim", "4"), ("output_dim", "3")];
        let out = run("Embedding", &kv, &[idx, w.clone()], false)
            .unwrap()
            .remove(0);
        assert_eq!(out.shape, [2, 2, 3]);
        assert_eq!(out.data[3..9], [9.0, 10.0, 11.0, 9.0, 10.0, 11.0]);
        let idx = tensor(&[3], &[1.7, -0.5, 2.5]);
        let out = run("Embedding", &kv, &[idx, w.cast(DType::F16)], false).unwrap();
        assert_eq!(out[0].data, [3.0, 4.0, 5.0, 0.0, 1.0, 2.0, 6.0, 7.0, 8.0]);
        assert_eq!(out[0].dtype, DType::F16);
    }

    #[test]
    fn embedding_shapes_and_errors() {
        let kv = [("input_dim", "5"), ("output_dim", "3")];
        let (ins, outs) = infer("Embedding", &kv, &[&[3, 4]]).unwrap();
        assert_eq!(
            (ins[1].as_slice(), outs[0].as_slice()),
            (&[5, 3][..], &[3, 4, 3][..])
        );
        assert_eq!(
            infer_err("Embedding", &kv, &[&[2], &[4, 3]]),
            "input `weight` has shape (4, 3) but (5, 3) is required"
        );
        let kv = [("input_dim", "0"), ("output_dim", "3")];
        assert_eq!(
            message(infer("Embedding", &kv, &[&[2]])),
            "Embedding: input_dim=0 and output_dim=3 must both be at least 1"
        );
    }

    #[test]
    fn embedding_gradients() {
        let kv = [("input_dim", "3"), ("output_dim", "2")];
        let idx = tensor(&[4], &[0.0, 0.0, 2.0, 5.0]);
        let head = tensor(&[4, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        let w = Tensor::full(DType::F64, vec![3, 2], 1.0);
        let g = analytic_grad("Embedding", &kv, &[idx.clone(), w], &[head], false).unwrap();
        assert!(g[0].is_none());
        assert_eq!(
            g[1].as_ref().unwrap().data,
            [4.0, 6.0, 0.0, 0.0, 12.0, 14.0]
        );
        let kv = [("input_dim", "7"), ("output_dim", "1")];
        let idx = tensor(&[2, 3], &[6.0, 0.5, 3.2, 9.0, -2.0, 3.0]);
        check_grad("Embedding", &kv, &[idx, randn(&[7, 1], 3)], false, &[0]);
    }
}
