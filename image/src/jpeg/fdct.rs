//! The forward DCT and quantization as libjpeg-turbo's encoder computes them with its
//! defaults: `JDCT_ISLOW` (13-bit fixed point, 2 extra bits between the passes, output
//! scaled by 8) and its quantization by reciprocal multiplication, whose rounding is not
//! always a division's (`compute_reciprocal` in jcdctmgr.c), so that coefficients — and
//! the files — equal libjpeg-turbo's.

use super::dct::*;

/// One 1-D pass over eight vectors `v[k]` (the k-th input of each lane): the even outputs
/// 0 and 4 through `even`, the others descaled by `bits`.
#[inline(always)]
pub(super) fn pass<V: Vector>(v: &[V; 8], even: impl Fn(V) -> V, bits: u32) -> [V; 8] {
    let (tmp0, tmp7) = (v[0] + v[7], v[0] - v[7]);
    let (tmp1, tmp6) = (v[1] + v[6], v[1] - v[6]);
    let (tmp2, tmp5) = (v[2] + v[5], v[2] - v[5]);
    let (tmp3, tmp4) = (v[3] + v[4], v[3] - v[4]);
    let (tmp10, tmp13) = (tmp0 + tmp3, tmp0 - tmp3);
    let (tmp11, tmp12) = (tmp1 + tmp2, tmp1 - tmp2);
    let odd = |x: V| x.descale(bits);
    let z1 = (tmp12 + tmp13) * FIX_0_541196100;
    let out2 = odd(z1 + tmp13 * FIX_0_765366865);
    let out6 = odd(z1 + tmp12 * -FIX_1_847759065);
    let (z1, z2, z3, z4) = (tmp4 + tmp7, tmp5 + tmp6, tmp4 + tmp6, tmp5 + tmp7);
    let z5 = (z3 + z4) * FIX_1_175875602;
    let tmp4 = tmp4 * FIX_0_298631336;
    let tmp5 = tmp5 * FIX_2_053119869;
    let tmp6 = tmp6 * FIX_3_072711026;
    let tmp7 = tmp7 * FIX_1_501321110;
    let z1 = z1 * -FIX_0_899976223;
    let z2 = z2 * -FIX_2_562915447;
    let z3 = z3 * -FIX_1_961570560 + z5;
    let z4 = z4 * -FIX_0_390180644 + z5;
    [
        even(tmp10 + tmp11),
        odd(tmp7 + z1 + z4),
        out2,
        odd(tmp6 + z2 + z3),
        even(tmp10 - tmp11),
        odd(tmp5 + z2 + z4),
        out6,
        odd(tmp4 + z1 + z3),
    ]
}

/// The DCT of an 8×8 block of samples (row-major), scaled by 8 as libjpeg's is, in
/// natural order.
#[inline(always)]
pub fn fdct_islow(samples: &[[u8; 8]; 8]) -> [i32; 64] {
    // Pass 1 over the rows, a lane each: input k is column k.
    let mut columns = [Lanes([0; 8]); 8];
    for (row, line) in samples.iter().enumerate() {
        for (k, &s) in line.iter().enumerate() {
            columns[k].0[row] = i32::from(s) - 128;
        }
    }
    let rows = pass(&columns, |x| x.shl(PASS1_BITS), CONST_BITS - PASS1_BITS);
    // Pass 2 over the columns, a lane each: input k is row k.
    let out = pass(
        &transpose(&rows),
        |x| x.descale(PASS1_BITS),
        CONST_BITS + PASS1_BITS,
    );
    let mut coefficients = [0i32; 64];
    for (k, lanes) in out.iter().enumerate() {
        coefficients[k * 8..k * 8 + 8].copy_from_slice(&lanes.0);
    }
    coefficients
}

/// libjpeg-turbo's quantizer for one table: per coefficient, `(|x| + correction) ·
/// reciprocal >> shift` with the sign put back (arrays, so that the loop vectorizes).
pub struct Quantizer {
    pub(super) reciprocal: [u32; 64],
    pub(super) correction: [u32; 64],
    pub(super) shift: [u32; 64],
}

impl Quantizer {
    /// `compute_reciprocal` for each divisor `quant · 8` (16-bit DCT elements).
    pub fn new(quant: &[u16; 64]) -> Quantizer {
        let mut q = Quantizer {
            reciprocal: [0; 64],
            correction: [0; 64],
            shift: [0; 64],
        };
        for (i, &value) in quant.iter().enumerate() {
            let divisor = u32::from(value) * 8;
            let b = 31 - divisor.leading_zeros();
            let mut r = 16 + b;
            let mut fq = (1u64 << r) / u64::from(divisor);
            let fr = (1u64 << r) % u64::from(divisor);
            let mut c = divisor / 2;
            if fr == 0 {
                fq >>= 1;
                r -= 1;
            } else if fr <= u64::from(divisor / 2) {
                c += 1;
            } else {
                fq += 1;
            }
            (q.reciprocal[i], q.correction[i], q.shift[i]) = (fq as u32, c, r);
        }
        q
    }

    /// The coefficients quantized. Each product fits 32 bits: `|x| + correction` and the
    /// reciprocal are below 2^16 for 8-bit samples.
    #[inline(always)]
    pub fn quantize(&self, coefficients: &[i32; 64]) -> [i16; 64] {
        let mut out = [0i16; 64];
        for i in 0..64 {
            let x = coefficients[i];
            let magnitude = x.unsigned_abs() + self.correction[i];
            let q = (magnitude.wrapping_mul(self.reciprocal[i]) >> self.shift[i]) as i32;
            out[i] = (if x < 0 { -q } else { q }) as i16;
        }
        out
    }
}
