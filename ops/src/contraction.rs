//! Contractions: what a library operator (gemm, convolution, pooling) computes, declared
//! so compilers can lower it to loops and fuse its epilogue, as TVM's compute declarations.
//!
//! Output `k` at point `o` is `post(acc, epilogue reads at o)`, where `acc` combines
//! `body(reads at (o, r))` over every point `r` of the reduction extents. Coordinates are
//! [`IndexExpr`]s over the output axes followed by the reduction axes (`Out(rank + j)` is
//! reduction axis `j`). A read with `padding` yields that value where its coordinates
//! fall outside the input (zero-padded convolution, max pooling's −∞).
//!
//! An operator declares a contraction next to its reference kernel; [`evaluate`] runs the
//! declaration naively, and the registry test checks it against the reference kernel on
//! every declaring operator, so the two definitions cannot drift apart.

use crate::def::Combiner;
use crate::expr::Expr;
use crate::index::IndexExpr;
use crate::param::Attrs;
use crate::shape::{OpError, Shape};
use crate::tensor::Tensor;

/// One input read: its coordinates, and the value outside its bounds (`None`: never).
#[derive(Clone, Debug, PartialEq)]
pub struct Read {
    pub input: usize,
    pub coords: Vec<IndexExpr>,
    pub padding: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Contraction {
    pub combiner: Combiner,
    /// Extent of each reduction axis.
    pub extents: Vec<usize>,
    /// Read at every (output, reduction) point; `body`'s `x(i)` is `reads[i]`.
    pub reads: Vec<Read>,
    pub body: Expr,
    /// Read at output points; `post`'s `x(0)` is the accumulator, `x(1 + j)` is
    /// `epilogue[j]`.
    pub epilogue: Vec<Read>,
    pub post: Expr,
}

/// The contraction computing output `k`, given the input and output shapes; an error for
/// configurations it does not cover (they keep the reference kernel).
pub type ContractionFn = fn(&Attrs, &[Shape], &[Shape], usize) -> Result<Contraction, OpError>;

fn read(r: &Read, inputs: &[&Tensor], point: &[usize]) -> f64 {
    let t = inputs[r.input];
    let mut lin = 0i64;
    for (c, &d) in r.coords.iter().zip(&t.shape) {
        let i = c.eval(point);
        if i < 0 || i >= d as i64 {
            return r.padding.unwrap_or(f64::NAN);
        }
        lin = lin * d as i64 + i;
    }
    t.data[lin as usize]
}

/// Runs `c` naively: every output point, every reduction point, in f64 (rounded to
/// `out`'s dtype at the end as the reference kernels are).
pub fn evaluate(c: &Contraction, inputs: &[&Tensor], out: &mut Tensor) {
    let rank = out.shape.len();
    let mut point = vec![0usize; rank + c.extents.len()];
    let red_total: usize = c.extents.iter().product();
    for (o, slot) in out.data.iter_mut().enumerate() {
        let mut rest = o;
        for a in (0..rank).rev() {
            point[a] = rest % out.shape[a];
            rest /= out.shape[a];
        }
        let mut acc = c.combiner.identity();
        for r in 0..red_total {
            let mut rest = r;
            for (j, &e) in c.extents.iter().enumerate().rev() {
                point[rank + j] = rest % e;
                rest /= e;
            }
            let args: Vec<f64> = c.reads.iter().map(|x| read(x, inputs, &point)).collect();
            acc = c.combiner.combine(acc, c.body.eval(&args));
        }
        let mut args = vec![acc];
        args.extend(c.epilogue.iter().map(|x| read(x, inputs, &point[..rank])));
        *slot = out.dtype.round(c.post.eval(&args));
    }
}

/// Coordinates of `shape` reading element `lin` (an index over output and reduction
/// axes) of its row-major layout: how a flattened view reads its source.
pub fn unflatten(lin: IndexExpr, shape: &[usize]) -> Vec<IndexExpr> {
    let mut stride = 1i64;
    let mut coords: Vec<IndexExpr> = shape
        .iter()
        .rev()
        .map(|&d| {
            let c = (lin.clone() / stride) % d as i64;
            stride *= d as i64;
            c
        })
        .collect();
    coords.reverse();
    coords
}
