//! Streaming stores: a kernel whose outputs exceed the last-level cache writes them with
//! non-temporal stores, which skip reading each line before writing it (a third of an
//! element-wise kernel's memory traffic) and leave the caches to data that is read again.
//! An output that large will not be found in the cache by its consumer anyway.
//!
//! Only kernels that write their outputs in order qualify — loops over the domain's axes
//! outermost first, each output stored at the domain point's row-major position — so each
//! thread's stores fill whole lines, which the write-combining buffers send out at once.
//! LLVM's vectorizer refuses non-temporal stores it cannot prove aligned, so the stores
//! are marked after it has run: the vector stores of the optimized kernel.

use inkwell::module::Module;
use inkwell::values::InstructionOpcode;
use kiln_compiler::kir::{interp, Idx, LoopNest, Stmt};

/// Whether `nest`, run with `dims` (its symbolic dimensions, as the caller binds them; a
/// size they do not fix counts as small), writes its outputs with streaming stores where
/// the last-level cache holds `threshold` bytes (`None`: unknown, never).
pub(crate) fn streams(nest: &LoopNest, dims: &[i64], threshold: Option<usize>) -> bool {
    let Some(threshold) = threshold else {
        return false;
    };
    let bytes = nest.outputs.iter().try_fold(0usize, |sum, b| {
        let len = interp::extent(&b.len, dims).ok()?;
        Some(sum + usize::try_from(len).ok()? * b.dtype.size())
    });
    bytes.is_some_and(|b| b >= threshold) && in_order(nest)
}

/// Whether the nest is loops over axes 0, 1, ... in that order (temporaries bound
/// between them) around stores at the row-major position of the domain point.
fn in_order(nest: &LoopNest) -> bool {
    let mut body = nest.body.as_slice();
    let mut linear = Idx::Const(0);
    let mut depth = 0;
    loop {
        let mut loops = body.iter().filter(|s| matches!(s, Stmt::Loop { .. }));
        match (loops.next(), loops.next()) {
            (
                Some(Stmt::Loop {
                    axis,
                    extent,
                    body: inner,
                    ..
                }),
                None,
            ) if *axis == depth => {
                linear = linear * extent.clone() + Idx::Coord(*axis);
                depth += 1;
                body = inner;
            }
            (None, _) if depth > 0 => {
                return body.iter().all(|s| match s {
                    Stmt::Store { index, .. } => *index == linear,
                    _ => true,
                })
            }
            _ => return false,
        }
    }
}

/// Marks every vector store of `module` non-temporal; returns how many.
pub(crate) fn mark_stores(module: &Module) -> usize {
    let ctx = module.get_context();
    let kind = ctx.get_kind_id("nontemporal");
    let one = ctx.metadata_node(&[ctx.i32_type().const_int(1, false).into()]);
    let mut marked = 0;
    for f in module.get_functions() {
        for block in f.get_basic_blocks() {
            let mut next = block.get_first_instruction();
            while let Some(i) = next {
                let stored = (i.get_opcode() == InstructionOpcode::Store)
                    .then(|| i.get_operand(0).and_then(|o| o.value()))
                    .flatten();
                if stored.is_some_and(|v| v.is_vector_value()) && i.set_metadata(one, kind).is_ok()
                {
                    marked += 1;
                }
                next = i.get_next_instruction();
            }
        }
    }
    marked
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_compiler::kir::parse_nest;

    const W1: &str =
        "kernel w1(a: float32[4096], b: float32[4096]) -> (y: float32[4096]) compute float32 {
  for i0 in 0..4096 (Parallel) {
    out0[i0] = add(mul(in0[i0], in1[i0]), 1.0)
  }
}";

    #[test]
    fn large_outputs_written_in_order_stream() {
        let w1 = parse_nest(W1).unwrap();
        assert!(streams(&w1, &[], Some(16 << 10)));
        assert!(!streams(&w1, &[], Some(1 << 20)), "smaller than the cache");
        assert!(!streams(&w1, &[], None), "no cache size known");
        let pack = parse_nest(
            "kernel p(x: float32[96]) -> (y: float32[96]) compute float32 {
  for i0 in 0..4 (Parallel) {
    for i1 in 0..3 (Serial) {
      for i2 in 0..8 (Serial) {
        out0[((i0*3 + i1)*8 + i2)] = in0[((i0*8 + i2)*3 + i1)]
      }
    }
  }
}",
        )
        .unwrap();
        assert!(streams(&pack, &[], Some(1)));
        let transposed = parse_nest(
            "kernel t(x: float32[96]) -> (y: float32[96]) compute float32 {
  for i0 in 0..4 (Parallel) {
    for i1 in 0..24 (Serial) {
      out0[(i1*4 + i0)] = in0[(i0*24 + i1)]
    }
  }
}",
        )
        .unwrap();
        assert!(!streams(&transposed, &[], Some(1)), "stores out of order");
    }

    #[test]
    fn a_streaming_kernel_computes_what_a_plain_one_does() {
        let nest = parse_nest(W1).unwrap();
        let n = 4096;
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
        let b: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
        let mut outputs = Vec::new();
        for threshold in [Some(1), None] {
            let jit = crate::Jit::new(None).unwrap().with_streaming(threshold);
            let (kernel, _) = jit.compile(&nest).unwrap();
            assert_eq!(kernel.streams(), threshold.is_some());
            let mut y = vec![0f32; n];
            let buffers = [
                a.as_ptr() as *mut u8,
                b.as_ptr() as *mut u8,
                y.as_mut_ptr().cast(),
            ];
            // SAFETY: three buffers of n f32, as the kernel declares; rows split unevenly
            // so that a range starts off a vector boundary.
            unsafe {
                kernel.run_range(&buffers, &[], 0, 3);
                kernel.run_range(&buffers, &[], 3, n as i64);
            }
            outputs.push(y);
        }
        let want: Vec<f32> = a.iter().zip(&b).map(|(a, b)| a * b + 1.0).collect();
        assert_eq!(outputs[0], outputs[1]);
        for (got, want) in outputs[0].iter().zip(&want) {
            assert!(
                (got - want).abs() <= 1e-6 * want.abs().max(1.0),
                "{got} {want}"
            );
        }
    }
}
