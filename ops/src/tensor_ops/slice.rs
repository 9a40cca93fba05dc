//! slice, slice_axis and SliceChannel (split): strided windows of the input.
//!
//! Gradients: slice's head gradient is scattered into zeros of the input's shape by
//! `_backward_slice` (a library kernel: a strided scatter is no index map); slice_axis's by
//! `_backward_slice_axis`, an index map that reads the head gradient inside the window and a
//! zeros input outside it; SliceChannel's is the Concat of its outputs' gradients (the
//! split axis first restored with expand_dims when squeezed).

use super::{apply, axis_of};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{self, fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::tensor::{for_each_index, strides};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradGraph, Handle, IndexExpr, IndexMap, Inputs,
    KernelCtx, OpDef, Outputs, Pattern, Piece, Registry, Tensor, Value,
};
use std::cmp::Ordering;

const SLICE_PARAMS: &[ParamDef] = &[
    param(
        "begin",
        ParamType::OptTuple,
        None,
        "first index per leading axis (None: the start, or the end for a negative step)",
    ),
    param(
        "end",
        ParamType::OptTuple,
        None,
        "exclusive end index per leading axis (None: past the end, or before the start \
         for a negative step)",
    ),
    param(
        "step",
        ParamType::OptTuple,
        Some("()"),
        "step per leading axis (empty or None: 1)",
    ),
];

static SLICE: OpDef = OpDef {
    aliases: &["crop"],
    doc: "Slices the leading axes: along axis i, indices begin[i], begin[i]+step[i], ... up \
          to end[i] (exclusive). Negative indices count from the end and out-of-range bounds \
          are clamped; a None begin/end means the start/end of the axis (for a negative step, \
          the last index and past the first).",
    params: SLICE_PARAMS,
    infer_shape: slice_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(slice_grad),
    ..OpDef::new("slice", Pattern::Injective, Compute::Injective(slice_map))
};

/// One axis of a slice: output index `o` reads input index `begin + o * step`; `len` is the
/// output size (0: unknown).
struct Range {
    begin: i64,
    step: i64,
    len: usize,
}

fn opt_tuple(v: &[Option<i64>]) -> String {
    Value::OptTuple(v.to_vec()).to_mxnet_string()
}

/// MXNet's GetIndexRange and output sizes for `input` (unknown dimensions stay unknown).
fn slice_ranges(a: &Attrs, input: &[usize]) -> Result<Vec<Range>, OpError> {
    let (begin, end, step) = (
        a.opt_tuple("begin"),
        a.opt_tuple("end"),
        a.opt_tuple("step"),
    );
    let params = || {
        format!(
            "begin={} end={} step={}",
            opt_tuple(begin),
            opt_tuple(end),
            opt_tuple(step)
        )
    };
    if begin.len() != end.len() || (!step.is_empty() && step.len() != begin.len()) {
        return invalid(format!(
            "slice: {} must have the same length (step may be empty)",
            params()
        ));
    }
    if begin.len() > input.len() {
        return invalid(format!(
            "slice: {} has more entries than input {} has dimensions",
            params(),
            fmt_shape(input)
        ));
    }
    let mut ranges = Vec::with_capacity(input.len());
    for (i, &len) in input.iter().enumerate() {
        if i >= begin.len() {
            ranges.push(Range {
                begin: 0,
                step: 1,
                len,
            });
            continue;
        }
        let s = step.get(i).copied().flatten().unwrap_or(1);
        if s == 0 {
            return invalid(format!("slice: step[{i}] cannot be 0 ({})", params()));
        }
        if len == 0 {
            ranges.push(Range {
                begin: 0,
                step: s,
                len: 0,
            });
            continue;
        }
        let n = len as i64;
        let mut b = begin[i].unwrap_or(if s < 0 { n - 1 } else { 0 });
        let mut e = end[i].unwrap_or(if s < 0 { -1 } else { n });
        if b < 0 {
            b += n;
        }
        if e < 0 && end[i].is_some() {
            e += n;
        }
        // Bounds outside the axis are clamped toward it, as Python slicing does.
        if b < 0 && s > 0 {
            b = 0;
        }
        if b > n - 1 && s < 0 {
            b = n - 1;
        }
        let e = e.clamp(-1, n);
        let count = match (0..n).contains(&b) {
            false => 0,
            true if s > 0 && e > b => (e - b - 1) as u64 / s as u64 + 1,
            true if s < 0 && e < b => (b - e - 1) as u64 / s.unsigned_abs() + 1,
            true => 0,
        };
        if count == 0 {
            // MXNet 1.x (legacy shapes) has no empty arrays: a 0 dimension means unknown.
            return invalid(format!(
                "slice: {} selects nothing along axis {i} of input {}",
                params(),
                fmt_shape(input)
            ));
        }
        ranges.push(Range {
            begin: b,
            step: s,
            len: count as usize,
        });
    }
    Ok(ranges)
}

fn slice_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    let out: Shape = slice_ranges(a, &ins[0])?.iter().map(|r| r.len).collect();
    set_out(outs, 0, &out)
}

fn slice_map(a: &Attrs, ins: &[Shape], _: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    let coords = slice_ranges(a, &ins[0])?
        .iter()
        .enumerate()
        .map(|(i, r)| IndexExpr::Out(i) * r.step + IndexExpr::Const(r.begin))
        .collect();
    Ok(IndexMap::single(coords))
}

fn slice_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[0]];
    let grad = apply(g, "_backward_slice", &args, ctx.raw_attrs)?;
    Ok(vec![Some(grad)])
}

static BACKWARD_SLICE: OpDef = OpDef {
    doc: "The gradient of `slice`: `ograd` placed at the window that begin/end/step select \
          in zeros of `data`'s shape (data's values are not read).",
    params: SLICE_PARAMS,
    inputs: Inputs::Fixed(&["ograd", "data"]),
    infer_shape: backward_slice_shape,
    inplace: &[],
    ..OpDef::new(
        "_backward_slice",
        Pattern::Opaque,
        Compute::Library {
            kernel: "slice_backward",
            reference: backward_slice_ref,
        },
    )
};

/// The output has data's shape; ograd has the shape `slice` gives data.
fn backward_slice_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    set_out(outs, 0, &ins[1].clone())?;
    set_in(ins, 1, &outs[0].clone())?;
    if !ins[1].is_empty() {
        let window: Shape = slice_ranges(a, &ins[1])?.iter().map(|r| r.len).collect();
        set_in(ins, 0, &window)?;
    }
    Ok(())
}

/// Zeros, with each element of ograd written where `slice` read it.
fn backward_slice_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (ograd, out_shape) = (ins[0], &ctx.out_shapes[0]);
    let ranges = slice_ranges(ctx.attrs, out_shape)?;
    let window: Shape = ranges.iter().map(|r| r.len).collect();
    if ograd.shape != window {
        return invalid(format!(
            "_backward_slice: ograd {} is not the shape {} of the window of {}",
            fmt_shape(&ograd.shape),
            fmt_shape(&window),
            fmt_shape(out_shape)
        ));
    }
    let st = strides(out_shape);
    let mut out = vec![0.0; shape::size(out_shape)];
    let mut pos = 0;
    for_each_index(&window, |idx| {
        let at: i64 = idx
            .iter()
            .zip(&ranges)
            .zip(&st)
            .map(|((&i, r), &s)| (r.begin + i as i64 * r.step) * s as i64)
            .sum();
        out[at as usize] = ograd.data[pos];
        pos += 1;
    });
    Ok(vec![Tensor {
        dtype: ctx.out_dtypes[0],
        shape: out_shape.clone(),
        data: out,
    }])
}

static SLICE_AXIS: OpDef = OpDef {
    doc: "Slices one axis: indices begin..end (exclusive) along `axis`. Negative indices \
          count from the end; end None means the end of the axis.",
    params: &[
        param(
            "axis",
            ParamType::Int,
            None,
            "the axis to slice (negative counts from the end)",
        ),
        param(
            "begin",
            ParamType::Int,
            None,
            "first index (negative counts from the end)",
        ),
        param(
            "end",
            ParamType::OptInt,
            None,
            "exclusive end index (None: the end of the axis; negative counts from the end)",
        ),
    ],
    infer_shape: slice_axis_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(slice_axis_grad),
    ..OpDef::new(
        "slice_axis",
        Pattern::Injective,
        Compute::Injective(slice_axis_map),
    )
};

/// The sliced axis, its first index and the output length (0 when the axis size is
/// unknown). Unlike `slice`, bounds are not clamped (MXNet's GetSliceAxisParams).
fn axis_range(a: &Attrs, input: &[usize]) -> Result<(usize, i64, usize), OpError> {
    let axis = axis_of("slice_axis", "axis", a.int("axis"), input)?;
    let n = input[axis] as i64;
    if n == 0 {
        return Ok((axis, 0, 0));
    }
    let begin = a.int("begin");
    let b = if begin < 0 { begin + n } else { begin };
    let e = match a.opt_int("end") {
        None => n,
        Some(e) if e < 0 => e + n,
        Some(e) => e,
    };
    if !(0 <= b && b < e && e <= n) {
        return invalid(format!(
            "slice_axis: begin={begin}, end={} is not a non-empty range of axis {axis} \
             (size {n}) of input {}",
            Value::OptInt(a.opt_int("end")).to_mxnet_string(),
            fmt_shape(input)
        ));
    }
    Ok((axis, b, (e - b) as usize))
}

fn slice_axis_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    let (axis, _, len) = axis_range(a, &ins[0])?;
    let mut out = ins[0].clone();
    out[axis] = len;
    set_out(outs, 0, &out)
}

fn slice_axis_map(a: &Attrs, ins: &[Shape], _: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    let (axis, begin, _) = axis_range(a, &ins[0])?;
    let coords = (0..ins[0].len())
        .map(|d| match d == axis {
            true => IndexExpr::Out(d) + IndexExpr::Const(begin),
            false => IndexExpr::Out(d),
        })
        .collect();
    Ok(IndexMap::single(coords))
}

fn slice_axis_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let zeros = apply(g, "zeros_like", &[ctx.inputs[0]], &[])?;
    let args = [ctx.out_grads[0], zeros];
    let grad = apply(g, "_backward_slice_axis", &args, ctx.raw_attrs)?;
    Ok(vec![Some(grad)])
}

static BACKWARD_SLICE_AXIS: OpDef = OpDef {
    doc: "The gradient of `slice_axis`: `ograd` inside the window begin..end along `axis`, \
          `zeros` (zeros of the forward input's shape) elsewhere.",
    params: SLICE_AXIS.params,
    inputs: Inputs::Fixed(&["ograd", "zeros"]),
    infer_shape: backward_slice_axis_shape,
    inplace: &[(1, 0)],
    ..OpDef::new(
        "_backward_slice_axis",
        Pattern::Injective,
        Compute::Injective(backward_slice_axis_map),
    )
};

/// The output has the shape of `zeros`; ograd has the shape slice_axis gives it.
fn backward_slice_axis_shape(
    a: &Attrs,
    ins: &mut [Shape],
    outs: &mut [Shape],
) -> Result<(), OpError> {
    set_out(outs, 0, &ins[1].clone())?;
    set_in(ins, 1, &outs[0].clone())?;
    if !ins[1].is_empty() {
        let mut window = Shape::new();
        slice_axis_shape(a, &mut [ins[1].clone()], std::slice::from_mut(&mut window))?;
        set_in(ins, 0, &window)?;
    }
    Ok(())
}

fn backward_slice_axis_map(
    a: &Attrs,
    ins: &[Shape],
    _: &[Shape],
    _: usize,
) -> Result<IndexMap, OpError> {
    let (axis, begin, len) = axis_range(a, &ins[1])?;
    let window = (0..ins[1].len())
        .map(|d| match d == axis {
            true => IndexExpr::Out(d) + IndexExpr::Const(-begin),
            false => IndexExpr::Out(d),
        })
        .collect();
    let lo = begin as usize;
    Ok(IndexMap {
        pieces: vec![
            Piece {
                input: 0,
                guard: Some((axis, lo, lo + len)),
                coords: window,
            },
            Piece {
                input: 1,
                guard: None,
                coords: (0..ins[1].len()).map(IndexExpr::Out).collect(),
            },
        ],
    })
}

static SLICE_CHANNEL: OpDef = OpDef {
    aliases: &["split"],
    doc: "Splits the input into `num_outputs` equal parts along `axis` (outputs output0, \
          output1, ...). `squeeze_axis` removes that axis from the outputs, which needs its \
          size to equal num_outputs.",
    params: &[
        param(
            "num_outputs",
            ParamType::Int,
            None,
            "number of parts; must divide the size of `axis`",
        ),
        param(
            "axis",
            ParamType::Int,
            Some("1"),
            "the axis to split (negative counts from the end)",
        ),
        param(
            "squeeze_axis",
            ParamType::Bool,
            Some("False"),
            "remove the split axis from the outputs",
        ),
    ],
    outputs: Outputs::Dynamic(split_outputs),
    infer_shape: split_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(split_grad),
    ..OpDef::new(
        "SliceChannel",
        Pattern::Injective,
        Compute::Injective(split_map),
    )
};

fn split_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let names: Vec<String> = (0..a.int("num_outputs").max(0))
        .map(|i| format!("output{i}"))
        .collect();
    let n = names.len();
    (names, n)
}

fn parts(a: &Attrs) -> Result<usize, OpError> {
    match a.int("num_outputs") {
        n if n >= 1 => Ok(n as usize),
        n => invalid(format!("SliceChannel: num_outputs={n} must be at least 1")),
    }
}

/// The split axis and each output's shape for `input` (unknown dimensions stay 0).
fn split_part(a: &Attrs, input: &[usize]) -> Result<(usize, Shape), OpError> {
    let n = parts(a)?;
    let axis = axis_of("SliceChannel", "axis", a.int("axis"), input)?;
    let d = input[axis];
    if !d.is_multiple_of(n) {
        return invalid(format!(
            "SliceChannel: cannot split axis {axis} of input {} into num_outputs={n} equal parts",
            fmt_shape(input)
        ));
    }
    let mut part = input.to_vec();
    if !a.bool("squeeze_axis") {
        part[axis] = d / n;
        return Ok((axis, part));
    }
    if d != 0 && d != n {
        return invalid(format!(
            "SliceChannel: squeeze_axis needs axis {axis} of input {} to have size \
             num_outputs={n}",
            fmt_shape(input)
        ));
    }
    if input.len() == 1 {
        return invalid(format!(
            "SliceChannel: squeeze_axis would leave 0-d outputs from input {}",
            fmt_shape(input)
        ));
    }
    part.remove(axis);
    Ok((axis, part))
}

fn split_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let n = parts(a)?;
    if outs.len() != n {
        return invalid(format!(
            "SliceChannel: num_outputs={n} but {} outputs",
            outs.len()
        ));
    }
    // As in MXNet, nothing is inferred before the input's rank is known.
    if ins[0].is_empty() {
        return Ok(());
    }
    let (axis, part) = split_part(a, &ins[0])?;
    for k in 0..n {
        set_out(outs, k, &part)?;
    }
    // Backward: each output gives the input back, its split axis n times longer.
    for out in outs.iter() {
        let mut input = out.clone();
        if a.bool("squeeze_axis") {
            input.insert(axis, n);
        } else {
            input[axis] *= n;
        }
        set_in(ins, 0, &input)?;
    }
    let (_, part) = split_part(a, &ins[0])?;
    for k in 0..n {
        set_out(outs, k, &part)?;
    }
    Ok(())
}

fn split_map(a: &Attrs, ins: &[Shape], _: &[Shape], k: usize) -> Result<IndexMap, OpError> {
    let n = parts(a)?;
    let (axis, _) = split_part(a, &ins[0])?;
    if k >= n {
        return invalid(format!("SliceChannel: no output {k} of {n}"));
    }
    let squeeze = a.bool("squeeze_axis");
    let offset = IndexExpr::Const((k * ins[0][axis] / n) as i64);
    let coords = (0..ins[0].len())
        .map(|d| match d.cmp(&axis) {
            Ordering::Less => IndexExpr::Out(d),
            Ordering::Equal if squeeze => offset.clone(),
            Ordering::Equal => IndexExpr::Out(d) + offset.clone(),
            Ordering::Greater => IndexExpr::Out(if squeeze { d - 1 } else { d }),
        })
        .collect();
    Ok(IndexMap::single(coords))
}

/// The outputs' gradients joined along the split axis; squeezed outputs get the axis back
/// first (a negative axis names the same position in the squeezed rank plus one).
fn split_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let n = parts(ctx.attrs)?.to_string();
    let axis = ctx.attrs.int("axis").to_string();
    let mut pieces = ctx.out_grads.to_vec();
    if ctx.attrs.bool("squeeze_axis") {
        for p in &mut pieces {
            *p = apply(g, "expand_dims", &[*p], &[("axis", &axis)])?;
        }
    }
    let grad = apply(g, "Concat", &pieces, &[("num_args", &n), ("dim", &axis)])?;
    Ok(vec![Some(grad)])
}

pub fn register(r: &mut Registry) {
    for op in [
        &SLICE,
        &BACKWARD_SLICE,
        &SLICE_AXIS,
        &BACKWARD_SLICE_AXIS,
        &SLICE_CHANNEL,
    ] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{
        check_grad, infer, infer_both, infer_err, iota, message, randn, run, tensor,
    };

    /// MXNet's documentation example: [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]].
    fn x() -> crate::Tensor {
        let data: Vec<f64> = (1..=12).map(f64::from).collect();
        tensor(&[3, 4], &data)
    }

    fn sliced(kv: &[(&str, &str)]) -> (Vec<usize>, Vec<f64>) {
        let out = run("slice", kv, &[x()], false).unwrap().remove(0);
        (out.shape, out.data)
    }

    #[test]
    fn slice_follows_mxnet_examples() {
        let (shape, data) = sliced(&[("begin", "(0,1)"), ("end", "(2,4)")]);
        assert_eq!(
            (shape, data),
            (vec![2, 3], vec![2.0, 3.0, 4.0, 6.0, 7.0, 8.0])
        );
        let kv = [
            ("begin", "(None, 0)"),
            ("end", "(None, 3)"),
            ("step", "(-1, 2)"),
        ];
        let (shape, data) = sliced(&kv);
        assert_eq!(
            (shape, data),
            (vec![3, 2], vec![9.0, 11.0, 5.0, 7.0, 1.0, 3.0])
        );
    }

    #[test]
    fn slice_wraps_clamps_and_steps_backwards() {
        // Negative begin, None end: the last two rows.
        let (shape, data) = sliced(&[("begin", "(-2,)"), ("end", "(None,)")]);
        assert_eq!((shape, data[0]), (vec![2, 4], 5.0));
        // Out-of-range bounds clamp to the axis.
        let (shape, _) = sliced(&[("begin", "(-10, 1)"), ("end", "(10, 100)")]);
        assert_eq!(shape, [3, 3]);
        // Explicit end with a negative step is exclusive: rows 2, 1.
        let (shape, data) = sliced(&[("begin", "(2,)"), ("end", "(0,)"), ("step", "(-1,)")]);
        assert_eq!((shape, data[0], data[4]), (vec![2, 4], 9.0, 5.0));
        // Every other column from the right: columns 3, 1.
        let kv = [
            ("begin", "(None, None)"),
            ("end", "(None, None)"),
            ("step", "(None, -2)"),
        ];
        let (shape, data) = sliced(&kv);
        assert_eq!(
            (shape, data),
            (vec![3, 2], vec![4.0, 2.0, 8.0, 6.0, 12.0, 10.0])
        );
        // Unknown dimensions stay unknown.
        let out = infer("slice", &[("begin", "(1,)"), ("end", "(3,)")], &[&[0, 4]]);
        assert_eq!(out.unwrap().1[0], [0, 4]);
    }

    /// Python's slice.indices() (PySlice_AdjustIndices), written independently.
    fn python_indices(n: i64, start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<f64> {
        let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
        let adjust = |v: i64| if v < 0 { (v + n).max(lo) } else { v.min(hi) };
        let start = start.map_or(if step > 0 { 0 } else { n - 1 }, adjust);
        let stop = stop.map_or(if step > 0 { n } else { -1 }, adjust);
        let mut out = Vec::new();
        let mut i = start;
        while (step > 0 && i < stop) || (step < 0 && i > stop) {
            out.push(i as f64);
            i += step;
        }
        out
    }

    #[test]
    fn slice_matches_python_slicing() {
        // MXNet 1.9's clamping equals Python's, except that empty results are errors.
        let opt = |v: Option<i64>| v.map_or("None".to_string(), |v| v.to_string());
        let bounds: Vec<Option<i64>> = std::iter::once(None).chain((-7..=7).map(Some)).collect();
        for n in 1..=5 {
            for &b in &bounds {
                for &e in &bounds {
                    for step in [-3, -2, -1, 1, 2, 3] {
                        let (b, e, st) = (opt(b), opt(e), step.to_string());
                        let kv = [
                            ("begin", b.as_str()),
                            ("end", e.as_str()),
                            ("step", st.as_str()),
                        ];
                        let want = python_indices(n, b.parse().ok(), e.parse().ok(), step);
                        match run("slice", &kv, &[iota(&[n as usize])], false) {
                            Ok(out) => assert_eq!(out[0].data, want, "{kv:?} on {n}"),
                            Err(_) => assert!(want.is_empty(), "{kv:?} on {n}"),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn slice_errors_name_the_parameters() {
        let e = |kv: &[(&str, &str)]| message(infer("slice", kv, &[&[3, 4]]));
        assert_eq!(
            e(&[("begin", "(2,)"), ("end", "(1,)")]),
            "slice: begin=(2,) end=(1,) step=() selects nothing along axis 0 of input (3, 4)"
        );
        assert_eq!(
            e(&[("begin", "(0,)"), ("end", "(1,)"), ("step", "(0,)")]),
            "slice: step[0] cannot be 0 (begin=(0,) end=(1,) step=(0,))"
        );
        assert_eq!(
            e(&[("begin", "(0, 0)"), ("end", "(1,)")]),
            "slice: begin=(0, 0) end=(1,) step=() must have the same length (step may be empty)"
        );
        assert_eq!(
            e(&[("begin", "(0, 0, 0)"), ("end", "(1, 1, 1)")]),
            "slice: begin=(0, 0, 0) end=(1, 1, 1) step=() has more entries than input (3, 4) \
             has dimensions"
        );
    }

    #[test]
    fn slice_axis_follows_mxnet_examples() {
        let sa = |axis: &str, begin: &str, end: &str| {
            let kv = [("axis", axis), ("begin", begin), ("end", end)];
            run("slice_axis", &kv, &[x()], false).map(|mut o| o.remove(0))
        };
        let out = sa("0", "1", "3").unwrap();
        assert_eq!((out.shape.as_slice(), out.data[0]), (&[2, 4][..], 5.0));
        let out = sa("1", "0", "2").unwrap();
        assert_eq!(out.data, [1.0, 2.0, 5.0, 6.0, 9.0, 10.0]);
        let out = sa("1", "-3", "-1").unwrap();
        assert_eq!(out.data, [2.0, 3.0, 6.0, 7.0, 10.0, 11.0]);
        let out = sa("-1", "2", "None").unwrap();
        assert_eq!(out.data, [3.0, 4.0, 7.0, 8.0, 11.0, 12.0]);
        assert_eq!(
            message(sa("1", "3", "1")),
            "slice_axis: begin=3, end=1 is not a non-empty range of axis 1 (size 4) of input (3, 4)"
        );
        assert_eq!(
            message(sa("2", "0", "1")),
            "slice_axis: axis=2 is out of range for input (3, 4)"
        );
    }

    #[test]
    fn split_follows_mxnet_examples() {
        // x = [[[1], [2]], [[3], [4]], [[5], [6]]], shape (3, 2, 1).
        let x = tensor(&[3, 2, 1], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let out = run("split", &[("num_outputs", "2")], &[&x], false).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(
            (out[0].shape.as_slice(), &out[0].data),
            (&[3, 1, 1][..], &vec![1.0, 3.0, 5.0])
        );
        assert_eq!(out[1].data, [2.0, 4.0, 6.0]);
        let kv = [("num_outputs", "3"), ("axis", "0")];
        let out = run("SliceChannel", &kv, &[&x], false).unwrap();
        assert_eq!(
            (out[2].shape.as_slice(), &out[2].data),
            (&[1, 2, 1][..], &vec![5.0, 6.0])
        );
        let kv = [("num_outputs", "3"), ("axis", "0"), ("squeeze_axis", "1")];
        let out = run("SliceChannel", &kv, &[x], false).unwrap();
        assert_eq!(
            (out[1].shape.as_slice(), &out[1].data),
            (&[2, 1][..], &vec![3.0, 4.0])
        );
    }

    #[test]
    fn split_shapes_and_errors() {
        let kv = [("num_outputs", "2")];
        let (ins, outs) = infer_both("SliceChannel", &kv, &[&[0, 0, 1]], &[&[3, 1, 1]]).unwrap();
        assert_eq!(ins[0], [3, 2, 1]);
        assert_eq!(outs[1], [3, 1, 1]);
        assert_eq!(
            message(infer("SliceChannel", &kv, &[&[2, 3]])),
            "SliceChannel: cannot split axis 1 of input (2, 3) into num_outputs=2 equal parts"
        );
        let kv = [("num_outputs", "2"), ("squeeze_axis", "True")];
        assert_eq!(
            message(infer("SliceChannel", &kv, &[&[2, 4]])),
            "SliceChannel: squeeze_axis needs axis 1 of input (2, 4) to have size num_outputs=2"
        );
        let kv = [("num_outputs", "0")];
        assert_eq!(
            message(infer("SliceChannel", &kv, &[&[2]])),
            "SliceChannel: num_outputs=0 must be at least 1"
        );
    }

    #[test]
    fn slice_gradients_match_finite_differences() {
        let x = randn(&[3, 7], 1);
        for (begin, end, step) in [
            ("(1,)", "(3,)", "()"),
            ("(None, 6)", "(None, 0)", "(-2, -3)"),
            ("(-1, None)", "(None, None)", "(None, 2)"),
            ("(-10, 1)", "(10, 100)", "(1, 3)"),
            ("(2, -1)", "(0, -8)", "(-1, -1)"),
        ] {
            let kv = [("begin", begin), ("end", end), ("step", step)];
            check_grad("slice", &kv, std::slice::from_ref(&x), false, &[]);
        }
        let kv = [
            ("begin", "(0, 1, None)"),
            ("end", "(1, 3, None)"),
            ("step", "(1, 1, -3)"),
        ];
        check_grad("crop", &kv, &[randn(&[1, 3, 7], 2)], false, &[]);
    }

    #[test]
    fn backward_slice_scatters_into_zeros() {
        // slice(begin=(None, 3), end=(None, 0), step=(-2, -2)) of a (3, 4) input reads rows
        // 2, 0 and columns 3, 1.
        let kv = [
            ("begin", "(None, 3)"),
            ("end", "(None, 0)"),
            ("step", "(-2, -2)"),
        ];
        let ograd = tensor(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let out = run("_backward_slice", &kv, &[ograd, iota(&[3, 4])], false).unwrap();
        assert_eq!(out[0].shape, [3, 4]);
        #[rustfmt::skip]
        let want = [
            0.0, 4.0, 0.0, 3.0,
            0.0, 0.0, 0.0, 0.0,
            0.0, 2.0, 0.0, 1.0,
        ];
        assert_eq!(out[0].data, want);
        let kv = [("begin", "(1,)"), ("end", "(3,)")];
        assert_eq!(
            infer_err("_backward_slice", &kv, &[&[3, 4], &[3, 4]]),
            "input `ograd` has shape (3, 4) but (2, 4) is required"
        );
        let (ins, outs) = infer_both("_backward_slice", &kv, &[&[], &[]], &[&[5, 4]]).unwrap();
        assert_eq!(
            (ins[0].as_slice(), outs[0].as_slice()),
            (&[2, 4][..], &[5, 4][..])
        );
    }

    #[test]
    fn slice_axis_gradients_match_finite_differences() {
        let x = randn(&[3, 7], 3);
        for (axis, begin, end) in [
            ("1", "2", "5"),
            ("-1", "-3", "None"),
            ("0", "0", "1"),
            ("-2", "1", "-1"),
            ("1", "0", "None"),
        ] {
            let kv = [("axis", axis), ("begin", begin), ("end", end)];
            check_grad("slice_axis", &kv, std::slice::from_ref(&x), false, &[]);
        }
        let kv = [("axis", "0"), ("begin", "0"), ("end", "1")];
        check_grad("slice_axis", &kv, &[randn(&[1, 7], 4)], false, &[]);
    }

    #[test]
    fn backward_slice_axis_places_the_window() {
        let kv = [("axis", "-1"), ("begin", "1"), ("end", "3")];
        let ograd = tensor(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let zeros = crate::Tensor::zeros(crate::DType::F64, vec![2, 4]);
        let out = run("_backward_slice_axis", &kv, &[ograd, zeros], false).unwrap();
        assert_eq!(out[0].data, [0.0, 1.0, 2.0, 0.0, 0.0, 3.0, 4.0, 0.0]);
        assert_eq!(
            infer_err("_backward_slice_axis", &kv, &[&[2, 3], &[2, 4]]),
            "input `ograd` has shape (2, 3) but (2, 2) is required"
        );
        assert_eq!(
            message(infer("_backward_slice_axis", &kv, &[&[2, 2], &[2, 2]])),
            "slice_axis: begin=1, end=3 is not a non-empty range of axis 1 (size 2) of input \
             (2, 2)"
        );
    }

    #[test]
    fn split_gradients_match_finite_differences() {
        for (shape, kv) in [
            (&[3, 7][..], &[("num_outputs", "7")][..]),
            (
                &[3, 7],
                &[
                    ("num_outputs", "7"),
                    ("axis", "-1"),
                    ("squeeze_axis", "True"),
                ],
            ),
            (
                &[3, 7],
                &[("num_outputs", "3"), ("axis", "0"), ("squeeze_axis", "1")],
            ),
            (&[3, 7], &[("num_outputs", "3"), ("axis", "-2")]),
            (&[3, 7], &[("num_outputs", "1"), ("axis", "0")]),
            (
                &[3, 1],
                &[
                    ("num_outputs", "1"),
                    ("axis", "-1"),
                    ("squeeze_axis", "True"),
                ],
            ),
            (&[2, 6, 1], &[("num_outputs", "3")]),
        ] {
            check_grad("split", kv, &[randn(shape, 5)], false, &[]);
        }
    }
}
