//! Runs loop nests through the LLVM JIT on tensors: packs each tensor into its storage
//! dtype's bytes, calls the kernel, unpacks the outputs.

use kiln_compiler::kir::{interp, LoopNest};
use kiln_compiler::Tensor;
use kiln_llvm::Jit;
use std::sync::OnceLock;

/// One JIT for the whole test binary, without a disk cache.
pub fn jit() -> &'static Jit {
    static JIT: OnceLock<Jit> = OnceLock::new();
    JIT.get_or_init(|| Jit::new(None).unwrap())
}

/// 8-byte aligned storage for `len` elements of `dtype`, holding `values`.
fn pack(t: &Tensor) -> Vec<u64> {
    let mut bytes = Vec::new();
    for &v in &t.data {
        t.dtype.write(v, &mut bytes);
    }
    let mut words = vec![0u64; bytes.len().div_ceil(8).max(1)];
    // SAFETY: `words` holds at least `bytes.len()` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), words.as_mut_ptr().cast(), bytes.len())
    };
    words
}

pub fn run(
    nest: &LoopNest,
    inputs: &[&Tensor],
    dims: &[i64],
    shapes: &[Vec<usize>],
) -> Vec<Tensor> {
    run_on(jit(), nest, inputs, dims, shapes)
}

/// [`run`] with the kernel from `jit`.
pub fn run_on(
    jit: &Jit,
    nest: &LoopNest,
    inputs: &[&Tensor],
    dims: &[i64],
    shapes: &[Vec<usize>],
) -> Vec<Tensor> {
    let (kernel, _) = jit.compile(nest).unwrap_or_else(|e| panic!("{e}\n{nest}"));
    let mut ins: Vec<Vec<u64>> = inputs.iter().map(|t| pack(t)).collect();
    let mut outs: Vec<Tensor> = nest
        .outputs
        .iter()
        .zip(shapes)
        .map(|(b, s)| {
            let len = interp::extent(&b.len, dims).unwrap() as usize;
            assert_eq!(len, s.iter().product::<usize>(), "{nest}");
            Tensor::zeros(b.dtype, s.clone())
        })
        .collect();
    let mut out_words: Vec<Vec<u64>> = outs.iter().map(pack).collect();
    let ptrs: Vec<*mut u8> = ins
        .iter_mut()
        .chain(out_words.iter_mut())
        .map(|w| w.as_mut_ptr().cast())
        .collect();
    // SAFETY: every buffer holds its declared element count in its dtype.
    unsafe { kiln_runtime::backend::run(&*kernel, &ptrs, dims) }.unwrap();
    for (t, words) in outs.iter_mut().zip(&out_words) {
        let size = t.dtype.size();
        // SAFETY: the words hold `len * size` bytes.
        let bytes =
            unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), t.len() * size) };
        t.data = bytes.chunks(size).map(|c| t.dtype.read(c)).collect();
    }
    outs
}
