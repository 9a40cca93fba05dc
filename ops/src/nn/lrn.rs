//! LRN: local response normalization across channels (AlexNet). Its gradient is the
//! backward operator `_backward_LRN` (as MXNet), which reuses the forward's hidden
//! normalizer.

use super::common::{all_grads, elems, flops, positive, rank_error, Through};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{same_shape, OpError, Shape};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs, Pattern,
    Registry, Tensor,
};

const OP: &str = "LRN";

const LRN_PARAMS: &[ParamDef] = &[
    param(
        "alpha",
        ParamType::Float,
        Some("0.0001"),
        "scale of the sum of squares",
    ),
    param(
        "beta",
        ParamType::Float,
        Some("0.75"),
        "exponent of the normalizer",
    ),
    param("knorm", ParamType::Float, Some("2.0"), "additive constant"),
    param(
        "nsize",
        ParamType::Int,
        None,
        "channels in the window (odd in practice)",
    ),
];

static LRN: OpDef = OpDef {
    doc: "Local response normalization across channels of NCHW data: \
          `tmp_norm_c = knorm + alpha/nsize · Σ_{|j−c| ≤ nsize/2} x_j²`, \
          `out_c = x_c · tmp_norm_c^(−beta)`; the window is clipped at the first and last \
          channel, and tmp_norm is a hidden output.",
    params: LRN_PARAMS,
    outputs: Outputs::Fixed {
        names: &["output", "tmp_norm"],
        visible: 1,
    },
    infer_shape: lrn_shape,
    inplace: &[],
    cost: lrn_cost,
    grad: Grad::Rule(lrn_grad),
    ..OpDef::new(
        OP,
        Pattern::Opaque,
        Compute::Library {
            kernel: "lrn",
            reference: lrn_ref,
        },
    )
};

fn lrn_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    positive(a, OP, "nsize")?;
    same_shape(a, ins, outs)?;
    if !ins[0].is_empty() && ins[0].len() != 4 {
        return rank_error(OP, "data", "4-D (batch, channel, y, x)", &ins[0]);
    }
    Ok(())
}

fn lrn_cost(a: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    let window = (a.int("nsize").max(1) as u64).saturating_mul(2);
    flops(&[elems(&ins[0]), window.saturating_add(3)])
}

fn lrn_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let x = ins[0];
    let nsize = positive(a, OP, "nsize")?;
    let half = nsize / 2;
    let salpha = a.float("alpha") / nsize as f64;
    let (knorm, beta) = (a.float("knorm"), a.float("beta"));
    let (n, c) = (x.shape[0], x.shape[1]);
    let inner: usize = x.shape[2..].iter().product();
    let mut norm = x.clone();
    let mut out = x.clone();
    for b in 0..n {
        for ch in 0..c {
            let window = ch.saturating_sub(half)..(ch + half + 1).min(c);
            for p in 0..inner {
                let at = |j: usize| (b * c + j) * inner + p;
                let sq: f64 = window.clone().map(|j| x.data[at(j)].powi(2)).sum();
                let i = at(ch);
                norm.data[i] = knorm + salpha * sq;
                out.data[i] = x.data[i] * norm.data[i].powf(-beta);
            }
        }
    }
    Ok(vec![out, norm])
}

fn lrn_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let args = [ctx.out_grads[0], ctx.inputs[0], ctx.outputs[1]];
    all_grads(g, ctx, "_backward_LRN", &args)
}

static LRN_BACKWARD: OpDef = OpDef {
    doc: "Gradient of LRN, from ograd, data and the forward's hidden tmp_norm N: \
          `dx_i = g_i·N_i^(−beta) − 2·beta·alpha/nsize·x_i·Σ_{c: |c−i| ≤ nsize/2} g_c·x_c·N_c^(−beta−1)`. \
          Takes the forward's parameters.",
    params: LRN_PARAMS,
    inputs: Inputs::Fixed(&["ograd", "data", "tmp_norm"]),
    outputs: Outputs::Fixed {
        names: &["data_grad"],
        visible: 1,
    },
    infer_shape: |a, ins, outs| {
        let through = Through {
            inputs: &[Some(1)],
            outputs: &[&[0], &[2]],
            grads: &[0],
        };
        through.shapes(lrn_shape, a, ins, outs)
    },
    inplace: &[],
    cost: |a, ins, outs| lrn_cost(a, ins, outs).saturating_mul(2),
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_LRN",
        Pattern::Opaque,
        Compute::Library {
            kernel: "lrn_backward",
            reference: lrn_backward_ref,
        },
    )
};

fn lrn_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let (og, x, norm) = (ins[0], ins[1], ins[2]);
    let nsize = positive(a, OP, "nsize")?;
    let half = nsize / 2;
    let salpha = a.float("alpha") / nsize as f64;
    let beta = a.float("beta");
    let (n, c) = (x.shape[0], x.shape[1]);
    let inner: usize = x.shape[2..].iter().product();
    let mut dx = x.clone();
    for b in 0..n {
        for p in 0..inner {
            let at = |j: usize| (b * c + j) * inner + p;
            // g_c·x_c·N_c^(−beta−1) of every channel of this pixel.
            let through_norm: Vec<f64> = (0..c)
                .map(|j| og.data[at(j)] * x.data[at(j)] * norm.data[at(j)].powf(-beta - 1.0))
                .collect();
            for ch in 0..c {
                // The windows are symmetric: channel ch is in c's window iff c is in ch's.
                let window = ch.saturating_sub(half)..(ch + half + 1).min(c);
                let i = at(ch);
                let cross: f64 = through_norm[window].iter().sum();
                dx.data[i] =
                    og.data[i] * norm.data[i].powf(-beta) - 2.0 * beta * salpha * x.data[i] * cross;
            }
        }
    }
    Ok(vec![dx])
}

pub fn register(r: &mut Registry) {
    r.add(&LRN);
    r.add(&LRN_BACKWARD);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;

    #[test]
    fn shapes_and_errors() {
        let (_, outs) = infer("LRN", &[("nsize", "5")], &[&[2, 8, 3, 3]]).unwrap();
        assert_eq!(outs, vec![vec![2, 8, 3, 3]; 2]);
        assert_eq!(
            infer_err("LRN", &[("nsize", "5")], &[&[2, 8]]),
            "LRN: `data` must be 4-D (batch, channel, y, x), got shape (2, 8)"
        );
        assert_eq!(
            infer_err("LRN", &[("nsize", "0")], &[&[2, 8, 1, 1]]),
            "LRN: `nsize` must be positive, got 0"
        );
    }

    #[test]
    fn normalizes_across_a_clipped_channel_window() {
        // alpha/nsize = 1, beta = 1, knorm = 1: norms 1+1+4, 1+1+4+9, 1+4+9.
        let x = t(&[1, 3, 1, 1], vec![1., 2., 3.]);
        let kv = [
            ("nsize", "3"),
            ("alpha", "3"),
            ("beta", "1"),
            ("knorm", "1"),
        ];
        let out = run("LRN", &kv, &[&x], false).unwrap();
        assert_close(&out[1].data, &[6., 15., 14.], 1e-15);
        assert_close(&out[0].data, &[1. / 6., 2. / 15., 3. / 14.], 1e-15);
        // Defaults (alpha 1e-4, beta 0.75, knorm 2) with a window of one channel.
        let out = run("LRN", &[("nsize", "1")], &[x], false).unwrap();
        let want: Vec<f64> = [1f64, 2., 3.]
            .iter()
            .map(|v| v * (2.0 + 1e-4 * v * v).powf(-0.75))
            .collect();
        assert_close(&out[0].data, &want, 1e-15);
    }

    #[test]
    fn windows_stay_within_one_pixel() {
        // Two pixels: the sum of squares never mixes spatial positions or batch items.
        let x = t(&[2, 2, 1, 2], vec![1., 10., 2., 20., 3., 30., 4., 40.]);
        let kv = [
            ("nsize", "3"),
            ("alpha", "3"),
            ("beta", "1"),
            ("knorm", "0"),
        ];
        let out = run("LRN", &kv, &[x], false).unwrap();
        assert_close(
            &out[1].data,
            &[5., 500., 5., 500., 25., 2500., 25., 2500.],
            1e-15,
        );
    }

    #[test]
    fn gradients_match_finite_differences() {
        // Windows of 1, 3 and 5 channels (clipped at both ends), a large alpha so the
        // normalizer matters, batch 1 and odd spatial sizes.
        for nsize in ["1", "3", "5"] {
            let kv = [
                ("nsize", nsize),
                ("alpha", "2"),
                ("beta", "0.6"),
                ("knorm", "1.5"),
            ];
            check_grad("LRN", &kv, &[randn(&[2, 4, 3, 1], 1)], false, &[]);
        }
        check_grad(
            "LRN",
            &[("nsize", "3")],
            &[randn(&[1, 7, 1, 3], 2)],
            false,
            &[],
        );
    }
}
