//! The multiply-add throughput of one core, for the peak products are measured against
//! ([`crate::machine::peak_fmas`]): independent chains of fused multiply-adds in the
//! product's vectors, written with the instructions themselves (a compiler left to
//! vectorize an array of accumulators keeps them in memory).

/// Chains at once: more than the FMA latency (4 cycles) times the pipes (2) hides.
const CHAINS: usize = 12;

/// Chains of a vector type's multiply-adds: `$fmadd` over `$vec` of `$lanes` lanes.
macro_rules! chains {
    ($name:ident, $features:literal, $vec:ident, $set1:ident, $fmadd:ident, $lanes:literal) => {
        /// Runs `iters` rounds of [`CHAINS`] multiply-adds; returns the lanes' count.
        ///
        /// # Safety
        /// The machine has the features (as the crate's `isa()` detected).
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        pub unsafe fn $name(iters: usize) -> usize {
            use std::arch::x86_64::*;
            let (x, y) = std::hint::black_box((0.5, 0.25));
            let (x, y) = ($set1(x), $set1(y));
            let mut acc: [$vec; CHAINS] = [$set1(0.0); CHAINS];
            for _ in 0..iters {
                for a in acc.iter_mut() {
                    *a = $fmadd(*a, x, y);
                }
            }
            std::hint::black_box(acc);
            iters * CHAINS * $lanes
        }
    };
}

chains!(
    f32_avx512_chains,
    "avx512f,fma",
    __m512,
    _mm512_set1_ps,
    _mm512_fmadd_ps,
    16
);
chains!(
    f64_avx512_chains,
    "avx512f,fma",
    __m512d,
    _mm512_set1_pd,
    _mm512_fmadd_pd,
    8
);
chains!(
    f32_avx2_chains,
    "avx2,fma",
    __m256,
    _mm256_set1_ps,
    _mm256_fmadd_ps,
    8
);
chains!(
    f64_avx2_chains,
    "avx2,fma",
    __m256d,
    _mm256_set1_pd,
    _mm256_fmadd_pd,
    4
);

/// The same in scalars, multiplied and added (the baseline has no FMA).
pub fn scalar_chains<T: crate::Real>(iters: usize) -> usize {
    let (x, y) = std::hint::black_box((T::default(), T::default()));
    let mut acc = [T::default(); CHAINS];
    for _ in 0..iters {
        for a in acc.iter_mut() {
            *a = *a * x + y;
        }
    }
    std::hint::black_box(acc);
    iters * CHAINS
}
