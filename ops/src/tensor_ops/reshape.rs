//! Reshape, Flatten, expand_dims, squeeze and reshape_like: the same elements in the same
//! row-major order under another shape, so the output may share the input's buffer.
//!
//! The gradient of each is the head gradient given the input's shape back:
//! `reshape_like(ograd, data)` (reshape_like's `rhs` gets none, as in MXNet).

use super::{apply, axis_of, fmt_ints};
use crate::def::PerSample;
use crate::param::{param, ParamType};
use crate::shape::{self, fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::{
    Attrs, Composed, Compute, DType, Grad, GradCtx, GradGraph, Handle, IndexExpr, IndexMap, Inputs,
    OpDef, Pattern, Registry, Value,
};

static RESHAPE: OpDef = OpDef {
    aliases: &["reshape"],
    doc: "Gives the input a new shape without changing its data. `shape` may hold special \
          codes: 0 copies an input dimension, -1 infers one dimension from the size, -2 copies \
          all remaining input dimensions, -3 merges two input dimensions, -4 splits one input \
          dimension into the two values that follow it (one of them may be -1). With \
          `reverse`, codes are matched from right to left.",
    params: &[
        param(
            "shape",
            ParamType::Shape,
            Some("()"),
            "the target shape, with special codes 0, -1, -2, -3, -4",
        ),
        param(
            "reverse",
            ParamType::Bool,
            Some("False"),
            "match the special codes from right to left",
        ),
        param(
            "target_shape",
            ParamType::Shape,
            Some("()"),
            "(deprecated, use `shape`) the target shape; a single 0 is inferred",
        ),
        param(
            "keep_highest",
            ParamType::Bool,
            Some("False"),
            "(deprecated, use `shape`) keep the first input dimension in place of the first \
             entry of `target_shape`",
        ),
    ],
    infer_shape: reshape_shape,
    dtypes: &DType::ALL,
    grad: Grad::Rule(view_grad),
    composes: Some(reshape_compose),
    per_sample: PerSample::Where(reshape_per_sample),
    ..OpDef::new("Reshape", Pattern::Injective, Compute::Injective(view_map))
};

/// A reshape keeps each sample's elements together where its output's first axis is the
/// input's (row-major order: equal rows of equal sizes) and names it by a code, not a
/// number that holds for one batch size only.
fn reshape_per_sample(a: &Attrs, ins: &[Shape], outs: &[Shape]) -> bool {
    let first = |s: &[Shape]| s.first().and_then(|s| s.first()).copied();
    matches!(a.shape("shape").first(), Some(-2..=0))
        && !a.bool("reverse")
        && a.shape("target_shape").is_empty()
        && first(ins).is_some()
        && first(ins) == first(outs)
}

/// Reshape(Reshape(x)) is the outer Reshape of x where its target does not read the input's
/// dimensions: codes 0, -2, -3, -4 (and `reverse`) do, sizes and -1 do not.
fn reshape_compose(outer: &Attrs, _inner: &Attrs) -> Option<Composed> {
    let shape = outer.shape("shape");
    let independent =
        !shape.is_empty() && shape.iter().all(|&d| d > 0 || d == -1) && !outer.bool("reverse");
    independent.then(|| Composed::Outer(vec![]))
}

/// The number of elements of a shape whose dimensions come from user codes, `None` when it
/// does not fit in a `usize`.
fn elems(s: &[usize]) -> Option<usize> {
    s.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// The output shape Reshape gives `input` (unknown dimensions are 0), or `None` when neither
/// `shape` nor `target_shape` is set and only a known output can tell.
fn reshape_target(a: &Attrs, input: &[usize]) -> Result<Option<Shape>, OpError> {
    let codes = a.shape("shape");
    if !codes.is_empty() {
        return apply_codes(codes, input, a.bool("reverse")).map(Some);
    }
    let legacy = a.shape("target_shape");
    if !legacy.is_empty() {
        return legacy_target(legacy, a.bool("keep_highest"), input).map(Some);
    }
    Ok(None)
}

/// How the target is spelled in errors.
fn target_text(a: &Attrs, out: &[usize]) -> String {
    if !a.shape("shape").is_empty() {
        fmt_ints(a.shape("shape"))
    } else if !a.shape("target_shape").is_empty() {
        format!("target_shape {}", fmt_ints(a.shape("target_shape")))
    } else {
        fmt_shape(out)
    }
}

fn cannot(input: &[usize], target: &str, why: &str) -> OpError {
    let base = format!("Reshape: cannot reshape {} to {target}", fmt_shape(input));
    OpError::Invalid(if why.is_empty() {
        base
    } else {
        format!("{base}: {why}")
    })
}

/// MXNet's special codes (InferReshapeShape). Every code except -2 and the two values after
/// -4 consumes one input dimension, so a later 0 copies the dimension at the position
/// reached; with `reverse` both lists are walked from the end.
fn apply_codes(codes: &[i64], input: &[usize], reverse: bool) -> Result<Shape, OpError> {
    let err = |why: &str| cannot(input, &fmt_ints(codes), why);
    let (mut dims, mut c) = (input.to_vec(), codes.to_vec());
    if reverse {
        dims.reverse();
        c.reverse();
    }
    let mut out = Shape::new();
    let mut src = 0;
    let mut inferred = None;
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            0 => {
                let d = dims
                    .get(src)
                    .ok_or_else(|| err("no input dimension left for 0"))?;
                out.push(*d);
                src += 1;
            }
            -1 => {
                if inferred.is_some() {
                    return Err(err("only one dimension can be -1"));
                }
                inferred = Some(out.len());
                out.push(1);
                src += 1;
            }
            -2 => {
                out.extend(dims.iter().skip(src));
                src = src.max(dims.len());
            }
            -3 => {
                if src + 1 >= dims.len() {
                    return Err(err("-3 needs two input dimensions"));
                }
                // An unknown (0) factor leaves the product unknown.
                out.push(dims[src] * dims[src + 1]);
                src += 2;
            }
            -4 => {
                let (Some(&d1), Some(&d2)) = (c.get(i + 1), c.get(i + 2)) else {
                    return Err(err("-4 must be followed by two dimensions"));
                };
                let d0 = *dims
                    .get(src)
                    .ok_or_else(|| err("no input dimension left for -4"))?;
                let (a, b) = split(d0, d1, d2).map_err(|why| err(&why))?;
                out.extend([a, b]);
                src += 1;
                i += 2;
            }
            d if d > 0 => {
                out.push(d as usize);
                src += 1;
            }
            d => {
                return Err(err(&format!(
                    "{d} is neither a dimension nor a special code"
                )))
            }
        }
        i += 1;
    }
    if let Some(k) = inferred {
        out[k] = if shape::is_known(input) {
            let rest = elems(&out).ok_or_else(|| err(""))?;
            let size = shape::size(input);
            if !size.is_multiple_of(rest) {
                return Err(err(""));
            }
            size / rest
        } else {
            0
        };
    }
    if reverse {
        out.reverse();
    }
    Ok(out)
}

/// The two dimensions -4 splits input dimension `d0` (0: unknown) into; one may be -1.
fn split(d0: usize, d1: i64, d2: i64) -> Result<(usize, usize), String> {
    if d1 == -1 && d2 == -1 {
        return Err("the dimensions after -4 cannot both be -1".into());
    }
    if [d1, d2].iter().any(|&d| d == 0 || d < -1) {
        return Err(format!(
            "the dimensions after -4 must be positive or -1, not {d1}, {d2}"
        ));
    }
    let known = |d: i64| (d > 0).then_some(d as usize);
    if d0 == 0 {
        // An unknown input dimension leaves the -1 unknown.
        return Ok((known(d1).unwrap_or(0), known(d2).unwrap_or(0)));
    }
    match (known(d1), known(d2)) {
        (Some(a), Some(b)) if a.checked_mul(b) == Some(d0) => Ok((a, b)),
        (Some(a), None) if d0.is_multiple_of(a) => Ok((a, d0 / a)),
        (None, Some(b)) if d0.is_multiple_of(b) => Ok((d0 / b, b)),
        _ => Err(format!("{d1} x {d2} does not split input dimension {d0}")),
    }
}

/// The deprecated `target_shape`: a single 0 is inferred from the size; `keep_highest` puts
/// the input's first dimension in place of the first entry.
fn legacy_target(target: &[i64], keep_highest: bool, input: &[usize]) -> Result<Shape, OpError> {
    let err = |why: &str| cannot(input, &format!("target_shape {}", fmt_ints(target)), why);
    if let Some(d) = target.iter().find(|&&d| d < 0) {
        return Err(err(&format!("{d} is not a dimension")));
    }
    let mut out: Shape = target.iter().map(|&d| d as usize).collect();
    if keep_highest {
        out[0] = input[0];
    }
    let zeros: Vec<usize> = (usize::from(keep_highest)..out.len())
        .filter(|&i| out[i] == 0)
        .collect();
    match zeros[..] {
        [] => {}
        [k] if shape::is_known(input) => {
            out[k] = 1;
            let rest = elems(&out).ok_or_else(|| err(""))?;
            if !shape::size(input).is_multiple_of(rest) {
                return Err(err(""));
            }
            out[k] = shape::size(input) / rest;
        }
        [_] => {}
        _ => return Err(err("only one dimension can be 0")),
    }
    Ok(out)
}

/// MXNet's ReverseReshapeInferShape: with the output known, a single unknown input
/// dimension is what the known ones leave of the output's size.
fn input_from_output(input: &[usize], out: &[usize]) -> Result<Option<Shape>, OpError> {
    let unknown: Vec<usize> = (0..input.len()).filter(|&i| input[i] == 0).collect();
    if !shape::is_known(out) || unknown.len() != 1 {
        return Ok(None);
    }
    let known: usize = input.iter().filter(|&&d| d != 0).product();
    let total = shape::size(out);
    if !total.is_multiple_of(known) {
        return invalid(format!(
            "Reshape: no input of shape {} has the size of output {}",
            fmt_shape(input),
            fmt_shape(out)
        ));
    }
    let mut filled = input.to_vec();
    filled[unknown[0]] = total / known;
    Ok(Some(filled))
}

fn reshape_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    // As in MXNet, nothing is inferred before the input's rank is known.
    if ins[0].is_empty() {
        return Ok(());
    }
    if let Some(out) = reshape_target(a, &ins[0])? {
        set_out(outs, 0, &out)?;
    }
    if let Some(input) = input_from_output(&ins[0], &outs[0])? {
        set_in(ins, 0, &input)?;
    }
    if shape::is_known(&ins[0]) {
        if let Some(out) = reshape_target(a, &ins[0])? {
            set_out(outs, 0, &out)?;
        }
        if shape::is_known(&outs[0]) && elems(&outs[0]) != Some(shape::size(&ins[0])) {
            return Err(cannot(&ins[0], &target_text(a, &outs[0]), ""));
        }
    }
    Ok(())
}

/// Reshape, Flatten, reshape_like: the same elements in row-major order, in the inferred
/// output shape.
fn view_map(_: &Attrs, ins: &[Shape], outs: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    Ok(IndexMap::reshape(&ins[0], &outs[0]))
}

static FLATTEN: OpDef = OpDef {
    per_sample: PerSample::Always,
    aliases: &["flatten"],
    doc: "Collapses every dimension after the first: (d0, d1, ..., dk) becomes \
          (d0, d1*...*dk); a 1-D input (d0,) becomes (d0, 1).",
    infer_shape: flatten_shape,
    dtypes: &DType::ALL,
    grad: Grad::Rule(view_grad),
    ..OpDef::new("Flatten", Pattern::Injective, Compute::Injective(view_map))
};

fn flattened(s: &[usize]) -> Shape {
    vec![s[0], s[1..].iter().product()]
}

fn flatten_shape(_: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if shape::is_known(&ins[0]) {
        set_out(outs, 0, &flattened(&ins[0]))?;
    }
    Ok(())
}

static EXPAND_DIMS: OpDef = OpDef {
    per_sample: PerSample::Where(|a, ins, _| {
        let rank = ins.first().map_or(0, Vec::len) as i64;
        let axis = a.int("axis");
        (if axis < 0 { axis + rank + 1 } else { axis }) > 0
    }),
    doc: "Inserts a dimension of size 1 at `axis`.",
    params: &[param(
        "axis",
        ParamType::Int,
        None,
        "position of the new axis in the output, from -ndim-1 to ndim",
    )],
    infer_shape: expand_shape,
    dtypes: &DType::ALL,
    grad: Grad::Rule(view_grad),
    ..OpDef::new(
        "expand_dims",
        Pattern::Injective,
        Compute::Injective(expand_map),
    )
};

/// Where the new axis goes for an input of rank `ndim`.
fn new_axis(a: &Attrs, ndim: usize) -> Result<usize, OpError> {
    let (axis, n) = (a.int("axis"), ndim as i64);
    let p = if axis < 0 { axis + n + 1 } else { axis };
    if !(0..=n).contains(&p) {
        return invalid(format!(
            "expand_dims: axis={axis} is out of range [{}, {n}] for a {ndim}-d input",
            -n - 1
        ));
    }
    Ok(p as usize)
}

fn expand_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let ndim = match (ins[0].len(), outs[0].len()) {
        (0, 0 | 1) => return Ok(()),
        (0, n) => n - 1,
        (n, _) => n,
    };
    let p = new_axis(a, ndim)?;
    // Backward: the output without the new axis (a wrong rank is caught going forward).
    if outs[0].len() == ndim + 1 {
        let mut input = outs[0].clone();
        input.remove(p);
        set_in(ins, 0, &input)?;
    }
    let mut out = ins[0].clone();
    out.insert(p, 1);
    set_out(outs, 0, &out)
}

fn expand_map(a: &Attrs, ins: &[Shape], _: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    let p = new_axis(a, ins[0].len())?;
    let coords = (0..ins[0].len())
        .map(|d| IndexExpr::Out(if d < p { d } else { d + 1 }))
        .collect();
    Ok(IndexMap::single(coords))
}

static SQUEEZE: OpDef = OpDef {
    doc: "Removes dimensions of size 1: those listed in `axis`, or every one. An input of \
          all ones becomes (1,).",
    params: &[param(
        "axis",
        ParamType::OptShape,
        Some("None"),
        "the size-1 axes to remove (None: all of them)",
    )],
    infer_shape: squeeze_shape,
    dtypes: &DType::ALL,
    grad: Grad::Rule(view_grad),
    ..OpDef::new(
        "squeeze",
        Pattern::Injective,
        Compute::Injective(squeeze_map),
    )
};

/// For each input axis, whether squeeze removes it.
fn squeezed(a: &Attrs, input: &[usize]) -> Result<Vec<bool>, OpError> {
    let Some(axes) = a.opt_shape("axis") else {
        return Ok(input.iter().map(|&d| d == 1).collect());
    };
    let mut gone = vec![false; input.len()];
    for &ax in axes {
        let i = axis_of("squeeze", "axis", ax, input)?;
        if input[i] != 1 {
            return invalid(format!(
                "squeeze: cannot remove axis {ax} of input {}: its size is {}, not 1",
                fmt_shape(input),
                input[i]
            ));
        }
        if std::mem::replace(&mut gone[i], true) {
            return invalid(format!(
                "squeeze: axis={} names axis {i} twice",
                fmt_ints(axes)
            ));
        }
    }
    Ok(gone)
}

fn squeeze_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if !shape::is_known(&ins[0]) {
        return Ok(());
    }
    let gone = squeezed(a, &ins[0])?;
    let mut out: Shape = ins[0]
        .iter()
        .zip(&gone)
        .filter(|(_, &g)| !g)
        .map(|(&d, _)| d)
        .collect();
    if out.is_empty() {
        out.push(1);
    }
    set_out(outs, 0, &out)
}

fn squeeze_map(a: &Attrs, ins: &[Shape], _: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    let gone = squeezed(a, &ins[0])?;
    let mut next = 0;
    let coords = gone
        .iter()
        .map(|&g| {
            if g {
                IndexExpr::Const(0)
            } else {
                next += 1;
                IndexExpr::Out(next - 1)
            }
        })
        .collect();
    Ok(IndexMap::single(coords))
}

/// The gradient of a view: the head gradient in the shape of input 0; other inputs (the
/// `rhs` of reshape_like, whose values are never read) get none.
fn view_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let mut grads = vec![None; ctx.inputs.len()];
    grads[0] = Some(apply(
        g,
        "reshape_like",
        &[ctx.out_grads[0], ctx.inputs[0]],
        &[],
    )?);
    Ok(grads)
}

static RESHAPE_LIKE: OpDef = OpDef {
    doc: "Gives lhs the shape of rhs without changing its data (rhs's values are not read). \
          With lhs_begin/lhs_end and rhs_begin/rhs_end, only lhs's dimensions \
          [lhs_begin, lhs_end) are replaced, by rhs's dimensions [rhs_begin, rhs_end). \
          Negative indices count from the end; None means the start (begin) or the end (end). \
          The sizes must agree.",
    params: &[
        param(
            "lhs_begin",
            ParamType::OptInt,
            Some("None"),
            "first lhs dimension replaced (None: 0)",
        ),
        param(
            "lhs_end",
            ParamType::OptInt,
            Some("None"),
            "end (exclusive) of the lhs dimensions replaced (None: all)",
        ),
        param(
            "rhs_begin",
            ParamType::OptInt,
            Some("None"),
            "first rhs dimension used (None: 0)",
        ),
        param(
            "rhs_end",
            ParamType::OptInt,
            Some("None"),
            "end (exclusive) of the rhs dimensions used (None: all)",
        ),
    ],
    inputs: Inputs::Fixed(&["lhs", "rhs"]),
    infer_shape: reshape_like_shape,
    infer_dtype: lhs_dtype,
    dtypes: &DType::ALL,
    grad: Grad::Rule(view_grad),
    ..OpDef::new(
        "reshape_like",
        Pattern::Injective,
        Compute::Injective(view_map),
    )
};

/// `side`'s range of dimensions, canonicalized as MXNet's ReshapeLikeRangeCanonicalize:
/// begin defaults to 0, end to the rank, negatives count from the end, and the range must
/// be non-empty and inside the shape.
fn like_range(a: &Attrs, side: &str, s: &[usize]) -> Result<(usize, usize), OpError> {
    let (begin, end) = (
        a.opt_int(&format!("{side}_begin")),
        a.opt_int(&format!("{side}_end")),
    );
    let n = s.len() as i64;
    let wrap = |v: i64| if v < 0 { v + n } else { v };
    let (b, e) = (begin.map_or(0, wrap), end.map_or(n, wrap));
    if !(0 <= b && b < e && e <= n) {
        return invalid(format!(
            "reshape_like: {side}_begin={}, {side}_end={} is not a non-empty range of the \
             dimensions of {side} {}",
            Value::OptInt(begin).to_mxnet_string(),
            Value::OptInt(end).to_mxnet_string(),
            fmt_shape(s)
        ));
    }
    Ok((b as usize, e as usize))
}

fn reshape_like_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let (lhs, rhs) = (&ins[0], &ins[1]);
    if lhs.is_empty() || rhs.is_empty() {
        return Ok(());
    }
    let (lb, le) = like_range(a, "lhs", lhs)?;
    let (rb, re) = like_range(a, "rhs", rhs)?;
    let out: Shape = lhs[..lb]
        .iter()
        .chain(&rhs[rb..re])
        .chain(&lhs[le..])
        .copied()
        .collect();
    if shape::is_known(lhs) && shape::is_known(&out) && elems(&out) != Some(shape::size(lhs)) {
        return invalid(format!(
            "reshape_like: cannot reshape lhs {} to {} (from rhs {})",
            fmt_shape(lhs),
            fmt_shape(&out),
            fmt_shape(rhs)
        ));
    }
    set_out(outs, 0, &out)
}

/// The output has lhs's dtype; rhs may have any.
fn lhs_dtype(
    a: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    shape::same_dtype(a, &mut ins[..1], outs)
}

pub fn register(r: &mut Registry) {
    for op in [&RESHAPE, &FLATTEN, &EXPAND_DIMS, &SQUEEZE, &RESHAPE_LIKE] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{
        analytic_grad, attrs, check_grad, infer, infer_both, iota, message, op, randn, run,
    };
    use crate::Composed;

    #[test]
    fn reshapes_compose_where_the_outer_target_ignores_the_input_shape() {
        let r = op("Reshape");
        let compose = |outer: &[(&str, &str)]| {
            (r.composes.unwrap())(&attrs(r, outer), &attrs(r, &[("shape", "(6,)")]))
        };
        assert_eq!(
            compose(&[("shape", "(2, -1)")]),
            Some(Composed::Outer(vec![]))
        );
        let reads_input: [&[(&str, &str)]; 4] = [
            &[("shape", "(0, -1)")],
            &[("shape", "(-2,)")],
            &[("shape", "(2, -1)"), ("reverse", "True")],
            &[("target_shape", "(2, 3)")],
        ];
        for kv in reads_input {
            assert_eq!(compose(kv), None, "{kv:?}");
        }
    }

    fn reshaped(input: &[usize], kv: &[(&str, &str)]) -> Vec<usize> {
        infer("Reshape", kv, &[input]).unwrap().1[0].clone()
    }

    #[test]
    fn special_codes_follow_mxnet_documentation() {
        // The examples of MXNet's Reshape documentation.
        for (input, shape, want) in [
            (&[2, 3, 4][..], "(4,0,2)", &[4, 3, 2][..]),
            (&[2, 3, 4], "(2,0,0)", &[2, 3, 4]),
            (&[2, 3, 4], "(6,1,-1)", &[6, 1, 4]),
            (&[2, 3, 4], "(3,-1,8)", &[3, 1, 8]),
            (&[2, 3, 4], "(-1,)", &[24]),
            (&[2, 3, 4], "(-2,)", &[2, 3, 4]),
            (&[2, 3, 4], "(2,-2)", &[2, 3, 4]),
            (&[2, 3, 4], "(-2,1,1)", &[2, 3, 4, 1, 1]),
            (&[2, 3, 4], "(-3,4)", &[6, 4]),
            (&[2, 3, 4, 5], "(-3,-3)", &[6, 20]),
            (&[2, 3, 4], "(0,-3)", &[2, 12]),
            (&[2, 3, 4], "(-3,-2)", &[6, 4]),
            (&[2, 3, 4], "(-4,1,2,-2)", &[1, 2, 3, 4]),
            (&[2, 3, 4], "(2,-4,-1,3,-2)", &[2, 1, 3, 4]),
            (&[10, 5, 4], "(-1,0)", &[40, 5]),
        ] {
            assert_eq!(reshaped(input, &[("shape", shape)]), want, "{shape}");
        }
        let rev = [("shape", "(-1,0)"), ("reverse", "True")];
        assert_eq!(reshaped(&[10, 5, 4], &rev), [50, 4]);
    }

    #[test]
    fn legacy_target_shape() {
        assert_eq!(reshaped(&[2, 3, 4], &[("target_shape", "(0,4)")]), [6, 4]);
        let keep = [("target_shape", "(9,0)"), ("keep_highest", "True")];
        assert_eq!(reshaped(&[2, 3, 4], &keep), [2, 12]);
    }

    #[test]
    fn partial_shapes_flow_both_ways() {
        // Unknown batch: the inferred dimension stays unknown until the output tells.
        assert_eq!(reshaped(&[0, 3, 4], &[("shape", "(-1,12)")]), [0, 12]);
        let (ins, outs) = infer_both(
            "Reshape",
            &[("shape", "(-1,12)")],
            &[&[0, 3, 4]],
            &[&[5, 12]],
        )
        .unwrap();
        assert_eq!(
            (ins[0].as_slice(), outs[0].as_slice()),
            (&[5, 3, 4][..], &[5, 12][..])
        );
        // Without a target only the output can tell.
        let (ins, _) = infer_both("Reshape", &[], &[&[0, 4]], &[&[3, 4]]).unwrap();
        assert_eq!(ins[0], [3, 4]);
    }

    #[test]
    fn bad_targets_are_errors() {
        let e = |input: &[usize], kv: &[(&str, &str)]| message(infer("Reshape", kv, &[input]));
        assert_eq!(
            e(&[2, 3], &[("shape", "(4,-1)")]),
            "Reshape: cannot reshape (2, 3) to (4, -1)"
        );
        assert_eq!(
            e(&[2, 3], &[("shape", "(4,2)")]),
            "Reshape: cannot reshape (2, 3) to (4, 2)"
        );
        assert_eq!(
            e(&[2, 3], &[("shape", "(-1,-1)")]),
            "Reshape: cannot reshape (2, 3) to (-1, -1): only one dimension can be -1"
        );
        assert_eq!(
            e(&[6], &[("shape", "(0,0)")]),
            "Reshape: cannot reshape (6,) to (0, 0): no input dimension left for 0"
        );
        assert_eq!(
            e(&[2, 3, 4], &[("shape", "(-4,4,-1,-2)")]),
            "Reshape: cannot reshape (2, 3, 4) to (-4, 4, -1, -2): \
             4 x -1 does not split input dimension 2"
        );
        assert_eq!(
            e(&[2, 3], &[("shape", "(-5,)")]),
            "Reshape: cannot reshape (2, 3) to (-5,): -5 is neither a dimension nor a special code"
        );
        assert!(e(&[2], &[("shape", "(4294967296,4294967296,-1)")]).starts_with("Reshape"));
    }

    #[test]
    fn any_codes_give_an_error_or_a_same_size_view() {
        let codes = [-5, -4, -3, -2, -1, 0, 1, 2, 3, 6];
        for input in [vec![6], vec![2, 3], vec![2, 3, 1], vec![0, 3]] {
            for len in 1..=4u32 {
                for pick in 0..codes.len().pow(len) {
                    let shape: Vec<String> = (0..len)
                        .map(|i| codes[pick / codes.len().pow(i) % codes.len()].to_string())
                        .collect();
                    let shape = format!("({},)", shape.join(","));
                    for reverse in ["False", "True"] {
                        let kv = [("shape", shape.as_str()), ("reverse", reverse)];
                        let Ok((_, outs)) = infer("Reshape", &kv, &[&input]) else {
                            continue;
                        };
                        if crate::shape::is_known(&input) {
                            let out = run("Reshape", &kv, &[iota(&input)], false).unwrap();
                            assert_eq!(out[0].shape, outs[0], "{kv:?}");
                            assert_eq!(out[0].data, iota(&input).data, "{kv:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn reshape_without_target_cannot_evaluate() {
        assert!(run("Reshape", &[], &[iota(&[2, 3])], false).is_err());
    }

    #[test]
    fn reshape_keeps_row_major_order() {
        let out = run("Reshape", &[("shape", "(3,-1)")], &[iota(&[2, 3])], false).unwrap();
        assert_eq!(out[0].shape, [3, 2]);
        assert_eq!(out[0].data, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    }

    #[test]
    fn flatten_collapses_trailing_dims() {
        assert_eq!(infer("Flatten", &[], &[&[2, 3, 4]]).unwrap().1[0], [2, 12]);
        assert_eq!(infer("flatten", &[], &[&[5]]).unwrap().1[0], [5, 1]);
        let out = run("Flatten", &[], &[iota(&[2, 2, 2])], false).unwrap();
        assert_eq!(out[0].shape, [2, 4]);
        assert_eq!(out[0].data, iota(&[8]).data);
    }

    #[test]
    fn expand_dims_inserts_an_axis() {
        let ex = |axis: &str| infer("expand_dims", &[("axis", axis)], &[&[2, 3]]);
        assert_eq!(ex("1").unwrap().1[0], [2, 1, 3]);
        assert_eq!(ex("-1").unwrap().1[0], [2, 3, 1]);
        assert_eq!(ex("-3").unwrap().1[0], [1, 2, 3]);
        assert_eq!(
            message(ex("3")),
            "expand_dims: axis=3 is out of range [-3, 2] for a 2-d input"
        );
        let (ins, _) = infer_both("expand_dims", &[("axis", "1")], &[&[]], &[&[2, 1, 3]]).unwrap();
        assert_eq!(ins[0], [2, 3]);
        let out = run("expand_dims", &[("axis", "1")], &[iota(&[2, 3])], false).unwrap();
        assert_eq!(
            (out[0].shape.as_slice(), &out[0].data),
            (&[2, 1, 3][..], &iota(&[6]).data)
        );
    }

    #[test]
    fn squeeze_removes_unit_axes() {
        let sq = |input: &[usize], kv: &[(&str, &str)]| infer("squeeze", kv, &[input]);
        assert_eq!(sq(&[1, 3, 1, 2], &[]).unwrap().1[0], [3, 2]);
        assert_eq!(
            sq(&[1, 3, 1, 2], &[("axis", "(0,)")]).unwrap().1[0],
            [3, 1, 2]
        );
        assert_eq!(
            sq(&[1, 3, 1, 2], &[("axis", "-2")]).unwrap().1[0],
            [1, 3, 2]
        );
        assert_eq!(sq(&[1, 1], &[]).unwrap().1[0], [1]);
        assert_eq!(
            message(sq(&[1, 3], &[("axis", "1")])),
            "squeeze: cannot remove axis 1 of input (1, 3): its size is 3, not 1"
        );
        assert_eq!(
            message(sq(&[1, 3], &[("axis", "(0,-2)")])),
            "squeeze: axis=(0, -2) names axis 0 twice"
        );
        let out = run("squeeze", &[], &[iota(&[3, 1, 2])], false).unwrap();
        assert_eq!(
            (out[0].shape.as_slice(), &out[0].data),
            (&[3, 2][..], &iota(&[6]).data)
        );
    }

    #[test]
    fn reshape_like_follows_mxnet_examples() {
        // x = [1, ..., 6], y of shape (3, 2): [[1, 2], [3, 4], [5, 6]].
        let out = run("reshape_like", &[], &[iota(&[6]), iota(&[3, 2])], false).unwrap();
        assert_eq!(out[0].shape, [3, 2]);
        assert_eq!(out[0].data, iota(&[6]).data);
        let like = |l: &[usize], r: &[usize], kv: &[(&str, &str)]| {
            infer("reshape_like", kv, &[l, r]).map(|(_, o)| o[0].clone())
        };
        let kv = [
            ("lhs_begin", "0"),
            ("lhs_end", "1"),
            ("rhs_begin", "0"),
            ("rhs_end", "2"),
        ];
        assert_eq!(like(&[30, 7], &[15, 2, 4], &kv).unwrap(), [15, 2, 7]);
        let kv = [
            ("lhs_begin", "0"),
            ("lhs_end", "2"),
            ("rhs_begin", "1"),
            ("rhs_end", "2"),
        ];
        assert_eq!(like(&[3, 5], &[1, 15, 4], &kv).unwrap(), [15]);
        let kv = [
            ("lhs_begin", "-1"),
            ("lhs_end", "None"),
            ("rhs_begin", "1"),
            ("rhs_end", "None"),
        ];
        assert_eq!(like(&[30, 12], &[4, 2, 2, 3], &kv).unwrap(), [30, 2, 2, 3]);
        // Unknown dimensions of rhs stay unknown; the dtype is lhs's.
        assert_eq!(like(&[6], &[0, 2], &[]).unwrap(), [0, 2]);
        let mut r = iota(&[3, 2]);
        r.dtype = crate::DType::I32;
        let out = run("reshape_like", &[], &[iota(&[6]), r], false).unwrap();
        assert_eq!(out[0].dtype, crate::DType::F64);
    }

    #[test]
    fn reshape_like_errors_name_ranges_and_shapes() {
        let e = |l: &[usize], r: &[usize], kv: &[(&str, &str)]| {
            message(infer("reshape_like", kv, &[l, r]))
        };
        assert_eq!(
            e(&[6], &[4, 2], &[]),
            "reshape_like: cannot reshape lhs (6,) to (4, 2) (from rhs (4, 2))"
        );
        assert_eq!(
            e(&[2, 3], &[6], &[("lhs_begin", "1"), ("lhs_end", "1")]),
            "reshape_like: lhs_begin=1, lhs_end=1 is not a non-empty range of the dimensions \
             of lhs (2, 3)"
        );
        assert_eq!(
            e(&[2, 3], &[6], &[("rhs_end", "2")]),
            "reshape_like: rhs_begin=None, rhs_end=2 is not a non-empty range of the \
             dimensions of rhs (6,)"
        );
        assert!(e(&[2, 3], &[6], &[("lhs_begin", "-3")]).starts_with("reshape_like: lhs_begin=-3"));
    }

    #[test]
    fn view_gradients_match_finite_differences() {
        let x = randn(&[3, 1, 7], 1);
        for kv in [
            &[("shape", "(-1,)")][..],
            &[("shape", "(7, 0, -1)")],
            &[("shape", "(-4, 1, 3, -2)")],
            &[("shape", "(-1, 0)"), ("reverse", "True")],
            &[("target_shape", "(0, 7)")],
        ] {
            check_grad("Reshape", kv, std::slice::from_ref(&x), false, &[]);
        }
        check_grad("Flatten", &[], std::slice::from_ref(&x), false, &[]);
        check_grad("flatten", &[], &[randn(&[7], 2)], false, &[]);
        for axis in ["0", "1", "3", "-1", "-4"] {
            check_grad(
                "expand_dims",
                &[("axis", axis)],
                std::slice::from_ref(&x),
                false,
                &[],
            );
        }
        for kv in [&[][..], &[("axis", "(1,)")], &[("axis", "-2")]] {
            check_grad("squeeze", kv, std::slice::from_ref(&x), false, &[]);
        }
        check_grad("squeeze", &[], &[randn(&[1, 1], 3)], false, &[]);
        // rhs only lends its shape: its gradient is none (and numerically zero).
        check_grad(
            "reshape_like",
            &[],
            &[x.clone(), randn(&[7, 3], 4)],
            false,
            &[],
        );
        let kv = [
            ("lhs_begin", "1"),
            ("lhs_end", "None"),
            ("rhs_begin", "-1"),
            ("rhs_end", "None"),
        ];
        check_grad(
            "reshape_like",
            &kv,
            &[x.clone(), randn(&[2, 7], 5)],
            false,
            &[],
        );
        let g = analytic_grad(
            "reshape_like",
            &[],
            &[x.clone(), randn(&[21], 6)],
            &[iota(&[21])],
            false,
        )
        .unwrap();
        assert_eq!(g[0].as_ref().unwrap().shape, [3, 1, 7]);
        assert!(g[1].is_none());
    }
}
