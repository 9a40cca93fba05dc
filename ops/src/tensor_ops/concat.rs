//! Concat: joins its inputs along one axis.

use super::axis_of;
use crate::elemwise::numbered_args;
use crate::param::{param, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, unify, OpError, Shape, Slot};
use crate::{Attrs, Compute, DType, IndexExpr, IndexMap, Inputs, OpDef, Pattern, Piece, Registry};

static CONCAT: OpDef = OpDef {
    aliases: &["concat"],
    doc: "Joins the inputs arg0, arg1, ... along axis `dim`; every other dimension must agree.",
    params: &[
        param("num_args", ParamType::Int, None, "number of inputs"),
        param(
            "dim",
            ParamType::Int,
            Some("1"),
            "the axis to join along (negative counts from the end)",
        ),
    ],
    inputs: Inputs::Dynamic(numbered_args),
    num_args_param: Some("num_args"),
    infer_shape: concat_shape,
    inplace: &[],
    dtypes: &DType::ALL,
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

pub fn register(r: &mut Registry) {
    r.add(&CONCAT);
}

#[cfg(test)]
mod tests {
    use crate::testutil::{infer, infer_both, message, run, tensor};

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
}
