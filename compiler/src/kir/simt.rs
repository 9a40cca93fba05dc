//! A SIMT emulator, so every CUDA kernel's logic is checked against the oracle without a
//! GPU.
//!
//! - [`run`]: a [`Kernel`] under the element-wise schedule that
//!   [`cuda::render`](super::cuda::render) emits — a grid of `grid` blocks of `block`
//!   threads, each striding over the flattened domain and recovering its coordinates by
//!   division. Threads run one after another, exact for a schedule without shared memory.
//! - [`run_block`]: a [`GpuKernel`] (the block schedule of reductions), threads of a block
//!   in lockstep with barriers, shuffles and shared-memory race checks.
//!
//! Out-of-bounds accesses, two threads storing to one element, and elements no thread
//! stores are reported as errors.

use super::error::{Fault, KirError};
use super::gpu::{GStmt, GpuKernel, Launch};
use super::interp::{allocate_outputs, idx, val, Env};
use super::ir::{Idx, Kernel, Val};
use kiln_ops::Tensor;

/// Runs `k` on a `grid` × `block` launch with symbolic dimensions bound to `dims`.
pub fn run(
    k: &Kernel,
    grid: u32,
    block: u32,
    inputs: &[&Tensor],
    dims: &[i64],
    out_shapes: &[Vec<usize>],
) -> Result<Vec<Tensor>, KirError> {
    let fail = |at: Option<String>, fault| KirError::Run {
        kernel: k.name.clone(),
        at,
        fault,
    };
    if grid == 0 || block == 0 {
        return Err(fail(
            None,
            Fault::Invalid(format!("empty launch {grid} x {block}")),
        ));
    }
    let mut env = Env {
        coords: vec![0; k.domain.len()],
        temps: vec![0.0; k.temps.len()],
        ..Env::new(dims, inputs)
    };
    let mut outs = allocate_outputs(&k.outputs, &env, out_shapes).map_err(|f| fail(None, f))?;
    let extents = k
        .domain
        .iter()
        .map(|e| idx(e, &env))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|f| fail(None, f))?;
    let n: i64 = extents.iter().product();
    // The thread that stored each element, to report races and gaps.
    let mut writer: Vec<Option<(u32, u32)>> = vec![None; n.max(0) as usize];
    let stride = i64::from(grid) * i64::from(block);
    for b in 0..grid {
        for t in 0..block {
            let mut lin = i64::from(b) * i64::from(block) + i64::from(t);
            while lin < n {
                let mut rest = lin;
                for axis in (1..extents.len()).rev() {
                    env.coords[axis] = rest % extents[axis];
                    rest /= extents[axis];
                }
                if let Some(c) = env.coords.first_mut() {
                    *c = rest;
                }
                let at = |fault| fail(Some(format!("block {b} thread {t}, element {lin}")), fault);
                if let Some((b0, t0)) = writer[lin as usize].replace((b, t)) {
                    return Err(at(Fault::Race(format!(
                        "race: block {b0} thread {t0} stored it too"
                    ))));
                }
                for (t, v) in k.temps.iter().enumerate() {
                    env.temps[t] = val(v, &env).map_err(at)?;
                }
                for (o, v) in k.values.iter().enumerate() {
                    let x = val(v, &env).map_err(at)?;
                    let out = &mut outs[o];
                    let len = out.data.len();
                    let slot = out.data.get_mut(lin as usize).ok_or_else(|| {
                        at(Fault::OutOfBounds {
                            access: format!("out{o}[{lin}]"),
                            len,
                        })
                    })?;
                    *slot = out.dtype.round(x);
                }
                lin += stride;
            }
        }
    }
    if let Some(gap) = writer.iter().position(Option::is_none) {
        return Err(fail(
            None,
            Fault::Unstored {
                launch: format!("{grid} x {block}"),
                element: format!("element {gap}"),
            },
        ));
    }
    Ok(outs)
}

/// A fault, with where in the block it happened (`block 0 thread 3`).
type Located = (String, Fault);

/// One block's state: each thread's coordinates and registers, the shared array, and
/// who wrote and read each shared slot in the current barrier interval (`epoch`).
struct Block<'a> {
    index: u32,
    grid: u32,
    coords: Vec<Vec<i64>>,
    regs: Vec<Vec<f64>>,
    shared: Vec<f64>,
    wrote: Vec<Option<(usize, u64)>>,
    read: Vec<(u64, Vec<usize>)>,
    epoch: u64,
    dims: &'a [i64],
    inputs: &'a [&'a Tensor],
}

impl Block<'_> {
    /// Runs `f` with thread `t`'s environment.
    fn with_env<R>(&mut self, t: usize, f: impl FnOnce(&Env) -> R) -> R {
        let env = Env {
            coords: std::mem::take(&mut self.coords[t]),
            temps: std::mem::take(&mut self.regs[t]),
            red: vec![],
            locals: vec![],
            dims: self.dims,
            inputs: self.inputs,
            shared: &self.shared,
        };
        let r = f(&env);
        self.coords[t] = env.coords;
        self.regs[t] = env.temps;
        r
    }

    /// `fault` in thread `t`.
    fn at(&self, t: usize, fault: Fault) -> Located {
        (format!("block {} thread {t}", self.index), fault)
    }

    /// Evaluates `v` for thread `t`, first checking its shared reads for races.
    fn value(&mut self, t: usize, v: &Val) -> Result<f64, Located> {
        let mut slots = Vec::new();
        shared_reads(v, &mut slots);
        for i in slots {
            let s = self
                .with_env(t, |env| idx(&i, env))
                .map_err(|e| self.at(t, e))?;
            let s = usize::try_from(s)
                .ok()
                .filter(|&s| s < self.shared.len())
                .ok_or_else(|| {
                    self.at(
                        t,
                        Fault::OutOfBounds {
                            access: format!("shared[{s}]"),
                            len: self.shared.len(),
                        },
                    )
                })?;
            if let Some((w, e)) = self.wrote[s] {
                if e == self.epoch && w != t {
                    return Err(self.at(
                        t,
                        Fault::Race(format!("shared-memory race: reads shared[{s}], which thread {w} wrote since the last barrier")),
                    ));
                }
            }
            let epoch = self.epoch;
            let (e, readers) = &mut self.read[s];
            if *e != epoch {
                *e = epoch;
                readers.clear();
            }
            readers.push(t);
        }
        self.with_env(t, |env| val(v, env))
            .map_err(|e| self.at(t, e))
    }

    fn index(&mut self, t: usize, i: &Idx) -> Result<i64, Located> {
        self.with_env(t, |env| idx(i, env))
            .map_err(|e| self.at(t, e))
    }
}

fn shared_reads(v: &Val, out: &mut Vec<Idx>) {
    v.any(&mut |x| {
        if let Val::Shared(i) = x {
            out.push(i.clone());
        }
        false
    });
}

/// Where each output element was stored from, to report double stores and gaps.
type Writers = Vec<Vec<Option<(u32, usize)>>>;

fn exec(
    body: &[GStmt],
    active: &[usize],
    b: &mut Block,
    outs: &mut [Tensor],
    writers: &mut Writers,
    block_size: usize,
) -> Result<(), Located> {
    for s in body {
        match s {
            GStmt::Launch { coord, value } => {
                for &t in active {
                    b.coords[t][*coord] = match value {
                        Launch::Thread => t as i64,
                        Launch::Block => i64::from(b.index),
                        Launch::Blocks => i64::from(b.grid),
                    };
                }
            }
            GStmt::SetCoord { coord, value } => {
                for &t in active {
                    let v = b.index(t, value)?;
                    b.coords[t][*coord] = v;
                }
            }
            GStmt::Set { reg, value } => {
                for &t in active {
                    let v = b.value(t, value)?;
                    b.regs[t][*reg] = v;
                }
            }
            GStmt::For {
                coord,
                start,
                end,
                step,
                body,
            } => {
                for &t in active {
                    let v = b.index(t, start)?;
                    b.coords[t][*coord] = v;
                }
                loop {
                    let mut running = Vec::new();
                    for &t in active {
                        if b.coords[t][*coord] < b.index(t, end)? {
                            running.push(t);
                        }
                    }
                    if running.is_empty() {
                        break;
                    }
                    exec(body, &running, b, outs, writers, block_size)?;
                    for &t in &running {
                        let d = b.index(t, step)?;
                        if d <= 0 {
                            return Err(b.at(t, Fault::Invalid(format!("loop step {d}"))));
                        }
                        b.coords[t][*coord] += d;
                    }
                }
            }
            GStmt::IfLess { lhs, rhs, body } => {
                let mut taken = Vec::new();
                for &t in active {
                    if b.index(t, lhs)? < b.index(t, rhs)? {
                        taken.push(t);
                    }
                }
                exec(body, &taken, b, outs, writers, block_size)?;
            }
            GStmt::SharedStore { at, value } => {
                for &t in active {
                    let s = b.index(t, at)?;
                    let v = b.value(t, value)?;
                    let s = usize::try_from(s)
                        .ok()
                        .filter(|&s| s < b.shared.len())
                        .ok_or_else(|| {
                            b.at(
                                t,
                                Fault::OutOfBounds {
                                    access: format!("shared[{s}]"),
                                    len: b.shared.len(),
                                },
                            )
                        })?;
                    let race = match b.wrote[s] {
                        Some((w, e)) if e == b.epoch && w != t => {
                            Some(format!("thread {w} wrote it"))
                        }
                        _ => {
                            let (e, readers) = &b.read[s];
                            readers
                                .iter()
                                .find(|&&r| *e == b.epoch && r != t)
                                .map(|r| format!("thread {r} read it"))
                        }
                    };
                    if let Some(who) = race {
                        return Err(b.at(
                            t,
                            Fault::Race(format!("shared-memory race: writes shared[{s}], but {who} since the last barrier")),
                        ));
                    }
                    b.shared[s] = v;
                    b.wrote[s] = Some((t, b.epoch));
                }
            }
            GStmt::Barrier => {
                if active.len() != block_size {
                    return Err((
                        format!("block {}", b.index),
                        Fault::Invalid(format!(
                            "a barrier reached by {} of {block_size} threads",
                            active.len()
                        )),
                    ));
                }
                b.epoch += 1;
            }
            GStmt::ShuffleDown { reg, src, delta } => {
                let warp_full = active.chunks(32).all(|w| {
                    w.len() == 32 && w[0] % 32 == 0 && w.windows(2).all(|p| p[1] == p[0] + 1)
                });
                if !warp_full {
                    return Err((
                        format!("block {}", b.index),
                        Fault::Invalid(format!(
                            "a shuffle with inactive lanes (threads {active:?})"
                        )),
                    ));
                }
                let moved: Vec<f64> = active
                    .iter()
                    .map(|&t| {
                        let from = if t % 32 + (*delta as usize) < 32 {
                            t + *delta as usize
                        } else {
                            t
                        };
                        b.regs[from][*src]
                    })
                    .collect();
                for (&t, v) in active.iter().zip(moved) {
                    b.regs[t][*reg] = v;
                }
            }
            GStmt::Store {
                output,
                index,
                value,
            } => {
                for &t in active {
                    let i = b.index(t, index)?;
                    let v = b.value(t, value)?;
                    let out = &mut outs[*output];
                    let slot = usize::try_from(i)
                        .ok()
                        .filter(|&i| i < out.data.len())
                        .ok_or_else(|| {
                            b.at(
                                t,
                                Fault::OutOfBounds {
                                    access: format!("out{output}[{i}]"),
                                    len: out.data.len(),
                                },
                            )
                        })?;
                    if let Some((b0, t0)) = writers[*output][slot].replace((b.index, t)) {
                        return Err(b.at(
                            t,
                            Fault::Race(format!("race: out{output}[{slot}] was stored by block {b0} thread {t0} too")),
                        ));
                    }
                    out.data[slot] = out.dtype.round(v);
                }
            }
        }
    }
    Ok(())
}

/// Runs a block-scheduled kernel on `grid` blocks: the threads of a block in lockstep,
/// statement by statement, so shuffles see their lanes' registers; shared-memory reads
/// and writes that meet another thread's write (or a write another thread's read) since
/// the last barrier are races. Out-of-bounds accesses, divergent barriers and shuffles,
/// double stores and elements no thread stores are errors.
pub fn run_block(
    gk: &GpuKernel,
    grid: u32,
    inputs: &[&Tensor],
    dims: &[i64],
    out_shapes: &[Vec<usize>],
) -> Result<Vec<Tensor>, KirError> {
    let k = &gk.kernel;
    let fail = |at: Option<String>, fault| KirError::Run {
        kernel: k.name.clone(),
        at,
        fault,
    };
    let mut outs = allocate_outputs(&k.outputs, &Env::new(dims, inputs), out_shapes)
        .map_err(|f| fail(None, f))?;
    let mut writers: Writers = outs.iter().map(|o| vec![None; o.data.len()]).collect();
    let threads = gk.block as usize;
    let all: Vec<usize> = (0..threads).collect();
    for index in 0..grid {
        let mut b = Block {
            index,
            grid,
            coords: vec![vec![0; gk.coords]; threads],
            regs: vec![vec![f64::NAN; gk.registers]; threads],
            shared: vec![f64::NAN; gk.shared],
            wrote: vec![None; gk.shared],
            read: vec![(u64::MAX, vec![]); gk.shared],
            epoch: 0,
            dims,
            inputs,
        };
        exec(&gk.body, &all, &mut b, &mut outs, &mut writers, threads)
            .map_err(|(at, fault)| fail(Some(at), fault))?;
    }
    for (o, w) in writers.iter().enumerate() {
        if let Some(gap) = w.iter().position(Option::is_none) {
            return Err(fail(
                None,
                Fault::Unstored {
                    launch: format!("{grid}-block"),
                    element: format!("out{o}[{gap}]"),
                },
            ));
        }
    }
    Ok(outs)
}
