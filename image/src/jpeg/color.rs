//! From decoded component planes to pixels as libjpeg-turbo does with its defaults:
//! "fancy" (triangle-filter) upsampling of 2:1 subsampled components, box replication for
//! other integral factors, and its fixed-point colour conversions.

/// One component's samples after the IDCT, and how much it is enlarged to image size.
pub struct Plane<'a> {
    pub samples: &'a [u8],
    pub stride: usize,
    /// The samples that hold image data (libjpeg's `downsampled_width` and `_height`).
    pub width: usize,
    pub height: usize,
    pub h_expand: usize,
    pub v_expand: usize,
}

impl Plane<'_> {
    fn row(&self, y: usize) -> &[u8] {
        let y = y.min(self.height - 1);
        &self.samples[y * self.stride..y * self.stride + self.width]
    }

    /// Writes output row `y` of the plane enlarged to image size into `out` (at least
    /// `width * h_expand` long); `sums` is scratch space. Rows above the first and below the last repeat them, as
    /// libjpeg's context rows do.
    #[inline(always)]
    pub fn upsample_row(&self, y: usize, sums: &mut Vec<u16>, out: &mut [u8]) {
        let w = self.width;
        match (self.h_expand, self.v_expand) {
            (1, 1) => out[..w].copy_from_slice(self.row(y)),
            (2, 1) if w > 2 => h2v1_fancy(self.row(y), out),
            (1, 2) => {
                // libjpeg-turbo 2.0.2's h1v2 filter (MXNet 1.9.1's) rounds both output
                // rows up from 1/4, unlike its h2v1 filter's alternating bias (measured
                // against MXNet: tests/fixtures/data/images/jpeg/s440_*).
                let (near, far) = self.vertical_neighbours(y);
                for ((o, &n), &f) in out.iter_mut().zip(near).zip(far) {
                    *o = ((u32::from(n) * 3 + u32::from(f) + 1) >> 2) as u8;
                }
            }
            (2, 2) if w > 2 => {
                let (near, far) = self.vertical_neighbours(y);
                h2v2_fancy(near, far, sums, out);
            }
            (h, v) => {
                let row = self.row(y / v);
                for (chunk, &s) in out.chunks_mut(h).zip(row) {
                    chunk.fill(s);
                }
            }
        }
    }

    /// For output row `y` of a vertically doubled plane: the nearer input row and the
    /// farther one.
    fn vertical_neighbours(&self, y: usize) -> (&[u8], &[u8]) {
        let r = y / 2;
        if y.is_multiple_of(2) {
            (self.row(r), self.row(r.saturating_sub(1)))
        } else {
            (self.row(r), self.row(r + 1))
        }
    }
}

/// libjpeg's `h2v1_fancy_upsample`: each output sample 3/4 of the nearer input and 1/4 of
/// the farther, the edges copied, rounding alternately down and up.
#[inline(always)]
fn h2v1_fancy(input: &[u8], out: &mut [u8]) {
    let last = input.len() - 1;
    let s = |i: usize| u32::from(input[i]);
    out[0] = input[0];
    out[1] = ((s(0) * 3 + s(1) + 2) >> 2) as u8;
    for i in 1..last {
        let near = s(i) * 3;
        out[2 * i] = ((near + s(i - 1) + 1) >> 2) as u8;
        out[2 * i + 1] = ((near + s(i + 1) + 2) >> 2) as u8;
    }
    out[2 * last] = ((s(last) * 3 + s(last - 1) + 1) >> 2) as u8;
    out[2 * last + 1] = input[last];
}

/// libjpeg's `h2v2_fancy_upsample` for one output row: column sums of 3 × the nearer row
/// and 1 × the farther, then 3/4 and 1/4 of neighbouring sums, rounding 8 and 7 in turn.
/// In separate passes (sums into `sums`, then the outputs), so that each vectorizes.
#[inline(always)]
fn h2v2_fancy(near: &[u8], far: &[u8], sums: &mut Vec<u16>, out: &mut [u8]) {
    let w = near.len();
    sums.resize(w + 2, 0);
    for ((s, &n), &f) in sums[1..=w].iter_mut().zip(near).zip(far) {
        *s = u16::from(n) * 3 + u16::from(f);
    }
    // An edge column stands in for its missing neighbour: 4 × its own sum.
    sums[0] = sums[1];
    sums[w + 1] = sums[w];
    for (i, pair) in out[..2 * w].chunks_exact_mut(2).enumerate() {
        let this = sums[i + 1] * 3;
        pair[0] = ((this + sums[i] + 8) >> 4) as u8;
        pair[1] = ((this + sums[i + 2] + 7) >> 4) as u8;
    }
}

pub(super) const SCALE_BITS: u32 = 16;
pub(super) const ONE_HALF: i32 = 1 << (SCALE_BITS - 1);

/// libjpeg's `FIX`: a constant in 16-bit fixed point, rounded.
pub(super) const fn fix(x: f64) -> i32 {
    (x * (1 << SCALE_BITS) as f64 + 0.5) as i32
}

/// One row of YCbCr samples to interleaved RGB, as libjpeg's tables compute it: red and
/// blue offsets rounded on their own, the two green terms summed before one shift.
/// Arithmetic rather than table lookups, so that it vectorizes.
#[inline(always)]
pub fn ycc_to_rgb(y: &[u8], cb: &[u8], cr: &[u8], out: &mut [u8]) {
    for (((px, &y), &cb), &cr) in out.chunks_exact_mut(3).zip(y).zip(cb).zip(cr) {
        let (y, cb, cr) = (i32::from(y), i32::from(cb) - 128, i32::from(cr) - 128);
        let red = (fix(1.40200) * cr + ONE_HALF) >> SCALE_BITS;
        let blue = (fix(1.77200) * cb + ONE_HALF) >> SCALE_BITS;
        let green = (-fix(0.34414) * cb + ONE_HALF - fix(0.71414) * cr) >> SCALE_BITS;
        px[0] = clamp(y + red);
        px[1] = clamp(y + green);
        px[2] = clamp(y + blue);
    }
}

#[inline(always)]
fn clamp(v: i32) -> u8 {
    v.clamp(0, 255) as u8
}

/// One row of RGB samples to luminance (libjpeg's `rgb_gray_convert`).
#[inline(always)]
pub fn rgb_to_gray(r: &[u8], g: &[u8], b: &[u8], out: &mut [u8]) {
    for (((o, &r), &g), &b) in out.iter_mut().zip(r).zip(g).zip(b) {
        let sum = fix(0.29900) * i32::from(r)
            + fix(0.58700) * i32::from(g)
            + fix(0.11400) * i32::from(b)
            + ONE_HALF;
        *o = (sum >> SCALE_BITS) as u8;
    }
}

#[cfg(test)]
mod tests {
    /// libjpeg's h2v2 filter written as its C is, one column at a time.
    fn h2v2_reference(near: &[u8], far: &[u8]) -> Vec<u8> {
        let sum = |i: usize| u32::from(near[i]) * 3 + u32::from(far[i]);
        let last = near.len() - 1;
        let mut out = vec![0u8; 2 * near.len()];
        out[0] = ((sum(0) * 4 + 8) >> 4) as u8;
        out[1] = ((sum(0) * 3 + sum(1) + 7) >> 4) as u8;
        for i in 1..last {
            out[2 * i] = ((sum(i) * 3 + sum(i - 1) + 8) >> 4) as u8;
            out[2 * i + 1] = ((sum(i) * 3 + sum(i + 1) + 7) >> 4) as u8;
        }
        out[2 * last] = ((sum(last) * 3 + sum(last - 1) + 8) >> 4) as u8;
        out[2 * last + 1] = ((sum(last) * 4 + 7) >> 4) as u8;
        out
    }

    #[test]
    fn h2v2_passes_equal_libjpegs_column_loop() {
        let mut state = 12345u32;
        let mut next = || {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 16) as u8
        };
        let mut sums = Vec::new();
        for w in [3, 4, 5, 17, 255, 1031] {
            let near: Vec<u8> = (0..w).map(|_| next()).collect();
            let far: Vec<u8> = (0..w).map(|_| next()).collect();
            let mut out = vec![0u8; 2 * w];
            super::h2v2_fancy(&near, &far, &mut sums, &mut out);
            assert_eq!(out, h2v2_reference(&near, &far), "width {w}");
        }
    }
}
