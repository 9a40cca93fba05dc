//! SequenceMask, SequenceLast and SequenceReverse over the time axis of (T, B, ...) data
//! (`axis` 0) or (B, T, ...) data (`axis` 1; SequenceReverse takes axis 0 only, as MXNet),
//! with optional per-sequence lengths (input `sequence_length`, shape (B,), any dtype,
//! present when use_sequence_length).
//!
//! As MXNet: lengths are truncated toward zero; data must have rank ≥ 2; without lengths
//! every sequence has length T. MXNet reads outside the data for lengths beyond [0, T] in
//! SequenceLast and SequenceReverse; kiln clamps them (SequenceLast of a length ≤ 0 picks
//! step 0). Gradients: SequenceMask's is SequenceMask of the head gradient with value 0,
//! SequenceReverse's is SequenceReverse of it, SequenceLast's is `_backward_SequenceLast`
//! (the head gradient scattered back to the picked steps); lengths get none.

use super::common::{elems, rank_error, strings, Through};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{invalid, same_dtype, same_shape, set_in, set_out, OpError, Shape};
use crate::{
    Attrs, Compute, DType, Grad, GradCtx, GradFn, GradGraph, Handle, Inputs, KernelCtx, OpDef,
    Outputs, Pattern, RefKernel, Registry, ShapeFn, Tensor,
};

const USE_LENGTH: ParamDef = param(
    "use_sequence_length",
    ParamType::Bool,
    Some("False"),
    "take a `sequence_length` input (B,); otherwise every sequence has length T",
);
const AXIS: ParamDef = param(
    "axis",
    ParamType::Int,
    Some("0"),
    "the time axis: 0 for (T, B, ...), 1 for (B, T, ...)",
);

const MASK_PARAMS: &[ParamDef] = &[
    USE_LENGTH,
    param(
        "value",
        ParamType::Float,
        Some("0.0"),
        "written at the masked steps",
    ),
    AXIS,
];
const LAST_PARAMS: &[ParamDef] = &[USE_LENGTH, AXIS];
const REVERSE_PARAMS: &[ParamDef] = &[
    USE_LENGTH,
    param(
        "axis",
        ParamType::Int,
        Some("0"),
        "the time axis (only 0 is supported, as MXNet)",
    ),
];

const fn sequence_op(
    name: &'static str,
    aliases: &'static [&'static str],
    doc: &'static str,
    params: &'static [ParamDef],
    infer_shape: ShapeFn,
    grad: GradFn,
    reference: RefKernel,
) -> OpDef {
    OpDef {
        aliases,
        doc,
        params,
        inputs: Inputs::Dynamic(sequence_inputs),
        infer_shape,
        infer_dtype: sequence_dtype,
        inplace: &[],
        cost: |_, ins, _| elems(&ins[0]),
        dtypes: &DType::NUMERIC,
        grad: Grad::Rule(grad),
        ..OpDef::new(
            name,
            Pattern::Opaque,
            Compute::Library {
                kernel: "sequence",
                reference,
            },
        )
    }
}

static SEQUENCE_MASK: OpDef = sequence_op(
    "SequenceMask",
    &["_npx_sequence_mask"],
    "Sets every step t ≥ length of each sequence to `value`; the identity without \
     use_sequence_length.",
    MASK_PARAMS,
    |a, ins, outs| sequence_shape(Kind::Mask, a, ins, outs),
    mask_grad,
    |ctx, ins| Ok(vec![sequence(ctx, ins, Kind::Mask)?]),
);
static SEQUENCE_LAST: OpDef = sequence_op(
    "SequenceLast",
    &[],
    "The last step of each sequence (step length − 1; T − 1 without use_sequence_length): \
     data's shape without the time axis.",
    LAST_PARAMS,
    |a, ins, outs| sequence_shape(Kind::Last, a, ins, outs),
    last_grad,
    |ctx, ins| Ok(vec![sequence(ctx, ins, Kind::Last)?]),
);
static SEQUENCE_REVERSE: OpDef = sequence_op(
    "SequenceReverse",
    &[],
    "Reverses the first length steps of each sequence, leaving the rest in place; reverses \
     all T steps without use_sequence_length.",
    REVERSE_PARAMS,
    |a, ins, outs| sequence_shape(Kind::Reverse, a, ins, outs),
    reverse_grad,
    |ctx, ins| Ok(vec![sequence(ctx, ins, Kind::Reverse)?]),
);

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Mask,
    Last,
    Reverse,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Mask => "SequenceMask",
            Kind::Last => "SequenceLast",
            Kind::Reverse => "SequenceReverse",
        }
    }
}

fn sequence_inputs(a: &Attrs) -> Vec<String> {
    if a.bool("use_sequence_length") {
        strings(&["data", "sequence_length"])
    } else {
        strings(&["data"])
    }
}

/// The time axis (0 or 1), checked against the data's rank.
fn time_axis(kind: Kind, a: &Attrs, data: &[usize]) -> Result<usize, OpError> {
    let op = kind.name();
    if data.len() < 2 {
        return rank_error(op, "data", "at least 2-D (time and batch axes)", data);
    }
    match a.int("axis") {
        0 => Ok(0),
        1 if kind != Kind::Reverse => Ok(1),
        ax => invalid(format!(
            "{op}: axis={ax} is not supported (the time axis must be 0{})",
            if kind == Kind::Reverse { "" } else { " or 1" }
        )),
    }
}

/// Output: data's shape (SequenceLast: without the time axis); lengths: (B,).
fn sequence_shape(
    kind: Kind,
    a: &Attrs,
    ins: &mut [Shape],
    outs: &mut [Shape],
) -> Result<(), OpError> {
    let last = kind == Kind::Last;
    if !last {
        same_shape(a, &mut ins[..1], outs)?;
    }
    if ins[0].is_empty() {
        return Ok(());
    }
    let d = ins[0].clone();
    let ax = time_axis(kind, a, &d)?;
    if ins.len() > 1 {
        set_in(ins, 1, &[d[1 - ax]])?;
    }
    if last {
        let mut o = d;
        o.remove(ax);
        set_out(outs, 0, &o)?;
    }
    Ok(())
}

/// Data and output share a dtype; lengths may have any (the data's when unknown).
fn sequence_dtype(
    a: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    same_dtype(a, &mut ins[..1], outs)?;
    if let (Some(d), [_, l]) = (ins[0], &mut *ins) {
        l.get_or_insert(d);
    }
    Ok(())
}

/// (T, B, inner) and the linear index of (t, b, r).
struct View {
    t: usize,
    b: usize,
    inner: usize,
    axis: usize,
}

impl View {
    fn new(kind: Kind, a: &Attrs, shape: &[usize]) -> Result<View, OpError> {
        let axis = time_axis(kind, a, shape)?;
        Ok(View {
            t: shape[axis],
            b: shape[1 - axis],
            inner: shape[2..].iter().product(),
            axis,
        })
    }
    fn at(&self, t: usize, b: usize, r: usize) -> usize {
        let row = if self.axis == 0 {
            t * self.b + b
        } else {
            b * self.t + t
        };
        row * self.inner + r
    }
    /// Each sequence's length, truncated and clamped to [0, T].
    fn lengths(&self, lengths: Option<&&Tensor>) -> Vec<usize> {
        (0..self.b)
            .map(|b| match lengths {
                Some(l) => (l.data[b].trunc().max(0.0) as usize).min(self.t),
                None => self.t,
            })
            .collect()
    }
}

fn sequence(ctx: &KernelCtx, ins: &[&Tensor], kind: Kind) -> Result<Tensor, OpError> {
    let x = ins[0];
    let v = View::new(kind, ctx.attrs, &x.shape)?;
    let lengths = v.lengths(ins.get(1));
    let mut out = Tensor::zeros(x.dtype, ctx.out_shapes[0].clone());
    for (b, &len) in lengths.iter().enumerate() {
        for r in 0..v.inner {
            match kind {
                Kind::Last => {
                    let t = len.max(1) - 1;
                    out.data[b * v.inner + r] = x.data[v.at(t, b, r)];
                }
                Kind::Mask => {
                    let value = ctx.attrs.float("value");
                    for t in 0..v.t {
                        let i = v.at(t, b, r);
                        out.data[i] = if t < len { x.data[i] } else { value };
                    }
                }
                Kind::Reverse => {
                    for t in 0..v.t {
                        let src = if t < len { len - 1 - t } else { t };
                        out.data[v.at(t, b, r)] = x.data[v.at(src, b, r)];
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The head gradient through the operator itself (`overrides` replacing attributes):
/// masking and reversing are their own gradients.
fn self_grad(
    g: &mut dyn GradGraph,
    ctx: &GradCtx,
    op: &str,
    overrides: &[(&str, &str)],
) -> Result<Vec<Option<Handle>>, OpError> {
    let kv: Vec<(&str, &str)> = ctx
        .raw_attrs
        .iter()
        .filter(|(k, _)| !overrides.iter().any(|(o, _)| o == k))
        .chain(overrides)
        .copied()
        .collect();
    let mut args = vec![ctx.out_grads[0]];
    args.extend_from_slice(&ctx.inputs[1..]);
    let dx = g.op(op, &args, &kv)?[0];
    Ok(std::iter::once(Some(dx))
        .chain(ctx.inputs[1..].iter().map(|_| None))
        .collect())
}

fn mask_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    if !ctx.attrs.bool("use_sequence_length") {
        return Ok(vec![Some(ctx.out_grads[0])]);
    }
    self_grad(g, ctx, "SequenceMask", &[("value", "0")])
}

fn reverse_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    self_grad(g, ctx, "SequenceReverse", &[])
}

fn last_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let mut args = vec![ctx.out_grads[0]];
    args.extend_from_slice(ctx.inputs);
    let dx = g.op("_backward_SequenceLast", &args, ctx.raw_attrs)?[0];
    Ok(std::iter::once(Some(dx))
        .chain(ctx.inputs[1..].iter().map(|_| None))
        .collect())
}

static SEQUENCE_LAST_BACKWARD: OpDef = OpDef {
    doc: "Gradient of SequenceLast from ograd, data (for its shape) and the lengths: ograd \
          at each sequence's picked step, zero elsewhere. Takes the forward's parameters.",
    params: LAST_PARAMS,
    inputs: Inputs::Dynamic(last_backward_inputs),
    outputs: Outputs::Fixed {
        names: &["data_grad"],
        visible: 1,
    },
    infer_shape: |a, ins, outs| {
        let inputs = [Some(1), Some(2)];
        let through = Through {
            inputs: &inputs[..ins.len().saturating_sub(1).min(2)],
            outputs: &[&[0]],
            grads: &[0],
        };
        through.shapes(SEQUENCE_LAST.infer_shape, a, ins, outs)
    },
    infer_dtype: |a, ins, outs| {
        same_dtype(a, &mut ins[..2], outs)?;
        if let (Some(d), [_, _, l]) = (ins[0], &mut *ins) {
            l.get_or_insert(d);
        }
        Ok(())
    },
    inplace: &[],
    cost: |_, ins, _| ins.get(1).map_or(0, |d| elems(d)),
    dtypes: &DType::NUMERIC,
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_SequenceLast",
        Pattern::Opaque,
        Compute::Library {
            kernel: "sequence_last_backward",
            reference: last_backward_ref,
        },
    )
};

fn last_backward_inputs(a: &Attrs) -> Vec<String> {
    std::iter::once("ograd".to_string())
        .chain(sequence_inputs(a))
        .collect()
}

fn last_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (og, x) = (ins[0], ins[1]);
    let v = View::new(Kind::Last, ctx.attrs, &x.shape)?;
    let mut dx = Tensor::zeros(og.dtype, x.shape.clone());
    for (b, &len) in v.lengths(ins.get(2)).iter().enumerate() {
        for r in 0..v.inner {
            dx.data[v.at(len.max(1) - 1, b, r)] += og.data[b * v.inner + r];
        }
    }
    Ok(vec![dx])
}

pub fn register(r: &mut Registry) {
    for op in [
        &SEQUENCE_MASK,
        &SEQUENCE_LAST,
        &SEQUENCE_REVERSE,
        &SEQUENCE_LAST_BACKWARD,
    ] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::Tensor;

    fn with_len(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
        let mut kv = vec![("use_sequence_length", "True")];
        kv.extend_from_slice(extra);
        kv
    }

    /// 1..=12 as (T=4, B=3, 1).
    fn data() -> Tensor {
        t(&[4, 3, 1], (1..=12).map(f64::from).collect())
    }

    /// The (B, T) view of a (T, B, 1) result, as rows per sequence.
    fn by_sequence(x: &Tensor) -> Vec<Vec<f64>> {
        let (tt, b) = (x.shape[0], x.shape[1]);
        (0..b)
            .map(|j| (0..tt).map(|i| x.data[i * b + j]).collect())
            .collect()
    }

    #[test]
    fn shapes_inputs_and_errors() {
        let (ins, outs) = infer("SequenceMask", &with_len(&[]), &[&[5, 2, 3]]).unwrap();
        assert_eq!((ins[1].clone(), outs[0].clone()), (vec![2], vec![5, 2, 3]));
        let (ins, outs) =
            infer("SequenceLast", &with_len(&[("axis", "1")]), &[&[5, 2, 3]]).unwrap();
        assert_eq!((ins[1].clone(), outs[0].clone()), (vec![5], vec![5, 3]));
        let (ins, outs) = infer("SequenceReverse", &[], &[&[5, 2]]).unwrap();
        assert_eq!((ins.len(), outs[0].clone()), (1, vec![5, 2]));
        assert_eq!(
            infer_err("SequenceReverse", &[("axis", "1")], &[&[5, 2]]),
            "SequenceReverse: axis=1 is not supported (the time axis must be 0)"
        );
        assert_eq!(
            infer_err("SequenceMask", &[("axis", "2")], &[&[5, 2, 2]]),
            "SequenceMask: axis=2 is not supported (the time axis must be 0 or 1)"
        );
        assert_eq!(
            infer_err("SequenceLast", &[], &[&[5]]),
            "SequenceLast: `data` must be at least 2-D (time and batch axes), got shape \
             (5,)"
        );
        assert_eq!(
            infer_err("SequenceMask", &with_len(&[]), &[&[5, 2], &[3]]),
            "input `sequence_length` has shape (3,) but (2,) is required"
        );
        assert_eq!(op("_npx_sequence_mask").name, "SequenceMask");
    }

    #[test]
    fn mask_last_reverse_by_hand() {
        // Lengths 2.5 → 2, 0, 4.
        let lens = t(&[3], vec![2.5, 0., 4.]);
        let kv = with_len(&[("value", "-1")]);
        let out = run("SequenceMask", &kv, &[&data(), &lens], false).unwrap();
        assert_eq!(
            by_sequence(&out[0]),
            vec![vec![1., 4., -1., -1.], vec![-1.; 4], vec![3., 6., 9., 12.]]
        );
        let out = run("SequenceReverse", &with_len(&[]), &[&data(), &lens], false).unwrap();
        assert_eq!(
            by_sequence(&out[0]),
            vec![
                vec![4., 1., 7., 10.],
                vec![2., 5., 8., 11.],
                vec![12., 9., 6., 3.]
            ]
        );
        // Length 0 picks step 0 (MXNet reads before the data); 9 is clamped to T.
        let lens = t(&[3], vec![2., 0., 9.]);
        let out = run("SequenceLast", &with_len(&[]), &[&data(), &lens], false).unwrap();
        assert_eq!(out[0].data, vec![4., 2., 12.]);
        // Without lengths: all T steps.
        let out = run("SequenceLast", &[], &[data()], false).unwrap();
        assert_eq!(out[0].data, vec![10., 11., 12.]);
        let out = run("SequenceReverse", &[], &[data()], false).unwrap();
        assert_eq!(out[0].data[..3], [10., 11., 12.]);
        let out = run("SequenceMask", &[("value", "7")], &[data()], false).unwrap();
        assert_eq!(out[0], data());
    }

    #[test]
    fn batch_major_axis() {
        // (B=3, T=4): rows are sequences.
        let x = t(&[3, 4], (1..=12).map(f64::from).collect());
        let lens = t(&[3], vec![1., 2., 3.]);
        let kv = with_len(&[("axis", "1")]);
        let out = run("SequenceMask", &kv, &[&x, &lens], false).unwrap();
        assert_eq!(
            out[0].data,
            vec![1., 0., 0., 0., 5., 6., 0., 0., 9., 10., 11., 0.]
        );
        let out = run("SequenceLast", &kv, &[&x, &lens], false).unwrap();
        assert_eq!(out[0].data, vec![1., 6., 11.]);
    }

    #[test]
    fn gradients_match_finite_differences() {
        let lens = t(&[3], vec![2., 0., 4.]);
        for name in ["SequenceMask", "SequenceLast", "SequenceReverse"] {
            let ins = [randn(&[4, 3, 2], 1), lens.clone()];
            check_grad(name, &with_len(&[]), &ins, false, &[1]);
            check_grad(name, &[], &[randn(&[3, 1], 2)], false, &[]);
            let g = analytic_grad(name, &with_len(&[]), &ins, &[], false).unwrap();
            assert!(g[1].is_none(), "{name}: lengths get no gradient");
        }
        let kv = with_len(&[("axis", "1"), ("value", "3")]);
        let ins = [randn(&[3, 7, 1], 3), t(&[3], vec![7., 1., 5.5])];
        check_grad("SequenceMask", &kv, &ins, false, &[1]);
        check_grad(
            "SequenceLast",
            &with_len(&[("axis", "1")]),
            &ins,
            false,
            &[1],
        );
    }
}
