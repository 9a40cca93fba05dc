//! The gradient of one node, whatever its kind of [`Grad`]: element-wise operators get
//! `_backward_elemwise` (summed back over broadcast axes), `Zero` gives no gradient,
//! `Rule` runs the operator's own rule. The compiler's autodiff pass and the operator
//! tests' eager checker both go through here.

use crate::elemwise::backward_elemwise_attrs;
use crate::{Compute, Grad, GradCtx, GradGraph, Handle, OpDef, OpError, Pattern};

/// The derivative of an element-wise operator with respect to input `i` when it is a
/// constant (reads no input).
fn constant_derivative(op: &OpDef, ctx: &GradCtx, i: usize) -> Option<f64> {
    let Compute::Scalar(f) = op.compute else {
        return None;
    };
    let d = f(ctx.attrs).diff(i);
    fn reads_input(e: &crate::Expr) -> bool {
        match e {
            crate::Expr::Input(_) => true,
            crate::Expr::Const(_) => false,
            crate::Expr::Unary(_, a) => reads_input(a),
            crate::Expr::Binary(_, a, b) => reads_input(a) || reads_input(b),
            crate::Expr::Select(p, a, b) => reads_input(p) || reads_input(a) || reads_input(b),
        }
    }
    (!reads_input(&d)).then(|| d.eval(&[]))
}

/// The gradient of each input of `op`'s node described by `ctx` (`None`: zero).
pub fn gradient(
    op: &OpDef,
    ctx: &GradCtx,
    g: &mut dyn GradGraph,
) -> Result<Vec<Option<Handle>>, OpError> {
    match op.grad {
        Grad::NotDifferentiable => Err(OpError::Invalid(format!(
            "{} is not differentiable, but a gradient must flow through it",
            op.name
        ))),
        Grad::Zero => Ok(vec![None; ctx.inputs.len()]),
        Grad::Rule(rule) => rule(g, ctx),
        Grad::Elemwise => (0..ctx.inputs.len())
            .map(|i| {
                let grad = match constant_derivative(op, ctx, i) {
                    // d/dx is a constant (add, subtract, scalar arithmetic, copies): the
                    // gradient needs no forward value, so none is kept for it.
                    Some(1.0) => ctx.out_grads[0],
                    Some(d) => {
                        let s = crate::param::py_float(d);
                        g.op("_mul_scalar", &[ctx.out_grads[0]], &[("scalar", &s)])?[0]
                    }
                    None => {
                        // A unary operator whose derivative is known from its output reads
                        // that instead of its input, which can then die early.
                        let from_output = op.grad_from_output.is_some() && ctx.inputs.len() == 1;
                        let attrs = backward_elemwise_attrs(op.name, ctx.raw_attrs, i, from_output);
                        let kv: Vec<(&str, &str)> =
                            attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
                        let args: Vec<Handle> = if from_output {
                            vec![ctx.out_grads[0], ctx.outputs[0]]
                        } else {
                            std::iter::once(ctx.out_grads[0])
                                .chain(ctx.inputs.iter().copied())
                                .collect()
                        };
                        g.op("_backward_elemwise", &args, &kv)?[0]
                    }
                };
                if op.pattern == Pattern::Broadcast {
                    Ok(Some(
                        g.op("_broadcast_backward", &[grad, ctx.inputs[i]], &[])?[0],
                    ))
                } else {
                    Ok(Some(grad))
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod coverage {
    use crate::testutil::{check_grad, randn, GradCase};
    use crate::{registry, Grad};

    /// Every family's cases (each family file keeps a `GRAD_CASES` table).
    fn cases() -> Vec<GradCase> {
        [
            crate::elemwise::GRAD_CASES,
            crate::nn::GRAD_CASES,
            crate::tensor_ops::GRAD_CASES,
            crate::sampling::GRAD_CASES,
        ]
        .concat()
    }

    #[test]
    fn every_differentiable_operator_is_checked_against_finite_differences() {
        let cases = cases();
        for (i, (name, kv, shapes, positive, train)) in cases.iter().enumerate() {
            let inputs: Vec<_> = shapes
                .iter()
                .enumerate()
                .map(|(k, s)| {
                    let mut t = randn(s, (i * 10 + k) as u64);
                    if *positive {
                        t.data.iter_mut().for_each(|v| *v = v.abs() + 0.5);
                    }
                    t
                })
                .collect();
            // BatchNorm's moving statistics are not differentiated.
            let skip: &[usize] = if *name == "BatchNorm" { &[3, 4] } else { &[] };
            check_grad(name, kv, &inputs, *train, skip);
        }
        let checked: Vec<&str> = cases.iter().map(|c| c.0).collect();
        let missing: Vec<&str> = registry()
            .ops()
            .iter()
            .filter(|op| {
                matches!(op.grad, Grad::Elemwise | Grad::Rule(_))
                    && !op.loss
                    && !checked.contains(&op.name)
            })
            .map(|op| op.name)
            .collect();
        assert!(
            missing.is_empty(),
            "differentiable operators without a gradient check: {missing:?}"
        );
    }
}
