//! broadcast_to, broadcast_axis (broadcast_axes) and broadcast_like: copies of the input
//! along axes of size 1, without NumPy's rank extension (input and output have one rank).
//!
//! All three share one index map: an input axis of size 1 under a longer output axis reads
//! coordinate 0. They are injective (not `Broadcast`, whose operators compute elementwise
//! over an output they do not re-index), so they never join a kernel as an epilogue. The gradient sums the head gradient back over those axes
//! (`_broadcast_backward(ograd, data)`); broadcast_like's `rhs` only lends its shape and
//! gets none.

use super::{apply, fmt_ints};
use crate::param::{param, ParamType};
use crate::shape::{self, fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradGraph, Handle, IndexExpr, IndexMap, Inputs, OpDef,
    Pattern, Registry,
};

static BROADCAST_TO: OpDef = OpDef {
    doc: "Broadcasts the input to `shape`, which has the input's rank: every axis is either \
          kept (the input's size, or 0 in `shape`) or grows from size 1 to the requested \
          size, its elements repeated.",
    params: &[param(
        "shape",
        ParamType::Shape,
        Some("()"),
        "the target shape; 0 keeps the input's dimension",
    )],
    infer_shape: broadcast_to_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(broadcast_grad),
    ..OpDef::new(
        "broadcast_to",
        Pattern::Injective,
        Compute::Injective(broadcast_map),
    )
};

fn broadcast_to_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    let target = a.shape("shape");
    let input = ins[0].clone();
    let fail = |why: &str| {
        invalid(format!(
            "broadcast_to: cannot broadcast input {} to shape={}: {why}",
            fmt_shape(&input),
            fmt_ints(target)
        ))
    };
    if target.len() != input.len() {
        return fail(&format!(
            "{} dimensions, the input has {}",
            target.len(),
            input.len()
        ));
    }
    let mut out = Shape::with_capacity(input.len());
    for (i, (&t, &d)) in target.iter().zip(&input).enumerate() {
        match t {
            0 => out.push(d),
            t if t < 0 => return fail(&format!("dimension {i} is negative")),
            t if d == 0 || d == 1 || d as i64 == t => out.push(t as usize),
            _ => return fail(&format!("axis {i} has size {d}, neither 1 nor {t}")),
        }
    }
    // Backward: kept axes have the output's size.
    if outs[0].len() == input.len() {
        let kept: Shape = (0..input.len())
            .map(|i| if target[i] == 0 { outs[0][i] } else { input[i] })
            .collect();
        set_in(ins, 0, &kept)?;
    }
    set_out(outs, 0, &out)
}

static BROADCAST_AXIS: OpDef = OpDef {
    aliases: &["broadcast_axes"],
    doc: "Broadcasts the input along the listed axes, each of size 1, to the matching \
          entries of `size`. Axes count from 0 (MXNet 1.x accepts no negative axes here).",
    params: &[
        param(
            "axis",
            ParamType::Shape,
            Some("()"),
            "the axes to broadcast (each of size 1)",
        ),
        param(
            "size",
            ParamType::Shape,
            Some("()"),
            "the target size of each listed axis",
        ),
    ],
    infer_shape: broadcast_axis_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(broadcast_grad),
    ..OpDef::new(
        "broadcast_axis",
        Pattern::Injective,
        Compute::Injective(broadcast_map),
    )
};

fn broadcast_axis_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let (axes, sizes) = (a.shape("axis"), a.shape("size"));
    let params = || format!("axis={} size={}", fmt_ints(axes), fmt_ints(sizes));
    if axes.len() != sizes.len() {
        return invalid(format!(
            "broadcast_axis: {} must have the same length",
            params()
        ));
    }
    if ins[0].is_empty() {
        return Ok(());
    }
    let ndim = ins[0].len();
    let mut out = ins[0].clone();
    for (&ax, &size) in axes.iter().zip(sizes) {
        if !(0..ndim as i64).contains(&ax) {
            return invalid(format!(
                "broadcast_axis: axis {ax} ({}) is out of range [0, {ndim}) for input {}",
                params(),
                fmt_shape(&ins[0])
            ));
        }
        if size < 1 {
            return invalid(format!(
                "broadcast_axis: size {size} ({}) must be positive",
                params()
            ));
        }
        // Checked against the shape built so far, as MXNet does: a repeated axis must
        // have been broadcast to 1 the first time.
        let at = ax as usize;
        if out[at] > 1 {
            return invalid(format!(
                "broadcast_axis: axis {ax} ({}) of input {} must have size 1, not {}",
                params(),
                fmt_shape(&ins[0]),
                out[at]
            ));
        }
        out[at] = size as usize;
    }
    // Backward: the axes not listed have the output's size; the listed ones are 1.
    if outs[0].len() == ndim {
        let mut input = outs[0].clone();
        for &ax in axes {
            input[ax as usize] = 1;
        }
        set_in(ins, 0, &input)?;
        for (o, &d) in out.iter_mut().zip(&ins[0]) {
            if *o == 0 {
                *o = d;
            }
        }
    }
    set_out(outs, 0, &out)
}

static BROADCAST_LIKE: OpDef = OpDef {
    doc: "Broadcasts `lhs` like `rhs`. Without axes, to rhs's shape (same rank; each lhs axis \
          equal or 1). With `lhs_axes` and `rhs_axes` (both set, same non-zero length), lhs \
          axis lhs_axes[i], of size 1, takes the size of rhs axis rhs_axes[i]; negative axes \
          count from the end.",
    params: &[
        param(
            "lhs_axes",
            ParamType::OptShape,
            Some("None"),
            "axes of lhs to broadcast (None: broadcast to rhs's whole shape)",
        ),
        param(
            "rhs_axes",
            ParamType::OptShape,
            Some("None"),
            "axes of rhs whose sizes lhs_axes take (None: rhs's whole shape)",
        ),
    ],
    inputs: Inputs::Fixed(&["lhs", "rhs"]),
    infer_shape: broadcast_like_shape,
    infer_dtype: lhs_dtype,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(broadcast_grad),
    ..OpDef::new(
        "broadcast_like",
        Pattern::Injective,
        Compute::Injective(broadcast_map),
    )
};

fn broadcast_like_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let (lhs, rhs) = (&ins[0], &ins[1]);
    if lhs.is_empty() || rhs.is_empty() {
        return Ok(());
    }
    let out = match (a.opt_shape("lhs_axes"), a.opt_shape("rhs_axes")) {
        (Some(l), Some(r)) => like_axes(l, r, lhs, rhs)?,
        _ => like_whole(lhs, rhs)?,
    };
    set_out(outs, 0, &out)
}

/// broadcast_like without axes: rhs's shape, each lhs axis equal or 1.
fn like_whole(lhs: &[usize], rhs: &[usize]) -> Result<Shape, OpError> {
    let fail = |why: String| {
        invalid(format!(
            "broadcast_like: cannot broadcast lhs {} to rhs {}: {why}",
            fmt_shape(lhs),
            fmt_shape(rhs)
        ))
    };
    if lhs.len() != rhs.len() {
        return fail("the ranks differ (set lhs_axes and rhs_axes to broadcast some axes)".into());
    }
    let mut out = Shape::with_capacity(lhs.len());
    for (i, (&l, &r)) in lhs.iter().zip(rhs).enumerate() {
        match (l, r) {
            // Unknown in rhs: the output is lhs's unless lhs may still grow.
            (l, 0) => out.push(if l == 1 { 0 } else { l }),
            (l, r) if l == 0 || l == 1 || l == r => out.push(r),
            _ => return fail(format!("axis {i} has size {l}, neither 1 nor {r}")),
        }
    }
    Ok(out)
}

/// broadcast_like with axes: lhs with axis lhs_axes[i] (of size 1) taking rhs's size at
/// rhs_axes[i].
fn like_axes(l: &[i64], r: &[i64], lhs: &[usize], rhs: &[usize]) -> Result<Shape, OpError> {
    let params = || format!("lhs_axes={} rhs_axes={}", fmt_ints(l), fmt_ints(r));
    if l.len() != r.len() || l.is_empty() {
        return invalid(format!(
            "broadcast_like: {} must have the same, non-zero length",
            params()
        ));
    }
    let norm = |ax: i64, s: &[usize], side: &str| {
        let n = s.len() as i64;
        let a = if ax < 0 { ax + n } else { ax };
        if !(0..n).contains(&a) {
            return invalid(format!(
                "broadcast_like: {side} axis {ax} ({}) is out of range for {side} {}",
                params(),
                fmt_shape(s)
            ));
        }
        Ok(a as usize)
    };
    let mut out = lhs.to_vec();
    for (&la, &ra) in l.iter().zip(r) {
        let (from, to) = (norm(la, lhs, "lhs")?, norm(ra, rhs, "rhs")?);
        if lhs[from] > 1 {
            return invalid(format!(
                "broadcast_like: lhs axis {la} ({}) of lhs {} must have size 1, not {}",
                params(),
                fmt_shape(lhs),
                lhs[from]
            ));
        }
        out[from] = rhs[to];
    }
    Ok(out)
}

/// The output has lhs's dtype; rhs may have any.
fn lhs_dtype(
    a: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    shape::same_dtype(a, &mut ins[..1], outs)
}

/// Input axes of size 1 under a longer output axis read coordinate 0.
fn broadcast_map(_: &Attrs, ins: &[Shape], outs: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    let (input, out) = (&ins[0], &outs[0]);
    if input.len() != out.len() {
        return invalid(format!(
            "cannot broadcast {} to {}",
            fmt_shape(input),
            fmt_shape(out)
        ));
    }
    let coords = input
        .iter()
        .zip(out)
        .enumerate()
        .map(|(i, (&d, &o))| match d == 1 && o != 1 {
            true => IndexExpr::Const(0),
            false => IndexExpr::Out(i),
        })
        .collect();
    Ok(IndexMap::single(coords))
}

/// The head gradient summed back to the input's shape; broadcast_like's rhs gets none.
fn broadcast_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[0]];
    let grad = apply(g, "_broadcast_backward", &args, &[])?;
    let mut grads = vec![Some(grad)];
    grads.resize(ctx.inputs.len(), None);
    Ok(grads)
}

pub fn register(r: &mut Registry) {
    for op in [&BROADCAST_TO, &BROADCAST_AXIS, &BROADCAST_LIKE] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{check_grad, infer, infer_both, iota, message, randn, run, tensor};
    use crate::DType;

    fn data(out: &[crate::Tensor]) -> (Vec<usize>, Vec<f64>) {
        (out[0].shape.clone(), out[0].data.clone())
    }

    #[test]
    fn follow_mxnet_examples() {
        // broadcast_to([[1, 2, 3]], shape=(2, 0)) = [[1, 2, 3], [1, 2, 3]].
        let x = tensor(&[1, 3], &[1.0, 2.0, 3.0]);
        let out = run("broadcast_to", &[("shape", "(2,0)")], &[&x], false).unwrap();
        let row = vec![1.0, 2.0, 3.0];
        assert_eq!(
            data(&out),
            (vec![2, 3], [row.clone(), row.clone()].concat())
        );
        // broadcast_axis of [[[1], [2]]] (1, 2, 1) along 2 to 3, then along (0, 2) to (2, 3).
        let y = tensor(&[1, 2, 1], &[1.0, 2.0]);
        let kv = [("axis", "2"), ("size", "3")];
        let out = run("broadcast_axis", &kv, &[&y], false).unwrap();
        assert_eq!(
            data(&out),
            (vec![1, 2, 3], vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
        );
        let kv = [("axis", "(0,2)"), ("size", "(2,3)")];
        let out = run("broadcast_axes", &kv, &[&y], false).unwrap();
        assert_eq!(out[0].shape, [2, 2, 3]);
        assert_eq!(out[0].data[6..], [1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
        // broadcast_like([[1, 2, 3]], [[5, 6, 7], [7, 8, 9]]) = [[1, 2, 3], [1, 2, 3]].
        let out = run("broadcast_like", &[], &[x, iota(&[2, 3])], false).unwrap();
        assert_eq!(data(&out), (vec![2, 3], [row.clone(), row].concat()));
        // broadcast_like([9], [1, 2, 3, 4, 5], lhs_axes=(0,), rhs_axes=(-1,)) = [9] * 5.
        let kv = [("lhs_axes", "(0,)"), ("rhs_axes", "(-1,)")];
        let out = run(
            "broadcast_like",
            &kv,
            &[tensor(&[1], &[9.0]), iota(&[5])],
            false,
        );
        assert_eq!(data(&out.unwrap()), (vec![5], vec![9.0; 5]));
    }

    #[test]
    fn every_dtype_and_the_lhs_dtype() {
        for dt in DType::ALL {
            let mut x = iota(&[1, 2]);
            x.dtype = dt;
            let out = run("broadcast_to", &[("shape", "(3, 2)")], &[x], false).unwrap();
            assert_eq!(out[0].dtype, dt);
        }
        let mut rhs = iota(&[2, 2]);
        rhs.dtype = DType::I32;
        let out = run("broadcast_like", &[], &[iota(&[1, 2]), rhs], false).unwrap();
        assert_eq!(out[0].dtype, DType::F64);
    }

    #[test]
    fn shapes_and_errors() {
        let to =
            |input: &[usize], shape: &str| infer("broadcast_to", &[("shape", shape)], &[input]);
        assert_eq!(to(&[1, 2, 1], "(0, 0, 7)").unwrap().1[0], [1, 2, 7]);
        assert_eq!(to(&[0, 2, 1], "(3, 0, 7)").unwrap().1[0], [3, 2, 7]);
        assert_eq!(
            message(to(&[1, 2, 3], "(2, 4, 3)")),
            "broadcast_to: cannot broadcast input (1, 2, 3) to shape=(2, 4, 3): axis 1 has size \
             2, neither 1 nor 4"
        );
        assert_eq!(
            message(to(&[1, 2], "(2, 2, 3)")),
            "broadcast_to: cannot broadcast input (1, 2) to shape=(2, 2, 3): 3 dimensions, the \
             input has 2"
        );
        assert!(message(to(&[1, 2], "(-1, 2)")).ends_with("dimension 0 is negative"));
        // Kept axes flow backward.
        let (ins, _) = infer_both(
            "broadcast_to",
            &[("shape", "(4, 0)")],
            &[&[1, 0]],
            &[&[4, 5]],
        )
        .unwrap();
        assert_eq!(ins[0], [1, 5]);

        let ax = |input: &[usize], axis: &str, size: &str| {
            message(infer(
                "broadcast_axis",
                &[("axis", axis), ("size", size)],
                &[input],
            ))
        };
        assert_eq!(
            ax(&[1, 2], "1", "3"),
            "broadcast_axis: axis 1 (axis=(1,) size=(3,)) of input (1, 2) must have size 1, not 2"
        );
        assert_eq!(
            ax(&[1, 2], "-2", "3"),
            "broadcast_axis: axis -2 (axis=(-2,) size=(3,)) is out of range [0, 2) for input \
             (1, 2)"
        );
        assert_eq!(
            ax(&[1, 2], "(0,)", "(2, 3)"),
            "broadcast_axis: axis=(0,) size=(2, 3) must have the same length"
        );
        assert!(ax(&[1, 2], "0", "0").ends_with("must be positive"));
        assert!(ax(&[1, 2], "(0, 0)", "(2, 3)").ends_with("must have size 1, not 2"));
        // A repeated axis first broadcast to 1 may be broadcast again, as in MXNet.
        let kv = [("axis", "(0, 0)"), ("size", "(1, 3)")];
        assert_eq!(
            infer("broadcast_axis", &kv, &[&[1, 2]]).unwrap().1[0],
            [3, 2]
        );
        assert_eq!(
            infer("broadcast_axis", &[], &[&[1, 2]]).unwrap().1[0],
            [1, 2]
        );

        let like = |l: &[usize], r: &[usize], kv: &[(&str, &str)]| {
            infer("broadcast_like", kv, &[l, r]).map(|(_, o)| o[0].clone())
        };
        assert_eq!(like(&[1, 3], &[0, 3], &[]).unwrap(), [0, 3]);
        assert_eq!(
            message(like(&[1, 2, 3], &[2, 3], &[])),
            "broadcast_like: cannot broadcast lhs (1, 2, 3) to rhs (2, 3): the ranks differ \
             (set lhs_axes and rhs_axes to broadcast some axes)"
        );
        // One of the axes alone means the whole shape, as in MXNet.
        assert!(like(&[1, 2, 3], &[4, 5], &[("lhs_axes", "(0,)")]).is_err());
        let kv = [("lhs_axes", "(0, 0)"), ("rhs_axes", "(0, 1)")];
        assert_eq!(like(&[1, 2, 3], &[4, 5], &kv).unwrap(), [5, 2, 3]);
        let kv = [("lhs_axes", "(1,)"), ("rhs_axes", "(0,)")];
        assert_eq!(
            message(like(&[1, 2, 3], &[4, 5], &kv)),
            "broadcast_like: lhs axis 1 (lhs_axes=(1,) rhs_axes=(0,)) of lhs (1, 2, 3) must \
             have size 1, not 2"
        );
        let kv = [("lhs_axes", "(0,)"), ("rhs_axes", "(2,)")];
        assert_eq!(
            message(like(&[1, 2, 3], &[4, 5], &kv)),
            "broadcast_like: rhs axis 2 (lhs_axes=(0,) rhs_axes=(2,)) is out of range for rhs \
             (4, 5)"
        );
        let kv = [("lhs_axes", "()"), ("rhs_axes", "()")];
        assert!(message(like(&[1, 2, 3], &[4, 5], &kv)).ends_with("same, non-zero length"));
    }

    #[test]
    fn gradients_sum_the_copies() {
        let x = randn(&[3, 1, 7], 1);
        for shape in ["(3, 5, 7)", "(0, 1, 0)", "(0, 2, 7)"] {
            let kv = [("shape", shape)];
            check_grad("broadcast_to", &kv, std::slice::from_ref(&x), false, &[]);
        }
        let one = randn(&[1, 1], 2);
        check_grad(
            "broadcast_to",
            &[("shape", "(3, 7)")],
            std::slice::from_ref(&one),
            false,
            &[],
        );
        let kv = [("axis", "(1, 0)"), ("size", "(7, 3)")];
        check_grad(
            "broadcast_axis",
            &kv,
            std::slice::from_ref(&one),
            false,
            &[],
        );
        let kv = [("axis", "1"), ("size", "1")];
        check_grad("broadcast_axes", &kv, std::slice::from_ref(&x), false, &[]);
        check_grad(
            "broadcast_like",
            &[],
            &[x.clone(), randn(&[3, 3, 7], 3)],
            false,
            &[],
        );
        let kv = [("lhs_axes", "(-2, 0)"), ("rhs_axes", "(0, -1)")];
        let ins = [randn(&[1, 1, 7], 4), randn(&[3, 2], 5)];
        check_grad("broadcast_like", &kv, &ins, false, &[]);
    }
}
