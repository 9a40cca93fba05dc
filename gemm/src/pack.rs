//! Packing operands into the panels tiles read.

use super::{isa, Isa, Real, Strided};

/// Packs a `depth × width` block of `src` (positions along its columns, depth along its
/// rows), from depth `d0` and position `w0`, into panels of `W` positions: panel `q`
/// holds, for each depth, positions `q·W .. q·W + W` contiguously, zero past the width.
#[inline(always)]
pub(super) unsafe fn pack<T: Real, const W: usize>(
    src: Strided<T>,
    d0: usize,
    w0: usize,
    depth: usize,
    width: usize,
    dst: *mut T,
) {
    let (w_stride, d_stride) = (src.cs, src.rs);
    for q in (0..width).step_by(W) {
        // SAFETY: `dst` holds width rounded up to W by depth elements (sized so by
        // `blocked_as_given`); q < width is a multiple of W, so panel q / W is inside it.
        let panel = unsafe { dst.add(q * depth) };
        let valid = W.min(width - q);
        let origin = src
            .ptr
            .wrapping_offset(d0 as isize * d_stride + (w0 + q) as isize * w_stride);
        if valid < W {
            // The block's last, partial panel: zeros past its width.
            for d in 0..depth {
                for w in 0..W {
                    let v = if w < valid {
                        // SAFETY: w < valid and d < depth: element (d0 + d, w0 + q + w) of the
                        // caller's block of src.
                        unsafe { *origin.offset(w as isize * w_stride + d as isize * d_stride) }
                    } else {
                        T::default()
                    };
                    // SAFETY: d < depth and w < W: inside this panel's depth × W elements.
                    unsafe { *panel.add(d * W + w) = v };
                }
            }
        } else if w_stride == 1 {
            // Positions contiguous: copy W at a time.
            for d in 0..depth {
                // SAFETY: positions contiguous and valid == W: W elements of src's block at depth
                // d0 + d; the panel's row d holds W (unaligned read and write).
                unsafe {
                    let from = origin.offset(d as isize * d_stride) as *const [T; W];
                    *(panel.add(d * W) as *mut [T; W]) = from.read_unaligned();
                }
            }
        } else {
            // A transposition: W lines read along the depth, one element of each per
            // packed row (separate line pointers keep the compiler from gathers).
            let lines: [*const T; W] =
                std::array::from_fn(|w| origin.wrapping_offset(w as isize * w_stride));
            // Depths contiguous along the lines: 16 × 16 blocks transposed in registers.
            let blocked = if d_stride == 1 {
                // SAFETY: depths contiguous along each of the W lines, each holding `depth`
                // elements of the block; the panel holds depth rows of W.
                unsafe { transpose_blocks(&lines, depth, panel) }
            } else {
                0
            };
            for d in blocked..depth {
                let at = d as isize * d_stride;
                // SAFETY: w < W == valid and d < depth: inside the caller's block of src.
                let row: [T; W] = std::array::from_fn(|w| unsafe { *lines[w].offset(at) });
                // SAFETY: d < depth: row d of this panel's depth × W elements.
                unsafe { *(panel.add(d * W) as *mut [T; W]) = row };
            }
        }
    }
}

/// Packs the first depths of `W` lines (each contiguous along the depth) into `panel`
/// (`W` per depth) in 16 × 16 blocks transposed in AVX-512 registers, where the machine
/// has them and `T` is f32; returns how many depths it packed (a multiple of 16, or 0).
#[inline(always)]
unsafe fn transpose_blocks<T: 'static, const W: usize>(
    lines: &[*const T; W],
    depth: usize,
    panel: *mut T,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if W.is_multiple_of(16)
        && std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>()
        && isa() == Isa::Avx512
    {
        let blocks = depth / 16 * 16;
        for w0 in (0..W).step_by(16) {
            let rows: [*const f32; 16] = std::array::from_fn(|i| lines[w0 + i] as *const f32);
            for d0 in (0..blocks).step_by(16) {
                // SAFETY: the lines hold `depth` elements, the panel `depth` rows of W;
                // AVX-512 is there (checked above).
                unsafe { transpose16(&rows, d0, (panel as *mut f32).add(d0 * W + w0), W) };
            }
        }
        return blocks;
    }
    0
}

/// `dst[j·stride + i] = rows[i][d0 + j]` for `i, j < 16`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn transpose16(rows: &[*const f32; 16], d0: usize, dst: *mut f32, stride: usize) {
    use std::arch::x86_64::*;
    // SAFETY: `transpose_blocks` passes d0 + 16 ≤ depth, and each row holds `depth` floats.
    let r: [__m512; 16] = std::array::from_fn(|i| unsafe { _mm512_loadu_ps(rows[i].add(d0)) });
    // Within each 128-bit lane: pairs of rows interleaved, then 4 × 4 transposes.
    let t: [__m512; 16] = std::array::from_fn(|i| {
        let (a, b) = (r[i / 2 * 2], r[i / 2 * 2 + 1]);
        if i % 2 == 0 {
            _mm512_unpacklo_ps(a, b)
        } else {
            _mm512_unpackhi_ps(a, b)
        }
    });
    // u[4g + c], lane l: column 4l + c of rows 4g .. 4g + 4.
    let u: [__m512; 16] = std::array::from_fn(|i| {
        let (g, c) = (i / 4, i % 4);
        let (a, b) = (t[4 * g + c / 2], t[4 * g + 2 + c / 2]);
        if c % 2 == 0 {
            _mm512_shuffle_ps::<0x44>(a, b)
        } else {
            _mm512_shuffle_ps::<0xEE>(a, b)
        }
    });
    // Gather lane l of u[c], u[4 + c], u[8 + c], u[12 + c] into output row 4l + c.
    for c in 0..4 {
        let v0 = _mm512_shuffle_f32x4::<0x88>(u[c], u[4 + c]);
        let v1 = _mm512_shuffle_f32x4::<0xDD>(u[c], u[4 + c]);
        let w0 = _mm512_shuffle_f32x4::<0x88>(u[8 + c], u[12 + c]);
        let w1 = _mm512_shuffle_f32x4::<0xDD>(u[8 + c], u[12 + c]);
        let out = [
            (c, _mm512_shuffle_f32x4::<0x88>(v0, w0)),
            (4 + c, _mm512_shuffle_f32x4::<0x88>(v1, w1)),
            (8 + c, _mm512_shuffle_f32x4::<0xDD>(v0, w0)),
            (12 + c, _mm512_shuffle_f32x4::<0xDD>(v1, w1)),
        ];
        for (j, row) in out {
            // SAFETY: j < 16: row d0 + j of the caller's panel, whose 16 columns from `dst` lie
            // within its W = stride (`transpose_blocks` passes w0 + 16 ≤ W).
            unsafe { _mm512_storeu_ps(dst.add(j * stride), row) };
        }
    }
}
