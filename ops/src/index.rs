//! Index maps: what an injective operator (reshape, transpose, slice, concat, broadcast)
//! computes, as a map from each output coordinate to the input coordinate it copies.
//!
//! The interpreter walks the output and follows the map; code generators fold the same
//! map into the loads of a fused kernel so the data never moves.

use std::fmt;

/// An integer expression over output coordinates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IndexExpr {
    /// Output coordinate along `axis`.
    Out(usize),
    Const(i64),
    Add(Box<IndexExpr>, Box<IndexExpr>),
    Mul(Box<IndexExpr>, Box<IndexExpr>),
    /// Floor division by a positive constant.
    Div(Box<IndexExpr>, i64),
    /// Remainder by a positive constant.
    Mod(Box<IndexExpr>, i64),
}

impl std::ops::Add for IndexExpr {
    type Output = IndexExpr;
    fn add(self, rhs: IndexExpr) -> IndexExpr {
        match (self, rhs) {
            (IndexExpr::Const(0), e) | (e, IndexExpr::Const(0)) => e,
            (IndexExpr::Const(a), IndexExpr::Const(b)) => IndexExpr::Const(a + b),
            (a, b) => IndexExpr::Add(Box::new(a), Box::new(b)),
        }
    }
}

impl std::ops::Mul<i64> for IndexExpr {
    type Output = IndexExpr;
    fn mul(self, k: i64) -> IndexExpr {
        match (self, k) {
            (_, 0) => IndexExpr::Const(0),
            (e, 1) => e,
            (IndexExpr::Const(a), k) => IndexExpr::Const(a * k),
            (e, k) => IndexExpr::Mul(Box::new(e), Box::new(IndexExpr::Const(k))),
        }
    }
}

/// Floor division by a positive constant.
impl std::ops::Div<i64> for IndexExpr {
    type Output = IndexExpr;
    fn div(self, k: i64) -> IndexExpr {
        if k == 1 {
            self
        } else {
            IndexExpr::Div(Box::new(self), k)
        }
    }
}

/// Euclidean remainder by a positive constant.
impl std::ops::Rem<i64> for IndexExpr {
    type Output = IndexExpr;
    fn rem(self, k: i64) -> IndexExpr {
        if k == 1 {
            IndexExpr::Const(0)
        } else {
            IndexExpr::Mod(Box::new(self), k)
        }
    }
}

impl IndexExpr {
    pub fn eval(&self, out: &[usize]) -> i64 {
        match self {
            IndexExpr::Out(a) => out[*a] as i64,
            IndexExpr::Const(c) => *c,
            IndexExpr::Add(a, b) => a.eval(out) + b.eval(out),
            IndexExpr::Mul(a, b) => a.eval(out) * b.eval(out),
            IndexExpr::Div(a, k) => a.eval(out).div_euclid(*k),
            IndexExpr::Mod(a, k) => a.eval(out).rem_euclid(*k),
        }
    }

    /// The row-major linear index of `coords` in `shape`.
    pub fn linear(coords: Vec<IndexExpr>, shape: &[usize]) -> IndexExpr {
        coords
            .into_iter()
            .zip(shape)
            .fold(IndexExpr::Const(0), |acc, (c, &d)| acc * d as i64 + c)
    }

    /// The coordinates in `shape` of a row-major linear index.
    pub fn delinearize(linear: IndexExpr, shape: &[usize]) -> Vec<IndexExpr> {
        let mut stride = 1i64;
        let mut coords = vec![IndexExpr::Const(0); shape.len()];
        for (axis, &d) in shape.iter().enumerate().rev() {
            coords[axis] = linear.clone() / stride % d as i64;
            stride *= d as i64;
        }
        coords
    }
}

/// Where one region of the output reads from.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    pub input: usize,
    /// The piece applies where `lo <= out[axis] < hi` (concatenation); `None`: everywhere.
    pub guard: Option<(usize, usize, usize)>,
    /// One expression per input axis.
    pub coords: Vec<IndexExpr>,
}

/// An injective operator's output→input map: the first piece whose guard holds wins.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexMap {
    pub pieces: Vec<Piece>,
}

impl IndexMap {
    /// A single-input map.
    pub fn single(coords: Vec<IndexExpr>) -> IndexMap {
        IndexMap {
            pieces: vec![Piece {
                input: 0,
                guard: None,
                coords,
            }],
        }
    }

    /// Same elements in the same row-major order, another shape (reshape, flatten, ...).
    pub fn reshape(in_shape: &[usize], out_shape: &[usize]) -> IndexMap {
        let out = (0..out_shape.len()).map(IndexExpr::Out).collect();
        let linear = IndexExpr::linear(out, out_shape);
        IndexMap::single(IndexExpr::delinearize(linear, in_shape))
    }

    /// The input piece and input coordinates that output coordinate `out` reads.
    pub fn locate(&self, out: &[usize]) -> Option<(usize, Vec<i64>)> {
        let piece = self.pieces.iter().find(|p| match p.guard {
            Some((axis, lo, hi)) => (lo..hi).contains(&out[axis]),
            None => true,
        })?;
        Some((
            piece.input,
            piece.coords.iter().map(|e| e.eval(out)).collect(),
        ))
    }
}

impl fmt::Display for IndexExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexExpr::Out(a) => write!(f, "i{a}"),
            IndexExpr::Const(c) => write!(f, "{c}"),
            IndexExpr::Add(a, b) => write!(f, "({a} + {b})"),
            IndexExpr::Mul(a, b) => write!(f, "{a}*{b}"),
            IndexExpr::Div(a, k) => write!(f, "{a}/{k}"),
            IndexExpr::Mod(a, k) => write!(f, "{a}%{k}"),
        }
    }
}

impl fmt::Display for IndexMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.pieces.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            if let Some((axis, lo, hi)) = p.guard {
                write!(f, "{lo} <= i{axis} < {hi}: ")?;
            }
            let coords: Vec<String> = p.coords.iter().map(|c| c.to_string()).collect();
            write!(f, "x{}[{}]", p.input, coords.join(", "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reshape_map_walks_row_major() {
        let m = IndexMap::reshape(&[2, 3], &[3, 2]);
        assert_eq!(m.locate(&[0, 0]), Some((0, vec![0, 0])));
        assert_eq!(m.locate(&[1, 1]), Some((0, vec![1, 0])));
        assert_eq!(m.locate(&[2, 1]), Some((0, vec![1, 2])));
    }
}
