//! transpose: a permutation of the axes. Its gradient is the head gradient transposed by
//! the inverse permutation.

use super::{apply, axis_of, fmt_ints};
use crate::def::PerSample;
use crate::param::{param, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::{
    Attrs, Composed, Compute, DType, Grad, GradCtx, GradGraph, Handle, IndexExpr, IndexMap, OpDef,
    Pattern, Registry, Value,
};

static TRANSPOSE: OpDef = OpDef {
    per_sample: PerSample::Where(|a, _, _| a.shape("axes").first() == Some(&0)),
    doc: "Permutes the axes: output axis i is input axis axes[i]. Empty `axes` reverses the \
          axes.",
    params: &[param(
        "axes",
        ParamType::Shape,
        Some("()"),
        "the permutation (empty: reverse the axes)",
    )],
    infer_shape: transpose_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(transpose_grad),
    composes: Some(transpose_compose),
    ..OpDef::new(
        "transpose",
        Pattern::Injective,
        Compute::Injective(transpose_map),
    )
};

/// transpose(transpose(x)): output axis i is the inner output's axis outer[i], which is x's
/// axis inner[outer[i]]. Empty axes reverse all, which needs the rank: only explicit
/// permutations of one rank compose.
fn transpose_compose(outer: &Attrs, inner: &Attrs) -> Option<Composed> {
    let (outer, inner) = (outer.shape("axes"), inner.shape("axes"));
    if outer.is_empty() || inner.is_empty() || outer.len() != inner.len() {
        return None;
    }
    let rank = outer.len() as i64;
    let norm = |a: i64| if a < 0 { a + rank } else { a };
    let mut combined = Vec::with_capacity(outer.len());
    for &o in outer {
        // An axis out of range is no permutation: shape inference reports it.
        combined.push(norm(*inner.get(usize::try_from(norm(o)).ok()?)?));
    }
    if combined.iter().enumerate().all(|(i, &a)| a == i as i64) {
        return Some(Composed::Identity);
    }
    Some(Composed::Outer(vec![(
        "axes",
        Value::Shape(combined).to_mxnet_string(),
    )]))
}

/// Output axis `i` is input axis `perm[i]`. `shape` (possibly all unknown) has the rank and
/// is named in errors.
fn permutation(a: &Attrs, shape: &[usize]) -> Result<Vec<usize>, OpError> {
    let ndim = shape.len();
    let axes = a.shape("axes");
    if axes.is_empty() {
        return Ok((0..ndim).rev().collect());
    }
    if axes.len() != ndim {
        return invalid(format!(
            "transpose: axes={} has {} entries but input {} has {ndim} dimensions",
            fmt_ints(axes),
            axes.len(),
            fmt_shape(shape)
        ));
    }
    let perm = axes
        .iter()
        .map(|&ax| axis_of("transpose", "axes entry", ax, shape))
        .collect::<Result<Vec<_>, _>>()?;
    let mut seen = vec![false; ndim];
    for &p in &perm {
        if std::mem::replace(&mut seen[p], true) {
            return invalid(format!(
                "transpose: axes={} is not a permutation (axis {p} appears twice)",
                fmt_ints(axes)
            ));
        }
    }
    Ok(perm)
}

fn transpose_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let rank = match (ins[0].len(), outs[0].len()) {
        (0, 0) => return Ok(()),
        (0, n) | (n, _) => n,
    };
    let reference = if ins[0].is_empty() {
        vec![0; rank]
    } else {
        ins[0].clone()
    };
    let perm = permutation(a, &reference)?;
    // Backward: input axis perm[i] is output axis i (a wrong rank is caught going forward).
    if outs[0].len() == rank {
        let mut input = vec![0; rank];
        for (i, &p) in perm.iter().enumerate() {
            input[p] = outs[0][i];
        }
        set_in(ins, 0, &input)?;
    }
    let out: Shape = perm.iter().map(|&p| ins[0][p]).collect();
    set_out(outs, 0, &out)
}

fn transpose_map(a: &Attrs, ins: &[Shape], _: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    let perm = permutation(a, &ins[0])?;
    let mut coords = vec![IndexExpr::Const(0); perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        coords[p] = IndexExpr::Out(i);
    }
    Ok(IndexMap::single(coords))
}

/// Transposes the head gradient back: by the inverse of `axes`, or by reversing the axes
/// again when `axes` is empty (the reversal is its own inverse, whatever the rank).
fn transpose_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let rank = ctx.attrs.shape("axes").len();
    // `axes` holds the rank when set; the shape only serves to validate it.
    let perm = permutation(ctx.attrs, &vec![0; rank])?;
    let mut inverse = vec![0i64; rank];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i as i64;
    }
    let axes = fmt_ints(&inverse);
    let grad = apply(g, "transpose", &[ctx.out_grads[0]], &[("axes", &axes)])?;
    Ok(vec![Some(grad)])
}

pub fn register(r: &mut Registry) {
    r.add(&TRANSPOSE);
}

#[cfg(test)]
mod tests {
    use crate::testutil::{attrs, check_grad, infer, infer_both, iota, message, op, randn, run};
    use crate::{Composed, Value};

    #[test]
    fn transposes_compose_into_one_permutation() {
        let t = op("transpose");
        let compose = |outer: &str, inner: &str| {
            (t.composes.unwrap())(&attrs(t, &[("axes", outer)]), &attrs(t, &[("axes", inner)]))
        };
        assert_eq!(compose("(1, 2, 0)", "(2, 0, 1)"), Some(Composed::Identity));
        // Output axis i is x's axis inner[outer[i]], negative axes counting from the end.
        let axes = Value::Shape(vec![2, 0, 1]).to_mxnet_string();
        for outer in ["(1, 0, 2)", "(-2, -3, -1)"] {
            assert_eq!(
                compose(outer, "(0, 2, 1)"),
                Some(Composed::Outer(vec![("axes", axes.clone())]))
            );
        }
        // A reversal (empty axes) needs the rank; other ranks and axes out of range do not
        // compose.
        assert_eq!(compose("()", "(1, 0)"), None);
        assert_eq!(compose("(1, 0)", "(0, 2, 1)"), None);
        assert_eq!(compose("(0, 3, 1)", "(0, 2, 1)"), None);
    }

    #[test]
    fn transposes_a_matrix() {
        // [[0, 1, 2], [3, 4, 5]] transposed is [[0, 3], [1, 4], [2, 5]].
        let out = run("transpose", &[], &[iota(&[2, 3])], false).unwrap();
        assert_eq!(out[0].shape, [3, 2]);
        assert_eq!(out[0].data, [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    }

    #[test]
    fn permutes_three_axes() {
        // out[i, j, k] = in[k, i, j] = 12k + 4i + j for a (2, 3, 4) iota.
        let out = run(
            "transpose",
            &[("axes", "(1,2,0)")],
            &[iota(&[2, 3, 4])],
            false,
        )
        .unwrap();
        assert_eq!(out[0].shape, [3, 4, 2]);
        assert_eq!(out[0].data[..4], [0.0, 12.0, 1.0, 13.0]);
        assert_eq!(out[0].data[10], 5.0); // out[1, 1, 0] = in[0, 1, 1]
        assert_eq!(out[0].data[23], 23.0); // out[2, 3, 1] = in[1, 2, 3]
    }

    #[test]
    fn shapes_forward_and_backward() {
        assert_eq!(
            infer("transpose", &[], &[&[2, 3, 4]]).unwrap().1[0],
            [4, 3, 2]
        );
        let (ins, _) =
            infer_both("transpose", &[("axes", "(0,2,1)")], &[&[]], &[&[2, 4, 3]]).unwrap();
        assert_eq!(ins[0], [2, 3, 4]);
        let t = |axes: &str| infer("transpose", &[("axes", axes)], &[&[2, 3]]);
        assert_eq!(t("(-1,0)").unwrap().1[0], [3, 2]);
        assert_eq!(
            message(t("(0,0)")),
            "transpose: axes=(0, 0) is not a permutation (axis 0 appears twice)"
        );
        assert_eq!(
            message(t("(0,1,2)")),
            "transpose: axes=(0, 1, 2) has 3 entries but input (2, 3) has 2 dimensions"
        );
        assert_eq!(
            message(t("(0,2)")),
            "transpose: axes entry=2 is out of range for input (2, 3)"
        );
    }

    #[test]
    fn gradient_is_the_inverse_permutation() {
        let x = randn(&[3, 1, 7], 1);
        for axes in ["()", "(2, 0, 1)", "(1, -1, 0)", "(0, 1, 2)", "(-1, -3, -2)"] {
            check_grad(
                "transpose",
                &[("axes", axes)],
                std::slice::from_ref(&x),
                false,
                &[],
            );
        }
        check_grad("transpose", &[], &[randn(&[2, 3, 1, 4], 2)], false, &[]);
        check_grad("transpose", &[], &[randn(&[7], 3)], false, &[]);
    }
}
