//! diag: a 1-D input becomes the square matrix holding it on diagonal `k`; an N-D input
//! gives its k-th diagonal over axes axis1/axis2 (those axes removed, the diagonal
//! appended last), as numpy.diagonal. Its gradient, `_backward_diag`, is the other
//! direction: the diagonal read back out of the head gradient for a 1-D input, written
//! into zeros of the input's shape for an N-D one.

use super::{first_dtype, output};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, same_dtype, set_in, set_out, OpError, Shape};
use crate::tensor::{for_each_index, strides};
use crate::tensor_ops::{apply, axis_of};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Pattern,
    Registry, Tensor,
};

const PARAMS: &[ParamDef] = &[
    param(
        "k",
        ParamType::Int,
        Some("0"),
        "the diagonal: 0 the main one, k > 0 above it, k < 0 below it",
    ),
    param(
        "axis1",
        ParamType::Int,
        Some("0"),
        "first axis of the matrices (ignored for a 1-D input)",
    ),
    param(
        "axis2",
        ParamType::Int,
        Some("1"),
        "second axis of the matrices (ignored for a 1-D input)",
    ),
];

static DIAG: OpDef = OpDef {
    doc: "A 1-D input of size n gives the (n + |k|)-square matrix with the input on diagonal \
          k and zeros elsewhere. An N-D input gives out[..., t] = data[..., t + max(-k, 0) \
          (on axis1), ..., t + max(k, 0) (on axis2), ...]: the other axes in order, then the \
          diagonal.",
    params: PARAMS,
    infer_shape: diag_shape,
    infer_dtype: same_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    grad: Grad::Rule(diag_grad),
    ..OpDef::new(
        "diag",
        Pattern::Opaque,
        Compute::Library {
            kernel: "diag",
            reference: diag_ref,
        },
    )
};

/// Where the diagonal of an N-D input lies: its two axes, where it starts on each and its
/// length (0 when unknown).
struct Diagonal {
    axes: (usize, usize),
    start: (usize, usize),
    len: usize,
}

fn diagonal(a: &Attrs, shape: &[usize]) -> Result<Diagonal, OpError> {
    let a1 = axis_of("diag", "axis1", a.int("axis1"), shape)?;
    let a2 = axis_of("diag", "axis2", a.int("axis2"), shape)?;
    if a1 == a2 {
        return invalid(format!(
            "diag: axis1={} and axis2={} name the same axis of input {}",
            a.int("axis1"),
            a.int("axis2"),
            fmt_shape(shape)
        ));
    }
    let k = a.int("k");
    let start = ((-k).max(0) as usize, k.max(0) as usize);
    let (d1, d2) = (shape[a1], shape[a2]);
    let len = (d1 as i64 - start.0 as i64).min(d2 as i64 - start.1 as i64);
    if d1 != 0 && d2 != 0 && len <= 0 {
        return invalid(format!(
            "diag: k={k} selects no diagonal of input {} (axis1 has size {d1}, axis2 {d2})",
            fmt_shape(shape)
        ));
    }
    Ok(Diagonal {
        axes: (a1, a2),
        start,
        len: if d1 == 0 || d2 == 0 { 0 } else { len as usize },
    })
}

/// diag's output shape for a known input rank (unknown dimensions stay unknown).
fn diag_out(a: &Attrs, shape: &[usize]) -> Result<Shape, OpError> {
    if let [n] = shape {
        let m = if *n == 0 {
            0
        } else {
            n + a.int("k").unsigned_abs() as usize
        };
        return Ok(vec![m, m]);
    }
    let d = diagonal(a, shape)?;
    let mut out: Shape = (0..shape.len())
        .filter(|&i| i != d.axes.0 && i != d.axes.1)
        .map(|i| shape[i])
        .collect();
    out.push(d.len);
    Ok(out)
}

fn diag_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    set_out(outs, 0, &diag_out(a, &ins[0])?)
}

/// The diagonal's positions, in order: for a 1-D input of `shape`, where each element goes
/// in the matrix; otherwise, where each output element is in the input. Also the size of
/// the array the positions index.
fn positions(a: &Attrs, shape: &[usize]) -> Result<(Vec<usize>, usize), OpError> {
    if let [n] = shape {
        let k = a.int("k");
        let m = n + k.unsigned_abs() as usize;
        let (r, c) = ((-k).max(0) as usize, k.max(0) as usize);
        return Ok(((0..*n).map(|i| (i + r) * m + i + c).collect(), m * m));
    }
    let d = diagonal(a, shape)?;
    let st = strides(shape);
    let rest: Vec<usize> = (0..shape.len())
        .filter(|&i| i != d.axes.0 && i != d.axes.1)
        .collect();
    let rest_shape: Vec<usize> = rest.iter().map(|&i| shape[i]).collect();
    let mut pos = Vec::new();
    for_each_index(&rest_shape, |idx| {
        let base: usize = idx.iter().zip(&rest).map(|(&c, &ax)| c * st[ax]).sum();
        for t in 0..d.len {
            pos.push(base + (t + d.start.0) * st[d.axes.0] + (t + d.start.1) * st[d.axes.1]);
        }
    });
    Ok((pos, shape.iter().product()))
}

fn diag_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let x = ins[0];
    let (pos, size) = positions(ctx.attrs, &x.shape)?;
    let out = match x.shape.len() {
        1 => {
            let mut m = vec![0.0; size];
            pos.iter().zip(&x.data).for_each(|(&p, &v)| m[p] = v);
            m
        }
        _ => pos.iter().map(|&p| x.data[p]).collect(),
    };
    Ok(vec![output("diag", ctx, 0, out)?])
}

fn diag_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[0]];
    Ok(vec![Some(apply(
        g,
        "_backward_diag",
        &args,
        ctx.raw_attrs,
    )?)])
}

static BACKWARD_DIAG: OpDef = OpDef {
    doc: "The gradient of diag: for a 1-D `data`, diagonal k of `ograd`; otherwise `ograd` \
          written on the diagonal of zeros of data's shape (data's values are not read).",
    params: PARAMS,
    inputs: Inputs::Fixed(&["ograd", "data"]),
    infer_shape: backward_diag_shape,
    infer_dtype: first_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_diag",
        Pattern::Opaque,
        Compute::Library {
            kernel: "diag_backward",
            reference: backward_diag_ref,
        },
    )
};

fn backward_diag_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    set_out(outs, 0, &ins[1].clone())?;
    set_in(ins, 1, &outs[0].clone())?;
    if !ins[1].is_empty() {
        set_in(ins, 0, &diag_out(a, &ins[1])?)?;
    }
    Ok(())
}

fn backward_diag_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (ograd, shape) = (ins[0], &ctx.out_shapes[0]);
    let (pos, size) = positions(ctx.attrs, shape)?;
    let fits = match shape.len() {
        1 => ograd.len() == size,
        _ => ograd.len() == pos.len(),
    };
    if !fits {
        return invalid(format!(
            "_backward_diag: ograd {} does not match data {}",
            fmt_shape(&ograd.shape),
            fmt_shape(shape)
        ));
    }
    let out = match shape.len() {
        1 => pos.iter().map(|&p| ograd.data[p]).collect(),
        _ => {
            let mut g = vec![0.0; size];
            pos.iter().zip(&ograd.data).for_each(|(&p, &v)| g[p] += v);
            g
        }
    };
    Ok(vec![output("_backward_diag", ctx, 0, out)?])
}

pub fn register(r: &mut Registry) {
    r.add(&DIAG);
    r.add(&BACKWARD_DIAG);
}

#[cfg(test)]
mod tests {
    use crate::testutil::{check_grad, infer, infer_both, iota, message, randn, run, tensor};

    fn diag(kv: &[(&str, &str)], x: crate::Tensor) -> (Vec<usize>, Vec<f64>) {
        let out = run("diag", kv, &[x], false).unwrap().remove(0);
        (out.shape, out.data)
    }

    #[test]
    fn vector_to_matrix() {
        let v = tensor(&[2], &[1.0, 2.0]);
        let (shape, data) = diag(&[], v.clone());
        assert_eq!((shape, data), (vec![2, 2], vec![1.0, 0.0, 0.0, 2.0]));
        let (shape, data) = diag(&[("k", "1")], v.clone());
        assert_eq!(shape, [3, 3]);
        assert_eq!(data, [0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0]);
        let (_, data) = diag(&[("k", "-2"), ("axis1", "5")], v);
        assert_eq!(data[8..], [1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0]);
    }

    #[test]
    fn matrix_diagonals_follow_numpy() {
        let m = iota(&[3, 4]);
        assert_eq!(diag(&[], m.clone()), (vec![3], vec![0.0, 5.0, 10.0]));
        assert_eq!(diag(&[("k", "1")], m.clone()).1, [1.0, 6.0, 11.0]);
        assert_eq!(diag(&[("k", "3")], m.clone()).1, [3.0]);
        assert_eq!(diag(&[("k", "-2")], m.clone()).1, [8.0]);
        let kv = [("axis1", "1"), ("axis2", "0"), ("k", "1")];
        assert_eq!(diag(&kv, m.clone()).1, [4.0, 9.0]);
        assert_eq!(
            diag(&[("axis1", "-1"), ("axis2", "-2")], m).1,
            [0.0, 5.0, 10.0]
        );
        let a = iota(&[2, 3, 4]);
        let (shape, data) = diag(&[], a.clone());
        assert_eq!(shape, [4, 2]);
        assert_eq!(data[..4], [0.0, 16.0, 1.0, 17.0]);
        let kv = [("axis1", "1"), ("axis2", "2"), ("k", "-1")];
        assert_eq!(
            diag(&kv, a.clone()),
            (vec![2, 2], vec![4.0, 9.0, 16.0, 21.0])
        );
        let kv = [("axis1", "2"), ("axis2", "0")];
        let (shape, data) = diag(&kv, a);
        assert_eq!((shape, data[..2].to_vec()), (vec![3, 2], vec![0.0, 13.0]));
    }

    #[test]
    fn shapes_and_errors() {
        let s = |kv: &[(&str, &str)], shape: &[usize]| infer("diag", kv, &[shape]);
        assert_eq!(s(&[("k", "-3")], &[4]).unwrap().1[0], [7, 7]);
        assert_eq!(s(&[], &[0, 5]).unwrap().1[0], [0]);
        assert_eq!(
            message(s(&[("k", "4")], &[3, 4])),
            "diag: k=4 selects no diagonal of input (3, 4) (axis1 has size 3, axis2 4)"
        );
        assert_eq!(
            message(s(&[("k", "-3")], &[3, 4])),
            "diag: k=-3 selects no diagonal of input (3, 4) (axis1 has size 3, axis2 4)"
        );
        assert_eq!(
            message(s(&[("axis1", "1"), ("axis2", "-1")], &[3, 4])),
            "diag: axis1=1 and axis2=-1 name the same axis of input (3, 4)"
        );
        assert_eq!(
            message(s(&[("axis1", "2")], &[3, 4])),
            "diag: axis1=2 is out of range for input (3, 4)"
        );
        let (ins, _) = infer_both("_backward_diag", &[("k", "1")], &[&[], &[3]], &[]).unwrap();
        assert_eq!(ins[0], [4, 4]);
    }

    #[test]
    fn gradients_match_finite_differences() {
        for (shape, kv) in [
            (&[3][..], &[][..]),
            (&[1], &[("k", "-2")]),
            (&[7], &[("k", "3")]),
            (&[3, 7], &[("k", "2")]),
            (&[3, 7], &[("k", "-1"), ("axis1", "-1"), ("axis2", "0")]),
            (&[2, 3, 7], &[("axis1", "2"), ("axis2", "-3"), ("k", "1")]),
            (&[1, 1], &[]),
        ] {
            check_grad("diag", kv, &[randn(shape, 1)], false, &[]);
        }
    }
}
