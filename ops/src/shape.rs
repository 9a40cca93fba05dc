//! Shape and dtype inference helpers shared by the operator definitions.
//!
//! Shapes under inference follow MXNet's legacy convention: an empty shape is unknown and
//! a dimension of 0 is an unknown dimension. Inference functions fill in what they can
//! from whichever side is known (forward and backward), and the graph iterates them to a
//! fixed point.

use crate::{Attrs, DType};
use std::fmt;

pub type Shape = Vec<usize>;

/// Which input or output of an operator an inference error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    In(usize),
    Out(usize),
}

/// An error from an operator's inference or reference kernel. The graph layer renders it
/// with the node's name and its input/output names.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OpError {
    #[error(
        "{slot:?} has shape {} but {} is required",
        fmt_shape(have),
        fmt_shape(want)
    )]
    Shape {
        slot: Slot,
        have: Shape,
        want: Shape,
    },
    #[error("{slot:?} has dtype {have} but {want} is required")]
    DType {
        slot: Slot,
        have: DType,
        want: DType,
    },
    /// A shape whose element count is past [`MAX_ELEMENTS`] (or past any integer).
    #[error("{slot:?} has shape {}, {}", fmt_shape(shape), TOO_LARGE)]
    TooLarge { slot: Slot, shape: Shape },
    /// Memory for values that could not be had.
    #[error(transparent)]
    Alloc(#[from] crate::tensor::AllocError),
    #[error("{0}")]
    Invalid(String),
}

impl OpError {
    /// The message with slots spelled by name (`input \`weight\``).
    pub fn render(&self, inputs: &[String], outputs: &[String]) -> String {
        let name = |slot: &Slot| match *slot {
            Slot::In(i) => format!("input `{}`", inputs.get(i).map_or("?", String::as_str)),
            Slot::Out(i) => format!("output `{}`", outputs.get(i).map_or("?", String::as_str)),
        };
        match self {
            OpError::Shape { slot, have, want } => format!(
                "{} has shape {} but {} is required",
                name(slot),
                fmt_shape(have),
                fmt_shape(want)
            ),
            OpError::DType { slot, have, want } => {
                format!("{} has dtype {have} but {want} is required", name(slot))
            }
            OpError::TooLarge { slot, shape } => {
                format!("{} has shape {}, {TOO_LARGE}", name(slot), fmt_shape(shape))
            }
            OpError::Invalid(msg) => msg.clone(),
            OpError::Alloc(e) => e.to_string(),
        }
    }
}

/// Shorthand for an [`OpError::Invalid`].
pub fn invalid<T>(msg: impl Into<String>) -> Result<T, OpError> {
    Err(OpError::Invalid(msg.into()))
}

/// `(2, 3)`, `(?, 3)` for unknown dimensions, `unknown` for an unknown shape.
pub fn fmt_shape(s: &[usize]) -> String {
    if s.is_empty() {
        return "unknown".into();
    }
    let dims: Vec<String> = s
        .iter()
        .map(|&d| if d == 0 { "?".into() } else { d.to_string() })
        .collect();
    if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    }
}

/// A shape whose rank and every dimension are known.
pub fn is_known(s: &[usize]) -> bool {
    !s.is_empty() && !s.contains(&0)
}

/// Merges `want` into the shape in `slot`: unknown parts take `want`'s, known parts must
/// agree. An empty `want` says nothing.
pub fn unify(slot: Slot, have: &mut Shape, want: &[usize]) -> Result<(), OpError> {
    if want.is_empty() {
        return Ok(());
    }
    if have.is_empty() {
        *have = want.to_vec();
        return Ok(());
    }
    let agrees = have.len() == want.len()
        && have
            .iter()
            .zip(want)
            .all(|(&h, &w)| h == 0 || w == 0 || h == w);
    if !agrees {
        return Err(OpError::Shape {
            slot,
            have: have.clone(),
            want: want.to_vec(),
        });
    }
    for (h, &w) in have.iter_mut().zip(want) {
        if *h == 0 {
            *h = w;
        }
    }
    Ok(())
}

/// Unifies slot `i` of `ins` (input) — the usual way to assign an inferred input shape.
pub fn set_in(ins: &mut [Shape], i: usize, want: &[usize]) -> Result<(), OpError> {
    unify(Slot::In(i), &mut ins[i], want)
}

pub fn set_out(outs: &mut [Shape], i: usize, want: &[usize]) -> Result<(), OpError> {
    unify(Slot::Out(i), &mut outs[i], want)
}

/// Every input and output has one shape (element-wise operators).
pub fn same_shape(_: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let mut merged = Shape::new();
    for (i, s) in ins.iter().enumerate() {
        unify(Slot::In(i), &mut merged, s)?;
    }
    for (i, s) in outs.iter().enumerate() {
        unify(Slot::Out(i), &mut merged, s)?;
    }
    for (i, s) in ins.iter_mut().enumerate() {
        unify(Slot::In(i), s, &merged)?;
    }
    for (i, s) in outs.iter_mut().enumerate() {
        unify(Slot::Out(i), s, &merged)?;
    }
    Ok(())
}

/// NumPy broadcasting of two known shapes.
pub fn broadcast(a: &[usize], b: &[usize]) -> Result<Shape, OpError> {
    let n = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| {
        if i + s.len() < n {
            1
        } else {
            s[i + s.len() - n]
        }
    };
    (0..n)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => Ok(x),
            (1, y) => Ok(y),
            (x, 1) => Ok(x),
            _ => invalid(format!(
                "shapes {} and {} cannot be broadcast together",
                fmt_shape(a),
                fmt_shape(b)
            )),
        })
        .collect()
}

/// The most elements one array may hold: its bytes in the widest dtype (8 bytes, as f64,
/// i64 and the interpreter's values) must fit what one allocation can be, `isize::MAX`.
/// Inference refuses larger shapes, so sizes, byte counts and linear indices computed
/// from inferred shapes cannot overflow.
pub const MAX_ELEMENTS: usize = isize::MAX as usize / 8;

/// Why a shape is refused, after it.
pub const TOO_LARGE: &str = "more elements than an array can hold (2^60 - 1)";

/// The number of elements of `s`, `None` past [`MAX_ELEMENTS`].
pub fn checked_size(s: &[usize]) -> Option<usize> {
    s.iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= MAX_ELEMENTS)
}

/// Whether an array can have shape `s` (under inference: the product of its known
/// dimensions, so a partly known shape already too large is caught).
pub fn fits(s: &[usize]) -> bool {
    s.iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .is_some_and(|n| n <= MAX_ELEMENTS)
}

/// Number of elements of a known shape that inference has checked (its product cannot
/// overflow); see [`checked_size`] for shapes from elsewhere.
pub fn size(s: &[usize]) -> usize {
    s.iter().product()
}

/// Every input and output has one dtype (most operators).
pub fn same_dtype(
    _: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    let mut known: Option<(Slot, DType)> = None;
    let slots = ins
        .iter()
        .enumerate()
        .map(|(i, d)| (Slot::In(i), *d))
        .chain(outs.iter().enumerate().map(|(i, d)| (Slot::Out(i), *d)));
    for (slot, d) in slots {
        match (known, d) {
            (None, Some(d)) => known = Some((slot, d)),
            (Some((_, k)), Some(d)) if k != d => {
                return Err(OpError::DType {
                    slot,
                    have: d,
                    want: k,
                });
            }
            _ => {}
        }
    }
    if let Some((_, d)) = known {
        ins.iter_mut()
            .chain(outs.iter_mut())
            .for_each(|s| *s = Some(d));
    }
    Ok(())
}

/// Normalizes a possibly negative axis against `ndim`.
pub fn axis(axis: i64, ndim: usize) -> Result<usize, OpError> {
    let a = if axis < 0 { axis + ndim as i64 } else { axis };
    if a < 0 || a >= ndim as i64 {
        return invalid(format!("axis {axis} is out of range for {ndim} dimensions"));
    }
    Ok(a as usize)
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Slot::In(i) => write!(f, "input {i}"),
            Slot::Out(i) => write!(f, "output {i}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unify_merges_partial_shapes() {
        let mut s = vec![0, 3];
        unify(Slot::In(0), &mut s, &[2, 0]).unwrap();
        assert_eq!(s, vec![2, 3]);
        let e = unify(Slot::In(1), &mut s, &[2, 4]).unwrap_err();
        assert_eq!(
            e.render(&["a".into(), "b".into()], &[]),
            "input `b` has shape (2, 3) but (2, 4) is required"
        );
        assert_eq!(broadcast(&[2, 1, 3], &[4, 1]).unwrap(), vec![2, 4, 3]);
        assert!(broadcast(&[2, 3], &[4]).is_err());
    }

    #[test]
    fn sizes_past_what_an_array_holds_are_refused_not_wrapped() {
        assert_eq!(checked_size(&[2, 3]), Some(6));
        assert_eq!(checked_size(&[0, 3]), Some(0));
        // 2^64 wraps to 0; 2^61 does not wrap but is past 2^60 elements.
        assert_eq!(checked_size(&[1 << 32, 1 << 32]), None);
        assert_eq!(checked_size(&[1 << 31, 1 << 30]), None);
        assert_eq!(checked_size(&[MAX_ELEMENTS]), Some(MAX_ELEMENTS));
        // Under inference, unknown dimensions are left out of the check.
        assert!(fits(&[0, 1 << 30, 1 << 29]));
        assert!(!fits(&[0, 1 << 32, 1 << 32]));
        let e = OpError::TooLarge {
            slot: Slot::Out(0),
            shape: vec![1 << 32, 1 << 32],
        };
        assert_eq!(
            e.render(&[], &["y".into()]),
            format!("output `y` has shape (4294967296, 4294967296), {TOO_LARGE}")
        );
    }
}
