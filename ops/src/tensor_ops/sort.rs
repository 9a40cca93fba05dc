//! sort, argsort and topk along one axis (or over the flattened input when axis is None).
//!
//! The order is stable: ties keep their input order in both directions, which is what
//! MXNet 1.9.1's CPU kernel (std::sort, an insertion sort for rows of up to 16 elements)
//! gives on short rows; on longer rows MXNet's tie order is unspecified. NaN, whose place
//! MXNet leaves unspecified, sorts after every number when ascending and before them when
//! descending.
//!
//! sort and topk (ret_typ value) have a hidden second output, the indices, through which
//! their gradient `_backward_topk` scatters the head gradient back to the input's shape
//! (topk with ret_typ both uses its visible indices). argsort and topk's indices and mask
//! have a zero gradient, as in MXNet. MXNet 1.9.1's own sort gradient fails (its
//! `_backward_topk` gets an empty axis); kiln's is the scatter.

use crate::param::{param, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, OpError, Shape, Slot};
use crate::tensor_ops::indexing::{around, output};
use crate::tensor_ops::{apply, axis_of};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs,
    Pattern, Registry, Tensor,
};
use std::cmp::Ordering;

const INDEX_DTYPES: ParamType =
    ParamType::Enum(&["float16", "float32", "float64", "int32", "int64", "uint8"]);

const AXIS_DOC: &str = "the axis to sort along (None: the flattened input); negative counts \
                        from the end";

static SORT: OpDef = OpDef {
    aliases: &["_npi_sort"],
    doc: "Sorts along `axis` (the flattened input when None), ascending unless is_ascend is \
          False; ties keep their order.",
    params: &[
        param("axis", ParamType::OptInt, Some("-1"), AXIS_DOC),
        param(
            "is_ascend",
            ParamType::Bool,
            Some("True"),
            "ascending (True) or descending order",
        ),
    ],
    outputs: Outputs::Fixed {
        names: &["output0", "output1"],
        visible: 1,
    },
    infer_shape: sort_shape,
    infer_dtype: sort_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    grad: Grad::Rule(sort_grad),
    ..OpDef::new(
        "sort",
        Pattern::Opaque,
        Compute::Library {
            kernel: "sort",
            reference: sort_ref,
        },
    )
};

static ARGSORT: OpDef = OpDef {
    aliases: &["_npi_argsort"],
    doc: "The indices that sort the input along `axis` (flat indices when axis is None), \
          ascending unless is_ascend is False, as `dtype`; ties keep their order. The \
          gradient is zero.",
    params: &[
        param("axis", ParamType::OptInt, Some("-1"), AXIS_DOC),
        param(
            "is_ascend",
            ParamType::Bool,
            Some("True"),
            "ascending (True) or descending order",
        ),
        param(
            "dtype",
            INDEX_DTYPES,
            Some("float32"),
            "dtype of the indices",
        ),
    ],
    infer_shape: argsort_shape,
    infer_dtype: argsort_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    grad: Grad::Zero,
    ..OpDef::new(
        "argsort",
        Pattern::Opaque,
        Compute::Library {
            kernel: "argsort",
            reference: argsort_ref,
        },
    )
};

static TOPK: OpDef = OpDef {
    aliases: &["_npx_topk"],
    doc: "The k largest (smallest with is_ascend) elements along `axis` (of the flattened \
          input when None), in order: their values (ret_typ value), their indices as `dtype` \
          (indices), both (two outputs), or a 0/1 mask of the input's shape (mask). k < 1 \
          takes every element. Ties keep their order.",
    params: &[
        param("axis", ParamType::OptInt, Some("-1"), AXIS_DOC),
        param(
            "k",
            ParamType::Int,
            Some("1"),
            "how many elements to take; below 1: all of them",
        ),
        param(
            "ret_typ",
            ParamType::Enum(&["both", "indices", "mask", "value"]),
            Some("indices"),
            "what to return: values, indices, both, or a mask of the input's shape",
        ),
        param(
            "is_ascend",
            ParamType::Bool,
            Some("False"),
            "take the smallest elements instead of the largest",
        ),
        param(
            "dtype",
            INDEX_DTYPES,
            Some("float32"),
            "dtype of the indices (ret_typ indices or both)",
        ),
    ],
    outputs: Outputs::Dynamic(topk_outputs),
    infer_shape: topk_shape,
    infer_dtype: topk_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    grad: Grad::Rule(topk_grad),
    ..OpDef::new(
        "topk",
        Pattern::Opaque,
        Compute::Library {
            kernel: "topk",
            reference: topk_ref,
        },
    )
};

/// The sorted axis of a known input shape (`None`: the flattened input).
fn sort_axis(op: &str, a: &Attrs, shape: &[usize]) -> Result<Option<usize>, OpError> {
    a.opt_int("axis")
        .map(|ax| axis_of(op, "axis", ax, shape))
        .transpose()
}

/// The input as rows to sort: (outer, row length, inner).
fn rows(op: &str, a: &Attrs, shape: &[usize]) -> Result<(usize, usize, usize), OpError> {
    Ok(match sort_axis(op, a, shape)? {
        Some(ax) => around(shape, ax),
        None => (1, shape.iter().product(), 1),
    })
}

/// The output shape keeping `k` elements per row (0: unknown).
fn kept(op: &str, a: &Attrs, shape: &[usize], k: usize) -> Result<Shape, OpError> {
    Ok(match sort_axis(op, a, shape)? {
        Some(ax) => {
            let mut s = shape.to_vec();
            s[ax] = k;
            s
        }
        None => vec![k],
    })
}

/// The length of the sorted rows of a known input rank (0: unknown).
fn row_len(op: &str, a: &Attrs, shape: &[usize]) -> Result<usize, OpError> {
    Ok(match sort_axis(op, a, shape)? {
        Some(ax) => shape[ax],
        None if shape.contains(&0) => 0,
        None => shape.iter().product(),
    })
}

fn sort_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    full_shape("sort", a, ins, outs)
}

fn argsort_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    full_shape("argsort", a, ins, outs)
}

/// Every output has the sorted shape: the input's, or (size,) for axis None.
fn full_shape(op: &str, a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    let n = row_len(op, a, &ins[0])?;
    let out = kept(op, a, &ins[0], n)?;
    for i in 0..outs.len() {
        set_out(outs, i, &out)?;
    }
    Ok(())
}

/// Sets output `i`'s dtype, which must agree with what is known.
fn set_dtype(outs: &mut [Option<DType>], i: usize, want: DType) -> Result<(), OpError> {
    match outs[i] {
        Some(have) if have != want => Err(OpError::DType {
            slot: Slot::Out(i),
            have,
            want,
        }),
        _ => {
            outs[i] = Some(want);
            Ok(())
        }
    }
}

/// The values have the input's dtype; the hidden indices are int32.
fn sort_dtype(
    _: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    values_dtype(ins, outs)?;
    set_dtype(outs, 1, DType::I32)
}

/// Output 0 holds values of the input.
fn values_dtype(ins: &mut [Option<DType>], outs: &mut [Option<DType>]) -> Result<(), OpError> {
    match (ins[0], outs[0]) {
        (Some(d), _) => set_dtype(outs, 0, d),
        (None, Some(d)) => {
            ins[0] = Some(d);
            Ok(())
        }
        _ => Ok(()),
    }
}

fn index_dtype(a: &Attrs) -> DType {
    DType::parse(a.str("dtype")).unwrap_or(DType::F32)
}

fn argsort_dtype(
    a: &Attrs,
    _: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    set_dtype(outs, 0, index_dtype(a))
}

/// NaN after every number; equal values (and NaNs) compare equal, so a stable sort keeps
/// their order.
fn ascending(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b)
        .unwrap_or_else(|| a.is_nan().cmp(&b.is_nan()))
}

/// Each row's positions in sorted order, rows in (outer, inner) order.
fn sorted(op: &str, a: &Attrs, x: &Tensor, ascend: bool) -> Result<Vec<Vec<usize>>, OpError> {
    let (outer, n, inner) = rows(op, a, &x.shape)?;
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| x.data[(o * n + j) * inner + i];
            let mut perm: Vec<usize> = (0..n).collect();
            match ascend {
                true => perm.sort_by(|&p, &q| ascending(at(p), at(q))),
                false => perm.sort_by(|&p, &q| ascending(at(q), at(p))),
            }
            out.push(perm);
        }
    }
    Ok(out)
}

/// The first `k` sorted positions of every row, laid out like the input with the row axis
/// cut to `k`: the values, and the indices within the row.
fn top(
    op: &str,
    a: &Attrs,
    x: &Tensor,
    k: usize,
    ascend: bool,
) -> Result<(Vec<f64>, Vec<f64>), OpError> {
    let (outer, n, inner) = rows(op, a, &x.shape)?;
    let perms = sorted(op, a, x, ascend)?;
    let (mut values, mut indices) = (vec![0.0; outer * k * inner], vec![0.0; outer * k * inner]);
    for o in 0..outer {
        for i in 0..inner {
            for (r, &j) in perms[o * inner + i][..k].iter().enumerate() {
                let at = (o * k + r) * inner + i;
                values[at] = x.data[(o * n + j) * inner + i];
                indices[at] = j as f64;
            }
        }
    }
    Ok((values, indices))
}

fn sort_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (_, n, _) = rows("sort", ctx.attrs, &ins[0].shape)?;
    let (values, indices) = top("sort", ctx.attrs, ins[0], n, ctx.attrs.bool("is_ascend"))?;
    Ok(vec![
        output("sort", ctx, 0, values)?,
        output("sort", ctx, 1, indices)?,
    ])
}

fn argsort_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (_, n, _) = rows("argsort", ctx.attrs, &ins[0].shape)?;
    let (_, indices) = top("argsort", ctx.attrs, ins[0], n, ctx.attrs.bool("is_ascend"))?;
    Ok(vec![output("argsort", ctx, 0, indices)?])
}

fn sort_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    scatter_back(g, ctx).map(|h| vec![Some(h)])
}

/// `_backward_topk` of output 0's gradient through the indices in output 1.
fn scatter_back(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Handle, OpError> {
    let axis = ctx
        .raw_attrs
        .iter()
        .find(|(k, _)| *k == "axis")
        .map_or("-1", |(_, v)| *v);
    let args = [ctx.out_grads[0], ctx.outputs[1], ctx.inputs[0]];
    apply(g, "_backward_topk", &args, &[("axis", axis)])
}

fn ret_typ(a: &Attrs) -> &str {
    a.str("ret_typ")
}

fn topk_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let two = || vec!["output0".to_string(), "output1".to_string()];
    match ret_typ(a) {
        "both" => (two(), 2),
        "value" => (two(), 1),
        _ => (vec!["output".to_string()], 1),
    }
}

/// k for rows of length `n` (0: unknown): below 1 means all of them.
fn topk_k(a: &Attrs, shape: &[usize], n: usize) -> Result<usize, OpError> {
    let k = a.int("k");
    if k < 1 {
        return Ok(n);
    }
    if n != 0 && k as usize > n {
        let along = match a.opt_int("axis") {
            Some(ax) => format!(" along axis {ax}"),
            None => String::new(),
        };
        return invalid(format!(
            "topk: k={k} is larger than the {n} elements{along} of input {}",
            fmt_shape(shape)
        ));
    }
    Ok(k as usize)
}

fn topk_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    if ret_typ(a) == "mask" {
        sort_axis("topk", a, &ins[0])?;
        return set_out(outs, 0, &ins[0].clone());
    }
    let n = row_len("topk", a, &ins[0])?;
    let out = kept("topk", a, &ins[0], topk_k(a, &ins[0], n)?)?;
    for i in 0..outs.len() {
        set_out(outs, i, &out)?;
    }
    Ok(())
}

fn topk_dtype(
    a: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    match ret_typ(a) {
        "indices" => set_dtype(outs, 0, index_dtype(a)),
        "mask" => values_dtype(ins, outs),
        _ => {
            values_dtype(ins, outs)?;
            set_dtype(outs, 1, index_dtype(a))
        }
    }
}

fn topk_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (a, x) = (ctx.attrs, ins[0]);
    let (outer, n, inner) = rows("topk", a, &x.shape)?;
    let k = topk_k(a, &x.shape, n)?;
    if k > n {
        return invalid(format!(
            "topk: input {} has no elements",
            fmt_shape(&x.shape)
        ));
    }
    let (values, indices) = top("topk", a, x, k, a.bool("is_ascend"))?;
    Ok(match ret_typ(a) {
        "indices" => vec![output("topk", ctx, 0, indices)?],
        "mask" => {
            let mut mask = vec![0.0; x.len()];
            for (at, &j) in indices.iter().enumerate() {
                let (o, i) = (at / (k * inner), at % inner);
                mask[(o * n + j as usize) * inner + i] = 1.0;
            }
            debug_assert_eq!(mask.len(), outer * n * inner);
            vec![output("topk", ctx, 0, mask)?]
        }
        _ => vec![
            output("topk", ctx, 0, values)?,
            output("topk", ctx, 1, indices)?,
        ],
    })
}

/// value and both: the values' gradient scattered through the indices; indices and mask
/// have none (MXNet's MakeZeroGradNodes).
fn topk_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    match ret_typ(ctx.attrs) {
        "value" | "both" => scatter_back(g, ctx).map(|h| vec![Some(h)]),
        _ => Ok(vec![None]),
    }
}

static BACKWARD_TOPK: OpDef = OpDef {
    doc: "The gradient of sort and topk: zeros of `data`'s shape with each element of \
          `ograd` added at the position along `axis` (the flat position when axis is None) \
          given by the matching element of `indices` (data's values are not read).",
    params: &[param("axis", ParamType::OptInt, Some("-1"), AXIS_DOC)],
    inputs: Inputs::Fixed(&["ograd", "indices", "data"]),
    infer_shape: backward_topk_shape,
    infer_dtype: backward_topk_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_topk",
        Pattern::Opaque,
        Compute::Library {
            kernel: "topk_backward",
            reference: backward_topk_ref,
        },
    )
};

/// The output has data's shape; ograd and indices share theirs.
fn backward_topk_shape(_: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    set_out(outs, 0, &ins[2].clone())?;
    set_in(ins, 2, &outs[0].clone())?;
    set_in(ins, 0, &ins[1].clone())?;
    set_in(ins, 1, &ins[0].clone())
}

fn backward_topk_dtype(
    _: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    values_dtype(ins, outs)
}

fn backward_topk_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (ograd, indices, shape) = (ins[0], ins[1], &ctx.out_shapes[0]);
    let (outer, n, inner) = rows("_backward_topk", ctx.attrs, shape)?;
    let k = ograd.len() / (outer * inner).max(1);
    if ograd.shape != indices.shape || ograd.len() != outer * k * inner {
        return invalid(format!(
            "_backward_topk: ograd {} and indices {} do not match data {}",
            fmt_shape(&ograd.shape),
            fmt_shape(&indices.shape),
            fmt_shape(shape)
        ));
    }
    let mut grad = vec![0.0; outer * n * inner];
    for (at, (&j, &v)) in indices.data.iter().zip(&ograd.data).enumerate() {
        if !(0.0..n as f64).contains(&j) {
            return invalid(format!(
                "_backward_topk: index {j} is out of range for rows of {n}"
            ));
        }
        let (o, i) = (at / (k * inner), at % inner);
        grad[(o * n + j as usize) * inner + i] += v;
    }
    Ok(vec![output("_backward_topk", ctx, 0, grad)?])
}

pub fn register(r: &mut Registry) {
    for op in [&SORT, &ARGSORT, &TOPK, &BACKWARD_TOPK] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{analytic_grad, check_grad, infer, message, randn, run, tensor};
    use crate::{DType, Tensor};

    /// [[3, 1, 2, 1, 3, 0, 1], [5, 5, 5, 5, 5, 5, 5]]: ties everywhere.
    fn x() -> Tensor {
        let mut v = vec![3.0, 1.0, 2.0, 1.0, 3.0, 0.0, 1.0];
        v.extend([5.0; 7]);
        tensor(&[2, 7], &v)
    }

    fn first(op: &str, kv: &[(&str, &str)], x: Tensor) -> (Vec<usize>, Vec<f64>) {
        let out = run(op, kv, &[x], false).unwrap().remove(0);
        (out.shape, out.data)
    }

    #[test]
    fn sort_and_argsort_are_stable_in_both_directions() {
        let (shape, data) = first("sort", &[], x());
        assert_eq!(shape, [2, 7]);
        assert_eq!(data[..7], [0.0, 1.0, 1.0, 1.0, 2.0, 3.0, 3.0]);
        let (_, data) = first("argsort", &[], x());
        assert_eq!(data[..7], [5.0, 1.0, 3.0, 6.0, 2.0, 0.0, 4.0]);
        assert_eq!(data[7..], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let (_, data) = first("argsort", &[("is_ascend", "False")], x());
        assert_eq!(data[..7], [0.0, 4.0, 2.0, 1.0, 3.0, 6.0, 5.0]);
        let (shape, data) = first("argsort", &[("axis", "None"), ("is_ascend", "0")], x());
        assert_eq!(shape, [14]);
        assert_eq!(data[..9], [7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 0.0, 4.0]);
        let (_, data) = first("sort", &[("axis", "0"), ("is_ascend", "False")], x());
        assert_eq!(data[7..], [3.0, 1.0, 2.0, 1.0, 3.0, 0.0, 1.0]);
        let out = run("argsort", &[("dtype", "int32")], &[x()], false).unwrap();
        assert_eq!(out[0].dtype, DType::I32);
    }

    #[test]
    fn nan_sorts_last_ascending_and_first_descending() {
        let nan = f64::NAN;
        let y = tensor(&[5], &[2.0, nan, 1.0, nan, 3.0]);
        let (_, data) = first("argsort", &[], y.clone());
        assert_eq!(data, [2.0, 0.0, 4.0, 1.0, 3.0]);
        let (_, data) = first("argsort", &[("is_ascend", "False")], y);
        assert_eq!(data, [1.0, 3.0, 4.0, 0.0, 2.0]);
    }

    #[test]
    fn topk_return_types() {
        let kv = |ret: &'static str| [("k", "3"), ("ret_typ", ret)];
        assert_eq!(first("topk", &kv("indices"), x()).1[..3], [0.0, 4.0, 2.0]);
        assert_eq!(first("topk", &kv("value"), x()).1[..3], [3.0, 3.0, 2.0]);
        let both = run("topk", &kv("both"), &[x()], false).unwrap();
        assert_eq!((both[0].data[3], both[1].data[3]), (5.0, 0.0));
        let (shape, data) = first("topk", &kv("mask"), x());
        assert_eq!(shape, [2, 7]);
        assert_eq!(data[..7], [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]);
        assert_eq!(data[7..], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
        let asc = [("k", "3"), ("is_ascend", "True")];
        assert_eq!(first("topk", &asc, x()).1[..3], [5.0, 1.0, 3.0]);
        // k < 1: every element; axis None: flat indices.
        let (shape, _) = first("topk", &[("k", "0"), ("ret_typ", "value")], x());
        assert_eq!(shape, [2, 7]);
        let kv = [("axis", "None"), ("k", "3"), ("ret_typ", "both")];
        let both = run("topk", &kv, &[x()], false).unwrap();
        assert_eq!(both[0].shape, [3]);
        assert_eq!(both[1].data, [7.0, 8.0, 9.0]);
        let kv = [("axis", "0"), ("ret_typ", "both"), ("dtype", "int32")];
        let both = run("topk", &kv, &[x()], false).unwrap();
        assert_eq!(
            (both[1].shape.as_slice(), both[1].dtype),
            (&[1, 7][..], DType::I32)
        );
    }

    #[test]
    fn shapes_outputs_and_errors() {
        let s = |op: &str, kv: &[(&str, &str)]| infer(op, kv, &[&[2, 7]]);
        assert_eq!(
            s("sort", &[("axis", "None")]).unwrap().1,
            [vec![14], vec![14]]
        );
        assert_eq!(s("topk", &[("k", "2")]).unwrap().1, [vec![2, 2]]);
        let kv = [("k", "1"), ("axis", "-2"), ("ret_typ", "value")];
        assert_eq!(s("topk", &kv).unwrap().1, [vec![1, 7], vec![1, 7]]);
        let kv = [("k", "2"), ("axis", "None"), ("ret_typ", "mask")];
        assert_eq!(s("topk", &kv).unwrap().1, [vec![2, 7]]);
        assert_eq!(
            message(s("topk", &[("k", "8")])),
            "topk: k=8 is larger than the 7 elements along axis -1 of input (2, 7)"
        );
        assert_eq!(
            message(s("topk", &[("k", "15"), ("axis", "None")])),
            "topk: k=15 is larger than the 14 elements of input (2, 7)"
        );
        assert_eq!(
            message(s("argsort", &[("axis", "2")])),
            "argsort: axis=2 is out of range for input (2, 7)"
        );
        let visible = |kv: &[(&str, &str)]| {
            let op = crate::testutil::op("topk");
            op.output_names(&crate::testutil::attrs(op, kv)).1
        };
        assert_eq!(visible(&[("ret_typ", "both")]), 2);
        assert_eq!(visible(&[("ret_typ", "value")]), 1);
    }

    #[test]
    fn gradients_scatter_through_the_indices() {
        // sort descending of [1, 3, 2] is [3, 2, 1]: head [10, 20, 30] lands on 3, 2, 1.
        let v = tensor(&[3], &[1.0, 3.0, 2.0]);
        let head = tensor(&[3], &[10.0, 20.0, 30.0]);
        let kv = [("is_ascend", "False")];
        let vs = std::slice::from_ref(&v);
        let g = analytic_grad("sort", &kv, vs, &[head], false).unwrap();
        assert_eq!(g[0].as_ref().unwrap().data, [30.0, 10.0, 20.0]);
        let kv = [("k", "2"), ("ret_typ", "both")];
        let head = [tensor(&[2], &[1.0, 2.0])];
        let g = analytic_grad("topk", &kv, vs, &head, false).unwrap();
        assert_eq!(g[0].as_ref().unwrap().data, [0.0, 1.0, 2.0]);
        let g = analytic_grad("topk", &[("k", "2")], vs, &head, false).unwrap();
        assert!(g[0].is_none());
        let g = analytic_grad("argsort", &[], vs, &[], false).unwrap();
        assert!(g[0].is_none());
    }

    #[test]
    fn gradients_match_finite_differences() {
        for (op, shape, kv) in [
            ("sort", &[3, 7][..], &[][..]),
            ("sort", &[3, 1, 7], &[("axis", "0"), ("is_ascend", "False")]),
            ("sort", &[3, 7], &[("axis", "None")]),
            ("sort", &[1], &[]),
            ("topk", &[3, 7], &[("k", "3"), ("ret_typ", "value")]),
            (
                "topk",
                &[3, 7],
                &[("k", "2"), ("ret_typ", "both"), ("axis", "-2")],
            ),
            (
                "topk",
                &[3, 1, 7],
                &[
                    ("k", "4"),
                    ("ret_typ", "value"),
                    ("axis", "None"),
                    ("is_ascend", "1"),
                ],
            ),
            ("topk", &[7], &[("k", "0"), ("ret_typ", "value")]),
            ("topk", &[3, 7], &[("k", "2"), ("ret_typ", "mask")]),
        ] {
            check_grad(op, kv, &[randn(shape, 1)], false, &[]);
        }
    }
}
