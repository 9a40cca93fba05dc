//! The IR's data structures and their textual form (read back by [`super::parse`]).

use super::error::KirError;
use kiln_ops::expr::{Binary, Unary};
use kiln_ops::{Combiner, DType};
use std::fmt;

/// An integer index expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Idx {
    Const(i64),
    /// The coordinate of the domain along an axis (the loop variable of that axis).
    Coord(usize),
    /// A symbolic dimension, bound at run time.
    Dim(usize),
    /// The coordinate of reduction axis `k` inside a [`Val::Reduce`].
    Red(usize),
    Add(Box<Idx>, Box<Idx>),
    Mul(Box<Idx>, Box<Idx>),
    /// Floor division by a positive value.
    Div(Box<Idx>, Box<Idx>),
    /// Euclidean remainder by a positive value.
    Mod(Box<Idx>, Box<Idx>),
}

// The operators fold constants and identities as they build, so composed index maps
// stay small (a chain of slices adds one offset, not one node per slice).
impl std::ops::Add for Idx {
    type Output = Idx;
    fn add(self, o: Idx) -> Idx {
        match (self, o) {
            (Idx::Const(0), e) | (e, Idx::Const(0)) => e,
            (Idx::Const(a), Idx::Const(b)) => Idx::Const(a + b),
            (Idx::Add(a, b), Idx::Const(c)) => match *b {
                Idx::Const(k) if k.checked_add(c).is_some() => *a + Idx::Const(k + c),
                b => Idx::Add(Box::new(Idx::Add(a, Box::new(b))), Box::new(Idx::Const(c))),
            },
            (a, b) => Idx::Add(Box::new(a), Box::new(b)),
        }
    }
}

impl std::ops::Mul for Idx {
    type Output = Idx;
    fn mul(self, o: Idx) -> Idx {
        match (self, o) {
            (Idx::Const(0), _) | (_, Idx::Const(0)) => Idx::Const(0),
            (Idx::Const(1), e) | (e, Idx::Const(1)) => e,
            (Idx::Const(a), Idx::Const(b)) => Idx::Const(a * b),
            (a, b) => Idx::Mul(Box::new(a), Box::new(b)),
        }
    }
}

impl std::ops::Div for Idx {
    type Output = Idx;
    fn div(self, o: Idx) -> Idx {
        match (self, o) {
            (e, Idx::Const(1)) => e,
            (a, b) => Idx::Div(Box::new(a), Box::new(b)),
        }
    }
}

impl std::ops::Rem for Idx {
    type Output = Idx;
    fn rem(self, o: Idx) -> Idx {
        match (self, o) {
            (_, Idx::Const(1)) => Idx::Const(0),
            (a, b) => Idx::Mod(Box::new(a), Box::new(b)),
        }
    }
}

/// A scalar value expression, computed in the kernel's compute dtype.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Const(f64),
    /// Input buffer `buffer` at a linear element index.
    Load {
        buffer: usize,
        index: Idx,
    },
    /// An index used as a value (guards of concatenation).
    Index(Idx),
    Unary(Unary, Box<Val>),
    Binary(Binary, Box<Val>, Box<Val>),
    Select(Box<Val>, Box<Val>, Box<Val>),
    /// Temporary `t`, computed before at the same domain point (a value used twice).
    Temp(usize),
    /// Local `l` of the innermost enclosing [`Val::Reduce`]: its `locals[l]` at the
    /// reduction's current point.
    Local(usize),
    /// Element `i` of the block's shared array (GPU schedules only).
    Shared(Idx),
    /// An exact bit-level operation (the range reductions of the math polynomials).
    Bits(BitOp, Box<Val>),
    /// `body` combined over every point of the reduction axes (`Idx::Red(k)` ranges over
    /// `0..extents[k]`), starting from the combiner's identity. At most one per kernel.
    Reduce {
        combiner: Combiner,
        extents: Vec<Idx>,
        /// Values computed at each point of the reduction, in order, before `body`:
        /// `locals[l]` may read `Val::Local(m)` for `m < l`. They are the reduction's
        /// temporaries (a value its body reads twice), so no value is a tree whose size
        /// doubles with every operator that reads its input twice.
        locals: Vec<Val>,
        body: Box<Val>,
    },
}

/// Exact floating-point operations on the exponent and significand bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp {
    /// 2^n for an integer-valued n whose power is a normal number of the compute type.
    Pow2i,
    /// `e` of `x = m·2^e` with `m` in [0.5, 1), for a normal positive `x` (frexp).
    Exponent,
    /// `m` of the same split.
    Mantissa,
}

impl BitOp {
    /// The operation in f64 (`kiln_ops::expr::bits`), as the interpreter runs it.
    pub fn apply(self, x: f64) -> f64 {
        use kiln_ops::expr::bits;
        match self {
            BitOp::Pow2i => bits::pow2i(x),
            BitOp::Exponent => bits::exponent(x),
            BitOp::Mantissa => bits::mantissa(x),
        }
    }
}

/// A buffer a kernel reads or writes: a name, its storage dtype and element count.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    pub name: String,
    pub dtype: DType,
    pub len: Idx,
}

/// What a kernel computes: `outputs[k]` holds `values[k]` at every point of `domain`,
/// stored at the point's row-major position.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    /// Extent of each domain axis.
    pub domain: Vec<Idx>,
    pub inputs: Vec<Buffer>,
    pub outputs: Vec<Buffer>,
    /// Values computed once per point, in order, before the outputs: `temps[t]` may read
    /// `Val::Temp(u)` for `u < t`.
    pub temps: Vec<Val>,
    pub values: Vec<Val>,
    /// Arithmetic happens in this dtype (f32 for f16/bf16 storage).
    pub compute: DType,
}

impl Idx {
    /// The constant coefficient of `var` (a domain or a reduction coordinate) in this
    /// index where it is affine in `var` with a constant coefficient (0 where it does not
    /// read it), else `None`.
    pub fn coefficient(&self, var: &Idx) -> Option<i64> {
        match self {
            Idx::Const(_) | Idx::Dim(_) => Some(0),
            Idx::Coord(_) | Idx::Red(_) => Some(i64::from(self == var)),
            Idx::Add(p, q) => p.coefficient(var)?.checked_add(q.coefficient(var)?),
            Idx::Mul(p, q) => match (p.coefficient(var)?, q.coefficient(var)?) {
                (0, 0) => Some(0),
                (c, 0) => c.checked_mul(q.constant()?),
                (0, c) => c.checked_mul(p.constant()?),
                _ => None,
            },
            Idx::Div(..) | Idx::Mod(..) => (!self.reads(var)).then_some(0),
        }
    }

    /// The value of this index where it is a constant.
    fn constant(&self) -> Option<i64> {
        match self {
            Idx::Const(c) => Some(*c),
            Idx::Add(p, q) => p.constant()?.checked_add(q.constant()?),
            Idx::Mul(p, q) => p.constant()?.checked_mul(q.constant()?),
            _ => None,
        }
    }

    /// Whether this index reads `var` (a domain or a reduction coordinate).
    fn reads(&self, var: &Idx) -> bool {
        match self {
            Idx::Coord(_) | Idx::Red(_) => self == var,
            Idx::Const(_) | Idx::Dim(_) => false,
            Idx::Add(p, q) | Idx::Mul(p, q) | Idx::Div(p, q) | Idx::Mod(p, q) => {
                p.reads(var) || q.reads(var)
            }
        }
    }

    /// The expression with domain coordinates replaced by `coord(axis)` and reduction
    /// coordinates by `red(axis)`.
    pub fn substitute(&self, coord: &dyn Fn(usize) -> Idx, red: &dyn Fn(usize) -> Idx) -> Idx {
        let s = |i: &Idx| i.substitute(coord, red);
        match self {
            Idx::Coord(a) => coord(*a),
            Idx::Red(k) => red(*k),
            Idx::Const(_) | Idx::Dim(_) => self.clone(),
            Idx::Add(a, b) => s(a) + s(b),
            Idx::Mul(a, b) => s(a) * s(b),
            Idx::Div(a, b) => s(a) / s(b),
            Idx::Mod(a, b) => s(a) % s(b),
        }
    }

    /// Whether a reduction coordinate occurs in the expression.
    pub fn mentions_reduction(&self) -> bool {
        match self {
            Idx::Red(_) => true,
            Idx::Const(_) | Idx::Coord(_) | Idx::Dim(_) => false,
            Idx::Add(a, b) | Idx::Mul(a, b) | Idx::Div(a, b) | Idx::Mod(a, b) => {
                a.mentions_reduction() || b.mentions_reduction()
            }
        }
    }

    /// One past the highest symbolic dimension used, or 0.
    fn dims(&self) -> usize {
        match self {
            Idx::Dim(d) => d + 1,
            Idx::Const(_) | Idx::Coord(_) | Idx::Red(_) => 0,
            Idx::Add(a, b) | Idx::Mul(a, b) | Idx::Div(a, b) | Idx::Mod(a, b) => {
                a.dims().max(b.dims())
            }
        }
    }
}

impl Idx {
    fn coord_axes(&self, axes: &mut [bool]) {
        match self {
            Idx::Coord(a) => axes[*a] = true,
            Idx::Const(_) | Idx::Dim(_) | Idx::Red(_) => {}
            Idx::Add(a, b) | Idx::Mul(a, b) | Idx::Div(a, b) | Idx::Mod(a, b) => {
                a.coord_axes(axes);
                b.coord_axes(axes);
            }
        }
    }
}

impl Val {
    /// Marks the domain axes the value depends on, through temporaries (`temps[t]` holds
    /// temporary `t`'s axes).
    fn coord_axes(&self, temps: &[Vec<bool>], axes: &mut [bool]) {
        match self {
            Val::Const(_) => {}
            Val::Temp(t) => {
                for (a, &d) in temps[*t].iter().enumerate() {
                    axes[a] |= d;
                }
            }
            Val::Load { index, .. } | Val::Index(index) | Val::Shared(index) => {
                index.coord_axes(axes)
            }
            Val::Unary(_, a) | Val::Bits(_, a) => a.coord_axes(temps, axes),
            Val::Binary(_, a, b) => {
                a.coord_axes(temps, axes);
                b.coord_axes(temps, axes);
            }
            Val::Select(c, a, b) => {
                for v in [c, a, b] {
                    v.coord_axes(temps, axes);
                }
            }
            Val::Local(_) => {}
            Val::Reduce {
                extents,
                locals,
                body,
                ..
            } => {
                extents.iter().for_each(|e| e.coord_axes(axes));
                locals.iter().for_each(|l| l.coord_axes(temps, axes));
                body.coord_axes(temps, axes);
            }
        }
    }

    fn dims(&self) -> usize {
        match self {
            Val::Const(_) | Val::Temp(_) | Val::Local(_) => 0,
            Val::Load { index, .. } | Val::Index(index) | Val::Shared(index) => index.dims(),
            Val::Unary(_, a) | Val::Bits(_, a) => a.dims(),
            Val::Binary(_, a, b) => a.dims().max(b.dims()),
            Val::Select(c, a, b) => c.dims().max(a.dims()).max(b.dims()),
            Val::Reduce {
                extents,
                locals,
                body,
                ..
            } => extents
                .iter()
                .map(Idx::dims)
                .chain(locals.iter().map(Val::dims))
                .fold(body.dims(), usize::max),
        }
    }
}

impl Kernel {
    /// For each temporary, the domain axes it depends on (through earlier temporaries).
    pub(crate) fn temp_axes(&self) -> Vec<Vec<bool>> {
        let mut depends: Vec<Vec<bool>> = Vec::with_capacity(self.temps.len());
        for t in &self.temps {
            let mut axes = vec![false; self.domain.len()];
            t.coord_axes(&depends, &mut axes);
            depends.push(axes);
        }
        depends
    }

    /// How many symbolic dimensions the kernel must be given when it runs.
    pub fn symbolic_dims(&self) -> usize {
        let buffers = self
            .inputs
            .iter()
            .chain(&self.outputs)
            .map(|b| b.len.dims());
        let values = self.temps.iter().chain(&self.values).map(Val::dims);
        self.domain
            .iter()
            .map(Idx::dims)
            .chain(buffers)
            .chain(values)
            .max()
            .unwrap_or(0)
    }
}

impl Val {
    /// The value with every index expression in it (loads, indices, shared slots,
    /// reduction extents) replaced by `f` of it.
    pub fn map_idx(&self, f: &dyn Fn(&Idx) -> Idx) -> Val {
        let b = |v: &Val| Box::new(v.map_idx(f));
        match self {
            Val::Const(_) | Val::Temp(_) | Val::Local(_) => self.clone(),
            Val::Load { buffer, index } => Val::Load {
                buffer: *buffer,
                index: f(index),
            },
            Val::Index(i) => Val::Index(f(i)),
            Val::Shared(i) => Val::Shared(f(i)),
            Val::Unary(op, a) => Val::Unary(*op, b(a)),
            Val::Bits(op, a) => Val::Bits(*op, b(a)),
            Val::Binary(op, a, c) => Val::Binary(*op, b(a), b(c)),
            Val::Select(c, a, d) => Val::Select(b(c), b(a), b(d)),
            Val::Reduce {
                combiner,
                extents,
                locals,
                body,
            } => Val::Reduce {
                combiner: *combiner,
                extents: extents.iter().map(f).collect(),
                locals: locals.iter().map(|l| l.map_idx(f)).collect(),
                body: b(body),
            },
        }
    }

    /// Calls `f` on this value and every value inside it (reduction locals and bodies
    /// too), until `f` returns true; returns whether it did.
    pub fn any(&self, f: &mut dyn FnMut(&Val) -> bool) -> bool {
        f(self)
            || match self {
                Val::Const(_) | Val::Load { .. } | Val::Index(_) | Val::Temp(_) => false,
                Val::Shared(_) | Val::Local(_) => false,
                Val::Unary(_, a) | Val::Bits(_, a) => a.any(f),
                Val::Binary(_, a, b) => a.any(f) || b.any(f),
                Val::Select(c, a, b) => c.any(f) || a.any(f) || b.any(f),
                Val::Reduce { locals, body, .. } => locals.iter().any(|l| l.any(f)) || body.any(f),
            }
    }

    /// The longest path from this value to a leaf, in values (a leaf is 1); locals and
    /// temporaries count as leaves where they are read.
    pub fn depth(&self) -> usize {
        1 + match self {
            Val::Const(_) | Val::Load { .. } | Val::Index(_) | Val::Temp(_) => 0,
            Val::Shared(_) | Val::Local(_) => 0,
            Val::Unary(_, a) | Val::Bits(_, a) => a.depth(),
            Val::Binary(_, a, b) => a.depth().max(b.depth()),
            Val::Select(c, a, b) => c.depth().max(a.depth()).max(b.depth()),
            Val::Reduce { locals, body, .. } => {
                locals.iter().map(Val::depth).fold(body.depth(), usize::max)
            }
        }
    }

    /// Whether the value loads input `buffer` anywhere other than at `here`, or inside a
    /// reduction (`inside`).
    fn loads_elsewhere(&self, buffer: usize, here: &Idx, inside: bool) -> bool {
        match self {
            Val::Load { buffer: b, index } => *b == buffer && (inside || index != here),
            Val::Const(_) | Val::Index(_) | Val::Temp(_) | Val::Shared(_) | Val::Local(_) => false,
            Val::Unary(_, a) | Val::Bits(_, a) => a.loads_elsewhere(buffer, here, inside),
            Val::Binary(_, a, b) => {
                a.loads_elsewhere(buffer, here, inside) || b.loads_elsewhere(buffer, here, inside)
            }
            Val::Select(c, a, b) => [c, a, b]
                .iter()
                .any(|v| v.loads_elsewhere(buffer, here, inside)),
            Val::Reduce { locals, body, .. } => locals
                .iter()
                .chain([body.as_ref()])
                .any(|v| v.loads_elsewhere(buffer, here, true)),
        }
    }
}

impl Kernel {
    /// Whether output `output` may be stored in input `input`'s memory (in-place reuse):
    /// every load of the input reads the very point being stored, outside reductions, and
    /// no output stored after this one reads the input at all.
    pub fn may_overwrite(&self, input: usize, output: usize) -> bool {
        let here = linear(&self.domain);
        // No load reads index -1, so every load of the input counts against it.
        let nowhere = Idx::Const(-1);
        self.inputs.get(input).map(|b| &b.len) == self.outputs.get(output).map(|b| &b.len)
            && self
                .temps
                .iter()
                .chain(&self.values[..=output])
                .all(|v| !v.loads_elsewhere(input, &here, false))
            && self.values[output + 1..]
                .iter()
                .all(|v| !v.loads_elsewhere(input, &nowhere, false))
    }
}

/// How a loop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    Serial,
    Parallel,
    Vectorized(u32),
    GpuBlock(u8),
    GpuThread(u8),
}

/// How a kernel's loops run: domain axes outermost first, each with a kind.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    pub order: Vec<(usize, LoopKind)>,
}

impl Schedule {
    /// Row-major serial loops, the outermost parallel: the CPU default. Axes of extent 1
    /// go innermost, so a batch of 1 does not leave the parallel loop one iteration long
    /// (the order of the others, and so every access pattern, is unchanged).
    pub fn cpu(k: &Kernel) -> Schedule {
        let unit = |a: &usize| k.domain[*a] == Idx::Const(1);
        let (ones, rest): (Vec<usize>, Vec<usize>) = (0..k.domain.len()).partition(unit);
        let order = rest
            .into_iter()
            .chain(ones)
            .enumerate()
            .map(|(depth, a)| {
                let kind = if depth == 0 {
                    LoopKind::Parallel
                } else {
                    LoopKind::Serial
                };
                (a, kind)
            })
            .collect();
        Schedule { order }
    }
}

/// A statement of a lowered kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `for coord(axis) in 0..extent { body }`.
    Loop {
        axis: usize,
        extent: Idx,
        kind: LoopKind,
        body: Vec<Stmt>,
    },
    /// `temp = value`, in the compute dtype.
    Let { temp: usize, value: Val },
    /// `output[index] = value` (rounded to the output's storage dtype).
    Store {
        output: usize,
        index: Idx,
        value: Val,
    },
}

impl Stmt {
    /// The statement with every index expression in it (loop extents, stored positions,
    /// and its values' indices, [`Val::map_idx`]) replaced by `f` of it.
    pub fn map_idx(&self, f: &dyn Fn(&Idx) -> Idx) -> Stmt {
        match self {
            Stmt::Loop {
                axis,
                extent,
                kind,
                body,
            } => Stmt::Loop {
                axis: *axis,
                extent: f(extent),
                kind: *kind,
                body: body.iter().map(|s| s.map_idx(f)).collect(),
            },
            Stmt::Let { temp, value } => Stmt::Let {
                temp: *temp,
                value: value.map_idx(f),
            },
            Stmt::Store {
                output,
                index,
                value,
            } => Stmt::Store {
                output: *output,
                index: f(index),
                value: value.map_idx(f),
            },
        }
    }
}

/// A kernel lowered under a schedule: buffers and a statement tree.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopNest {
    pub name: String,
    pub inputs: Vec<Buffer>,
    pub outputs: Vec<Buffer>,
    pub compute: DType,
    pub body: Vec<Stmt>,
}

/// The row-major linear index of the domain point.
pub(crate) fn linear(domain: &[Idx]) -> Idx {
    domain
        .iter()
        .enumerate()
        .fold(Idx::Const(0), |acc, (a, extent)| {
            acc * extent.clone() + Idx::Coord(a)
        })
}

/// Combines what a kernel computes with how its loops run. The schedule must cover every
/// domain axis exactly once.
pub fn lower(k: &Kernel, s: &Schedule) -> Result<LoopNest, KirError> {
    let mut axes: Vec<usize> = s.order.iter().map(|(a, _)| *a).collect();
    axes.sort_unstable();
    if axes != (0..k.domain.len()).collect::<Vec<_>>() {
        return Err(KirError::Schedule {
            kernel: k.name.clone(),
            order: s.order.clone(),
            axes: k.domain.len(),
        });
    }
    // Each temporary is computed inside the loops of the axes it depends on and no
    // deeper: a row's reduction runs once per row, not once per element.
    let rank = k.domain.len();
    let depends = k.temp_axes();
    let level = |axes: &[bool]| {
        s.order
            .iter()
            .rposition(|(a, _)| axes[*a])
            .map_or(0, |p| p + 1)
    };
    let lets_at = |depth: usize| -> Vec<Stmt> {
        k.temps
            .iter()
            .enumerate()
            .filter(|(t, _)| level(&depends[*t]) == depth)
            .map(|(temp, value)| Stmt::Let {
                temp,
                value: value.clone(),
            })
            .collect()
    };
    let index = linear(&k.domain);
    let stores = k
        .values
        .iter()
        .enumerate()
        .map(|(output, value)| Stmt::Store {
            output,
            index: index.clone(),
            value: value.clone(),
        });
    let mut body: Vec<Stmt> = lets_at(rank).into_iter().chain(stores).collect();
    for (depth, &(axis, kind)) in s.order.iter().enumerate().rev() {
        let inner = Stmt::Loop {
            axis,
            extent: k.domain[axis].clone(),
            kind,
            body,
        };
        body = lets_at(depth).into_iter().chain([inner]).collect();
    }
    Ok(LoopNest {
        name: k.name.clone(),
        inputs: k.inputs.clone(),
        outputs: k.outputs.clone(),
        compute: k.compute,
        body,
    })
}

impl fmt::Display for Idx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Idx::Const(c) => write!(f, "{c}"),
            Idx::Coord(a) => write!(f, "i{a}"),
            Idx::Dim(d) => write!(f, "D{d}"),
            Idx::Red(k) => write!(f, "r{k}"),
            Idx::Add(a, b) => write!(f, "({a} + {b})"),
            // A product as the right operand is parenthesized, so `a*b*c` is always
            // `(a*b)*c` and the text parses back to the same tree.
            Idx::Mul(a, b) if matches!(**b, Idx::Mul(..)) => write!(f, "{a}*({b})"),
            Idx::Mul(a, b) => write!(f, "{a}*{b}"),
            Idx::Div(a, b) => write!(f, "({a} / {b})"),
            Idx::Mod(a, b) => write!(f, "({a} % {b})"),
        }
    }
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Always with a point, an exponent, `inf` or `NaN` (`0.0`, `1e-7`), so a value
            // constant never reads as an index used as a value (`Val::Index`, `7`).
            Val::Const(c) => write!(f, "{c:?}"),
            Val::Load { buffer, index } => write!(f, "in{buffer}[{index}]"),
            Val::Index(i) => write!(f, "{i}"),
            Val::Unary(op, a) => write!(f, "{}({a})", format!("{op:?}").to_lowercase()),
            Val::Binary(op, a, b) => write!(f, "{}({a}, {b})", format!("{op:?}").to_lowercase()),
            Val::Select(c, a, b) => write!(f, "select({c}, {a}, {b})"),
            Val::Temp(t) => write!(f, "t{t}"),
            Val::Local(l) => write!(f, "l{l}"),
            Val::Bits(op, a) => write!(f, "{}({a})", format!("{op:?}").to_lowercase()),
            Val::Shared(i) => write!(f, "shared[{i}]"),
            Val::Reduce {
                combiner,
                extents,
                locals,
                body,
            } => {
                let axes: Vec<String> = extents
                    .iter()
                    .enumerate()
                    .map(|(k, e)| format!("r{k} < {e}"))
                    .chain(
                        locals
                            .iter()
                            .enumerate()
                            .map(|(l, v)| format!("l{l} = {v}")),
                    )
                    .collect();
                let name = format!("{combiner:?}").to_lowercase();
                write!(f, "reduce_{name}({}: {body})", axes.join(", "))
            }
        }
    }
}

fn write_stmts(f: &mut fmt::Formatter<'_>, stmts: &[Stmt], depth: usize) -> fmt::Result {
    for s in stmts {
        let pad = "  ".repeat(depth);
        match s {
            Stmt::Loop {
                axis,
                extent,
                kind,
                body,
            } => {
                writeln!(f, "{pad}for i{axis} in 0..{extent} ({kind:?}) {{")?;
                write_stmts(f, body, depth + 1)?;
                writeln!(f, "{pad}}}")?;
            }
            Stmt::Let { temp, value } => writeln!(f, "{pad}t{temp} = {value}")?,
            Stmt::Store {
                output,
                index,
                value,
            } => writeln!(f, "{pad}out{output}[{index}] = {value}")?,
        }
    }
    Ok(())
}

/// A kernel or buffer name as the textual form writes it: bare when it is an identifier
/// (ASCII letters, digits and `_`, not starting with a digit), else quoted with Rust's
/// escapes, so any name parses back.
fn write_name(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let mut chars = name.chars();
    let bare = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if bare {
        f.write_str(name)
    } else {
        write!(f, "{name:?}")
    }
}

/// `kernel name(inputs) -> (outputs) compute dtype {`, shared by kernels and loop nests.
fn write_header(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    inputs: &[Buffer],
    outputs: &[Buffer],
    compute: DType,
) -> fmt::Result {
    let sig = |f: &mut fmt::Formatter<'_>, bs: &[Buffer]| {
        for (i, b) in bs.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write_name(f, &b.name)?;
            write!(f, ": {}[{}]", b.dtype, b.len)?;
        }
        Ok(())
    };
    f.write_str("kernel ")?;
    write_name(f, name)?;
    f.write_str("(")?;
    sig(f, inputs)?;
    f.write_str(") -> (")?;
    sig(f, outputs)?;
    writeln!(f, ") compute {compute} {{")
}

impl fmt::Display for LoopNest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_header(f, &self.name, &self.inputs, &self.outputs, self.compute)?;
        write_stmts(f, &self.body, 1)?;
        writeln!(f, "}}")
    }
}

/// The loop nest's header, then the domain's extents, each temporary and each output's
/// value (stored at the point's row-major position):
///
/// ```text
/// kernel relu(x: float32[6]) -> (relu_output: float32[6]) compute float32 {
///   domain [2, 3]
///   out0 = max(in0[(i0*3 + i1)], 0.0)
/// }
/// ```
///
/// [`parse_kernel`](super::parse_kernel) reads it back.
impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_header(f, &self.name, &self.inputs, &self.outputs, self.compute)?;
        let extents: Vec<String> = self.domain.iter().map(Idx::to_string).collect();
        writeln!(f, "  domain [{}]", extents.join(", "))?;
        for (t, v) in self.temps.iter().enumerate() {
            writeln!(f, "  t{t} = {v}")?;
        }
        for (o, v) in self.values.iter().enumerate() {
            writeln!(f, "  out{o} = {v}")?;
        }
        writeln!(f, "}}")
    }
}
