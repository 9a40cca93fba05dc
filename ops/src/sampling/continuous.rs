//! Continuous samplers of `sample_op.cc`: `_random_uniform`, `_random_normal`,
//! `_random_exponential`, `_random_gamma`.

use super::{
    draw, float_dtype, require, sample, sampler, shape_param, CTX, FLOAT_DTYPE, FLOAT_DTYPES, SHAPE,
};
use crate::param::{param, ParamType};
use crate::random;
use crate::shape::OpError;
use crate::{Attrs, KernelCtx, OpDef, Registry, Tensor};

static UNIFORM: OpDef = sampler(
    "_random_uniform",
    &["uniform", "random_uniform"],
    "Samples uniformly from [low, high).",
    &[
        param("low", ParamType::Float, Some("0.0"), "lower bound"),
        param(
            "high",
            ParamType::Float,
            Some("1.0"),
            "upper bound (exclusive)",
        ),
        SHAPE,
        CTX,
        FLOAT_DTYPE,
    ],
    shape_param,
    float_dtype,
    FLOAT_DTYPES,
    uniform_ref,
);

static NORMAL: OpDef = sampler(
    "_random_normal",
    &["normal", "random_normal"],
    "Samples from a normal distribution (Box–Muller over two Philox streams).",
    &[
        param("loc", ParamType::Float, Some("0.0"), "mean"),
        param("scale", ParamType::Float, Some("1.0"), "standard deviation"),
        SHAPE,
        CTX,
        FLOAT_DTYPE,
    ],
    shape_param,
    float_dtype,
    FLOAT_DTYPES,
    normal_ref,
);

const EXPONENTIAL_OP: &str = "_random_exponential";

static EXPONENTIAL: OpDef = sampler(
    EXPONENTIAL_OP,
    &["random_exponential"],
    "Samples from an exponential distribution with rate `lam` (mean 1/lam), by inversion of \
     one Philox uniform: -ln(1 - u)/lam.",
    &[
        param(
            "lam",
            ParamType::Float,
            Some("1.0"),
            "rate λ of the exponential distribution (> 0)",
        ),
        SHAPE,
        CTX,
        FLOAT_DTYPE,
    ],
    |a, ins, outs| {
        exponential_rate(a)?;
        shape_param(a, ins, outs)
    },
    float_dtype,
    FLOAT_DTYPES,
    exponential_ref,
);

const GAMMA_OP: &str = "_random_gamma";

static GAMMA: OpDef = sampler(
    GAMMA_OP,
    &["random_gamma"],
    "Samples from a gamma distribution with shape `alpha` and scale `beta` (mean \
     alpha·beta), by Marsaglia–Tsang rejection (with the U^(1/alpha) boost below alpha = 1) \
     over per-attempt Philox streams.",
    &[
        param(
            "alpha",
            ParamType::Float,
            Some("1.0"),
            "shape α of the gamma distribution (> 0)",
        ),
        param(
            "beta",
            ParamType::Float,
            Some("1.0"),
            "scale β of the gamma distribution (> 0)",
        ),
        SHAPE,
        CTX,
        FLOAT_DTYPE,
    ],
    |a, ins, outs| {
        gamma_params(a)?;
        shape_param(a, ins, outs)
    },
    float_dtype,
    FLOAT_DTYPES,
    gamma_ref,
);

fn uniform_ref(ctx: &KernelCtx, _: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (low, high) = (ctx.attrs.float("low"), ctx.attrs.float("high"));
    Ok(sample(ctx, |i| {
        low + (high - low) * random::uniform(ctx.rng_key, 0, i)
    }))
}

fn normal_ref(ctx: &KernelCtx, _: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (loc, scale) = (ctx.attrs.float("loc"), ctx.attrs.float("scale"));
    Ok(sample(ctx, |i| {
        loc + scale * draw::std_normal(ctx.rng_key, 0, i)
    }))
}

fn exponential_rate(a: &Attrs) -> Result<f64, OpError> {
    let lam = a.float("lam");
    require(
        EXPONENTIAL_OP,
        "lam",
        lam,
        lam > 0.0 && lam.is_finite(),
        "positive and finite",
    )?;
    Ok(lam)
}

fn exponential_ref(ctx: &KernelCtx, _: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let lam = exponential_rate(ctx.attrs)?;
    Ok(sample(ctx, |i| {
        draw::std_exponential(ctx.rng_key, 0, i) / lam
    }))
}

fn gamma_params(a: &Attrs) -> Result<(f64, f64), OpError> {
    let (alpha, beta) = (a.float("alpha"), a.float("beta"));
    let ok = |v: f64| v > 0.0 && v.is_finite();
    require(GAMMA_OP, "alpha", alpha, ok(alpha), "positive and finite")?;
    require(GAMMA_OP, "beta", beta, ok(beta), "positive and finite")?;
    Ok((alpha, beta))
}

fn gamma_ref(ctx: &KernelCtx, _: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (alpha, beta) = gamma_params(ctx.attrs)?;
    Ok(sample(ctx, |i| {
        beta * draw::gamma(ctx.rng_key, 0, i, alpha)
    }))
}

pub(super) fn register(r: &mut Registry) {
    r.add(&UNIFORM);
    r.add(&NORMAL);
    r.add(&EXPONENTIAL);
    r.add(&GAMMA);
}

#[cfg(test)]
mod tests {
    use super::super::stats::{assert_ks, assert_moments, draws, gamma_p, ks, moments};
    use crate::testutil::{infer, message, run};

    // At n = 20000 the KS statistic of a correct sampler exceeds 1.95/sqrt(n) with
    // probability 0.1% (the samples are fixed by the seed, so this either always passes or
    // always fails).
    const N: usize = 20_000;

    #[test]
    fn uniform_has_the_right_distribution() {
        let out = run::<crate::Tensor>(
            "_random_uniform",
            &[
                ("low", "-2"),
                ("high", "3"),
                ("shape", "(100, 200)"),
                ("dtype", "float64"),
            ],
            &[],
            false,
        )
        .unwrap();
        let xs = out[0].data.clone();
        let (mean, var) = moments(&xs);
        assert!(
            (mean - 0.5).abs() < 0.05 && (var - 25.0 / 12.0).abs() < 0.05,
            "{mean} {var}"
        );
        assert!(xs.iter().all(|&x| (-2.0..3.0).contains(&x)));
        let d = ks(xs, |x| ((x + 2.0) / 5.0).clamp(0.0, 1.0));
        assert!(d < 1.95 / (N as f64).sqrt(), "KS {d}");
    }

    #[test]
    fn normal_has_the_right_distribution() {
        let out = run::<crate::Tensor>(
            "_random_normal",
            &[
                ("loc", "1"),
                ("scale", "2"),
                ("shape", "(20000,)"),
                ("dtype", "float64"),
            ],
            &[],
            false,
        )
        .unwrap();
        let xs = out[0].data.clone();
        let (mean, var) = moments(&xs);
        assert!(
            (mean - 1.0).abs() < 0.05 && (var - 4.0).abs() < 0.15,
            "{mean} {var}"
        );
        let d = ks(xs, |x| {
            0.5 * (1.0 + crate::expr::erf((x - 1.0) / (2.0 * std::f64::consts::SQRT_2)))
        });
        assert!(d < 1.95 / (N as f64).sqrt(), "KS {d}");
    }

    #[test]
    fn shape_must_be_positive() {
        let e = infer("_random_uniform", &[("shape", "(2, 0)")], &[]).unwrap_err();
        assert!(e.to_string().contains("positive"), "{e}");
    }

    #[test]
    fn exponential_has_the_right_distribution() {
        for lam in [0.25, 4.0] {
            let what = format!("exponential(lam={lam})");
            let xs = draws("_random_exponential", &[("lam", &lam.to_string())]);
            assert!(xs.iter().all(|&x| x >= 0.0));
            // Excess kurtosis of the exponential: 6.
            assert_moments(&what, &xs, 1.0 / lam, 1.0 / (lam * lam), 6.0);
            assert_ks(&what, xs, |x| 1.0 - (-lam * x).exp());
        }
    }

    #[test]
    fn gamma_has_the_right_distribution() {
        // alpha < 1 takes the boost path, alpha = 1 is the exponential, (9, 0.5) is MXNet's
        // documentation example, 250 a large shape.
        for (alpha, beta) in [(0.3, 2.0), (1.0, 1.0), (9.0, 0.5), (250.0, 0.01)] {
            let what = format!("gamma(alpha={alpha}, beta={beta})");
            let xs = draws(
                "_random_gamma",
                &[("alpha", &alpha.to_string()), ("beta", &beta.to_string())],
            );
            assert!(xs.iter().all(|&x| x >= 0.0));
            // Mean αβ, variance αβ², excess kurtosis 6/α.
            assert_moments(&what, &xs, alpha * beta, alpha * beta * beta, 6.0 / alpha);
            assert_ks(&what, xs, |x| gamma_p(alpha, x / beta));
        }
    }

    #[test]
    fn float_dtypes_are_honoured() {
        for (dtype, want) in [
            ("None", crate::DType::F32),
            ("float16", crate::DType::F16),
            ("float64", crate::DType::F64),
        ] {
            let out = run::<crate::Tensor>(
                "_random_gamma",
                &[("shape", "(3, 4)"), ("dtype", dtype), ("alpha", "2")],
                &[],
                false,
            )
            .unwrap();
            assert_eq!(out[0].dtype, want);
            assert_eq!(out[0].shape, vec![3, 4]);
        }
    }

    #[test]
    fn invalid_parameters_are_errors_naming_them() {
        for (op, kv, name) in [
            ("_random_exponential", [("lam", "0")], "`lam`"),
            ("_random_exponential", [("lam", "-2")], "`lam`"),
            ("_random_exponential", [("lam", "inf")], "`lam`"),
            ("_random_gamma", [("alpha", "0")], "`alpha`"),
            ("_random_gamma", [("beta", "-1")], "`beta`"),
            ("_random_gamma", [("alpha", "nan")], "`alpha`"),
        ] {
            let kv = [kv[0], ("shape", "(2,)")];
            let at_inference = message(infer(op, &kv, &[]));
            assert!(
                at_inference.contains(name) && at_inference.contains(op),
                "{at_inference}"
            );
            // The kernel checks too (it may run without inference, e.g. on given shapes).
            let a = crate::testutil::attrs(crate::testutil::op(op), &kv);
            let ctx = crate::KernelCtx {
                attrs: &a,
                is_train: false,
                out_shapes: &[vec![2]],
                out_dtypes: &[crate::DType::F32],
                rng_key: crate::random::key(1, 1),
            };
            let in_kernel = message(crate::evaluate(crate::testutil::op(op), &ctx, &[]));
            assert!(in_kernel.contains(name), "{in_kernel}");
        }
    }
}
