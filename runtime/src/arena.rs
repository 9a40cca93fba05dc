//! An executor's memory: every entry its units write, placed in one arena.
//!
//! The plan follows the units in the order the executor pushes them (one step each):
//! an entry lives from the unit writing it to the last unit reading it. An output takes a
//! dying input's place when its unit can overwrite it — a node's reference kernel reads
//! all its inputs before writing, a compiled kernel only when its IR reads that input at
//! the point it stores ([`Kernel::may_overwrite`]) — and the rest share memory by
//! lifetime, placed best-fit by [`assign_offsets`], the planner's own placement. Sizes
//! are rounded to 64 bytes, so every entry is aligned for the widest vectors.
//!
//! The graph's heads (outputs, gradients and new aux values, copied out by the executor)
//! get arrays of their own, so callers can hold them across steps. All arena entries are
//! views of one engine variable: the engine keeps the operations touching the arena in
//! push order, which is the order the reuse was planned for.
//!
//! [`Kernel::may_overwrite`]: kiln_compiler::kir::Kernel::may_overwrite

use crate::device::Device;
use crate::ndarray::NDArray;
use crate::units::Unit;
use kiln_compiler::infer::Inferred;
use kiln_compiler::plan::{assign_offsets, Buffer};
use kiln_compiler::{Entry, Graph, Result};
use kiln_ops::shape::size;
use kiln_ops::DType;
use std::collections::{HashMap, HashSet};

const ALIGN: usize = 64;

/// The arrays of the entries `units` write, and the arena's size in bytes.
pub(crate) struct Placement {
    pub arrays: HashMap<Entry, NDArray>,
    pub arena_bytes: usize,
    /// Bytes of the heads' own arrays.
    pub separate_bytes: usize,
}

fn dtype(inferred: &Inferred, e: Entry) -> DType {
    inferred.dtype(e).unwrap_or(DType::F32)
}

/// Whether unit `u` may write its output `out` over its input `input`.
#[cfg_attr(not(feature = "llvm"), allow(unused_variables))]
fn overwrites(unit: &Unit, input: Entry, out: Entry) -> bool {
    match unit {
        Unit::Node(_) => true,
        #[cfg(feature = "llvm")]
        Unit::Kernel(k) => {
            let i = k.inputs.iter().position(|&e| e == input);
            let o = k.outputs.iter().position(|&e| e == out);
            matches!((i, o), (Some(i), Some(o)) if k.ir.may_overwrite(i, o))
        }
        // gemm and the native kernels read their inputs while they write their outputs.
        #[cfg(feature = "llvm")]
        Unit::MatMul(_) | Unit::Native(_) => false,
    }
}

pub(crate) fn place(
    g: &Graph,
    inferred: &Inferred,
    units: &[Unit],
    device: Device,
) -> Result<Placement> {
    let heads: HashSet<Entry> = g.heads.iter().copied().collect();
    let bytes_of = |e: Entry| {
        (size(inferred.shape(e)) * dtype(inferred, e).size())
            .div_ceil(ALIGN)
            .max(1)
            * ALIGN
    };
    let inputs: Vec<Vec<Entry>> = units.iter().map(|u| u.inputs(g)).collect();
    let mut last_read: HashMap<Entry, usize> = HashMap::new();
    for (step, ins) in inputs.iter().enumerate() {
        for &e in ins {
            last_read.insert(e, step);
        }
    }
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut holder: HashMap<Entry, usize> = HashMap::new();
    let mut separate = Vec::new();
    for (step, unit) in units.iter().enumerate() {
        // A buffer taken over in this step cannot be taken twice.
        let mut taken: HashSet<usize> = HashSet::new();
        for out in unit.outputs(inferred) {
            if heads.contains(&out) {
                separate.push(out);
                continue;
            }
            let (bytes, end) = (bytes_of(out), last_read.get(&out).copied().unwrap_or(step));
            let reuse = inputs[step].iter().find_map(|&i| {
                let b = *holder.get(&i)?;
                (buffers[b].end == step
                    && buffers[b].bytes == bytes
                    && !taken.contains(&b)
                    && overwrites(unit, i, out))
                .then_some(b)
            });
            let b = match reuse {
                Some(b) => {
                    buffers[b].entries.push(out);
                    buffers[b].end = end;
                    b
                }
                None => {
                    buffers.push(Buffer {
                        entries: vec![out],
                        workspace_of: None,
                        bytes,
                        start: step,
                        end,
                        offset: 0,
                    });
                    buffers.len() - 1
                }
            };
            taken.insert(b);
            holder.insert(out, b);
        }
    }
    let arena_bytes = assign_offsets(&mut buffers);
    let arena = NDArray::arena(arena_bytes.max(ALIGN), device)?;
    let mut arrays = HashMap::new();
    for b in &buffers {
        for &e in &b.entries {
            arrays.insert(
                e,
                arena.arena_view(b.offset, inferred.shape(e), dtype(inferred, e))?,
            );
        }
    }
    let mut separate_bytes = 0;
    for e in separate {
        let a = NDArray::uninit_for_executor(inferred.shape(e), dtype(inferred, e), device)?;
        separate_bytes += a.len() * a.dtype().size();
        arrays.insert(e, a);
    }
    Ok(Placement {
        arrays,
        arena_bytes,
        separate_bytes,
    })
}
