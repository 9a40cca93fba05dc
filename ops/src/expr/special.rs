//! Special functions for the oracle's f64 evaluation, which Rust's std lacks: erf and erfc
//! (Cody), erfinv (Giles' guess refined by Newton), gamma and lgamma (Stirling's series
//! after the recurrence), digamma (the same with its own series). Each states its accuracy;
//! the tests compare with 20-digit values mpmath computes at 50 digits for the exact
//! f64 arguments.
//!
//! Backends lower these primitives to their own approximations (DESIGN: math functions);
//! these are the reference they are checked against, so they favour accuracy over speed.

use std::f64::consts::{FRAC_2_SQRT_PI, PI};

/// √π / 2: erfinv'(0), and the scale of erfinv's derivative.
pub const SQRT_PI_2: f64 = 0.886_226_925_452_758;

/// The error function, to about 1e-16 relative (W. J. Cody, "Rational Chebyshev
/// approximations for the error function", Math. Comp. 23 (1969), the coefficients most
/// libms use).
#[allow(clippy::excessive_precision)] // Cody's coefficients, as published
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let ax = x.abs();
    if ax < 0.5 {
        let t = x * x;
        let p = [
            3.209377589138469e3,
            3.774852376853020e2,
            1.138641541510502e2,
            3.161123743870566,
            1.857777061846032e-1,
        ];
        let q = [
            2.844236833439171e3,
            1.282616526077372e3,
            2.440246379344442e2,
            2.360129095234412e1,
            1.0,
        ];
        let num = (((p[4] * t + p[3]) * t + p[2]) * t + p[1]) * t + p[0];
        let den = (((q[4] * t + q[3]) * t + q[2]) * t + q[1]) * t + q[0];
        return x * num / den;
    }
    let r = 1.0 - erfc_tail(ax);
    if x < 0.0 {
        -r
    } else {
        r
    }
}

/// The complementary error function, to about 1e-15 relative for x ≥ 0.5 (where
/// `1 - erf(x)` would lose the digits that erfinv's refinement near ±1 needs).
pub fn erfc(x: f64) -> f64 {
    if x < 0.5 {
        1.0 - erf(x)
    } else {
        erfc_tail(x)
    }
}

/// erfc for `ax >= 0.5` (Cody's two outer ranges).
#[allow(clippy::excessive_precision)] // Cody's coefficients, as published
fn erfc_tail(ax: f64) -> f64 {
    if ax < 4.0 {
        let p = [
            1.23033935479799725e3,
            2.05107837782607147e3,
            1.71204761263407058e3,
            8.81952221241769090e2,
            2.98635138197400131e2,
            6.61191906371416295e1,
            8.88314979438837594,
            5.64188496988670089e-1,
            2.15311535474403846e-8,
        ];
        let q = [
            1.23033935480374942e3,
            3.43936767414372164e3,
            4.36261909014324716e3,
            3.29079923573345963e3,
            1.62138957456669019e3,
            5.37181101862009858e2,
            1.17693950891312499e2,
            1.57449261107098347e1,
            1.0,
        ];
        let num = p.iter().rev().fold(0.0, |acc, &c| acc * ax + c);
        let den = q.iter().rev().fold(0.0, |acc, &c| acc * ax + c);
        exp_neg_square(ax) * num / den
    } else {
        let p = [
            -6.58749161529837803e-4,
            -1.60837851487422766e-2,
            -1.25781726111229246e-1,
            -3.60344899949804439e-1,
            -3.05326634961232344e-1,
            -1.63153871373020978e-2,
        ];
        let q = [
            2.33520497626869185e-3,
            6.05183413124413191e-2,
            5.27905102951428412e-1,
            1.87295284992346725,
            2.56852019228982242,
            1.0,
        ];
        let z = 1.0 / (ax * ax);
        let num = p.iter().rev().fold(0.0, |acc, &c| acc * z + c);
        let den = q.iter().rev().fold(0.0, |acc, &c| acc * z + c);
        let frac_1_sqrt_pi = 0.564_189_583_547_756_3;
        exp_neg_square(ax) / ax * (frac_1_sqrt_pi + z * num / den)
    }
}

/// e^(−x²) without the rounding error of x² (which e^ would multiply by x²): as Cody, x is
/// split into a head with few bits, whose square is exact, and a small tail.
fn exp_neg_square(x: f64) -> f64 {
    if x.is_infinite() {
        return 0.0;
    }
    let head = (x * 16.0).trunc() / 16.0;
    let tail = (x - head) * (x + head);
    (-head * head).exp() * (-tail).exp()
}

/// The inverse error function, to about 1e-15 relative on (-1, 1); ±1 give ±∞ and
/// |x| > 1 gives NaN, as MXNet. The starting point is M. Giles' single-precision
/// approximation ("Approximating the erfinv function", GPU Computing Gems Jade, 2011;
/// ~1e-7 relative), refined by Newton steps on `erf(y) = x`, or on `erfc(y) = 1 - |x|` for
/// |x| > 0.5, where `1 - |x|` is exact and erfc keeps the digits erf has lost. There the
/// steps are taken on ln erfc, which is nearly quadratic, so that they also converge fast
/// from the far tail (x within 1e-7 of ±1), where Giles' guess is an extrapolation.
#[allow(clippy::excessive_precision)] // Giles' coefficients, as published
pub fn erfinv(x: f64) -> f64 {
    let ax = x.abs();
    if x.is_nan() || ax > 1.0 {
        return f64::NAN;
    }
    if ax == 1.0 {
        return x * f64::INFINITY;
    }
    if ax < 1e-6 {
        // The series erfinv(x) = √π/2 (x + π/12 x³ + ...): the next term is below 1e-24.
        return SQRT_PI_2 * x * (1.0 + PI / 12.0 * x * x);
    }
    let w = -((1.0 - ax) * (1.0 + ax)).ln();
    let guess = if w < 5.0 {
        let w = w - 2.5;
        [
            2.81022636e-08,
            3.43273939e-07,
            -3.5233877e-06,
            -4.39150654e-06,
            0.00021858087,
            -0.00125372503,
            -0.00417768164,
            0.246640727,
            1.50140941,
        ]
        .iter()
        .fold(0.0, |p, &c| c + p * w)
    } else {
        let w = w.sqrt() - 3.0;
        [
            -0.000200214257,
            0.000100950558,
            0.00134934322,
            -0.00367342844,
            0.00573950773,
            -0.0076224613,
            0.00943887047,
            1.00167406,
            2.83297682,
        ]
        .iter()
        .fold(0.0, |p, &c| c + p * w)
    };
    let mut y = ax * guess;
    for _ in 0..8 {
        let slope = FRAC_2_SQRT_PI * (-y * y).exp(); // erf'(y) = -erfc'(y)
        let step = if ax <= 0.5 {
            (erf(y) - ax) / slope
        } else {
            let tail = erfc(y);
            // Newton on ln erfc(y) = ln(1 - ax).
            (tail / (1.0 - ax)).ln() * tail / -slope
        };
        y -= step;
        if step.abs() <= f64::EPSILON * y {
            break;
        }
    }
    y.copysign(x)
}

/// Stirling's series ln Γ(x) − [(x−½) ln x − x + ½ ln 2π] = Σ B₂ₖ / (2k(2k−1) x²ᵏ⁻¹), k =
/// 1..7, for x ≥ 10, where the first omitted term is below 3e-17.
fn stirling_series(x: f64) -> f64 {
    let z = 1.0 / (x * x);
    (1.0 / 12.0
        - z * (1.0 / 360.0
            - z * (1.0 / 1260.0
                - z * (1.0 / 1680.0 - z * (1.0 / 1188.0 - z * (691.0 / 360360.0 - z / 156.0))))))
        / x
}

/// ½ ln(2π).
const HALF_LN_2PI: f64 = 0.918_938_533_204_672_8;

/// sin(πx), exact at integers and accurate for large |x| (the reduction is exact).
fn sin_pi(x: f64) -> f64 {
    let r = x - 2.0 * (x / 2.0).round(); // in [-1, 1], exact
    let r = if r > 0.5 {
        1.0 - r
    } else if r < -0.5 {
        -1.0 - r
    } else {
        r
    };
    (PI * r).sin()
}

/// The gamma function with C's `tgamma` conventions (MXNet calls it): Γ(±0) = ±∞, NaN at
/// the negative integers and −∞, overflow to ∞ above 171.62. Exact at the integers up to
/// 23 (22! is the last factorial a f64 holds exactly); elsewhere about 5e-15 relative:
/// Stirling's series from 10 up — with x^(x−½) e^(−x) formed as Cephes does, by halves, so
/// that no large exponent is rounded — the recurrence Γ(x) = Γ(x+n)/(x(x+1)…) below, and
/// Euler's reflection below ½.
pub fn gamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == 0.0 {
        return 1.0 / x; // keeps the sign of zero
    }
    if x == x.floor() {
        if x < 0.0 {
            return f64::NAN;
        }
        if x <= 23.0 {
            return (2..x as u32).fold(1.0, |acc, k| acc * k as f64);
        }
    }
    if x < 0.5 {
        return PI / (sin_pi(x) * gamma(1.0 - x));
    }
    if x > 171.7 {
        return f64::INFINITY;
    }
    let (mut y, mut product) = (x, 1.0);
    while y < 10.0 {
        product *= y;
        y += 1.0;
    }
    let half = y.powf((y - 0.5) / 2.0);
    (2.0 * PI).sqrt() * half * (half * (-y).exp()) * stirling_series(y).exp() / product
}

/// ln|Γ(x)| with C's `lgamma` conventions: +∞ at the non-positive integers and ±∞.
/// About 2e-15 relative, or 3e-15 absolute below 10 (near its zeros at 1 and 2: the log of
/// [`gamma`] below 10, Stirling's series above, reflection below 0).
pub fn lgamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() || (x <= 0.0 && x == x.floor()) {
        return f64::INFINITY;
    }
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    if x < 0.0 {
        return (PI / sin_pi(x).abs()).ln() - lgamma(1.0 - x);
    }
    if x < 1e-8 {
        // ln Γ(x) = −ln x − γx + O(x²), where Γ itself may overflow.
        let euler_gamma = 0.577_215_664_901_532_9;
        return -x.ln() - euler_gamma * x;
    }
    if x < 10.0 {
        return gamma(x).ln();
    }
    (x - 0.5) * x.ln() - x + HALF_LN_2PI + stirling_series(x)
}

/// The digamma function ψ = Γ'/Γ, to about 1e-15 absolute: NaN at the poles (the
/// non-positive integers), reflection ψ(x) = ψ(1−x) − π/tan(πx) below 0, the recurrence
/// ψ(x) = ψ(x+1) − 1/x up to 10, then the asymptotic series (the first omitted term is
/// below 5e-17 there).
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY || (x <= 0.0 && x == x.floor()) {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return x;
    }
    if x < 0.0 {
        let r = x - x.round(); // tan has period 1; the reduction is exact
        return digamma(1.0 - x) - PI / (PI * r).tan();
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    // Σ B₂ₖ / (2k x²ᵏ) for k = 1..7, Horner in 1/x².
    let series = z
        * (1.0 / 12.0
            - z * (1.0 / 120.0
                - z * (1.0 / 252.0
                    - z * (1.0 / 240.0 - z * (1.0 / 132.0 - z * (691.0 / 32760.0 - z / 12.0))))));
    acc + x.ln() - 0.5 / x - series
}

#[cfg(test)]
#[allow(clippy::excessive_precision)] // reference values keep mpmath's 20 digits
mod tests {
    use super::*;

    /// `got` within `rel` of `want` (relative), or both NaN, or equal infinities.
    fn close(what: &str, got: f64, want: f64, rel: f64) {
        close_abs(what, got, want, rel, 0.0)
    }

    /// As [`close`], with an absolute allowance `abs` as well.
    fn close_abs(what: &str, got: f64, want: f64, rel: f64, abs: f64) {
        let ok = (got.is_nan() && want.is_nan())
            || got == want
            || (got - want).abs() <= rel * want.abs() + abs;
        assert!(ok, "{what}: got {got:e}, want {want:e}");
    }

    #[test]
    fn erf_matches_known_values() {
        // Reference values from tables of erf (Abramowitz & Stegun) and mpmath.
        for (x, want) in [
            (0.0, 0.0),
            (0.1, 0.1124629160182849),
            (0.5, 0.5204998778130465),
            (1.0, 0.8427007929497149),
            (2.0, 0.9953222650189527),
            (5.0, 0.9999999999984626),
        ] {
            assert!(
                (erf(x) - want).abs() < 1e-15,
                "erf({x}) = {} want {want}",
                erf(x)
            );
            assert!((erf(-x) + want).abs() < 1e-15);
        }
        for (x, want) in [
            (0.6, 0.39614390915207409492),
            (1.3, 0.06599205505934755415),
            (3.5, 7.4309837234141274552e-7),
            (4.5, 1.9661604415428874763e-10),
            (5.9, 7.1904097835504777249e-17),
        ] {
            close(&format!("erfc({x})"), erfc(x), want, 2e-15);
        }
        assert!(erf(f64::NAN).is_nan());
        assert_eq!(erf(f64::INFINITY), 1.0);
    }

    #[test]
    fn erfinv_inverts_erf_up_to_the_ends() {
        for (x, want) in [
            (0.5, 0.47693627620446987338),
            (0.9, 1.1630871536766741628),
            (0.999, 2.3267537655135244939),
            (-0.3, -0.27246271472675434502),
            (1e-8, 8.8622692545275805539e-9),
            (0.999999, 3.4589107372754987775),
            (0.9999999999, 4.5728249585449249378),
            // The last two doubles below 1 (1 − 2⁻⁵², 1 − 2⁻⁵³).
            (1.0 - f64::EPSILON, 5.8050186831934533002),
            (1.0 - f64::EPSILON / 2.0, 5.8635847487551679272),
        ] {
            close(&format!("erfinv({x})"), erfinv(x), want, 4e-15);
            close(&format!("erfinv(-{x})"), erfinv(-x), -want, 4e-15);
        }
        assert_eq!(erfinv(1.0), f64::INFINITY);
        assert_eq!(erfinv(-1.0), f64::NEG_INFINITY);
        assert!(erfinv(1.5).is_nan() && erfinv(-1.0000001).is_nan() && erfinv(f64::NAN).is_nan());
        assert_eq!(erfinv(0.0), 0.0);
        assert!(erfinv(-0.0).is_sign_negative());
        // Round trips over a sweep of the interval and of the doubles next to 1.
        for k in -999..1000 {
            let x = k as f64 / 1000.0;
            assert!((erf(erfinv(x)) - x).abs() < 4e-16, "erf(erfinv({x}))");
        }
        for k in 1..2000 {
            let x = 1.0 - k as f64 * f64::EPSILON / 2.0;
            let back = erfc(erfinv(x)) / (1.0 - x) - 1.0;
            assert!(back.abs() < 4e-14, "erfc(erfinv({x})) is off by {back:e}");
        }
    }

    #[test]
    fn gamma_matches_known_values() {
        for (x, want) in [
            (0.5, 1.7724538509055160273),
            (1.5, 0.88622692545275801365),
            (-0.5, -3.5449077018110320546),
            (-1.5, 2.3632718012073547031),
            (-2.5, -0.94530872048294188123),
            (-3.7, 0.25164399590242268129),
            (0.1, 9.5135076986687312858),
            (1e-8, 99999999.422784342897),
            (7.3, 1271.4236336639088399),
            (30.2, 1.7410094445911311909e31),
            (171.5, 9.4833675668247993363e307),
            (-170.5, -3.3127395215386073148e-308),
        ] {
            close(&format!("gamma({x})"), gamma(x), want, 5e-15);
        }
        // Exact factorials, C's conventions at the poles and ends.
        assert_eq!(gamma(5.0), 24.0);
        assert_eq!(gamma(23.0), 1_124_000_727_777_607_680_000.0);
        assert_eq!(gamma(1.0), 1.0);
        assert_eq!(gamma(0.0), f64::INFINITY);
        assert_eq!(gamma(-0.0), f64::NEG_INFINITY);
        assert!(gamma(-1.0).is_nan() && gamma(-2.0).is_nan() && gamma(f64::NEG_INFINITY).is_nan());
        assert_eq!(gamma(172.0), f64::INFINITY);
        assert_eq!(gamma(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn lgamma_matches_known_values() {
        for (x, want) in [
            (0.5, 0.57236494292470008707),
            (-0.5, 1.2655121234846453965),
            (-2.5, -0.056243716497674050673),
            (-3.7, -1.379739904965824496),
            (1e-8, 18.420680738180208884),
            (7.3, 7.1478925230222486921),
            (30.2, 71.934602968394985561),
            (1000.5, 5908.6741758486774887),
            (1e10, 220258509288.81058147),
            (2.5, 0.28468287047291915963),
            (0.9, 0.066376239734742954426),
        ] {
            close_abs(&format!("lgamma({x})"), lgamma(x), want, 2e-15, 1e-15);
        }
        // Near the zero at 1 the error is absolute.
        close_abs(
            "lgamma(1 + 1e-7)",
            lgamma(1.0000001),
            -5.772155829918507097e-8,
            0.0,
            3e-15,
        );
        assert_eq!(lgamma(1.0), 0.0);
        assert_eq!(lgamma(2.0), 0.0);
        for pole in [0.0, -1.0, -7.0, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(lgamma(pole), f64::INFINITY);
        }
    }

    #[test]
    fn digamma_matches_known_values() {
        for (x, want) in [
            (0.5, -1.9635100260214234794),
            (1.0, -0.57721566490153286061),
            (-0.5, 0.036489973978576520559),
            (7.3, 1.9178203356379860723),
            (100.0, 4.6001618527380874002),
            (-3.7, -0.84507685887041935462),
            (1e-5, -100000.57719921567289),
            (2.5, 0.70315664064524318723),
        ] {
            close_abs(&format!("digamma({x})"), digamma(x), want, 2e-15, 1e-15);
        }
        // At its positive root the error is absolute.
        assert!(digamma(1.4616321449683623).abs() < 1e-15);
        assert!(digamma(0.0).is_nan() && digamma(-3.0).is_nan());
    }
}
