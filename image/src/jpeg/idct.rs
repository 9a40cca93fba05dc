//! The inverse DCT as libjpeg's default `JDCT_ISLOW` computes it (the Loeffler–Ligtenberg–
//! Moschytz factorization in 13-bit fixed point, two passes with 2 extra bits between
//! them), so that every sample equals libjpeg-turbo's, whose SIMD versions of it are
//! bit-exact with its C.

use super::dct::*;

/// The 1-D transform of eight vectors `v[k]` (the k-th input of each lane), before
/// descaling.
#[inline(always)]
pub(super) fn transform<V: Vector>(v: &[V; 8]) -> [V; 8] {
    // Even part.
    let (z2, z3) = (v[2], v[6]);
    let z1 = (z2 + z3) * FIX_0_541196100;
    let tmp2 = z1 + z3 * -FIX_1_847759065;
    let tmp3 = z1 + z2 * FIX_0_765366865;
    let tmp0 = (v[0] + v[4]).shl(CONST_BITS);
    let tmp1 = (v[0] - v[4]).shl(CONST_BITS);
    let (tmp10, tmp13) = (tmp0 + tmp3, tmp0 - tmp3);
    let (tmp11, tmp12) = (tmp1 + tmp2, tmp1 - tmp2);
    // Odd part.
    let (t0, t1, t2, t3) = (v[7], v[5], v[3], v[1]);
    let (z1, z2, z3, z4) = (t0 + t3, t1 + t2, t0 + t2, t1 + t3);
    let z5 = (z3 + z4) * FIX_1_175875602;
    let (t0, t1, t2, t3) = (
        t0 * FIX_0_298631336,
        t1 * FIX_2_053119869,
        t2 * FIX_3_072711026,
        t3 * FIX_1_501321110,
    );
    let z1 = z1 * -FIX_0_899976223;
    let z2 = z2 * -FIX_2_562915447;
    let z3 = z3 * -FIX_1_961570560 + z5;
    let z4 = z4 * -FIX_0_390180644 + z5;
    let (t0, t1, t2, t3) = (t0 + z1 + z3, t1 + z2 + z4, t2 + z2 + z3, t3 + z1 + z4);
    [
        tmp10 + t3,
        tmp11 + t2,
        tmp12 + t1,
        tmp13 + t0,
        tmp13 - t0,
        tmp12 - t1,
        tmp11 - t2,
        tmp10 - t3,
    ]
}

/// libjpeg's post-IDCT range limit of a descaled value (before the +128 level shift): its
/// table is indexed by the value's low 10 bits, so in-range values shift and clamp and
/// wild ones wrap; computed rather than looked up so that it vectorizes.
#[inline(always)]
fn range_limit(v: i32) -> u8 {
    (((v.wrapping_add(512) & 1023) - 384).clamp(0, 255)) as u8
}

/// Writes the block as a flat one where only its DC term is set (libjpeg's shortcuts,
/// exact, make such a block flat); else leaves `out` and says so.
#[inline(always)]
pub(super) fn flat(coef: &[i16; 64], quant: &[u16; 64], out: &mut [u8], stride: usize) -> bool {
    if coef[1..].iter().fold(0, |any, &c| any | c) != 0 {
        return false;
    }
    let dc = i32::from(coef[0]).wrapping_mul(i32::from(quant[0]));
    let value = range_limit(descale(dc << PASS1_BITS, PASS1_BITS + 3));
    for row in 0..8 {
        out[row * stride..row * stride + 8].fill(value);
    }
    true
}

/// Turns one block of quantized coefficients (natural order) into 8×8 samples written at
/// `out[row * stride + col]`.
#[inline(always)]
pub fn idct_islow(coef: &[i16; 64], quant: &[u16; 64], out: &mut [u8], stride: usize) {
    if flat(coef, quant, out, stride) {
        return;
    }
    // Pass 1: columns (a lane each), keeping PASS1_BITS of extra precision.
    let mut input = [Lanes([0; 8]); 8];
    for (row, lanes) in input.iter_mut().enumerate() {
        for col in 0..8 {
            lanes.0[col] = i32::from(coef[row * 8 + col]) * i32::from(quant[row * 8 + col]);
        }
    }
    let mut work = transform(&input);
    for lanes in &mut work {
        *lanes = lanes.descale(CONST_BITS - PASS1_BITS);
    }
    // Pass 2: rows (a lane each), removing the extra precision and the passes' factor 8.
    let columns = transform(&transpose(&work));
    for (row, values) in transpose(&columns).iter().enumerate() {
        let line = &mut out[row * stride..row * stride + 8];
        for (sample, &value) in line.iter_mut().zip(&values.0) {
            *sample = range_limit(descale(value, CONST_BITS + PASS1_BITS + 3));
        }
    }
}
