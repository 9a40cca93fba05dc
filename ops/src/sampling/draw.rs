//! Per-element draws from the counter-based generator. Every function takes the operator
//! instance's key, a base stream and the element index, and reads only the Philox blocks at
//! counter (index, stream) for streams in a fixed range above the base. So an element's value
//! depends on (key, index) alone — not on its neighbours, the thread count or the backend —
//! even for the rejection samplers, which give every attempt its own streams and stop after
//! a bounded number of attempts with a documented fallback (whose probability is stated and
//! negligible).
//!
//! The uniforms have 24 random bits (see [`crate::random::uniform`]), so an f32 kernel can
//! reproduce them exactly; the transformations here run in f64 in the reference interpreter.

use crate::random::{philox4x32, uniform};

/// 2^-24: the spacing of the 24-bit uniforms.
const CELL: f64 = 1.0 / (1u64 << 24) as f64;

/// A uniform in the open interval (0, 1): the midpoint of the 24-bit cell, so the logarithm
/// of it and of its complement are finite.
pub fn open_uniform(key: [u32; 2], stream: u32, index: u64) -> f64 {
    uniform(key, stream, index) + 0.5 * CELL
}

/// 64 random bits: the first two words of the Philox block at (index, stream), for integer
/// draws wider than the 24-bit uniforms.
pub fn bits64(key: [u32; 2], stream: u32, index: u64) -> u64 {
    let r = philox4x32([index as u32, (index >> 32) as u32, stream, 0], key);
    ((r[0] as u64) << 32) | r[1] as u64
}

/// A standard normal by the Box–Muller transform (Box & Muller 1958) of the uniforms of
/// streams `stream` (radius; `1 - u` lies in (0, 1], so its logarithm is finite) and
/// `stream + 1` (angle).
pub fn std_normal(key: [u32; 2], stream: u32, index: u64) -> f64 {
    let u1 = 1.0 - uniform(key, stream, index);
    let u2 = uniform(key, stream + 1, index);
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A standard exponential by inversion: `-ln(1 - u)`, with `1 - u` in (0, 1].
pub fn std_exponential(key: [u32; 2], stream: u32, index: u64) -> f64 {
    -(1.0 - uniform(key, stream, index)).ln()
}

/// Attempts of the gamma rejection sampler before its fallback.
pub const GAMMA_ATTEMPTS: u32 = 16;
/// Streams [`gamma`] reads above its base: three per attempt (a normal from two, the
/// acceptance uniform from the third) and one for the shape < 1 boost.
pub const GAMMA_STREAMS: u32 = 3 * GAMMA_ATTEMPTS + 1;

/// Gamma(`alpha`, 1), by Marsaglia & Tsang, "A simple method for generating gamma
/// variables", ACM TOMS 26(3), 2000: with d = a − 1/3 and c = 1/sqrt(9d), draw x ~ N(0, 1)
/// and u ~ U(0, 1), set v = (1 + cx)³, and accept d·v when v > 0 and either the squeeze
/// u < 1 − 0.0331x⁴ or ln u < x²/2 + d(1 − v + ln v) holds. For `alpha` < 1 it samples
/// Gamma(α + 1) and multiplies by U^(1/α) (the paper's §6).
///
/// Attempt t reads streams base + 3t (two, the normal) and base + 3t + 2 (acceptance); the
/// boost uniform is stream base + 3·[`GAMMA_ATTEMPTS`]. Each attempt is accepted with
/// probability above 0.95 for every shape ≥ 1, so all 16 fail with probability below
/// 0.05^16 ≈ 1.5e-21; then the fallback is d (the Wilson–Hilferty median of Gamma(a, 1)).
pub fn gamma(key: [u32; 2], base: u32, index: u64, alpha: f64) -> f64 {
    let a = if alpha < 1.0 { alpha + 1.0 } else { alpha };
    let d = a - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    let accepted = (0..GAMMA_ATTEMPTS).find_map(|t| {
        let s = base + 3 * t;
        let x = std_normal(key, s, index);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            return None;
        }
        let v = v * v * v;
        let u = open_uniform(key, s + 2, index);
        let x2 = x * x;
        (u < 1.0 - 0.0331 * x2 * x2 || u.ln() < 0.5 * x2 + d * (1.0 - v + v.ln())).then_some(d * v)
    });
    let g = accepted.unwrap_or(d);
    if alpha < 1.0 {
        g * open_uniform(key, base + 3 * GAMMA_ATTEMPTS, index).powf(1.0 / alpha)
    } else {
        g
    }
}

/// Below this mean Poisson samples by inversion, from it by PTRS.
pub const POISSON_INVERSION_BELOW: f64 = 10.0;
/// Attempts of the PTRS rejection sampler before its fallback.
pub const POISSON_ATTEMPTS: u32 = 24;
/// Streams [`poisson`] reads above its base: two per PTRS attempt (inversion uses the first).
pub const POISSON_STREAMS: u32 = 2 * POISSON_ATTEMPTS;

/// Poisson(`lam`), `lam` ≥ 0 finite.
///
/// Below [`POISSON_INVERSION_BELOW`]: inversion by sequential search with one uniform u
/// (stream `base`): the smallest k with P(X ≤ k) > u, the terms built by
/// p(k) = p(k−1)·λ/k from e^−λ (Devroye, "Non-Uniform Random Variate Generation", 1986,
/// §X.3). The search stops once the CDF exceeds u ≤ 1 − 2^−24, long before its cap of
/// 1000 terms.
///
/// From it on: PTRS, the transformed rejection with squeeze of Hörmann, "The transformed
/// rejection method for generating Poisson random variables", Insurance: Mathematics and
/// Economics 12, 1993 (also NumPy's method for large means). Attempt t reads streams
/// base + 2t (U) and base + 2t + 1 (V). Each attempt accepts with probability above 0.85
/// for λ ≥ 10, so all 24 fail with probability below 1e-19; then the fallback is the mean
/// rounded to the nearest integer.
pub fn poisson(key: [u32; 2], base: u32, index: u64, lam: f64) -> f64 {
    if lam <= 0.0 {
        return 0.0;
    }
    if lam < POISSON_INVERSION_BELOW {
        let u = uniform(key, base, index);
        let (mut k, mut p) = (0.0, (-lam).exp());
        let mut cdf = p;
        while u >= cdf && k < 1000.0 {
            k += 1.0;
            p *= lam / k;
            cdf += p;
        }
        return k;
    }
    let (slam, loglam) = (lam.sqrt(), lam.ln());
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    (0..POISSON_ATTEMPTS)
        .find_map(|t| {
            let u = open_uniform(key, base + 2 * t, index) - 0.5;
            let v = open_uniform(key, base + 2 * t + 1, index);
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lam + 0.43).floor();
            if us >= 0.07 && v <= vr {
                return Some(k);
            }
            if k < 0.0 || (us < 0.013 && v > us) {
                return None;
            }
            let lhs = v.ln() + inv_alpha.ln() - (a / (us * us) + b).ln();
            (lhs <= -lam + k * loglam - ln_gamma(k + 1.0)).then_some(k)
        })
        .unwrap_or((lam + 0.5).floor())
}

/// ln Γ(x) for x > 0, by the Lanczos approximation with g = 7 and nine coefficients
/// (relative error about 1e-15), and the reflection formula below 1/2.
#[allow(clippy::excessive_precision)] // the published coefficients
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_93,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_13,
        -176.615_029_162_140_59,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_571_6e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let sum = C[1..]
        .iter()
        .enumerate()
        .fold(C[0], |s, (i, c)| s + c / (x + (i + 1) as f64));
    let t = x + G + 0.5;
    0.5 * (std::f64::consts::TAU).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_gamma_matches_factorials_and_half_integers() {
        let mut fact = 1.0f64;
        for n in 1..30 {
            // Γ(n) = (n-1)!
            let got = ln_gamma(n as f64);
            assert!(
                (got - fact.ln()).abs() <= 1e-13 * fact.ln().abs().max(1.0),
                "{n}"
            );
            fact *= n as f64;
        }
        let sqrt_pi_ln = 0.5 * std::f64::consts::PI.ln();
        assert!((ln_gamma(0.5) - sqrt_pi_ln).abs() < 1e-14);
        assert!((ln_gamma(1.5) - (sqrt_pi_ln - 2f64.ln())).abs() < 1e-14);
        // Γ(0.1) = 9.513507698668732 (Abramowitz & Stegun table 6.1).
        assert!((ln_gamma(0.1) - 9.513_507_698_668_732f64.ln()).abs() < 1e-13);
    }

    #[test]
    fn draws_depend_on_key_stream_and_index_only() {
        let k = crate::random::key(7, 1);
        assert_eq!(gamma(k, 0, 5, 0.3), gamma(k, 0, 5, 0.3));
        assert_ne!(gamma(k, 0, 5, 2.0), gamma(k, 0, 6, 2.0));
        assert_eq!(poisson(k, 0, 5, 50.0), poisson(k, 0, 5, 50.0));
        assert_ne!(bits64(k, 0, 1), bits64(k, 1, 1));
        let u = open_uniform(k, 3, 9);
        assert!(u > 0.0 && u < 1.0);
    }
}
