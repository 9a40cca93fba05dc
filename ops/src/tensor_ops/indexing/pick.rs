//! pick (one element per position along an axis, chosen by `index`), its gradient
//! `_backward_pick` (the head gradient written back at the picked positions), and one_hot
//! (the inverse layout: a row of off_value with on_value at each index).

use super::{around, first_dtype, output, Mode};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, OpError, Shape, Slot};
use crate::tensor_ops::{apply, axis_of};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Pattern,
    Registry, Tensor,
};

const PICK_PARAMS: &[ParamDef] = &[
    param(
        "axis",
        ParamType::OptInt,
        Some("-1"),
        "the axis to pick along (negative counts from the end; None is refused, as in \
         MXNet 1.9.1)",
    ),
    param(
        "keepdims",
        ParamType::Bool,
        Some("False"),
        "keep the picked axis, with size 1",
    ),
    param(
        "mode",
        ParamType::Enum(&["clip", "wrap"]),
        Some("clip"),
        "out-of-range indices: clip to the axis or wrap around it",
    ),
];

static PICK: OpDef = OpDef {
    aliases: &["_npx_pick", "choose_element_0index"],
    doc: "Picks one element along `axis` for every other position: out[..., i, ...] = \
          data[..., index[..., i, ...], ...]. `index` has data's shape without the axis \
          (or with it as 1); its values are truncated to integers, then clipped or wrapped.",
    params: PICK_PARAMS,
    inputs: Inputs::Fixed(&["data", "index"]),
    infer_shape: pick_shape,
    infer_dtype: first_dtype,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(pick_grad),
    ..OpDef::new(
        "pick",
        Pattern::Opaque,
        Compute::Library {
            kernel: "pick",
            reference: pick_ref,
        },
    )
};

/// The picked axis of a known data shape.
fn pick_axis(a: &Attrs, data: &[usize]) -> Result<usize, OpError> {
    match a.opt_int("axis") {
        Some(ax) => axis_of("pick", "axis", ax, data),
        None => invalid("pick: axis=None is not supported (as in MXNet 1.9.1); give an axis"),
    }
}

/// Data's shape with the picked axis set to 1 (`keep`) or removed ((1,) if nothing is
/// left).
fn picked(data: &[usize], axis: usize, keep: bool) -> Shape {
    let mut s = data.to_vec();
    if keep {
        s[axis] = 1;
    } else {
        s.remove(axis);
    }
    if s.is_empty() {
        s.push(1);
    }
    s
}

/// The index has the output's shape without keepdims — or, given with data's rank, with
/// it (MXNet's PickOpShape).
fn pick_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    let ax = pick_axis(a, &ins[0])?;
    set_out(outs, 0, &picked(&ins[0], ax, a.bool("keepdims")))?;
    let keep_index = ins[1].len() == ins[0].len();
    set_in(ins, 1, &picked(&ins[0], ax, keep_index))
}

fn pick_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (data, index) = (ins[0], ins[1]);
    let ax = pick_axis(ctx.attrs, &data.shape)?;
    let (outer, n, inner) = around(&data.shape, ax);
    check_index(&data.shape, index, outer * inner)?;
    let mode = Mode::of(ctx.attrs);
    let mut out = Vec::with_capacity(outer * inner);
    for (p, &v) in index.data.iter().enumerate() {
        let j = position("pick", mode, v, n)?;
        out.push(data.data[((p / inner) * n + j) * inner + p % inner]);
    }
    Ok(vec![output("pick", ctx, 0, out)?])
}

/// The picked position (clip and wrap always find one unless the axis is empty).
fn position(op: &str, mode: Mode, v: f64, n: usize) -> Result<usize, OpError> {
    match mode.resolve(v, n) {
        Some(j) => Ok(j),
        None => invalid(format!("{op}: index {v} picks from an empty axis")),
    }
}

fn check_index(data: &[usize], index: &Tensor, want: usize) -> Result<(), OpError> {
    if index.len() != want {
        return invalid(format!(
            "pick: index {} does not match data {}",
            fmt_shape(&index.shape),
            fmt_shape(data)
        ));
    }
    Ok(())
}

fn pick_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[1], ctx.inputs[0]];
    let grad = apply(g, "_backward_pick", &args, ctx.raw_attrs)?;
    Ok(vec![Some(grad), None])
}

static BACKWARD_PICK: OpDef = OpDef {
    doc: "The gradient of pick: zeros of `data`'s shape with each element of `ograd` at the \
          position along `axis` that `index` picked (data's values are not read).",
    params: PICK_PARAMS,
    inputs: Inputs::Fixed(&["ograd", "index", "data"]),
    infer_shape: backward_pick_shape,
    infer_dtype: first_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_pick",
        Pattern::Opaque,
        Compute::Library {
            kernel: "pick_backward",
            reference: backward_pick_ref,
        },
    )
};

/// The output has data's shape; ograd has the shape pick gives data.
fn backward_pick_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    set_out(outs, 0, &ins[2].clone())?;
    set_in(ins, 2, &outs[0].clone())?;
    let (mut forward_ins, mut picked) = (vec![ins[2].clone(), ins[1].clone()], vec![Shape::new()]);
    pick_shape(a, &mut forward_ins, &mut picked)?;
    set_in(ins, 1, &forward_ins[1])?;
    set_in(ins, 0, &picked[0])
}

fn backward_pick_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (ograd, index, shape) = (ins[0], ins[1], &ctx.out_shapes[0]);
    let ax = pick_axis(ctx.attrs, shape)?;
    let (outer, n, inner) = around(shape, ax);
    check_index(shape, index, outer * inner)?;
    if ograd.len() != index.len() {
        return invalid(format!(
            "_backward_pick: ograd {} does not match index {}",
            fmt_shape(&ograd.shape),
            fmt_shape(&index.shape)
        ));
    }
    let mode = Mode::of(ctx.attrs);
    let mut out = vec![0.0; outer * n * inner];
    for (p, &v) in index.data.iter().enumerate() {
        let j = position("_backward_pick", mode, v, n)?;
        out[((p / inner) * n + j) * inner + p % inner] += ograd.data[p];
    }
    Ok(vec![output("_backward_pick", ctx, 0, out)?])
}

static ONE_HOT: OpDef = OpDef {
    aliases: &["_npx_one_hot"],
    doc: "One-hot encoding: the output is indices' shape followed by `depth`, holding \
          on_value at each index (truncated to an integer) and off_value elsewhere; an index \
          outside [0, depth) gives a row of off_value. The gradient is zero.",
    params: &[
        param("depth", ParamType::Int, None, "length of the one-hot axis"),
        param(
            "on_value",
            ParamType::Float,
            Some("1.0"),
            "the value at the indexed position",
        ),
        param(
            "off_value",
            ParamType::Float,
            Some("0.0"),
            "the value everywhere else",
        ),
        param(
            "dtype",
            ParamType::Enum(&[
                "bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8",
            ]),
            Some("float32"),
            "dtype of the output",
        ),
    ],
    inputs: Inputs::Fixed(&["indices"]),
    infer_shape: one_hot_shape,
    infer_dtype: one_hot_dtype,
    inplace: &[],
    dtypes: &DType::NUMERIC,
    grad: Grad::Zero,
    ..OpDef::new(
        "one_hot",
        Pattern::Opaque,
        Compute::Library {
            kernel: "one_hot",
            reference: one_hot_ref,
        },
    )
};

fn depth(a: &Attrs) -> Result<usize, OpError> {
    match a.int("depth") {
        d if d >= 1 => Ok(d as usize),
        d => invalid(format!(
            "one_hot: depth={d} must be at least 1 (kiln has no empty arrays)"
        )),
    }
}

fn one_hot_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let d = depth(a)?;
    if !ins[0].is_empty() {
        set_out(outs, 0, &[&ins[0][..], &[d]].concat())?;
    }
    if let Some((&last, lead)) = outs[0].split_last() {
        if last != d {
            return Err(OpError::Shape {
                slot: Slot::Out(0),
                have: outs[0].clone(),
                want: [lead, &[d]].concat(),
            });
        }
        if !lead.is_empty() {
            set_in(ins, 0, lead)?;
        }
    }
    Ok(())
}

fn one_hot_dtype(
    a: &Attrs,
    _: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    let want = DType::parse(a.str("dtype")).unwrap_or(DType::F32);
    match outs[0] {
        Some(have) if have != want => Err(OpError::DType {
            slot: Slot::Out(0),
            have,
            want,
        }),
        _ => {
            outs[0] = Some(want);
            Ok(())
        }
    }
}

fn one_hot_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let d = depth(ctx.attrs)?;
    let (on, off) = (ctx.attrs.float("on_value"), ctx.attrs.float("off_value"));
    let mut out = vec![off; ins[0].len() * d];
    for (p, &v) in ins[0].data.iter().enumerate() {
        let j = v as i64;
        if (0..d as i64).contains(&j) {
            out[p * d + j as usize] = on;
        }
    }
    Ok(vec![output("one_hot", ctx, 0, out)?])
}

pub fn register(r: &mut Registry) {
    for op in [&PICK, &BACKWARD_PICK, &ONE_HOT] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{
        analytic_grad, check_grad, infer, infer_both, infer_err, iota, message, randn, run, tensor,
    };
    use crate::{DType, Tensor};

    /// A finite-difference case: data shape, attributes, index.
    type Case<'a> = (&'a [usize], &'a [(&'a str, &'a str)], Tensor);

    /// [[1, 2], [3, 4], [5, 6]]
    fn x() -> Tensor {
        tensor(&[3, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    }

    fn pick(kv: &[(&str, &str)], index: Tensor) -> Tensor {
        run("pick", kv, &[x(), index], false).unwrap().remove(0)
    }

    #[test]
    fn pick_follows_mxnet_examples() {
        let out = pick(&[("axis", "0")], tensor(&[2], &[0.0, 1.0]));
        assert_eq!(out.data, [1.0, 4.0]);
        let out = pick(&[], tensor(&[3], &[0.0, 1.0, -1.0]));
        assert_eq!(out.data, [1.0, 4.0, 5.0]);
        let kv = [("axis", "1"), ("keepdims", "True")];
        let out = pick(&kv, tensor(&[3], &[0.0, 1.0, 3.0]));
        assert_eq!((out.shape, out.data), (vec![3, 1], vec![1.0, 4.0, 6.0]));
        let out = pick(&[("mode", "wrap")], tensor(&[3, 1], &[0.0, -1.0, 3.0]));
        assert_eq!(out.data, [1.0, 4.0, 6.0]);
        let out = pick(&[("mode", "wrap")], tensor(&[3], &[0.7, -0.5, -1.5]));
        assert_eq!(out.data, [1.0, 3.0, 6.0]);
        // 3-D, axis 1: out[i, k] = x[i, index[i, k], k].
        let idx = tensor(&[2, 4], &[0.0, 1.0, 2.0, 3.0, 2.0, 2.0, 2.0, 2.0]);
        let out = run("pick", &[("axis", "1")], &[iota(&[2, 3, 4]), idx], false).unwrap();
        assert_eq!(out[0].data, [0.0, 5.0, 10.0, 11.0, 20.0, 21.0, 22.0, 23.0]);
    }

    #[test]
    fn pick_shapes_and_errors() {
        let s = |kv: &[(&str, &str)], ins: &[&[usize]]| infer("pick", kv, ins);
        let (ins, outs) = s(&[("axis", "1")], &[&[3, 2]]).unwrap();
        assert_eq!(
            (ins[1].as_slice(), outs[0].as_slice()),
            (&[3][..], &[3][..])
        );
        let (ins, _) = s(&[("axis", "1")], &[&[3, 2], &[3, 1]]).unwrap();
        assert_eq!(ins[1], [3, 1]);
        assert_eq!(s(&[], &[&[7]]).unwrap().1[0], [1]);
        assert_eq!(
            infer_err("pick", &[("axis", "1")], &[&[3, 2], &[1, 3]]),
            "input `index` has shape (1, 3) but (3, 1) is required"
        );
        assert_eq!(
            message(s(&[("axis", "None")], &[&[3, 2]])),
            "pick: axis=None is not supported (as in MXNet 1.9.1); give an axis"
        );
        assert_eq!(
            message(s(&[("axis", "-3")], &[&[3, 2]])),
            "pick: axis=-3 is out of range for input (3, 2)"
        );
        let (ins, _) = infer_both("_backward_pick", &[], &[&[], &[], &[3, 2]], &[]).unwrap();
        assert_eq!((ins[0].as_slice(), ins[1].as_slice()), (&[3][..], &[3][..]));
    }

    #[test]
    fn pick_gradient_lands_on_the_picked_elements() {
        let head = tensor(&[2], &[1.0, 2.0]);
        let x = tensor(&[2, 3], &[3.0, 1.0, 2.0, 0.0, 5.0, 4.0]);
        let idx = tensor(&[2], &[0.0, 5.0]);
        let heads = std::slice::from_ref(&head);
        let g = analytic_grad("pick", &[], &[x.clone(), idx], heads, false).unwrap();
        assert_eq!(g[0].as_ref().unwrap().data, [1.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
        assert!(g[1].is_none());
        let idx = tensor(&[2], &[-1.0, 5.0]);
        let g = analytic_grad("pick", &[("mode", "wrap")], &[x, idx], &[head], false).unwrap();
        assert_eq!(g[0].as_ref().unwrap().data, [0.0, 0.0, 1.0, 0.0, 0.0, 2.0]);
    }

    #[test]
    fn pick_gradients_match_finite_differences() {
        let cases: [Case; 4] = [
            (&[3, 7], &[], tensor(&[3], &[6.5, 0.2, 9.0])),
            (
                &[3, 7],
                &[("axis", "0"), ("keepdims", "True"), ("mode", "wrap")],
                tensor(&[1, 7], &[-1.5, 0.0, 1.0, 2.0, 3.5, 4.0, 5.0]),
            ),
            (&[1], &[("axis", "-1")], tensor(&[1], &[0.0])),
            (&[2, 1, 3], &[("axis", "1")], tensor(&[2, 3], &[0.0; 6])),
        ];
        for (shape, kv, index) in cases {
            check_grad("pick", kv, &[randn(shape, 1), index], false, &[1]);
        }
    }

    #[test]
    fn one_hot_follows_mxnet() {
        let idx = tensor(&[6], &[0.0, 2.0, -1.0, 3.0, 1.7, -0.5]);
        let out = run("one_hot", &[("depth", "3")], &[idx], false)
            .unwrap()
            .remove(0);
        assert_eq!(out.shape, [6, 3]);
        #[rustfmt::skip]
        let want = [
            1.0, 0.0, 0.0,  0.0, 0.0, 1.0,  0.0, 0.0, 0.0,
            0.0, 0.0, 0.0,  0.0, 1.0, 0.0,  1.0, 0.0, 0.0,
        ];
        assert_eq!(out.data, want);
        let kv = [
            ("depth", "4"),
            ("on_value", "2.5"),
            ("off_value", "-1"),
            ("dtype", "int32"),
        ];
        let out = run("one_hot", &kv, &[tensor(&[1, 2], &[0.0, 2.0])], false).unwrap();
        assert_eq!(out[0].dtype, DType::I32);
        assert_eq!(out[0].data, [2.0, -1.0, -1.0, -1.0, -1.0, -1.0, 2.0, -1.0]);
    }

    #[test]
    fn one_hot_shapes_and_errors() {
        let (ins, outs) = infer_both("one_hot", &[("depth", "5")], &[&[]], &[&[3, 4, 5]]).unwrap();
        assert_eq!(
            (ins[0].as_slice(), outs[0].as_slice()),
            (&[3, 4][..], &[3, 4, 5][..])
        );
        for d in ["0", "-1"] {
            assert_eq!(
                message(infer("one_hot", &[("depth", d)], &[&[3]])),
                format!("one_hot: depth={d} must be at least 1 (kiln has no empty arrays)")
            );
        }
        assert_eq!(
            message(infer_both("one_hot", &[("depth", "5")], &[&[]], &[&[3, 4]])),
            "Out(0) has shape (3, 4) but (3, 5) is required"
        );
        let g = analytic_grad(
            "one_hot",
            &[("depth", "2")],
            &[tensor(&[1], &[1.0])],
            &[],
            false,
        );
        assert!(g.unwrap()[0].is_none());
    }
}
