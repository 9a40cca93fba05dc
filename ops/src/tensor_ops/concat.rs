//! Concat: joins its inputs along one axis. Its gradient is `_backward_Concat`, which
//! cuts the head gradient back into one piece per input (it takes the inputs for their
//! extents along `dim`, which a gradient rule cannot see).

use super::axis_of;
use crate::def::PerSample;
use crate::elemwise::numbered_args;
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, unify, OpError, Shape, Slot};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradGraph, Handle, IndexExpr, IndexMap, Inputs, OpDef,
    Outputs, Pattern, Piece, Registry,
};

const PARAMS: &[ParamDef] = &[
    param("num_args", ParamType::Int, None, "number of inputs"),
    param(
        "dim",
        ParamType::Int,
        Some("1"),
        "the axis to join along (negative counts from the end)",
    ),
];

static CONCAT: OpDef = OpDef {
    per_sample: PerSample::Where(|a, ins, _| PerSample::axis_not_first(a, "dim", ins)),
    aliases: &["concat"],
    doc: "Joins the inputs arg0, arg1, ... along axis `dim`; every other dimension must agree.",
    params: PARAMS,
    inputs: Inputs::Dynamic(numbered_args),
    num_args_param: Some("num_args"),
    infer_shape: concat_shape,
    inplace: &[],
    dtypes: &DType::ALL,
    grad: Grad::Rule(concat_grad),
    ..OpDef::new("Concat", Pattern::Injective, Compute::Injective(concat_map))
};

fn check_arity(a: &Attrs, inputs: usize) -> Result<(), OpError> {
    match a.int("num_args") {
        n if n < 1 => invalid(format!("Concat: num_args={n} must be at least 1")),
        n if n as usize != inputs => invalid(format!(
            "Concat: num_args={n} but {inputs} inputs are given"
        )),
        _ => Ok(()),
    }
}

fn concat_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    check_arity(a, ins.len())?;
    // Every dimension but the joined one is common to the inputs and the output.
    let mut common = Shape::new();
    let mut axis = None;
    let slots = ins.iter().enumerate().map(|(i, s)| (Slot::In(i), s));
    for (slot, s) in slots.chain([(Slot::Out(0), &outs[0])]) {
        if s.is_empty() {
            continue;
        }
        let ax = axis_of("Concat", "dim", a.int("dim"), s)?;
        let mut masked = s.clone();
        masked[ax] = 0;
        // Unified into the slot's own shape so that a conflict shows what the slot has.
        unify(slot, &mut masked, &common)?;
        common = masked;
        axis = Some(ax);
    }
    let Some(ax) = axis else {
        return Ok(());
    };
    for i in 0..ins.len() {
        set_in(ins, i, &common)?;
    }
    set_out(outs, 0, &common)?;
    let unknown: Vec<usize> = (0..ins.len()).filter(|&i| ins[i][ax] == 0).collect();
    let known_sum: usize = ins.iter().map(|s| s[ax]).sum();
    match (unknown.as_slice(), outs[0][ax]) {
        ([], _) => {
            let mut out = common;
            out[ax] = known_sum;
            set_out(outs, 0, &out)
        }
        // Backward: a single unknown input takes what the output has left along `dim`.
        (&[k], total) if total != 0 => {
            if total <= known_sum {
                return invalid(format!(
                    "Concat: output {} is too short along dim {ax} for inputs that already \
                     span {known_sum}",
                    fmt_shape(&outs[0])
                ));
            }
            let mut input = common;
            input[ax] = total - known_sum;
            set_in(ins, k, &input)
        }
        _ => Ok(()),
    }
}

fn concat_map(a: &Attrs, ins: &[Shape], _: &[Shape], _: usize) -> Result<IndexMap, OpError> {
    check_arity(a, ins.len())?;
    let ax = axis_of("Concat", "dim", a.int("dim"), &ins[0])?;
    if let Some(s) = ins.iter().find(|s| s.len() != ins[0].len()) {
        return invalid(format!(
            "Concat: inputs {} and {} differ in rank",
            fmt_shape(&ins[0]),
            fmt_shape(s)
        ));
    }
    let mut lo = 0;
    let pieces = ins
        .iter()
        .enumerate()
        .map(|(input, s)| {
            let hi = lo + s[ax];
            let coords = (0..s.len())
                .map(|d| match d == ax {
                    true => IndexExpr::Out(d) + IndexExpr::Const(-(lo as i64)),
                    false => IndexExpr::Out(d),
                })
                .collect();
            let piece = Piece {
                input,
                guard: Some((ax, lo, hi)),
                coords,
            };
            lo = hi;
            piece
        })
        .collect();
    Ok(IndexMap { pieces })
}

fn concat_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args: Vec<Handle> = std::iter::once(ctx.out_grads[0])
        .chain(ctx.inputs.iter().copied())
        .collect();
    let grads = g.op("_backward_Concat", &args, ctx.raw_attrs)?;
    Ok(grads.into_iter().map(Some).collect())
}

static BACKWARD_CONCAT: OpDef = OpDef {
    doc: "The gradient of Concat: `ograd` cut along `dim` into one output per input \
          arg0, arg1, ..., each of that input's shape (the inputs' values are not read).",
    params: PARAMS,
    inputs: Inputs::Dynamic(backward_inputs),
    outputs: Outputs::Dynamic(backward_outputs),
    infer_shape: backward_concat_shape,
    inplace: &[],
    ..OpDef::new(
        "_backward_Concat",
        Pattern::Injective,
        Compute::Injective(backward_concat_map),
    )
};

fn backward_inputs(a: &Attrs) -> Vec<String> {
    std::iter::once("ograd".to_string())
        .chain(numbered_args(a))
        .collect()
}

fn backward_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let names: Vec<String> = numbered_args(a)
        .iter()
        .map(|n| format!("{n}_grad"))
        .collect();
    let n = names.len();
    (names, n)
}

/// Concat's inference on (arg0.., ograd as the output), with error slots renamed to this
/// operator's; then output k is input k + 1's shape.
fn backward_concat_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    check_arity(a, ins.len().saturating_sub(1))?;
    for (k, out) in outs.iter().enumerate() {
        set_in(ins, k + 1, out)?;
    }
    let (ograd, args) = ins.split_at_mut(1);
    concat_shape(a, args, ograd).map_err(|e| match e {
        OpError::Shape { slot, have, want } => OpError::Shape {
            slot: match slot {
                Slot::In(i) => Slot::In(i + 1),
                Slot::Out(_) => Slot::In(0),
            },
            have,
            want,
        },
        e => e,
    })?;
    for k in 0..outs.len() {
        set_out(outs, k, &ins[k + 1])?;
    }
    Ok(())
}

/// Output k reads ograd along `dim`, offset by the extents of the inputs before k.
fn backward_concat_map(
    a: &Attrs,
    ins: &[Shape],
    _: &[Shape],
    k: usize,
) -> Result<IndexMap, OpError> {
    let args = &ins[1..];
    check_arity(a, args.len())?;
    let ax = axis_of("_backward_Concat", "dim", a.int("dim"), &ins[0])?;
    if k >= args.len() || args.iter().any(|s| s.len() != ins[0].len()) {
        return invalid(format!(
            "_backward_Concat: no output {k}, or inputs of a rank other than ograd {}",
            fmt_shape(&ins[0])
        ));
    }
    let offset: usize = args[..k].iter().map(|s| s[ax]).sum();
    let coords = (0..ins[0].len())
        .map(|d| match d == ax {
            true => IndexExpr::Out(d) + IndexExpr::Const(offset as i64),
            false => IndexExpr::Out(d),
        })
        .collect();
    Ok(IndexMap::single(coords))
}

pub fn register(r: &mut Registry) {
    r.add(&CONCAT);
    r.add(&BACKWARD_CONCAT);
}

#[cfg(test)]
mod tests {
    use crate::testutil::{
        check_grad, infer, infer_both, infer_err, iota, message, randn, run, tensor,
    };

    #[test]
    fn concat_follows_mxnet_examples() {
        // x = [[1,1],[2,2]], y = [[3,3],[4,4],[5,5]], z = [[6,6],[7,7],[8,8]].
        let x = tensor(&[2, 2], &[1.0, 1.0, 2.0, 2.0]);
        let y = tensor(&[3, 2], &[3.0, 3.0, 4.0, 4.0, 5.0, 5.0]);
        let z = tensor(&[3, 2], &[6.0, 6.0, 7.0, 7.0, 8.0, 8.0]);
        let kv = [("num_args", "3"), ("dim", "0")];
        let out = run("Concat", &kv, &[x, y.clone(), z.clone()], false).unwrap();
        assert_eq!(out[0].shape, [8, 2]);
        let rows: Vec<f64> = out[0].data.iter().step_by(2).copied().collect();
        assert_eq!(rows, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        let out = run("concat", &[("num_args", "2")], &[y, z], false).unwrap();
        assert_eq!(out[0].shape, [3, 4]);
        assert_eq!(
            out[0].data,
            [3.0, 3.0, 6.0, 6.0, 4.0, 4.0, 7.0, 7.0, 5.0, 5.0, 8.0, 8.0]
        );
    }

    #[test]
    fn shapes_forward_and_backward() {
        let ins: [&[usize]; 2] = [&[2, 3], &[2, 4]];
        assert_eq!(
            infer("Concat", &[("num_args", "2")], &ins).unwrap().1[0],
            [2, 7]
        );
        let kv = [("num_args", "2"), ("dim", "-1")];
        assert_eq!(infer("Concat", &kv, &ins).unwrap().1[0], [2, 7]);
        // One unknown input along `dim` is what the output leaves.
        let (ins, _) =
            infer_both("Concat", &[("num_args", "2")], &[&[2, 3], &[]], &[&[2, 7]]).unwrap();
        assert_eq!(ins[1], [2, 4]);
        // Two unknowns: only the common dimensions are filled in.
        let (ins, outs) =
            infer_both("Concat", &[("num_args", "3")], &[&[2, 3], &[], &[]], &[]).unwrap();
        assert_eq!(
            (ins[2].as_slice(), outs[0].as_slice()),
            (&[2, 0][..], &[2, 0][..])
        );
    }

    #[test]
    fn mismatches_are_errors() {
        let ins: [&[usize]; 2] = [&[2, 3], &[3, 3]];
        assert_eq!(
            message(infer("Concat", &[("num_args", "2")], &ins)),
            "In(1) has shape (3, ?) but (2, ?) is required"
        );
        assert_eq!(
            message(infer("Concat", &[("num_args", "2"), ("dim", "2")], &ins)),
            "Concat: dim=2 is out of range for input (2, 3)"
        );
        let r = infer_both("Concat", &[("num_args", "2")], &[&[2, 3], &[]], &[&[2, 3]]);
        assert_eq!(
            message(r),
            "Concat: output (2, 3) is too short along dim 1 for inputs that already span 3"
        );
    }

    #[test]
    fn gradients_match_finite_differences() {
        let ins = [randn(&[3, 1], 1), randn(&[3, 7], 2), randn(&[3, 3], 3)];
        check_grad("Concat", &[("num_args", "3")], &ins, false, &[]);
        check_grad(
            "concat",
            &[("num_args", "3"), ("dim", "-1")],
            &ins,
            false,
            &[],
        );
        let ins = [randn(&[1, 2], 4), randn(&[3, 2], 5), randn(&[7, 2], 6)];
        check_grad(
            "Concat",
            &[("num_args", "3"), ("dim", "-2")],
            &ins,
            false,
            &[],
        );
        let ins = [randn(&[2, 1, 3], 7), randn(&[2, 1, 3], 8)];
        check_grad(
            "Concat",
            &[("num_args", "2"), ("dim", "2")],
            &ins,
            false,
            &[],
        );
        let kv = [("num_args", "1"), ("dim", "0")];
        check_grad("Concat", &kv, &[randn(&[3, 7], 9)], false, &[]);
    }

    #[test]
    fn backward_concat_cuts_ograd_per_input() {
        // ograd [[0..5], [6..11]] of a concatenation of (2, 1), (2, 3), (2, 2) along dim 1.
        let kv = [("num_args", "3"), ("dim", "-1")];
        let args = [iota(&[2, 6]), iota(&[2, 1]), iota(&[2, 3]), iota(&[2, 2])];
        let out = run("_backward_Concat", &kv, &args, false).unwrap();
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].data, [0.0, 6.0]);
        assert_eq!(out[1].data, [1.0, 2.0, 3.0, 7.0, 8.0, 9.0]);
        assert_eq!(
            (out[2].shape.as_slice(), out[2].data.as_slice()),
            (&[2, 2][..], &[4.0, 5.0, 10.0, 11.0][..])
        );
        let kv = [("num_args", "2"), ("dim", "0")];
        assert_eq!(
            infer_err("_backward_Concat", &kv, &[&[4, 3], &[1, 3], &[2, 3]]),
            "input `ograd` has shape (4, 3) but (3, 3) is required"
        );
        assert_eq!(
            infer_err("_backward_Concat", &kv, &[&[3, 3], &[1, 3], &[2, 4]]),
            "input `arg1` has shape (?, 4) but (?, 3) is required"
        );
        // The outputs give the inputs' shapes back.
        let (ins, _) = infer_both(
            "_backward_Concat",
            &kv,
            &[&[3, 3], &[], &[]],
            &[&[1, 3], &[2, 3]],
        )
        .unwrap();
        assert_eq!(ins[1..], [vec![1, 3], vec![2, 3]]);
    }
}
