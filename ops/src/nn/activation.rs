//! LeakyReLU and its relatives (prelu, rrelu, elu, selu, gelu). `Activation` itself is an
//! element-wise expression and lives in `elemwise::unary` (its gradient is derived).
//!
//! The gradient is the backward operator `_backward_LeakyReLU` (as MXNet). It
//! differentiates with respect to the data's sign, where MXNet tests the output's: the
//! two agree for every non-negative slope, and only the data's is the true derivative
//! when a slope is negative. rrelu reuses the forward's slopes (its `mask` output).

use super::common::{all_grads, elems, strings, Through};
use crate::def::PerSample;
use crate::param::{param, ParamDef, ParamType};
use crate::random;
use crate::shape::{fmt_shape, invalid, same_shape, set_in, OpError, Shape};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs, Pattern,
    Registry, Resource, Tensor,
};

const OP: &str = "LeakyReLU";
const SELU_LAMBDA: f64 = 1.0507009873554805;
const SELU_ALPHA: f64 = 1.6732632423543772;

const LEAKY_PARAMS: &[ParamDef] = &[
    param(
        "act_type",
        ParamType::Enum(&["elu", "gelu", "leaky", "prelu", "rrelu", "selu"]),
        Some("leaky"),
        "activation function",
    ),
    param(
        "slope",
        ParamType::Float,
        Some("0.25"),
        "slope of leaky, and elu's scale",
    ),
    param(
        "lower_bound",
        ParamType::Float,
        Some("0.125"),
        "rrelu: lowest random slope",
    ),
    param(
        "upper_bound",
        ParamType::Float,
        Some("0.334"),
        "rrelu: highest random slope",
    ),
];

static LEAKY_RELU: OpDef = OpDef {
    // rrelu draws slopes in training only.
    per_sample: PerSample::Always,
    aliases: &["_npx_leaky_relu"],
    doc: "Leaky rectifiers: leaky `x > 0 ? x : slope·x`; prelu with a learnt per-channel \
          `gamma` (axis 1); rrelu with a slope drawn from U[lower_bound, upper_bound) per \
          element in training ((lower+upper)/2 otherwise; the slopes are the second output, \
          `mask`); elu `slope·(eˣ−1)` for x ≤ 0; selu; gelu (erf form).",
    params: LEAKY_PARAMS,
    inputs: Inputs::Dynamic(leaky_inputs),
    outputs: Outputs::Dynamic(leaky_outputs),
    infer_shape: leaky_shape,
    // A few operations per element (erf/exp for gelu/elu/selu).
    cost: |_, ins, _| elems(&ins[0]).saturating_mul(4),
    // Only rrelu draws random numbers, but these flags are per operator: the family
    // carries them so that CSE never merges two rrelu nodes.
    resources: &[Resource::Random],
    side_effect: true,
    grad: Grad::Rule(leaky_grad),
    ..OpDef::new(
        OP,
        Pattern::Opaque,
        Compute::Library {
            kernel: "leaky_relu",
            reference: leaky_ref,
        },
    )
};

fn leaky_inputs(a: &Attrs) -> Vec<String> {
    let names: &[&str] = match a.str("act_type") {
        "prelu" => &["data", "gamma"],
        _ => &["data"],
    };
    names.iter().map(|s| s.to_string()).collect()
}

/// rrelu's mask (the slopes used) is a second output, and MXNet 1.9.1 makes it visible.
fn leaky_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let names: &[&str] = match a.str("act_type") {
        "rrelu" => &["output", "mask"],
        _ => &["output"],
    };
    (names.iter().map(|s| s.to_string()).collect(), names.len())
}

/// Output (and rrelu's mask) have the data's shape; prelu's gamma is (C,) for the channel
/// axis 1, or (1,) for one shared slope.
fn leaky_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if a.str("act_type") != "prelu" {
        return same_shape(a, ins, outs);
    }
    same_shape(a, &mut ins[..1], outs)?;
    if ins[0].is_empty() {
        return Ok(());
    }
    if ins[0].len() < 2 {
        return invalid(format!(
            "{OP}: prelu needs data with a channel axis (at least 2-D), got shape {}",
            fmt_shape(&ins[0])
        ));
    }
    // The channel count also flows back from a per-channel gamma.
    if let (0, &[c]) = (ins[0][1], ins[1].as_slice()) {
        if c > 1 {
            let mut d = ins[0].clone();
            d[1] = c;
            set_in(ins, 0, &d)?;
            same_shape(a, &mut ins[..1], outs)?;
        }
    }
    let c = ins[0][1];
    if c != 0 && ins[1] != [1] {
        set_in(ins, 1, &[c])?;
    }
    Ok(())
}

fn leaky_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let x = ins[0];
    let slope = a.float("slope");
    let (lo, hi) = (a.float("lower_bound"), a.float("upper_bound"));
    let xelu = |v: f64, s: f64| if v > 0.0 { v } else { v * s };
    let mut out = x.clone();
    let mut mask = None;
    match a.str("act_type") {
        "leaky" => out.data.iter_mut().for_each(|v| *v = xelu(*v, slope)),
        "prelu" => {
            let gamma = ins[1];
            let c = x.shape[1];
            let inner: usize = x.shape[2..].iter().product();
            for (i, v) in out.data.iter_mut().enumerate() {
                let g = if gamma.len() == 1 {
                    gamma.data[0]
                } else {
                    gamma.data[(i / inner) % c]
                };
                *v = xelu(*v, g);
            }
        }
        "rrelu" => {
            let slopes: Vec<f64> = if ctx.is_train {
                (0..x.len())
                    .map(|i| lo + (hi - lo) * random::uniform(ctx.rng_key, 0, i as u64))
                    .collect()
            } else {
                vec![(lo + hi) / 2.0; x.len()]
            };
            out.data
                .iter_mut()
                .zip(&slopes)
                .for_each(|(v, &s)| *v = xelu(*v, s));
            mask = Some(Tensor {
                data: slopes,
                ..x.clone()
            });
        }
        "elu" => out
            .data
            .iter_mut()
            .for_each(|v| *v = if *v > 0.0 { *v } else { slope * v.exp_m1() }),
        "selu" => out.data.iter_mut().for_each(|v| {
            *v = SELU_LAMBDA
                * if *v > 0.0 {
                    *v
                } else {
                    SELU_ALPHA * v.exp_m1()
                }
        }),
        _ => out
            .data
            .iter_mut()
            .for_each(|v| *v = 0.5 * *v * (1.0 + crate::expr::erf(*v / std::f64::consts::SQRT_2))), // gelu
    }
    Ok(std::iter::once(out).chain(mask).collect())
}

fn leaky_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let mut args = vec![ctx.out_grads[0], ctx.inputs[0]];
    match ctx.attrs.str("act_type") {
        "prelu" => args.push(ctx.inputs[1]),
        "rrelu" => args.push(ctx.outputs[1]), // the slopes the forward drew
        _ => {}
    }
    all_grads(g, ctx, "_backward_LeakyReLU", &args)
}

static LEAKY_RELU_BACKWARD: OpDef = OpDef {
    doc: "Gradient of LeakyReLU, from ograd and data (and gamma for prelu, the forward's \
          slopes `mask` for rrelu): data_grad, and for prelu gamma_grad (ograd·min(x, 0) \
          summed over every axis but 1, or over everything for one shared slope). Takes the \
          forward's parameters.",
    params: LEAKY_PARAMS,
    inputs: Inputs::Dynamic(leaky_backward_inputs),
    outputs: Outputs::Dynamic(leaky_backward_outputs),
    infer_shape: leaky_backward_shape,
    // Not in place: prelu's gamma gradient reads ograd after data_grad is written.
    inplace: &[],
    cost: |_, ins, _| ins.first().map_or(0, |s| elems(s).saturating_mul(4)),
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_LeakyReLU",
        Pattern::Opaque,
        Compute::Library {
            kernel: "leaky_relu_backward",
            reference: leaky_backward_ref,
        },
    )
};

fn leaky_backward_inputs(a: &Attrs) -> Vec<String> {
    strings(match a.str("act_type") {
        "prelu" => &["ograd", "data", "gamma"],
        "rrelu" => &["ograd", "data", "mask"],
        _ => &["ograd", "data"],
    })
}

fn leaky_backward_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let names: &[&str] = match a.str("act_type") {
        "prelu" => &["data_grad", "gamma_grad"],
        _ => &["data_grad"],
    };
    (strings(names), names.len())
}

fn leaky_backward_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let through = match a.str("act_type") {
        "prelu" => Through {
            inputs: &[Some(1), Some(2)],
            outputs: &[&[0]],
            grads: &[0, 1],
        },
        "rrelu" => Through {
            inputs: &[Some(1)],
            outputs: &[&[0], &[2]],
            grads: &[0],
        },
        _ => Through {
            inputs: &[Some(1)],
            outputs: &[&[0]],
            grads: &[0],
        },
    };
    through.shapes(leaky_shape, a, ins, outs)
}

/// The derivative of each activation at `x` (prelu and rrelu pass their slope as `slope`).
fn leaky_derivative(act: &str, x: f64, slope: f64) -> f64 {
    match act {
        // d/dx x·Φ(x) = Φ(x) + x·φ(x)
        "gelu" => {
            let cdf = 0.5 * (1.0 + crate::expr::erf(x / std::f64::consts::SQRT_2));
            let pdf = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
            cdf + x * pdf
        }
        "selu" if x > 0.0 => SELU_LAMBDA,
        "selu" => SELU_LAMBDA * SELU_ALPHA * x.exp(),
        _ if x > 0.0 => 1.0,
        "elu" => slope * x.exp(),
        _ => slope, // leaky, prelu, rrelu
    }
}

fn leaky_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let act = a.str("act_type");
    let (og, x) = (ins[0], ins[1]);
    let slope = a.float("slope");
    // prelu's slope of element i: gamma per channel (axis 1), or one shared value.
    let (c, inner) = match x.shape.len() {
        0 | 1 => (1, 1),
        _ => (x.shape[1], x.shape[2..].iter().product()),
    };
    let channel = |i: usize| {
        if ins[2].len() == 1 {
            0
        } else {
            (i / inner) % c
        }
    };
    let slope_at = |i: usize| match act {
        "prelu" => ins[2].data[channel(i)],
        "rrelu" => ins[2].data[i],
        _ => slope,
    };
    let mut dx = og.clone();
    for (i, d) in dx.data.iter_mut().enumerate() {
        *d *= leaky_derivative(act, x.data[i], slope_at(i));
    }
    if act != "prelu" {
        return Ok(vec![dx]);
    }
    // ∂out/∂gamma = x where x ≤ 0.
    let mut dgamma = Tensor::zeros(ins[2].dtype, ins[2].shape.clone());
    for (i, (&gv, &xv)) in og.data.iter().zip(&x.data).enumerate() {
        if xv <= 0.0 {
            dgamma.data[channel(i)] += gv * xv;
        }
    }
    Ok(vec![dx, dgamma])
}

pub fn register(r: &mut Registry) {
    r.add(&LEAKY_RELU);
    r.add(&LEAKY_RELU_BACKWARD);
}

#[cfg(test)]
mod tests {
    use super::{SELU_ALPHA, SELU_LAMBDA};
    use crate::testutil::*;

    const LR: &str = "LeakyReLU";

    #[test]
    fn shapes_inputs_and_outputs() {
        let (ins, outs) = infer(LR, &[], &[&[2, 3]]).unwrap();
        assert_eq!((ins.len(), outs), (1, vec![vec![2, 3]]));
        let (ins, outs) = infer(LR, &[("act_type", "prelu")], &[&[2, 3, 4]]).unwrap();
        assert_eq!(ins[1], vec![3]);
        assert_eq!(outs[0], vec![2, 3, 4]);
        // One shared slope is accepted; the channel count also flows back from gamma.
        let (ins, _) = infer(LR, &[("act_type", "prelu")], &[&[2, 3], &[1]]).unwrap();
        assert_eq!(ins[1], vec![1]);
        let (ins, _) = infer(LR, &[("act_type", "prelu")], &[&[2, 0], &[5]]).unwrap();
        assert_eq!(ins[0], vec![2, 5]);
        let (_, outs) = infer(LR, &[("act_type", "rrelu")], &[&[4]]).unwrap();
        assert_eq!(outs, vec![vec![4], vec![4]]);
        let o = op(LR);
        assert_eq!(o.output_names(&attrs(o, &[("act_type", "rrelu")])).1, 2);
        assert_eq!(
            infer_err(LR, &[("act_type", "prelu")], &[&[2, 3], &[4]]),
            "input `gamma` has shape (4,) but (3,) is required"
        );
        assert_eq!(
            infer_err(LR, &[("act_type", "prelu")], &[&[4]]),
            "LeakyReLU: prelu needs data with a channel axis (at least 2-D), got shape (4,)"
        );
    }

    #[test]
    fn leaky_elu_selu_gelu_by_hand() {
        let x = t(&[4], vec![-2., -0.5, 0., 3.]);
        let out = run(LR, &[("slope", "0.1")], &[&x], false).unwrap();
        assert_close(&out[0].data, &[-0.2, -0.05, 0., 3.], 1e-15);
        let out = run(LR, &[("act_type", "elu"), ("slope", "2")], &[&x], false).unwrap();
        let e = |v: f64| v.exp() - 1.0;
        assert_close(&out[0].data, &[2. * e(-2.), 2. * e(-0.5), 0., 3.], 1e-15);
        let out = run(LR, &[("act_type", "selu")], &[&x], false).unwrap();
        let s = |v: f64| SELU_LAMBDA * SELU_ALPHA * e(v);
        assert_close(
            &out[0].data,
            &[s(-2.), s(-0.5), 0., SELU_LAMBDA * 3.],
            1e-15,
        );
        let out = run(LR, &[("act_type", "gelu")], &[x], false).unwrap();
        // x·Φ(x) with Φ(-2) = 0.02275013194817921, Φ(-0.5) = 0.3085375387259869, Φ(3) =
        // 0.9986501019683699 (standard normal table).
        let want = [
            -2. * 0.02275013194817921,
            -0.5 * 0.3085375387259869,
            0.,
            3. * 0.9986501019683699,
        ];
        assert_close(&out[0].data, &want, 1e-14);
    }

    #[test]
    fn prelu_uses_one_gamma_per_channel() {
        let x = t(&[1, 2, 2], vec![-1., 2., -3., -4.]);
        let g = t(&[2], vec![0.5, 0.25]);
        let out = run(LR, &[("act_type", "prelu")], &[x.clone(), g], false).unwrap();
        assert_close(&out[0].data, &[-0.5, 2., -0.75, -1.], 0.0);
        let out = run(LR, &[("act_type", "prelu")], &[x, t(&[1], vec![2.])], false).unwrap();
        assert_close(&out[0].data, &[-2., 2., -6., -8.], 0.0);
    }

    #[test]
    fn rrelu_random_in_training_mean_slope_otherwise() {
        let kv = [
            ("act_type", "rrelu"),
            ("lower_bound", "0.25"),
            ("upper_bound", "0.75"),
        ];
        let x = t(&[3], vec![-4., 1., -2.]);
        let out = run(LR, &kv, &[&x], false).unwrap();
        assert_close(&out[0].data, &[-2., 1., -1.], 0.0);
        assert_close(&out[1].data, &[0.5; 3], 0.0);
        let n = 2000;
        let x = t(&[n], vec![-1.0; n]);
        let out = run(LR, &kv, &[x], true).unwrap();
        let slopes = &out[1].data;
        assert!(slopes.iter().all(|&s| (0.25..0.75).contains(&s)));
        for (y, s) in out[0].data.iter().zip(slopes) {
            assert_eq!(*y, -s);
        }
        let mean = slopes.iter().sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.02, "mean slope {mean}");
        // Deterministic for one key.
        let again = run(LR, &kv, &[t(&[n], vec![-1.0; n])], true).unwrap();
        assert_eq!(again[1].data, *slopes);
    }

    #[test]
    fn gradients_match_finite_differences() {
        let x = || randn(&[2, 3, 7], 1);
        check_grad(LR, &[], &[x()], false, &[]);
        check_grad(LR, &[("slope", "-0.3")], &[x()], false, &[]);
        for act in ["elu", "selu", "gelu"] {
            check_grad(LR, &[("act_type", act)], &[x()], false, &[]);
        }
        check_grad(
            LR,
            &[("act_type", "elu"), ("slope", "2.5")],
            &[x()],
            false,
            &[],
        );
        // prelu: per-channel gamma on 3-D and 2-D data, and one shared slope.
        let kv = [("act_type", "prelu")];
        check_grad(LR, &kv, &[x(), randn(&[3], 2)], false, &[]);
        check_grad(LR, &kv, &[randn(&[1, 7], 3), randn(&[7], 4)], false, &[]);
        check_grad(
            LR,
            &kv,
            &[randn(&[2, 3, 2, 2], 5), randn(&[1], 6)],
            false,
            &[],
        );
        // rrelu: the slopes drawn in training (fixed by the generator key) are reused; at
        // inference the mean slope applies.
        let kv = [
            ("act_type", "rrelu"),
            ("lower_bound", "0.2"),
            ("upper_bound", "0.6"),
        ];
        check_grad(LR, &kv, &[x()], true, &[]);
        check_grad(LR, &kv, &[x()], false, &[]);
    }

    #[test]
    fn backward_operator_by_hand() {
        let og = t(&[1, 2, 2], vec![1., 2., 3., 4.]);
        let x = t(&[1, 2, 2], vec![-1., 2., -3., 0.5]);
        let gamma = t(&[2], vec![0.5, 0.25]);
        let g = run(
            "_backward_LeakyReLU",
            &[("act_type", "prelu")],
            &[&og, &x, &gamma],
            false,
        )
        .unwrap();
        assert_close(&g[0].data, &[0.5, 2., 0.75, 4.], 0.0);
        // Σ og·x over x ≤ 0, per channel: (1·-1), (3·-3).
        assert_close(&g[1].data, &[-1., -9.], 0.0);
        let g = run(
            "_backward_LeakyReLU",
            &[("slope", "0.1")],
            &[&og, &x],
            false,
        )
        .unwrap();
        assert_close(&g[0].data, &[0.1, 2., 0.3, 4.], 1e-15);
        let (ins, outs) = infer(
            "_backward_LeakyReLU",
            &[("act_type", "prelu")],
            &[&[2, 5, 3]],
        )
        .unwrap();
        assert_eq!((ins[1].clone(), ins[2].clone()), (vec![2, 5, 3], vec![5]));
        assert_eq!(outs, vec![vec![2, 5, 3], vec![5]]);
    }
}
