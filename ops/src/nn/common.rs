//! Helpers shared by the neural-network families: layouts, spatial tuples (kernel, stride,
//! pad, dilate), parameter checks and the outer/axis/inner split of a shape.

use crate::shape::{fmt_shape, invalid, unify, OpError, Shape, Slot};
use crate::{Attrs, DType, DTypeFn, GradCtx, GradGraph, Handle, ShapeFn, Tensor};

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

/// A spatial tuple of at most 3 entries, kept inline (a kernel builds one per call without
/// allocating).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dims {
    len: usize,
    v: [usize; 3],
}

impl Dims {
    /// `n` (at most 3) entries equal to `x`.
    pub(crate) fn filled(n: usize, x: usize) -> Dims {
        Dims {
            len: n.min(3),
            v: [x; 3],
        }
    }

    /// The first 3 entries of `v` at most.
    pub(crate) fn from_slice(v: &[usize]) -> Dims {
        let mut d = Dims::filled(v.len(), 0);
        d.v[..d.len].copy_from_slice(&v[..d.len]);
        d
    }
}

impl std::ops::Deref for Dims {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        &self.v[..self.len]
    }
}

impl std::ops::DerefMut for Dims {
    fn deref_mut(&mut self) -> &mut [usize] {
        &mut self.v[..self.len]
    }
}

/// A per-spatial-dimension tuple parameter (stride, dilate, pad) of a kernel of `n` (at
/// most 3) dimensions: `()` means `default` everywhere; otherwise it needs one entry per
/// kernel dimension.
pub(crate) fn spatial(
    a: &Attrs,
    op: &str,
    name: &str,
    n: usize,
    default: usize,
    min: usize,
) -> Result<Dims, OpError> {
    let v = a.shape(name);
    if v.is_empty() {
        return Ok(Dims::filled(n, default));
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
    let mut d = Dims::filled(n, 0);
    for (slot, &x) in d.iter_mut().zip(v) {
        *slot = x as usize;
    }
    Ok(d)
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

/// How a backward operator's slots relate to its forward operator's, so the backward
/// operator's inference can run the forward's (both directions, every check included)
/// instead of restating it.
pub(crate) struct Through<'a> {
    /// For each forward input: the backward input holding it, if the backward takes it.
    pub inputs: &'a [Option<usize>],
    /// For each forward output: the backward inputs holding it or its gradient (both have
    /// its shape); empty when the backward takes neither.
    pub outputs: &'a [&'a [usize]],
    /// For each backward output: the forward input it is the gradient of.
    pub grads: &'a [usize],
}

impl Through<'_> {
    /// The backward slot standing for a forward one (for error messages).
    fn slot(&self, s: Slot) -> Slot {
        match s {
            Slot::In(i) => match self.inputs.get(i).copied().flatten() {
                Some(j) => Slot::In(j),
                None => self.grads.iter().position(|&g| g == i).map_or(s, Slot::Out),
            },
            Slot::Out(o) => self
                .outputs
                .get(o)
                .and_then(|v| v.first())
                .map_or(s, |&j| Slot::In(j)),
        }
    }

    fn remap(&self, e: OpError) -> OpError {
        match e {
            OpError::Shape { slot, have, want } => OpError::Shape {
                slot: self.slot(slot),
                have,
                want,
            },
            OpError::DType { slot, have, want } => OpError::DType {
                slot: self.slot(slot),
                have,
                want,
            },
            e => e,
        }
    }

    /// Gathers the forward operator's view of the slots, runs `forward` on it, and
    /// scatters what it learned back; `merge` unifies two values of one slot.
    fn run<T: Clone + Default>(
        &self,
        ins: &mut [T],
        outs: &mut [T],
        merge: impl Fn(Slot, &mut T, &T) -> Result<(), OpError>,
        forward: impl FnOnce(&mut [T], &mut [T]) -> Result<(), OpError>,
    ) -> Result<(), OpError> {
        let mut f_in: Vec<T> = self
            .inputs
            .iter()
            .map(|s| s.map_or_else(T::default, |i| ins[i].clone()))
            .collect();
        for (k, &i) in self.grads.iter().enumerate() {
            merge(Slot::Out(k), &mut f_in[i], &outs[k])?;
        }
        let mut f_out = Vec::with_capacity(self.outputs.len());
        for slots in self.outputs {
            let mut v = T::default();
            for &j in *slots {
                merge(Slot::In(j), &mut v, &ins[j])?;
            }
            f_out.push(v);
        }
        forward(&mut f_in, &mut f_out).map_err(|e| self.remap(e))?;
        for (i, s) in self.inputs.iter().enumerate() {
            if let Some(j) = *s {
                merge(Slot::In(j), &mut ins[j], &f_in[i])?;
            }
        }
        for (k, &i) in self.grads.iter().enumerate() {
            merge(Slot::Out(k), &mut outs[k], &f_in[i])?;
        }
        for (o, slots) in self.outputs.iter().enumerate() {
            for &j in *slots {
                merge(Slot::In(j), &mut ins[j], &f_out[o])?;
            }
        }
        Ok(())
    }

    /// Shape inference of the backward operator through the forward's `infer_shape`.
    pub fn shapes(
        &self,
        forward: ShapeFn,
        a: &Attrs,
        ins: &mut [Shape],
        outs: &mut [Shape],
    ) -> Result<(), OpError> {
        self.run(
            ins,
            outs,
            |s, have, want| unify(s, have, want),
            |i, o| forward(a, i, o),
        )
    }

    /// Dtype inference of the backward operator through the forward's `infer_dtype`.
    pub fn dtypes(
        &self,
        forward: DTypeFn,
        a: &Attrs,
        ins: &mut [Option<DType>],
        outs: &mut [Option<DType>],
    ) -> Result<(), OpError> {
        let merge = |slot, have: &mut Option<DType>, want: &Option<DType>| match (*have, *want) {
            (Some(h), Some(w)) if h != w => Err(OpError::DType {
                slot,
                have: h,
                want: w,
            }),
            (None, w) => {
                *have = w;
                Ok(())
            }
            _ => Ok(()),
        };
        self.run(ins, outs, merge, |i, o| forward(a, i, o))
    }
}

/// The gradient rule of an operator whose backward operator `name` takes `args` and returns
/// the gradient of every forward input, in order.
pub(crate) fn all_grads(
    g: &mut dyn GradGraph,
    ctx: &GradCtx,
    name: &str,
    args: &[Handle],
) -> Result<Vec<Option<Handle>>, OpError> {
    Ok(g.op(name, args, ctx.raw_attrs)?
        .into_iter()
        .map(Some)
        .collect())
}

/// `names` as owned strings (for dynamic input and output lists).
pub(crate) fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}
