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
    use crate::testutil::{check_grad, randn};
    use crate::{registry, Grad};

    /// One finite-difference case per differentiable operator (the family files test each
    /// one thoroughly; this table makes sure none is left out): name, attributes, input
    /// shapes, whether inputs must be positive, training mode.
    type Case = (
        &'static str,
        &'static [(&'static str, &'static str)],
        &'static [&'static [usize]],
        bool,
        bool,
    );
    const CASES: &[Case] = &[
        ("relu", &[], &[&[3, 7]], false, false),
        ("sigmoid", &[], &[&[3, 7]], false, false),
        ("tanh", &[], &[&[3, 7]], false, false),
        ("exp", &[], &[&[3, 7]], false, false),
        ("log", &[], &[&[3, 7]], true, false),
        ("sqrt", &[], &[&[3, 7]], true, false),
        ("square", &[], &[&[3, 7]], false, false),
        ("abs", &[], &[&[3, 7]], false, false),
        ("negative", &[], &[&[3, 7]], false, false),
        ("_copy", &[], &[&[1]], false, false),
        (
            "Activation",
            &[("act_type", "softrelu")],
            &[&[3, 7]],
            false,
            false,
        ),
        (
            "clip",
            &[("a_min", "-0.3"), ("a_max", "0.4")],
            &[&[7]],
            false,
            false,
        ),
        ("Cast", &[("dtype", "float64")], &[&[3]], false, false),
        ("elemwise_add", &[], &[&[3, 7], &[3, 7]], false, false),
        ("elemwise_sub", &[], &[&[3, 7], &[3, 7]], false, false),
        ("elemwise_mul", &[], &[&[3, 7], &[3, 7]], false, false),
        ("elemwise_div", &[], &[&[3, 7], &[3, 7]], true, false),
        (
            "add_n",
            &[("num_args", "3")],
            &[&[3], &[3], &[3]],
            false,
            false,
        ),
        ("_plus_scalar", &[("scalar", "2")], &[&[3]], false, false),
        ("_minus_scalar", &[("scalar", "2")], &[&[3]], false, false),
        ("_rminus_scalar", &[("scalar", "2")], &[&[3]], false, false),
        ("_mul_scalar", &[("scalar", "2")], &[&[3]], false, false),
        ("_div_scalar", &[("scalar", "2")], &[&[3]], false, false),
        ("_rdiv_scalar", &[("scalar", "2")], &[&[3]], true, false),
        (
            "broadcast_add",
            &[],
            &[&[3, 1, 5], &[1, 4, 1]],
            false,
            false,
        ),
        (
            "broadcast_sub",
            &[],
            &[&[3, 1, 5], &[1, 4, 1]],
            false,
            false,
        ),
        (
            "broadcast_mul",
            &[],
            &[&[3, 1, 5], &[1, 4, 1]],
            false,
            false,
        ),
        ("broadcast_div", &[], &[&[3, 1, 5], &[1, 4, 1]], true, false),
        (
            "FullyConnected",
            &[("num_hidden", "3")],
            &[&[2, 7], &[3, 7], &[3]],
            false,
            false,
        ),
        (
            "Convolution",
            &[
                ("kernel", "(3, 2)"),
                ("num_filter", "4"),
                ("stride", "(2, 1)"),
                ("pad", "(1, 0)"),
                ("num_group", "2"),
            ],
            &[&[2, 4, 5, 6], &[4, 2, 3, 2], &[4]],
            false,
            false,
        ),
        (
            "Pooling",
            &[
                ("kernel", "(2, 2)"),
                ("pool_type", "avg"),
                ("stride", "(2, 2)"),
            ],
            &[&[2, 3, 5, 5]],
            false,
            false,
        ),
        (
            "LeakyReLU",
            &[("act_type", "elu")],
            &[&[3, 7]],
            false,
            false,
        ),
        (
            "BatchNorm",
            &[("fix_gamma", "False")],
            &[&[3, 2, 3], &[2], &[2], &[2], &[2]],
            false,
            true,
        ),
        ("Dropout", &[("p", "0.3")], &[&[3, 7]], false, true),
        ("LRN", &[("nsize", "3")], &[&[2, 5, 3, 3]], false, false),
        ("softmax", &[("axis", "1")], &[&[3, 4, 2]], false, false),
        ("log_softmax", &[], &[&[3, 7]], false, false),
        (
            "SoftmaxActivation",
            &[("mode", "channel")],
            &[&[2, 3, 4]],
            false,
            false,
        ),
        (
            "Reshape",
            &[("shape", "(-1, 3)")],
            &[&[2, 3, 2]],
            false,
            false,
        ),
        ("Flatten", &[], &[&[2, 3, 2]], false, false),
        ("expand_dims", &[("axis", "1")], &[&[3, 2]], false, false),
        ("squeeze", &[], &[&[3, 1, 2]], false, false),
        ("reshape_like", &[], &[&[2, 3], &[3, 2]], false, false),
        (
            "transpose",
            &[("axes", "(1, 2, 0)")],
            &[&[2, 3, 4]],
            false,
            false,
        ),
        (
            "slice",
            &[
                ("begin", "(1, None)"),
                ("end", "(3, None)"),
                ("step", "(1, -2)"),
            ],
            &[&[4, 5]],
            false,
            false,
        ),
        (
            "slice_axis",
            &[("axis", "1"), ("begin", "1"), ("end", "3")],
            &[&[2, 4]],
            false,
            false,
        ),
        (
            "SliceChannel",
            &[
                ("num_outputs", "2"),
                ("squeeze_axis", "True"),
                ("axis", "0"),
            ],
            &[&[2, 3]],
            false,
            false,
        ),
        (
            "Concat",
            &[("num_args", "2"), ("dim", "1")],
            &[&[2, 1], &[2, 3]],
            false,
            false,
        ),
        ("sum", &[("axis", "1")], &[&[3, 4]], false, false),
        (
            "mean",
            &[("axis", "(0, 2)"), ("keepdims", "True")],
            &[&[3, 4, 2]],
            false,
            false,
        ),
        ("max", &[("axis", "0")], &[&[3, 4]], false, false),
        ("min", &[], &[&[3, 4]], false, false),
        ("prod", &[("axis", "1")], &[&[3, 4]], true, false),
        (
            "dot",
            &[("transpose_b", "True")],
            &[&[2, 3], &[4, 3]],
            false,
            false,
        ),
        (
            "batch_dot",
            &[("transpose_a", "True")],
            &[&[2, 3, 2], &[2, 3, 4]],
            false,
            false,
        ),
    ];

    #[test]
    fn every_differentiable_operator_is_checked_against_finite_differences() {
        for (i, (name, kv, shapes, positive, train)) in CASES.iter().enumerate() {
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
        let checked: Vec<&str> = CASES.iter().map(|c| c.0).collect();
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
