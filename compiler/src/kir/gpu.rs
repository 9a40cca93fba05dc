//! The GPU schedule of kernels with reductions: statements every thread of a block runs,
//! with per-thread registers, one shared array per block and barriers.
//!
//! [`block_reduce`] schedules a [`Kernel`] whose reductions depend only on its outer
//! (row) axes — softmax, norms, sums over inner axes — as one block per row (blocks stride
//! over rows): each reduction is accumulated by the block's threads striding over its
//! points, combined in shared memory by a tree of halving steps with a barrier after
//! each, finished inside warp 0 by `__shfl_down_sync` steps, and broadcast through shared
//! slot 0; then the threads stride over the row's inner points to store the outputs.
//! Kernels without reductions keep the element-wise grid-stride form of
//! [`cuda::render`](super::cuda::render).
//!
//! The form prints as text, runs on the SIMT emulator ([`super::simt::run_block`], threads
//! in lockstep, shared-memory races reported) and renders to CUDA
//! ([`super::cuda::render_block`]).

use super::error::KirError;
use super::ir::{Idx, Kernel, Val};
use kiln_ops::Combiner;
use std::fmt;

/// A launch value a coordinate slot can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launch {
    /// `threadIdx.x`.
    Thread,
    /// `blockIdx.x`.
    Block,
    /// `gridDim.x`.
    Blocks,
}

/// A statement every active thread of a block runs.
#[derive(Clone, Debug, PartialEq)]
pub enum GStmt {
    /// Coordinate slot `coord` holds a launch value.
    Launch { coord: usize, value: Launch },
    /// Coordinate slot `coord` holds an index.
    SetCoord { coord: usize, value: Idx },
    /// `for (coord = start; coord < end; coord += step)`, per thread.
    For {
        coord: usize,
        start: Idx,
        end: Idx,
        step: Idx,
        body: Vec<GStmt>,
    },
    /// The body, for the threads where `lhs < rhs`.
    IfLess {
        lhs: Idx,
        rhs: Idx,
        body: Vec<GStmt>,
    },
    /// Register `reg` (read as `Val::Temp(reg)`) takes `value`.
    Set { reg: usize, value: Val },
    /// `shared[at] = value`.
    SharedStore { at: Idx, value: Val },
    /// Every thread of the block waits here; shared stores before it are visible after.
    Barrier,
    /// `reg` takes register `src` of the lane `delta` above in the warp (its own `src`
    /// past the warp's end).
    ShuffleDown { reg: usize, src: usize, delta: u32 },
    /// `output[index] = value`, rounded to the output's storage type.
    Store {
        output: usize,
        index: Idx,
        value: Val,
    },
}

/// A kernel under the block schedule: buffers as the [`Kernel`]'s, `block` threads per
/// block, `shared` elements of shared memory, and `registers` per thread.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuKernel {
    pub kernel: Kernel,
    pub block: u32,
    pub shared: usize,
    pub registers: usize,
    /// Rows the blocks stride over (the outer axes' extents multiplied): a launch of this
    /// many blocks gives each row a block of its own.
    pub rows: Idx,
    /// Coordinate slots used (the domain's axes first).
    pub coords: usize,
    pub body: Vec<GStmt>,
}

fn combine(c: Combiner, a: Val, b: Val) -> Val {
    use kiln_ops::expr::Binary;
    let bin = |op, a, b| Val::Binary(op, Box::new(a), Box::new(b));
    match c {
        Combiner::Sum => bin(Binary::Add, a, b),
        Combiner::Prod => bin(Binary::Mul, a, b),
        // NaN wins, as in the serial combiners.
        Combiner::Max => bin(Binary::Max, b, a),
        Combiner::Min => bin(Binary::Min, b, a),
    }
}

/// Replaces reduction coordinates with `red(k)` and a reduction's locals with the
/// registers from `first` on.
fn substitute(v: &Val, red: &dyn Fn(usize) -> Idx, first: usize) -> Val {
    let b = |v: &Val| Box::new(substitute(v, red, first));
    match v {
        Val::Local(l) => Val::Temp(first + l),
        Val::Unary(op, a) => Val::Unary(*op, b(a)),
        Val::Bits(op, a) => Val::Bits(*op, b(a)),
        Val::Binary(op, x, y) => Val::Binary(*op, b(x), b(y)),
        Val::Select(c, x, y) => Val::Select(b(c), b(x), b(y)),
        // A reduction's own body reads its own locals (none nests in another).
        Val::Reduce { .. } => v.clone(),
        _ => v.map_idx(&|i| i.substitute(&Idx::Coord, red)),
    }
}

/// Coordinates `axes` of a row-major point, from its linear index `lin`.
fn unflatten(lin: Idx, axes: std::ops::Range<usize>, extents: &[Idx]) -> Vec<GStmt> {
    let mut out = Vec::new();
    let mut stride = Idx::Const(1);
    for a in axes.rev() {
        out.push(GStmt::SetCoord {
            coord: a,
            value: (lin.clone() / stride.clone()) % extents[a].clone(),
        });
        stride = stride * extents[a].clone();
    }
    out
}

fn product(extents: &[Idx]) -> Idx {
    extents.iter().fold(Idx::Const(1), |acc, e| acc * e.clone())
}

/// Schedules `k` one block of `block` threads (a power of two, at least 32) per row,
/// where the rows are the outer axes its reductions depend on. Fails for kernels without
/// reductions, and for reductions over other axes than the innermost ones.
pub fn block_reduce(k: &Kernel, block: u32) -> Result<GpuKernel, KirError> {
    let unfit = |reason: String| KirError::BlockSchedule {
        kernel: k.name.clone(),
        reason,
    };
    if block < 32 || !block.is_power_of_two() {
        return Err(unfit(format!(
            "a block of {block} threads: need a power of two ≥ 32"
        )));
    }
    let rank = k.domain.len();
    let axes = k.temp_axes();
    let reductions: Vec<usize> = (0..k.temps.len())
        .filter(|&t| matches!(k.temps[t], Val::Reduce { .. }))
        .collect();
    if reductions.is_empty() {
        return Err(unfit("no reduction".into()));
    }
    // Rows: the outer axes any reduction depends on; every reduction and every temporary
    // it reads must depend on no other axis.
    let rows_rank = reductions
        .iter()
        .map(|&t| axes[t].iter().rposition(|&d| d).map_or(0, |p| p + 1))
        .max()
        .unwrap_or(0);
    let row_level = |t: usize| axes[t][rows_rank..].iter().all(|&d| !d);
    if let Some(&t) = reductions.iter().find(|&&t| !row_level(t)) {
        return Err(unfit(format!("reduction t{t} depends on inner axes")));
    }
    let (thread, blk, blocks, row, r, inner) =
        (rank, rank + 1, rank + 2, rank + 3, rank + 4, rank + 5);
    let coord = Idx::Coord;
    let (acc, lane, other) = (k.temps.len(), k.temps.len() + 1, k.temps.len() + 2);
    // Then the registers of the reductions' locals.
    let first_local = k.temps.len() + 3;
    let mut registers = first_local;
    let mut row_body = unflatten(coord(row), 0..rows_rank, &k.domain);
    for (t, v) in k.temps.iter().enumerate() {
        let Val::Reduce {
            combiner,
            extents,
            locals,
            body,
        } = v
        else {
            if row_level(t) {
                row_body.push(GStmt::Set {
                    reg: t,
                    value: v.clone(),
                });
            }
            continue;
        };
        // Strided partial sums: point `r` of the reduction, row-major over its axes.
        let strides: Vec<Idx> = (0..extents.len())
            .map(|j| product(&extents[j + 1..]))
            .collect();
        let at = |j: usize| (coord(r) / strides[j].clone()) % extents[j].clone();
        let mut step: Vec<GStmt> = locals
            .iter()
            .enumerate()
            .map(|(l, v)| GStmt::Set {
                reg: first_local + l,
                value: substitute(v, &at, first_local),
            })
            .collect();
        registers = registers.max(first_local + locals.len());
        step.push(GStmt::Set {
            reg: acc,
            value: combine(
                *combiner,
                Val::Temp(acc),
                substitute(body, &at, first_local),
            ),
        });
        row_body.push(GStmt::Set {
            reg: acc,
            value: Val::Const(combiner.identity()),
        });
        row_body.push(GStmt::For {
            coord: r,
            start: coord(thread),
            end: product(extents),
            step: Idx::Const(block as i64),
            body: step,
        });
        row_body.push(GStmt::SharedStore {
            at: coord(thread),
            value: Val::Temp(acc),
        });
        row_body.push(GStmt::Barrier);
        // Halving steps down to one warp's worth of partials.
        let mut half = block / 2;
        while half >= 32 {
            let h = Idx::Const(half as i64);
            row_body.push(GStmt::IfLess {
                lhs: coord(thread),
                rhs: h.clone(),
                body: vec![GStmt::SharedStore {
                    at: coord(thread),
                    value: combine(
                        *combiner,
                        Val::Shared(coord(thread)),
                        Val::Shared(coord(thread) + h),
                    ),
                }],
            });
            row_body.push(GStmt::Barrier);
            half /= 2;
        }
        // Warp 0 finishes with shuffles; lane 0 publishes the result in slot 0.
        let mut warp = vec![GStmt::Set {
            reg: lane,
            value: Val::Shared(coord(thread)),
        }];
        for delta in [16, 8, 4, 2, 1] {
            warp.push(GStmt::ShuffleDown {
                reg: other,
                src: lane,
                delta,
            });
            warp.push(GStmt::Set {
                reg: lane,
                value: combine(*combiner, Val::Temp(lane), Val::Temp(other)),
            });
        }
        warp.push(GStmt::IfLess {
            lhs: coord(thread),
            rhs: Idx::Const(1),
            body: vec![GStmt::SharedStore {
                at: Idx::Const(0),
                value: Val::Temp(lane),
            }],
        });
        row_body.push(GStmt::IfLess {
            lhs: coord(thread),
            rhs: Idx::Const(32),
            body: warp,
        });
        row_body.push(GStmt::Barrier);
        row_body.push(GStmt::Set {
            reg: t,
            value: Val::Shared(Idx::Const(0)),
        });
        // Slot 0 is rewritten by the next reduction only after everyone has read it.
        row_body.push(GStmt::Barrier);
    }
    // The row's inner points, strided over the threads.
    let inner_extent = product(&k.domain[rows_rank..]);
    let mut point = unflatten(coord(inner), rows_rank..rank, &k.domain);
    for (t, v) in k.temps.iter().enumerate() {
        if !row_level(t) {
            point.push(GStmt::Set {
                reg: t,
                value: v.clone(),
            });
        }
    }
    let linear = coord(row) * inner_extent.clone() + coord(inner);
    for (output, v) in k.values.iter().enumerate() {
        point.push(GStmt::Store {
            output,
            index: linear.clone(),
            value: v.clone(),
        });
    }
    row_body.push(GStmt::For {
        coord: inner,
        start: coord(thread),
        end: inner_extent,
        step: Idx::Const(block as i64),
        body: point,
    });
    let rows = product(&k.domain[..rows_rank]);
    let body = vec![
        GStmt::Launch {
            coord: thread,
            value: Launch::Thread,
        },
        GStmt::Launch {
            coord: blk,
            value: Launch::Block,
        },
        GStmt::Launch {
            coord: blocks,
            value: Launch::Blocks,
        },
        GStmt::For {
            coord: row,
            start: coord(blk),
            end: rows.clone(),
            step: coord(blocks),
            body: row_body,
        },
    ];
    Ok(GpuKernel {
        kernel: k.clone(),
        block,
        shared: block as usize,
        registers,
        rows,
        coords: rank + 6,
        body,
    })
}

fn write_stmts(f: &mut fmt::Formatter<'_>, body: &[GStmt], depth: usize) -> fmt::Result {
    let pad = "  ".repeat(depth);
    for s in body {
        match s {
            GStmt::Launch { coord, value } => writeln!(f, "{pad}i{coord} = {value:?}")?,
            GStmt::SetCoord { coord, value } => writeln!(f, "{pad}i{coord} = {value}")?,
            GStmt::For {
                coord,
                start,
                end,
                step,
                body,
            } => {
                writeln!(f, "{pad}for i{coord} in {start}..{end} step {step} {{")?;
                write_stmts(f, body, depth + 1)?;
                writeln!(f, "{pad}}}")?;
            }
            GStmt::IfLess { lhs, rhs, body } => {
                writeln!(f, "{pad}if {lhs} < {rhs} {{")?;
                write_stmts(f, body, depth + 1)?;
                writeln!(f, "{pad}}}")?;
            }
            GStmt::Set { reg, value } => writeln!(f, "{pad}t{reg} = {value}")?,
            GStmt::SharedStore { at, value } => writeln!(f, "{pad}shared[{at}] = {value}")?,
            GStmt::Barrier => writeln!(f, "{pad}barrier")?,
            GStmt::ShuffleDown { reg, src, delta } => {
                writeln!(f, "{pad}t{reg} = shuffle_down(t{src}, {delta})")?
            }
            GStmt::Store {
                output,
                index,
                value,
            } => writeln!(f, "{pad}out{output}[{index}] = {value}")?,
        }
    }
    Ok(())
}

impl fmt::Display for GpuKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "gpu kernel {} block {} shared {} {{",
            self.kernel.name, self.block, self.shared
        )?;
        write_stmts(f, &self.body, 1)?;
        writeln!(f, "}}")
    }
}
