//! Discrete samplers of `sample_op.cc`: `_random_randint`, `_random_poisson`,
//! `_random_negative_binomial`, `_random_generalized_negative_binomial`. As in MXNet, the
//! counting distributions return their integer counts in a float dtype.

use super::{
    draw, dtype_param_or, float_dtype, require, sample, sampler, shape_param, CTX, FLOAT_DTYPE,
    FLOAT_DTYPES, SHAPE,
};
use crate::param::{param, ParamType};
use crate::shape::{invalid, OpError};
use crate::{Attrs, DType, KernelCtx, OpDef, Registry, Tensor};

/// Where the gamma–Poisson mixtures start the Poisson's streams: above the gamma's.
const MIX_POISSON_BASE: u32 = 64;
const _: () = assert!(draw::GAMMA_STREAMS <= MIX_POISSON_BASE);

const RANDINT_OP: &str = "_random_randint";

static RANDINT: OpDef = sampler(
    RANDINT_OP,
    &["random_randint"],
    "Samples integers uniformly from [low, high). Each element takes 64 Philox bits x and \
     returns low + floor(x·(high − low)/2^64) (Lemire's multiply-shift, without its \
     rejection step: the bias is below (high − low)/2^64, under 2^-32 for int32 ranges).",
    &[
        param("low", ParamType::Int, None, "lower bound (inclusive)"),
        param("high", ParamType::Int, None, "upper bound (exclusive)"),
        SHAPE,
        CTX,
        param(
            "dtype",
            ParamType::Enum(&["None", "int32", "int64"]),
            Some("None"),
            "output dtype (None: int32)",
        ),
    ],
    |a, ins, outs| {
        randint_range(a)?;
        shape_param(a, ins, outs)
    },
    |a, _, outs| dtype_param_or(DType::I32, a, outs),
    &[DType::I32, DType::I64],
    randint_ref,
);

const POISSON_OP: &str = "_random_poisson";

static POISSON: OpDef = sampler(
    POISSON_OP,
    &["random_poisson"],
    "Samples from a Poisson distribution with rate `lam` (counts, in a float dtype): \
     inversion of one Philox uniform below lam = 10, Hörmann's PTRS rejection from it on.",
    &[
        param(
            "lam",
            ParamType::Float,
            Some("1.0"),
            "rate λ of the Poisson distribution (≥ 0)",
        ),
        SHAPE,
        CTX,
        FLOAT_DTYPE,
    ],
    |a, ins, outs| {
        poisson_rate(a)?;
        shape_param(a, ins, outs)
    },
    float_dtype,
    FLOAT_DTYPES,
    poisson_ref,
);

const NEG_BINOMIAL_OP: &str = "_random_negative_binomial";

static NEG_BINOMIAL: OpDef = sampler(
    NEG_BINOMIAL_OP,
    &["random_negative_binomial"],
    "Samples the number of failures before the k-th success in trials that succeed with \
     probability p (mean k(1−p)/p; counts, in a float dtype), as the gamma–Poisson \
     mixture Poisson(Gamma(k, (1−p)/p)).",
    &[
        param(
            "k",
            ParamType::Int,
            Some("1"),
            "number of successes to wait for (≥ 1)",
        ),
        param(
            "p",
            ParamType::Float,
            Some("1.0"),
            "success probability of each trial, in (0, 1] (MXNet's documentation calls it \
             the failure probability, but samples with mean k(1−p)/p)",
        ),
        SHAPE,
        CTX,
        FLOAT_DTYPE,
    ],
    |a, ins, outs| {
        negative_binomial_params(a)?;
        shape_param(a, ins, outs)
    },
    float_dtype,
    FLOAT_DTYPES,
    negative_binomial_ref,
);

const GEN_NEG_BINOMIAL_OP: &str = "_random_generalized_negative_binomial";

static GEN_NEG_BINOMIAL: OpDef = sampler(
    GEN_NEG_BINOMIAL_OP,
    &["random_generalized_negative_binomial"],
    "Samples from a negative binomial distribution with mean `mu` and dispersion `alpha` \
     (variance mu + alpha·mu²; counts, in a float dtype), as the gamma–Poisson mixture \
     Poisson(Gamma(1/alpha, alpha·mu)); alpha = 0 is Poisson(mu).",
    &[
        param(
            "mu",
            ParamType::Float,
            Some("1.0"),
            "mean of the distribution (≥ 0)",
        ),
        param(
            "alpha",
            ParamType::Float,
            Some("1.0"),
            "dispersion: 1/k for the real-valued failure limit k (≥ 0)",
        ),
        SHAPE,
        CTX,
        FLOAT_DTYPE,
    ],
    |a, ins, outs| {
        generalized_negative_binomial_params(a)?;
        shape_param(a, ins, outs)
    },
    float_dtype,
    FLOAT_DTYPES,
    generalized_negative_binomial_ref,
);

/// `low` and `high - low`, checked: low < high, both within the output dtype.
fn randint_range(a: &Attrs) -> Result<(i64, u64), OpError> {
    let (low, high) = (a.int("low"), a.int("high"));
    if low >= high {
        return invalid(format!(
            "{RANDINT_OP}: `low` must be less than `high`, got low = {low}, high = {high}"
        ));
    }
    if DType::parse(a.str("dtype")).unwrap_or(DType::I32) == DType::I32 {
        let (min, max) = (i32::MIN as i64, i32::MAX as i64 + 1);
        if low < min || high > max {
            return invalid(format!(
                "{RANDINT_OP}: [`low`, `high`) = [{low}, {high}) does not fit int32 \
                 ([{min}, {max})); use dtype int64"
            ));
        }
    }
    Ok((low, (high as i128 - low as i128) as u64))
}

fn randint_ref(ctx: &KernelCtx, _: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (low, span) = randint_range(ctx.attrs)?;
    Ok(sample(ctx, |i| {
        let x = draw::bits64(ctx.rng_key, 0, i);
        let offset = ((x as u128 * span as u128) >> 64) as i128;
        // Exact in the interpreter's f64 up to 2^53 (see `Tensor`).
        (low as i128 + offset) as f64
    }))
}

fn poisson_rate(a: &Attrs) -> Result<f64, OpError> {
    let lam = a.float("lam");
    require(
        POISSON_OP,
        "lam",
        lam,
        lam >= 0.0 && lam.is_finite(),
        "non-negative and finite",
    )?;
    Ok(lam)
}

fn poisson_ref(ctx: &KernelCtx, _: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let lam = poisson_rate(ctx.attrs)?;
    Ok(sample(ctx, |i| draw::poisson(ctx.rng_key, 0, i, lam)))
}

fn negative_binomial_params(a: &Attrs) -> Result<(f64, f64), OpError> {
    let (k, p) = (a.int("k"), a.float("p"));
    require(NEG_BINOMIAL_OP, "k", k as f64, k >= 1, "at least 1")?;
    require(NEG_BINOMIAL_OP, "p", p, p > 0.0 && p <= 1.0, "in (0, 1]")?;
    Ok((k as f64, p))
}

/// Gamma–Poisson mixture: Poisson(Gamma(shape, scale)), the gamma on streams
/// [0, GAMMA_STREAMS), the Poisson from [`MIX_POISSON_BASE`]. A zero scale is Poisson(0).
fn gamma_poisson(key: [u32; 2], index: u64, shape: f64, scale: f64) -> f64 {
    if scale == 0.0 {
        return 0.0;
    }
    let lam = scale * draw::gamma(key, 0, index, shape);
    draw::poisson(key, MIX_POISSON_BASE, index, lam)
}

fn negative_binomial_ref(ctx: &KernelCtx, _: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let (k, p) = negative_binomial_params(ctx.attrs)?;
    Ok(sample(ctx, |i| {
        gamma_poisson(ctx.rng_key, i, k, (1.0 - p) / p)
    }))
}

fn generalized_negative_binomial_params(a: &Attrs) -> Result<(f64, f64), OpError> {
    let (mu, alpha) = (a.float("mu"), a.float("alpha"));
    let ok = |v: f64| v >= 0.0 && v.is_finite();
    require(
        GEN_NEG_BINOMIAL_OP,
        "mu",
        mu,
        ok(mu),
        "non-negative and finite",
    )?;
    require(
        GEN_NEG_BINOMIAL_OP,
        "alpha",
        alpha,
        ok(alpha),
        "non-negative and finite",
    )?;
    Ok((mu, alpha))
}

fn generalized_negative_binomial_ref(
    ctx: &KernelCtx,
    _: &[&Tensor],
) -> Result<Vec<Tensor>, OpError> {
    let (mu, alpha) = generalized_negative_binomial_params(ctx.attrs)?;
    Ok(sample(ctx, |i| {
        if alpha == 0.0 {
            draw::poisson(ctx.rng_key, MIX_POISSON_BASE, i, mu)
        } else {
            gamma_poisson(ctx.rng_key, i, 1.0 / alpha, alpha * mu)
        }
    }))
}

pub(super) fn register(r: &mut Registry) {
    r.add(&RANDINT);
    r.add(&POISSON);
    r.add(&NEG_BINOMIAL);
    r.add(&GEN_NEG_BINOMIAL);
}

#[cfg(test)]
mod tests {
    use super::super::draw::ln_gamma;
    use super::super::stats::{assert_chi_square, assert_moments, draws, outputs, N};
    use crate::testutil::{infer, message, run};
    use crate::DType;

    fn poisson_pmf(lam: f64) -> impl Fn(i64) -> f64 {
        move |k| {
            let k = k as f64;
            (k * lam.ln() - lam - ln_gamma(k + 1.0)).exp()
        }
    }

    /// Failures before the r-th success, success probability q.
    fn negative_binomial_pmf(r: f64, q: f64) -> impl Fn(i64) -> f64 {
        move |k| {
            let k = k as f64;
            (ln_gamma(k + r) - ln_gamma(r) - ln_gamma(k + 1.0) + r * q.ln() + k * (1.0 - q).ln())
                .exp()
        }
    }

    /// Mean, variance and excess kurtosis of that negative binomial.
    fn negative_binomial_moments(r: f64, q: f64) -> (f64, f64, f64) {
        (
            r * (1.0 - q) / q,
            r * (1.0 - q) / (q * q),
            6.0 / r + q * q / (r * (1.0 - q)),
        )
    }

    #[test]
    fn randint_is_uniform_over_the_range() {
        let shape = format!("({N},)");
        let out = outputs(
            "_random_randint",
            &[("low", "-3"), ("high", "7"), ("shape", &shape)],
        );
        assert_eq!(out[0].dtype, DType::I32, "MXNet's default dtype");
        let xs = &out[0].data;
        assert!(xs
            .iter()
            .all(|&x| x == x.round() && (-3.0..7.0).contains(&x)));
        // n = 10 values: mean (low + high − 1)/2, variance (n² − 1)/12, excess kurtosis
        // −6(n² + 1)/(5(n² − 1)).
        let n = 10.0f64;
        let kurt = -6.0 * (n * n + 1.0) / (5.0 * (n * n - 1.0));
        assert_moments("randint[-3, 7)", xs, 1.5, (n * n - 1.0) / 12.0, kurt);
        assert_chi_square("randint[-3, 7)", xs, -3, |k| {
            if (-3..7).contains(&k) {
                0.1
            } else {
                0.0
            }
        });
    }

    #[test]
    fn randint_covers_wide_int64_ranges() {
        let (low, high) = (-(1i64 << 40), 1i64 << 40);
        let xs = draws(
            "_random_randint",
            &[
                ("low", &low.to_string()),
                ("high", &high.to_string()),
                ("dtype", "int64"),
            ],
        );
        assert!(xs.iter().all(|&x| x >= low as f64 && x < high as f64));
        let span = (high - low) as f64;
        assert_moments("randint[-2^40, 2^40)", &xs, -0.5, span * span / 12.0, -1.2);
        // The top 4 bits of the offset are uniform over 16 cells.
        let cells: Vec<f64> = xs
            .iter()
            .map(|&x| ((x - low as f64) / span * 16.0).floor())
            .collect();
        assert_chi_square("randint[-2^40, 2^40) top bits", &cells, 0, |k| {
            if (0..16).contains(&k) {
                1.0 / 16.0
            } else {
                0.0
            }
        });
        // The full int32 range is allowed in int32.
        let out = run::<crate::Tensor>(
            "_random_randint",
            &[
                ("low", "-2147483648"),
                ("high", "2147483648"),
                ("shape", "(1000,)"),
            ],
            &[],
            false,
        )
        .unwrap();
        assert!(out[0].data.iter().any(|&x| x < -1e9) && out[0].data.iter().any(|&x| x > 1e9));
    }

    #[test]
    fn poisson_has_the_right_distribution() {
        // 0.5 and 3.5 sample by inversion, 10 and beyond by PTRS.
        for lam in [0.5, 3.5, 9.99, 10.0, 40.0, 1000.0] {
            let what = format!("poisson(lam={lam})");
            let xs = draws("_random_poisson", &[("lam", &lam.to_string())]);
            // Mean and variance λ, excess kurtosis 1/λ.
            assert_moments(&what, &xs, lam, lam, 1.0 / lam);
            assert_chi_square(&what, &xs, 0, poisson_pmf(lam));
        }
        let zeros = draws("_random_poisson", &[("lam", "0")]);
        assert!(zeros.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn negative_binomial_has_the_right_distribution() {
        // (3, 0.4) is MXNet's documentation example.
        for (k, p) in [(3, 0.4), (1, 0.9), (20, 0.05)] {
            let what = format!("negative_binomial(k={k}, p={p})");
            let xs = draws(
                "_random_negative_binomial",
                &[("k", &k.to_string()), ("p", &p.to_string())],
            );
            let (mean, var, kurt) = negative_binomial_moments(k as f64, p);
            assert_moments(&what, &xs, mean, var, kurt);
            assert_chi_square(&what, &xs, 0, negative_binomial_pmf(k as f64, p));
        }
        // MXNet's defaults (k = 1, p = 1): no failures.
        let zeros = draws("_random_negative_binomial", &[]);
        assert!(zeros.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn generalized_negative_binomial_has_the_right_distribution() {
        // (2, 0.3) is MXNet's documentation example.
        for (mu, alpha) in [(2.0, 0.3), (50.0, 2.0), (7.0, 0.02)] {
            let what = format!("generalized_negative_binomial(mu={mu}, alpha={alpha})");
            let xs = draws(
                "_random_generalized_negative_binomial",
                &[("mu", &mu.to_string()), ("alpha", &alpha.to_string())],
            );
            // A negative binomial with r = 1/α failures-to-wait and success probability
            // r/(r + μ): mean μ, variance μ + αμ².
            let r = 1.0 / alpha;
            let q = r / (r + mu);
            let (mean, var, kurt) = negative_binomial_moments(r, q);
            assert!((mean - mu).abs() < 1e-9 && (var - (mu + alpha * mu * mu)).abs() < 1e-9);
            assert_moments(&what, &xs, mean, var, kurt);
            assert_chi_square(&what, &xs, 0, negative_binomial_pmf(r, q));
        }
        let what = "generalized_negative_binomial(mu=4, alpha=0) = poisson(4)";
        let xs = draws(
            "_random_generalized_negative_binomial",
            &[("mu", "4"), ("alpha", "0")],
        );
        assert_moments(what, &xs, 4.0, 4.0, 0.25);
        assert_chi_square(what, &xs, 0, poisson_pmf(4.0));
        let zeros = draws("_random_generalized_negative_binomial", &[("mu", "0")]);
        assert!(zeros.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn counts_come_in_the_requested_float_dtype() {
        for op in [
            "_random_poisson",
            "_random_negative_binomial",
            "_random_generalized_negative_binomial",
        ] {
            let out = run::<crate::Tensor>(op, &[("shape", "(4,)")], &[], false).unwrap();
            assert_eq!(out[0].dtype, DType::F32, "{op}");
            let out =
                run::<crate::Tensor>(op, &[("shape", "(4,)"), ("dtype", "float16")], &[], false)
                    .unwrap();
            assert_eq!(out[0].dtype, DType::F16, "{op}");
        }
        let out = run::<crate::Tensor>(
            "_random_randint",
            &[
                ("low", "0"),
                ("high", "5"),
                ("shape", "(4,)"),
                ("dtype", "int64"),
            ],
            &[],
            false,
        )
        .unwrap();
        assert_eq!(out[0].dtype, DType::I64);
        // Float dtypes are not among randint's choices.
        let op = crate::testutil::op("_random_randint");
        let raw = [("low", "0"), ("high", "5"), ("dtype", "float32")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert!(crate::Attrs::parse(op.params, &raw).is_err());
    }

    #[test]
    fn invalid_parameters_are_errors_naming_them() {
        for (op, kv, name) in [
            (
                "_random_randint",
                &[("low", "3"), ("high", "3")][..],
                "`low`",
            ),
            ("_random_randint", &[("low", "5"), ("high", "-1")], "`high`"),
            (
                "_random_randint",
                &[("low", "0"), ("high", "2147483649")],
                "`high`",
            ),
            (
                "_random_randint",
                &[("low", "-2147483649"), ("high", "0")],
                "`low`",
            ),
            ("_random_poisson", &[("lam", "-0.5")], "`lam`"),
            ("_random_poisson", &[("lam", "inf")], "`lam`"),
            ("_random_negative_binomial", &[("k", "0")], "`k`"),
            ("_random_negative_binomial", &[("p", "0")], "`p`"),
            ("_random_negative_binomial", &[("p", "1.5")], "`p`"),
            (
                "_random_generalized_negative_binomial",
                &[("mu", "-1")],
                "`mu`",
            ),
            (
                "_random_generalized_negative_binomial",
                &[("alpha", "-0.1")],
                "`alpha`",
            ),
        ] {
            let mut kv = kv.to_vec();
            kv.push(("shape", "(2,)"));
            let e = message(infer(op, &kv, &[]));
            assert!(e.contains(name) && e.contains(op), "{e}");
            let e = message(run::<crate::Tensor>(op, &kv, &[], false));
            assert!(e.contains(name), "{e}");
        }
        // int64 lifts the int32 limits.
        let kv = [
            ("low", "0"),
            ("high", "2147483649"),
            ("dtype", "int64"),
            ("shape", "(2,)"),
        ];
        assert!(infer("_random_randint", &kv, &[]).is_ok());
    }
}
