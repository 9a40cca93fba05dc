//! Exact bit-level operations on floats, the range reductions of kernel IR polynomials
//! (`kiln_compiler::kir::BitOp`), in f64 for the oracle and generated Rust.

/// 2^n for an integer-valued `n`.
pub fn pow2i(n: f64) -> f64 {
    2f64.powi(n as i32)
}

/// `e` of `x = m·2^e` with `m` in [0.5, 1), for a normal positive `x`.
pub fn exponent(x: f64) -> f64 {
    (((x.to_bits() >> 52) & 0x7ff) as i64 - 1022) as f64
}

/// `m` of `x = m·2^e` with `m` in [0.5, 1), for a normal positive `x`.
pub fn mantissa(x: f64) -> f64 {
    f64::from_bits((x.to_bits() & !(0x7ff << 52)) | (1022 << 52))
}

#[cfg(test)]
mod tests {
    #[test]
    fn splits_recompose() {
        for x in [1.0, 0.75, 3.0, 1e-30, 6.5e12, f32::MIN_POSITIVE as f64] {
            let (m, e) = (super::mantissa(x), super::exponent(x));
            assert!((0.5..1.0).contains(&m), "{x}: {m}");
            assert_eq!(m * super::pow2i(e), x);
        }
    }
}
