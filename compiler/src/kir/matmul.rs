//! Matrix products found in the kernel IR, so a backend can hand them to a tuned gemm
//! (TVM's tensorize, on kiln's IR): a kernel whose one reduction is `Σ a[..]·b[..]` over
//! loads whose indices are affine in the coordinates becomes a [`MatMul`] — strided
//! operands, outer loops, and the rest of the kernel as an element-wise epilogue that
//! reads the product back from the output.
//!
//! An operand that is not a plain strided load (a padded convolution's guarded window,
//! a gradient's gather) is packed first: a kernel of its own evaluates it over the axes it
//! depends on, reduction axes innermost — im2col, derived from the IR.
//!
//! Nothing about operators is restated here: FullyConnected, dot, batch_dot and their
//! gradients (and any other contraction of the same shape) are recognized from the IR
//! their declarations lower to. Domain axes take roles from the operands that vary along
//! them: `a` only (gemm rows), `b` only (gemm columns), both (an outer loop). Consecutive
//! axes of one role merge when their strides nest in every buffer involved; what does not
//! merge becomes an outer loop (a reduction axis: products summed into the output).

use super::ir::{linear, Buffer, Idx, Kernel, Val};
use kiln_ops::expr::Binary;
use kiln_ops::{Combiner, DType};

/// One operand of the product: a kernel input read at `offset + row·rows + k·depth`.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub input: usize,
    pub offset: i64,
    /// Stride along the operand's own gemm axis (rows of `a`, columns of `b`).
    pub stride: i64,
    /// Stride along the reduction.
    pub depth: i64,
}

/// Outer and summed loops a recognized product has at most (backends keep them on the
/// stack); a kernel with more stays a loop nest.
pub const MAX_LOOPS: usize = 16;

/// An outer loop around the product: its extent and the strides of `a`, `b` and the
/// output along it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OuterLoop {
    pub extent: i64,
    pub a: i64,
    pub b: i64,
    pub out: i64,
}

/// How a backend splits the product over threads: along an outer loop, or along gemm
/// rows or columns (by the side whose operand is larger, so the threads do not each pack
/// it). Block `[lo, hi)` of `0..split_extent` covers loop iterations `lo..hi`, or rows
/// (columns) `lo·inner .. hi·inner`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    Loop(usize),
    Rows {
        inner: i64,
    },
    Cols {
        inner: i64,
    },
    /// Every axis has extent 1.
    None,
}

/// `out[loops.., i, j] = epilogue(Σ_sums Σ_k a[loops.., sums.., i, k]·b[loops.., sums.., k, j])`.
#[derive(Clone, Debug, PartialEq)]
pub struct MatMul {
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub a: Operand,
    pub b: Operand,
    /// Output strides along gemm rows and columns.
    pub out_rows: i64,
    pub out_cols: i64,
    pub loops: Vec<OuterLoop>,
    /// Reduction axes that do not merge into the gemm's: products summed into the output
    /// (its stride along them is 0).
    pub sums: Vec<OuterLoop>,
    pub split: Split,
    pub split_extent: i64,
    /// Whether the split follows the first domain axis longer than 1 (the epilogue's
    /// outermost loop under `Schedule::cpu`): then each block's epilogue runs right after
    /// its products, on the same rows; else the epilogue runs once, after all of them.
    pub split_aligned: bool,
    /// The first domain axis longer than 1, which an aligned split follows.
    pub split_axis: Option<usize>,
    pub dtype: DType,
    /// Operands that are not plain strided loads (a convolution's guarded window reads,
    /// a gradient's gathers), each materialized first by its own kernel over the axes it
    /// depends on, reduction axes innermost (im2col); operand input `inputs.len() + j`
    /// is `packs[j]`'s output.
    pub packs: Vec<Kernel>,
    /// The kernel with the product read from its output (input `inputs.len() − 1`, the
    /// output itself, at the point being stored); `None` when it only stores the product.
    pub epilogue: Option<Kernel>,
}

impl MatMul {
    /// Whether `other` (the same kernel lowered at another batch size) packs the same
    /// operands over the same number of axes: then its packs correspond to these one by
    /// one, and may be generalized over the batch size together.
    pub fn packs_like(&self, other: &MatMul) -> bool {
        (self.a.input, self.b.input) == (other.a.input, other.b.input)
            && self.packs.len() == other.packs.len()
            && self
                .packs
                .iter()
                .zip(&other.packs)
                .all(|(p, q)| p.domain.len() == q.domain.len())
    }

    /// The operand read from kernel input `input` (by one side only), the length of its
    /// gemm axis, and whether it is `a`.
    pub fn operand(&self, input: usize) -> Option<(&Operand, i64, bool)> {
        match input {
            i if i == self.a.input && i != self.b.input => Some((&self.a, self.m, true)),
            i if i == self.b.input && i != self.a.input => Some((&self.b, self.n, false)),
            _ => None,
        }
    }

    /// Multiply-adds of the whole product.
    pub fn flops(&self) -> i64 {
        let outer: i64 = self
            .loops
            .iter()
            .chain(&self.sums)
            .map(|l| l.extent)
            .product();
        outer * self.m * self.n * self.k
    }

    /// The outer loop the product splits along, if it splits along one.
    pub fn split_loop(&self) -> Option<OuterLoop> {
        match self.split {
            Split::Loop(l) => self.loops.get(l).copied(),
            _ => None,
        }
    }

    /// The products of one index of loop `along`, with its operands and output offset
    /// to that index, or to its slots where they are packed or stored by index: the
    /// product without that loop, not split along it.
    pub fn per_index(&self, along: Along) -> Option<MatMul> {
        let mut mm = MatMul {
            packs: vec![],
            epilogue: None,
            ..self.clone()
        };
        match along {
            Along::Split => {
                let Split::Loop(l) = self.split else {
                    return None;
                };
                mm.loops.remove(l);
                (mm.split, mm.split_extent) = (Split::None, 1);
            }
            Along::Sum => {
                if mm.sums.is_empty() {
                    return None;
                }
                mm.sums.remove(0);
            }
        }
        Some(mm)
    }

    /// The loop a product runs index by index along: the split loop, or the first
    /// summed loop.
    pub fn loop_along(&self, along: Along) -> Option<OuterLoop> {
        match along {
            Along::Split => self.split_loop(),
            Along::Sum => self.sums.first().copied(),
        }
    }

    /// Which packs run index by index along loop `along` — those that put its axis
    /// outermost, so each index reads a contiguous block of the packed operand, which
    /// [`pack_per_index`] packs alone — and which whole, once (those that do not read
    /// it); `None` where a pack reads it otherwise, or there is no such loop.
    pub fn packs_by_index(&self, along: Along) -> Option<Vec<bool>> {
        let outer = self.loop_along(along)?;
        let stride_of = |j: usize| {
            let input = self.packs[j].inputs.len() + j;
            [(self.a.input, outer.a), (self.b.input, outer.b)]
                .into_iter()
                .find_map(|(i, stride)| (i == input).then_some(stride))
        };
        (self.packs.iter().enumerate())
            .map(|(j, p)| {
                let block: Option<i64> = p.domain.iter().skip(1).map(constant).product();
                match stride_of(j)? {
                    0 => Some(false),
                    s => (p.domain.first().and_then(constant) == Some(outer.extent)
                        && Some(s) == block)
                        .then_some(true),
                }
            })
            .collect()
    }
}

/// The loop a product runs index by index along ([`MatMul::loop_along`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Along {
    /// The split loop, in parallel: each task its own indices, one at a time.
    Split,
    /// The first summed loop, one index after another, each index's products split as
    /// the product is (a weight gradient's sum over the images).
    Sum,
}

/// Multiply-adds below which a product runs on the calling thread.
pub const PARALLEL_FLOPS: i64 = 1 << 20;

/// The least depth of one index's product for a product to be summed index by index
/// ([`recognize_summing`]): each index's product reads and adds into the whole output,
/// which below this depth costs more than its multiply-adds (a 3x3 convolution of one
/// image summed channel by channel: depth 9). A quarter of kiln-gemm's depth block.
pub const LEAST_SUMMED_DEPTH: i64 = 128;

/// Pack `p` (see [`MatMul::packs_by_index`]) for one index of its outermost axis:
/// the axis dropped from its domain, its coordinate symbolic dimension 0 (the index to
/// pack), its output that index's block.
pub fn pack_per_index(p: &Kernel) -> Option<Kernel> {
    if p.symbolic_dims() != 0 || p.domain.is_empty() {
        return None;
    }
    let coord = |a: usize| match a {
        0 => Idx::Dim(0),
        a => Idx::Coord(a - 1),
    };
    let domain: Vec<Idx> = p.domain[1..].to_vec();
    let block = domain.iter().map(constant).product::<Option<i64>>()?;
    Some(remapped(p, "by_index", domain, block, &coord))
}

/// `p` over `domain`, its coordinates read through `coord`, its output `len` long.
fn remapped(
    p: &Kernel,
    suffix: &str,
    domain: Vec<Idx>,
    len: i64,
    coord: &dyn Fn(usize) -> Idx,
) -> Kernel {
    let map = |v: &Val| v.map_idx(&|i| i.substitute(coord, &Idx::Red));
    let mut out = p.outputs[0].clone();
    out.len = Idx::Const(len);
    Kernel {
        name: format!("{}_{suffix}", p.name),
        domain,
        outputs: vec![out],
        temps: p.temps.iter().map(map).collect(),
        values: p.values.iter().map(map).collect(),
        ..p.clone()
    }
}

/// How a streamed product packs and multiplies an index in chunks: `rows` indices at a
/// time of axis `axis` of its one per-index pack (`packs[pack]`, whose first axis is the
/// index), the outermost part of the packed operand's gemm axis — so each chunk is a
/// block of the product's rows (columns), its packed operand a dense block too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunks {
    pub pack: usize,
    pub axis: usize,
    /// The axis' extent.
    pub extent: i64,
    pub rows: i64,
}

impl Chunks {
    /// The chunks of `mm` (split along its split loop, whose per-index packs are
    /// `by_index`) packing at most `bytes` each (at least one row of the chunked axis),
    /// in as few chunks as that takes; `None` where one chunk would do, more than one
    /// pack packs by index, or the packed operand's gemm axis is not its pack's leading
    /// or trailing axes (its reduction the others).
    pub fn find(mm: &MatMul, by_index: &[bool], bytes: usize) -> Option<Chunks> {
        let mut packed = (by_index.iter().enumerate()).filter(|(_, &one)| one);
        let (Some((pack, _)), None) = (packed.next(), packed.next()) else {
            return None;
        };
        let per_index = mm.per_index(Along::Split)?;
        if !per_index.loops.is_empty() || !per_index.sums.is_empty() {
            return None;
        }
        let p = &mm.packs[pack];
        let (operand, length, _) = per_index.operand(p.inputs.len() + pack)?;
        let extents: Vec<i64> = p.domain[1..].iter().map(constant).collect::<Option<_>>()?;
        let product = |axes: &[i64]| axes.iter().product::<i64>();
        // The gemm axis leads (reduction innermost) or trails (reduction outermost):
        // the axes spanning it, from the first, or to the last.
        let axis = match (operand.offset, operand.stride, operand.depth) {
            (0, s, 1) if s == per_index.k => {
                (1..=extents.len()).find(|&q| product(&extents[..q]) == length)?;
                0
            }
            (0, 1, d) if d == length => {
                (0..extents.len()).find(|&q| product(&extents[q..]) == length)?
            }
            _ => return None,
        };
        if product(&extents) != length * per_index.k {
            return None;
        }
        let extent = extents[axis];
        let index_bytes = (length * per_index.k) as usize * mm.dtype.size();
        let chunks = index_bytes.div_ceil(bytes.max(1)).min(extent as usize) as i64;
        let rows = (extent + chunks - 1) / chunks.max(1);
        (chunks > 1 && rows < extent).then_some(Chunks {
            pack,
            axis: axis + 1,
            extent,
            rows,
        })
    }

    /// Along `mm`'s first summed loop, with per-index packs `by_index`: rows of those
    /// packs' first axis (their outermost loop) to pack and multiply at a time so that a
    /// chunk's packed operands take at most `bytes` (at least one row). Each pack must
    /// hold its operand with the depth outermost, a row holding a range of depths and
    /// every gemm row (column) of them, all packs the same rows — so the products of a
    /// chunk's depths add up to the index's. `None` where one chunk would do or a pack
    /// is laid out otherwise.
    pub fn depth_rows(mm: &MatMul, by_index: &[bool], bytes: usize) -> Option<i64> {
        let per_index = mm.per_index(Along::Sum)?;
        if !per_index.loops.is_empty() || !per_index.sums.is_empty() {
            return None;
        }
        let (mut rows, mut row_bytes) = (None, 0);
        for (j, p) in mm.packs.iter().enumerate().filter(|&(j, _)| by_index[j]) {
            let extents: Vec<i64> = p.domain[1..].iter().map(constant).collect::<Option<_>>()?;
            let (&r, rest) = extents.split_first()?;
            if *rows.get_or_insert(r) != r || r <= 0 || per_index.k % r != 0 {
                return None;
            }
            let row_len: i64 = rest.iter().product();
            let (operand, length, _) = per_index.operand(p.inputs.len() + j)?;
            let fits = operand.offset == 0
                && operand.depth * (per_index.k / r) == row_len
                && operand.stride * (length - 1) < operand.depth;
            if !fits {
                return None;
            }
            row_bytes += row_len as usize * mm.dtype.size();
        }
        let chunk = (bytes / row_bytes.max(1)).max(1) as i64;
        (chunk < rows?).then_some(chunk)
    }

    /// The pack of a chunk: its first axis' coordinate symbolic dimension 0 (the index),
    /// its chunked axis' `Dim(1) .. Dim(1) + Dim(2)` (the chunk's first row and rows),
    /// stored from the start of its output, which holds `rows` rows.
    pub fn pack(&self, p: &Kernel) -> Option<Kernel> {
        if p.symbolic_dims() != 0 {
            return None;
        }
        let axis = self.axis;
        let coord = |a: usize| match a {
            0 => Idx::Dim(0),
            a if a == axis => Idx::Coord(a - 1) + Idx::Dim(1),
            a => Idx::Coord(a - 1),
        };
        let mut domain: Vec<Idx> = p.domain[1..].to_vec();
        let block = domain.iter().map(constant).product::<Option<i64>>()?;
        domain[axis - 1] = Idx::Dim(2);
        Some(remapped(
            p,
            "by_chunk",
            domain,
            block / self.extent * self.rows,
            &coord,
        ))
    }

    /// First rows of the chunks, in order.
    pub fn starts(&self) -> impl Iterator<Item = i64> {
        (0..self.extent).step_by(self.rows.max(1) as usize)
    }

    /// Rows of the chunk starting at `first`.
    pub fn rows_at(&self, first: i64) -> i64 {
        self.rows.min(self.extent - first)
    }

    /// The products of the chunk starting at `first` of an index of `mm`
    /// ([`MatMul::per_index`]), its packed operand read from the start of the chunk's
    /// pack; and the elements from the index's output to the chunk's.
    pub fn product(
        &self,
        per_index: &MatMul,
        pack_inputs: usize,
        first: i64,
    ) -> Option<(MatMul, i64)> {
        let input = pack_inputs + self.pack;
        let (operand, length, _) = per_index.operand(input)?;
        let inner = length / self.extent;
        let chunk = self.rows_at(first) * inner;
        let mut mm = per_index.clone();
        let trailing = operand.depth == length && operand.stride == 1;
        let (side, out) = match input == mm.a.input {
            true => (&mut mm.a, first * inner * per_index.out_rows),
            false => (&mut mm.b, first * inner * per_index.out_cols),
        };
        if trailing {
            side.depth = chunk;
        }
        match input == per_index.a.input {
            true => mm.m = chunk,
            false => mm.n = chunk,
        }
        Some((mm, out))
    }
}

/// Epilogue `e` (its last input the product) reading the product from a buffer of
/// `block` indices of domain axis `axis`, index `i` at `i % block`: for runs over blocks
/// of `block` indices starting at multiples of it.
pub fn epilogue_by_block(e: &Kernel, axis: usize, block: i64) -> Kernel {
    let product = e.inputs.len() - 1;
    let in_block = |i: &Idx| {
        i.substitute(
            &|a| match a == axis {
                true if block == 1 => Idx::Const(0),
                true => Idx::Coord(a) % Idx::Const(block),
                false => Idx::Coord(a),
            },
            &Idx::Red,
        )
    };
    let mut e = e.clone();
    for t in &mut e.temps {
        if let Val::Load { buffer, index } = t {
            if *buffer == product {
                *index = in_block(index);
            }
        }
    }
    let len = (e.domain.iter().enumerate())
        .map(|(a, d)| {
            if a == axis {
                Idx::Const(block)
            } else {
                d.clone()
            }
        })
        .fold(Idx::Const(1), |len, d| len * d);
    e.inputs[product].len = len;
    e.name = format!("{}_by_block", e.name);
    e
}

/// `offset + Σ coord[a]·Coord(a) + Σ red[r]·Red(r)`.
#[derive(Clone, Debug, Default, PartialEq)]
struct Affine {
    offset: i64,
    coord: Vec<i64>,
    red: Vec<i64>,
}

/// A term of a quasi-affine index: a coordinate, or a division or remainder of an
/// index by a positive constant.
#[derive(Clone, Debug, PartialEq)]
enum Atom {
    Coord(usize),
    Red(usize),
    Div(Box<Lin>, i64),
    Mod(Box<Lin>, i64),
}

/// `offset + Σ coefficient·atom`, atoms distinct.
#[derive(Clone, Debug, Default, PartialEq)]
struct Lin {
    offset: i64,
    terms: Vec<(Atom, i64)>,
}

/// Extents of the domain and reduction axes: the ranges that prove divisions exact.
struct Ranges<'a> {
    domain: &'a [i64],
    reduction: &'a [i64],
}

impl Lin {
    fn constant(c: i64) -> Lin {
        Lin {
            offset: c,
            terms: vec![],
        }
    }

    fn atom(a: Atom) -> Lin {
        Lin {
            offset: 0,
            terms: vec![(a, 1)],
        }
    }

    fn add(mut self, o: Lin, scale: i64) -> Option<Lin> {
        self.offset = self.offset.checked_add(o.offset.checked_mul(scale)?)?;
        for (atom, c) in o.terms {
            let c = c.checked_mul(scale)?;
            match self.terms.iter_mut().find(|(a, _)| *a == atom) {
                Some((_, k)) => *k = k.checked_add(c)?,
                None => self.terms.push((atom, c)),
            }
        }
        self.terms.retain(|(_, c)| *c != 0);
        Some(self)
    }

    /// The least and greatest values over the ranges.
    fn range(&self, r: &Ranges) -> Option<(i64, i64)> {
        let (mut lo, mut hi) = (self.offset, self.offset);
        for (atom, c) in &self.terms {
            let (a, b) = match atom {
                Atom::Coord(i) => (0, r.domain.get(*i)? - 1),
                Atom::Red(i) => (0, r.reduction.get(*i)? - 1),
                Atom::Div(x, d) => {
                    let (a, b) = x.range(r)?;
                    (a.div_euclid(*d), b.div_euclid(*d))
                }
                Atom::Mod(_, d) => (0, d - 1),
            };
            let (p, q) = (a.checked_mul(*c)?, b.checked_mul(*c)?);
            lo = lo.checked_add(p.min(q))?;
            hi = hi.checked_add(p.max(q))?;
        }
        Some((lo, hi))
    }

    /// `self` split into `c·quotient + rest`, with the rest in `[0, c)` over the ranges.
    /// A term whose coefficient `k` does not divide by `c` is first tried whole in the
    /// rest, then split into digits: `k·x = k·d·(x / d) + k·(x % d)` with `d = c/gcd(k, c)`
    /// (when that is less than `c`: `x / c` itself is what is being defined).
    fn divide(&self, c: i64, r: &Ranges) -> Option<(Lin, Lin)> {
        for digits in [false, true] {
            let mut quotient = Lin::constant(self.offset.div_euclid(c));
            let mut rest = Lin::constant(self.offset.rem_euclid(c));
            for (atom, k) in &self.terms {
                let d = c / gcd(*k, c);
                if k % c == 0 {
                    quotient = quotient.add(Lin::atom(atom.clone()), k / c)?;
                } else if digits && d < c {
                    let x = Lin::atom(atom.clone());
                    quotient = quotient.add(x.clone().div(d, r)?, k * d / c)?;
                    rest = rest.add(x.rem(d, r)?, *k)?;
                } else {
                    rest = rest.add(Lin::atom(atom.clone()), *k)?;
                }
            }
            let (lo, hi) = rest.range(r)?;
            if lo >= 0 && hi < c {
                return Some((quotient, rest));
            }
        }
        None
    }

    /// `self / c`, exact where the ranges allow, else a division atom.
    fn div(self, c: i64, r: &Ranges) -> Option<Lin> {
        if let Some((q, _)) = self.divide(c, r) {
            return Some(q);
        }
        Some(match self.terms.as_slice() {
            // (y / a) / c = y / (a·c).
            [(Atom::Div(y, a), 1)] if self.offset == 0 => {
                Lin::atom(Atom::Div(y.clone(), a.checked_mul(c)?))
            }
            _ => Lin::atom(Atom::Div(Box::new(self), c)),
        })
    }

    /// `self % c`, exact where the ranges allow, else a remainder atom.
    fn rem(self, c: i64, r: &Ranges) -> Option<Lin> {
        Some(match self.divide(c, r) {
            Some((_, rest)) => rest,
            None => Lin::atom(Atom::Mod(Box::new(self), c)),
        })
    }

    /// Folds `k·b·(x / (d·b)) + k·((x / d) % b)` into `k·(x / d)` (`d` = 1: `k·x`), until
    /// nothing folds.
    fn recombine(mut self) -> Option<Lin> {
        'again: loop {
            for (j, (atom, k)) in self.terms.iter().enumerate() {
                let Atom::Mod(y, b) = atom else { continue };
                let (x, d) = match y.terms.as_slice() {
                    [(Atom::Div(x, d), 1)] if y.offset == 0 => ((**x).clone(), *d),
                    _ => ((**y).clone(), 1),
                };
                let quotient = Atom::Div(Box::new(x.clone()), d.checked_mul(*b)?);
                let kb = k.checked_mul(*b)?;
                let Some(i) = self
                    .terms
                    .iter()
                    .position(|(a, kk)| *a == quotient && *kk == kb)
                else {
                    continue;
                };
                let (k, y) = (*k, (**y).clone());
                let (i, j) = (i.max(j), i.min(j));
                self.terms.remove(i);
                self.terms.remove(j);
                self = self.add(if d == 1 { x } else { y }, k)?;
                continue 'again;
            }
            return Some(self);
        }
    }

    fn affine(&self, rank: usize, reds: usize) -> Option<Affine> {
        let mut a = Affine {
            offset: self.offset,
            coord: vec![0; rank],
            red: vec![0; reds],
        };
        for (atom, c) in &self.terms {
            match atom {
                Atom::Coord(i) => *a.coord.get_mut(*i)? += c,
                Atom::Red(i) => *a.red.get_mut(*i)? += c,
                Atom::Div(..) | Atom::Mod(..) => return None,
            }
        }
        Some(a)
    }
}

/// `idx` as a sum of coordinates, divisions and remainders with constant coefficients,
/// divisions that the ranges prove exact folded away (as `(x / c)·c + x % c = x`).
fn quasi_affine(idx: &Idx, r: &Ranges) -> Option<Lin> {
    Some(match idx {
        Idx::Const(c) => Lin::constant(*c),
        Idx::Coord(a) => Lin::atom(Atom::Coord(*a)),
        Idx::Red(k) => Lin::atom(Atom::Red(*k)),
        Idx::Dim(_) => return None,
        Idx::Add(x, y) => quasi_affine(x, r)?
            .add(quasi_affine(y, r)?, 1)?
            .recombine()?,
        Idx::Mul(x, y) => {
            let (x, y) = (quasi_affine(x, r)?, quasi_affine(y, r)?);
            let (scale, v) = match (x.terms.is_empty(), y.terms.is_empty()) {
                (true, _) => (x.offset, y),
                (_, true) => (y.offset, x),
                _ => return None,
            };
            Lin::default().add(v, scale)?
        }
        Idx::Div(x, y) | Idx::Mod(x, y) => {
            let x = quasi_affine(x, r)?;
            let Idx::Const(c) = **y else { return None };
            if c <= 0 {
                return None;
            }
            match idx {
                Idx::Div(..) => x.div(c, r)?,
                _ => x.rem(c, r)?,
            }
        }
    })
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `idx` as an affine function of the coordinates, when it is one with constant
/// coefficients (after folding exact divisions).
fn affine(idx: &Idx, r: &Ranges) -> Option<Affine> {
    quasi_affine(idx, r)?.affine(r.domain.len(), r.reduction.len())
}

fn constant(i: &Idx) -> Option<i64> {
    match i {
        Idx::Const(c) => Some(*c),
        _ => None,
    }
}

/// An axis: its extent and its stride in each buffer involved.
type Axis = (i64, Vec<i64>);

/// Axes merged from the innermost outward while each outer
/// stride is the inner one times the inner extent in every buffer: the merged extent,
/// strides and the axes left over (outermost first).
fn merge(axes: &[Axis]) -> Option<(i64, Vec<i64>, Vec<Axis>)> {
    let (last, rest) = axes.split_last()?;
    let (mut extent, strides) = last.clone();
    let mut kept = rest.len();
    for (e, s) in rest.iter().rev() {
        let nests = s
            .iter()
            .zip(&strides)
            .all(|(&outer, &inner)| Some(outer) == inner.checked_mul(extent));
        if !nests {
            break;
        }
        extent *= e;
        kept -= 1;
    }
    Some((extent, strides, rest[..kept].to_vec()))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Rows,
    Cols,
    Loop,
    Unit,
}

/// The kernel as a matrix product with an epilogue, when it is one: one output, in f32
/// or f64 (storage and compute), constant extents, and one sum of products of two loads
/// whose indices are affine in the coordinates.
///
/// Where the product splits along an outer loop, a pack that reads the loop's axis puts
/// it outermost, so each index of the loop packs a contiguous block of its own and can
/// be packed right before its products ([`MatMul::packs_by_index`]; MXNet's im2col of
/// one image at a time).
pub fn recognize(k: &Kernel) -> Option<MatMul> {
    recognize_packing(k, [false; 2])
}

/// [`recognize`] for a BLAS library (cuBLAS), which reads each matrix with a unit stride
/// along one axis and a leading dimension along the other ([`blas_layout`]): an operand
/// read otherwise (a strided convolution's pixels) is packed; a product whose output is
/// laid out otherwise is not recognized (it runs as its compiled kernel).
pub fn recognize_blas(k: &Kernel) -> Option<MatMul> {
    let mut packed = [false; 2];
    loop {
        let mm = recognize_packing(k, packed)?;
        mm.blas_output()?;
        let unfit = [mm.blas_a().is_none(), mm.blas_b().is_none()];
        if unfit == [false; 2] {
            return Some(mm);
        }
        // A packed operand is laid out for gemm; one that still does not fit ends it.
        let plain = |o: &Operand| o.input < k.inputs.len();
        if (unfit[0] && !plain(&mm.a)) || (unfit[1] && !plain(&mm.b)) {
            return None;
        }
        packed = [packed[0] || unfit[0], packed[1] || unfit[1]];
    }
}

/// `(transposed, leading dimension)` of a `rows × cols` matrix whose element `(x, y)` is
/// at `x·sx + y·sy`, as BLAS reads it: column-major (`sx = 1`, `ld = sy`) or transposed
/// (`sy = 1`, `ld = sx`), the leading dimension at least the stored rows; `None`
/// otherwise. A stride along an axis of extent 1 is free.
pub fn blas_layout(rows: i64, cols: i64, sx: i64, sy: i64) -> Option<(bool, i64)> {
    let sx = if rows <= 1 { 1 } else { sx };
    let sy = if cols <= 1 { rows.max(1) } else { sy };
    if sx == 1 && sy >= rows.max(1) {
        Some((false, sy))
    } else if sy == 1 && sx >= cols.max(1) {
        Some((true, sx))
    } else {
        None
    }
}

impl MatMul {
    /// Operand `a` (`m × k`) as BLAS reads it ([`blas_layout`]).
    pub fn blas_a(&self) -> Option<(bool, i64)> {
        blas_layout(self.m, self.k, self.a.stride, self.a.depth)
    }

    /// Operand `b` (`k × n`) as BLAS reads it.
    pub fn blas_b(&self) -> Option<(bool, i64)> {
        blas_layout(self.k, self.n, self.b.depth, self.b.stride)
    }

    /// The output (`m × n`) as BLAS writes it.
    pub fn blas_output(&self) -> Option<(bool, i64)> {
        blas_layout(self.m, self.n, self.out_rows, self.out_cols)
    }
}

/// [`recognize`], packing the operands marked in `packed` (`a`, `b`) even where they are
/// plain strided loads, and a plain operand whose own axes do not nest into one stride
/// (a strided 1x1 convolution's pixels) where packing it leaves fewer outer loops: one
/// product over all its rows (columns) instead of one per row of the image, which costs
/// a copy of the operand but runs at gemm's speed (the small products ran at a third).
fn recognize_packing(k: &Kernel, packed: [bool; 2]) -> Option<MatMul> {
    let mm = recognize_hoisting(k, packed)?;
    let plain = |o: &Operand| o.input < k.inputs.len();
    let left_over = [
        plain(&mm.a) && mm.loops.iter().any(|l| l.a != 0 && l.b == 0),
        plain(&mm.b) && mm.loops.iter().any(|l| l.b != 0 && l.a == 0),
    ];
    if left_over == [false; 2] {
        return Some(mm);
    }
    let outer = |mm: &MatMul| mm.loops.iter().map(|l| l.extent).product::<i64>();
    let repacked = [packed[0] || left_over[0], packed[1] || left_over[1]];
    match recognize_hoisting(k, repacked) {
        Some(p) if outer(&p) < outer(&mm) => Some(p),
        _ => Some(mm),
    }
}

/// [`recognize_laid_out`], with a split loop's axis outermost in the packs that read it.
fn recognize_hoisting(k: &Kernel, packed: [bool; 2]) -> Option<MatMul> {
    let mm = recognize_laid_out(k, None, false, packed)?;
    match (mm.split, mm.split_axis) {
        (Split::Loop(_), Some(axis)) if !mm.packs.is_empty() => Some(
            recognize_laid_out(k, Some(axis), false, packed)
                .filter(|h| h.split == mm.split)
                .unwrap_or(mm),
        ),
        _ => Some(mm),
    }
}

/// [`recognize`], with the outermost reduction axis (by the first operand's stride) a
/// summed loop even where it would merge into the gemm's depth: a weight gradient summed
/// over the images one image at a time ([`Along::Sum`]), each packing that image alone.
pub fn recognize_summing(k: &Kernel) -> Option<MatMul> {
    recognize_laid_out(k, None, true, [false; 2]).filter(|mm| !mm.sums.is_empty())
}

/// [`recognize`], with domain axis `hoist` outermost in every pack that reads it, the
/// outermost reduction axis kept a summed loop where `keep_sum`, and the operands marked
/// in `packed` packed.
fn recognize_laid_out(
    k: &Kernel,
    hoist: Option<usize>,
    keep_sum: bool,
    packed: [bool; 2],
) -> Option<MatMul> {
    let dtype = k.compute;
    if k.outputs.len() != 1
        || !matches!(dtype, DType::F32 | DType::F64)
        || k.outputs[0].dtype != dtype
        || k.inputs.iter().any(|b| b.dtype != dtype)
    {
        return None;
    }
    let domain: Vec<i64> = k.domain.iter().map(constant).collect::<Option<_>>()?;
    let rank = domain.len();
    let mut reduces = k
        .temps
        .iter()
        .enumerate()
        .filter(|(_, v)| v.any(&mut |x| matches!(x, Val::Reduce { .. })));
    let (t, reduce) = reduces.next()?;
    if reduces.next().is_some()
        || k.values
            .iter()
            .any(|v| v.any(&mut |x| matches!(x, Val::Reduce { .. })))
    {
        return None;
    }
    let Val::Reduce {
        combiner: Combiner::Sum,
        extents,
        locals,
        body,
    } = reduce
    else {
        return None;
    };
    if !locals.is_empty() {
        return None;
    }
    let extents: Vec<i64> = extents.iter().map(constant).collect::<Option<_>>()?;
    let Val::Binary(Binary::Mul, x, y) = body.as_ref() else {
        return None;
    };
    let ranges = Ranges {
        domain: &domain,
        reduction: &extents,
    };
    // Each operand a plain strided load, or a value to pack: first which axes it reads.
    let analyze = |v: &Val, pack: bool| -> Option<Result<(usize, Affine), Vec<bool>>> {
        if let (Val::Load { buffer, index }, false) = (v, pack) {
            let plain = affine(index, &ranges).filter(|a| own_reduction_merges(a, &extents));
            if let Some(a) = plain {
                return Some(Ok((*buffer, a)));
            }
        }
        Some(Err(mentions(v, rank, extents.len())?.0))
    };
    let (ax, bx) = (analyze(x, packed[0])?, analyze(y, packed[1])?);
    let reads = |o: &Result<(usize, Affine), Vec<bool>>, i: usize| match o {
        Ok((_, a)) => a.coord[i] != 0,
        Err(coords) => coords[i],
    };
    // Axes both operands read are outer loops: a pack puts them outermost, then the
    // reduction, then its own axes (contiguous gemm rows or columns).
    let both: Vec<bool> = (0..rank).map(|i| reads(&ax, i) && reads(&bx, i)).collect();
    let mut packs = Vec::new();
    let mut operand = |o: Result<(usize, Affine), Vec<bool>>, v: &Val| match o {
        Ok(plain) => Some(plain),
        Err(coords) => {
            let outer: Vec<bool> = (0..rank).map(|i| both[i] || Some(i) == hoist).collect();
            let (pack, a) = pack(k, v, &domain, &extents, &coords, &outer, packs.len())?;
            packs.push(pack);
            Some((k.inputs.len() + packs.len() - 1, a))
        }
    };
    let (a_in, a) = operand(ax, x)?;
    let (b_in, b) = operand(bx, y)?;
    // Row-major output strides.
    let mut out = vec![1i64; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        out[i] = out[i + 1].checked_mul(domain[i + 1])?;
    }
    let roles: Vec<Role> = (0..rank)
        .map(|i| match (domain[i], a.coord[i] != 0, b.coord[i] != 0) {
            (1, ..) => Some(Role::Unit),
            (_, true, false) => Some(Role::Rows),
            (_, false, true) => Some(Role::Cols),
            (_, true, true) => Some(Role::Loop),
            // The output varies along an axis the product does not.
            (_, false, false) => None,
        })
        .collect::<Option<_>>()?;
    let axes = |role: Role, strides: &dyn Fn(usize) -> Vec<i64>| -> Vec<Axis> {
        (0..rank)
            .filter(|&i| roles[i] == role)
            .map(|i| (domain[i], strides(i)))
            .collect()
    };
    // An absent role is one row (or column) of stride 0.
    let single = || (1, vec![0, 0], vec![]);
    let (m, rows, rows_left) =
        merge(&axes(Role::Rows, &|i| vec![a.coord[i], out[i]])).unwrap_or_else(single);
    let (n, cols, cols_left) =
        merge(&axes(Role::Cols, &|i| vec![b.coord[i], out[i]])).unwrap_or_else(single);
    // Reduction axes, outermost first by their stride in `a`; all must merge.
    let mut reds: Vec<usize> = (0..extents.len()).filter(|&r| extents[r] != 1).collect();
    if reds.iter().any(|&r| a.red[r] == 0 || b.red[r] == 0) {
        return None;
    }
    reds.sort_by_key(|&r| std::cmp::Reverse(a.red[r].abs()));
    let red_axes: Vec<Axis> = reds
        .iter()
        .map(|&r| (extents[r], vec![a.red[r], b.red[r]]))
        .collect();
    let kept = usize::from(keep_sum && red_axes.len() > 1);
    let (depth, depths, red_left) = merge(&red_axes[kept..]).unwrap_or_else(single);
    let sums: Vec<OuterLoop> = reds[..kept + red_left.len()]
        .iter()
        .map(|&r| OuterLoop {
            extent: extents[r],
            a: a.red[r],
            b: b.red[r],
            out: 0,
        })
        .collect();
    // Outer loops: axes both operands vary along, and row or column axes left over.
    let leftover = |left: &[Axis], role: Role| -> Vec<usize> {
        let ids: Vec<usize> = (0..rank).filter(|&i| roles[i] == role).collect();
        ids[..left.len()].to_vec()
    };
    let mut loop_axes: Vec<usize> = (0..rank).filter(|&i| roles[i] == Role::Loop).collect();
    loop_axes.extend(leftover(&rows_left, Role::Rows));
    loop_axes.extend(leftover(&cols_left, Role::Cols));
    loop_axes.sort_unstable();
    let loops: Vec<OuterLoop> = loop_axes
        .iter()
        .map(|&i| OuterLoop {
            extent: domain[i],
            a: a.coord[i],
            b: b.coord[i],
            out: out[i],
        })
        .collect();
    if loops.len() + sums.len() > MAX_LOOPS {
        return None;
    }
    let first = (0..rank).find(|&i| domain[i] != 1);
    let role_of_first = first.map(|f| (f, loop_axes.iter().position(|&i| i == f), roles[f]));
    // An outer loop splits without duplicated work; else the larger operand's side.
    let (split, split_extent, split_aligned) = match role_of_first {
        None => (Split::None, 1, true),
        Some((f, Some(l), _)) => (Split::Loop(l), domain[f], true),
        Some((f, None, role)) => {
            let rows = m >= n;
            match (rows, role) {
                (true, Role::Rows) => (
                    Split::Rows {
                        inner: m / domain[f],
                    },
                    domain[f],
                    true,
                ),
                (false, Role::Cols) => (
                    Split::Cols {
                        inner: n / domain[f],
                    },
                    domain[f],
                    true,
                ),
                (true, _) => (Split::Rows { inner: 1 }, m, false),
                (false, _) => (Split::Cols { inner: 1 }, n, false),
            }
        }
    };
    Some(MatMul {
        m,
        n,
        k: depth,
        a: Operand {
            input: a_in,
            offset: a.offset,
            stride: rows[0],
            depth: depths[0],
        },
        b: Operand {
            input: b_in,
            offset: b.offset,
            stride: cols[0],
            depth: depths[1],
        },
        out_rows: rows[1],
        out_cols: cols[1],
        loops,
        sums,
        split,
        split_extent,
        split_aligned,
        split_axis: first,
        dtype,
        packs,
        epilogue: epilogue(k, t),
    })
}

/// Whether an operand reads along every reduction axis and its reduction axes merge
/// into one stride: else it is packed, which costs a copy but makes the reduction one
/// gemm depth instead of a sum of small products (a convolution without padding).
fn own_reduction_merges(a: &Affine, extents: &[i64]) -> bool {
    let mut reds: Vec<usize> = (0..extents.len()).filter(|&r| extents[r] != 1).collect();
    if reds.iter().any(|&r| a.red[r] == 0) {
        return false;
    }
    reds.sort_by_key(|&r| std::cmp::Reverse(a.red[r].abs()));
    let axes: Vec<Axis> = reds.iter().map(|&r| (extents[r], vec![a.red[r]])).collect();
    merge(&axes).is_none_or(|(_, _, left)| left.is_empty())
}

/// Elements a packed operand may have (a bound on the scratch memory it takes).
const MAX_PACK: i64 = 1 << 28;

/// The domain and reduction coordinates `v` reads, or `None` where it reads temporaries.
fn mentions(v: &Val, rank: usize, reds: usize) -> Option<(Vec<bool>, Vec<bool>)> {
    if v.any(&mut |x| {
        matches!(
            x,
            Val::Temp(_) | Val::Local(_) | Val::Shared(_) | Val::Reduce { .. }
        )
    }) {
        return None;
    }
    let seen = std::cell::RefCell::new((vec![false; rank], vec![false; reds]));
    v.map_idx(&|i| {
        i.substitute(
            &|a| {
                if let Some(c) = seen.borrow_mut().0.get_mut(a) {
                    *c = true;
                }
                Idx::Coord(a)
            },
            &|r| {
                if let Some(c) = seen.borrow_mut().1.get_mut(r) {
                    *c = true;
                }
                Idx::Red(r)
            },
        )
    });
    Some(seen.into_inner())
}

/// The kernel that packs operand `v` (pack number `j`), which reads domain axes
/// `coords`: row-major over the axes read as outer loops (`outer`), then
/// every reduction axis, then its own axes (so gemm reads its rows or columns
/// contiguously; putting the reduction innermost where the source is contiguous along
/// it was measured slower: resnet18 16.8 against 11.9 ms); and the operand's affine
/// index into what it stores.
fn pack(
    k: &Kernel,
    v: &Val,
    domain: &[i64],
    extents: &[i64],
    coords: &[bool],
    outer: &[bool],
    j: usize,
) -> Option<(Kernel, Affine)> {
    let rank = domain.len();
    let own: Vec<usize> = (0..rank).filter(|&i| coords[i] && !outer[i]).collect();
    let outer: Vec<usize> = (0..rank).filter(|&i| coords[i] && outer[i]).collect();
    // Pack axes: domain axis `i` as `Ok(i)`, reduction axis `r` as `Err(r)`.
    let layout: Vec<Result<usize, usize>> = outer
        .iter()
        .map(|&i| Ok(i))
        .chain((0..extents.len()).map(Err))
        .chain(own.iter().map(|&i| Ok(i)))
        .collect();
    let sizes: Vec<i64> = layout
        .iter()
        .map(|&l| match l {
            Ok(i) => domain[i],
            Err(r) => extents[r],
        })
        .collect();
    let total = sizes.iter().try_fold(1i64, |acc, &e| acc.checked_mul(e))?;
    if total > MAX_PACK {
        return None;
    }
    let mut strides = vec![1i64; sizes.len()];
    for p in (0..sizes.len().saturating_sub(1)).rev() {
        strides[p] = strides[p + 1] * sizes[p + 1];
    }
    let position = |l: Result<usize, usize>| layout.iter().position(|&x| x == l);
    let value = v.map_idx(&|i| {
        i.substitute(
            &|a| position(Ok(a)).map_or(Idx::Const(0), Idx::Coord),
            &|r| position(Err(r)).map_or(Idx::Const(0), Idx::Coord),
        )
    });
    let affine = Affine {
        offset: 0,
        coord: (0..rank)
            .map(|a| position(Ok(a)).map_or(0, |p| strides[p]))
            .collect(),
        red: (0..extents.len())
            .map(|r| position(Err(r)).map_or(0, |p| strides[p]))
            .collect(),
    };
    let out = &k.outputs[0];
    let kernel = Kernel {
        name: format!("{}_pack{j}", k.name),
        domain: sizes.iter().map(|&e| Idx::Const(e)).collect(),
        inputs: k.inputs.clone(),
        outputs: vec![Buffer {
            name: format!("{}_pack{j}", out.name),
            dtype: k.compute,
            len: Idx::Const(total),
        }],
        temps: vec![],
        values: vec![value],
        compute: k.compute,
    };
    Some((kernel, affine))
}

/// The epilogue of a kernel [`recognize`] accepts (`None`: it stores the product as it
/// is): the same transformation, for a lowering of the kernel at another batch size.
pub fn epilogue_of(k: &Kernel) -> Option<Kernel> {
    let t = k
        .temps
        .iter()
        .position(|v| matches!(v, Val::Reduce { .. }))?;
    epilogue(k, t)
}

/// `k` with temporary `t` (the product) read from the output at the point being stored,
/// or `None` when the output is the product itself.
fn epilogue(k: &Kernel, t: usize) -> Option<Kernel> {
    // The value stored, through temporaries that only copy another.
    let mut v = &k.values[0];
    while let Val::Temp(u) = v {
        if *u == t {
            return None;
        }
        v = &k.temps[*u];
    }
    let mut e = k.clone();
    let out = &k.outputs[0];
    e.inputs.push(Buffer {
        name: format!("{}_product", out.name),
        dtype: out.dtype,
        len: out.len.clone(),
    });
    e.temps[t] = Val::Load {
        buffer: k.inputs.len(),
        index: linear(&k.domain),
    };
    Some(e)
}
