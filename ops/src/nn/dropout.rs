//! Dropout: zeroes elements with probability p and scales the rest by 1/(1−p), in
//! training (or always, with mode=always); the identity otherwise.
//!
//! The gradient multiplies the head gradient by the forward's own mask (its hidden output),
//! as MXNet: no random number is drawn again, and an inactive dropout's mask of ones makes
//! it the identity.

use super::common::{axis_of, elems};
use crate::param::{param, ParamType};
use crate::random;
use crate::shape::{invalid, same_shape, set_out, OpError, Shape};
use crate::tensor::{for_each_index, strides};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradGraph, Handle, Identity, KernelCtx, OpDef, Outputs, Pattern,
    Registry, Resource, Tensor,
};

const OP: &str = "Dropout";

static DROPOUT: OpDef = OpDef {
    aliases: &["_npx_dropout"],
    doc: "Dropout. When active (training, or mode=always) each mask value is 1/(1−p) with \
          probability 1−p and 0 otherwise (kept iff the element's Philox uniform u < 1−p); \
          `axes` lists dimensions that share one mask value (the mask has size 1 there). \
          output = data·mask. Inactive: the identity, with a mask of ones. The mask is a \
          hidden output.",
    params: &[
        param(
            "p",
            ParamType::Float,
            Some("0.5"),
            "fraction of the input that gets dropped",
        ),
        param(
            "mode",
            ParamType::Enum(&["always", "training"]),
            Some("training"),
            "when dropout is applied",
        ),
        param(
            "axes",
            ParamType::Shape,
            Some("()"),
            "axes sharing one mask value",
        ),
        param(
            "cudnn_off",
            ParamType::OptBool,
            Some("False"),
            "turn off cuDNN (ignored)",
        ),
    ],
    outputs: Outputs::Fixed {
        names: &["output", "mask"],
        visible: 1,
    },
    infer_shape: dropout_shape,
    resources: &[Resource::Random],
    side_effect: true,
    cost: |_, ins, _| elems(&ins[0]),
    grad: Grad::Rule(dropout_grad),
    identity: Identity::InInference(|a| a.str("mode") == "training"),
    ..OpDef::new(
        OP,
        Pattern::Opaque,
        Compute::Library {
            kernel: "dropout",
            reference: dropout_ref,
        },
    )
};

fn keep_probability(a: &Attrs) -> Result<f64, OpError> {
    let p = a.float("p");
    if !(0.0..=1.0).contains(&p) {
        return invalid(format!("{OP}: `p` must be in [0, 1], got {p}"));
    }
    Ok(1.0 - p)
}

/// The data's shape with the shared axes set to 1.
fn mask_shape(a: &Attrs, data: &[usize]) -> Result<Shape, OpError> {
    let mut m = data.to_vec();
    for &ax in a.shape("axes") {
        m[axis_of(OP, "axes", ax, data)?] = 1;
    }
    Ok(m)
}

fn dropout_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    keep_probability(a)?;
    same_shape(a, ins, &mut outs[..1])?;
    if ins[0].is_empty() {
        return Ok(());
    }
    let m = mask_shape(a, &ins[0])?;
    set_out(outs, 1, &m)
}

fn dropout_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let x = ins[0];
    let keep = keep_probability(a)?;
    let mshape = mask_shape(a, &x.shape)?;
    let active = ctx.is_train || a.str("mode") == "always";
    let n: usize = mshape.iter().product();
    let mask: Vec<f64> = (0..n as u64)
        .map(|i| match active {
            false => 1.0,
            // keep = 0 drops everything (no 0·∞).
            true if keep > 0.0 && random::uniform(ctx.rng_key, 0, i) < keep => 1.0 / keep,
            true => 0.0,
        })
        .collect();
    // Broadcast the mask: a shared axis always reads mask coordinate 0.
    let mstrides: Vec<usize> = strides(&mshape)
        .iter()
        .zip(&mshape)
        .map(|(&s, &d)| if d == 1 { 0 } else { s })
        .collect();
    let mut out = Vec::with_capacity(x.len());
    let mut pos = 0;
    for_each_index(&x.shape, |idx| {
        let m: usize = idx.iter().zip(&mstrides).map(|(i, s)| i * s).sum();
        out.push(x.data[pos] * mask[m]);
        pos += 1;
    });
    Ok(vec![
        Tensor {
            data: out,
            ..x.clone()
        },
        Tensor {
            dtype: x.dtype,
            shape: mshape,
            data: mask,
        },
    ])
}

/// `ograd · mask`; a mask shared along `axes` broadcasts.
fn dropout_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let op = if ctx.attrs.shape("axes").is_empty() {
        "elemwise_mul"
    } else {
        "broadcast_mul"
    };
    Ok(vec![Some(
        g.op(op, &[ctx.out_grads[0], ctx.outputs[1]], &[])?[0],
    )])
}

pub fn register(r: &mut Registry) {
    r.add(&DROPOUT);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;

    const DROPOUT: &str = "Dropout";

    #[test]
    fn only_training_mode_dropout_is_the_identity_in_inference() {
        let d = op(DROPOUT);
        let crate::Identity::InInference(when) = d.identity else {
            panic!("Dropout is the identity in inference");
        };
        assert!(when(&attrs(d, &[])));
        assert!(!when(&attrs(d, &[("mode", "always")])));
    }

    #[test]
    fn mask_shape_and_errors() {
        let (_, outs) = infer(DROPOUT, &[], &[&[2, 3, 4]]).unwrap();
        assert_eq!(outs, vec![vec![2, 3, 4], vec![2, 3, 4]]);
        let (_, outs) = infer(DROPOUT, &[("axes", "(1, 2)")], &[&[2, 3, 4]]).unwrap();
        assert_eq!(outs[1], vec![2, 1, 1]);
        assert_eq!(
            infer_err(DROPOUT, &[("p", "1.5")], &[&[2]]),
            "Dropout: `p` must be in [0, 1], got 1.5"
        );
        assert_eq!(
            infer_err(DROPOUT, &[("axes", "(3,)")], &[&[2, 3]]),
            "Dropout: axes=3 is out of range for data (2, 3)"
        );
        let o = op(DROPOUT);
        assert!(o.side_effect);
        assert_eq!(o.output_names(&attrs(o, &[])).1, 1);
    }

    #[test]
    fn identity_at_inference() {
        let x = ramp(&[3, 4]);
        let out = run(DROPOUT, &[("p", "0.7")], &[&x], false).unwrap();
        assert_eq!(out[0].data, x.data);
        assert_eq!(out[1].data, vec![1.0; 12]);
    }

    #[test]
    fn training_drops_and_rescales() {
        let n = 4000;
        let x = t(&[n], (0..n).map(|i| i as f64).collect());
        let out = run(DROPOUT, &[("p", "0.25")], &[&x], true).unwrap();
        let (y, mask) = (&out[0].data, &out[1].data);
        let scale = 1.0 / 0.75;
        assert!(mask.iter().all(|&m| m == 0.0 || m == scale));
        for i in 0..n {
            assert_eq!(y[i], x.data[i] * mask[i]);
        }
        let kept = mask.iter().filter(|&&m| m != 0.0).count() as f64 / n as f64;
        assert!((kept - 0.75).abs() < 0.03, "kept {kept}");
        // The same key gives the same mask; mode=always applies it at inference too.
        let again = run(DROPOUT, &[("p", "0.25"), ("mode", "always")], &[x], false).unwrap();
        assert_eq!(again[1].data, *mask);
    }

    #[test]
    fn shared_axes_and_extreme_p() {
        let x = t(&[40, 5], vec![1.0; 200]);
        let out = run(DROPOUT, &[("axes", "(1,)")], &[&x], true).unwrap();
        assert_eq!(out[1].shape, vec![40, 1]);
        for row in out[0].data.chunks(5) {
            assert!(row.iter().all(|&v| v == row[0]) && (row[0] == 0.0 || row[0] == 2.0));
        }
        let out = run(DROPOUT, &[("p", "0")], &[&x], true).unwrap();
        assert_eq!(out[0].data, x.data);
        let out = run(DROPOUT, &[("p", "1")], &[x], true).unwrap();
        assert!(out[0].data.iter().all(|&v| v == 0.0));
    }

    #[test]
    fn gradients_reuse_the_mask() {
        // The mask is fixed by the generator key, so finite differences see the same one.
        let x = || randn(&[3, 7], 1);
        check_grad(DROPOUT, &[("p", "0.3")], &[x()], true, &[]);
        check_grad(
            DROPOUT,
            &[("p", "0.3"), ("axes", "(0,)")],
            &[x()],
            true,
            &[],
        );
        check_grad(
            DROPOUT,
            &[("axes", "(0, 2)")],
            &[randn(&[2, 3, 5], 2)],
            true,
            &[],
        );
        check_grad(DROPOUT, &[("mode", "always")], &[x()], false, &[]);
        // Inactive: the identity.
        check_grad(DROPOUT, &[("p", "0.3")], &[x()], false, &[]);
        let head = randn(&[3, 7], 3);
        let g = analytic_grad(
            DROPOUT,
            &[("p", "0.3")],
            &[x()],
            std::slice::from_ref(&head),
            false,
        )
        .unwrap();
        assert_eq!(g[0].as_ref().unwrap().data, head.data);
        // Active: exactly ograd · mask, zeros where dropped.
        let outs = run(DROPOUT, &[("p", "0.3")], &[x()], true).unwrap();
        let g = analytic_grad(
            DROPOUT,
            &[("p", "0.3")],
            &[x()],
            std::slice::from_ref(&head),
            true,
        )
        .unwrap();
        let want: Vec<f64> = head
            .data
            .iter()
            .zip(&outs[1].data)
            .map(|(h, m)| h * m)
            .collect();
        assert_eq!(g[0].as_ref().unwrap().data, want);
        assert!(want.contains(&0.0));
    }
}
