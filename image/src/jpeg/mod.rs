//! A JPEG decoder whose pixels equal libjpeg-turbo's with its default settings, which
//! is how MXNet decodes (through TurboJPEG in ImageRecordIter, OpenCV's libjpeg-turbo in
//! `imdecode`): baseline, extended and progressive Huffman-coded 8-bit images of 1 or 3
//! components, libjpeg's ISLOW IDCT ([`idct`]), fancy upsampling and fixed-point colour
//! conversion ([`color`]).
//!
//! Written here rather than taken from a crate because the Rust decoders (jpeg-decoder,
//! zune-jpeg) use other IDCTs and upsampling filters: their pixels differ from
//! libjpeg's by up to 3, so a model fed by kiln would not see what it saw under MXNet.
//!
//! Refused by name: arithmetic coding, lossless and hierarchical frames, 12-bit samples,
//! and 2 or 4 components (CMYK). EXIF orientation is not applied (TurboJPEG does not
//! apply it either).

#[cfg(target_arch = "x86_64")]
mod avx2;
mod color;
mod dct;
mod encoder;
mod entropy;
mod fdct;
mod idct;
mod tables;

pub use encoder::encode;

use crate::{Error, Image, Result};
use color::Plane;
use entropy::{Huffman, Scan, ScanComponent};

/// A frame component (SOF): sampling factors, quantization table, and the size of its
/// coefficient array in blocks (whole MCUs).
pub struct Component {
    id: u8,
    h: usize,
    v: usize,
    quant_table: usize,
    blocks_wide: usize,
    blocks_high: usize,
}

/// The frame header (SOF) and what follows from it.
pub struct Frame {
    progressive: bool,
    width: usize,
    height: usize,
    components: Vec<Component>,
    max_h: usize,
    max_v: usize,
}

impl Frame {
    /// MCUs across and down when components interleave.
    fn mcus(&self) -> (usize, usize) {
        (
            self.width.div_ceil(8 * self.max_h),
            self.height.div_ceil(8 * self.max_v),
        )
    }
}

impl Component {
    /// The samples of this component that hold image data (libjpeg's
    /// `downsampled_width` and `_height`).
    fn samples(&self, frame: &Frame) -> (usize, usize) {
        (
            (frame.width * self.h).div_ceil(frame.max_h),
            (frame.height * self.v).div_ceil(frame.max_v),
        )
    }

    /// The blocks that hold image data: what a scan of this component alone codes.
    fn blocks_with_data(&self, frame: &Frame) -> (usize, usize) {
        let (w, h) = self.samples(frame);
        (w.div_ceil(8), h.div_ceil(8))
    }
}

fn bad(message: impl std::fmt::Display) -> Error {
    Error::Input(format!("JPEG: {message}"))
}

/// Reads the big-endian u16 at `at`.
fn u16_at(data: &[u8], at: usize) -> Result<u16> {
    data.get(at..at + 2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
        .ok_or_else(|| {
            bad(format!(
                "the data ends at byte {} inside a header",
                data.len()
            ))
        })
}

/// Everything read from the markers before and between scans.
#[derive(Default)]
struct Headers {
    frame: Option<Frame>,
    quant: [Option<[u16; 64]>; 4],
    dc_tables: [Option<Huffman>; 4],
    ac_tables: [Option<Huffman>; 4],
    restart_interval: usize,
    saw_jfif: bool,
    adobe_transform: Option<u8>,
}

/// The number of components a JPEG's frame header declares, if it has one.
pub fn components(data: &[u8]) -> Option<usize> {
    let mut pos = 2;
    while let [0xFF, marker, hi, lo, ..] = *data.get(pos..)? {
        let len = usize::from(u16::from_be_bytes([hi, lo]));
        match marker {
            0xC0..=0xCF if !matches!(marker, 0xC4 | 0xC8 | 0xCC) => {
                return data.get(pos + 9).map(|&n| usize::from(n));
            }
            0xDA | 0xD9 => return None,
            _ if len < 2 => return None,
            _ => pos += 2 + len,
        }
    }
    None
}

/// Decodes a JPEG into an image of `channels` (1: luminance, 3: RGB) as TurboJPEG does
/// for TJPF_GRAY and TJPF_RGB; `check_size` vets the dimensions before anything is
/// allocated.
pub fn decode(
    data: &[u8],
    channels: usize,
    check_size: impl Fn(usize, usize) -> Result<()>,
) -> Result<Image> {
    #[cfg(target_arch = "x86_64")]
    if avx2::detected() {
        // SAFETY: the CPU has the features `decode_avx2` is compiled for.
        return unsafe { decode_avx2(data, channels, check_size) };
    }
    decode_with(data, channels, check_size, idct::idct_islow)
}

/// [`decode_with`] compiled for AVX2 and BMI2 (the bit reader's shifts), with its IDCT in
/// intrinsics.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
unsafe fn decode_avx2(
    data: &[u8],
    channels: usize,
    check_size: impl Fn(usize, usize) -> Result<()>,
) -> Result<Image> {
    decode_with(data, channels, check_size, |c, q, out, stride| {
        avx2::idct_islow(c, q, out, stride)
    })
}

/// [`decode`] with `idct`, which turns one block's coefficients into 8×8 samples at
/// `out[row * stride + col]`.
#[inline(always)]
fn decode_with(
    data: &[u8],
    channels: usize,
    check_size: impl Fn(usize, usize) -> Result<()>,
    idct: impl Fn(&[i16; 64], &[u16; 64], &mut [u8], usize),
) -> Result<Image> {
    if !data.starts_with(&[0xFF, 0xD8]) {
        return Err(bad("no start-of-image marker"));
    }
    let mut headers = Headers::default();
    let mut coefficients: Vec<Vec<[i16; 64]>> = Vec::new();
    // Each component's quantization table as it was at the component's first scan: libjpeg
    // latches it there, so a DQT between scans does not change earlier components.
    let mut latched: Vec<Option<[u16; 64]>> = Vec::new();
    let mut pos = 2;
    let mut scans = 0;
    loop {
        // Markers may be preceded by fill bytes (and, after a damaged scan, by stray data
        // that libjpeg skips with a warning).
        while pos < data.len() && data[pos] != 0xFF {
            pos += 1;
        }
        while pos < data.len() && data[pos] == 0xFF {
            pos += 1;
        }
        let Some(&marker) = data.get(pos) else {
            if scans > 0 {
                break; // A truncated file after its scans: libjpeg decodes what it has.
            }
            return Err(bad("the data ends before the first scan"));
        };
        pos += 1;
        match marker {
            0xD9 => break,
            0xD0..=0xD7 | 0x01 | 0x00 => continue,
            0xDA => {
                let frame = headers
                    .frame
                    .as_ref()
                    .ok_or_else(|| bad("a scan before the frame header"))?;
                let len = usize::from(u16_at(data, pos)?);
                let scan = parse_scan(
                    data.get(pos + 2..pos + len)
                        .ok_or_else(|| bad("the scan header runs past the data"))?,
                    frame,
                )?;
                for c in &scan.components {
                    let component = &frame.components[c.index];
                    if latched[c.index].is_none() {
                        let table = headers.quant[component.quant_table].ok_or_else(|| {
                            bad(format!(
                                "component {} uses quantization table {}, which no DQT defines before its first scan",
                                component.id, component.quant_table
                            ))
                        })?;
                        latched[c.index] = Some(table);
                    }
                }
                pos = entropy::decode_scan(
                    data,
                    pos + len,
                    frame,
                    &mut coefficients,
                    &scan,
                    (&headers.dc_tables, &headers.ac_tables),
                    headers.restart_interval,
                )
                .map_err(bad)?;
                scans += 1;
            }
            _ => {
                let len = usize::from(u16_at(data, pos)?);
                if len < 2 {
                    return Err(bad(format!("marker FF{marker:02X} has length {len}")));
                }
                let body = data.get(pos + 2..pos + len).ok_or_else(|| {
                    bad(format!(
                        "marker FF{marker:02X} at byte {} runs past the data",
                        pos - 2
                    ))
                })?;
                read_marker(marker, body, &mut headers)?;
                if let (0xC0..=0xC2, Some(frame)) = (marker, &headers.frame) {
                    check_size(frame.width, frame.height)?;
                    coefficients = frame
                        .components
                        .iter()
                        .map(|c| vec![[0i16; 64]; c.blocks_wide * c.blocks_high])
                        .collect();
                    latched = vec![None; frame.components.len()];
                }
                pos += len;
            }
        }
    }
    // A scan needs a frame, so a frame and no scan is the one case left.
    let Some(frame) = headers.frame.as_ref().filter(|_| scans > 0) else {
        return Err(bad("no scan"));
    };
    // A component no scan coded has no latched table and zero coefficients: libjpeg's
    // zeroed multipliers make it flat mid-gray, as any table would.
    let quant: Vec<[u16; 64]> = latched.iter().map(|t| t.unwrap_or([0; 64])).collect();
    let space = color_space(&headers, frame);
    let planes = inverse_dct(frame, &coefficients, &quant, idct);
    Ok(to_pixels(frame, &planes, space, channels))
}

fn read_marker(marker: u8, body: &[u8], headers: &mut Headers) -> Result<()> {
    match marker {
        0xC0..=0xC2 => {
            if headers.frame.is_some() {
                return Err(bad("a second frame header"));
            }
            headers.frame = Some(parse_frame(body, marker == 0xC2)?);
        }
        0xC3 | 0xC5..=0xC7 | 0xCB | 0xCD..=0xCF => {
            return Err(bad(format!(
                "a lossless or hierarchical frame (SOF marker FF{marker:02X})"
            )))
        }
        0xC9 | 0xCA => {
            return Err(bad(format!(
                "arithmetic coding (SOF marker FF{marker:02X})"
            )))
        }
        0xC4 => parse_huffman(body, headers)?,
        0xDB => parse_quant(body, headers)?,
        0xDD => headers.restart_interval = usize::from(u16_at(body, 0)?),
        0xE0 if body.starts_with(b"JFIF\0") => headers.saw_jfif = true,
        0xEE if body.starts_with(b"Adobe") && body.len() >= 12 => {
            headers.adobe_transform = Some(body[11]);
        }
        _ => {} // APPn, COM and others carry nothing the pixels depend on.
    }
    Ok(())
}

fn parse_frame(body: &[u8], progressive: bool) -> Result<Frame> {
    let precision = *body.first().ok_or_else(|| bad("an empty frame header"))?;
    if precision != 8 {
        return Err(bad(format!("{precision}-bit samples (8-bit are read)")));
    }
    let height = usize::from(u16_at(body, 1)?);
    let width = usize::from(u16_at(body, 3)?);
    if height == 0 || width == 0 {
        return Err(bad(format!("a frame of {width}×{height} pixels")));
    }
    let count = usize::from(*body.get(5).ok_or_else(|| bad("a short frame header"))?);
    if !matches!(count, 1 | 3) {
        return Err(bad(format!("{count} components (1 and 3 are read)")));
    }
    let mut components = Vec::with_capacity(count);
    for i in 0..count {
        let c = body
            .get(6 + 3 * i..9 + 3 * i)
            .ok_or_else(|| bad("a short frame header"))?;
        let (h, v) = (usize::from(c[1] >> 4), usize::from(c[1] & 15));
        if !(1..=4).contains(&h) || !(1..=4).contains(&v) || c[2] > 3 {
            return Err(bad(format!(
                "component {} has sampling {h}×{v} and quantization table {}",
                c[0], c[2]
            )));
        }
        components.push(Component {
            id: c[0],
            h,
            v,
            quant_table: usize::from(c[2]),
            blocks_wide: 0,
            blocks_high: 0,
        });
    }
    if count == 1 {
        // A single component is never interleaved: its own factors do not matter.
        components[0].h = 1;
        components[0].v = 1;
    }
    let max_h = components.iter().map(|c| c.h).max().unwrap_or(1);
    let max_v = components.iter().map(|c| c.v).max().unwrap_or(1);
    // libjpeg's D_MAX_BLOCKS_IN_MCU: an interleaved MCU holds at most 10 blocks.
    if count > 1 && components.iter().map(|c| c.h * c.v).sum::<usize>() > 10 {
        return Err(bad("sampling factors too large for an interleaved scan"));
    }
    if components
        .iter()
        .any(|c| max_h % c.h != 0 || max_v % c.v != 0)
    {
        return Err(bad("fractional sampling factors"));
    }
    let mut frame = Frame {
        progressive,
        width,
        height,
        components,
        max_h,
        max_v,
    };
    let (mx, my) = frame.mcus();
    for c in &mut frame.components {
        c.blocks_wide = mx * c.h;
        c.blocks_high = my * c.v;
    }
    Ok(frame)
}

fn parse_huffman(mut body: &[u8], headers: &mut Headers) -> Result<()> {
    while !body.is_empty() {
        let class_id = body[0];
        let counts: &[u8; 16] = body
            .get(1..17)
            .and_then(|c| c.try_into().ok())
            .ok_or_else(|| bad("a short Huffman table"))?;
        let total: usize = counts.iter().map(|&c| usize::from(c)).sum();
        let symbols = body
            .get(17..17 + total)
            .ok_or_else(|| bad("a short Huffman table"))?;
        let (class, id) = (class_id >> 4, usize::from(class_id & 15));
        if class > 1 || id > 3 {
            return Err(bad(format!("Huffman table class {class}, id {id}")));
        }
        let table = Huffman::new(counts, symbols, class == 1)
            .ok_or_else(|| bad(format!("Huffman table {id} has more codes than fit")))?;
        if class == 0 {
            headers.dc_tables[id] = Some(table);
        } else {
            headers.ac_tables[id] = Some(table);
        }
        body = &body[17 + total..];
    }
    Ok(())
}

fn parse_quant(mut body: &[u8], headers: &mut Headers) -> Result<()> {
    while !body.is_empty() {
        let (precision, id) = (body[0] >> 4, usize::from(body[0] & 15));
        let size = if precision == 0 { 64 } else { 128 };
        let values = body
            .get(1..1 + size)
            .ok_or_else(|| bad("a short quantization table"))?;
        if precision > 1 || id > 3 {
            return Err(bad(format!(
                "quantization table precision {precision}, id {id}"
            )));
        }
        let zigzag: [u16; 64] = std::array::from_fn(|k| match precision {
            0 => u16::from(values[k]),
            _ => u16::from_be_bytes([values[2 * k], values[2 * k + 1]]),
        });
        headers.quant[id] = Some(entropy::natural_from_zigzag(&zigzag));
        body = &body[1 + size..];
    }
    Ok(())
}

fn parse_scan(body: &[u8], frame: &Frame) -> Result<Scan> {
    let count = usize::from(*body.first().ok_or_else(|| bad("an empty scan header"))?);
    if count == 0 || count > 4 || body.len() < 4 + 2 * count {
        return Err(bad(format!("a scan header of {count} components")));
    }
    let mut components = Vec::with_capacity(count);
    for i in 0..count {
        let (id, tables) = (body[1 + 2 * i], body[2 + 2 * i]);
        let index = frame
            .components
            .iter()
            .position(|c| c.id == id)
            .ok_or_else(|| {
                bad(format!(
                    "the scan names component {id}, which the frame lacks"
                ))
            })?;
        let (dc_table, ac_table) = (usize::from(tables >> 4), usize::from(tables & 15));
        if dc_table > 3 || ac_table > 3 {
            return Err(bad(format!("scan Huffman tables {dc_table}/{ac_table}")));
        }
        components.push(ScanComponent {
            index,
            dc_table,
            ac_table,
        });
    }
    let at = 1 + 2 * count;
    let (ss, se, a) = (
        usize::from(body[at]),
        usize::from(body[at + 1]),
        body[at + 2],
    );
    let (ah, al) = (u32::from(a >> 4), u32::from(a & 15));
    let valid = if frame.progressive {
        let band = if ss == 0 {
            se == 0
        } else {
            se >= ss && se <= 63 && count == 1
        };
        // A refinement scan adds exactly one bit (libjpeg's JERR_BAD_PROGRESSION).
        band && ah <= 13 && al <= 13 && (ah == 0 || al + 1 == ah)
    } else {
        // libjpeg ignores the band of a sequential scan.
        true
    };
    if !valid {
        return Err(bad(format!(
            "a progressive scan of band {ss}..={se}, approximation {ah}/{al}, {count} components"
        )));
    }
    let (spectral_start, spectral_end, approx_high, approx_low) = if frame.progressive {
        (ss, se, ah, al)
    } else {
        (0, 63, 0, 0)
    };
    Ok(Scan {
        components,
        spectral_start,
        spectral_end,
        approx_high,
        approx_low,
    })
}

/// The sample planes of every component (`blocks_wide * 8` samples a row). Loops, not
/// iterator closures, so that all of it is compiled for the caller's instruction set.
#[inline(always)]
fn inverse_dct(
    frame: &Frame,
    coefficients: &[Vec<[i16; 64]>],
    quant: &[[u16; 64]],
    idct: impl Fn(&[i16; 64], &[u16; 64], &mut [u8], usize),
) -> Vec<Vec<u8>> {
    let mut planes = Vec::with_capacity(frame.components.len());
    for (i, c) in frame.components.iter().enumerate() {
        let stride = c.blocks_wide * 8;
        let (bw, bh) = c.blocks_with_data(frame);
        let mut plane = vec![0u8; stride * bh * 8];
        for by in 0..bh {
            for bx in 0..bw {
                let block = &coefficients[i][by * c.blocks_wide + bx];
                let out = &mut plane[by * 8 * stride + bx * 8..];
                idct(block, &quant[i], out, stride);
            }
        }
        planes.push(plane);
    }
    planes
}

/// How the three components encode colour.
#[derive(Clone, Copy, PartialEq)]
enum ColorSpace {
    Gray,
    YCbCr,
    Rgb,
}

/// libjpeg's guess (`default_decompress_parms`): a JFIF marker means YCbCr, else an Adobe
/// marker's transform flag, else component ids 'R', 'G', 'B' mean RGB.
fn color_space(headers: &Headers, frame: &Frame) -> ColorSpace {
    if frame.components.len() == 1 {
        return ColorSpace::Gray;
    }
    let ids: Vec<u8> = frame.components.iter().map(|c| c.id).collect();
    if headers.saw_jfif {
        ColorSpace::YCbCr
    } else if let Some(transform) = headers.adobe_transform {
        if transform == 0 {
            ColorSpace::Rgb
        } else {
            ColorSpace::YCbCr
        }
    } else if ids == b"RGB" {
        ColorSpace::Rgb
    } else {
        ColorSpace::YCbCr
    }
}

#[inline(always)]
fn to_pixels(frame: &Frame, planes: &[Vec<u8>], space: ColorSpace, channels: usize) -> Image {
    let (width, height) = (frame.width, frame.height);
    let planes: Vec<Plane> = frame
        .components
        .iter()
        .zip(planes)
        .map(|(c, samples)| {
            let (w, h) = c.samples(frame);
            Plane {
                samples,
                stride: c.blocks_wide * 8,
                width: w,
                height: h,
                h_expand: frame.max_h / c.h,
                v_expand: frame.max_v / c.v,
            }
        })
        .collect();
    // A gray image from YCbCr is its luminance alone: the chroma is never upsampled.
    let used = if channels == 1 && space != ColorSpace::Rgb {
        1
    } else {
        planes.len()
    };
    let row_len = width.next_multiple_of(8 * frame.max_h) + 8;
    let mut rows = vec![vec![0u8; row_len]; used];
    let mut sums = Vec::new();
    let mut data = vec![0u8; width * height * channels];
    for (y, out) in data.chunks_exact_mut(width * channels).enumerate() {
        for (plane, row) in planes.iter().zip(&mut rows).take(used) {
            plane.upsample_row(y, &mut sums, row);
        }
        match (space, channels) {
            (ColorSpace::Gray, 3) => {
                for (px, &v) in out.chunks_exact_mut(3).zip(&rows[0]) {
                    px.fill(v);
                }
            }
            (ColorSpace::YCbCr, 3) => color::ycc_to_rgb(&rows[0], &rows[1], &rows[2], out),
            (ColorSpace::Rgb, 3) => {
                for (i, px) in out.chunks_exact_mut(3).enumerate() {
                    px.copy_from_slice(&[rows[0][i], rows[1][i], rows[2][i]]);
                }
            }
            (ColorSpace::Rgb, _) => color::rgb_to_gray(&rows[0], &rows[1], &rows[2], out),
            (_, _) => out.copy_from_slice(&rows[0][..width]),
        }
    }
    Image {
        height,
        width,
        channels,
        data,
    }
}
