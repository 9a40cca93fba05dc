//! SwapAxis, slice_like, stack and reverse: data movement declared as index maps (tile,
//! repeat and Pad, which replicate data, are in `replicate.rs`).
//!
//! Gradients: SwapAxis and reverse are their own inverses; stack's head gradient is split
//! back with SliceChannel(squeeze_axis); slice_like's is placed at the origin of zeros of
//! the input's shape by `_backward_slice_like`.

use super::{apply, axis_of, fmt_ints};
use crate::elemwise::numbered_args;
use crate::param::{param, ParamType};
use crate::shape::{self, fmt_shape, invalid, set_in, set_out, unify, OpError, Shape, Slot};
use crate::tensor::{for_each_index, strides};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradGraph, Handle, IndexExpr, IndexMap, Inputs,
    KernelCtx, OpDef, Pattern, Piece, Registry, Tensor,
};

static SWAP_AXIS: OpDef = OpDef {
    aliases: &["swapaxes"],
    doc: "Swaps axes `dim1` and `dim2` (negative counts from the end).",
    params: &[
        param("dim1", ParamType::Int, Some("0"), "the first axis"),
        param("dim2", ParamType::Int, Some("0"), "the second axis"),
    ],
    infer_shape: swap_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(swap_grad),
    ..OpDef::new("SwapAxis", Pattern::Injective, Compute::Injective(swap_map))
};

/// The two swapped axes for an input of `shape`'s rank.
fn swapped(a: &Attrs, shape: &[usize]) -> Result<(usize, usize), OpError> {
    Ok((
        axis_of("SwapAxis", "dim1", a.int("dim1"), shape)?,
        axis_of("SwapAxis", "dim2", a.int("dim2"), shape)?,
    ))
}

/// `shape` with the two axes swapped (SwapAxis is its own inverse, so this serves both
/// directions of inference).
fn swap(a: &Attrs, shape: &[usize]) -> Result<Shape, OpError> {
    let (i, j) = swapped(a, shape)?;
    let mut s = shape.to_vec();
    s.swap(i, j);
    Ok(s)
}

fn swap_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if !outs[0].is_empty() {
        let input = swap(a, &outs[0])?;
        set_in(ins, 0, &input)?;
    }
    if !ins[0].is_empty() {
        let out = swap(a, &ins[0])?;
        set_out(outs, 0, &out)?;
    }
    Ok(())
}

fn swap_map(a: &Attrs, ins: &[Shape], _: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    let (i, j) = swapped(a, &ins[0])?;
    let mut coords: Vec<IndexExpr> = (0..ins[0].len()).map(IndexExpr::Out).collect();
    coords.swap(i, j);
    Ok(IndexMap::single(coords))
}

/// SwapAxis and reverse are their own inverses: the same operator, with the same
/// attributes, on the head gradient.
fn inverse(g: &mut dyn GradGraph, ctx: &GradCtx, op: &str) -> Result<Vec<Option<Handle>>, OpError> {
    Ok(vec![Some(apply(
        g,
        op,
        &[ctx.out_grads[0]],
        ctx.raw_attrs,
    )?)])
}

fn swap_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    inverse(g, ctx, "SwapAxis")
}

fn reverse_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    inverse(g, ctx, "reverse")
}

static SLICE_LIKE: OpDef = OpDef {
    doc: "Slices `data` from the origin to the shape of `shape_like`, along `axes` (empty: \
          every axis, the ranks must then agree). Negative axes count from the end of data; \
          shape_like's values are not read.",
    params: &[param(
        "axes",
        ParamType::Shape,
        Some("()"),
        "the axes to slice (empty: all)",
    )],
    inputs: Inputs::Fixed(&["data", "shape_like"]),
    infer_shape: slice_like_shape,
    infer_dtype: first_dtype,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(slice_like_grad),
    ..OpDef::new(
        "slice_like",
        Pattern::Injective,
        Compute::Injective(origin_map),
    )
};

/// The sliced output shape of `data` like `like` (unknown dimensions stay unknown).
fn slice_like_out(a: &Attrs, data: &[usize], like: &[usize]) -> Result<Shape, OpError> {
    let axes = a.shape("axes");
    let fail = |why: String| {
        invalid(format!(
            "slice_like: cannot slice data {} like {} (axes={}): {why}",
            fmt_shape(data),
            fmt_shape(like),
            fmt_ints(axes)
        ))
    };
    let picked: Vec<usize> = if axes.is_empty() {
        if data.len() != like.len() {
            return fail("without axes the ranks must agree".into());
        }
        (0..data.len()).collect()
    } else {
        let mut v = Vec::with_capacity(axes.len());
        for &ax in axes {
            let n = data.len() as i64;
            let i = if ax < 0 { ax + n } else { ax };
            if !(0..n).contains(&i) || i as usize >= like.len() {
                return fail(format!("axis {ax} is out of range"));
            }
            v.push(i as usize);
        }
        v
    };
    let mut out = data.to_vec();
    for i in picked {
        if data[i] != 0 && like[i] > data[i] {
            return fail(format!(
                "axis {i} of shape_like is longer ({} > {})",
                like[i], data[i]
            ));
        }
        out[i] = like[i];
    }
    Ok(out)
}

fn slice_like_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() || ins[1].is_empty() {
        return Ok(());
    }
    let out = slice_like_out(a, &ins[0], &ins[1])?;
    set_out(outs, 0, &out)
}

/// The output has input 0's dtype; the others may have any.
fn first_dtype(
    a: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    shape::same_dtype(a, &mut ins[..1], outs)
}

/// slice_like: every output coordinate reads the same input coordinate.
fn origin_map(_: &Attrs, ins: &[Shape], _: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    Ok(IndexMap::single(
        (0..ins[0].len()).map(IndexExpr::Out).collect(),
    ))
}

fn slice_like_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[0]];
    let grad = apply(g, "_backward_slice_like", &args, &[])?;
    Ok(vec![Some(grad), None])
}

static BACKWARD_SLICE_LIKE: OpDef = OpDef {
    doc: "The gradient of `slice_like`: zeros of `data`'s shape with `ograd` at the origin \
          (data's values are not read).",
    inputs: Inputs::Fixed(&["ograd", "data"]),
    infer_shape: backward_slice_like_shape,
    inplace: &[],
    ..OpDef::new(
        "_backward_slice_like",
        Pattern::Opaque,
        Compute::Library {
            kernel: "slice_like_backward",
            reference: backward_slice_like_ref,
        },
    )
};

fn backward_slice_like_shape(
    _: &Attrs,
    ins: &mut [Shape],
    outs: &mut [Shape],
) -> Result<(), OpError> {
    set_out(outs, 0, &ins[1].clone())?;
    set_in(ins, 1, &outs[0].clone())?;
    let (ograd, data) = (&ins[0], &ins[1]);
    if !ograd.is_empty() && !data.is_empty() {
        let fits = ograd.len() == data.len() && ograd.iter().zip(data).all(|(&g, &d)| g <= d);
        if !fits {
            return invalid(format!(
                "_backward_slice_like: ograd {} does not fit in data {}",
                fmt_shape(ograd),
                fmt_shape(data)
            ));
        }
    }
    Ok(())
}

fn backward_slice_like_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (ograd, out_shape) = (ins[0], &ctx.out_shapes[0]);
    let st = strides(out_shape);
    let mut out = vec![0.0; shape::size(out_shape)];
    let mut pos = 0;
    for_each_index(&ograd.shape, |idx| {
        let at: usize = idx.iter().zip(&st).map(|(i, s)| i * s).sum();
        out[at] = ograd.data[pos];
        pos += 1;
    });
    Ok(vec![Tensor {
        dtype: ctx.out_dtypes[0],
        shape: out_shape.clone(),
        data: out,
    }])
}

static STACK: OpDef = OpDef {
    doc: "Joins the inputs arg0, arg1, ..., all of one shape, along a new axis `axis` of the \
          output (negative counts from the end of the output).",
    params: &[
        param(
            "axis",
            ParamType::Int,
            Some("0"),
            "the new axis, in the output",
        ),
        param("num_args", ParamType::Int, None, "number of inputs"),
    ],
    inputs: Inputs::Dynamic(numbered_args),
    num_args_param: Some("num_args"),
    infer_shape: stack_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(stack_grad),
    ..OpDef::new("stack", Pattern::Injective, Compute::Injective(stack_map))
};

fn stack_arity(a: &Attrs, inputs: usize) -> Result<usize, OpError> {
    match a.int("num_args") {
        n if n < 1 => invalid(format!("stack: num_args={n} must be at least 1")),
        n if n as usize != inputs => {
            invalid(format!("stack: num_args={n} but {inputs} inputs are given"))
        }
        n => Ok(n as usize),
    }
}

/// The new axis in an output of rank `ndim + 1` (`out` names the output in errors).
fn stack_axis(a: &Attrs, out: &[usize]) -> Result<usize, OpError> {
    axis_of("stack", "axis", a.int("axis"), out)
}

fn stack_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let n = stack_arity(a, ins.len())?;
    // Unified into each slot's own shape so that a conflict shows what the slot has.
    let mut common = Shape::new();
    for (i, s) in ins.iter().enumerate() {
        let mut mine = s.clone();
        unify(Slot::In(i), &mut mine, &common)?;
        common = if mine.is_empty() { common } else { mine };
    }
    if !outs[0].is_empty() {
        let ax = stack_axis(a, &outs[0])?;
        let mut input = outs[0].clone();
        input.remove(ax);
        unify(Slot::Out(0), &mut input, &common)?;
        common = input;
    }
    if common.is_empty() {
        return Ok(());
    }
    for i in 0..n {
        set_in(ins, i, &common)?;
    }
    let mut out = common.clone();
    out.push(0);
    let ax = stack_axis(a, &out)?;
    out.pop();
    out.insert(ax, n);
    set_out(outs, 0, &out)
}

fn stack_map(a: &Attrs, ins: &[Shape], outs: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    stack_arity(a, ins.len())?;
    let ax = stack_axis(a, &outs[0])?;
    let coords: Vec<IndexExpr> = (0..outs[0].len())
        .filter(|&d| d != ax)
        .map(IndexExpr::Out)
        .collect();
    let pieces = (0..ins.len())
        .map(|input| Piece {
            input,
            guard: Some((ax, input, input + 1)),
            coords: coords.clone(),
        })
        .collect();
    Ok(IndexMap { pieces })
}

/// The head gradient split along the new axis, which each part drops.
fn stack_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let n = stack_arity(ctx.attrs, ctx.inputs.len())?.to_string();
    let axis = ctx.attrs.int("axis").to_string();
    let kv = [
        ("num_outputs", n.as_str()),
        ("axis", axis.as_str()),
        ("squeeze_axis", "True"),
    ];
    let parts = g.op("SliceChannel", &[ctx.out_grads[0]], &kv)?;
    Ok(parts.into_iter().map(Some).collect())
}

static REVERSE: OpDef = OpDef {
    aliases: &["flip"],
    doc: "Reverses the order of the elements along each listed axis (from 0; MXNet 1.x \
          accepts no negative axes here). An axis listed twice is reversed twice.",
    params: &[param("axis", ParamType::Shape, None, "the axes to reverse")],
    infer_shape: reverse_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(reverse_grad),
    ..OpDef::new(
        "reverse",
        Pattern::Injective,
        Compute::Injective(reverse_map),
    )
};

/// Whether each axis is reversed (an odd number of times).
fn reversed(a: &Attrs, shape: &[usize]) -> Result<Vec<bool>, OpError> {
    let mut flip = vec![false; shape.len()];
    for &ax in a.shape("axis") {
        if !(0..shape.len() as i64).contains(&ax) {
            return invalid(format!(
                "reverse: axis={} names axis {ax}, out of range [0, {}) for input {}",
                fmt_ints(a.shape("axis")),
                shape.len(),
                fmt_shape(shape)
            ));
        }
        flip[ax as usize] ^= true;
    }
    Ok(flip)
}

fn reverse_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    shape::same_shape(a, ins, outs)?;
    if !ins[0].is_empty() {
        reversed(a, &ins[0])?;
    }
    Ok(())
}

fn reverse_map(a: &Attrs, ins: &[Shape], _: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    let flip = reversed(a, &ins[0])?;
    let coords = ins[0]
        .iter()
        .zip(flip)
        .enumerate()
        .map(|(i, (&d, f))| match f {
            true => IndexExpr::Out(i) * -1 + IndexExpr::Const(d as i64 - 1),
            false => IndexExpr::Out(i),
        })
        .collect();
    Ok(IndexMap::single(coords))
}

pub fn register(r: &mut Registry) {
    for op in [
        &SWAP_AXIS,
        &SLICE_LIKE,
        &BACKWARD_SLICE_LIKE,
        &STACK,
        &REVERSE,
    ] {
        r.add(op);
    }
    // tile, repeat and Pad: registered with this family (one call in `tensor_ops`).
    super::replicate::register(r);
}

#[cfg(test)]
mod tests {
    use crate::testutil::{
        check_grad, infer, infer_both, infer_err, iota, message, randn, run, tensor,
    };
    use crate::{DType, Tensor};

    fn one(name: &str, kv: &[(&str, &str)], ins: &[Tensor]) -> (Vec<usize>, Vec<f64>) {
        let out = run(name, kv, ins, false).unwrap().remove(0);
        (out.shape, out.data)
    }

    /// [[1, 2], [3, 4]], MXNet's tile and repeat example.
    fn x22() -> Tensor {
        tensor(&[2, 2], &[1.0, 2.0, 3.0, 4.0])
    }

    #[test]
    fn swap_axis_follows_mxnet_examples() {
        let kv = [("dim1", "0"), ("dim2", "1")];
        let (shape, data) = one("SwapAxis", &kv, &[tensor(&[1, 3], &[1.0, 2.0, 3.0])]);
        assert_eq!((shape, data), (vec![3, 1], vec![1.0, 2.0, 3.0]));
        // [[[0, 1], [2, 3]], [[4, 5], [6, 7]]] swapped 0 <-> 2.
        let kv = [("dim1", "0"), ("dim2", "-1")];
        let (_, data) = one("swapaxes", &kv, &[iota(&[2, 2, 2])]);
        assert_eq!(data, [0.0, 4.0, 2.0, 6.0, 1.0, 5.0, 3.0, 7.0]);
        assert_eq!(one("SwapAxis", &[], &[iota(&[2, 3])]).1, iota(&[6]).data);
        assert_eq!(
            message(infer("SwapAxis", &[("dim2", "3")], &[&[2, 3, 4]])),
            "SwapAxis: dim2=3 is out of range for input (2, 3, 4)"
        );
        let (ins, _) = infer_both("SwapAxis", &kv, &[&[]], &[&[4, 3, 2]]).unwrap();
        assert_eq!(ins[0], [2, 3, 4]);
    }

    #[test]
    fn slice_like_follows_mxnet_examples() {
        let x: Vec<f64> = (1..=12).map(f64::from).collect();
        let x = tensor(&[3, 4], &x);
        let y = Tensor::zeros(DType::I32, vec![2, 3]);
        let sl = |axes: &str| one("slice_like", &[("axes", axes)], &[x.clone(), y.clone()]);
        let first = vec![1.0, 2.0, 3.0, 5.0, 6.0, 7.0];
        assert_eq!(sl("()"), (vec![2, 3], first.clone()));
        assert_eq!(sl("(0,)"), (vec![2, 4], x.data[..8].to_vec()));
        assert_eq!(sl("(0, -1)"), (vec![2, 3], first));
        assert_eq!(sl("(-1,)").0, [3, 3]);
        let e = |data: &[usize], like: &[usize], axes: &str| {
            message(infer("slice_like", &[("axes", axes)], &[data, like]))
        };
        assert_eq!(
            e(&[3, 4], &[2, 3, 5], "()"),
            "slice_like: cannot slice data (3, 4) like (2, 3, 5) (axes=()): without axes the \
             ranks must agree"
        );
        assert_eq!(
            e(&[3, 4], &[2, 5], "()"),
            "slice_like: cannot slice data (3, 4) like (2, 5) (axes=()): axis 1 of shape_like \
             is longer (5 > 4)"
        );
        assert!(e(&[3, 4], &[2, 3], "(2,)").ends_with("axis 2 is out of range"));
        assert!(e(&[3, 4], &[2, 3], "(-3,)").ends_with("axis -3 is out of range"));
        assert!(e(&[3, 4], &[2], "(1,)").ends_with("axis 1 is out of range"));
        let out = infer("slice_like", &[], &[&[0, 4], &[2, 0]]).unwrap().1;
        assert_eq!(out[0], [2, 0]);
    }

    #[test]
    fn stack_follows_mxnet_examples() {
        let (x, y) = (tensor(&[2], &[1.0, 2.0]), tensor(&[2], &[3.0, 4.0]));
        let kv = [("num_args", "2")];
        let out = one("stack", &kv, &[x.clone(), y.clone()]);
        assert_eq!(out, (vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]));
        let kv = [("num_args", "2"), ("axis", "-1")];
        assert_eq!(one("stack", &kv, &[x, y]).1, [1.0, 3.0, 2.0, 4.0]);
        let kv = [("num_args", "3"), ("axis", "1")];
        let out = one("stack", &kv, &[iota(&[2, 2]), iota(&[2, 2]), x22()]);
        assert_eq!(out.0, [2, 3, 2]);
        assert_eq!(out.1[4..8], [1.0, 2.0, 2.0, 3.0]);
        let s = |kv: &[(&str, &str)], ins: &[&[usize]]| infer("stack", kv, ins);
        let kv = [("num_args", "2"), ("axis", "2")];
        assert_eq!(s(&kv, &[&[2, 3], &[0, 3]]).unwrap().1[0], [2, 3, 2]);
        assert_eq!(
            infer_err("stack", &kv, &[&[2, 3], &[2, 4]]),
            "input `arg1` has shape (2, 4) but (2, 3) is required"
        );
        let kv = [("num_args", "2"), ("axis", "-4")];
        assert_eq!(
            message(s(&kv, &[&[2, 3], &[2, 3]])),
            "stack: axis=-4 is out of range for input (2, 3, ?)"
        );
        // The output gives the inputs back.
        let kv = [("num_args", "2"), ("axis", "1")];
        let (ins, _) = infer_both("stack", &kv, &[&[], &[]], &[&[4, 2, 3]]).unwrap();
        assert_eq!(ins, [vec![4, 3], vec![4, 3]]);
    }

    #[test]
    fn reverse_follows_mxnet_examples() {
        let x = iota(&[2, 5]);
        let (_, data) = one("reverse", &[("axis", "0")], std::slice::from_ref(&x));
        assert_eq!(data, [5.0, 6.0, 7.0, 8.0, 9.0, 0.0, 1.0, 2.0, 3.0, 4.0]);
        let (_, data) = one("flip", &[("axis", "1")], std::slice::from_ref(&x));
        assert_eq!(data, [4.0, 3.0, 2.0, 1.0, 0.0, 9.0, 8.0, 7.0, 6.0, 5.0]);
        let (_, data) = one("reverse", &[("axis", "(0, 1)")], std::slice::from_ref(&x));
        assert_eq!(data, (0..10).rev().map(f64::from).collect::<Vec<_>>());
        // An axis listed twice is reversed twice.
        assert_eq!(
            one("reverse", &[("axis", "(1, 1)")], &[x]).1,
            iota(&[10]).data
        );
        assert_eq!(
            message(infer("reverse", &[("axis", "-1")], &[&[2, 5]])),
            "reverse: axis=(-1,) names axis -1, out of range [0, 2) for input (2, 5)"
        );
    }

    #[test]
    fn every_dtype_moves() {
        // An operator, its attributes, its output's shape and which element of
        // [[0, 1, 2], [3, 4, 5]] lands at each of its positions, by hand.
        type Move = (&'static str, Kv, &'static [usize], &'static [usize]);
        type Kv = &'static [(&'static str, &'static str)];
        let cases: [Move; 5] = [
            ("SwapAxis", &[("dim1", "1")], &[3, 2], &[0, 3, 1, 4, 2, 5]),
            ("reverse", &[("axis", "1")], &[2, 3], &[2, 1, 0, 5, 4, 3]),
            (
                "tile",
                &[("reps", "(2,)")],
                &[2, 6],
                &[0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5],
            ),
            (
                "repeat",
                &[("repeats", "2")],
                &[12],
                &[0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
            ),
            (
                "stack",
                &[("num_args", "1")],
                &[1, 2, 3],
                &[0, 1, 2, 3, 4, 5],
            ),
        ];
        for dt in DType::ALL {
            // Rounded to the dtype (bool holds 0 and 1), then moved unchanged.
            let x = iota(&[2, 3]).cast(dt);
            for (name, kv, shape, from) in cases {
                let out = run(name, kv, std::slice::from_ref(&x), false).unwrap();
                let want: Vec<f64> = from.iter().map(|&i| x.data[i]).collect();
                assert_eq!(out[0].dtype, dt, "{name}");
                assert_eq!(out[0].shape, shape, "{name} {dt:?}");
                assert_eq!(out[0].data, want, "{name} {dt:?}");
            }
        }
    }

    #[test]
    fn gradients_match_finite_differences() {
        let x = randn(&[3, 1, 7], 1);
        let x1 = std::slice::from_ref(&x);
        for (a, b) in [("0", "2"), ("-1", "1"), ("1", "1"), ("-3", "-2")] {
            check_grad("SwapAxis", &[("dim1", a), ("dim2", b)], x1, false, &[]);
        }
        for axis in ["0", "(0, 2)", "(2, 1, 2)", "()"] {
            check_grad("reverse", &[("axis", axis)], x1, false, &[]);
        }
        let like = randn(&[2, 1, 7], 4);
        for axes in ["()", "(0,)", "(-1, 0)"] {
            let ins = [x.clone(), like.clone()];
            check_grad("slice_like", &[("axes", axes)], &ins, false, &[]);
        }
        let ins = [x.clone(), randn(&[1, 1, 3], 5)];
        check_grad("slice_like", &[], &ins, false, &[]);
        for axis in ["0", "1", "3", "-1", "-4"] {
            let ins = [x.clone(), randn(&[3, 1, 7], 6), randn(&[3, 1, 7], 7)];
            check_grad(
                "stack",
                &[("num_args", "3"), ("axis", axis)],
                &ins,
                false,
                &[],
            );
        }
        check_grad("stack", &[("num_args", "1")], &[randn(&[7], 8)], false, &[]);
    }

    #[test]
    fn backward_slice_like_places_ograd_at_the_origin() {
        let ograd = tensor(&[1, 2], &[1.0, 2.0]);
        let out = run("_backward_slice_like", &[], &[ograd, iota(&[2, 3])], false).unwrap();
        assert_eq!(out[0].data, [1.0, 2.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(
            message(infer("_backward_slice_like", &[], &[&[3, 2], &[2, 3]])),
            "_backward_slice_like: ograd (3, 2) does not fit in data (2, 3)"
        );
    }
}
