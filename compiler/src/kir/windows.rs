//! Packs a matrix product can read straight from their input (implicit gemm): a pack
//! ([`super::matmul::MatMul::packs`]) whose every element is one input element at an
//! affine position, or zero outside affine bounds — im2col of a convolution of any
//! stride, padding and dilation, a strided 1x1 convolution's pixels. Described by its
//! strides and bounds ([`Windows`]), a backend gathers such an operand block by block
//! into its product's panels instead of writing the whole pack first.

use super::ir::{Idx, Kernel, Val};
use super::matmul::{MatMul, Operand, OuterLoop};
use kiln_ops::expr::Binary;

/// `pack[p] = input[offset + Σ strides[a]·coord[a]]` where every bound holds, else 0,
/// for the pack's point `coord` over `extents` (stored row-major at `p`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Windows {
    /// The kernel input read, and its length.
    pub input: usize,
    pub input_len: i64,
    pub extents: Vec<i64>,
    pub offset: i64,
    pub strides: Vec<i64>,
    pub bounds: Vec<Bound>,
}

/// `lo ≤ Σ coefficients[a]·coord[a] < hi`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    pub coefficients: Vec<i64>,
    pub lo: i64,
    pub hi: i64,
}

impl Windows {
    /// Bounds a pack may have (one per padded spatial axis of a 3-D convolution), so
    /// backends keep a point's bound values on the stack.
    pub const MAX_BOUNDS: usize = 4;

    /// `pack` as windows, where it reads one input in the compute dtype at an affine
    /// position, under a product of affine comparisons or none.
    pub fn of(pack: &Kernel) -> Option<Windows> {
        if pack.symbolic_dims() != 0 || !pack.temps.is_empty() || pack.values.len() != 1 {
            return None;
        }
        let extents: Vec<i64> = (pack.domain.iter())
            .map(|d| match d {
                Idx::Const(e) => Some(*e),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let rank = extents.len();
        let (load, bounds) = match &pack.values[0] {
            Val::Select(cond, load, zero) if matches!(**zero, Val::Const(z) if z == 0.0) => {
                let mut bounds = vec![];
                conjunction(cond, rank, &mut bounds)?;
                (&**load, bounds)
            }
            v => (v, vec![]),
        };
        let Val::Load { buffer, index } = load else {
            return None;
        };
        let same_dtype = |b: &super::ir::Buffer| b.dtype == pack.compute;
        let input = pack.inputs.get(*buffer)?;
        if !same_dtype(input) || !same_dtype(&pack.outputs[0]) {
            return None;
        }
        let Idx::Const(input_len) = input.len else {
            return None;
        };
        let (offset, strides) = affine(index, rank)?;
        if rank == 0 || bounds.len() > Windows::MAX_BOUNDS {
            return None;
        }
        Some(Windows {
            input: *buffer,
            input_len,
            extents,
            offset,
            strides,
            bounds,
        })
    }

    /// Elements of the input split into its even and odd elements, where the innermost
    /// step is 2 (a strided convolution's rows, contiguous in one of them: a backend may
    /// read gemm's panels from there), else 0.
    pub fn phases_len(&self) -> i64 {
        match self.strides.last() {
            Some(2) => (self.input_len + 1) / 2 * 2,
            _ => 0,
        }
    }

    /// The pack's elements: the product of its extents.
    pub fn elements(&self) -> i64 {
        self.extents.iter().product()
    }

    /// The least extent of the innermost axis (a convolution's output row) for gathering
    /// to pay: a gather copies runs along it, each with a fixed cost (its bounds checked,
    /// its source found), and a panel row of a shorter axis breaks into runs of a few
    /// elements. On a Zen 3 core (AVX2 panels of 16) ResNet's stem (rows of 112) gathered
    /// at 0.63 ns an element, its 3x3/2 layers (rows of 28 and 14) at 0.86 and 1.37, and
    /// only the stem ran faster than its pack kernel and gemm (`benches/RESULTS.md`).
    pub const LEAST_ROW: i64 = 64;

    /// Whether gathering pays against writing the pack whole: its rows are long
    /// ([`Windows::LEAST_ROW`]) and read at a step of 1 or 2 (the steps a gather copies
    /// in vectors; a larger one — a transposition, as a weight gradient's output gradient
    /// is packed — is a gather per element, which the pack kernel does as well), and the
    /// pack, of `bytes`, would not stay in a core's cache of `cache` bytes (a pack that
    /// does is read back from it by gemm at little cost; `None`: no cache known).
    pub fn pays(&self, bytes: usize, cache: Option<usize>) -> bool {
        let row = self.extents.last().copied().unwrap_or(0);
        let step = self.strides.last().map_or(0, |s| s.abs());
        row >= Windows::LEAST_ROW && step <= 2 && cache.is_none_or(|c| bytes > c)
    }

    /// The leading axes (the rest span `span` elements exactly), where some trailing axes
    /// do.
    pub fn lead(&self, span: i64) -> Option<usize> {
        (0..=self.extents.len()).find(|&a| self.extents[a..].iter().product::<i64>() == span)
    }

    /// Whether `mm` may gather its pack input `input` into gemm's panels (as B, the
    /// product transposed where it is A): the operand read by one side only, along a gemm
    /// axis of unit stride that spans the pack's trailing axes exactly, and every other
    /// step (depth, outer loops, summed loops) whole multiples of that span — so a panel's
    /// columns lie in the trailing axes and its rows in the leading ones.
    pub fn fit(&self, mm: &MatMul, input: usize) -> bool {
        let Some((operand, span, side_a)) = mm.operand(input) else {
            return false;
        };
        let step = |l: &OuterLoop| if side_a { l.a } else { l.b };
        let trailing = self.lead(span).is_some();
        let whole = |x: i64| span > 0 && x % span == 0;
        let Operand {
            offset,
            stride,
            depth,
            ..
        } = *operand;
        trailing
            && stride == 1
            && whole(offset)
            && whole(depth)
            && mm.loops.iter().chain(&mm.sums).all(|l| whole(step(l)))
    }
}

/// `idx` as `offset + Σ strides·coord` over `rank` coordinates, where it is affine with
/// constant coefficients.
fn affine(idx: &Idx, rank: usize) -> Option<(i64, Vec<i64>)> {
    let strides: Vec<i64> = (0..rank)
        .map(|a| idx.coefficient(&Idx::Coord(a)))
        .collect::<Option<_>>()?;
    match idx.substitute(&|_| Idx::Const(0), &Idx::Red) {
        Idx::Const(offset) => Some((offset, strides)),
        _ => None,
    }
}

/// `v` (an index, or an integral constant) as `offset + Σ coefficients·coord`.
fn affine_value(v: &Val, rank: usize) -> Option<(i64, Vec<i64>)> {
    match v {
        Val::Index(index) => affine(index, rank),
        Val::Const(c) if c.fract() == 0.0 && c.abs() < (1i64 << 52) as f64 => {
            Some((*c as i64, vec![0; rank]))
        }
        _ => None,
    }
}

/// Adds the bounds of `cond`, a product of comparisons of affine values, to `bounds`
/// (comparisons of the same coordinates' sum merged into one bound).
fn conjunction(cond: &Val, rank: usize, bounds: &mut Vec<Bound>) -> Option<()> {
    let Val::Binary(op, x, y) = cond else {
        return None;
    };
    if *op == Binary::Mul {
        conjunction(x, rank, bounds)?;
        return conjunction(y, rank, bounds);
    }
    // x op y as a bound on Σ (x's − y's coefficients)·coord, the offsets moved across.
    let ((x0, xc), (y0, yc)) = (affine_value(x, rank)?, affine_value(y, rank)?);
    let coefficients: Vec<i64> = xc.iter().zip(&yc).map(|(a, b)| a - b).collect();
    let c = y0.checked_sub(x0)?;
    let (lo, hi) = match op {
        Binary::Ge => (c, i64::MAX),
        Binary::Gt => (c.checked_add(1)?, i64::MAX),
        Binary::Lt => (i64::MIN, c),
        Binary::Le => (i64::MIN, c.checked_add(1)?),
        _ => return None,
    };
    match bounds.iter_mut().find(|b| b.coefficients == coefficients) {
        Some(b) => (b.lo, b.hi) = (b.lo.max(lo), b.hi.min(hi)),
        None => bounds.push(Bound {
            coefficients,
            lo,
            hi,
        }),
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kir::parse_kernel;

    /// ResNet's first convolution's im2col (7×7 taps, stride 2, padding 3) as the
    /// compiler packs it.
    const STEM: &str = "kernel stem_pack0(data: float32[150528]) -> (packed: float32[1843968]) compute float32 {
  domain [3, 7, 7, 112, 112]
  out0 = select(mul(mul(ge(((i3*2 + i1) + -3), 0.0), lt(((i3*2 + i1) + -3), 224)), mul(ge(((i4*2 + i2) + -3), 0.0), lt(((i4*2 + i2) + -3), 224))), in0[((i0*224 + ((i3*2 + i1) + -3))*224 + ((i4*2 + i2) + -3))], 0.0)
}";

    #[test]
    fn a_padded_strided_convolutions_pack_is_windows() {
        let k = parse_kernel(STEM).unwrap();
        let w = Windows::of(&k).unwrap();
        assert_eq!(w.extents, [3, 7, 7, 112, 112]);
        assert_eq!(
            (w.offset, w.strides.as_slice()),
            (-3 * 224 - 3, &[50176, 224, 1, 448, 2][..])
        );
        assert_eq!(w.bounds.len(), 2);
        let rows = Bound {
            coefficients: vec![0, 1, 0, 2, 0],
            lo: 3,
            hi: 227,
        };
        assert_eq!(w.bounds[0], rows);
        // 7.4 MB of rows 112 long, read every second element: gathered past a 1 MiB cache.
        let bytes = 4 * w.elements() as usize;
        assert!(w.pays(bytes, Some(1 << 20)) && !w.pays(bytes, Some(8 << 20)));
    }

    /// A weight gradient's output gradient, transposed as its pack: rows of 512 filters
    /// each read 49 elements apart — a gather per element, left to the pack kernel.
    #[test]
    fn a_transposing_pack_is_not_gathered() {
        let k = parse_kernel(
            "kernel dy_pack0(dy: float32[200704]) -> (packed: float32[200704]) compute float32 {
  domain [8, 7, 7, 512]
  out0 = in0[(((i0*512 + i3)*7 + i1)*7 + i2)]
}",
        )
        .unwrap();
        let w = Windows::of(&k).unwrap();
        assert_eq!(w.strides, [25088, 7, 1, 49]);
        assert!(!w.pays(4 * w.elements() as usize, Some(1 << 10)));
    }
}
