//! Symbolic batch sizes: one kernel for every batch size, found from the same group
//! lowered at two batch sizes.
//!
//! [`generalize`] walks two kernels in parallel; where they differ only in integer
//! constants, each pair `(c1, c2)` becomes `a·D0 + b`, the line through `(b1, c1)` and
//! `(b2, c2)`, with `D0` the symbolic batch size. Anything else that differs (a float
//! constant such as a mean's count, a structure the simplifier chose differently) means
//! the kernel does not generalize. [`instantiate`] binds the dimensions back to
//! constants; callers check the generalization by instantiating it at a third batch size
//! and comparing with that lowering, so only kernels truly linear in the batch are kept.

use super::ir::{Buffer, Idx, Kernel, Val};

struct Line {
    b1: i64,
    b2: i64,
}

impl Line {
    fn idx(&self, x: &Idx, y: &Idx) -> Option<Idx> {
        Some(match (x, y) {
            _ if x == y => x.clone(),
            (Idx::Const(c1), Idx::Const(c2)) => {
                let (dc, db) = (c2 - c1, self.b2 - self.b1);
                if dc % db != 0 {
                    return None;
                }
                let a = dc / db;
                Idx::Dim(0) * Idx::Const(a) + Idx::Const(c1 - a * self.b1)
            }
            (Idx::Add(a1, b1), Idx::Add(a2, b2)) => self.idx(a1, a2)? + self.idx(b1, b2)?,
            (Idx::Mul(a1, b1), Idx::Mul(a2, b2)) => self.idx(a1, a2)? * self.idx(b1, b2)?,
            (Idx::Div(a1, b1), Idx::Div(a2, b2)) => self.idx(a1, a2)? / self.idx(b1, b2)?,
            (Idx::Mod(a1, b1), Idx::Mod(a2, b2)) => self.idx(a1, a2)? % self.idx(b1, b2)?,
            _ => return None,
        })
    }

    fn idxs(&self, x: &[Idx], y: &[Idx]) -> Option<Vec<Idx>> {
        (x.len() == y.len())
            .then(|| x.iter().zip(y).map(|(a, b)| self.idx(a, b)).collect())
            .flatten()
    }

    fn val(&self, x: &Val, y: &Val) -> Option<Val> {
        let b = |v| Some(Box::new(v));
        Some(match (x, y) {
            (Val::Const(a), Val::Const(c)) if a.to_bits() == c.to_bits() => x.clone(),
            (Val::Temp(a), Val::Temp(c)) if a == c => x.clone(),
            (Val::Local(a), Val::Local(c)) if a == c => x.clone(),
            (
                Val::Load { buffer, index },
                Val::Load {
                    buffer: b2,
                    index: i2,
                },
            ) if buffer == b2 => Val::Load {
                buffer: *buffer,
                index: self.idx(index, i2)?,
            },
            (Val::Index(i), Val::Index(j)) => Val::Index(self.idx(i, j)?),
            (Val::Shared(i), Val::Shared(j)) => Val::Shared(self.idx(i, j)?),
            (Val::Unary(o1, a1), Val::Unary(o2, a2)) if o1 == o2 => {
                Val::Unary(*o1, b(self.val(a1, a2)?)?)
            }
            (Val::Bits(o1, a1), Val::Bits(o2, a2)) if o1 == o2 => {
                Val::Bits(*o1, b(self.val(a1, a2)?)?)
            }
            (Val::Binary(o1, a1, c1), Val::Binary(o2, a2, c2)) if o1 == o2 => {
                Val::Binary(*o1, b(self.val(a1, a2)?)?, b(self.val(c1, c2)?)?)
            }
            (Val::Select(c1, a1, d1), Val::Select(c2, a2, d2)) => Val::Select(
                b(self.val(c1, c2)?)?,
                b(self.val(a1, a2)?)?,
                b(self.val(d1, d2)?)?,
            ),
            (
                Val::Reduce {
                    combiner,
                    extents,
                    locals,
                    body,
                },
                Val::Reduce {
                    combiner: c2,
                    extents: e2,
                    locals: l2,
                    body: b2,
                },
            ) if combiner == c2 => Val::Reduce {
                combiner: *combiner,
                extents: self.idxs(extents, e2)?,
                locals: self.vals(locals, l2)?,
                body: b(self.val(body, b2)?)?,
            },
            _ => return None,
        })
    }

    fn vals(&self, x: &[Val], y: &[Val]) -> Option<Vec<Val>> {
        (x.len() == y.len())
            .then(|| x.iter().zip(y).map(|(a, b)| self.val(a, b)).collect())
            .flatten()
    }

    fn buffers(&self, x: &[Buffer], y: &[Buffer]) -> Option<Vec<Buffer>> {
        if x.len() != y.len() {
            return None;
        }
        x.iter()
            .zip(y)
            .map(|(a, b)| {
                (a.name == b.name && a.dtype == b.dtype).then_some(())?;
                Some(Buffer {
                    name: a.name.clone(),
                    dtype: a.dtype,
                    len: self.idx(&a.len, &b.len)?,
                })
            })
            .collect()
    }
}

/// The kernel of which `k1` (at batch size `b1`) and `k2` (at `b2`) are instances, with
/// the batch size as symbolic dimension 0; `None` where they differ otherwise.
pub fn generalize(k1: &Kernel, b1: i64, k2: &Kernel, b2: i64) -> Option<Kernel> {
    if b1 == b2 || k1.name != k2.name || k1.compute != k2.compute {
        return None;
    }
    let line = Line { b1, b2 };
    Some(Kernel {
        name: k1.name.clone(),
        domain: line.idxs(&k1.domain, &k2.domain)?,
        inputs: line.buffers(&k1.inputs, &k2.inputs)?,
        outputs: line.buffers(&k1.outputs, &k2.outputs)?,
        temps: line.vals(&k1.temps, &k2.temps)?,
        values: line.vals(&k1.values, &k2.values)?,
        compute: k1.compute,
    })
}

fn bind_idx(i: &Idx, dims: &[i64]) -> Idx {
    match i {
        Idx::Dim(d) => dims.get(*d).map_or(i.clone(), |&v| Idx::Const(v)),
        Idx::Const(_) | Idx::Coord(_) | Idx::Red(_) => i.clone(),
        Idx::Add(a, b) => bind_idx(a, dims) + bind_idx(b, dims),
        Idx::Mul(a, b) => bind_idx(a, dims) * bind_idx(b, dims),
        Idx::Div(a, b) => bind_idx(a, dims) / bind_idx(b, dims),
        Idx::Mod(a, b) => bind_idx(a, dims) % bind_idx(b, dims),
    }
}

fn bind_val(v: &Val, dims: &[i64]) -> Val {
    v.map_idx(&|i| bind_idx(i, dims))
}

/// `k` with its symbolic dimensions bound to `dims`, constants folded.
pub fn instantiate(k: &Kernel, dims: &[i64]) -> Kernel {
    let buffers = |bs: &[Buffer]| {
        bs.iter()
            .map(|b| Buffer {
                len: bind_idx(&b.len, dims),
                ..b.clone()
            })
            .collect()
    };
    Kernel {
        name: k.name.clone(),
        domain: k.domain.iter().map(|e| bind_idx(e, dims)).collect(),
        inputs: buffers(&k.inputs),
        outputs: buffers(&k.outputs),
        temps: k.temps.iter().map(|v| bind_val(v, dims)).collect(),
        values: k.values.iter().map(|v| bind_val(v, dims)).collect(),
        compute: k.compute,
    }
}
