//! Comparing computed values with expected ones: what tests and reports that check numbers
//! go through, so that none passes on a NaN, an infinity or a missing value.
//!
//! Every comparison first checks that as many values (and arrays) came as were expected.
//! A non-finite value matches only the same non-finite value (NaN where the reference has
//! NaN, `+inf` where it has `+inf`): a NaN or an infinity where a number was expected is a
//! mismatch, whatever the tolerance, and so is a number where the reference is not finite.
//! Values are taken as f64 (f32 and f64 alike).

use crate::shape::fmt_shape;

/// Why values do not match what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Mismatch {
    #[error("{got} arrays where {want} were expected")]
    Count { got: usize, want: usize },
    #[error("shape {} where {} was expected", fmt_shape(got), fmt_shape(want))]
    Shape { got: Vec<usize>, want: Vec<usize> },
    #[error("{got} values where {want} were expected")]
    Length { got: usize, want: usize },
    #[error("element {index} is {got} where {want} was expected")]
    NotFinite { index: usize, got: f64, want: f64 },
    #[error("element {index} is {got} where {want} was expected (allowed difference {bound:e})")]
    Value {
        index: usize,
        got: f64,
        want: f64,
        bound: f64,
    },
    #[error("array {array}: {mismatch}")]
    In {
        array: usize,
        mismatch: Box<Mismatch>,
    },
}

/// The smallest scale [`max_rel_diff`] divides by, so that an all-zero reference is met
/// only by (nearly) exact zeros.
const TINY_SCALE: f64 = 1e-30;

/// The largest absolute difference between `got` and `want`, relative to `want`'s largest
/// finite magnitude (the output scale): what parity tests bound.
pub fn max_rel_diff<G, W>(got: &[G], want: &[W]) -> Result<f64, Mismatch>
where
    G: Copy + Into<f64>,
    W: Copy + Into<f64>,
{
    let scale = scale(want);
    let mut worst = 0.0f64;
    for_each_pair(got, want, |_, g, w| {
        worst = worst.max((g - w).abs() / scale);
        Ok(())
    })?;
    Ok(worst)
}

/// Checks that every value of `got` is within `rtol` times the output scale of `want`'s
/// (as [`max_rel_diff`] measures it), and returns the worst relative difference.
pub fn close_to_scale<G, W>(got: &[G], want: &[W], rtol: f64) -> Result<f64, Mismatch>
where
    G: Copy + Into<f64>,
    W: Copy + Into<f64>,
{
    let scale = scale(want);
    within(got, want, |_| rtol * scale)?;
    max_rel_diff(got, want)
}

/// Checks that every value of `got` is within `tol * (1 + |want|)` of `want`'s: relative
/// for large values, absolute near zero.
pub fn close<G, W>(got: &[G], want: &[W], tol: f64) -> Result<(), Mismatch>
where
    G: Copy + Into<f64>,
    W: Copy + Into<f64>,
{
    within(got, want, |w| tol * (1.0 + w.abs()))
}

/// Checks that every value of `got` differs from `want`'s by at most `bound(want)`.
pub fn within<G, W>(got: &[G], want: &[W], bound: impl Fn(f64) -> f64) -> Result<(), Mismatch>
where
    G: Copy + Into<f64>,
    W: Copy + Into<f64>,
{
    for_each_pair(got, want, |index, g, w| {
        let bound = bound(w);
        if (g - w).abs() <= bound {
            Ok(())
        } else {
            Err(Mismatch::Value {
                index,
                got: g,
                want: w,
                bound,
            })
        }
    })
}

/// Checks that a shape is the one expected.
pub fn same_shape(got: &[usize], want: &[usize]) -> Result<(), Mismatch> {
    if got == want {
        Ok(())
    } else {
        Err(Mismatch::Shape {
            got: got.to_vec(),
            want: want.to_vec(),
        })
    }
}

/// Compares lists of arrays pairwise with `check`, after checking that the lists are as
/// long: a missing output fails rather than going unchecked. A mismatch names its array.
pub fn each<G, W, T>(
    got: &[G],
    want: &[W],
    mut check: impl FnMut(&G, &W) -> Result<T, Mismatch>,
) -> Result<Vec<T>, Mismatch> {
    if got.len() != want.len() {
        return Err(Mismatch::Count {
            got: got.len(),
            want: want.len(),
        });
    }
    got.iter()
        .zip(want)
        .enumerate()
        .map(|(array, (g, w))| {
            check(g, w).map_err(|m| Mismatch::In {
                array,
                mismatch: Box::new(m),
            })
        })
        .collect()
}

/// `want`'s largest finite magnitude (the output scale), at least [`TINY_SCALE`].
pub fn scale<W: Copy + Into<f64>>(want: &[W]) -> f64 {
    want.iter()
        .map(|&w| w.into().abs())
        .filter(|w| w.is_finite())
        .fold(TINY_SCALE, f64::max)
}

/// Calls `f` with each index and pair of finite values, after checking the lengths and
/// that non-finite values stand where the same non-finite values are expected.
fn for_each_pair<G, W>(
    got: &[G],
    want: &[W],
    mut f: impl FnMut(usize, f64, f64) -> Result<(), Mismatch>,
) -> Result<(), Mismatch>
where
    G: Copy + Into<f64>,
    W: Copy + Into<f64>,
{
    if got.len() != want.len() {
        return Err(Mismatch::Length {
            got: got.len(),
            want: want.len(),
        });
    }
    for (index, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (g, w): (f64, f64) = (g.into(), w.into());
        if g.is_finite() && w.is_finite() {
            f(index, g, w)?;
        } else if !(g == w || g.is_nan() && w.is_nan()) {
            return Err(Mismatch::NotFinite {
                index,
                got: g,
                want: w,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_match_with_no_difference() {
        let v = [1.0, -2.5, 0.0, 1e9];
        assert_eq!(max_rel_diff(&v, &v), Ok(0.0));
        assert_eq!(close_to_scale(&v, &v, 0.0), Ok(0.0));
        assert_eq!(close(&v, &v, 0.0), Ok(()));
    }

    #[test]
    fn differences_are_relative_to_the_largest_expected_magnitude() {
        // |0.5 - 0.25| / 4 and |4.125 - 4| / 4: the worst is 0.0625.
        let got = [0.5f32, 4.125];
        let want = [0.25f64, -4.0 + 8.0];
        assert_eq!(max_rel_diff(&got, &want), Ok(0.0625));
        assert_eq!(close_to_scale(&got, &want, 0.0625), Ok(0.0625));
        assert_eq!(
            close_to_scale(&got, &want, 0.06),
            Err(Mismatch::Value {
                index: 0,
                got: 0.5,
                want: 0.25,
                bound: 0.06 * 4.0
            })
        );
    }

    #[test]
    fn close_allows_tol_times_one_plus_the_magnitude() {
        // 100 ± 0.0101 * 101 and 0 ± 0.0101.
        assert_eq!(close(&[101.0, 0.01], &[100.0, 0.0], 0.0101), Ok(()));
        assert_eq!(
            close(&[101.0, 0.02], &[100.0, 0.0], 0.0101),
            Err(Mismatch::Value {
                index: 1,
                got: 0.02,
                want: 0.0,
                bound: 0.0101
            })
        );
    }

    #[test]
    fn nan_where_a_number_is_expected_fails_every_comparison() {
        let (got, want) = ([1.0, f64::NAN, 3.0], [1.0, 2.0, 3.0]);
        let nan_at_1 = |m: Mismatch| matches!(m, Mismatch::NotFinite { index: 1, got, want: 2.0 } if got.is_nan());
        assert!(nan_at_1(max_rel_diff(&got, &want).unwrap_err()));
        assert!(nan_at_1(
            close_to_scale(&got, &want, f64::INFINITY).unwrap_err()
        ));
        assert!(nan_at_1(close(&got, &want, f64::INFINITY).unwrap_err()));
        // A NaN in the reference is not met by a number either, nor does it widen the scale.
        assert!(max_rel_diff(&want, &got).is_err());
        assert!(close(&want, &got, f64::INFINITY).is_err());
    }

    #[test]
    fn infinities_where_finite_values_are_expected_fail() {
        for bad in [f64::INFINITY, f64::NEG_INFINITY] {
            let got = [0.0, bad];
            let want = [0.0, 1.0];
            let expected = Err(Mismatch::NotFinite {
                index: 1,
                got: bad,
                want: 1.0,
            });
            assert_eq!(max_rel_diff(&got, &want), expected);
            assert_eq!(close_to_scale(&got, &want, f64::INFINITY), expected);
            assert_eq!(close(&got, &want, f64::INFINITY).map(|_| 0.0), expected);
        }
        // An infinity of the other sign is no match for an expected one.
        assert!(close(&[f64::NEG_INFINITY], &[f64::INFINITY], 1.0).is_err());
    }

    #[test]
    fn the_same_non_finite_values_match() {
        let v = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 2.0];
        assert_eq!(max_rel_diff(&v, &v), Ok(0.0));
        assert_eq!(close(&v, &v, 0.0), Ok(()));
        // f32 NaN against f64 NaN: a NaN output where MXNet gives NaN.
        assert_eq!(close(&[f32::NAN], &[f64::NAN], 0.0), Ok(()));
    }

    #[test]
    fn a_shorter_or_longer_output_fails() {
        let want = [1.0, 2.0, 3.0];
        for got in [&want[..2], &[1.0, 2.0, 3.0, 4.0][..], &[][..]] {
            let expected = Mismatch::Length {
                got: got.len(),
                want: 3,
            };
            assert_eq!(max_rel_diff(got, &want), Err(expected.clone()));
            assert_eq!(close_to_scale(got, &want, 1.0), Err(expected.clone()));
            assert_eq!(close(got, &want, 1.0), Err(expected));
        }
    }

    #[test]
    fn shapes_must_be_the_same_even_with_as_many_values() {
        assert_eq!(same_shape(&[2, 3], &[2, 3]), Ok(()));
        assert_eq!(
            same_shape(&[3, 2], &[2, 3]),
            Err(Mismatch::Shape {
                got: vec![3, 2],
                want: vec![2, 3]
            })
        );
        assert!(same_shape(&[6], &[6, 1]).is_err());
    }

    #[test]
    fn lists_of_arrays_must_be_as_long_and_name_the_array_that_differs() {
        let want = vec![vec![1.0f32], vec![2.0]];
        let check = |g: &Vec<f32>, w: &Vec<f32>| max_rel_diff(g, w);
        assert_eq!(each(&want, &want, check), Ok(vec![0.0, 0.0]));
        assert_eq!(
            each(&want[..1], &want, check),
            Err(Mismatch::Count { got: 1, want: 2 })
        );
        let got = vec![vec![1.0f32], vec![f32::NAN]];
        let err = each(&got, &want, check).unwrap_err();
        assert!(
            matches!(&err, Mismatch::In { array: 1, mismatch } if matches!(**mismatch, Mismatch::NotFinite { index: 0, .. }))
        );
        assert_eq!(
            err.to_string(),
            "array 1: element 0 is NaN where 2 was expected"
        );
    }
}
