//! What ahead-of-time code (`kiln::network!`'s `forward`) calls at run time besides its own
//! kernels and `cpu::matmul`: library nodes on their native kernels, or their reference
//! kernels where they have none. Needs no LLVM.

use crate::{Error, Result};
use kiln_ops::native::{Native, NativeIo};
use kiln_ops::{DType, KernelCtx, OpDef, OpError, Tensor};

fn on_pool(n: usize, task: &(dyn Fn(usize) + Sync)) {
    crate::cpu::pool::global().run(n, task)
}

/// A native kernel on f32 buffers, split over the kernels' pool, with its working space.
pub(crate) fn run_native<'a>(
    native: &Native,
    ctx: &KernelCtx,
    (ins, in_shapes): (&'a [&'a [f32]], &'a [Vec<usize>]),
    outs: &'a mut [&'a mut [f32]],
    scratch: &'a mut [f64],
) -> std::result::Result<(), OpError> {
    let io = NativeIo {
        inputs: ins,
        in_shapes,
        outputs: outs,
        parallel: &on_pool,
        scratch,
    };
    (native.run)(ctx, io)
}

/// Runs `op` on f32 buffers: `ins` of `in_shapes` into `outs` (the context's output
/// shapes), split over the kernels' pool where the native kernel is.
pub fn run_node<'a>(
    op: &OpDef,
    ctx: &KernelCtx,
    ins: &'a [&'a [f32]],
    in_shapes: &'a [Vec<usize>],
    outs: &'a mut [&'a mut [f32]],
) -> Result<()> {
    let fail = |e: OpError| Error::Operator {
        op: op.name.to_string(),
        message: e.render(&[], &[]).to_string(),
    };
    if let Some(native) = op.native.filter(|n| (n.supports)(ctx.attrs, in_shapes)) {
        // Ahead-of-time code allocates its working space per call (it is not counted).
        let mut scratch = vec![0.0; (native.scratch)(ctx.attrs, in_shapes)];
        let mut outs: Vec<&mut [f32]> = outs.iter_mut().map(|o| &mut **o).collect();
        return run_native(&native, ctx, (ins, in_shapes), &mut outs, &mut scratch).map_err(fail);
    }
    let tensors: Vec<Tensor> = (ins.iter().zip(in_shapes))
        .map(|(data, shape)| {
            let values = data.iter().map(|&v| v as f64).collect();
            Tensor::new(DType::F32, shape.clone(), values)
        })
        .collect();
    let refs: Vec<&Tensor> = tensors.iter().collect();
    let values = kiln_ops::evaluate(op, ctx, &refs).map_err(fail)?;
    for (out, t) in outs.iter_mut().zip(&values) {
        for (o, v) in out.iter_mut().zip(&t.data) {
            *o = *v as f32;
        }
    }
    Ok(())
}

/// Tables of names and shapes (a network's `PARAMS` and `AUX`).
pub type Tables<'a> = [&'a [(&'a str, &'a [usize])]; 2];

/// Reads an MXNet `.params` file into parameter and aux values: keys `arg:name` and
/// `aux:name` (a checkpoint's) or bare names (Gluon's `save_parameters`); other keys are
/// ignored, as MXNet does. A missing array, or one of another shape, is an error naming it.
pub fn load_params(
    path: &std::path::Path,
    tables: Tables,
    values: [&mut [Vec<f32>]; 2],
) -> Result<()> {
    let file = kiln_compiler::formats::params::read_params(path)?;
    let named: Vec<(&str, &Tensor)> = file
        .named()
        .ok_or_else(|| Error::Input(format!("{}: holds no named arrays", path.display())))?
        .collect();
    for ((table, values), prefix) in tables.into_iter().zip(values).zip(["arg:", "aux:"]) {
        for ((name, shape), slot) in table.iter().zip(values.iter_mut()) {
            let found = named
                .iter()
                .find(|(k, _)| k.strip_prefix(prefix).unwrap_or(k) == *name);
            let Some((_, t)) = found else {
                return Err(Error::Input(format!(
                    "{}: no array `{prefix}{name}`",
                    path.display()
                )));
            };
            if t.shape != *shape {
                return Err(Error::Input(format!(
                    "{}: `{name}` has shape {:?}, the network's is {shape:?}",
                    path.display(),
                    t.shape
                )));
            }
            slot.clear();
            slot.extend(t.data.iter().map(|&v| v as f32));
        }
    }
    Ok(())
}

/// Writes parameter and aux values as an MXNet checkpoint's `.params` (`arg:` and `aux:`
/// keys, f32), which MXNet's `load_checkpoint` reads.
pub fn save_params(path: &std::path::Path, tables: Tables, values: [&[Vec<f32>]; 2]) -> Result<()> {
    let mut file = kiln_compiler::formats::params::ParamFile::default();
    for ((table, values), prefix) in tables.into_iter().zip(values).zip(["arg:", "aux:"]) {
        for ((name, shape), v) in table.iter().zip(values) {
            file.names.push(format!("{prefix}{name}"));
            let data = v.iter().map(|&x| x as f64).collect();
            file.arrays
                .push(Tensor::new(DType::F32, shape.to_vec(), data));
        }
    }
    Ok(kiln_compiler::formats::params::write_params(path, &file)?)
}

/// The bytes an ahead-of-time network holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryPlan {
    /// Parameters and aux states.
    pub parameters: usize,
    /// The inference arena (every intermediate value of `forward`).
    pub inference: usize,
    /// The training arena (inputs, forward values kept for backward, gradients).
    pub training: usize,
}
