//! The gradient of one node, whatever its kind of [`Grad`]: element-wise operators get
//! `_backward_elemwise` (summed back over broadcast axes), `Zero` gives no gradient,
//! `Rule` runs the operator's own rule. The compiler's autodiff pass and the operator
//! tests' eager checker both go through here.

use crate::elemwise::backward_elemwise_attrs;
use crate::{Grad, GradCtx, GradGraph, Handle, OpDef, OpError, Pattern};

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
                let attrs = backward_elemwise_attrs(op.name, ctx.raw_attrs, i);
                let kv: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
                let args: Vec<Handle> = std::iter::once(ctx.out_grads[0])
                    .chain(ctx.inputs.iter().copied())
                    .collect();
                let grad = g.op("_backward_elemwise", &args, &kv)?[0];
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
