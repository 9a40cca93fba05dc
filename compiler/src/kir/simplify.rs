//! Index simplification by value ranges. Composed index maps divide and take remainders of
//! linear indices (a flatten after a reshape reads `((i0*784 + i1) / 784) % 32`); knowing
//! each coordinate's range turns most of that back into plain coordinates, which saves
//! integer divisions in every generated kernel.
//!
//! Rules, for a divisor `k > 0` (floor division and Euclidean remainder make them exact
//! for negative values too): terms of a sum that are multiples of `k` leave a division as
//! quotients and vanish from a remainder; `x / k` is 0 and `x % k` is `x` when
//! `0 <= x < k`; `(x / a) / b` is `x / (a*b)`.

use super::ir::{Buffer, Idx, Kernel, Val};

/// `k` with every index expression simplified, given the ranges of its coordinates (its
/// constant extents; symbolic ones unbounded): what [`from_group`](super::from_group)
/// applies to the kernels it builds, as a step of its own (the `simplify` filetests).
pub fn simplify(k: &Kernel) -> Kernel {
    let extents: Vec<Option<i64>> = k
        .domain
        .iter()
        .map(|e| match e {
            Idx::Const(n) => Some(*n),
            _ => None,
        })
        .collect();
    let s = Simplifier {
        extents: &extents,
        red: vec![],
    };
    let buffers = |bs: &[Buffer]| {
        bs.iter()
            .map(|b| Buffer {
                len: s.idx(&b.len),
                ..b.clone()
            })
            .collect()
    };
    Kernel {
        name: k.name.clone(),
        domain: k.domain.iter().map(|e| s.idx(e)).collect(),
        inputs: buffers(&k.inputs),
        outputs: buffers(&k.outputs),
        temps: k.temps.iter().map(|v| s.val(v)).collect(),
        values: k.values.iter().map(|v| s.val(v)).collect(),
        compute: k.compute,
    }
}

/// Inclusive bounds of an index; `i64::MIN`/`i64::MAX` where unknown.
#[derive(Clone, Copy)]
struct Range {
    lo: i64,
    hi: i64,
}

impl Range {
    const ANY: Range = Range {
        lo: i64::MIN,
        hi: i64::MAX,
    };

    fn within(self, k: i64) -> bool {
        self.lo >= 0 && self.hi < k
    }
}

/// Index simplification given each coordinate's extent (`None` when symbolic).
pub struct Simplifier<'a> {
    pub extents: &'a [Option<i64>],
    /// Extents of the reduction axes, inside a reduction.
    pub red: Vec<Option<i64>>,
}

impl Simplifier<'_> {
    /// Whether `e` provably lies in `0..k`.
    pub fn within(&self, e: &Idx, k: i64) -> bool {
        self.range(e).within(k)
    }

    fn range(&self, e: &Idx) -> Range {
        match e {
            Idx::Const(c) => Range { lo: *c, hi: *c },
            Idx::Coord(a) => match self.extents.get(*a).copied().flatten() {
                Some(n) => Range { lo: 0, hi: n - 1 },
                None => Range {
                    lo: 0,
                    hi: i64::MAX,
                },
            },
            Idx::Red(k) => match self.red.get(*k).copied().flatten() {
                Some(n) => Range { lo: 0, hi: n - 1 },
                None => Range {
                    lo: 0,
                    hi: i64::MAX,
                },
            },
            Idx::Dim(_) => Range {
                lo: 0,
                hi: i64::MAX,
            },
            Idx::Add(a, b) => {
                let (a, b) = (self.range(a), self.range(b));
                Range {
                    lo: a.lo.saturating_add(b.lo),
                    hi: a.hi.saturating_add(b.hi),
                }
            }
            Idx::Mul(a, b) => {
                let (a, b) = (self.range(a), self.range(b));
                if [a.lo, a.hi, b.lo, b.hi]
                    .iter()
                    .any(|v| *v == i64::MIN || *v == i64::MAX)
                {
                    return Range::ANY;
                }
                let corners = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
                Range {
                    lo: *corners.iter().min().unwrap(),
                    hi: *corners.iter().max().unwrap(),
                }
            }
            Idx::Div(a, b) => match (self.range(a), b.as_ref()) {
                (r, Idx::Const(k)) if r.lo >= 0 && *k > 0 => Range {
                    lo: r.lo / k,
                    hi: r.hi / k,
                },
                _ => Range::ANY,
            },
            Idx::Mod(_, b) => match b.as_ref() {
                Idx::Const(k) if *k > 0 => Range { lo: 0, hi: k - 1 },
                _ => Range {
                    lo: 0,
                    hi: i64::MAX,
                },
            },
        }
    }

    pub fn idx(&self, e: &Idx) -> Idx {
        match e {
            Idx::Const(_) | Idx::Coord(_) | Idx::Dim(_) | Idx::Red(_) => e.clone(),
            Idx::Add(a, b) => self.idx(a) + self.idx(b),
            Idx::Mul(a, b) => self.idx(a) * self.idx(b),
            Idx::Div(a, b) => match self.idx(b) {
                Idx::Const(k) if k > 0 => self.div(self.idx(a), k),
                b => self.idx(a) / b,
            },
            Idx::Mod(a, b) => match self.idx(b) {
                Idx::Const(k) if k > 0 => self.rem(self.idx(a), k),
                b => self.idx(a) % b,
            },
        }
    }

    fn div(&self, a: Idx, k: i64) -> Idx {
        if let Idx::Div(inner, d) = &a {
            if let Idx::Const(d) = d.as_ref() {
                if *d > 0 {
                    return self.div(inner.as_ref().clone(), d * k);
                }
            }
        }
        let (quotient, rest) = split_multiples(a, k);
        let rest = if self.range(&rest).within(k) {
            Idx::Const(0)
        } else {
            rest / Idx::Const(k)
        };
        quotient + rest
    }

    fn rem(&self, a: Idx, k: i64) -> Idx {
        let (_, rest) = split_multiples(a, k);
        if self.range(&rest).within(k) {
            rest
        } else {
            rest % Idx::Const(k)
        }
    }

    pub fn val(&self, v: &Val) -> Val {
        match v {
            Val::Const(_) | Val::Temp(_) | Val::Local(_) => v.clone(),
            Val::Load { buffer, index } => Val::Load {
                buffer: *buffer,
                index: self.idx(index),
            },
            Val::Index(i) => Val::Index(self.idx(i)),
            Val::Unary(op, a) => Val::Unary(*op, Box::new(self.val(a))),
            Val::Bits(op, a) => Val::Bits(*op, Box::new(self.val(a))),
            Val::Shared(i) => Val::Shared(self.idx(i)),
            Val::Binary(op, a, b) => Val::Binary(*op, Box::new(self.val(a)), Box::new(self.val(b))),
            Val::Reduce {
                combiner,
                extents,
                locals,
                body,
            } => {
                let extents: Vec<Idx> = extents.iter().map(|e| self.idx(e)).collect();
                let inner = Simplifier {
                    extents: self.extents,
                    red: extents
                        .iter()
                        .map(|e| match e {
                            Idx::Const(n) => Some(*n),
                            _ => None,
                        })
                        .collect(),
                };
                Val::Reduce {
                    combiner: *combiner,
                    locals: locals.iter().map(|l| inner.val(l)).collect(),
                    body: Box::new(inner.val(body)),
                    extents,
                }
            }
            Val::Select(c, a, b) => Val::Select(
                Box::new(self.val(c)),
                Box::new(self.val(a)),
                Box::new(self.val(b)),
            ),
        }
    }
}

/// Splits the sum `a` into (Σ multiples of `k`, divided by `k`; the other terms).
fn split_multiples(a: Idx, k: i64) -> (Idx, Idx) {
    let mut terms = Vec::new();
    flatten_sum(a, &mut terms);
    let (mut quotient, mut rest) = (Idx::Const(0), Idx::Const(0));
    for t in terms {
        match multiple_of(&t, k) {
            Some(q) => quotient = quotient + q,
            None => rest = rest + t,
        }
    }
    (quotient, rest)
}

fn flatten_sum(a: Idx, terms: &mut Vec<Idx>) {
    match a {
        Idx::Add(x, y) => {
            flatten_sum(*x, terms);
            flatten_sum(*y, terms);
        }
        t => terms.push(t),
    }
}

/// `t / k` when `t` is a multiple of `k` by its form.
fn multiple_of(t: &Idx, k: i64) -> Option<Idx> {
    match t {
        Idx::Const(c) if c % k == 0 => Some(Idx::Const(c / k)),
        Idx::Mul(x, m) => match (x.as_ref(), m.as_ref()) {
            (x, Idx::Const(m)) | (Idx::Const(m), x) if m % k == 0 => {
                Some(x.clone() * Idx::Const(m / k))
            }
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kir::interp::{idx as eval, Env};

    /// Each expression equals its simplification at every point of a 5 × 7 domain, and
    /// the flatten-after-reshape pattern becomes the plain linear index.
    #[test]
    fn simplification_keeps_values_and_removes_divisions() {
        let (i0, i1, c) = (|| Idx::Coord(0), || Idx::Coord(1), Idx::Const);
        let linear = || i0() * c(7) + i1();
        let cases = [
            ((linear() / c(7)) % c(5)) * c(7) + linear() % c(7),
            (linear() + c(-3)) / c(7),
            (linear() + c(-3)) % c(7),
            (linear() / c(2)) / c(3),
            (i1() * c(6) + i0()) % c(3),
            (i0() + c(14)) / c(7) + (c(14) * i1()) % c(7),
            (linear() * c(2)) % c(4),
        ];
        let s = Simplifier {
            extents: &[Some(5), Some(7)],
            red: vec![],
        };
        for e in &cases {
            let simple = s.idx(e);
            for a in 0..5 {
                for b in 0..7 {
                    let env = Env {
                        coords: vec![a, b],
                        ..Env::new(&[], &[])
                    };
                    assert_eq!(
                        eval(e, &env),
                        eval(&simple, &env),
                        "{e} vs {simple} at ({a}, {b})"
                    );
                }
            }
        }
        assert_eq!(s.idx(&cases[0]), linear());
        assert_eq!(s.idx(&cases[5]), c(2));
    }
}
