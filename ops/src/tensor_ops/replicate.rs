//! tile, repeat and Pad: outputs made of copies of the input's elements.
//!
//! tile and repeat are index maps. Their gradients sum the copies back: the head gradient
//! is reshaped so that the copies get an axis of their own (Reshape's -4 code, matched from
//! the right with `reverse` where the rank is unknown to the rule), summed over it, and
//! given the input's shape.
//!
//! Pad pads the spatial axes of a 4-D or 5-D input with a constant, its edge values or its
//! reflection (MXNet 1.x pads neither the batch nor the channel axis). Padded elements read
//! no input in constant mode, which an index map cannot say, so Pad is a library kernel.
//! Its gradient slices the head gradient back in constant mode; edge and reflect
//! accumulate it onto the input elements each output copied (`_backward_Pad`).

use super::{apply, axis_of, fmt_ints};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{self, fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::tensor::{for_each_index, strides};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradGraph, Handle, IndexExpr, IndexMap, Inputs,
    KernelCtx, OpDef, Pattern, Registry, Tensor, Value,
};

static TILE: OpDef = OpDef {
    doc: "Repeats the whole input `reps[i]` times along axis i. With more reps than input \
          dimensions the input gets leading axes of size 1; with fewer, reps gets leading \
          1s. Empty reps is a copy.",
    params: &[param(
        "reps",
        ParamType::Shape,
        None,
        "the number of copies along each axis (each at least 1)",
    )],
    infer_shape: tile_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(tile_grad),
    ..OpDef::new("tile", Pattern::Injective, Compute::Injective(tile_map))
};

/// The reps, checked positive, and the output shape for `input` (unknown stays unknown).
fn tiled(a: &Attrs, input: &[usize]) -> Result<(Vec<usize>, Shape), OpError> {
    let reps = a.shape("reps");
    if let Some(r) = reps.iter().find(|&&r| r < 1) {
        return invalid(format!(
            "tile: reps={} has entry {r}; each must be at least 1",
            fmt_ints(reps)
        ));
    }
    let rank = input.len().max(reps.len());
    let pad = |v: Vec<usize>| [vec![1; rank - v.len()], v].concat();
    let reps = pad(reps.iter().map(|&r| r as usize).collect());
    let dims = pad(input.to_vec());
    let out = dims.iter().zip(&reps).map(|(d, r)| d.checked_mul(*r));
    match out.collect::<Option<Shape>>() {
        Some(out) => Ok((reps, out)),
        None => invalid(format!(
            "tile: input {} tiled by reps={} is too large",
            fmt_shape(input),
            fmt_ints(a.shape("reps"))
        )),
    }
}

fn tile_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    let (_, out) = tiled(a, &ins[0])?;
    set_out(outs, 0, &out)
}

fn tile_map(a: &Attrs, ins: &[Shape], _: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    let (reps, _) = tiled(a, &ins[0])?;
    let lead = reps.len() - ins[0].len();
    let coords = ins[0]
        .iter()
        .enumerate()
        .map(|(i, &d)| match reps[i + lead] {
            1 => IndexExpr::Out(i + lead),
            _ => IndexExpr::Out(i + lead) % d as i64,
        })
        .collect();
    Ok(IndexMap::single(coords))
}

/// Output axis `t*d + i` (copy t of input index i) of each tiled axis is split into
/// `(t, i)` (Reshape code -4, matched from the right since the rule does not know the
/// rank), the copies summed, and the result given the input's shape.
fn tile_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let reps = ctx.attrs.shape("reps");
    tiled(ctx.attrs, &[])?;
    if reps.is_empty() {
        return Ok(vec![Some(ctx.out_grads[0])]);
    }
    // Read from the right: (-4, -1, r_last, ..., -4, -1, r_0, -2).
    let mut codes = vec![-2];
    for &r in reps {
        codes.extend([r, -1, -4]);
    }
    let k = reps.len() as i64;
    let axes: Vec<i64> = (0..k).map(|j| -2 * (k - j)).collect();
    let split = apply(
        g,
        "Reshape",
        &[ctx.out_grads[0]],
        &[("shape", &fmt_ints(&codes)), ("reverse", "True")],
    )?;
    let summed = apply(g, "sum", &[split], &[("axis", &fmt_ints(&axes))])?;
    let grad = apply(g, "reshape_like", &[summed, ctx.inputs[0]], &[])?;
    Ok(vec![Some(grad)])
}

static REPEAT: OpDef = OpDef {
    doc: "Repeats each element `repeats` times along `axis` (negative counts from the end); \
          with axis None, of the flattened input (the output is 1-D).",
    params: &[
        param(
            "repeats",
            ParamType::Int,
            None,
            "copies of each element (at least 1)",
        ),
        param(
            "axis",
            ParamType::OptInt,
            Some("None"),
            "the axis to repeat along (None: the flattened input)",
        ),
    ],
    infer_shape: repeat_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(repeat_grad),
    ..OpDef::new("repeat", Pattern::Injective, Compute::Injective(repeat_map))
};

fn repeats(a: &Attrs) -> Result<usize, OpError> {
    match a.int("repeats") {
        r if r < 1 => invalid(format!("repeat: repeats={r} must be at least 1")),
        r => Ok(r as usize),
    }
}

fn repeat_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let r = repeats(a)?;
    if ins[0].is_empty() {
        return Ok(());
    }
    let too_large = || {
        OpError::Invalid(format!(
            "repeat: input {} repeated {r} times is too large",
            fmt_shape(&ins[0])
        ))
    };
    let out = match a.opt_int("axis") {
        None => vec![ins[0]
            .iter()
            .try_fold(r, |n, &d| n.checked_mul(d))
            .ok_or_else(too_large)?],
        Some(ax) => {
            let i = axis_of("repeat", "axis", ax, &ins[0])?;
            let mut out = ins[0].clone();
            out[i] = out[i].checked_mul(r).ok_or_else(too_large)?;
            out
        }
    };
    set_out(outs, 0, &out)
}

fn repeat_map(a: &Attrs, ins: &[Shape], _: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    let r = repeats(a)? as i64;
    let Some(ax) = a.opt_int("axis") else {
        return Ok(IndexMap::single(IndexExpr::delinearize(
            IndexExpr::Out(0) / r,
            &ins[0],
        )));
    };
    let i = axis_of("repeat", "axis", ax, &ins[0])?;
    let coords = (0..ins[0].len())
        .map(|d| match d == i {
            true => IndexExpr::Out(d) / r,
            false => IndexExpr::Out(d),
        })
        .collect();
    Ok(IndexMap::single(coords))
}

/// Output index `i*r + t` (copy t of element i) is split into `(i, t)` with Reshape's -4
/// (from the right for a negative axis), and the copies summed.
fn repeat_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let r = repeats(ctx.attrs)? as i64;
    let (codes, reverse, sum_axis) = match ctx.attrs.opt_int("axis") {
        None => (vec![-1, r], "False", 1),
        Some(ax) if ax >= 0 => {
            let mut codes = vec![0; ax as usize];
            codes.extend([-4, -1, r, -2]);
            (codes, "False", ax + 1)
        }
        Some(ax) => {
            let mut codes = vec![-2, -1, r, -4];
            codes.extend(std::iter::repeat_n(0, (-ax - 1) as usize));
            (codes, "True", ax)
        }
    };
    let kv = [("shape", fmt_ints(&codes)), ("reverse", reverse.into())];
    let kv: Vec<(&str, &str)> = kv.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let split = apply(g, "Reshape", &[ctx.out_grads[0]], &kv)?;
    let axis = Value::Int(sum_axis).to_mxnet_string();
    let summed = apply(g, "sum", &[split], &[("axis", &axis)])?;
    let grad = apply(g, "reshape_like", &[summed, ctx.inputs[0]], &[])?;
    Ok(vec![Some(grad)])
}

const PARAMS: &[ParamDef] = &[
    param(
        "mode",
        ParamType::Enum(&["constant", "edge", "reflect"]),
        None,
        "constant: pad with constant_value; edge: repeat the edge values; reflect: mirror \
         the input about its edges (the edge itself not repeated)",
    ),
    param(
        "pad_width",
        ParamType::Shape,
        None,
        "(before_1, after_1, ..., before_N, after_N), one pair per axis; the pairs of the \
         first two axes must be 0",
    ),
    param(
        "constant_value",
        ParamType::Float,
        Some("0"),
        "the padding value in constant mode",
    ),
];

static PAD: OpDef = OpDef {
    aliases: &["pad"],
    doc: "Pads a 4-D (N, C, H, W) or 5-D (N, C, D, H, W) input along its spatial axes: \
          pad_width holds (before, after) for every axis, 0 for N and C. In reflect mode \
          every width must be smaller than its axis.",
    params: PARAMS,
    infer_shape: pad_shape,
    inplace: &[],
    grad: Grad::Rule(pad_grad),
    ..OpDef::new(
        "Pad",
        Pattern::Opaque,
        Compute::Library {
            kernel: "pad",
            reference: pad_ref,
        },
    )
};

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Constant,
    Edge,
    Reflect,
}

fn mode(a: &Attrs) -> Mode {
    match a.str("mode") {
        "edge" => Mode::Edge,
        "reflect" => Mode::Reflect,
        _ => Mode::Constant,
    }
}

/// The (before, after) widths of each axis of `input` (unknown dimensions are 0), checked
/// against MXNet's constraints.
fn widths(a: &Attrs, input: &[usize]) -> Result<Vec<(usize, usize)>, OpError> {
    let w = a.shape("pad_width");
    let fail = |why: String| {
        invalid(format!(
            "Pad: cannot pad input {} with pad_width={}: {why}",
            fmt_shape(input),
            fmt_ints(w)
        ))
    };
    let ndim = input.len();
    if ndim != 4 && ndim != 5 {
        return fail(format!(
            "only 4-D and 5-D inputs are supported, not {ndim}-D"
        ));
    }
    if w.len() != 2 * ndim {
        return fail(format!("it needs {} entries (2 per axis)", 2 * ndim));
    }
    if w[..4].iter().any(|&p| p != 0) {
        return fail("the first two axes (N and C) cannot be padded".into());
    }
    if let Some(p) = w.iter().find(|&&p| p < 0) {
        return fail(format!("width {p} is negative"));
    }
    let pairs: Vec<(usize, usize)> = w
        .chunks(2)
        .map(|c| (c[0] as usize, c[1] as usize))
        .collect();
    if mode(a) == Mode::Reflect {
        for (i, (&(b, e), &d)) in pairs.iter().zip(input).enumerate() {
            if d != 0 && (b >= d || e >= d) {
                return fail(format!(
                    "reflect mode needs widths smaller than the axis, and axis {i} has size {d}"
                ));
            }
        }
    }
    Ok(pairs)
}

/// The padded shape of `input` (unknown dimensions stay unknown).
fn padded(a: &Attrs, input: &[usize]) -> Result<Shape, OpError> {
    input
        .iter()
        .zip(widths(a, input)?)
        .map(|(&d, (b, e))| match d {
            0 => Some(0),
            d => d.checked_add(b)?.checked_add(e),
        })
        .collect::<Option<Shape>>()
        .map_or_else(
            || invalid(format!("Pad: padding {} is too large", fmt_shape(input))),
            Ok,
        )
}

fn pad_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    set_out(outs, 0, &padded(a, &ins[0])?)
}

/// Checks that a kernel's padded side has the shape Pad gives its other side.
fn check_padded(a: &Attrs, input: &[usize], out: &[usize]) -> Result<(), OpError> {
    let want = padded(a, input)?;
    if want != out {
        return invalid(format!(
            "Pad: padding {} gives {}, not {}",
            fmt_shape(input),
            fmt_shape(&want),
            fmt_shape(out)
        ));
    }
    Ok(())
}

/// The input index that output index `o` of an axis of size `d` (padded by `before`)
/// copies; `None` for a constant.
fn source(m: Mode, o: usize, before: usize, d: usize) -> Option<usize> {
    let x = o as i64 - before as i64;
    let last = d as i64 - 1;
    match m {
        _ if (0..=last).contains(&x) => Some(x as usize),
        Mode::Constant => None,
        Mode::Edge => Some(x.clamp(0, last) as usize),
        // Widths are smaller than the axis: one reflection lands inside.
        Mode::Reflect if x < 0 => Some((-x) as usize),
        Mode::Reflect => Some((2 * last - x) as usize),
    }
}

/// Calls `f(output position, input position)` for every output element, the input position
/// `None` for a constant.
fn walk(a: &Attrs, input: &[usize], out: &[usize], mut f: impl FnMut(usize, Option<usize>)) {
    let (m, st) = (mode(a), strides(input));
    let pairs = widths(a, input).unwrap_or_default();
    let mut pos = 0;
    for_each_index(out, |idx| {
        let at = idx
            .iter()
            .zip(&pairs)
            .zip(input)
            .zip(&st)
            .try_fold(0, |acc, (((&o, &(b, _)), &d), &s)| {
                source(m, o, b, d).map(|i| acc + i * s)
            });
        f(pos, at);
        pos += 1;
    });
}

fn pad_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (input, out_shape) = (ins[0], &ctx.out_shapes[0]);
    check_padded(ctx.attrs, &input.shape, out_shape)?;
    let fill = ctx.attrs.float("constant_value");
    let mut data = vec![0.0; shape::size(out_shape)];
    walk(ctx.attrs, &input.shape, out_shape, |o, i| {
        data[o] = i.map_or(fill, |i| input.data[i]);
    });
    Ok(vec![Tensor {
        dtype: ctx.out_dtypes[0],
        shape: out_shape.clone(),
        data,
    }])
}

/// Constant mode: the window of the input, sliced back (`end` counts from the end, None
/// where nothing was added). Edge and reflect: `_backward_Pad`.
fn pad_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    if mode(ctx.attrs) != Mode::Constant {
        let args = [ctx.out_grads[0], ctx.inputs[0]];
        return Ok(vec![Some(apply(g, "_backward_Pad", &args, ctx.raw_attrs)?)]);
    }
    let w = ctx.attrs.shape("pad_width");
    let begin: Vec<Option<i64>> = w.iter().step_by(2).map(|&b| Some(b)).collect();
    let end: Vec<Option<i64>> = w
        .iter()
        .skip(1)
        .step_by(2)
        .map(|&e| (e != 0).then_some(-e))
        .collect();
    let (begin, end) = (
        Value::OptTuple(begin).to_mxnet_string(),
        Value::OptTuple(end).to_mxnet_string(),
    );
    let grad = apply(
        g,
        "slice",
        &[ctx.out_grads[0]],
        &[("begin", &begin), ("end", &end)],
    )?;
    Ok(vec![Some(grad)])
}

static BACKWARD_PAD: OpDef = OpDef {
    doc: "The gradient of `Pad`: each element of `ograd` added to the element of `data` it \
          was copied from (data's values are not read; constant padding adds nothing).",
    params: PARAMS,
    inputs: Inputs::Fixed(&["ograd", "data"]),
    infer_shape: backward_pad_shape,
    inplace: &[],
    ..OpDef::new(
        "_backward_Pad",
        Pattern::Opaque,
        Compute::Library {
            kernel: "pad_backward",
            reference: backward_pad_ref,
        },
    )
};

fn backward_pad_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    set_out(outs, 0, &ins[1].clone())?;
    set_in(ins, 1, &outs[0].clone())?;
    if !ins[1].is_empty() {
        let window = padded(a, &ins[1])?;
        set_in(ins, 0, &window)?;
    }
    Ok(())
}

fn backward_pad_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (ograd, out_shape) = (ins[0], &ctx.out_shapes[0]);
    check_padded(ctx.attrs, out_shape, &ograd.shape)?;
    let mut data = vec![0.0; shape::size(out_shape)];
    walk(ctx.attrs, out_shape, &ograd.shape, |o, i| {
        if let Some(i) = i {
            data[i] += ograd.data[o];
        }
    });
    Ok(vec![Tensor {
        dtype: ctx.out_dtypes[0],
        shape: out_shape.clone(),
        data,
    }])
}

pub fn register(r: &mut Registry) {
    for op in [&TILE, &REPEAT, &PAD, &BACKWARD_PAD] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{check_grad, infer, infer_both, iota, message, randn, run, tensor};
    use crate::Tensor;

    fn one(name: &str, kv: &[(&str, &str)], ins: &[Tensor]) -> (Vec<usize>, Vec<f64>) {
        let out = run(name, kv, ins, false).unwrap().remove(0);
        (out.shape, out.data)
    }

    /// [[1, 2], [3, 4]], MXNet's tile and repeat example.
    fn x22() -> Tensor {
        tensor(&[2, 2], &[1.0, 2.0, 3.0, 4.0])
    }

    #[test]
    fn tile_follows_mxnet_examples() {
        let (shape, data) = one("tile", &[("reps", "(2, 3)")], &[x22()]);
        assert_eq!(shape, [4, 6]);
        let rows = [[1.0, 2.0].repeat(3), [3.0, 4.0].repeat(3)].concat();
        assert_eq!(data, rows.repeat(2));
        let (shape, data) = one("tile", &[("reps", "(2,)")], &[x22()]);
        assert_eq!(
            (shape, data),
            (vec![2, 4], vec![1., 2., 1., 2., 3., 4., 3., 4.])
        );
        let (shape, data) = one("tile", &[("reps", "(2, 2, 3)")], &[x22()]);
        assert_eq!((shape, data), (vec![2, 4, 6], rows.repeat(4)));
        assert_eq!(one("tile", &[("reps", "()")], &[x22()]).1, x22().data);
        let t = |reps: &str| infer("tile", &[("reps", reps)], &[&[2, 0]]);
        assert_eq!(t("(3, 1, 2)").unwrap().1[0], [3, 2, 0]);
        assert_eq!(
            message(t("(0, 2)")),
            "tile: reps=(0, 2) has entry 0; each must be at least 1"
        );
        let huge = infer("tile", &[("reps", "(9223372036854775807,)")], &[&[2, 3]]);
        assert_eq!(
            message(huge),
            "tile: input (2, 3) tiled by reps=(9223372036854775807,) is too large"
        );
    }

    #[test]
    fn repeat_follows_mxnet_examples() {
        let r = |kv: &[(&str, &str)]| one("repeat", kv, &[x22()]);
        let flat = vec![1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0];
        assert_eq!(r(&[("repeats", "2")]), (vec![8], flat.clone()));
        assert_eq!(r(&[("repeats", "2"), ("axis", "1")]), (vec![2, 4], flat));
        let rows = vec![1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0];
        assert_eq!(r(&[("repeats", "2"), ("axis", "0")]), (vec![4, 2], rows));
        assert_eq!(r(&[("repeats", "3"), ("axis", "-1")]).0, [2, 6]);
        let e = |kv: &[(&str, &str)]| message(infer("repeat", kv, &[&[2, 2]]));
        assert_eq!(
            e(&[("repeats", "0")]),
            "repeat: repeats=0 must be at least 1"
        );
        assert_eq!(
            e(&[("repeats", "2"), ("axis", "-3")]),
            "repeat: axis=-3 is out of range for input (2, 2)"
        );
        for axis in ["None", "1"] {
            let kv = [("repeats", "9223372036854775807"), ("axis", axis)];
            assert_eq!(
                message(infer("repeat", &kv, &[&[3, 3]])),
                "repeat: input (3, 3) repeated 9223372036854775807 times is too large"
            );
        }
    }

    #[test]
    fn tile_and_repeat_gradients_sum_the_copies() {
        let x = randn(&[3, 1, 7], 1);
        let x1 = std::slice::from_ref(&x);
        for reps in ["(2,)", "(3, 1, 2)", "(2, 1, 1, 3)", "(1,)", "()"] {
            check_grad("tile", &[("reps", reps)], x1, false, &[]);
        }
        check_grad("tile", &[("reps", "(3, 2)")], &[randn(&[7], 2)], false, &[]);
        for axis in ["None", "0", "1", "2", "-1", "-2", "-3"] {
            let kv = [("repeats", "3"), ("axis", axis)];
            check_grad("repeat", &kv, x1, false, &[]);
        }
        check_grad("repeat", &[("repeats", "1")], &[randn(&[1], 3)], false, &[]);
    }

    /// MXNet's Pad example: x (2, 2, 2, 3) with x[0, 0] = [[1, 2, 3], [4, 5, 6]].
    fn pad_x() -> Tensor {
        let first = [
            1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0,
        ];
        let second = first.map(|v| v + 10.0);
        tensor(&[2, 2, 2, 3], &[first, second].concat())
    }

    const PAD_1111: (&str, &str) = ("pad_width", "(0,0,0,0,1,1,1,1)");

    #[test]
    fn pad_follows_mxnet_examples() {
        let (shape, data) = one("Pad", &[("mode", "edge"), PAD_1111], &[pad_x()]);
        assert_eq!(shape, [2, 2, 4, 5]);
        #[rustfmt::skip]
        let edge = [
            1.0, 1.0, 2.0, 3.0, 3.0,
            1.0, 1.0, 2.0, 3.0, 3.0,
            4.0, 4.0, 5.0, 6.0, 6.0,
            4.0, 4.0, 5.0, 6.0, 6.0,
        ];
        assert_eq!(data[..20], edge);
        assert_eq!(data[60..65], [17.0, 17.0, 18.0, 19.0, 19.0]);
        let kv = [("mode", "constant"), PAD_1111, ("constant_value", "0")];
        let (_, data) = one("pad", &kv, &[pad_x()]);
        #[rustfmt::skip]
        let constant = [
            0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 1.0, 2.0, 3.0, 0.0,
            0.0, 4.0, 5.0, 6.0, 0.0,
            0.0, 0.0, 0.0, 0.0, 0.0,
        ];
        assert_eq!(data[..20], constant);
        let kv = [("mode", "constant"), PAD_1111, ("constant_value", "-1.5")];
        assert_eq!(one("Pad", &kv, &[pad_x()]).1[..2], [-1.5, -1.5]);
        // Reflect (checked with MXNet 1.9.1): rows -2, -1 of a 3-row input mirror rows 2, 1.
        let kv = [("mode", "reflect"), ("pad_width", "(0,0,0,0,2,1,1,2)")];
        let (shape, data) = one("Pad", &kv, &[iota(&[1, 1, 3, 4])]);
        assert_eq!(shape, [1, 1, 6, 7]);
        assert_eq!(data[..7], [9.0, 8.0, 9.0, 10.0, 11.0, 10.0, 9.0]);
        assert_eq!(data[35..], [5.0, 4.0, 5.0, 6.0, 7.0, 6.0, 5.0]);
        // 5-D, edge wider than the axis.
        let kv = [("mode", "edge"), ("pad_width", "(0,0,0,0,0,0,0,0,3,3)")];
        let (shape, data) = one("Pad", &kv, &[iota(&[1, 1, 1, 1, 2])]);
        assert_eq!(
            (shape, data),
            (vec![1, 1, 1, 1, 8], vec![0., 0., 0., 0., 1., 1., 1., 1.])
        );
    }

    #[test]
    fn pad_shapes_and_errors() {
        let p = |input: &[usize], mode: &str, w: &str| {
            infer("Pad", &[("mode", mode), ("pad_width", w)], &[input])
        };
        assert_eq!(
            p(&[0, 3, 4, 0], "edge", "(0,0,0,0,1,2,3,4)").unwrap().1[0],
            [0, 3, 7, 0]
        );
        let e = |input: &[usize], mode: &str, w: &str| message(p(input, mode, w));
        assert_eq!(
            e(&[2, 3, 4], "constant", "(0,0,0,0,1,1)"),
            "Pad: cannot pad input (2, 3, 4) with pad_width=(0, 0, 0, 0, 1, 1): only 4-D and \
             5-D inputs are supported, not 3-D"
        );
        assert!(e(&[1, 1, 3, 4], "constant", "(0,0,0,0,1,1)").ends_with(
            "it needs 8 entries \
             (2 per axis)"
        ));
        assert!(e(&[1, 1, 3, 4], "edge", "(0,1,0,0,1,1,1,1)")
            .ends_with("the first two axes (N and C) cannot be padded"));
        assert!(e(&[1, 1, 3, 4], "edge", "(0,0,0,0,-1,1,1,1)").ends_with("width -1 is negative"));
        assert_eq!(
            e(&[1, 1, 3, 4, 4], "reflect", "(0,0,0,0,1,1,1,1,4,0)"),
            "Pad: cannot pad input (1, 1, 3, 4, 4) with pad_width=(0, 0, 0, 0, 1, 1, 1, 1, 4, \
             0): reflect mode needs widths smaller than the axis, and axis 4 has size 4"
        );
        assert!(p(&[1, 1, 3, 4], "reflect", "(0,0,0,0,2,2,3,3)").is_ok());
        let w = "(0,0,0,0,1,1,1,9223372036854775807)";
        assert!(p(
            &[1, 1, 3, 4],
            "constant",
            "(0,0,0,0,1,1,1,9223372036854775807)"
        )
        .is_ok());
        assert_eq!(
            e(
                &[1, 1, 3, 4],
                "edge",
                &w.replace(",1,1,1,", ",1,1,9223372036854775807,")
            ),
            "Pad: padding (1, 1, 3, 4) is too large"
        );
        // Only floating-point data, as in MXNet.
        assert!(!crate::testutil::op("Pad")
            .dtypes
            .contains(&crate::DType::I32));
    }

    #[test]
    fn pad_gradients() {
        let x = randn(&[1, 2, 3, 7], 4);
        for (mode, w) in [
            ("constant", "(0,0,0,0,1,2,3,0)"),
            ("constant", "(0,0,0,0,0,0,0,0)"),
            ("edge", "(0,0,0,0,4,1,0,9)"),
            ("reflect", "(0,0,0,0,2,1,6,3)"),
            ("reflect", "(0,0,0,0,0,0,1,0)"),
        ] {
            let kv = [("mode", mode), ("pad_width", w), ("constant_value", "0.5")];
            check_grad("Pad", &kv, std::slice::from_ref(&x), false, &[]);
        }
        let x = randn(&[1, 1, 1, 3, 2], 5);
        for mode in ["constant", "edge", "reflect"] {
            let kv = [("mode", mode), ("pad_width", "(0,0,0,0,0,0,2,1,1,0)")];
            check_grad("pad", &kv, std::slice::from_ref(&x), false, &[]);
        }
    }

    #[test]
    fn backward_pad_accumulates_copies() {
        // Edge padding of [a, b] by (2, 1): a is copied 3 times, b twice.
        let kv = [("mode", "edge"), ("pad_width", "(0,0,0,0,0,0,2,1)")];
        let ograd = tensor(&[1, 1, 1, 5], &[1.0, 2.0, 3.0, 4.0, 5.0]);
        let data = iota(&[1, 1, 1, 2]);
        let out = run("_backward_Pad", &kv, &[ograd, data], false).unwrap();
        assert_eq!(out[0].data, [6.0, 9.0]);
        let (ins, _) = infer_both("_backward_Pad", &kv, &[&[], &[]], &[&[1, 1, 1, 2]]).unwrap();
        assert_eq!(ins[0], [1, 1, 1, 5]);
    }
}
