//! MXNet's 2-bit gradient compression (`kv.set_gradient_compression({'type': '2bit',
//! 'threshold': t})`), bit for bit as MXNet 1.9.1's `quantize_2bit` and `dequantize_2bit`
//! kernels (src/kvstore/gradient_compression-inl.h), for a store to shrink the gradients it
//! sends 16-fold.
//!
//! MXNet's rule, per element `i` of a float32 gradient:
//! - `residual[i] += grad[i]`; then if `residual[i] >= t` the value is sent as `+t` (code
//!   `11`) and `residual[i] -= t`; else if `residual[i] <= -t` it is sent as `-t` (code `10`)
//!   and `residual[i] += t`; else it is sent as 0 (code `00`).
//! - Four codes fill a byte from its high bits down (element `4k` in bits 7-6, `4k + 3` in
//!   bits 1-0), bytes follow in memory order, and 16 elements fill one float32 word; the
//!   last word's unused codes are 0. [`compressed_size`] is MXNet's `GetCompressedSize`.
//! - Dequantizing gives `+t` for `11`, `-t` for `10` and 0 for anything else (`01` too).
//!
//! The residual is the error feedback that keeps this from losing the small gradients: what
//! a step does not send is kept and added to the next steps' gradients until it crosses
//! the threshold, so over steps the sum sent follows the sum of the gradients. The caller
//! owns one residual per gradient it compresses (MXNet's store: per key and device), zeroed
//! at the start; this type holds the parameters only.
//!
//! The functions are pure over slices and allocate nothing. A gradient may be compressed in
//! chunks (or in parallel) that start at multiples of [`VALUES_PER_WORD`] elements: the
//! chunk of elements `16w..` maps to the packed words `w..`.

use crate::{Error, Result};

/// Gradient values in one packed float32 word (MXNet's compression factor for 2bit).
pub const VALUES_PER_WORD: usize = 16;

/// Code of a value sent as `+threshold`.
const POSITIVE: u8 = 0b11;
/// Code of a value sent as `-threshold`.
const NEGATIVE: u8 = 0b10;

/// MXNet's 2-bit gradient compression with its threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GradientCompression {
    threshold: f32,
}

/// Words of packed codes for `n` gradient values: MXNet's `GetCompressedSize` (four bytes
/// each).
pub fn compressed_size(n: usize) -> usize {
    n.div_ceil(VALUES_PER_WORD)
}

/// Where element `i` of a 16-value chunk lies in its word: the byte and the left shift.
fn position(i: usize) -> (usize, u32) {
    (i / 4, 6 - 2 * (i % 4) as u32)
}

impl GradientCompression {
    /// 2-bit compression with `threshold`, which must be a positive normal float (MXNet
    /// refuses 0, negatives, NaN and what its parser cannot hold; kiln also infinity, with
    /// which nothing finite would ever be sent).
    pub fn two_bit(threshold: f32) -> Result<GradientCompression> {
        if threshold > 0.0 && threshold.is_normal() {
            Ok(GradientCompression { threshold })
        } else {
            Err(Error::Input(format!(
                "gradient compression: `threshold` must be a positive normal float, got {threshold}"
            )))
        }
    }

    /// The compression of MXNet's parameters (`set_gradient_compression`'s dictionary as
    /// strings): `type`, required, `2bit` or `none` (no compression: `None`), and
    /// `threshold`, default 0.5. MXNet has no name for `none` (it is its state before any
    /// compression is set) and ignores unknown keys; kiln refuses them, which catches a
    /// misspelt `threshold`.
    pub fn from_params<I, K, V>(params: I) -> Result<Option<GradientCompression>>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let (mut kind, mut threshold) = (None, 0.5);
        for (key, value) in params {
            let value = value.as_ref();
            match key.as_ref() {
                "type" => kind = Some(value.to_string()),
                // MXNet's parser skips leading spaces only.
                "threshold" => {
                    threshold = value.trim_start().parse().map_err(|_| {
                        Error::Input(format!(
                            "gradient compression: `threshold` must be a float, got '{value}'"
                        ))
                    })?
                }
                other => {
                    return Err(Error::Input(format!(
                        "gradient compression: unknown parameter `{other}` (type, threshold)"
                    )))
                }
            }
        }
        // MXNet checks the threshold before the type, whatever the type.
        let compression = GradientCompression::two_bit(threshold)?;
        match kind.as_deref() {
            Some("2bit") => Ok(Some(compression)),
            Some("none") => Ok(None),
            Some(other) => Err(Error::Input(format!(
                "gradient compression: unknown `type` '{other}' (2bit, none)"
            ))),
            None => Err(Error::Input(
                "gradient compression: parameter `type` is required (2bit, none)".to_string(),
            )),
        }
    }

    pub fn threshold(&self) -> f32 {
        self.threshold
    }

    /// Adds `grad` to `residual` and writes the values to send, packed, into `packed`
    /// ([`compressed_size`]`(grad.len())` words), taking them out of `residual`: MXNet's
    /// `quantize_2bit`.
    pub fn quantize(&self, grad: &[f32], residual: &mut [f32], packed: &mut [f32]) -> Result<()> {
        let n = grad.len();
        if residual.len() != n || packed.len() != compressed_size(n) {
            return Err(Error::Input(format!(
                "2-bit quantize: a gradient of {n} values needs a residual of {n} and {} \
                 packed words, got {} and {}",
                compressed_size(n),
                residual.len(),
                packed.len()
            )));
        }
        // MXNet's kernel takes both thresholds and subtracts either from the residual.
        let (pos, neg) = (self.threshold, -self.threshold);
        let chunks = grad.chunks(VALUES_PER_WORD);
        for ((word, grad), residual) in packed
            .iter_mut()
            .zip(chunks)
            .zip(residual.chunks_mut(VALUES_PER_WORD))
        {
            let mut bytes = [0u8; 4];
            for (i, (g, r)) in grad.iter().zip(residual).enumerate() {
                *r += g;
                let code = if *r >= pos {
                    *r -= pos;
                    POSITIVE
                } else if *r <= neg {
                    *r -= neg;
                    NEGATIVE
                } else {
                    continue;
                };
                let (byte, shift) = position(i);
                bytes[byte] |= code << shift;
            }
            // MXNet writes bytes, so the word is those bytes in memory order.
            *word = f32::from_bits(u32::from_ne_bytes(bytes));
        }
        Ok(())
    }

    /// Writes the values `packed` holds (`+threshold`, `-threshold` or 0) into `out`, whose
    /// length says how many: MXNet's `dequantize_2bit`.
    pub fn dequantize(&self, packed: &[f32], out: &mut [f32]) -> Result<()> {
        let n = out.len();
        if packed.len() != compressed_size(n) {
            return Err(Error::Input(format!(
                "2-bit dequantize: {n} values need {} packed words, got {}",
                compressed_size(n),
                packed.len()
            )));
        }
        for (word, out) in packed.iter().zip(out.chunks_mut(VALUES_PER_WORD)) {
            let bytes = word.to_bits().to_ne_bytes();
            for (i, o) in out.iter_mut().enumerate() {
                let (byte, shift) = position(i);
                *o = match (bytes[byte] >> shift) & 0b11 {
                    POSITIVE => self.threshold,
                    NEGATIVE => -self.threshold,
                    _ => 0.0,
                };
            }
        }
        Ok(())
    }
}
