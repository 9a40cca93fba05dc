//! Lowering a fusion group to a [`Kernel`]: each output of the group is one expression
//! over the group's external inputs, found by substituting scalar expressions into each
//! other, composing index maps (reshape, transpose, slice, concat, broadcast) into the
//! load indices, and wrapping reductions' prologues in a [`Val::Reduce`].

use super::error::KirError;
use super::ir::{Buffer, Idx, Kernel, Val};
use super::simplify::Simplifier;
use crate::graph::{Entry, Graph, NodeId};
use crate::infer::Inferred;
use crate::node::NodeData;
use kiln_ops::{Compute, DType, Expr, IndexExpr};
use std::collections::{HashMap, HashSet};

/// A kernel with the graph entries bound to its inputs and outputs, in order.
pub struct Lowered {
    pub kernel: Kernel,
    pub inputs: Vec<Entry>,
    pub outputs: Vec<Entry>,
}

/// Lowers the nodes of one fusion group (element-wise, broadcast, injective and reduction
/// operators) to kernels: one per distinct output shape (a BatchNorm backward group writes
/// per-channel and per-element gradients), named `name` or `name_k`. Values both need are
/// computed in each. Groups with library calls are not lowered here.
pub fn from_group(
    g: &Graph,
    inferred: &Inferred,
    nodes: &[NodeId],
    name: &str,
) -> Result<Vec<Lowered>, KirError> {
    let members: HashSet<NodeId> = nodes.iter().copied().collect();
    // Outputs: entries of the group read outside it, or graph heads, by shape.
    let mut by_shape: Vec<(Vec<usize>, Vec<Entry>)> = Vec::new();
    for &id in nodes {
        for index in 0..inferred.shapes[id.index()].len() {
            let e = Entry { node: id, index };
            let read_outside = g
                .consumers(id)
                .iter()
                .any(|c| !members.contains(c) && g.node(*c).inputs.contains(&e));
            if read_outside || g.heads.contains(&e) {
                let shape = inferred.shape(e);
                match by_shape.iter_mut().find(|(s, _)| s == shape) {
                    Some((_, outs)) => outs.push(e),
                    None => by_shape.push((shape.clone(), vec![e])),
                }
            }
        }
    }
    if by_shape.is_empty() {
        return Err(KirError::NoOutput {
            group: name.to_string(),
        });
    }
    // Entries read more than once (by members, or as an output and by a member) become
    // temporaries, so a diamond is computed once per point rather than once per path.
    let mut uses: HashMap<Entry, usize> = by_shape
        .iter()
        .flat_map(|(_, outs)| outs.iter().map(|&e| (e, 1)))
        .collect();
    for &id in nodes {
        for &i in &g.node(id).inputs {
            *uses.entry(i).or_default() += 1;
        }
    }
    let several = by_shape.len() > 1;
    by_shape
        .iter()
        .enumerate()
        .map(|(k, (shape, outputs))| {
            let name = if several {
                format!("{name}_{k}")
            } else {
                name.to_string()
            };
            let mut lower = Lowering {
                g,
                inferred,
                members: &members,
                inputs: vec![],
                uses: &uses,
                input_index: HashMap::new(),
                temps: vec![],
                memo: HashMap::new(),
                scopes: vec![],
                guards: vec![],
                guard_index: HashMap::new(),
                extents: vec![],
                size: 0,
            };
            let kernel = lower.kernel(name, shape, outputs)?;
            Ok(Lowered {
                kernel,
                inputs: lower.inputs,
                outputs: outputs.clone(),
            })
        })
        .collect()
}

struct Lowering<'a> {
    g: &'a Graph,
    inferred: &'a Inferred,
    members: &'a HashSet<NodeId>,
    inputs: Vec<Entry>,
    /// Where each input is in `inputs`.
    input_index: HashMap<Entry, usize>,
    uses: &'a HashMap<Entry, usize>,
    temps: Vec<Val>,
    /// What reads a shared member entry at given coordinates under a guard, outside
    /// reductions.
    memo: HashMap<Key, Val>,
    /// The reductions being lowered, innermost last.
    scopes: Vec<Scope>,
    /// The conditions values are read under (a concatenation's piece, a padded read),
    /// each the product of its own test and its enclosing guard's.
    guards: Vec<Val>,
    /// Where each guard is in `guards`, by its text.
    guard_index: HashMap<String, usize>,
    /// Extent of each domain axis of the kernel being lowered.
    extents: Vec<Option<i64>>,
    /// Values made so far, counted by [`size`].
    size: usize,
}

/// A member entry at coordinates, under a guard ([`Lowering::guards`]; `None`: always).
type Key = (Entry, Vec<Idx>, Guard);
type Guard = Option<usize>;

/// A reduction being lowered: the values its body reads more than once (or that grew
/// deep) as locals, and what reads each shared member entry at its points.
#[derive(Default)]
struct Scope {
    locals: Vec<Val>,
    memo: HashMap<Key, Val>,
}

/// Values deeper than this become temporaries (a reduction's locals inside one), so no
/// value is deeper however long the chain fused into it: whatever walks values
/// recursively — simplification, the renderers, the interpreter — needs a bounded stack.
const DEEPEST: usize = 32;

/// The most values (and index nodes) a kernel may be made of. Sharing keeps chains
/// linear, but some groups cannot share: a concatenation reads its input at other
/// coordinates for each piece, so concatenations of slices of concatenations double
/// per level. Such a group does not lower and runs node by node.
const LARGEST: usize = 1 << 20;

/// A step of lowering, done from an explicit stack, so a group's depth is not the
/// call stack's.
enum Task {
    /// Push the value of an entry at coordinates, read under a guard.
    Value(Key),
    /// Pop the values of the inputs `step` planned and push `e`'s value from them.
    Finish(Entry, Vec<Idx>, Guard, Step),
    /// The next values belong to a new reduction.
    Open,
}

/// How a member's value is made from its inputs' values (popped in the order planned).
enum Step {
    /// A scalar expression of its inputs.
    Scalar(Expr),
    /// Concatenation pieces, in order: the test where each applies.
    Pieces(Vec<Option<Val>>),
    /// A reduction of its prologue `pre` (its input's value at the reduction's points),
    /// then `post` of the reduced value and the count.
    Reduce {
        combiner: kiln_ops::Combiner,
        extents: Vec<Idx>,
        pre: Expr,
        post: Expr,
        count: usize,
    },
    /// A contraction's reads (each with the in-bounds test of a padded read and its
    /// padding), then its epilogue's.
    Contract {
        c: kiln_ops::contraction::Contraction,
        guards: Vec<Option<(Val, f64)>>,
    },
}

/// The nodes of index expression `i`.
fn idx(i: &Idx) -> usize {
    1 + match i {
        Idx::Const(_) | Idx::Coord(_) | Idx::Dim(_) | Idx::Red(_) => 0,
        Idx::Add(a, b) | Idx::Mul(a, b) | Idx::Div(a, b) | Idx::Mod(a, b) => idx(a) + idx(b),
    }
}

/// The most nodes the coordinates a value is read at may have. Index expressions have no
/// temporaries: a reshape's coordinates each hold the whole linear index of its output,
/// so chains of reshapes and transposes multiply them by the rank at every step. A group
/// whose coordinates grow past this does not lower.
const LARGEST_INDEX: usize = 1 << 10;

/// The values and index nodes of `v`.
fn size(v: &Val) -> usize {
    1 + match v {
        Val::Const(_) | Val::Temp(_) | Val::Local(_) => 0,
        Val::Load { index, .. } | Val::Index(index) | Val::Shared(index) => idx(index),
        Val::Unary(_, a) | Val::Bits(_, a) => size(a),
        Val::Binary(_, a, b) => size(a) + size(b),
        Val::Select(c, a, b) => size(c) + size(a) + size(b),
        Val::Reduce {
            extents,
            locals,
            body,
            ..
        } => {
            extents.iter().map(idx).sum::<usize>()
                + locals.iter().map(size).sum::<usize>()
                + size(body)
        }
    }
}

/// Whether `v` depends on the point of a reduction around it: its coordinates or its
/// locals (a reduction inside `v` has its own).
fn in_reduction(v: &Val) -> bool {
    match v {
        Val::Local(_) => true,
        Val::Load { index, .. } | Val::Index(index) | Val::Shared(index) => {
            index.mentions_reduction()
        }
        Val::Const(_) | Val::Temp(_) => false,
        Val::Unary(_, a) | Val::Bits(_, a) => in_reduction(a),
        Val::Binary(_, a, b) => in_reduction(a) || in_reduction(b),
        Val::Select(c, a, b) => in_reduction(c) || in_reduction(a) || in_reduction(b),
        Val::Reduce { extents, .. } => extents.iter().any(Idx::mentions_reduction),
    }
}

/// How many times `e` reads each input, added to `reads`.
fn count_reads(e: &Expr, reads: &mut [usize]) {
    match e {
        Expr::Input(i) => {
            if let Some(n) = reads.get_mut(*i) {
                *n += 1;
            }
        }
        Expr::Const(_) => {}
        Expr::Unary(_, a) => count_reads(a, reads),
        Expr::Binary(_, a, b) => {
            count_reads(a, reads);
            count_reads(b, reads);
        }
        Expr::Select(c, a, b) => {
            count_reads(c, reads);
            count_reads(a, reads);
            count_reads(b, reads);
        }
    }
}

fn bin(op: kiln_ops::expr::Binary, a: Val, b: Val) -> Val {
    Val::Binary(op, Box::new(a), Box::new(b))
}

/// `lo <= at < hi`, as a value (1 or 0).
fn within(at: Val, lo: Val, hi: Val) -> Val {
    use kiln_ops::expr::Binary;
    bin(
        Binary::Mul,
        bin(Binary::Ge, at.clone(), lo),
        bin(Binary::Lt, at, hi),
    )
}

/// The row-major linear index of `coords` in `shape`.
fn linear(coords: &[Idx], shape: &[usize]) -> Idx {
    coords
        .iter()
        .zip(shape)
        .fold(Idx::Const(0), |acc, (c, &d)| {
            acc * Idx::Const(d as i64) + c.clone()
        })
}

/// An index map's expression with output coordinates replaced by `coords`.
fn substitute(e: &IndexExpr, coords: &[Idx]) -> Idx {
    match e {
        IndexExpr::Out(a) => coords[*a].clone(),
        IndexExpr::Const(c) => Idx::Const(*c),
        IndexExpr::Add(a, b) => substitute(a, coords) + substitute(b, coords),
        IndexExpr::Mul(a, b) => substitute(a, coords) * substitute(b, coords),
        IndexExpr::Div(a, k) => substitute(a, coords) / Idx::Const(*k),
        IndexExpr::Mod(a, k) => substitute(a, coords) % Idx::Const(*k),
    }
}

/// A scalar expression with input `i` replaced by `args[i]`.
fn splice(e: &Expr, args: &[Val]) -> Val {
    match e {
        Expr::Input(i) => args[*i].clone(),
        Expr::Const(c) => Val::Const(*c),
        Expr::Unary(op, a) => Val::Unary(*op, Box::new(splice(a, args))),
        Expr::Binary(op, a, b) => {
            Val::Binary(*op, Box::new(splice(a, args)), Box::new(splice(b, args)))
        }
        Expr::Select(c, a, b) => Val::Select(
            Box::new(splice(c, args)),
            Box::new(splice(a, args)),
            Box::new(splice(b, args)),
        ),
    }
}

/// Node `n` that does not lower, and why.
fn unlowerable(n: &NodeData, reason: impl Into<String>) -> KirError {
    KirError::Unlowerable {
        node: n.describe(),
        reason: reason.into(),
    }
}

/// A member's operator and parsed parameters: variables and unparsed nodes do not lower.
fn operator(n: &NodeData) -> Result<(&'static kiln_ops::OpDef, &kiln_ops::Attrs), KirError> {
    let op =
        n.op.ok_or_else(|| unlowerable(n, "a variable inside a group"))?;
    let params = n
        .params
        .as_ref()
        .ok_or_else(|| unlowerable(n, "unparsed parameters"))?;
    Ok((op, params))
}

/// The contraction a library node declares for output `e.index`, or why it has none.
pub fn contraction_of(
    g: &Graph,
    inferred: &Inferred,
    e: Entry,
) -> Result<kiln_ops::contraction::Contraction, KirError> {
    let n = g.node(e.node);
    let (op, params) = operator(n)?;
    let library = |why| KirError::Library {
        node: n.describe(),
        pattern: op.pattern.name(),
        why,
    };
    let f = op.contraction.ok_or_else(|| library(None))?;
    let ins: Vec<Vec<usize>> = n
        .inputs
        .iter()
        .map(|&i| inferred.shape(i).clone())
        .collect();
    f(params, &ins, &inferred.shapes[e.node.index()], e.index).map_err(|err| library(Some(err)))
}

impl Lowering<'_> {
    /// The kernel storing `outputs`, all of `shape`, over that domain.
    fn kernel(
        &mut self,
        name: String,
        shape: &[usize],
        outputs: &[Entry],
    ) -> Result<Kernel, KirError> {
        let coords: Vec<Idx> = (0..shape.len()).map(Idx::Coord).collect();
        self.extents = shape.iter().map(|&d| Some(d as i64)).collect();
        let extents = self.extents.clone();
        let simplifier = Simplifier {
            extents: &extents,
            red: vec![],
        };
        let values = outputs
            .iter()
            .map(|&e| self.value(e, &coords).map(|v| simplifier.val(&v)))
            .collect::<Result<Vec<_>, _>>()?;
        let temps = self.temps.iter().map(|v| simplifier.val(v)).collect();
        let dtype = |e: Entry| self.inferred.dtype(e).unwrap_or(DType::F32);
        let buffer = |e: Entry| Buffer {
            name: self.g.entry_name(e),
            dtype: dtype(e),
            len: Idx::Const(self.inferred.shape(e).iter().product::<usize>() as i64),
        };
        let compute = if outputs.iter().all(|&e| dtype(e) == DType::F64) {
            DType::F64
        } else {
            DType::F32
        };
        Ok(Kernel {
            name,
            domain: shape.iter().map(|&d| Idx::Const(d as i64)).collect(),
            inputs: self.inputs.iter().map(|&e| buffer(e)).collect(),
            outputs: outputs.iter().map(|&e| buffer(e)).collect(),
            temps,
            values,
            compute,
        })
    }

    /// The value of entry `e` at `coords` (in `e`'s shape). Members' inputs are lowered
    /// before them from a stack of tasks, however long the chain.
    fn value(&mut self, e: Entry, coords: &[Idx]) -> Result<Val, KirError> {
        let mut tasks = vec![Task::Value((e, coords.to_vec(), None))];
        let mut values: Vec<Val> = Vec::new();
        while let Some(task) = tasks.pop() {
            match task {
                Task::Value(key) => {
                    if !self.members.contains(&key.0.node) {
                        let v = self.load(key.0, &key.1);
                        values.push(v);
                        continue;
                    }
                    if let Some(v) = self.recall(&key) {
                        values.push(v);
                        continue;
                    }
                    let (e, coords, guard) = key;
                    let (step, reads) = self.plan(e, &coords, guard)?;
                    let largest = reads.iter().map(|(_, c, _)| c.iter().map(idx).sum());
                    if largest.max().is_some_and(|n: usize| n > LARGEST_INDEX) {
                        return Err(unlowerable(
                            self.g.node(e.node),
                            format!("its inputs' coordinates grow past {LARGEST_INDEX} terms"),
                        ));
                    }
                    let opens = matches!(step, Step::Reduce { .. } | Step::Contract { .. });
                    tasks.push(Task::Finish(e, coords, guard, step));
                    tasks.extend(reads.into_iter().rev().map(Task::Value));
                    if opens {
                        tasks.push(Task::Open);
                    }
                }
                Task::Open => self.scopes.push(Scope::default()),
                Task::Finish(e, coords, guard, step) => {
                    let v = self.finish(e, coords, guard, step, &mut values)?;
                    values.push(v);
                }
            }
        }
        Ok(values.pop().expect("the value asked for"))
    }

    /// A load of the group's input `e` at `coords`.
    fn load(&mut self, e: Entry, coords: &[Idx]) -> Val {
        let next = self.inputs.len();
        let buffer = *self.input_index.entry(e).or_insert(next);
        if buffer == next {
            self.inputs.push(e);
        }
        Val::Load {
            buffer,
            index: linear(coords, self.inferred.shape(e)),
        }
    }

    /// Whether reading `guard` or the point `coords` depends on a reduction's point.
    fn reduction_point(&self, coords: &[Idx], guard: Guard) -> bool {
        coords.iter().any(Idx::mentions_reduction)
            || guard.is_some_and(|g| in_reduction(&self.guards[g]))
    }

    /// Whether member `e` is computed once per point and shared: read more than once,
    /// or a reduction (its value is shared even when read once, since the entry reading
    /// it may itself be recomputed inside another reduction's body: softmax's max).
    fn shared(&self, e: Entry) -> bool {
        let reduces =
            self.g.node(e.node).op.is_some_and(|op| {
                matches!(op.compute, Compute::Reduce(_) | Compute::Library { .. })
            });
        reduces || self.uses.get(&e).is_some_and(|&n| n > 1)
    }

    /// What reads shared member `key.0` where it was computed before: in the innermost
    /// reduction at its points, else in the kernel.
    fn recall(&self, key: &Key) -> Option<Val> {
        if !self.shared(key.0) {
            return None;
        }
        match self.reduction_point(&key.1, key.2) {
            true => self.scopes.last()?.memo.get(key).cloned(),
            false => self.memo.get(key).cloned(),
        }
    }

    fn remember(&mut self, key: Key, v: Val) {
        let memo = match self.reduction_point(&key.1, key.2) {
            true => self.scopes.last_mut().map(|s| &mut s.memo),
            false => Some(&mut self.memo),
        };
        if let Some(memo) = memo {
            memo.insert(key, v);
        }
    }

    /// The guard of a value read where `outer` and `test` both hold.
    fn guarded(&mut self, outer: Guard, test: Val) -> Guard {
        let g = match outer {
            Some(o) => bin(kiln_ops::expr::Binary::Mul, self.guards[o].clone(), test),
            None => test,
        };
        let next = self.guards.len();
        let at = *self.guard_index.entry(g.to_string()).or_insert(next);
        if at == next {
            self.guards.push(g);
        }
        Some(at)
    }

    /// `v` computed once per point (`e`'s value, read under `guard`): a temporary, or a
    /// local of the innermost reduction where it depends on the reduction's point. Under
    /// a guard it is the guard's select, so what it loads is read only where the guard
    /// holds (a concatenation's piece, a padded read).
    fn bind(&mut self, e: Entry, v: Val, guard: Guard) -> Result<Val, KirError> {
        if matches!(
            v,
            Val::Const(_) | Val::Temp(_) | Val::Local(_) | Val::Load { .. } | Val::Index(_)
        ) {
            return Ok(v);
        }
        let local = in_reduction(&v) || guard.is_some_and(|g| in_reduction(&self.guards[g]));
        let v = match guard {
            Some(g) => Val::Select(
                Box::new(self.guards[g].clone()),
                Box::new(v),
                Box::new(Val::Const(0.0)),
            ),
            None => v,
        };
        self.grow(e, size(&v))?;
        if !local {
            self.temps.push(v);
            return Ok(Val::Temp(self.temps.len() - 1));
        }
        let n = self.g.node(e.node);
        let scope = self
            .scopes
            .last_mut()
            .ok_or_else(|| unlowerable(n, "a value at a reduction's point outside it"))?;
        scope.locals.push(v);
        Ok(Val::Local(scope.locals.len() - 1))
    }

    /// Counts `values` more values made for member `e`; past [`LARGEST`] the group does
    /// not lower.
    fn grow(&mut self, e: Entry, values: usize) -> Result<(), KirError> {
        self.size += values;
        if values > LARGEST || self.size > LARGEST {
            let n = self.g.node(e.node);
            return Err(unlowerable(
                n,
                format!("its kernel would be made of more than {LARGEST} values"),
            ));
        }
        Ok(())
    }

    /// `e` with input `i` replaced by `args[i]`; an argument `e` reads more than once is
    /// computed once (bound for member `at`, under `guard`).
    fn splice(
        &mut self,
        at: Entry,
        e: &Expr,
        mut args: Vec<Val>,
        guard: Guard,
    ) -> Result<Val, KirError> {
        let mut reads = vec![0; args.len()];
        count_reads(e, &mut reads);
        for (a, n) in args.iter_mut().zip(reads) {
            if n > 1 {
                *a = self.bind(at, std::mem::replace(a, Val::Const(0.0)), guard)?;
            }
        }
        Ok(splice(e, &args))
    }

    /// What member `e`'s value at `coords` is made of: how, and the values it reads (an
    /// entry at coordinates, under a guard), in order.
    fn plan(
        &mut self,
        e: Entry,
        coords: &[Idx],
        guard: Guard,
    ) -> Result<(Step, Vec<Key>), KirError> {
        let shape = self.inferred.shape(e).clone();
        let n = self.g.node(e.node);
        let (op, params) = operator(n)?;
        let refused = |source| KirError::Operator {
            node: n.describe(),
            source,
        };
        match op.compute {
            Compute::Scalar(f) => {
                // Inputs broadcast to this output: right-aligned, size-1 axes read index 0.
                let reads = n
                    .inputs
                    .iter()
                    .map(|&i| {
                        let s = self.inferred.shape(i);
                        let lead = shape.len().checked_sub(s.len()).ok_or_else(|| {
                            unlowerable(n, "an input has more axes than its output")
                        })?;
                        let c: Vec<Idx> = s
                            .iter()
                            .enumerate()
                            .map(|(a, &d)| {
                                if d == 1 {
                                    Idx::Const(0)
                                } else {
                                    coords[a + lead].clone()
                                }
                            })
                            .collect();
                        Ok((i, c, guard))
                    })
                    .collect::<Result<Vec<_>, KirError>>()?;
                Ok((Step::Scalar(f(params)), reads))
            }
            Compute::Injective(map) => {
                let ins: Vec<_> = n
                    .inputs
                    .iter()
                    .map(|&i| self.inferred.shape(i).clone())
                    .collect();
                let outs = &self.inferred.shapes[e.node.index()];
                let m = map(params, &ins, outs, e.index).map_err(refused)?;
                if m.pieces.is_empty() {
                    return Err(unlowerable(n, "an empty index map"));
                }
                let mut tests = Vec::with_capacity(m.pieces.len());
                let mut reads = Vec::with_capacity(m.pieces.len());
                for piece in &m.pieces {
                    let c: Vec<Idx> = piece.coords.iter().map(|x| substitute(x, coords)).collect();
                    // A piece's value is used only where its guard holds.
                    let test = piece.guard.map(|(axis, lo, hi)| {
                        within(
                            Val::Index(coords[axis].clone()),
                            Val::Const(lo as f64),
                            Val::Const(hi as f64),
                        )
                    });
                    let g = match &test {
                        Some(t) => self.guarded(guard, t.clone()),
                        None => guard,
                    };
                    tests.push(test);
                    reads.push((n.inputs[piece.input], c, g));
                }
                Ok((Step::Pieces(tests), reads))
            }
            Compute::Reduce(reduction) => {
                let input = n.inputs[0];
                let in_shape = self.inferred.shape(input).clone();
                let r = reduction(params, &in_shape, &shape).map_err(refused)?;
                if self.reduction_point(coords, guard) {
                    return Err(unlowerable(n, "a reduction inside a reduction"));
                }
                // Output axes are the kept input axes: all of them with keepdims (reduced
                // ones of size 1), the kept ones in order, none when everything is reduced
                // to (1,), or the trailing axes (a sum back to a broadcast input's shape).
                let kept: Vec<usize> = (0..in_shape.len())
                    .filter(|a| !r.axes.contains(a))
                    .collect();
                let mut at = vec![Idx::Const(0); in_shape.len()];
                for (j, &a) in kept.iter().enumerate() {
                    let from = if shape.len() == in_shape.len() {
                        a
                    } else if shape.len() == kept.len() {
                        j
                    } else {
                        (a + shape.len()).saturating_sub(in_shape.len())
                    };
                    at[a] = coords.get(from).cloned().ok_or_else(|| {
                        unlowerable(
                            n,
                            format!("output rank {} does not fit the reduction", shape.len()),
                        )
                    })?;
                }
                for (k, &a) in r.axes.iter().enumerate() {
                    at[a] = Idx::Red(k);
                }
                let step = Step::Reduce {
                    combiner: r.combiner,
                    extents: r
                        .axes
                        .iter()
                        .map(|&a| Idx::Const(in_shape[a] as i64))
                        .collect(),
                    pre: r.pre,
                    post: r.post,
                    count: r.axes.iter().map(|&a| in_shape[a]).product(),
                };
                Ok((step, vec![(input, at, guard)]))
            }
            Compute::Library { .. } => {
                let c = contraction_of(self.g, self.inferred, e)?;
                if self.reduction_point(coords, guard) {
                    return Err(unlowerable(n, "a reduction inside a reduction"));
                }
                let rank = coords.len();
                let point: Vec<Idx> = coords
                    .iter()
                    .cloned()
                    .chain((0..c.extents.len()).map(Idx::Red))
                    .collect();
                let extents = self.extents.clone();
                let ranges = Simplifier {
                    extents: &extents,
                    red: c.extents.iter().map(|&x| Some(x as i64)).collect(),
                };
                let mut reads = Vec::with_capacity(c.reads.len() + c.epilogue.len());
                let mut guards = Vec::with_capacity(reads.capacity());
                let body_reads = c.reads.iter().map(|r| (r, &point[..]));
                let epilogue_reads = c.epilogue.iter().map(|r| (r, &point[..rank]));
                for (r, at) in body_reads.chain(epilogue_reads) {
                    let input = n.inputs[r.input];
                    let shape = self.inferred.shape(input);
                    let c: Vec<Idx> = r.coords.iter().map(|x| substitute(x, at)).collect();
                    // In bounds, 0 <= c < extent, along the axes not provably inside.
                    // Extents are index values, so a batch extent generalizes over batch
                    // sizes.
                    let test = r.padding.and_then(|pad| {
                        c.iter()
                            .zip(shape)
                            .filter(|(ci, &d)| !ranges.within(ci, d as i64))
                            .map(|(ci, &d)| {
                                within(
                                    Val::Index(ci.clone()),
                                    Val::Const(0.0),
                                    Val::Index(Idx::Const(d as i64)),
                                )
                            })
                            .reduce(|a, b| bin(kiln_ops::expr::Binary::Mul, a, b))
                            .map(|test| (test, pad))
                    });
                    let g = match &test {
                        Some((t, _)) => self.guarded(guard, t.clone()),
                        None => guard,
                    };
                    guards.push(test);
                    reads.push((input, c, g));
                }
                Ok((Step::Contract { c, guards }, reads))
            }
        }
    }

    /// Member `e`'s value at `coords` from the values of what `step` reads (on top of
    /// `values`), computed once per point where it is shared or grew deep.
    fn finish(
        &mut self,
        e: Entry,
        coords: Vec<Idx>,
        guard: Guard,
        step: Step,
        values: &mut Vec<Val>,
    ) -> Result<Val, KirError> {
        let n = self.g.node(e.node);
        let mut pop = |k: usize| values.split_off(values.len() - k);
        let v = match step {
            Step::Scalar(expr) => {
                let args = pop(n.inputs.len());
                self.splice(e, &expr, args, guard)?
            }
            Step::Pieces(tests) => {
                let args = pop(tests.len());
                // The first piece whose guard holds wins (concatenation). Many pieces
                // nest deeper than a value may: the pieces after one become a temporary
                // every so often, the last under its own guard, since it is then
                // computed where the others apply too.
                let many = tests.len() > DEEPEST;
                let mut result: Option<Val> = None;
                for (k, (test, v)) in tests.into_iter().zip(args).enumerate().rev() {
                    result = Some(match (test, result) {
                        (Some(test), Some(rest)) => {
                            let rest = match many && k % DEEPEST == 0 {
                                true => self.bind(e, rest, guard)?,
                                false => rest,
                            };
                            Val::Select(Box::new(test), Box::new(v), Box::new(rest))
                        }
                        (Some(test), None) if many => {
                            Val::Select(Box::new(test), Box::new(v), Box::new(Val::Const(0.0)))
                        }
                        (_, _) => v,
                    });
                }
                result.expect("a piece at least")
            }
            Step::Reduce {
                combiner,
                extents,
                pre,
                post,
                count,
            } => {
                let body = self.splice(e, &pre, pop(1), guard)?;
                let reduced = self.close(combiner, extents, body);
                // Always a temporary, so the schedule can hoist it out of the loops it
                // does not depend on.
                let t = self.bind(e, reduced, guard)?;
                self.splice(e, &post, vec![t, Val::Const(count as f64)], guard)?
            }
            Step::Contract { c, guards } => {
                let mut args = pop(guards.len());
                for (a, test) in args.iter_mut().zip(guards) {
                    if let Some((test, pad)) = test {
                        let v = std::mem::replace(a, Val::Const(0.0));
                        *a = Val::Select(Box::new(test), Box::new(v), Box::new(Val::Const(pad)));
                    }
                }
                let epilogue = args.split_off(c.reads.len());
                let body = self.splice(e, &c.body, args, guard)?;
                let extents = c.extents.iter().map(|&x| Idx::Const(x as i64)).collect();
                let reduced = self.close(c.combiner, extents, body);
                let t = self.bind(e, reduced, guard)?;
                let post_args = std::iter::once(t).chain(epilogue).collect();
                self.splice(e, &c.post, post_args, guard)?
            }
        };
        let (depth, values) = (v.depth(), size(&v));
        if values > LARGEST {
            self.grow(e, values)?;
        }
        if self.shared(e) {
            let v = self.bind(e, v, guard)?;
            self.remember((e, coords, guard), v.clone());
            return Ok(v);
        }
        if depth > DEEPEST {
            return self.bind(e, v, guard);
        }
        Ok(v)
    }

    /// The innermost reduction, ended: its locals read once go back into what reads
    /// them, where that keeps values shallow (a shared entry read once here).
    fn close(&mut self, combiner: kiln_ops::Combiner, extents: Vec<Idx>, body: Val) -> Val {
        let locals = self.scopes.pop().map(|s| s.locals).unwrap_or_default();
        let (locals, body) = inline_once(locals, body);
        Val::Reduce {
            combiner,
            extents,
            locals,
            body: Box::new(body),
        }
    }
}

/// What a local of a reduction being rebuilt became: a local again, or a value inlined.
enum Moved {
    Local(usize),
    Inlined(Val),
}

/// `locals` and `body` with each local read exactly once and no deeper than half of
/// [`DEEPEST`] put back where it is read, and the rest renumbered.
fn inline_once(locals: Vec<Val>, body: Val) -> (Vec<Val>, Val) {
    let mut reads = vec![0usize; locals.len()];
    for v in locals.iter().chain([&body]) {
        v.any(&mut |x| {
            if let Val::Local(l) = x {
                reads[*l] += 1;
            }
            false
        });
    }
    let mut moved: Vec<Moved> = Vec::with_capacity(locals.len());
    let mut kept = Vec::new();
    for (l, v) in locals.into_iter().enumerate() {
        let v = relocate(&v, &moved);
        if reads[l] == 1 && v.depth() <= DEEPEST / 2 {
            moved.push(Moved::Inlined(v));
        } else {
            kept.push(v);
            moved.push(Moved::Local(kept.len() - 1));
        }
    }
    let body = relocate(&body, &moved);
    (kept, body)
}

/// `v` with its locals as `moved` says.
fn relocate(v: &Val, moved: &[Moved]) -> Val {
    let b = |v: &Val| Box::new(relocate(v, moved));
    match v {
        Val::Local(l) => match &moved[*l] {
            Moved::Local(m) => Val::Local(*m),
            Moved::Inlined(v) => v.clone(),
        },
        Val::Unary(op, a) => Val::Unary(*op, b(a)),
        Val::Bits(op, a) => Val::Bits(*op, b(a)),
        Val::Binary(op, x, y) => Val::Binary(*op, b(x), b(y)),
        Val::Select(c, x, y) => Val::Select(b(c), b(x), b(y)),
        _ => v.clone(),
    }
}
