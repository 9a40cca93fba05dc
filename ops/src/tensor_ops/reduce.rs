//! Reductions over axes: sum, mean, max, min, prod, nansum, nanprod; norm (`norm.rs`) and
//! argmax/argmin (`arg.rs`) live in submodules.
//!
//! Gradients (MXNet 1.9 semantics), built on `_broadcast_reduced`, which copies a
//! reduction's result (or its head gradient) back over the reduced axes:
//! - sum: the head gradient broadcast back;
//! - mean: the same divided by the number of reduced elements, computed in the graph as the
//!   `sum` of ones over the same axes (it depends only on the shape, so a constant folder
//!   can fold it);
//! - max, min: the head gradient at every position equal to the result (ties all receive
//!   it, as MXNet's `_backward_max` does; a NaN result gives no gradient);
//! - prod: `ograd * (prod / x)`, MXNet's formula, so a zero in the input gives NaN or
//!   infinity there, as in MXNet;
//! - nansum: the head gradient where the input is not NaN, 0 at NaNs (`_backward_nansum`);
//! - nanprod: `ograd * (nanprod / x)` where x is not NaN, 0 at NaNs (`_backward_nanprod`).

mod arg;
mod norm;

use super::{apply, axis_of, fmt_ints};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{self, invalid, set_in, set_out, OpError, Shape};
use crate::{
    c, x, Attrs, Combiner, Compute, DType, Expr, Grad, GradCtx, GradGraph, Handle, IndexExpr,
    IndexMap, Inputs, OpDef, Pattern, Reduction, Registry,
};

const PARAMS: &[ParamDef] = &[
    param(
        "axis",
        ParamType::OptShape,
        Some("None"),
        "the axes to reduce (None or (): all of them); negative counts from the end",
    ),
    param(
        "keepdims",
        ParamType::Bool,
        Some("False"),
        "keep the reduced axes, with size 1",
    ),
    param(
        "exclude",
        ParamType::Bool,
        Some("False"),
        "reduce over the axes not listed in `axis`",
    ),
];

/// The listed axes, sorted; `None` for "all" — an unset or empty `axis` reduces everything
/// whatever `exclude` says (MXNet's ReduceAxesShapeImpl).
fn listed(op: &str, a: &Attrs, input: &[usize]) -> Result<Option<Vec<usize>>, OpError> {
    let Some(axes) = a.opt_shape("axis").filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let mut v = axes
        .iter()
        .map(|&ax| axis_of(op, "axis", ax, input))
        .collect::<Result<Vec<_>, _>>()?;
    v.sort_unstable();
    if let Some(w) = v.windows(2).find(|w| w[0] == w[1]) {
        return invalid(format!(
            "{op}: axis={} names axis {} twice",
            fmt_ints(axes),
            w[0]
        ));
    }
    Ok(Some(v))
}

/// A boolean parameter, false where the operator does not declare it (norm has no
/// `exclude`).
fn flag(a: &Attrs, name: &str) -> bool {
    a.schema().iter().any(|p| p.name == name) && a.bool(name)
}

/// The input axes reduced, ascending.
fn reduced_axes(op: &str, a: &Attrs, input: &[usize]) -> Result<Vec<usize>, OpError> {
    let all = 0..input.len();
    Ok(match listed(op, a, input)? {
        None => all.collect(),
        Some(l) if flag(a, "exclude") => all.filter(|i| !l.contains(i)).collect(),
        Some(l) => l,
    })
}

/// The output shape: reduced axes become 1 (keepdims) or vanish; reducing every axis
/// without keepdims gives (1,), as legacy MXNet has no 0-d arrays.
fn reduced_shape(op: &str, a: &Attrs, input: &[usize]) -> Result<Shape, OpError> {
    let axes = reduced_axes(op, a, input)?;
    let keep = a.bool("keepdims");
    let mut out: Shape = (0..input.len())
        .filter_map(|i| match (axes.contains(&i), keep) {
            (false, _) => Some(input[i]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    if out.is_empty() {
        out.push(1);
    }
    Ok(out)
}

fn infer(op: &str, a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    let out = reduced_shape(op, a, &ins[0])?;
    set_out(outs, 0, &out)
}

/// A reduction reads every input element once.
fn input_elems(_: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    ins.first().map_or(0, |s| shape::size(s) as u64)
}

/// Declares one reduction; the shape and reduction functions are per operator so that
/// errors name it.
macro_rules! reduction {
    ($static:ident, $name:literal, $aliases:expr, $doc:literal, $combiner:expr, $pre:expr,
     $post:expr, $grad:expr) => {
        static $static: OpDef = {
            fn shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
                infer($name, a, ins, outs)
            }
            fn reduce(a: &Attrs, input: &[usize], _: &[usize]) -> Result<Reduction, OpError> {
                Ok(Reduction {
                    combiner: $combiner,
                    axes: reduced_axes($name, a, input)?,
                    pre: $pre,
                    post: $post,
                })
            }
            OpDef {
                aliases: $aliases,
                doc: $doc,
                params: PARAMS,
                infer_shape: shape,
                inplace: &[],
                cost: input_elems,
                dtypes: &DType::NUMERIC,
                grad: Grad::Rule($grad),
                ..OpDef::new($name, Pattern::Reduce, Compute::Reduce(reduce))
            }
        };
    };
}

reduction!(
    SUM,
    "sum",
    &["sum_axis"],
    "Sum over the given axes.",
    Combiner::Sum,
    x(0),
    x(0),
    sum_grad
);
// The accumulator divided by the number of reduced elements.
reduction!(
    MEAN,
    "mean",
    &[],
    "Mean over the given axes.",
    Combiner::Sum,
    x(0),
    x(0) / x(1),
    mean_grad
);
reduction!(
    MAX,
    "max",
    &["max_axis"],
    "Maximum over the given axes.",
    Combiner::Max,
    x(0),
    x(0),
    extremum_grad
);
reduction!(
    MIN,
    "min",
    &["min_axis"],
    "Minimum over the given axes.",
    Combiner::Min,
    x(0),
    x(0),
    extremum_grad
);
reduction!(
    PROD,
    "prod",
    &[],
    "Product over the given axes.",
    Combiner::Prod,
    x(0),
    x(0),
    prod_grad
);

// NaN counts as the combiner's identity.
reduction!(
    NANSUM,
    "nansum",
    &[],
    "Sum over the given axes, treating NaN as 0.",
    Combiner::Sum,
    not_nan_or(0.0),
    x(0),
    nansum_grad
);
reduction!(
    NANPROD,
    "nanprod",
    &[],
    "Product over the given axes, treating NaN as 1.",
    Combiner::Prod,
    not_nan_or(1.0),
    x(0),
    nanprod_grad
);

/// The element, or `identity` where it is NaN.
fn not_nan_or(identity: f64) -> Expr {
    is_nan(x(0)).select(c(identity), x(0))
}

/// 1 where `e` is NaN, else 0.
fn is_nan(e: Expr) -> Expr {
    e.clone().ne(e)
}

type Grads = Result<Vec<Option<Handle>>, OpError>;

/// `reduced` (the shape of the node's output) copied back over the reduced axes of the
/// node's input.
fn broadcast_back(
    g: &mut dyn GradGraph,
    ctx: &GradCtx,
    reduced: Handle,
) -> Result<Handle, OpError> {
    let args = [reduced, ctx.inputs[0]];
    apply(g, BROADCAST_REDUCED_NAME, &args, ctx.raw_attrs)
}

fn sum_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Grads {
    Ok(vec![Some(broadcast_back(g, ctx, ctx.out_grads[0])?)])
}

fn mean_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Grads {
    let zeros = apply(g, "zeros_like", &[ctx.inputs[0]], &[])?;
    let ones = apply(g, "_plus_scalar", &[zeros], &[("scalar", "1")])?;
    let count = apply(g, "sum", &[ones], ctx.raw_attrs)?;
    let scaled = apply(g, "elemwise_div", &[ctx.out_grads[0], count], &[])?;
    Ok(vec![Some(broadcast_back(g, ctx, scaled)?)])
}

fn extremum_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Grads {
    let ograd = broadcast_back(g, ctx, ctx.out_grads[0])?;
    let extremum = broadcast_back(g, ctx, ctx.outputs[0])?;
    let args = [ograd, ctx.inputs[0], extremum];
    Ok(vec![Some(apply(g, "_backward_extremum", &args, &[])?)])
}

fn prod_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Grads {
    let ograd = broadcast_back(g, ctx, ctx.out_grads[0])?;
    let prod = broadcast_back(g, ctx, ctx.outputs[0])?;
    let ratio = apply(g, "elemwise_div", &[prod, ctx.inputs[0]], &[])?;
    Ok(vec![Some(apply(g, "elemwise_mul", &[ograd, ratio], &[])?)])
}

fn nansum_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Grads {
    let ograd = broadcast_back(g, ctx, ctx.out_grads[0])?;
    let args = [ograd, ctx.inputs[0]];
    Ok(vec![Some(apply(g, "_backward_nansum", &args, &[])?)])
}

fn nanprod_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Grads {
    let ograd = broadcast_back(g, ctx, ctx.out_grads[0])?;
    let prod = broadcast_back(g, ctx, ctx.outputs[0])?;
    let args = [ograd, ctx.inputs[0], prod];
    Ok(vec![Some(apply(g, "_backward_nanprod", &args, &[])?)])
}

const BROADCAST_REDUCED_NAME: &str = "_broadcast_reduced";

static BROADCAST_REDUCED: OpDef = OpDef {
    doc: "Copies `reduced` — the result of a reduction of `data` with the same axis, \
          keepdims and exclude, or its gradient — back over the reduced axes, giving data's \
          shape (data's values are not read). The gradient of sum, and the broadcast step \
          of mean's, max's, min's and prod's.",
    params: PARAMS,
    inputs: Inputs::Fixed(&["reduced", "data"]),
    infer_shape: broadcast_reduced_shape,
    infer_dtype: reduced_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    ..OpDef::new(
        BROADCAST_REDUCED_NAME,
        Pattern::Injective,
        Compute::Injective(broadcast_reduced_map),
    )
};

/// The output has the dtype of `reduced` (norm's `out_dtype` may differ from data's).
fn reduced_dtype(
    a: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    shape::same_dtype(a, &mut ins[..1], outs)
}

/// The output has data's shape; `reduced` has the shape the reduction gives data.
fn broadcast_reduced_shape(
    a: &Attrs,
    ins: &mut [Shape],
    outs: &mut [Shape],
) -> Result<(), OpError> {
    set_out(outs, 0, &ins[1].clone())?;
    set_in(ins, 1, &outs[0].clone())?;
    if !ins[1].is_empty() {
        let reduced = reduced_shape(BROADCAST_REDUCED_NAME, a, &ins[1])?;
        set_in(ins, 0, &reduced)?;
    }
    Ok(())
}

/// Kept axes read their own coordinate; reduced ones read 0 (keepdims) or are skipped.
fn broadcast_reduced_map(
    a: &Attrs,
    ins: &[Shape],
    _: &[Shape],
    _: usize,
) -> Result<IndexMap, OpError> {
    let data = &ins[1];
    let axes = reduced_axes(BROADCAST_REDUCED_NAME, a, data)?;
    let keep = a.bool("keepdims");
    let mut coords: Vec<IndexExpr> = (0..data.len())
        .filter_map(|d| match (axes.contains(&d), keep) {
            (false, _) => Some(IndexExpr::Out(d)),
            (true, true) => Some(IndexExpr::Const(0)),
            (true, false) => None,
        })
        .collect();
    if coords.is_empty() {
        coords.push(IndexExpr::Const(0));
    }
    Ok(IndexMap::single(coords))
}

static BACKWARD_EXTREMUM: OpDef = OpDef {
    doc: "The gradient of max and min: `ograd` where `data` equals `extremum` (the result \
          broadcast back to data's shape), else 0.",
    inputs: Inputs::Fixed(&["ograd", "data", "extremum"]),
    inplace: &[(0, 0)],
    dtypes: &DType::NUMERIC,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_extremum",
        Pattern::ElemWise,
        Compute::Scalar(|_| x(0) * x(1).eq(x(2))),
    )
};

static BACKWARD_NANSUM: OpDef = OpDef {
    doc: "The gradient of nansum: `ograd` (broadcast back to data's shape) where `data` is \
          not NaN, else 0.",
    inputs: Inputs::Fixed(&["ograd", "data"]),
    dtypes: &DType::NUMERIC,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_nansum",
        Pattern::ElemWise,
        Compute::Scalar(|_| is_nan(x(1)).select(c(0.0), x(0))),
    )
};

static BACKWARD_NANPROD: OpDef = OpDef {
    doc: "The gradient of nanprod: `ograd * prod / data` (ograd and prod broadcast back to \
          data's shape) where `data` is not NaN, else 0.",
    inputs: Inputs::Fixed(&["ograd", "data", "prod"]),
    dtypes: &DType::NUMERIC,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_nanprod",
        Pattern::ElemWise,
        Compute::Scalar(|_| is_nan(x(1)).select(c(0.0), x(0) * (x(2) / x(1)))),
    )
};

pub fn register(r: &mut Registry) {
    for op in [
        &SUM,
        &MEAN,
        &MAX,
        &MIN,
        &PROD,
        &NANSUM,
        &NANPROD,
        &BROADCAST_REDUCED,
        &BACKWARD_EXTREMUM,
        &BACKWARD_NANSUM,
        &BACKWARD_NANPROD,
    ] {
        r.add(op);
    }
    norm::register(r);
    arg::register(r);
}

#[cfg(test)]
mod tests {
    use crate::testutil::infer;
    use crate::testutil::{
        analytic_grad, check_grad, infer_both, infer_err, iota, message, randn, run, tensor,
    };

    /// Reduces a (2, 3, 4) iota, whose element [i, j, k] is 12i + 4j + k.
    fn reduce(op: &str, kv: &[(&str, &str)]) -> (Vec<usize>, Vec<f64>) {
        let out = run(op, kv, &[iota(&[2, 3, 4])], false).unwrap().remove(0);
        (out.shape, out.data)
    }

    #[test]
    fn sums_and_means() {
        // sum_j (12i + 4j + k) = 36i + 12 + 3k.
        let (shape, data) = reduce("sum", &[("axis", "1")]);
        assert_eq!(shape, [2, 4]);
        assert_eq!(data, [12.0, 15.0, 18.0, 21.0, 48.0, 51.0, 54.0, 57.0]);
        // mean over i and k of 12i + 4j + k = 6 + 4j + 1.5.
        let (shape, data) = reduce("mean", &[("axis", "(0,2)")]);
        assert_eq!((shape, data), (vec![3], vec![7.5, 11.5, 15.5]));
        // exclude: sum over i and k = 48 + 32j + 12.
        let (shape, data) = reduce("sum_axis", &[("axis", "1"), ("exclude", "True")]);
        assert_eq!((shape, data), (vec![3], vec![60.0, 92.0, 124.0]));
        // Everything: 0 + 1 + ... + 23 = 276, shape (1,).
        assert_eq!(reduce("sum", &[]), (vec![1], vec![276.0]));
    }

    #[test]
    fn extrema_and_products() {
        assert_eq!(reduce("max", &[]), (vec![1], vec![23.0]));
        // min over k of 12i + 4j + k = 12i + 4j.
        let (shape, data) = reduce("min_axis", &[("axis", "-1")]);
        assert_eq!(shape, [2, 3]);
        assert_eq!(data, [0.0, 4.0, 8.0, 12.0, 16.0, 20.0]);
        let x = tensor(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let out = run("prod", &[("axis", "0")], &[x], false).unwrap();
        assert_eq!(out[0].data, [4.0, 10.0, 18.0]);
    }

    #[test]
    fn shapes() {
        let s = |kv: &[(&str, &str)]| infer("sum", kv, &[&[2, 3, 4]]);
        assert_eq!(
            s(&[("axis", "1"), ("keepdims", "1")]).unwrap().1[0],
            [2, 1, 4]
        );
        let kv = [("axis", "1"), ("keepdims", "1"), ("exclude", "1")];
        assert_eq!(s(&kv).unwrap().1[0], [1, 3, 1]);
        assert_eq!(s(&[("keepdims", "1")]).unwrap().1[0], [1, 1, 1]);
        // An empty axis reduces everything even with exclude (as MXNet does).
        assert_eq!(s(&[("axis", "()"), ("exclude", "1")]).unwrap().1[0], [1]);
        assert_eq!(
            s(&[("axis", "(0,1,2)"), ("exclude", "1")]).unwrap().1[0],
            [2, 3, 4]
        );
        // Unknown dimensions pass through.
        assert_eq!(
            infer("mean", &[("axis", "0")], &[&[0, 5]]).unwrap().1[0],
            [5]
        );
        assert_eq!(
            message(s(&[("axis", "(1,-2)")])),
            "sum: axis=(1, -2) names axis 1 twice"
        );
        assert_eq!(
            message(infer("max", &[("axis", "3")], &[&[2, 3]])),
            "max: axis=3 is out of range for input (2, 3)"
        );
    }

    /// Every parameter combination that matters, on a (3, 1, 7) input.
    const CASES: &[&[(&str, &str)]] = &[
        &[],
        &[("keepdims", "True")],
        &[("axis", "1")],
        &[("axis", "-1"), ("keepdims", "1")],
        &[("axis", "(0, 2)")],
        &[("axis", "(2, -3)"), ("keepdims", "True")],
        &[("axis", "0"), ("exclude", "True")],
        &[("axis", "(-1,)"), ("exclude", "True"), ("keepdims", "True")],
        &[("axis", "()"), ("exclude", "True")],
        &[("axis", "(0, 1, 2)"), ("exclude", "True")],
    ];

    #[test]
    fn gradients_match_finite_differences() {
        let x = randn(&[3, 1, 7], 1);
        // No zeros, so prod's ratio is defined.
        let mut nonzero = randn(&[3, 1, 7], 2);
        nonzero.data.iter_mut().for_each(|v| *v += v.signum() * 0.5);
        for kv in CASES {
            for op in ["sum", "mean", "max", "min"] {
                check_grad(op, kv, std::slice::from_ref(&x), false, &[]);
            }
            check_grad("prod", kv, std::slice::from_ref(&nonzero), false, &[]);
        }
        for op in ["sum_axis", "max_axis", "min_axis"] {
            check_grad(op, &[("axis", "1")], &[randn(&[2, 3, 4], 3)], false, &[]);
        }
        check_grad(
            "mean",
            &[("axis", "(0, 2)")],
            &[randn(&[2, 3, 4], 4)],
            false,
            &[],
        );
    }

    #[test]
    fn ties_all_receive_the_gradient() {
        // max over axis 1 of [[1, 3, 3], [2, 2, 0]] is [3, 2]: both 3s and both 2s win.
        let x = tensor(&[2, 3], &[1.0, 3.0, 3.0, 2.0, 2.0, 0.0]);
        let head = tensor(&[2], &[1.0, 10.0]);
        let g = analytic_grad(
            "max",
            &[("axis", "1")],
            std::slice::from_ref(&x),
            std::slice::from_ref(&head),
            false,
        );
        let g = g.unwrap().remove(0).unwrap();
        assert_eq!(g.data, [0.0, 1.0, 1.0, 10.0, 10.0, 0.0]);
        let g = analytic_grad("min", &[("axis", "1")], &[x], &[head], false);
        assert_eq!(
            g.unwrap()[0].as_ref().unwrap().data,
            [1.0, 0.0, 0.0, 0.0, 0.0, 10.0]
        );
    }

    #[test]
    fn mean_and_prod_gradients_by_hand() {
        // mean of a (2, 3) over axis 0 with head [1, 2, 3]: each element gets head / 2.
        let x = iota(&[2, 3]);
        let head = tensor(&[1, 3], &[1.0, 2.0, 3.0]);
        let kv = [("axis", "0"), ("keepdims", "True")];
        let g = analytic_grad("mean", &kv, &[x], &[head], false).unwrap();
        assert_eq!(g[0].as_ref().unwrap().data, [0.5, 1.0, 1.5, 0.5, 1.0, 1.5]);
        // prod of [2, 3, 4] = 24 with head 1: [12, 8, 6]; a zero gives NaN as in MXNet.
        let g = analytic_grad(
            "prod",
            &[],
            &[tensor(&[3], &[2.0, 3.0, 4.0])],
            &[tensor(&[1], &[1.0])],
            false,
        );
        assert_eq!(g.unwrap()[0].as_ref().unwrap().data, [12.0, 8.0, 6.0]);
        let g = analytic_grad(
            "prod",
            &[],
            &[tensor(&[2], &[0.0, 3.0])],
            &[tensor(&[1], &[1.0])],
            false,
        );
        let g = g.unwrap().remove(0).unwrap();
        assert!(g.data[0].is_nan() && g.data[1] == 0.0);
    }

    #[test]
    fn broadcast_reduced_inverts_the_reduced_layout() {
        // Reduced (2, 4) of a (2, 3, 4) over axis 1: out[i, j, k] = reduced[i, k].
        let kv = [("axis", "1")];
        let out = run(
            "_broadcast_reduced",
            &kv,
            &[iota(&[2, 4]), iota(&[2, 3, 4])],
            false,
        );
        let out = out.unwrap().remove(0);
        assert_eq!(out.shape, [2, 3, 4]);
        assert_eq!(out.data[..8], [0.0, 1.0, 2.0, 3.0, 0.0, 1.0, 2.0, 3.0]);
        assert_eq!(out.data[12..16], [4.0, 5.0, 6.0, 7.0]);
        // Everything reduced to (1,): a constant.
        let out = run(
            "_broadcast_reduced",
            &[],
            &[tensor(&[1], &[5.0]), iota(&[2, 2])],
            false,
        );
        assert_eq!(out.unwrap()[0].data, [5.0; 4]);
        // exclude with keepdims: (1, 3, 1) from (2, 3, 4) keeps axis 1.
        let kv = [("axis", "1"), ("exclude", "1"), ("keepdims", "1")];
        let out = run(
            "_broadcast_reduced",
            &kv,
            &[iota(&[1, 3, 1]), iota(&[2, 3, 4])],
            false,
        );
        let out = out.unwrap().remove(0);
        assert_eq!((out.data[0], out.data[5], out.data[23]), (0.0, 1.0, 2.0));
        assert_eq!(
            infer_err("_broadcast_reduced", &kv, &[&[2, 3, 4], &[2, 3, 4]]),
            "input `reduced` has shape (2, 3, 4) but (1, 3, 1) is required"
        );
        let (ins, _) = infer_both("_broadcast_reduced", &kv, &[&[], &[]], &[&[2, 3, 4]]).unwrap();
        assert_eq!(ins, [vec![1, 3, 1], vec![2, 3, 4]]);
        assert_eq!(
            message(infer(
                "_broadcast_reduced",
                &[("axis", "3")],
                &[&[2], &[2, 3]]
            )),
            "_broadcast_reduced: axis=3 is out of range for input (2, 3)"
        );
    }

    #[test]
    fn backward_extremum_masks_by_equality() {
        let args = [
            tensor(&[3], &[1.0, 2.0, 3.0]),
            tensor(&[3], &[5.0, 4.0, 5.0]),
            tensor(&[3], &[5.0, 5.0, 5.0]),
        ];
        let out = run("_backward_extremum", &[], &args, false).unwrap();
        assert_eq!(out[0].data, [1.0, 0.0, 3.0]);
    }

    /// [[1, NaN, 3], [NaN, NaN, -2]]
    fn with_nan() -> crate::Tensor {
        let nan = f64::NAN;
        tensor(&[2, 3], &[1.0, nan, 3.0, nan, nan, -2.0])
    }

    #[test]
    fn nan_reductions_skip_nan() {
        let r = |op: &str, kv: &[(&str, &str)]| run(op, kv, &[with_nan()], false).unwrap();
        assert_eq!(r("nansum", &[("axis", "1")])[0].data, [4.0, -2.0]);
        assert_eq!(r("nanprod", &[("axis", "1")])[0].data, [3.0, -2.0]);
        assert_eq!(r("nansum", &[])[0].data, [2.0]);
        let out = r("nanprod", &[("axis", "0"), ("keepdims", "True")]).remove(0);
        assert_eq!((out.shape, out.data), (vec![1, 3], vec![1.0, 1.0, -6.0]));
        assert_eq!(
            message(infer("nansum", &[("axis", "2")], &[&[2, 3]])),
            "nansum: axis=2 is out of range for input (2, 3)"
        );
    }

    #[test]
    fn nan_reduction_gradients() {
        // nansum: the head where the input is not NaN; nanprod: head * prod / x there.
        let head = tensor(&[2], &[1.0, 10.0]);
        let g = analytic_grad(
            "nansum",
            &[("axis", "1")],
            &[with_nan()],
            std::slice::from_ref(&head),
            false,
        );
        let g = g.unwrap().remove(0).unwrap();
        assert_eq!(g.data, [1.0, 0.0, 1.0, 0.0, 0.0, 10.0]);
        let g = analytic_grad("nanprod", &[("axis", "1")], &[with_nan()], &[head], false);
        let g = g.unwrap().remove(0).unwrap();
        assert_eq!(g.data, [3.0, 0.0, 1.0, 0.0, 0.0, 10.0]);
        let x = randn(&[3, 1, 7], 5);
        let mut some_nan = x.clone();
        some_nan.data[3] = f64::NAN;
        some_nan.data[11] = f64::NAN;
        for kv in CASES {
            for op in ["nansum", "nanprod"] {
                check_grad(op, kv, std::slice::from_ref(&x), false, &[]);
                check_grad(op, kv, std::slice::from_ref(&some_nan), false, &[]);
            }
        }
    }
}
