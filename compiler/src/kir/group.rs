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
                temps: vec![],
                memo: HashMap::new(),
                extents: vec![],
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
    uses: &'a HashMap<Entry, usize>,
    temps: Vec<Val>,
    /// The temporary holding a member entry at given coordinates.
    memo: HashMap<(Entry, Vec<Idx>), usize>,
    /// Extent of each domain axis of the kernel being lowered.
    extents: Vec<Option<i64>>,
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
    fn contraction(&self, e: Entry) -> Result<kiln_ops::contraction::Contraction, KirError> {
        contraction_of(self.g, self.inferred, e)
    }

    /// A contraction at `coords`: its reads (guarded where they pad) combined over the
    /// reduction axes in a temporary, then its epilogue.
    fn contract(
        &mut self,
        e: Entry,
        c: &kiln_ops::contraction::Contraction,
        coords: &[Idx],
    ) -> Result<Val, KirError> {
        use kiln_ops::contraction::Read;
        use kiln_ops::expr::Binary;
        let n = self.g.node(e.node);
        if coords.iter().any(Idx::mentions_reduction) {
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
        let mut read = |r: &Read, at: &[Idx]| -> Result<Val, KirError> {
            let input = n.inputs[r.input];
            let shape = self.inferred.shape(input).clone();
            let c: Vec<Idx> = r.coords.iter().map(|x| substitute(x, at)).collect();
            let v = self.value(input, &c)?;
            let Some(pad) = r.padding else {
                return Ok(v);
            };
            // In bounds, 0 <= c < extent, along the axes not provably inside. Extents are
            // index values, so a batch extent generalizes over batch sizes.
            let bin = |op, a: Val, b: Val| Val::Binary(op, Box::new(a), Box::new(b));
            let checks: Vec<Val> = c
                .iter()
                .zip(&shape)
                .filter(|(ci, &d)| !ranges.within(ci, d as i64))
                .map(|(ci, &d)| {
                    let at = Val::Index(ci.clone());
                    bin(
                        Binary::Mul,
                        bin(Binary::Ge, at.clone(), Val::Const(0.0)),
                        bin(Binary::Lt, at, Val::Index(Idx::Const(d as i64))),
                    )
                })
                .collect();
            let Some(inside) = checks.into_iter().reduce(|a, b| bin(Binary::Mul, a, b)) else {
                return Ok(v);
            };
            Ok(Val::Select(
                Box::new(inside),
                Box::new(v),
                Box::new(Val::Const(pad)),
            ))
        };
        let args = c
            .reads
            .iter()
            .map(|r| read(r, &point))
            .collect::<Result<Vec<_>, _>>()?;
        let mut post_args = vec![Val::Const(0.0)];
        for r in &c.epilogue {
            post_args.push(read(r, &point[..rank])?);
        }
        self.temps.push(Val::Reduce {
            combiner: c.combiner,
            extents: c.extents.iter().map(|&x| Idx::Const(x as i64)).collect(),
            body: Box::new(splice(&c.body, &args)),
        });
        post_args[0] = Val::Temp(self.temps.len() - 1);
        Ok(splice(&c.post, &post_args))
    }

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

    /// The value of entry `e` at `coords` (in `e`'s shape): a temporary when `e` is a member
    /// read more than once.
    fn value(&mut self, e: Entry, coords: &[Idx]) -> Result<Val, KirError> {
        // Inside a reduction the point changes with the reduction coordinates: no sharing.
        // A reduction's value is shared even when read once, since the entry reading it
        // may itself be recomputed (inside another reduction's body: softmax's max).
        let reduces =
            self.g.node(e.node).op.is_some_and(|op| {
                matches!(op.compute, Compute::Reduce(_) | Compute::Library { .. })
            });
        let shared = self.members.contains(&e.node)
            && (reduces || self.uses.get(&e).is_some_and(|&n| n > 1))
            && !coords.iter().any(Idx::mentions_reduction);
        if !shared {
            return self.compute(e, coords);
        }
        let key = (e, coords.to_vec());
        if let Some(&t) = self.memo.get(&key) {
            return Ok(Val::Temp(t));
        }
        let v = self.compute(e, coords)?;
        self.temps.push(v);
        self.memo.insert(key, self.temps.len() - 1);
        Ok(Val::Temp(self.temps.len() - 1))
    }

    /// The expression of entry `e` at `coords`.
    fn compute(&mut self, e: Entry, coords: &[Idx]) -> Result<Val, KirError> {
        let shape = self.inferred.shape(e).clone();
        if !self.members.contains(&e.node) {
            let buffer = match self.inputs.iter().position(|&i| i == e) {
                Some(b) => b,
                None => {
                    self.inputs.push(e);
                    self.inputs.len() - 1
                }
            };
            return Ok(Val::Load {
                buffer,
                index: linear(coords, &shape),
            });
        }
        let n = self.g.node(e.node);
        let (op, params) = operator(n)?;
        let refused = |source| KirError::Operator {
            node: n.describe(),
            source,
        };
        match op.compute {
            Compute::Scalar(f) => {
                // Inputs broadcast to this output: right-aligned, size-1 axes read index 0.
                let args = n
                    .inputs
                    .iter()
                    .map(|&i| {
                        let s = self.inferred.shape(i).clone();
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
                        self.value(i, &c)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(splice(&f(params), &args))
            }
            Compute::Injective(map) => {
                let ins: Vec<_> = n
                    .inputs
                    .iter()
                    .map(|&i| self.inferred.shape(i).clone())
                    .collect();
                let outs = &self.inferred.shapes[e.node.index()];
                let m = map(params, &ins, outs, e.index).map_err(refused)?;
                // Pieces in order: the first whose guard holds wins (concatenation).
                let mut result: Option<Val> = None;
                for piece in m.pieces.iter().rev() {
                    let c: Vec<Idx> = piece.coords.iter().map(|x| substitute(x, coords)).collect();
                    let v = self.value(n.inputs[piece.input], &c)?;
                    result = Some(match (piece.guard, result) {
                        (Some((axis, lo, hi)), Some(rest)) => {
                            let at = Val::Index(coords[axis].clone());
                            let inside = Val::Binary(
                                kiln_ops::expr::Binary::Mul,
                                Box::new(Val::Binary(
                                    kiln_ops::expr::Binary::Ge,
                                    Box::new(at.clone()),
                                    Box::new(Val::Const(lo as f64)),
                                )),
                                Box::new(Val::Binary(
                                    kiln_ops::expr::Binary::Lt,
                                    Box::new(at),
                                    Box::new(Val::Const(hi as f64)),
                                )),
                            );
                            Val::Select(Box::new(inside), Box::new(v), Box::new(rest))
                        }
                        _ => v,
                    });
                }
                result.ok_or_else(|| unlowerable(n, "an empty index map"))
            }
            Compute::Reduce(reduction) => {
                let input = n.inputs[0];
                let in_shape = self.inferred.shape(input).clone();
                let r = reduction(params, &in_shape, &shape).map_err(refused)?;
                if coords.iter().any(Idx::mentions_reduction) {
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
                let body = splice(&r.pre, &[self.value(input, &at)?]);
                let count: usize = r.axes.iter().map(|&a| in_shape[a]).product();
                let reduced = Val::Reduce {
                    combiner: r.combiner,
                    extents: r
                        .axes
                        .iter()
                        .map(|&a| Idx::Const(in_shape[a] as i64))
                        .collect(),
                    body: Box::new(body),
                };
                // Always a temporary, so the schedule can hoist it out of the loops it
                // does not depend on.
                self.temps.push(reduced);
                let t = Val::Temp(self.temps.len() - 1);
                Ok(splice(&r.post, &[t, Val::Const(count as f64)]))
            }
            Compute::Library { .. } => {
                let contraction = self.contraction(e)?;
                self.contract(e, &contraction, coords)
            }
        }
    }
}
