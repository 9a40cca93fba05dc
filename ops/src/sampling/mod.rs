//! Random samplers: zero-input operators (and the NumPy-interface location-scale samplers,
//! whose location and scale may also be arrays) drawing from the counter-based Philox
//! generator, so a value depends only on the seed, the operator instance and the element
//! index — never on thread count or backend.
//!
//! MXNet 1.9.1 registers, in `src/operator/random/sample_op.cc`: `_random_uniform`,
//! `_random_normal`, `_random_gamma`, `_random_exponential`, `_random_poisson`,
//! `_random_negative_binomial`, `_random_generalized_negative_binomial` and `_random_randint`
//! (each with its `random_*` alias, plus the deprecated bare `uniform`/`normal`); the
//! logistic and Gumbel samplers exist only in the NumPy interface, as `_npi_logistic` and
//! `_npi_gumbel` (`src/operator/numpy/random/np_location_scale_op.cc`).
//!
//! - [`draw`]: the per-element algorithms (Box–Muller, Marsaglia–Tsang, PTRS, ...).
//! - `continuous`: uniform, normal, exponential, gamma.
//! - `discrete`: randint, Poisson, negative binomial, generalized negative binomial.
//! - `location_scale`: `_npi_logistic`, `_npi_gumbel`.
//!
//! Parameters are validated both in shape inference (so a bad graph fails when it is
//! built) and in the reference kernel: an invalid parameter is an [`OpError`] naming it.

mod continuous;
mod discrete;
pub mod draw;
mod location_scale;

use crate::param::{param, ParamDef, ParamType};
use crate::shape::{invalid, set_out, OpError, Shape};
use crate::{
    Attrs, Compute, DType, DTypeFn, Inputs, KernelCtx, OpDef, Pattern, RefKernel, Registry,
    Resource, ShapeFn, Tensor,
};

/// The `dtype` choices of MXNet 1.9.1's float samplers (no bfloat16).
const FLOAT_DTYPE_NAMES: ParamType = ParamType::Enum(&["None", "float16", "float32", "float64"]);
/// The storage dtypes the float samplers produce.
const FLOAT_DTYPES: &[DType] = &[DType::F32, DType::F64, DType::F16];

/// The output shape (every sampler of `sample_op.cc` has it).
const SHAPE: ParamDef = param("shape", ParamType::Shape, Some("()"), "output shape");
const CTX: ParamDef = param(
    "ctx",
    ParamType::Str,
    Some(""),
    "device (ignored: arrays say where they live)",
);
const FLOAT_DTYPE: ParamDef = param(
    "dtype",
    FLOAT_DTYPE_NAMES,
    Some("None"),
    "output dtype (None: float32)",
);

/// A zero-input sampler of `sample_op.cc`: output shape from `shape`, dtype from `dtype`.
#[allow(clippy::too_many_arguments)]
const fn sampler(
    name: &'static str,
    aliases: &'static [&'static str],
    doc: &'static str,
    params: &'static [ParamDef],
    infer_shape: ShapeFn,
    infer_dtype: DTypeFn,
    dtypes: &'static [DType],
    reference: RefKernel,
) -> OpDef {
    OpDef {
        aliases,
        doc,
        params,
        inputs: Inputs::Fixed(&[]),
        infer_shape,
        infer_dtype,
        inplace: &[],
        resources: &[Resource::Random],
        side_effect: true,
        dtypes,
        ..OpDef::new(
            name,
            Pattern::Opaque,
            Compute::Library {
                kernel: "random",
                reference,
            },
        )
    }
}

/// Output 0 takes the `shape` parameter (left unknown when it is `()`).
fn shape_param(a: &Attrs, _: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let dims = a.shape("shape");
    if dims.iter().any(|&d| d <= 0) {
        return Err(OpError::Invalid(format!(
            "`shape` {dims:?} must have positive dimensions"
        )));
    }
    set_out(
        outs,
        0,
        &dims.iter().map(|&d| d as usize).collect::<Vec<_>>(),
    )
}

/// Output 0 takes the `dtype` parameter, `default` when it is `None`.
fn dtype_param_or(default: DType, a: &Attrs, outs: &mut [Option<DType>]) -> Result<(), OpError> {
    let want = DType::parse(a.str("dtype")).unwrap_or(default);
    match outs[0] {
        Some(have) if have != want => Err(OpError::DType {
            slot: crate::Slot::Out(0),
            have,
            want,
        }),
        _ => {
            outs[0] = Some(want);
            Ok(())
        }
    }
}

/// The float samplers' dtype rule: `dtype`, float32 when `None`.
fn float_dtype(
    a: &Attrs,
    _: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    dtype_param_or(DType::F32, a, outs)
}

/// A parameter check: `{op}: `{name}` must be {what}, got {value}` unless `ok`.
fn require(op: &str, name: &str, value: f64, ok: bool, what: &str) -> Result<(), OpError> {
    if ok {
        Ok(())
    } else {
        invalid(format!("{op}: `{name}` must be {what}, got {value}"))
    }
}

/// Output 0 filled element by element: `f(i)` is element `i` (row-major).
fn sample(ctx: &KernelCtx, f: impl Fn(u64) -> f64) -> Vec<Tensor> {
    let shape = ctx.out_shapes[0].clone();
    let n = shape.iter().product::<usize>() as u64;
    vec![Tensor::new(
        ctx.out_dtypes[0],
        shape,
        (0..n).map(f).collect(),
    )]
}

/// Samplers are not differentiable: no gradient cases. (MXNet differentiates
/// `_npi_logistic`/`_npi_gumbel` with respect to array `loc`/`scale`; kiln does not yet.)
#[cfg(test)]
pub(crate) const GRAD_CASES: &[crate::testutil::GradCase] = &[];

pub fn register(r: &mut Registry) {
    continuous::register(r);
    discrete::register(r);
    location_scale::register(r);
}

/// Statistical checks shared by the samplers' tests. Samples are fixed by the seed, so
/// each check either always passes or always fails; thresholds are set so that a correct
/// sampler fails with probability about 0.1% (KS, chi-square) or below 1e-4 (moments, at
/// four standard errors).
#[cfg(test)]
pub(crate) mod stats {
    use crate::testutil::{attrs, infer, op};
    use crate::{evaluate, DType, KernelCtx, OpError, Tensor};

    /// The sample size of the distribution tests.
    pub const N: usize = 100_000;

    /// Shape and dtype inference, then the reference kernel under generator key `key`.
    pub fn evaluate_with_key(
        name: &str,
        kv: &[(&str, &str)],
        inputs: &[&Tensor],
        key: [u32; 2],
    ) -> Result<Vec<Tensor>, OpError> {
        let o = op(name);
        let a = attrs(o, kv);
        let shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape.as_slice()).collect();
        let (_, outs) = infer(name, kv, &shapes)?;
        let mut in_dts: Vec<Option<DType>> = inputs.iter().map(|t| Some(t.dtype)).collect();
        let mut dts = vec![None; outs.len()];
        (o.infer_dtype)(&a, &mut in_dts, &mut dts)?;
        let dts: Vec<DType> = dts.into_iter().map(|d| d.unwrap_or(DType::F64)).collect();
        let ctx = KernelCtx {
            attrs: &a,
            is_train: false,
            out_shapes: &outs,
            out_dtypes: &dts,
            rng_key: key,
        };
        evaluate(o, &ctx, inputs)
    }

    /// The generator key of one statistical case, from its operator and attributes
    /// (FNV-1a): each case is an independent trial, rather than every test transforming
    /// the same uniforms.
    pub fn case_key(name: &str, kv: &[(&str, &str)]) -> [u32; 2] {
        let text = format!("{name}{kv:?}");
        let seed = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        });
        crate::random::key(seed, 0)
    }

    /// All outputs of `name` with `kv` (no inputs) under the case's own key.
    pub fn outputs(name: &str, kv: &[(&str, &str)]) -> Vec<Tensor> {
        evaluate_with_key(name, kv, &[], case_key(name, kv)).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `N` draws of `name` with `kv` (shape `(N,)`, float64 unless `kv` sets `dtype`).
    pub fn draws(name: &str, kv: &[(&str, &str)]) -> Vec<f64> {
        let shape = format!("({N},)");
        let mut all: Vec<(&str, &str)> = vec![("shape", &shape)];
        if !kv.iter().any(|(k, _)| *k == "dtype") {
            all.push(("dtype", "float64"));
        }
        all.extend_from_slice(kv);
        outputs(name, &all).swap_remove(0).data
    }

    /// The Kolmogorov–Smirnov statistic of `xs` against the CDF `cdf`.
    pub fn ks(mut xs: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
        xs.sort_by(f64::total_cmp);
        let n = xs.len() as f64;
        xs.iter().enumerate().fold(0.0, |d, (i, &x)| {
            let c = cdf(x);
            d.max((c - i as f64 / n).abs())
                .max(((i + 1) as f64 / n - c).abs())
        })
    }

    /// KS at the 0.1% level: the statistic of a correct sampler exceeds 1.95/sqrt(n) with
    /// probability 0.1% (asymptotic Kolmogorov distribution).
    pub fn assert_ks(what: &str, xs: Vec<f64>, cdf: impl Fn(f64) -> f64) {
        let limit = 1.95 / (xs.len() as f64).sqrt();
        let d = ks(xs, cdf);
        println!("{what}: KS D = {d:.5} (limit {limit:.5})");
        assert!(d < limit, "{what}: KS statistic {d} ≥ {limit}");
    }

    pub fn moments(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        (mean, xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n)
    }

    /// Sample mean and variance within four standard errors of the distribution's: the mean's
    /// is sqrt(var/n), the variance's var·sqrt((2 + excess kurtosis)/n).
    pub fn assert_moments(what: &str, xs: &[f64], mean: f64, var: f64, excess_kurtosis: f64) {
        let n = xs.len() as f64;
        let (m, v) = moments(xs);
        let se_mean = (var / n).sqrt();
        let se_var = var * ((2.0 + excess_kurtosis) / n).sqrt();
        let (zm, zv) = ((m - mean) / se_mean, (v - var) / se_var);
        println!(
            "{what}: mean {m:.5} (want {mean:.5}, z {zm:+.2}), var {v:.5} (want {var:.5}, z {zv:+.2})"
        );
        assert!(zm.abs() < 4.0, "{what}: mean {m}, want {mean} ± {se_mean}");
        assert!(
            zv.abs() < 4.0,
            "{what}: variance {v}, want {var} ± {se_var}"
        );
    }

    /// Pearson's chi-square statistic of integer samples `xs` against `pmf`, whose support
    /// starts at `first`, and its degrees of freedom. Consecutive values are pooled until a
    /// cell expects at least 5 samples; the last cell takes the whole upper tail.
    pub fn chi_square(xs: &[f64], first: i64, pmf: impl Fn(i64) -> f64) -> (f64, usize) {
        let n = xs.len() as f64;
        let (mut starts, mut expected) = (vec![], vec![]);
        let (mut start, mut k, mut acc, mut cum) = (first, first, 0.0, 0.0);
        while n * (1.0 - cum) >= 5.0 {
            let p = pmf(k);
            acc += p;
            cum += p;
            k += 1;
            if n * acc >= 5.0 && n * (1.0 - cum) >= 5.0 {
                starts.push(start);
                expected.push(n * acc);
                (start, acc) = (k, 0.0);
            }
        }
        starts.push(start);
        expected.push(n * (acc + (1.0 - cum).max(0.0)));
        let mut observed = vec![0.0; starts.len()];
        for &x in xs {
            assert!(
                x == x.round() && x >= first as f64,
                "not in the support: {x}"
            );
            let cell = starts.partition_point(|&s| s as f64 <= x) - 1;
            observed[cell] += 1.0;
        }
        let stat = observed
            .iter()
            .zip(&expected)
            .map(|(o, e)| (o - e) * (o - e) / e)
            .sum();
        (stat, starts.len() - 1)
    }

    /// The regularized lower incomplete gamma function P(a, x) (the CDF of Gamma(a, 1) at
    /// x): its power series below x = a + 1, Legendre's continued fraction (modified Lentz)
    /// above, as in Numerical Recipes §6.2.
    pub fn gamma_p(a: f64, x: f64) -> f64 {
        if x <= 0.0 {
            return 0.0;
        }
        let log_prefix = a * x.ln() - x - super::draw::ln_gamma(a);
        if x < a + 1.0 {
            let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
            for _ in 0..10_000 {
                ap += 1.0;
                term *= x / ap;
                sum += term;
                if term.abs() < sum.abs() * 1e-16 {
                    break;
                }
            }
            (sum.ln() + log_prefix).exp().min(1.0)
        } else {
            let tiny = 1e-300;
            let mut b = x + 1.0 - a;
            let (mut c, mut d) = (1.0 / tiny, 1.0 / b);
            let mut h = d;
            for i in 1..10_000 {
                let an = -(i as f64) * (i as f64 - a);
                b += 2.0;
                d = an * d + b;
                d = if d.abs() < tiny { tiny } else { d };
                c = b + an / c;
                c = if c.abs() < tiny { tiny } else { c };
                d = 1.0 / d;
                let delta = d * c;
                h *= delta;
                if (delta - 1.0).abs() < 1e-16 {
                    break;
                }
            }
            1.0 - (h.ln() + log_prefix).exp()
        }
    }

    /// The upper 0.1% point of the chi-square distribution with `df` degrees of freedom:
    /// the x with 1 − P(df/2, x/2) = 0.001, by bisection.
    pub fn chi2_critical(df: usize) -> f64 {
        let (mut lo, mut hi) = (0.0, 10.0 * df as f64 + 100.0);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if 1.0 - gamma_p(df as f64 / 2.0, mid / 2.0) > 0.001 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    pub fn assert_chi_square(what: &str, xs: &[f64], first: i64, pmf: impl Fn(i64) -> f64) {
        let (stat, df) = chi_square(xs, first, pmf);
        let limit = chi2_critical(df);
        println!("{what}: chi-square {stat:.2} on {df} df (0.1% critical value {limit:.2})");
        assert!(df >= 2, "{what}: too few cells ({df} df)");
        assert!(
            stat < limit,
            "{what}: chi-square {stat} ≥ {limit} ({df} df)"
        );
    }

    #[test]
    fn chi2_critical_values_match_tables() {
        // Upper 0.1% points from standard tables (e.g. NIST/SEMATECH e-Handbook, 1.3.6.7.4).
        for (df, want) in [(1, 10.828), (3, 16.266), (10, 29.588), (50, 86.661)] {
            let got = chi2_critical(df);
            assert!((got - want).abs() < 2e-3, "df {df}: {got} vs {want}");
        }
        // P(1, x) = 1 - exp(-x); P(1/2, x) = erf(sqrt(x)).
        for x in [0.1, 1.0, 2.5, 7.0] {
            assert!((gamma_p(1.0, x) - (1.0 - (-x).exp())).abs() < 1e-13);
            assert!((gamma_p(0.5, x) - crate::expr::erf(x.sqrt())).abs() < 1e-12);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{attrs, op};

    /// A sampler, attributes that make it non-degenerate, and its shape parameter.
    type Case = (
        &'static str,
        &'static [(&'static str, &'static str)],
        &'static str,
    );

    const CASES: &[Case] = &[
        ("_random_uniform", &[], "shape"),
        ("_random_normal", &[], "shape"),
        ("_random_exponential", &[("lam", "2")], "shape"),
        ("_random_gamma", &[("alpha", "0.7")], "shape"),
        ("_random_gamma", &[("alpha", "3")], "shape"),
        ("_random_poisson", &[("lam", "4")], "shape"),
        ("_random_poisson", &[("lam", "30")], "shape"),
        (
            "_random_negative_binomial",
            &[("k", "3"), ("p", "0.4")],
            "shape",
        ),
        (
            "_random_generalized_negative_binomial",
            &[("mu", "2"), ("alpha", "0.3")],
            "shape",
        ),
        (
            "_random_randint",
            &[("low", "-100"), ("high", "100")],
            "shape",
        ),
        ("_npi_logistic", &[("loc", "0"), ("scale", "1")], "size"),
        ("_npi_gumbel", &[("loc", "0"), ("scale", "1")], "size"),
    ];

    fn draw(
        name: &str,
        kv: &[(&str, &str)],
        shape_key: &str,
        shape: &str,
        key: [u32; 2],
    ) -> Vec<f64> {
        let mut kv = kv.to_vec();
        kv.push((shape_key, shape));
        super::stats::evaluate_with_key(name, &kv, &[], key)
            .unwrap()
            .swap_remove(0)
            .data
    }

    #[test]
    fn values_depend_on_the_key_and_the_element_index_alone() {
        let key = crate::random::key(42, 3);
        for &(name, kv, shape_key) in CASES {
            let flat = draw(name, kv, shape_key, "(60,)", key);
            assert_eq!(
                flat,
                draw(name, kv, shape_key, "(60,)", key),
                "{name}: same key"
            );
            // Element i is the same whatever the shape around it.
            assert_eq!(
                flat,
                draw(name, kv, shape_key, "(3, 4, 5)", key),
                "{name}: reshaped"
            );
            let longer = draw(name, kv, shape_key, "(200,)", key);
            assert_eq!(flat, longer[..60], "{name}: prefix of a longer draw");
            let other = draw(name, kv, shape_key, "(60,)", crate::random::key(43, 3));
            assert_ne!(flat, other, "{name}: another seed");
            let distinct = flat.iter().filter(|&&x| x != flat[0]).count();
            assert!(distinct > 0, "{name}: constant output {flat:?}");
        }
    }

    #[test]
    fn samplers_are_zero_input_random_and_not_differentiable() {
        for &(name, kv, _) in CASES {
            let o = op(name);
            assert!(o.resources.contains(&crate::Resource::Random), "{name}");
            assert!(o.side_effect, "{name}");
            assert!(matches!(o.grad, crate::Grad::NotDifferentiable), "{name}");
            assert!(o.input_names(&attrs(o, kv)).is_empty(), "{name}");
            assert!(o.nominal_signature().0.is_empty(), "{name}");
        }
        // MXNet 1.9.1's aliases.
        for (alias, name) in [
            ("random_exponential", "_random_exponential"),
            ("random_gamma", "_random_gamma"),
            ("random_poisson", "_random_poisson"),
            ("random_negative_binomial", "_random_negative_binomial"),
            (
                "random_generalized_negative_binomial",
                "_random_generalized_negative_binomial",
            ),
            ("random_randint", "_random_randint"),
            ("random_logistic", "_npi_logistic"),
            ("_random_gumbel", "_npi_gumbel"),
        ] {
            assert_eq!(op(alias).name, name);
        }
    }
}
