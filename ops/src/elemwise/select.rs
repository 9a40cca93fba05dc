//! `where(condition, x, y)`: `x` where the condition is non-zero, else `y`.
//!
//! `x` and `y` share a shape; the condition has that shape too, or is 1-D with one entry
//! per row of `x` (MXNet's batch form, which selects whole rows). The batch form is not
//! NumPy broadcasting (it aligns the leading axis, not the trailing one), so `where` is a
//! library kernel rather than a scalar expression; its gradient is built from `where`
//! itself: the head gradient goes to `x` where the condition holds and to `y` elsewhere,
//! and the condition gets none.

use crate::shape::{self, fmt_shape, invalid, set_in, set_out, unify, OpError, Shape, Slot};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Pattern,
    Registry, Tensor,
};

static WHERE: OpDef = OpDef {
    doc: "Takes `x` where `condition` is non-zero and `y` elsewhere. `condition` has x's \
          shape, or is 1-D with one entry per row of x (selecting whole rows); its dtype \
          may differ from x's.",
    inputs: Inputs::Fixed(&["condition", "x", "y"]),
    infer_shape: where_shape,
    infer_dtype: where_dtype,
    inplace: &[(1, 0), (2, 0)],
    dtypes: &DType::NUMERIC,
    grad: Grad::Rule(where_grad),
    // Opaque until a backend can generate the batch form; the same-shape form would be an
    // element-wise select.
    ..OpDef::new(
        "where",
        Pattern::Opaque,
        Compute::Library {
            kernel: "where",
            reference: where_ref,
        },
    )
};

/// Whether a condition of shape `cond` selects whole rows of `x` (shape `t`, both known):
/// false for the same shape, true for the batch form, an error otherwise.
fn batch_form(cond: &[usize], t: &[usize]) -> Result<bool, OpError> {
    if cond == t {
        return Ok(false);
    }
    if cond.len() == 1 && t.first() == Some(&cond[0]) {
        return Ok(true);
    }
    invalid(format!(
        "where: condition {} must have x's shape {} or be 1-D of length {}",
        fmt_shape(cond),
        fmt_shape(t),
        t.first().map_or("x.shape[0]".into(), |n| n.to_string())
    ))
}

fn where_shape(_: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    // x, y and the output share one shape.
    let mut t = Shape::new();
    unify(Slot::In(1), &mut t, &ins[1])?;
    unify(Slot::In(2), &mut t, &ins[2])?;
    unify(Slot::Out(0), &mut t, &outs[0])?;
    set_in(ins, 1, &t)?;
    set_in(ins, 2, &t)?;
    set_out(outs, 0, &t)?;
    let cond = ins[0].clone();
    if cond.is_empty() || t.is_empty() {
        // A condition of rank ≥ 2 can only be x's shape (a 1-D one is ambiguous).
        if cond.len() >= 2 {
            for (i, slot) in [(1, Slot::In(1)), (2, Slot::In(2))] {
                unify(slot, &mut ins[i], &cond)?;
            }
            set_out(outs, 0, &cond)?;
        }
        return Ok(());
    }
    if cond.len() == t.len() && cond.len() > 1 {
        // Same shape: each side completes the other.
        set_in(ins, 0, &t)?;
        let cond = ins[0].clone();
        for i in [1, 2] {
            set_in(ins, i, &cond)?;
        }
        return set_out(outs, 0, &cond);
    }
    if cond.len() == 1 {
        // 1-D: either x is 1-D too (same shape), or one entry per row.
        return match (cond[0], t[0]) {
            (0, 0) => Ok(()),
            (0, n) => set_in(ins, 0, &[n]),
            (c, 0) => {
                // The condition gives x's row count.
                let filled: Shape = std::iter::once(c).chain(t[1..].iter().copied()).collect();
                set_in(ins, 1, &filled)?;
                set_in(ins, 2, &filled)?;
                set_out(outs, 0, &filled)
            }
            (c, n) if c == n => Ok(()),
            _ => batch_form(&cond, &t).map(|_| ()),
        };
    }
    batch_form(&cond, &t).map(|_| ())
}

/// x, y and the output share a dtype; the condition's is free.
fn where_dtype(
    _: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    let known = [
        (Slot::In(1), ins[1]),
        (Slot::In(2), ins[2]),
        (Slot::Out(0), outs[0]),
    ];
    let mut dtype = None;
    for (slot, d) in known {
        match (dtype, d) {
            (None, Some(d)) => dtype = Some(d),
            (Some(want), Some(have)) if want != have => {
                return Err(OpError::DType { slot, have, want })
            }
            _ => {}
        }
    }
    if dtype.is_some() {
        ins[1] = dtype;
        ins[2] = dtype;
        outs[0] = dtype;
    }
    Ok(())
}

fn where_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (cond, a, b) = (ins[0], ins[1], ins[2]);
    if a.shape != b.shape || a.shape.is_empty() {
        return invalid(format!(
            "where: x {} and y {} must have one shape",
            fmt_shape(&a.shape),
            fmt_shape(&b.shape)
        ));
    }
    // Elements per condition entry: 1, or a whole row in the batch form.
    let per = if batch_form(&cond.shape, &a.shape)? {
        shape::size(&a.shape[1..])
    } else {
        1
    };
    let data = (0..a.len())
        .map(|i| {
            if cond.data[i / per] != 0.0 {
                a.data[i]
            } else {
                b.data[i]
            }
        })
        .collect();
    Ok(vec![Tensor {
        dtype: ctx.out_dtypes[0],
        shape: a.shape.clone(),
        data,
    }])
}

fn single(g: &mut dyn GradGraph, op: &str, inputs: &[Handle]) -> Result<Handle, OpError> {
    g.op(op, inputs, &[])?
        .first()
        .copied()
        .ok_or_else(|| OpError::Invalid(format!("{op} gave no output")))
}

fn where_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let (cond, head) = (ctx.inputs[0], ctx.out_grads[0]);
    let zeros = single(g, "zeros_like", &[head])?;
    let to_x = single(g, "where", &[cond, head, zeros])?;
    let to_y = single(g, "where", &[cond, zeros, head])?;
    Ok(vec![None, Some(to_x), Some(to_y)])
}

pub fn register(r: &mut Registry) {
    r.add(&WHERE);
}

#[cfg(test)]
mod tests {
    use crate::testutil::{analytic_grad, infer, infer_err, run, tensor};
    use crate::{DType, Tensor};

    #[test]
    fn selects_elements_or_rows() {
        let x = tensor(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let y = tensor(&[2, 3], &[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]);
        let cond = tensor(&[2, 3], &[1.0, 0.0, f64::NAN, 0.0, -2.0, 0.0]);
        let g = run("where", &[], &[&cond, &x, &y], false).unwrap();
        assert_eq!(g[0].data, [1.0, -2.0, 3.0, -4.0, 5.0, -6.0]);
        let rows = tensor(&[2], &[0.0, 3.0]);
        let g = run("where", &[], &[&rows, &x, &y], false).unwrap();
        assert_eq!(g[0].data, [-1.0, -2.0, -3.0, 4.0, 5.0, 6.0]);
        // The condition's dtype is its own.
        let icond = Tensor::new(DType::I32, vec![2], vec![1.0, 0.0]);
        let xi = Tensor::new(DType::I64, vec![2], vec![7.0, 8.0]);
        let g = run("where", &[], &[&icond, &xi, &xi], false).unwrap();
        assert_eq!(g[0].dtype, DType::I64);
    }

    #[test]
    fn shapes_are_checked_and_completed() {
        assert_eq!(
            infer("where", &[], &[&[4], &[4, 5], &[4, 5]]).unwrap().1,
            [vec![4, 5]]
        );
        assert_eq!(
            infer("where", &[], &[&[2, 3], &[], &[]]).unwrap().1,
            [vec![2, 3]]
        );
        // A 1-D condition and x's rows complete each other (an unknown condition stays
        // unknown: it could be 1-D or x's shape, as in MXNet).
        assert_eq!(
            infer("where", &[], &[&[0], &[3, 2], &[]]).unwrap().0[0],
            [3]
        );
        assert_eq!(
            infer("where", &[], &[&[3], &[0, 2], &[]]).unwrap().1,
            [vec![3, 2]]
        );
        assert!(infer("where", &[], &[&[], &[3, 2], &[]]).unwrap().0[0].is_empty());
        assert!(infer_err("where", &[], &[&[5], &[4, 5], &[4, 5]]).contains("1-D of length 4"));
        assert!(infer_err("where", &[], &[&[4, 1], &[4, 5], &[4, 5]]).contains("condition"));
        assert!(infer_err("where", &[], &[&[4, 5], &[4, 5], &[4, 6]]).contains("input `y`"));
    }

    #[test]
    fn gradient_goes_to_the_selected_side() {
        let cond = tensor(&[3], &[1.0, 0.0, 2.0]);
        let (x, y) = (tensor(&[3, 2], &[0.0; 6]), tensor(&[3, 2], &[0.0; 6]));
        let head = tensor(&[3, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let g = analytic_grad("where", &[], &[cond, x, y], &[head], false).unwrap();
        assert!(g[0].is_none());
        assert_eq!(g[1].as_ref().unwrap().data, [1.0, 2.0, 0.0, 0.0, 5.0, 6.0]);
        assert_eq!(g[2].as_ref().unwrap().data, [0.0, 0.0, 3.0, 4.0, 0.0, 0.0]);
    }
}
