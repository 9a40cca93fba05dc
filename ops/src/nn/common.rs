//! Helpers shared by the neural-network families: layouts, spatial tuples (kernel, stride,
//! pad, dilate), parameter checks and the outer/axis/inner split of a shape.

use crate::shape::{fmt_shape, invalid, OpError, Shape};
use crate::{Attrs, Tensor};

/// MXNet's `layout` enum; `None` picks NCW/NCHW/NCDHW from the number of spatial dims.
pub(crate) const LAYOUTS: &[&str] = &["None", "NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"];

/// Whether the operator's `layout` puts channels last, checked against the number of
/// spatial dimensions.
pub(crate) fn channel_last(a: &Attrs, op: &str, nspatial: usize) -> Result<bool, OpError> {
    let layout = a.str("layout");
    if layout == "None" {
        return Ok(false);
    }
    // N, C and one letter per spatial dimension.
    if layout.len() != nspatial + 2 {
        return invalid(format!(
            "{op}: layout {layout} does not fit {nspatial} spatial dimension(s)"
        ));
    }
    Ok(layout.ends_with('C'))
}

/// The shape in (N, C, spatial...) order; a channel-last shape moves its last axis to 1.
pub(crate) fn to_ncx(s: &[usize], last: bool) -> Shape {
    if !last || s.len() < 2 {
        return s.to_vec();
    }
    let mut v = vec![s[0], s[s.len() - 1]];
    v.extend_from_slice(&s[1..s.len() - 1]);
    v
}

/// The inverse of [`to_ncx`].
pub(crate) fn from_ncx(s: &[usize], last: bool) -> Shape {
    if !last || s.len() < 2 {
        return s.to_vec();
    }
    let mut v = vec![s[0]];
    v.extend_from_slice(&s[2..]);
    v.push(s[1]);
    v
}

/// The tensor with its channels moved to axis 1 (a copy in NC-spatial order) when it is
/// stored channel-last; the reference kernels compute in channel-first order only.
pub(crate) fn channels_first(t: &Tensor, last: bool) -> Tensor {
    if !last || t.shape.len() < 3 {
        return t.clone();
    }
    let (n, c) = (t.shape[0], t.shape[t.shape.len() - 1]);
    let plane = t.len() / (n * c).max(1);
    let mut data = vec![0.0; t.len()];
    for b in 0..n {
        for p in 0..plane {
            for ch in 0..c {
                data[(b * c + ch) * plane + p] = t.data[(b * plane + p) * c + ch];
            }
        }
    }
    Tensor {
        dtype: t.dtype,
        shape: to_ncx(&t.shape, true),
        data,
    }
}

/// The inverse of [`channels_first`]: a channel-first tensor stored channel-last.
pub(crate) fn channels_last(t: Tensor, last: bool) -> Tensor {
    if !last || t.shape.len() < 3 {
        return t;
    }
    let (n, c) = (t.shape[0], t.shape[1]);
    let plane = t.len() / (n * c).max(1);
    let mut data = vec![0.0; t.len()];
    for b in 0..n {
        for ch in 0..c {
            for p in 0..plane {
                data[(b * plane + p) * c + ch] = t.data[(b * c + ch) * plane + p];
            }
        }
    }
    Tensor {
        dtype: t.dtype,
        shape: from_ncx(&t.shape, true),
        data,
    }
}

/// A 1-to-3-entry spatial tuple as exactly 3 entries, padded in front with `fill`: the
/// reference kernels run every convolution and pooling as 3-D, with extra dims of size 1.
pub(crate) fn dims3(v: &[usize], fill: usize) -> [usize; 3] {
    let mut d = [fill; 3];
    d[3 - v.len()..].copy_from_slice(v);
    d
}

/// A per-spatial-dimension tuple parameter (stride, dilate, pad): `()` means `default`
/// everywhere; otherwise it needs one entry per kernel dimension.
pub(crate) fn spatial(
    a: &Attrs,
    op: &str,
    name: &str,
    n: usize,
    default: usize,
    min: usize,
) -> Result<Vec<usize>, OpError> {
    let v = a.shape(name);
    if v.is_empty() {
        return Ok(vec![default; n]);
    }
    if v.len() != n {
        return invalid(format!(
            "{op}: `{name}` has {} entries but the kernel has {n} dimension(s)",
            v.len()
        ));
    }
    if let Some(bad) = v.iter().find(|&&x| x < min as i64 || x > MAX_WINDOW) {
        return invalid(format!(
            "{op}: `{name}` entries must be in [{min}, {MAX_WINDOW}], got {bad}"
        ));
    }
    Ok(v.iter().map(|&x| x as usize).collect())
}

/// An int parameter that must be at least 1.
pub(crate) fn positive(a: &Attrs, op: &str, name: &str) -> Result<usize, OpError> {
    match a.int(name) {
        v if v >= 1 => Ok(v as usize),
        v => invalid(format!("{op}: `{name}` must be positive, got {v}")),
    }
}

/// `data, weight, bias` (without `bias` when `no_bias`).
pub(crate) fn weight_bias_inputs(a: &Attrs) -> Vec<String> {
    let names: &[&str] = if a.bool("no_bias") {
        &["data", "weight"]
    } else {
        &["data", "weight", "bias"]
    };
    names.iter().map(|s| s.to_string()).collect()
}

/// (product of dims before `axis`, dim at `axis`, product of dims after `axis`).
pub(crate) fn split_at_axis(s: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = s[..axis].iter().product();
    let inner = s[axis + 1..].iter().product();
    (outer, s[axis], inner)
}

/// Normalizes a possibly negative axis parameter against the data's rank; the error names
/// the operator, the parameter and the data's shape.
pub(crate) fn axis_of(op: &str, name: &str, axis: i64, data: &[usize]) -> Result<usize, OpError> {
    let ndim = data.len() as i64;
    let a = if axis < 0 { axis + ndim } else { axis };
    if !(0..ndim).contains(&a) {
        return invalid(format!(
            "{op}: {name}={axis} is out of range for data {}",
            fmt_shape(data)
        ));
    }
    Ok(a as usize)
}

/// Error for an input whose rank is wrong.
pub(crate) fn rank_error<T>(
    op: &str,
    what: &str,
    want: &str,
    have: &[usize],
) -> Result<T, OpError> {
    invalid(format!(
        "{op}: `{what}` must be {want}, got shape {}",
        fmt_shape(have)
    ))
}

/// Number of elements of a shape, saturating: shapes come from users, and an absurd one
/// must give an error later rather than an overflow panic here.
pub(crate) fn numel(s: &[usize]) -> usize {
    s.iter().fold(1usize, |acc, &d| acc.saturating_mul(d))
}

/// The size of a shape as a cost (0 for unknown shapes).
pub(crate) fn elems(s: &[usize]) -> u64 {
    if s.is_empty() {
        0
    } else {
        numel(s) as u64
    }
}

/// A saturating product of cost factors.
pub(crate) fn flops(factors: &[u64]) -> u64 {
    factors.iter().fold(1u64, |acc, &f| acc.saturating_mul(f))
}

/// Largest kernel, stride, dilate or pad entry (MXNet stores them as 32-bit ints too); it
/// keeps window arithmetic far from overflow.
pub(crate) const MAX_WINDOW: i64 = i32::MAX as i64;
