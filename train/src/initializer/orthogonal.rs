//! `Orthogonal(scale=1.414, rand_type="uniform")` (Saxe et al., 2013): the array seen as
//! a matrix of nout = shape[0] rows and nin = the product of the other dimensions, filled
//! with scale × a matrix with orthonormal rows (nout ≤ nin) or orthonormal columns
//! (nout > nin), built from a random matrix drawn U[-1, 1) (`uniform`) or N(0, 1)
//! (`normal`).
//!
//! MXNet takes a factor of the random matrix's SVD (U, or Vᵀ when U would be square and
//! smaller); kiln orthonormalizes the same random matrix's rows (or columns) by modified
//! Gram–Schmidt, applied twice so the result is orthonormal to rounding ("twice is
//! enough", Giraud et al., 2005). Both give an orthonormal basis of the random matrix's
//! row (column) space; the values differ, as they do anyway between two random streams,
//! and kiln needs no linear-algebra library. A dependent set of random vectors (which
//! has probability zero) is an error rather than a NaN.

use super::{shape_error, write, InitDesc, Initializer, Rng};
use crate::spec::py_number;
use crate::Result;
use kiln_runtime::NDArray;

/// How Orthogonal draws its random matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RandType {
    Uniform,
    Normal,
}

/// Orthogonal initialization.
#[derive(Clone, Debug, PartialEq)]
pub struct Orthogonal {
    pub scale: f64,
    pub rand_type: RandType,
    pub(crate) scale_text: Option<String>,
}

impl Default for Orthogonal {
    fn default() -> Orthogonal {
        Orthogonal::new(1.414, RandType::Uniform)
    }
}

impl Orthogonal {
    pub fn new(scale: f64, rand_type: RandType) -> Orthogonal {
        Orthogonal {
            scale,
            rand_type,
            scale_text: None,
        }
    }
}

/// Orthonormalizes the `count` vectors of length `len` that `at(v, j)` indexes in `m`,
/// in place; false if one of them depends on the ones before.
fn gram_schmidt(
    m: &mut [f64],
    count: usize,
    len: usize,
    at: impl Fn(usize, usize) -> usize,
) -> bool {
    for v in 0..count {
        for _pass in 0..2 {
            for u in 0..v {
                let dot: f64 = (0..len).map(|j| m[at(u, j)] * m[at(v, j)]).sum();
                for j in 0..len {
                    m[at(v, j)] -= dot * m[at(u, j)];
                }
            }
        }
        let norm = (0..len).map(|j| m[at(v, j)].powi(2)).sum::<f64>().sqrt();
        if norm <= 1e-10 {
            return false;
        }
        for j in 0..len {
            m[at(v, j)] /= norm;
        }
    }
    true
}

impl Initializer for Orthogonal {
    fn name(&self) -> &'static str {
        "orthogonal"
    }

    fn kwargs(&self) -> Vec<(&'static str, String)> {
        let rand = match self.rand_type {
            RandType::Uniform => "uniform",
            RandType::Normal => "normal",
        };
        vec![
            ("scale", py_number(self.scale_text.as_deref(), self.scale)),
            ("rand_type", format!("\"{rand}\"")),
        ]
    }

    fn init_weight(&self, desc: &InitDesc, arr: &NDArray, rng: &mut Rng) -> Result<()> {
        let Some(&nout) = arr.shape().first() else {
            return Err(shape_error("orthogonal", desc, arr, "has no rows"));
        };
        let n = arr.len();
        if n == 0 {
            return Ok(());
        }
        let nin = n / nout;
        let mut m = match self.rand_type {
            RandType::Uniform => rng.uniform(-1.0, 1.0, n),
            RandType::Normal => rng.normal(0.0, 1.0, n),
        };
        let ok = if nout <= nin {
            gram_schmidt(&mut m, nout, nin, |r, j| r * nin + j)
        } else {
            gram_schmidt(&mut m, nin, nout, |c, i| i * nin + c)
        };
        if !ok {
            return Err(shape_error(
                "orthogonal",
                desc,
                arr,
                "drew linearly dependent random vectors; use another seed",
            ));
        }
        m.iter_mut().for_each(|x| *x *= self.scale);
        write(arr, &m)
    }
}
