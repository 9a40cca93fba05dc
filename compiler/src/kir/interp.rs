//! The IR's own interpreter: runs a [`LoopNest`] on reference tensors, in f64, rounding
//! each stored value to its buffer's dtype. Renderers are tested against it, and it against
//! the graph oracle. Out-of-bounds accesses are errors, not panics.

use super::error::{Fault, KirError};
use super::ir::{Buffer, Idx, LoopNest, Stmt, Val};
use kiln_ops::Tensor;

/// Loop coordinates, bound symbolic dimensions and inputs; shared with the SIMT emulator.
pub(super) struct Env<'a> {
    pub coords: Vec<i64>,
    /// Temporaries of the current point.
    pub temps: Vec<f64>,
    /// Reduction coordinates, inside a reduction.
    pub red: Vec<i64>,
    /// The innermost reduction's locals at its current point.
    pub locals: Vec<f64>,
    pub dims: &'a [i64],
    pub inputs: &'a [&'a Tensor],
    /// The block's shared array (GPU schedules).
    pub shared: &'a [f64],
}

impl<'a> Env<'a> {
    /// No coordinates, temporaries or shared memory yet.
    pub(super) fn new(dims: &'a [i64], inputs: &'a [&'a Tensor]) -> Env<'a> {
        Env {
            coords: vec![],
            temps: vec![],
            red: vec![],
            locals: vec![],
            dims,
            inputs,
            shared: &[],
        }
    }
}

pub(super) fn idx(e: &Idx, env: &Env) -> Result<i64, Fault> {
    Ok(match e {
        Idx::Const(c) => *c,
        Idx::Coord(a) => *env
            .coords
            .get(*a)
            .ok_or_else(|| Fault::Invalid(format!("coordinate i{a} outside every loop")))?,
        Idx::Red(k) => *env.red.get(*k).ok_or_else(|| {
            Fault::Invalid(format!("reduction coordinate r{k} outside its reduction"))
        })?,
        Idx::Dim(d) => *env.dims.get(*d).ok_or(Fault::UnboundDim(*d))?,
        Idx::Add(a, b) => idx(a, env)? + idx(b, env)?,
        Idx::Mul(a, b) => idx(a, env)? * idx(b, env)?,
        Idx::Div(a, b) => {
            let d = idx(b, env)?;
            if d <= 0 {
                return Err(Fault::Invalid(format!("division by {d} in {e}")));
            }
            idx(a, env)?.div_euclid(d)
        }
        Idx::Mod(a, b) => {
            let d = idx(b, env)?;
            if d <= 0 {
                return Err(Fault::Invalid(format!("remainder by {d} in {e}")));
            }
            idx(a, env)?.rem_euclid(d)
        }
    })
}

pub(super) fn val(v: &Val, env: &Env) -> Result<f64, Fault> {
    Ok(match v {
        Val::Const(c) => *c,
        Val::Load { buffer, index } => {
            let t = env
                .inputs
                .get(*buffer)
                .ok_or_else(|| Fault::Invalid(format!("no input buffer {buffer}")))?;
            let i = idx(index, env)?;
            *usize::try_from(i)
                .ok()
                .and_then(|i| t.data.get(i))
                .ok_or_else(|| Fault::OutOfBounds {
                    access: format!("in{buffer}[{i}]"),
                    len: t.len(),
                })?
        }
        Val::Index(i) => idx(i, env)? as f64,
        Val::Reduce {
            combiner,
            extents,
            locals,
            body,
        } => {
            let extents = extents
                .iter()
                .map(|e| idx(e, env))
                .collect::<Result<Vec<_>, _>>()?;
            let mut inner = Env {
                coords: env.coords.clone(),
                temps: env.temps.clone(),
                red: vec![0; extents.len()],
                locals: Vec::with_capacity(locals.len()),
                dims: env.dims,
                inputs: env.inputs,
                shared: env.shared,
            };
            let mut acc = combiner.identity();
            // Row-major over the reduction axes, as the reference kernel walks them.
            'points: loop {
                if extents.contains(&0) {
                    break;
                }
                inner.locals.clear();
                for l in locals {
                    let v = val(l, &inner)?;
                    inner.locals.push(v);
                }
                acc = combiner.combine(acc, val(body, &inner)?);
                for k in (0..extents.len()).rev() {
                    inner.red[k] += 1;
                    if inner.red[k] < extents[k] {
                        continue 'points;
                    }
                    inner.red[k] = 0;
                }
                break;
            }
            acc
        }
        Val::Temp(t) => *env
            .temps
            .get(*t)
            .ok_or_else(|| Fault::Invalid(format!("t{t} read before it is set")))?,
        Val::Local(l) => *env.locals.get(*l).ok_or_else(|| {
            Fault::Invalid(format!(
                "l{l} read outside its reduction or before it is set"
            ))
        })?,
        Val::Unary(op, a) => op.apply(val(a, env)?),
        Val::Bits(op, a) => op.apply(val(a, env)?),
        Val::Shared(i) => {
            let at = idx(i, env)?;
            *usize::try_from(at)
                .ok()
                .and_then(|a| env.shared.get(a))
                .ok_or_else(|| Fault::OutOfBounds {
                    access: format!("shared[{at}]"),
                    len: env.shared.len(),
                })?
        }
        Val::Binary(op, a, b) => op.apply(val(a, env)?, val(b, env)?),
        Val::Select(c, a, b) => {
            if val(c, env)? != 0.0 {
                val(a, env)?
            } else {
                val(b, env)?
            }
        }
    })
}

fn exec(stmts: &[Stmt], env: &mut Env, outs: &mut [Tensor]) -> Result<(), Fault> {
    for s in stmts {
        match s {
            Stmt::Loop {
                axis, extent, body, ..
            } => {
                let n = idx(extent, env)?;
                if env.coords.len() <= *axis {
                    env.coords.resize(axis + 1, 0);
                }
                for i in 0..n {
                    env.coords[*axis] = i;
                    exec(body, env, outs)?;
                }
            }
            Stmt::Let { temp, value } => {
                let v = val(value, env)?;
                if env.temps.len() <= *temp {
                    env.temps.resize(temp + 1, f64::NAN);
                }
                env.temps[*temp] = v;
            }
            Stmt::Store {
                output,
                index,
                value,
            } => {
                let v = val(value, env)?;
                let i = idx(index, env)?;
                let out = outs
                    .get_mut(*output)
                    .ok_or_else(|| Fault::Invalid(format!("no output buffer {output}")))?;
                let dtype = out.dtype;
                let len = out.len();
                let slot = usize::try_from(i)
                    .ok()
                    .and_then(|i| out.data.get_mut(i))
                    .ok_or_else(|| Fault::OutOfBounds {
                        access: format!("out{output}[{i}]"),
                        len,
                    })?;
                *slot = dtype.round(v);
            }
        }
    }
    Ok(())
}

/// Zeroed output tensors of the given shapes, each checked against its buffer's length.
pub(super) fn allocate_outputs(
    buffers: &[Buffer],
    env: &Env,
    out_shapes: &[Vec<usize>],
) -> Result<Vec<Tensor>, Fault> {
    if buffers.len() != out_shapes.len() {
        return Err(Fault::OutputShapes(format!(
            "{} output shapes for {} outputs",
            out_shapes.len(),
            buffers.len()
        )));
    }
    buffers
        .iter()
        .zip(out_shapes)
        .map(|(b, s)| {
            let len = idx(&b.len, env)? as usize;
            if len != s.iter().product::<usize>() {
                return Err(Fault::OutputShapes(format!(
                    "output `{}` holds {len} elements, not shape {s:?}",
                    b.name
                )));
            }
            Ok(Tensor::zeros(b.dtype, s.clone()))
        })
        .collect()
}

/// Runs `nest` on `inputs` with symbolic dimensions bound to `dims`; each output gets the
/// given shape (its element count must match the buffer's).
pub fn run(
    nest: &LoopNest,
    inputs: &[&Tensor],
    dims: &[i64],
    out_shapes: &[Vec<usize>],
) -> Result<Vec<Tensor>, KirError> {
    let mut env = Env::new(dims, inputs);
    allocate_outputs(&nest.outputs, &env, out_shapes)
        .and_then(|mut outs| exec(&nest.body, &mut env, &mut outs).map(|()| outs))
        .map_err(|fault| KirError::Run {
            kernel: nest.name.clone(),
            at: None,
            fault,
        })
}

/// The value of a coordinate-free index expression (an extent or a buffer length) with
/// the symbolic dimensions bound to `dims`.
pub fn extent(e: &Idx, dims: &[i64]) -> Result<i64, KirError> {
    Ok(idx(e, &Env::new(dims, &[]))?)
}
