//! argmax and argmin: the index of the extremum along one axis, or in the flattened input.
//!
//! As in MXNet 1.9.1: the index has the input's dtype (float32 indices for float32 data);
//! the first of tied extrema wins; a NaN counts as the extremum (the first NaN wins);
//! the gradient is zero (MXNet's MakeZeroGradNodes).

use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, set_out, OpError, Shape};
use crate::tensor_ops::axis_of;
use crate::tensor_ops::indexing::{around, output};
use crate::{Attrs, Compute, DType, Grad, KernelCtx, OpDef, Pattern, Registry, Tensor};

const PARAMS: &[ParamDef] = &[
    param(
        "axis",
        ParamType::OptInt,
        Some("None"),
        "the axis to search (None: the flattened input); negative counts from the end",
    ),
    param(
        "keepdims",
        ParamType::Bool,
        Some("False"),
        "keep the searched axis (every axis when axis is None) with size 1",
    ),
];

macro_rules! arg_op {
    ($static:ident, $name:literal, $doc:literal, $better:expr) => {
        static $static: OpDef = {
            fn shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
                arg_shape($name, a, ins, outs)
            }
            fn reference(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
                arg_ref($name, ctx, ins[0], $better)
            }
            OpDef {
                doc: $doc,
                params: PARAMS,
                infer_shape: shape,
                inplace: &[],
                dtypes: &DType::NUMERIC,
                grad: Grad::Zero,
                ..OpDef::new(
                    $name,
                    Pattern::Opaque,
                    Compute::Library {
                        kernel: $name,
                        reference,
                    },
                )
            }
        };
    };
}

arg_op!(
    ARGMAX,
    "argmax",
    "Index of the maximum along `axis` (of the flattened input when axis is None), in the \
     input's dtype; ties give the first index, and a NaN counts as the maximum.",
    |v, best| v > best
);
arg_op!(
    ARGMIN,
    "argmin",
    "Index of the minimum along `axis` (of the flattened input when axis is None), in the \
     input's dtype; ties give the first index, and a NaN counts as the minimum.",
    |v, best| v < best
);

/// The searched axis (`None`: all, flattened) of a known input shape.
fn searched(op: &str, a: &Attrs, input: &[usize]) -> Result<Option<usize>, OpError> {
    a.opt_int("axis")
        .map(|ax| axis_of(op, "axis", ax, input))
        .transpose()
}

fn arg_shape(op: &str, a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let input = ins[0].clone();
    if input.is_empty() {
        return Ok(());
    }
    let keep = a.bool("keepdims");
    let mut out = match searched(op, a, &input)? {
        None if keep => vec![1; input.len()],
        None => vec![],
        Some(ax) => {
            let mut s = input;
            if keep {
                s[ax] = 1;
            } else {
                s.remove(ax);
            }
            s
        }
    };
    if out.is_empty() {
        out.push(1);
    }
    set_out(outs, 0, &out)
}

fn arg_ref(
    op: &str,
    ctx: &KernelCtx,
    x: &Tensor,
    better: fn(f64, f64) -> bool,
) -> Result<Vec<Tensor>, OpError> {
    let (outer, n, inner) = match searched(op, ctx.attrs, &x.shape)? {
        None => (1, x.len(), 1),
        Some(ax) => around(&x.shape, ax),
    };
    if n == 0 {
        return invalid(format!("{op}: input {} is empty", fmt_shape(&x.shape)));
    }
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| x.data[(o * n + j) * inner + i];
            let mut best = 0;
            for j in 1..n {
                if !at(best).is_nan() && (at(j).is_nan() || better(at(j), at(best))) {
                    best = j;
                }
            }
            out.push(best as f64);
        }
    }
    Ok(vec![output(op, ctx, 0, out)?])
}

pub fn register(r: &mut Registry) {
    r.add(&ARGMAX);
    r.add(&ARGMIN);
}

#[cfg(test)]
mod tests {
    use crate::testutil::{analytic_grad, infer, message, run, tensor};
    use crate::DType;

    #[test]
    fn indices_by_hand() {
        let x = tensor(&[2, 3], &[1.0, 3.0, 3.0, 2.0, 2.0, 0.0]);
        let arg = |op: &str, kv: &[(&str, &str)]| {
            let out = run(op, kv, std::slice::from_ref(&x), false)
                .unwrap()
                .remove(0);
            (out.shape, out.data)
        };
        assert_eq!(arg("argmax", &[("axis", "1")]), (vec![2], vec![1.0, 0.0]));
        assert_eq!(
            arg("argmin", &[("axis", "0"), ("keepdims", "True")]),
            (vec![1, 3], vec![0.0, 1.0, 1.0])
        );
        assert_eq!(arg("argmax", &[]), (vec![1], vec![1.0]));
        assert_eq!(arg("argmin", &[("keepdims", "1")]), (vec![1, 1], vec![5.0]));
        assert_eq!(
            arg("argmax", &[("axis", "-2")]),
            (vec![3], vec![1.0, 0.0, 0.0])
        );
        // The first NaN wins, as in MXNet.
        let nan = f64::NAN;
        let y = tensor(&[2, 3], &[1.0, nan, nan, nan, 2.0, 0.0]);
        for op in ["argmax", "argmin"] {
            let out = run(op, &[("axis", "1")], std::slice::from_ref(&y), false).unwrap();
            assert_eq!(out[0].data, [1.0, 0.0]);
        }
        // The index has the input's dtype.
        let out = run("argmax", &[], &[x.cast(DType::I32)], false).unwrap();
        assert_eq!(out[0].dtype, DType::I32);
    }

    #[test]
    fn shapes_and_errors() {
        let s = |kv: &[(&str, &str)]| infer("argmax", kv, &[&[2, 3, 4]]);
        assert_eq!(s(&[("axis", "-2")]).unwrap().1[0], [2, 4]);
        assert_eq!(
            s(&[("axis", "1"), ("keepdims", "True")]).unwrap().1[0],
            [2, 1, 4]
        );
        assert_eq!(s(&[("keepdims", "True")]).unwrap().1[0], [1, 1, 1]);
        assert_eq!(
            infer("argmin", &[("axis", "0")], &[&[7]]).unwrap().1[0],
            [1]
        );
        assert_eq!(
            message(s(&[("axis", "3")])),
            "argmax: axis=3 is out of range for input (2, 3, 4)"
        );
    }

    #[test]
    fn the_gradient_is_zero() {
        let x = tensor(&[3], &[1.0, 5.0, 2.0]);
        let g = analytic_grad("argmax", &[], &[x], &[tensor(&[1], &[1.0])], false).unwrap();
        assert!(g[0].is_none());
    }
}
