//! Indexing operators, one group per file under `indexing/`: take and Embedding
//! (`take.rs`), pick and one_hot (`pick.rs`), gather_nd and scatter_nd (`nd.rs`), diag
//! (`diag.rs`). Their outputs read the data at positions held in another input, so they
//! are library kernels with naive references, not index maps.
//!
//! Index inputs may have any dtype. As in MXNet 1.9.1 a float index is cast to an integer
//! by truncation toward zero (1.7 → 1, -0.5 → 0), and what happens out of range depends on
//! the operator:
//! - take: `mode` clip clamps, wrap takes the index modulo the axis size, raise is an error
//!   unless 0 <= index <= size - 1 (checked on the value before truncation: 2.5 on an axis
//!   of 3 is an error, as in MXNet);
//! - Embedding clamps to [0, input_dim - 1]; pick clamps or wraps (`mode`);
//! - one_hot gives a row of `off_value`;
//! - gather_nd needs -size <= index <= size - 1 (a negative index counts from the end);
//! - scatter_nd needs 0 <= index < size (MXNet writes out of bounds instead).
//!
//! Gradients scatter the head gradient back: take and Embedding add it into zeros of the
//! data's (weight's) shape with `_backward_take`, pick writes it with `_backward_pick`,
//! gather_nd adds it with `_backward_gather_nd`, scatter_nd's is gather_nd of it, and
//! diag's is `_backward_diag`. Index inputs get no gradient; one_hot's gradient is zero
//! (MXNet's MakeZeroGradNodes).

mod diag;
mod nd;
mod pick;
mod take;

use crate::shape::{fmt_shape, invalid, OpError};
use crate::{Attrs, DType, KernelCtx, Registry, Tensor};

pub fn register(r: &mut Registry) {
    take::register(r);
    pick::register(r);
    nd::register(r);
    diag::register(r);
}

/// A shape viewed as (outer, axis, inner): the products of the dimensions before `axis`,
/// its size, and the product of those after it.
pub(in crate::tensor_ops) fn around(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// Output `i` of a kernel, checked against its inferred shape: inputs whose shapes
/// disagree with inference give an error, never a panic.
pub(in crate::tensor_ops) fn output(
    op: &str,
    ctx: &KernelCtx,
    i: usize,
    data: Vec<f64>,
) -> Result<Tensor, OpError> {
    let shape = &ctx.out_shapes[i];
    if shape.iter().product::<usize>() != data.len() {
        return invalid(format!(
            "{op}: the inputs do not give the inferred output shape {}",
            fmt_shape(shape)
        ));
    }
    Ok(Tensor::new(ctx.out_dtypes[i], shape.clone(), data))
}

/// What an out-of-range index does (take's and pick's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Clip,
    Wrap,
    Raise,
}

impl Mode {
    fn of(a: &Attrs) -> Mode {
        match a.str("mode") {
            "wrap" => Mode::Wrap,
            "raise" => Mode::Raise,
            _ => Mode::Clip,
        }
    }

    /// The position index value `v` selects on an axis of size `n`; `None` when `v` is
    /// out of range under `raise`, or the axis is empty.
    fn resolve(self, v: f64, n: usize) -> Option<usize> {
        // `as` truncates toward zero and saturates (NaN gives 0), like MXNet's cast.
        let (i, n_i) = (v as i64, n as i64);
        if n == 0 {
            return None;
        }
        match self {
            Mode::Clip => Some(i.clamp(0, n_i - 1) as usize),
            Mode::Wrap => Some(i.rem_euclid(n_i) as usize),
            Mode::Raise => (0.0..=(n_i - 1) as f64).contains(&v).then_some(i as usize),
        }
    }
}

/// The output (input 0 for backward operators: the head gradient) has the dtype of input
/// 0; index inputs may have any dtype.
fn first_dtype(
    _: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    match (ins[0], outs[0]) {
        (Some(d), None) => outs[0] = Some(d),
        (None, Some(d)) => ins[0] = Some(d),
        (Some(i), Some(o)) if i != o => {
            return Err(OpError::DType {
                slot: crate::Slot::Out(0),
                have: o,
                want: i,
            })
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Mode;

    #[test]
    fn modes_truncate_then_clamp_wrap_or_refuse() {
        let r = |m: Mode, v: f64| m.resolve(v, 3);
        assert_eq!(
            [-0.5, 1.7, -1.0, 5.0, f64::NAN].map(|v| r(Mode::Clip, v)),
            [Some(0), Some(1), Some(0), Some(2), Some(0)]
        );
        assert_eq!(
            [-0.5, -1.5, 3.5, -7.0].map(|v| r(Mode::Wrap, v)),
            [Some(0), Some(2), Some(0), Some(2)]
        );
        assert_eq!(
            [0.0, 2.0, 1.5, 2.5, -0.5, f64::NAN].map(|v| r(Mode::Raise, v)),
            [Some(0), Some(2), Some(1), None, None, None]
        );
        assert_eq!(Mode::Clip.resolve(0.0, 0), None);
    }

    /// Inputs with an empty axis (which inference cannot refuse when the output does not
    /// depend on that axis' size) give errors, not panics.
    #[test]
    fn empty_axes_are_errors() {
        use crate::testutil::{message, run, tensor};
        use crate::{DType, Tensor};
        let empty = |shape: &[usize]| Tensor::zeros(DType::F64, shape.to_vec());
        let idx = tensor(&[2], &[0.0, 1.0]);
        for (op, kv, ins) in [
            ("take", &[][..], vec![empty(&[0]), idx.clone()]),
            ("pick", &[("axis", "1")], vec![empty(&[2, 0]), idx.clone()]),
            ("argmax", &[], vec![empty(&[0])]),
            ("topk", &[], vec![empty(&[0])]),
            ("gather_nd", &[], vec![empty(&[0]), tensor(&[1, 1], &[0.0])]),
        ] {
            let e = message(run(op, kv, &ins, false));
            assert!(e.starts_with(op), "{op}: {e}");
        }
    }
}
