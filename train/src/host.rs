//! Host-side array helpers shared by the initializers and the metrics: numpy's
//! broadcasting of two shapes.

/// numpy's broadcast shape of `a` and `b` (trailing dimensions aligned; a 1 stretches),
/// or `None` when they do not broadcast.
pub(crate) fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| (i + s.len()).checked_sub(n).map_or(1, |j| s[j]);
    (0..n)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// The index into an array of `shape` (row-major, broadcast to `out`) of `out`'s
/// element `flat`.
fn source_index(shape: &[usize], out: &[usize], mut flat: usize) -> usize {
    let mut index = 0;
    let mut stride = 1;
    for (i, &d) in out.iter().enumerate().rev() {
        let coord = flat % d;
        flat /= d;
        if let Some(j) = (i + shape.len()).checked_sub(out.len()) {
            if shape[j] != 1 {
                index += coord * stride;
            }
            stride *= shape[j];
        }
    }
    index
}

/// `values` of `shape` broadcast to `out` (which must be their broadcast shape with
/// `out`), or `None` when `shape` does not broadcast to exactly `out`.
pub(crate) fn broadcast_to(shape: &[usize], values: &[f64], out: &[usize]) -> Option<Vec<f64>> {
    if broadcast_shape(shape, out)? != out {
        return None;
    }
    let n: usize = out.iter().product();
    Some(
        (0..n)
            .map(|i| values[source_index(shape, out, i)])
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasts_like_numpy() {
        assert_eq!(broadcast_shape(&[4, 1], &[3]), Some(vec![4, 3]));
        assert_eq!(broadcast_shape(&[2, 3], &[4, 3]), None);
        assert_eq!(
            broadcast_to(&[2], &[1.0, 2.0], &[3, 2]),
            Some(vec![1.0, 2.0, 1.0, 2.0, 1.0, 2.0])
        );
        assert_eq!(
            broadcast_to(&[2, 1], &[1.0, 2.0], &[2, 2]),
            Some(vec![1.0, 1.0, 2.0, 2.0])
        );
        assert_eq!(broadcast_to(&[3], &[1.0, 2.0, 3.0], &[2]), None);
    }
}
