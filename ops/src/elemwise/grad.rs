//! Operators of element-wise gradients, derived from the forward operators' definitions:
//! `_backward_elemwise` evaluates `ograd * ∂expr/∂x_wrt` for the forward operator's own
//! scalar expression, and `_broadcast_backward` sums a gradient back to the shape of a
//! broadcast input. So no element-wise gradient is written by hand.

use crate::param::{param, ParamType};
use crate::shape::{self, invalid, set_out, OpError, Shape};
use crate::{
    c, lookup, x, Attrs, Combiner, Compute, DType, Expr, Grad, Inputs, OpDef, Pattern, Reduction,
    Registry,
};
use std::collections::BTreeMap;

/// The attributes of the `_backward_elemwise` node differentiating `op` (with its
/// parameters `raw`) with respect to input `wrt`.
///
/// With `from_output` (unary operators declaring `grad_from_output`), the node reads the
/// forward output instead of the input, so the input need not be kept for the backward
/// pass (relu, sigmoid, tanh, exp: as MXNet's backward kernels).
pub fn backward_elemwise_attrs(
    op: &str,
    raw: &[(&str, &str)],
    wrt: usize,
    from_output: bool,
) -> [(&'static str, String); 4] {
    let encoded: Vec<String> = raw.iter().map(|(k, v)| format!("{k}={v}")).collect();
    [
        ("op", op.to_string()),
        ("attrs", encoded.join(";")),
        ("wrt", wrt.to_string()),
        (
            "from_output",
            if from_output { "True" } else { "False" }.to_string(),
        ),
    ]
}

/// The forward operator and its parameters, from a `_backward_elemwise` node's attributes.
fn forward(a: &Attrs) -> Result<(&'static OpDef, Attrs), OpError> {
    let name = a.str("op");
    let op = lookup(name).ok_or_else(|| {
        OpError::Invalid(format!("_backward_elemwise: unknown operator `{name}`"))
    })?;
    let raw: BTreeMap<String, String> = a
        .str("attrs")
        .split(';')
        .filter(|kv| !kv.is_empty())
        .filter_map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect();
    let params = Attrs::parse(op.params, &raw)
        .map_err(|e| OpError::Invalid(format!("_backward_elemwise of {name}: {e}")))?;
    if !matches!(op.compute, Compute::Scalar(_)) {
        return invalid(format!("_backward_elemwise: {name} is not element-wise"));
    }
    Ok((op, params))
}

fn backward_inputs(a: &Attrs) -> Vec<String> {
    if a.bool("from_output") {
        return vec!["ograd".into(), "output".into()];
    }
    let names = forward(a)
        .map(|(op, p)| op.input_names(&p))
        .unwrap_or_default();
    std::iter::once("ograd".to_string()).chain(names).collect()
}

/// `ograd * ∂expr/∂x_wrt`, with the forward inputs shifted behind `ograd`.
fn backward_expr(a: &Attrs) -> Expr {
    match forward(a) {
        Ok((op, params)) => match (op.compute, op.grad_from_output) {
            (_, Some(dy)) if a.bool("from_output") => x(0) * dy(&params).shift_inputs(1),
            (Compute::Scalar(f), _) => {
                x(0) * f(&params).diff(a.int("wrt") as usize).shift_inputs(1)
            }
            _ => c(f64::NAN),
        },
        // Unreachable: inference validates the attributes before anything evaluates.
        Err(_) => c(f64::NAN),
    }
}

/// The output has the broadcast shape of all inputs (the forward output's shape).
fn backward_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let (op, params) = forward(a)?;
    let wrt = a.int("wrt");
    let n = op.input_names(&params).len();
    if wrt < 0 || wrt as usize >= n {
        return invalid(format!(
            "_backward_elemwise: `wrt` {wrt} is not an input of {} ({n} inputs)",
            op.name
        ));
    }
    if a.bool("from_output") {
        if op.grad_from_output.is_none() || n != 1 {
            return invalid(format!(
                "_backward_elemwise: {} has no gradient in terms of its output",
                op.name
            ));
        }
        return shape::same_shape(a, ins, outs);
    }
    // The head gradient has the forward output's shape: the broadcast of the inputs.
    if ins[1..].iter().all(|s| shape::is_known(s)) {
        let forward_out = ins[2..]
            .iter()
            .try_fold(ins[1].clone(), |acc, s| shape::broadcast(&acc, s))?;
        shape::set_in(ins, 0, &forward_out)?;
    }
    let ograd = ins[0].clone();
    set_out(outs, 0, &ograd)
}

/// The gradient has the dtype of the input it is for.
fn backward_dtype(
    a: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    let wrt = a.int("wrt").max(0) as usize + 1;
    if let Some(d) = ins.get(wrt).copied().flatten() {
        outs[0] = Some(d);
    }
    Ok(())
}

static BACKWARD_ELEMWISE: OpDef = OpDef {
    doc: "Gradient of an element-wise operator with respect to one input: ograd times the \
          symbolic derivative of the operator's scalar expression.",
    params: &[
        param("op", ParamType::Str, None, "the forward operator"),
        param(
            "attrs",
            ParamType::Str,
            Some(""),
            "its parameters, `k=v;k=v`",
        ),
        param(
            "from_output",
            ParamType::Bool,
            Some("False"),
            "read the forward output instead of the inputs (unary operators only)",
        ),
        param(
            "wrt",
            ParamType::Int,
            None,
            "the input differentiated against",
        ),
    ],
    inputs: Inputs::Dynamic(backward_inputs),
    infer_shape: backward_shape,
    infer_dtype: backward_dtype,
    inplace: &[(0, 0)],
    dtypes: &DType::NUMERIC,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_elemwise",
        Pattern::ElemWise,
        Compute::Scalar(backward_expr),
    )
};

/// Sums `data` over the axes where `like` was broadcast, giving `like`'s shape: the
/// leading axes `like` lacks, and those where it has 1 and `data` more.
fn broadcast_backward_reduce(
    _: &Attrs,
    data: &[usize],
    like: &[usize],
) -> Result<Reduction, OpError> {
    let lead = data.len().checked_sub(like.len()).ok_or_else(|| {
        OpError::Invalid(format!(
            "cannot sum {} to the larger shape {}",
            shape::fmt_shape(data),
            shape::fmt_shape(like)
        ))
    })?;
    let axes = (0..data.len())
        .filter(|&a| a < lead || (like[a - lead] == 1 && data[a] != 1))
        .collect();
    Ok(Reduction {
        combiner: Combiner::Sum,
        axes,
        pre: x(0),
        post: x(0),
    })
}

fn broadcast_backward_shape(
    _: &Attrs,
    ins: &mut [Shape],
    outs: &mut [Shape],
) -> Result<(), OpError> {
    if shape::is_known(&ins[0]) && shape::is_known(&ins[1]) {
        // `like` must broadcast to `data`.
        if shape::broadcast(&ins[1], &ins[0])? != ins[0] {
            return invalid(format!(
                "{} does not broadcast to {}",
                shape::fmt_shape(&ins[1]),
                shape::fmt_shape(&ins[0])
            ));
        }
    }
    set_out(outs, 0, &ins[1].clone())
}

fn first_dtype(
    _: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    if let Some(d) = ins[0] {
        outs[0] = Some(d);
    }
    Ok(())
}

static BROADCAST_BACKWARD: OpDef = OpDef {
    doc: "Sums `data` over the axes along which `like` was broadcast, giving `like`'s shape \
          (the gradient of a broadcast input).",
    inputs: Inputs::Fixed(&["data", "like"]),
    infer_shape: broadcast_backward_shape,
    infer_dtype: first_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    ..OpDef::new(
        "_broadcast_backward",
        Pattern::Reduce,
        Compute::Reduce(broadcast_backward_reduce),
    )
};

static ZEROS_LIKE: OpDef = OpDef {
    doc: "Zeros of the input's shape and dtype.",
    dtypes: &DType::ALL,
    grad: Grad::Zero,
    ..OpDef::new("zeros_like", Pattern::ElemWise, Compute::Scalar(|_| c(0.0)))
};

pub fn register(r: &mut Registry) {
    r.add(&BACKWARD_ELEMWISE);
    r.add(&BROADCAST_BACKWARD);
    r.add(&ZEROS_LIKE);
}

#[cfg(test)]
mod tests {
    use super::backward_elemwise_attrs;
    use crate::testutil::{run, t};

    #[test]
    fn derives_gradients_from_forward_expressions() {
        let attrs = backward_elemwise_attrs("Activation", &[("act_type", "tanh")], 0, false);
        let kv: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let g = run(
            "_backward_elemwise",
            &kv,
            &[t(&[2], vec![1.0, 2.0]), t(&[2], vec![0.0, 0.5])],
            false,
        )
        .unwrap();
        let d = 1.0 - 0.5f64.tanh().powi(2);
        assert_eq!(g[0].data, vec![1.0, 2.0 * d]);
        let attrs = backward_elemwise_attrs("elemwise_div", &[], 1, false);
        let kv: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let g = run(
            "_backward_elemwise",
            &kv,
            &[t(&[1], vec![3.0]), t(&[1], vec![2.0]), t(&[1], vec![4.0])],
            false,
        )
        .unwrap();
        assert_eq!(g[0].data, vec![3.0 * -2.0 / 16.0]);
    }

    #[test]
    fn broadcast_backward_sums_to_the_input_shape() {
        let g = run(
            "_broadcast_backward",
            &[],
            &[
                t(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
                t(&[1, 3], vec![0.0; 3]),
            ],
            false,
        )
        .unwrap();
        assert_eq!(
            (g[0].shape.clone(), g[0].data.clone()),
            (vec![1, 3], vec![5.0, 7.0, 9.0])
        );
        let g = run(
            "_broadcast_backward",
            &[],
            &[
                t(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
                t(&[2, 1], vec![0.0; 2]),
            ],
            false,
        )
        .unwrap();
        assert_eq!(g[0].data, vec![6.0, 15.0]);
        let g = run(
            "_broadcast_backward",
            &[],
            &[t(&[2, 3], vec![1.0; 6]), t(&[3], vec![0.0; 3])],
            false,
        )
        .unwrap();
        assert_eq!(g[0].data, vec![2.0, 2.0, 2.0]);
    }
}

#[cfg(test)]
mod checks {
    use crate::testutil::{check_grad, randn};

    /// Every differentiable element-wise operator of the Core set, against finite
    /// differences (awkward sizes, broadcasting).
    #[test]
    fn elementwise_gradients_match_finite_differences() {
        let x = || randn(&[3, 7], 1);
        let pos = || {
            let mut t = randn(&[3, 7], 2);
            t.data.iter_mut().for_each(|v| *v = v.abs() + 0.5);
            t
        };
        for op in [
            "relu", "sigmoid", "tanh", "exp", "square", "abs", "negative", "_copy",
        ] {
            check_grad(op, &[], &[x()], false, &[]);
        }
        for op in ["log", "sqrt"] {
            check_grad(op, &[], &[pos()], false, &[]);
        }
        for act in ["relu", "sigmoid", "tanh", "softrelu", "softsign"] {
            check_grad("Activation", &[("act_type", act)], &[x()], false, &[]);
        }
        check_grad(
            "clip",
            &[("a_min", "-0.3"), ("a_max", "0.4")],
            &[x()],
            false,
            &[],
        );
        check_grad("Cast", &[("dtype", "float64")], &[x()], false, &[]);
        for op in ["elemwise_add", "elemwise_sub", "elemwise_mul"] {
            check_grad(op, &[], &[x(), randn(&[3, 7], 3)], false, &[]);
        }
        check_grad("elemwise_div", &[], &[x(), pos()], false, &[]);
        check_grad(
            "add_n",
            &[("num_args", "3")],
            &[x(), randn(&[3, 7], 4), randn(&[3, 7], 5)],
            false,
            &[],
        );
        for op in [
            "_plus_scalar",
            "_minus_scalar",
            "_rminus_scalar",
            "_mul_scalar",
            "_div_scalar",
        ] {
            check_grad(op, &[("scalar", "1.5")], &[x()], false, &[]);
        }
        check_grad("_rdiv_scalar", &[("scalar", "1.5")], &[pos()], false, &[]);
        for op in ["broadcast_add", "broadcast_sub", "broadcast_mul"] {
            check_grad(
                op,
                &[],
                &[randn(&[3, 1, 5], 6), randn(&[1, 4, 1], 7)],
                false,
                &[],
            );
            check_grad(op, &[], &[randn(&[2, 3], 8), randn(&[3], 9)], false, &[]);
        }
        let mut d = randn(&[1, 4, 1], 10);
        d.data.iter_mut().for_each(|v| *v = v.abs() + 0.5);
        check_grad("broadcast_div", &[], &[randn(&[3, 1, 5], 6), d], false, &[]);
        // BlockGrad stops the gradient: its rule gives none while finite differences see the
        // identity's, so the checker must reject it (which also shows the checker can fail).
        let g = crate::testutil::analytic_grad("BlockGrad", &[], &[x()], &[x()], false).unwrap();
        assert!(g[0].is_none());
        assert!(
            std::panic::catch_unwind(|| check_grad("BlockGrad", &[], &[x()], false, &[])).is_err()
        );
    }
}
