//! What ahead-of-time code (`kiln::network!`'s `forward`) calls at run time besides its own
//! kernels and `cpu::matmul`: library nodes on their native kernels, or their reference
//! kernels where they have none. Needs no LLVM.

use kiln_compiler::{Error, Result};
use kiln_ops::native::NativeIo;
use kiln_ops::{DType, KernelCtx, OpDef, OpError, Tensor};

fn on_pool(n: usize, task: &(dyn Fn(usize) + Sync)) {
    crate::cpu::pool::global().run(n, task)
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
    let fail = |e: OpError| Error::Input(format!("{}: {}", op.name, e.render(&[], &[])));
    if let Some(native) = op.native.filter(|n| (n.supports)(ctx.attrs, in_shapes)) {
        let io = NativeIo {
            inputs: ins,
            in_shapes,
            outputs: outs,
            parallel: &on_pool,
        };
        return (native.run)(ctx, io).map_err(fail);
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
