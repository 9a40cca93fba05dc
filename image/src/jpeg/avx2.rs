//! The ISLOW DCTs and the encoder's quantizer in AVX2: the portable butterflies
//! ([`super::idct::transform`], [`super::fdct::pass`]) on one 256-bit register per eight
//! lanes, with register transposes, widening loads and saturating packs around them.
//! Bit-exact with the portable forms — the same wrapping operations in the same order
//! (tests compare them on random and extreme blocks). LLVM's own vectorization of the
//! portable forms leaves the transposes and many products scalar.

use std::arch::x86_64::*;

use super::dct::{Vector, CONST_BITS, PASS1_BITS};
use super::fdct::{pass, Quantizer};
use super::idct::transform;

/// Whether the CPU has what the `avx2` paths are compiled for: AVX2, and the bit
/// instructions of the same generation (BMI1, BMI2, LZCNT) for the entropy coders.
pub fn detected() -> bool {
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
}

/// Eight `i32` lanes in a register. Only functions compiled with AVX2 make one, so its
/// operations run where the CPU has AVX2.
#[derive(Clone, Copy)]
pub struct Avx2(__m256i);

impl std::ops::Add for Avx2 {
    type Output = Avx2;
    #[inline(always)]
    fn add(self, other: Avx2) -> Avx2 {
        // SAFETY: an `Avx2` exists only where the CPU has AVX2 (see the type).
        Avx2(unsafe { _mm256_add_epi32(self.0, other.0) })
    }
}

impl std::ops::Sub for Avx2 {
    type Output = Avx2;
    #[inline(always)]
    fn sub(self, other: Avx2) -> Avx2 {
        // SAFETY: as in `add`.
        Avx2(unsafe { _mm256_sub_epi32(self.0, other.0) })
    }
}

impl std::ops::Mul<i32> for Avx2 {
    type Output = Avx2;
    #[inline(always)]
    fn mul(self, c: i32) -> Avx2 {
        // SAFETY: as in `add`.
        Avx2(unsafe { _mm256_mullo_epi32(self.0, _mm256_set1_epi32(c)) })
    }
}

impl Vector for Avx2 {
    #[inline(always)]
    fn shl(self, n: u32) -> Avx2 {
        // SAFETY: as in `add`.
        Avx2(unsafe { _mm256_sll_epi32(self.0, _mm_cvtsi32_si128(n as i32)) })
    }

    #[inline(always)]
    fn descale(self, n: u32) -> Avx2 {
        // SAFETY: as in `add`.
        Avx2(unsafe {
            let rounded = _mm256_add_epi32(self.0, _mm256_set1_epi32(1 << (n - 1)));
            _mm256_sra_epi32(rounded, _mm_cvtsi32_si128(n as i32))
        })
    }
}

/// Rows become columns: lane `j` of output `i` is lane `i` of input `j`.
#[target_feature(enable = "avx2")]
#[inline]
fn transpose(v: &[Avx2; 8]) -> [Avx2; 8] {
    let [r0, r1, r2, r3, r4, r5, r6, r7] = v.map(|r| r.0);
    // Pairs of rows interleaved by lane, then by lane pair, then halves exchanged.
    let (t0, t1) = (_mm256_unpacklo_epi32(r0, r1), _mm256_unpackhi_epi32(r0, r1));
    let (t2, t3) = (_mm256_unpacklo_epi32(r2, r3), _mm256_unpackhi_epi32(r2, r3));
    let (t4, t5) = (_mm256_unpacklo_epi32(r4, r5), _mm256_unpackhi_epi32(r4, r5));
    let (t6, t7) = (_mm256_unpacklo_epi32(r6, r7), _mm256_unpackhi_epi32(r6, r7));
    let (u0, u1) = (_mm256_unpacklo_epi64(t0, t2), _mm256_unpackhi_epi64(t0, t2));
    let (u2, u3) = (_mm256_unpacklo_epi64(t1, t3), _mm256_unpackhi_epi64(t1, t3));
    let (u4, u5) = (_mm256_unpacklo_epi64(t4, t6), _mm256_unpackhi_epi64(t4, t6));
    let (u6, u7) = (_mm256_unpacklo_epi64(t5, t7), _mm256_unpackhi_epi64(t5, t7));
    [
        _mm256_permute2x128_si256::<0x20>(u0, u4),
        _mm256_permute2x128_si256::<0x20>(u1, u5),
        _mm256_permute2x128_si256::<0x20>(u2, u6),
        _mm256_permute2x128_si256::<0x20>(u3, u7),
        _mm256_permute2x128_si256::<0x31>(u0, u4),
        _mm256_permute2x128_si256::<0x31>(u1, u5),
        _mm256_permute2x128_si256::<0x31>(u2, u6),
        _mm256_permute2x128_si256::<0x31>(u3, u7),
    ]
    .map(Avx2)
}

/// [`super::idct::idct_islow`].
#[target_feature(enable = "avx2")]
#[inline]
pub fn idct_islow(coef: &[i16; 64], quant: &[u16; 64], out: &mut [u8], stride: usize) {
    if super::idct::flat(coef, quant, out, stride) {
        return;
    }
    let input: [Avx2; 8] = std::array::from_fn(|row| {
        let (c, q) = (&coef[row * 8..row * 8 + 8], &quant[row * 8..row * 8 + 8]);
        // SAFETY: `c` and `q` are eight 16-bit values, the 16 bytes each load reads.
        let (c, q) = unsafe {
            (
                _mm_loadu_si128(c.as_ptr().cast()),
                _mm_loadu_si128(q.as_ptr().cast()),
            )
        };
        Avx2(_mm256_mullo_epi32(
            _mm256_cvtepi16_epi32(c),
            _mm256_cvtepu16_epi32(q),
        ))
    });
    let work = transform(&input).map(|v| v.descale(CONST_BITS - PASS1_BITS));
    let rows = transpose(&transform(&transpose(&work)));
    for (row, v) in rows.iter().enumerate() {
        // The portable `range_limit`: the low 10 bits shifted, then clamped by the packs.
        let v = v.descale(CONST_BITS + PASS1_BITS + 3).0;
        let v = _mm256_and_si256(
            _mm256_add_epi32(v, _mm256_set1_epi32(512)),
            _mm256_set1_epi32(1023),
        );
        let v = _mm256_sub_epi32(v, _mm256_set1_epi32(384));
        let words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        let bytes = _mm_packus_epi16(words, words);
        out[row * stride..row * stride + 8]
            .copy_from_slice(&(_mm_cvtsi128_si64(bytes) as u64).to_le_bytes());
    }
}

/// [`super::fdct::fdct_islow`] and [`Quantizer::quantize`] in one: a block of samples
/// to quantized coefficients in natural order.
#[target_feature(enable = "avx2")]
#[inline]
pub fn fdct_quantize(samples: &[[u8; 8]; 8], quantizer: &Quantizer) -> [i16; 64] {
    let rows: [Avx2; 8] = samples.map(|row| {
        let wide = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(i64::from_le_bytes(row)));
        Avx2(_mm256_sub_epi32(wide, _mm256_set1_epi32(128)))
    });
    let columns = pass(
        &transpose(&rows),
        |x| x.shl(PASS1_BITS),
        CONST_BITS - PASS1_BITS,
    );
    let out = pass(
        &transpose(&columns),
        |x| x.descale(PASS1_BITS),
        CONST_BITS + PASS1_BITS,
    );
    let load = |table: &[u32; 64], row: usize| {
        // SAFETY: eight `u32` of the table, the 32 bytes the load reads.
        unsafe { _mm256_loadu_si256(table[row * 8..row * 8 + 8].as_ptr().cast()) }
    };
    let quantized: [__m256i; 8] = std::array::from_fn(|row| {
        let x = out[row].0;
        let magnitude = _mm256_add_epi32(_mm256_abs_epi32(x), load(&quantizer.correction, row));
        let q = _mm256_srlv_epi32(
            _mm256_mullo_epi32(magnitude, load(&quantizer.reciprocal, row)),
            load(&quantizer.shift, row),
        );
        // The sign put back (zero stays zero: a zero coefficient quantizes to zero).
        _mm256_sign_epi32(q, x)
    });
    let mut block = [0i16; 64];
    for (pair, rows) in block.chunks_exact_mut(16).zip(quantized.chunks_exact(2)) {
        // Quantized values lie within ±2^10 (coefficients of 8-bit samples within ±2^13,
        // divisors at least 8), so the saturating pack keeps them as `as i16` does.
        let packed = _mm256_permute4x64_epi64::<0xD8>(_mm256_packs_epi32(rows[0], rows[1]));
        // SAFETY: a register and sixteen `i16` have the same size, and every bit
        // pattern is a valid `i16`.
        let words: [i16; 16] = unsafe { std::mem::transmute(packed) };
        pair.copy_from_slice(&words);
    }
    block
}

#[cfg(test)]
mod tests {
    use super::super::{fdct, idct};
    use super::Quantizer;

    /// A linear congruential stream, so that the blocks are the same on every run.
    struct Stream(u64);

    impl Stream {
        fn next(&mut self) -> u32 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (self.0 >> 33) as u32
        }
    }

    #[test]
    fn the_avx2_idct_equals_the_portable_one() {
        if !std::is_x86_feature_detected!("avx2") {
            eprintln!("skipped: the CPU lacks AVX2");
            return;
        }
        let mut stream = Stream(7);
        // Small coefficients as in real images, full-range ones (libjpeg's wrapping and
        // range limit on damaged data), and DC-only blocks (the flat shortcut).
        for case in 0..3000 {
            let coef: [i16; 64] = std::array::from_fn(|k| match case % 3 {
                0 => (stream.next() % 64) as i16 - 32,
                1 => stream.next() as i16,
                _ if k == 0 => stream.next() as i16,
                _ => 0,
            });
            let quant: [u16; 64] = std::array::from_fn(|_| match case % 3 {
                1 => stream.next() as u16,
                _ => 1 + (stream.next() % 255) as u16,
            });
            let (mut portable, mut vector) = ([0u8; 80], [0u8; 80]);
            idct::idct_islow(&coef, &quant, &mut portable, 9);
            // SAFETY: the CPU has AVX2 (checked above).
            unsafe { super::idct_islow(&coef, &quant, &mut vector, 9) };
            assert_eq!(portable, vector, "case {case}: {coef:?} × {quant:?}");
        }
    }

    #[test]
    fn the_avx2_dct_and_quantizer_equal_the_portable_ones() {
        if !std::is_x86_feature_detected!("avx2") {
            eprintln!("skipped: the CPU lacks AVX2");
            return;
        }
        let mut stream = Stream(11);
        for case in 0..3000 {
            // Noise, and the extremes (all 0 or all 255 blocks, and alternating ones).
            let samples: [[u8; 8]; 8] = std::array::from_fn(|r| {
                std::array::from_fn(|c| match case % 4 {
                    0 | 1 => stream.next() as u8,
                    2 => [0, 255][(r + c + case / 4) % 2],
                    _ => [0, 255][case / 4 % 2],
                })
            });
            let table: [u16; 64] = std::array::from_fn(|_| match case % 2 {
                0 => 1 + (stream.next() % 255) as u16,
                _ => 1 + (stream.next() % 8) as u16,
            });
            let quantizer = Quantizer::new(&table);
            let portable = quantizer.quantize(&fdct::fdct_islow(&samples));
            // SAFETY: the CPU has AVX2 (checked above).
            let vector = unsafe { super::fdct_quantize(&samples, &quantizer) };
            assert_eq!(portable, vector, "case {case}: {samples:?} by {table:?}");
        }
    }
}
