//! An executor's memory, as its program's layout says: one arena holding every value
//! placed in it and every step's workspace, and arrays of their own for the values placed
//! beside it (graph outputs, heads a store copies from). Nothing is planned here.
//!
//! All arena views are one engine variable: the engine runs the operations touching the
//! arena in push order, which is the order the layout's reuse was planned for.

use crate::device::Device;
use crate::ndarray::NDArray;
use crate::Result;
use kiln_compiler::program::{Place, Program, ALIGN};
use kiln_compiler::Entry;
use kiln_ops::DType;
use std::collections::HashMap;

/// The arrays of a program's values and workspace.
pub(crate) struct Placement {
    /// Values placed in the arena or on arrays of their own (gradients computed in place
    /// are the caller's arrays: not here).
    pub arrays: HashMap<Entry, NDArray>,
    /// Each step's workspace buffers, as byte views of the arena (only products have
    /// workspace, and only the JIT runs products).
    pub workspace: Vec<Vec<NDArray>>,
    pub arena: NDArray,
    /// Bytes of the arrays allocated for values placed on their own that are not graph
    /// outputs.
    pub own_bytes: usize,
}

/// Places `program`'s values: in `arena` where it is given and large enough (another
/// program of the same executor, never run at the same time: the engine orders them), else
/// in a new one; graph outputs on `outputs` where given.
pub(crate) fn place(
    program: &Program,
    device: Device,
    arena: Option<&NDArray>,
    outputs: Option<&[NDArray]>,
) -> Result<Placement> {
    let (g, inferred, layout) = (program.graph(), &program.inferred, &program.layout);
    let arena = match arena {
        Some(a) if a.nbytes() >= layout.arena_bytes => a.clone(),
        _ => NDArray::arena(layout.arena_bytes.max(ALIGN), device)
            .map_err(|e| e.allocating("the program's arena"))?,
    };
    let num_outputs = program.training.num_outputs;
    let mut arrays = HashMap::new();
    if let Some(given) = outputs {
        for (e, a) in g.heads[..num_outputs].iter().zip(given) {
            arrays.insert(*e, a.clone());
        }
    }
    let mut own_bytes = 0;
    for (&e, place) in &layout.places {
        let (shape, dtype) = (inferred.shape(e), inferred.dtype(e).unwrap_or(DType::F32));
        match place {
            Place::Arena(offset) => {
                arrays.insert(e, arena.arena_view(*offset, shape, dtype)?);
            }
            Place::Own if !arrays.contains_key(&e) => {
                let a = NDArray::uninit_for_executor(shape, dtype, device)?;
                if !g.heads[..num_outputs].contains(&e) {
                    own_bytes += a.nbytes();
                }
                arrays.insert(e, a);
            }
            Place::Own | Place::Gradient(_) => {}
        }
    }
    let workspace = (layout.workspace.iter())
        .map(|buffers| {
            (buffers.iter())
                .map(|&(offset, bytes)| arena.arena_view(offset, &[bytes], DType::U8))
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Placement {
        arrays,
        workspace,
        arena,
        own_bytes,
    })
}
