//! The inverse DCT as libjpeg's default `JDCT_ISLOW` computes it (the Loeffler–Ligtenberg–
//! Moschytz factorization in 13-bit fixed point, two passes with 2 extra bits between
//! them), so that every sample equals libjpeg-turbo's, whose SIMD versions of it are
//! bit-exact with its C.

use std::num::Wrapping;

const CONST_BITS: u32 = 13;
const PASS1_BITS: u32 = 2;

const FIX_0_298631336: i32 = 2446;
const FIX_0_390180644: i32 = 3196;
const FIX_0_541196100: i32 = 4433;
const FIX_0_765366865: i32 = 6270;
const FIX_0_899976223: i32 = 7373;
const FIX_1_175875602: i32 = 9633;
const FIX_1_501321110: i32 = 12299;
const FIX_1_847759065: i32 = 15137;
const FIX_1_961570560: i32 = 16069;
const FIX_2_053119869: i32 = 16819;
const FIX_2_562915447: i32 = 20995;
const FIX_3_072711026: i32 = 25172;

/// libjpeg's post-IDCT range limit, indexed by the descaled value (before the +128 level
/// shift) masked to 10 bits: in-range values shift and clamp, and wild ones wrap as
/// libjpeg's table makes them.
const RANGE_LIMIT: [u8; 1024] = {
    let mut table = [0u8; 1024];
    let mut i = 0;
    while i < 1024 {
        table[i] = if i < 128 {
            (i + 128) as u8
        } else if i < 512 {
            255
        } else if i < 896 {
            0
        } else {
            (i - 896) as u8
        };
        i += 1;
    }
    table
};

fn descale(x: i32, n: u32) -> i32 {
    x.wrapping_add(1 << (n - 1)) >> n
}

/// The 1-D transform of `v[0..8]`, its 8 outputs before descaling. Wrapping, as libjpeg's
/// arithmetic is on damaged data (valid data never comes near overflow).
#[inline(always)]
fn transform(v: [i32; 8]) -> [i32; 8] {
    let v = v.map(Wrapping);
    let c = |x: i32| Wrapping(x);
    // Even part.
    let (z2, z3) = (v[2], v[6]);
    let z1 = (z2 + z3) * c(FIX_0_541196100);
    let tmp2 = z1 + z3 * c(-FIX_1_847759065);
    let tmp3 = z1 + z2 * c(FIX_0_765366865);
    let tmp0 = (v[0] + v[4]) << CONST_BITS as usize;
    let tmp1 = (v[0] - v[4]) << CONST_BITS as usize;
    let (tmp10, tmp13) = (tmp0 + tmp3, tmp0 - tmp3);
    let (tmp11, tmp12) = (tmp1 + tmp2, tmp1 - tmp2);
    // Odd part.
    let (t0, t1, t2, t3) = (v[7], v[5], v[3], v[1]);
    let (z1, z2, z3, z4) = (t0 + t3, t1 + t2, t0 + t2, t1 + t3);
    let z5 = (z3 + z4) * c(FIX_1_175875602);
    let (t0, t1, t2, t3) = (
        t0 * c(FIX_0_298631336),
        t1 * c(FIX_2_053119869),
        t2 * c(FIX_3_072711026),
        t3 * c(FIX_1_501321110),
    );
    let z1 = z1 * c(-FIX_0_899976223);
    let z2 = z2 * c(-FIX_2_562915447);
    let z3 = z3 * c(-FIX_1_961570560) + z5;
    let z4 = z4 * c(-FIX_0_390180644) + z5;
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
    .map(|x| x.0)
}

/// Turns one block of quantized coefficients (natural order) into 8×8 samples written at
/// `out[row * stride + col]`. Arithmetic wraps as libjpeg's C does on damaged data.
pub fn idct_islow(coef: &[i16; 64], quant: &[u16; 64], out: &mut [u8], stride: usize) {
    let mut work = [0i32; 64];
    // Pass 1: columns, keeping PASS1_BITS of extra precision.
    for col in 0..8 {
        let input: [i32; 8] = std::array::from_fn(|row| {
            i32::from(coef[row * 8 + col]) * i32::from(quant[row * 8 + col])
        });
        if input[1..].iter().all(|&x| x == 0) {
            // The shortcut libjpeg takes gives the same values as the full transform.
            for row in 0..8 {
                work[row * 8 + col] = input[0] << PASS1_BITS;
            }
            continue;
        }
        let values = transform(input);
        for row in 0..8 {
            work[row * 8 + col] = descale(values[row], CONST_BITS - PASS1_BITS);
        }
    }
    // Pass 2: rows, removing the extra precision and the factor 8 of the two passes.
    for row in 0..8 {
        let input: [i32; 8] = work[row * 8..row * 8 + 8].try_into().expect("8 values");
        let values = transform(input);
        let line = &mut out[row * stride..row * stride + 8];
        for (sample, value) in line.iter_mut().zip(values) {
            let v = descale(value, CONST_BITS + PASS1_BITS + 3);
            *sample = RANGE_LIMIT[(v & 1023) as usize];
        }
    }
}
