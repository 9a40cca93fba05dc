//! A baseline JPEG encoder whose files equal, byte for byte, what libjpeg-turbo writes with
//! `jpeg_set_defaults` and `jpeg_set_quality(q, TRUE)` — OpenCV's `imencode(".jpg")` as
//! `im2rec.py` calls it: a JFIF 1.01 header, Annex K's tables scaled by quality, YCbCr
//! by libjpeg's fixed-point conversion with 2×2 chroma averaged with alternating rounding
//! (or one gray component), the ISLOW DCT and libjpeg-turbo's quantizer
//! ([`super::fdct`]), edges replicated to whole blocks and MCUs padded with libjpeg's dummy
//! blocks, and the standard Huffman codes.

use super::color::{fix, ONE_HALF, SCALE_BITS};
use super::entropy::{has_ff_byte, NATURAL_ORDER};
use super::fdct::{fdct_islow, Quantizer};
use super::tables::{
    HuffmanSpec, CHROMA_AC, CHROMA_DC, CHROMA_QUANT, LUMA_AC, LUMA_DC, LUMA_QUANT,
};
use crate::{Error, Image, Result};

/// libjpeg's `jpeg_quality_scaling` and `jpeg_add_quant_table` with baseline limits.
fn scaled_table(basic: &[u16; 64], quality: u8) -> [u16; 64] {
    let q = u32::from(quality.clamp(1, 100));
    let scale = if q < 50 { 5000 / q } else { 200 - q * 2 };
    basic.map(|v| ((u32::from(v) * scale + 50) / 100).clamp(1, 255) as u16)
}

/// Each symbol's code and its length, as `code << 8 | length` (one load per symbol).
struct Codes([u32; 256]);

impl Codes {
    fn new(spec: &HuffmanSpec) -> Codes {
        let mut codes = Codes([0; 256]);
        let (mut code, mut k) = (0u32, 0usize);
        for (len, &count) in (1..=16u32).zip(&spec.counts) {
            for _ in 0..count {
                codes.0[usize::from(spec.symbols[k])] = code << 8 | len;
                code += 1;
                k += 1;
            }
            code <<= 1;
        }
        codes
    }

    /// The code of `symbol` followed by the low `n` bits of `value`, and their length.
    #[inline(always)]
    fn with_value(&self, symbol: usize, value: u32, n: u32) -> (u32, u32) {
        let entry = self.0[symbol];
        (
            ((entry >> 8) << n) | (value & ((1 << n) - 1)),
            (entry & 0xFF) + n,
        )
    }
}

/// The most bytes one block codes to: at most 68 codes (63 coefficients, a DC and up to
/// three zero runs, an end of block) of at most 32 bits, each byte possibly stuffed.
const BLOCK_BYTES: usize = 68 * 4 * 2;

/// Entropy-coded bytes, MSB first, `FF` stuffed with `00`, written block by block into a
/// scratch buffer. Plain values (no buffer inside), so that its state stays in registers.
#[derive(Clone, Copy, Default)]
struct BitWriter {
    /// Pending bits, the oldest highest; fewer than 32 between calls.
    acc: u64,
    count: u32,
    /// Bytes written to the block's buffer.
    len: usize,
}

impl BitWriter {
    /// Appends the low `n` bits of `bits` (`n` at most 32; `bits` has no higher ones).
    #[inline(always)]
    fn put(&mut self, (bits, n): (u32, u32), out: &mut [u8; BLOCK_BYTES]) {
        self.acc = (self.acc << n) | u64::from(bits);
        self.count += n;
        if self.count >= 32 {
            self.count -= 32;
            let word = (self.acc >> self.count) as u32;
            if has_ff_byte(u64::from(word)) {
                for byte in word.to_be_bytes() {
                    self.stuffed(byte, out);
                }
            } else {
                out[self.len..self.len + 4].copy_from_slice(&word.to_be_bytes());
                self.len += 4;
            }
        }
    }

    /// Writes the bits left, the last byte padded with one bits as libjpeg pads it.
    fn flush(&mut self, out: &mut [u8; BLOCK_BYTES]) {
        let pad = (8 - self.count % 8) % 8;
        self.acc = (self.acc << pad) | ((1 << pad) - 1);
        self.count += pad;
        while self.count > 0 {
            self.count -= 8;
            self.stuffed((self.acc >> self.count) as u8, out);
        }
    }

    /// Writes `byte`, and a zero after an FF.
    #[inline(always)]
    fn stuffed(&mut self, byte: u8, out: &mut [u8; BLOCK_BYTES]) {
        out[self.len] = byte;
        self.len += 1;
        if byte == 0xFF {
            out[self.len] = 0;
            self.len += 1;
        }
    }
}

/// One component's tables and DC predictor in the scan.
struct Coder<'a> {
    quantizer: Quantizer,
    dc: &'a Codes,
    ac: &'a Codes,
    last_dc: i32,
}

/// The number of bits of `v`'s magnitude.
fn bit_length(v: u32) -> u32 {
    32 - v.leading_zeros()
}

/// A coefficient's magnitude category and its bits (negative values one less, as the
/// JPEG standard codes them; only the low `category` bits count).
#[inline(always)]
fn category(v: i32) -> (u32, u32) {
    (bit_length(v.unsigned_abs()), (v + (v >> 31)) as u32)
}

impl Coder<'_> {
    /// [`Coder::write`] through `scratch`, appending the block's whole bytes to `out`.
    #[inline(always)]
    fn write_to(
        &mut self,
        block: &[i16; 64],
        bits: &mut BitWriter,
        scratch: &mut [u8; BLOCK_BYTES],
        out: &mut Vec<u8>,
    ) {
        bits.len = 0;
        self.write(block, bits, scratch);
        out.extend_from_slice(&scratch[..bits.len]);
    }

    /// Codes one quantized block (natural order) into `out`, after what `bits` holds.
    #[inline(always)]
    fn write(&mut self, block: &[i16; 64], bits: &mut BitWriter, out: &mut [u8; BLOCK_BYTES]) {
        let dc = i32::from(block[0]);
        let (n, value) = category(dc - self.last_dc);
        self.last_dc = dc;
        bits.put(self.dc.with_value(n as usize, value, n), out);
        // The AC coefficients in zig-zag order, and a mask of those that are not zero
        // (bit k for position k), so that runs of zeros are skipped a word at a time.
        let zigzag: [i16; 64] = std::array::from_fn(|k| block[NATURAL_ORDER[k]]);
        let mut nonzero = zigzag
            .iter()
            .enumerate()
            .skip(1)
            .fold(0u64, |mask, (k, &v)| mask | (u64::from(v != 0) << k));
        let mut previous = 0;
        while nonzero != 0 {
            let k = nonzero.trailing_zeros() as usize;
            nonzero &= nonzero - 1;
            let mut run = k - previous - 1;
            previous = k;
            while run > 15 {
                bits.put(self.ac.with_value(0xF0, 0, 0), out);
                run -= 16;
            }
            let (n, value) = category(i32::from(zigzag[k]));
            bits.put(self.ac.with_value((run << 4) + n as usize, value, n), out);
        }
        if previous < 63 {
            bits.put(self.ac.with_value(0, 0, 0), out);
        }
    }
}

/// A component's samples padded by edge replication, `stride` a row.
struct Plane {
    samples: Vec<u8>,
    stride: usize,
}

impl Plane {
    #[inline(always)]
    fn block(&self, bx: usize, by: usize) -> [[u8; 8]; 8] {
        let mut block = [[0u8; 8]; 8];
        for (r, row) in block.iter_mut().enumerate() {
            let at = (by * 8 + r) * self.stride + bx * 8;
            row.copy_from_slice(&self.samples[at..at + 8]);
        }
        block
    }
}

/// libjpeg's fixed-point RGB → YCbCr (`rgb_ycc_convert`).
#[inline(always)]
fn ycc(r: u8, g: u8, b: u8) -> [u8; 3] {
    const Y: [i32; 3] = [fix(0.29900), fix(0.58700), fix(0.11400)];
    const CB: [i32; 3] = [-fix(0.16874), -fix(0.33126), fix(0.5)];
    const CR: [i32; 3] = [fix(0.5), -fix(0.41869), -fix(0.08131)];
    const CBCR_OFFSET: i32 = 128 << SCALE_BITS;
    let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
    let y = Y[0] * r + Y[1] * g + Y[2] * b + ONE_HALF;
    let cb = CB[0] * r + CB[1] * g + CB[2] * b + CBCR_OFFSET + ONE_HALF - 1;
    let cr = CR[0] * r + CR[1] * g + CR[2] * b + CBCR_OFFSET + ONE_HALF - 1;
    [y, cb, cr].map(|v| (v >> SCALE_BITS) as u8)
}

/// Encodes a gray (1 channel) or RGB (3 channels) image at `quality` (1–100).
pub fn encode(image: &Image, quality: u8) -> Result<Vec<u8>> {
    let (w, h, c) = (image.width, image.height, image.channels);
    if !matches!(c, 1 | 3) {
        return Err(Error::Input(format!("a JPEG of {c} channels (1 or 3)")));
    }
    if w == 0 || h == 0 || w > 65535 || h > 65535 {
        return Err(Error::Input(format!(
            "a JPEG of {w}×{h} pixels (1 to 65535 a side)"
        )));
    }
    #[cfg(target_arch = "x86_64")]
    if super::avx2::detected() {
        // SAFETY: the CPU has the features `encode_avx2` is compiled for.
        return Ok(unsafe { encode_avx2(image, quality) });
    }
    Ok(encode_checked(image, quality, |block, quantizer| {
        quantizer.quantize(&fdct_islow(block))
    }))
}

/// [`encode_checked`] compiled for AVX2 and the bit instructions of its generation, with
/// its DCT and quantization in intrinsics and its colour conversion in lane loops.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
unsafe fn encode_avx2(image: &Image, quality: u8) -> Vec<u8> {
    encode_checked(image, quality, |block, quantizer| {
        super::avx2::fdct_quantize(block, quantizer)
    })
}

/// [`encode`] of an image whose size and channels were checked; `transform` turns a
/// block of samples into quantized coefficients (natural order).
#[inline(always)]
fn encode_checked(
    image: &Image,
    quality: u8,
    transform: impl Fn(&[[u8; 8]; 8], &Quantizer) -> [i16; 64],
) -> Vec<u8> {
    let (w, h, c) = (image.width, image.height, image.channels);
    let color = c == 3;
    // Luma sampled 2×2 in colour: an MCU is 16×16 pixels; in gray one block.
    let mcu = if color { 16 } else { 8 };
    let (mcus_x, mcus_y) = (w.div_ceil(mcu), h.div_ceil(mcu));
    let (pw, ph) = (mcus_x * mcu, mcus_y * mcu);
    // Full-resolution planes, edges replicated to whole MCUs.
    let mut full: Vec<Vec<u8>> = vec![vec![0; pw * ph]; c];
    for y in 0..h {
        let src = &image.data[y * w * c..(y + 1) * w * c];
        let at = y * pw;
        match &mut full[..] {
            [luma, cb, cr] => {
                // Zipped rows, no indexing: the loop vectorizes (interleaved loads).
                for (((px, y), cb), cr) in (src.chunks_exact(3))
                    .zip(&mut luma[at..at + w])
                    .zip(&mut cb[at..at + w])
                    .zip(&mut cr[at..at + w])
                {
                    [*y, *cb, *cr] = ycc(px[0], px[1], px[2]);
                }
            }
            // One channel (`encode` admits 1 or 3): the samples as they are.
            planes => planes[0][at..at + w].copy_from_slice(src),
        }
        for plane in &mut full {
            let last = plane[at + w - 1];
            plane[at + w..at + pw].fill(last);
        }
    }
    for plane in &mut full {
        let last = (h - 1) * pw;
        for y in h..ph {
            plane.copy_within(last..last + pw, y * pw);
        }
    }
    // Luma (or gray) at full resolution, chroma downsampled.
    let mut planes: Vec<Plane> = Vec::with_capacity(c);
    for (k, component) in full.into_iter().enumerate() {
        if k == 0 {
            planes.push(Plane {
                samples: component,
                stride: pw,
            });
            continue;
        }
        let chroma = component;
        // libjpeg's h2v2_downsample: the mean of each 2×2, rounding 1 and 2 in turn, over
        // the image's rows (the last repeated to an even count); below them libjpeg
        // repeats the last downsampled row, not the image's last row.
        let (cw, ch) = (pw / 2, ph / 2);
        let mut samples = vec![0u8; cw * ch];
        let rows = h.div_ceil(2);
        for y in 0..rows {
            let (top, bottom) = (
                &chroma[2 * y * pw..][..pw],
                &chroma[(2 * y + 1) * pw..][..pw],
            );
            let out = &mut samples[y * cw..(y + 1) * cw];
            for (x, ((o, t), b)) in (out.iter_mut())
                .zip(top.chunks_exact(2))
                .zip(bottom.chunks_exact(2))
                .enumerate()
            {
                let sum = u16::from(t[0]) + u16::from(t[1]) + u16::from(b[0]) + u16::from(b[1]);
                *o = ((sum + 1 + (x as u16 & 1)) >> 2) as u8;
            }
        }
        let last = (rows - 1) * cw;
        for y in rows..ch {
            samples.copy_within(last..last + cw, y * cw);
        }
        planes.push(Plane {
            samples,
            stride: cw,
        });
    }
    let luma_quant = scaled_table(&LUMA_QUANT, quality);
    let chroma_quant = scaled_table(&CHROMA_QUANT, quality);
    let (luma_dc, luma_ac) = (Codes::new(&LUMA_DC), Codes::new(&LUMA_AC));
    let (chroma_dc, chroma_ac) = (Codes::new(&CHROMA_DC), Codes::new(&CHROMA_AC));
    let mut coders = vec![Coder {
        quantizer: Quantizer::new(&luma_quant),
        dc: &luma_dc,
        ac: &luma_ac,
        last_dc: 0,
    }];
    for _ in 1..c {
        coders.push(Coder {
            quantizer: Quantizer::new(&chroma_quant),
            dc: &chroma_dc,
            ac: &chroma_ac,
            last_dc: 0,
        });
    }

    let mut entropy = Vec::with_capacity(w * h * c / 4);
    let (mut bits, mut scratch) = (BitWriter::default(), [0u8; BLOCK_BYTES]);
    let mut emit = |coder: &mut Coder, block: &[i16; 64]| {
        coder.write_to(block, &mut bits, &mut scratch, &mut entropy)
    };
    // The blocks of the image proper; MCU blocks past them are libjpeg's dummy blocks.
    let (luma_bw, luma_bh) = (w.div_ceil(8), h.div_ceil(8));
    for my in 0..mcus_y {
        for mx in 0..mcus_x {
            if color {
                let mut last = [0i16; 64];
                for v in 0..2 {
                    for u in 0..2 {
                        let (bx, by) = (mx * 2 + u, my * 2 + v);
                        let block = if bx >= luma_bw || by >= luma_bh {
                            dummy(last[0])
                        } else {
                            transform(&planes[0].block(bx, by), &coders[0].quantizer)
                        };
                        emit(&mut coders[0], &block);
                        last = block;
                    }
                }
                for k in 1..3 {
                    let block = transform(&planes[k].block(mx, my), &coders[k].quantizer);
                    emit(&mut coders[k], &block);
                }
            } else {
                let block = transform(&planes[0].block(mx, my), &coders[0].quantizer);
                emit(&mut coders[0], &block);
            }
        }
    }
    bits.len = 0;
    bits.flush(&mut scratch);
    entropy.extend_from_slice(&scratch[..bits.len]);
    file(w, h, color, &luma_quant, &chroma_quant, &entropy)
}

/// libjpeg's dummy block: zero but for the DC of the block before it.
fn dummy(dc: i16) -> [i16; 64] {
    let mut block = [0i16; 64];
    block[0] = dc;
    block
}

/// The markers around the entropy-coded data, in libjpeg's order.
fn file(
    w: usize,
    h: usize,
    color: bool,
    luma_quant: &[u16; 64],
    chroma_quant: &[u16; 64],
    entropy: &[u8],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(entropy.len() + 700);
    out.extend_from_slice(&[0xFF, 0xD8]);
    let segment = |out: &mut Vec<u8>, marker: u8, body: &[u8]| {
        out.extend_from_slice(&[0xFF, marker]);
        out.extend_from_slice(&(body.len() as u16 + 2).to_be_bytes());
        out.extend_from_slice(body);
    };
    segment(
        &mut out,
        0xE0,
        b"JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00",
    );
    let quant = |id: u8, table: &[u16; 64]| -> Vec<u8> {
        std::iter::once(id)
            .chain(NATURAL_ORDER[..64].iter().map(|&k| table[k] as u8))
            .collect()
    };
    segment(&mut out, 0xDB, &quant(0, luma_quant));
    if color {
        segment(&mut out, 0xDB, &quant(1, chroma_quant));
    }
    let mut frame = vec![8];
    frame.extend_from_slice(&(h as u16).to_be_bytes());
    frame.extend_from_slice(&(w as u16).to_be_bytes());
    match color {
        true => frame.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]),
        false => frame.extend_from_slice(&[1, 1, 0x11, 0]),
    }
    segment(&mut out, 0xC0, &frame);
    let huffman = |class_id: u8, spec: &HuffmanSpec| -> Vec<u8> {
        let mut body = vec![class_id];
        body.extend_from_slice(&spec.counts);
        body.extend_from_slice(spec.symbols);
        body
    };
    segment(&mut out, 0xC4, &huffman(0x00, &LUMA_DC));
    segment(&mut out, 0xC4, &huffman(0x10, &LUMA_AC));
    if color {
        segment(&mut out, 0xC4, &huffman(0x01, &CHROMA_DC));
        segment(&mut out, 0xC4, &huffman(0x11, &CHROMA_AC));
        segment(&mut out, 0xDA, &[3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]);
    } else {
        segment(&mut out, 0xDA, &[1, 1, 0x00, 0, 63, 0]);
    }
    out.extend_from_slice(entropy);
    out.extend_from_slice(&[0xFF, 0xD9]);
    out
}
