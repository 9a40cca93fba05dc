//! norm: the L1 or L2 norm over axes (alias `_sparse_norm`).
//!
//! Gradient (MXNet's `_backward_norm`): `ograd * x / norm` for ord=2 (NaN where the norm
//! is 0, as in MXNet) and `ograd * sign(x)` for ord=1, with ograd and the norm first copied
//! back over the reduced axes by `_broadcast_reduced`.
//!
//! MXNet 1.9.1 quirks: its CPU kernel fails ("data type do not match") whenever
//! `out_dtype` differs from the input's dtype, while kiln writes the norm in `out_dtype`;
//! and integer inputs are reduced in the integer type with a scaled sum of squares (the
//! L2 norm of the int32 [1, -2, 3, 4] is 4), so kiln lists only the float dtypes.

use super::{apply, infer, input_elems, reduced_axes, Grads};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{invalid, same_dtype, OpError, Shape, Slot};
use crate::{
    x, Attrs, Combiner, Compute, DType, Expr, Grad, GradCtx, GradGraph, Inputs, OpDef, Pattern,
    Reduction, Registry,
};

const PARAMS: &[ParamDef] = &[
    param(
        "ord",
        ParamType::Int,
        Some("2"),
        "order of the norm: 1 (sum of magnitudes) or 2 (Euclidean)",
    ),
    param(
        "axis",
        ParamType::OptShape,
        Some("None"),
        "the axes to reduce (None or (): all of them); negative counts from the end; \
         a 2-tuple gives the same entrywise norm of each matrix",
    ),
    param(
        "out_dtype",
        ParamType::Enum(&[
            "None", "float16", "float32", "float64", "int32", "int64", "int8",
        ]),
        Some("None"),
        "dtype of the output (None: the input's)",
    ),
    param(
        "keepdims",
        ParamType::Bool,
        Some("False"),
        "keep the reduced axes, with size 1",
    ),
];

static NORM: OpDef = OpDef {
    aliases: &["_sparse_norm"],
    doc: "The L1 (ord=1) or L2 (ord=2) norm of the elements over the given axes; reducing \
          every axis without keepdims gives shape (1,).",
    params: PARAMS,
    infer_shape: norm_shape,
    infer_dtype: norm_dtype,
    inplace: &[],
    cost: input_elems,
    dtypes: &DType::FLOATS,
    grad: Grad::Rule(norm_grad),
    ..OpDef::new("norm", Pattern::Reduce, Compute::Reduce(norm_reduce))
};

fn ord(a: &Attrs) -> Result<i64, OpError> {
    match a.int("ord") {
        o @ (1 | 2) => Ok(o),
        o => invalid(format!("norm: ord={o} is not supported (only 1 and 2)")),
    }
}

fn norm_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    ord(a)?;
    infer("norm", a, ins, outs)
}

fn out_dtype(a: &Attrs) -> Option<DType> {
    DType::parse(a.str("out_dtype"))
}

/// The output has `out_dtype` when given, else the input's dtype.
fn norm_dtype(
    a: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    let Some(want) = out_dtype(a) else {
        return same_dtype(a, ins, outs);
    };
    match outs[0] {
        Some(have) if have != want => Err(OpError::DType {
            slot: Slot::Out(0),
            have,
            want,
        }),
        _ => {
            outs[0] = Some(want);
            Ok(())
        }
    }
}

fn norm_reduce(a: &Attrs, input: &[usize], _: &[usize]) -> Result<Reduction, OpError> {
    let l2 = ord(a)? == 2;
    Ok(Reduction {
        combiner: Combiner::Sum,
        axes: reduced_axes("norm", a, input)?,
        pre: if l2 { x(0) * x(0) } else { x(0).abs() },
        post: if l2 { x(0).sqrt() } else { x(0) },
    })
}

fn norm_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Grads {
    // `_broadcast_reduced` takes the reduction's axis and keepdims (norm has no exclude).
    let kv: Vec<(&str, &str)> = ctx
        .raw_attrs
        .iter()
        .filter(|(k, _)| matches!(*k, "axis" | "keepdims"))
        .copied()
        .collect();
    let data = ctx.inputs[0];
    let ograd = apply(g, "_broadcast_reduced", &[ctx.out_grads[0], data], &kv)?;
    let norm = apply(g, "_broadcast_reduced", &[ctx.outputs[0], data], &kv)?;
    let o = ord(ctx.attrs)?.to_string();
    let grad = apply(g, "_backward_norm", &[ograd, data, norm], &[("ord", &o)])?;
    Ok(vec![Some(grad)])
}

static BACKWARD_NORM: OpDef = OpDef {
    doc: "The gradient of norm: `ograd * data / norm` for ord=2, `ograd * sign(data)` for \
          ord=1 (ograd and norm copied back to data's shape); the output has data's dtype.",
    params: &[param(
        "ord",
        ParamType::Int,
        Some("2"),
        "order of the norm: 1 or 2",
    )],
    inputs: Inputs::Fixed(&["ograd", "data", "norm"]),
    infer_dtype: data_dtype,
    dtypes: &DType::FLOATS,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_norm",
        Pattern::ElemWise,
        Compute::Scalar(backward_norm_expr),
    )
};

fn backward_norm_expr(a: &Attrs) -> Expr {
    match a.int("ord") {
        1 => x(0) * x(1).sign(),
        _ => x(0) * (x(1) / x(2)),
    }
}

/// The gradient has the dtype of `data` (input 1); ograd and norm may have `out_dtype`.
fn data_dtype(
    _: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    match (ins[1], outs[0]) {
        (Some(d), _) => outs[0] = Some(d),
        (None, Some(d)) => ins[1] = Some(d),
        _ => {}
    }
    Ok(())
}

pub fn register(r: &mut Registry) {
    r.add(&NORM);
    r.add(&BACKWARD_NORM);
}

#[cfg(test)]
mod tests {
    use crate::testutil::{analytic_grad, check_grad, infer, message, randn, run, tensor};
    use crate::DType;

    fn x() -> crate::Tensor {
        tensor(&[2, 2], &[1.0, -2.0, 3.0, 4.0])
    }

    #[test]
    fn l1_and_l2_by_hand() {
        let norm = |kv: &[(&str, &str)]| run("norm", kv, &[x()], false).unwrap().remove(0);
        let all = norm(&[]);
        assert_eq!(all.shape, [1]);
        assert!((all.data[0] - 30f64.sqrt()).abs() < 1e-12);
        assert_eq!(norm(&[("ord", "1")]).data, [10.0]);
        let rows = norm(&[("axis", "1"), ("keepdims", "True")]);
        assert_eq!(rows.shape, [2, 1]);
        assert!((rows.data[0] - 5f64.sqrt()).abs() < 1e-12 && rows.data[1] == 5.0);
        let cols = norm(&[("axis", "-2"), ("ord", "1")]);
        assert_eq!((cols.shape, cols.data), (vec![2], vec![4.0, 6.0]));
        // A 2-tuple is the entrywise norm of each matrix.
        assert_eq!(norm(&[("axis", "(0, 1)"), ("ord", "1")]).data, [10.0]);
        let f64_out = run(
            "norm",
            &[("out_dtype", "float64")],
            &[x().cast(DType::F32)],
            false,
        );
        assert_eq!(f64_out.unwrap()[0].dtype, DType::F64);
    }

    #[test]
    fn shapes_and_errors() {
        let s = |kv: &[(&str, &str)]| infer("norm", kv, &[&[2, 3, 4]]);
        assert_eq!(s(&[("axis", "(0, 2)")]).unwrap().1[0], [3]);
        assert_eq!(s(&[("keepdims", "1")]).unwrap().1[0], [1, 1, 1]);
        assert_eq!(s(&[("axis", "()")]).unwrap().1[0], [1]);
        assert_eq!(
            message(s(&[("ord", "3")])),
            "norm: ord=3 is not supported (only 1 and 2)"
        );
        assert_eq!(
            message(s(&[("axis", "3")])),
            "norm: axis=3 is out of range for input (2, 3, 4)"
        );
        assert_eq!(
            message(s(&[("axis", "(0, -3)")])),
            "norm: axis=(0, -3) names axis 0 twice"
        );
    }

    #[test]
    fn gradients_match_finite_differences() {
        for kv in [
            &[][..],
            &[("ord", "1")],
            &[("axis", "1")],
            &[("axis", "-1"), ("keepdims", "True"), ("ord", "1")],
            &[("axis", "(0, 2)")],
            &[("axis", "(2, -3)"), ("keepdims", "1")],
        ] {
            check_grad("norm", kv, &[randn(&[3, 1, 7], 1)], false, &[]);
        }
        check_grad("norm", &[("axis", "0")], &[randn(&[1], 2)], false, &[]);
    }

    #[test]
    fn gradient_by_hand_and_at_zero() {
        // d|x|/dx = x / |x| for [3, 0, 4] (norm 5); ord=1: sign(x).
        let v = tensor(&[3], &[3.0, 0.0, -4.0]);
        let head = tensor(&[1], &[10.0]);
        let (v1, h1) = (std::slice::from_ref(&v), std::slice::from_ref(&head));
        let g = analytic_grad("norm", &[], v1, h1, false).unwrap();
        assert_eq!(g[0].as_ref().unwrap().data, [6.0, 0.0, -8.0]);
        let g = analytic_grad("norm", &[("ord", "1")], &[v], h1, false).unwrap();
        assert_eq!(g[0].as_ref().unwrap().data, [10.0, 0.0, -10.0]);
        // A zero norm gives NaN, as MXNet's x / norm does.
        let g = analytic_grad("norm", &[], &[tensor(&[2], &[0.0, 0.0])], &[head], false);
        assert!(g.unwrap()[0].as_ref().unwrap().data[0].is_nan());
    }
}
