//! Decoding as MXNet's ImageRecordIter decodes: JPEG through libjpeg-turbo's
//! `tjDecompress2` (colour, or its luminance channel for one channel; here kiln's own
//! decoder, [`crate::jpeg`], whose pixels equal libjpeg-turbo's), anything else through
//! OpenCV's `imdecode` (PNG: 16-bit samples cut to their high byte, palettes
//! expanded, alpha dropped for colour, colour turned gray by libpng's `rgb_to_gray` with
//! OpenCV's weights). Images larger than [`MAX_PIXELS`] are refused before decoding.

use crate::Error;
use crate::{Image, Result};

/// The most pixels an image may claim (about 16K × 16K).
pub const MAX_PIXELS: usize = 1 << 28;

/// Decodes `bytes` into an image of `channels` (1: luminance, 3: RGB, 4: RGBA). A
/// decoder's panic on a malformed file is an error too.
pub fn decode(bytes: &[u8], channels: usize) -> Result<Image> {
    if !matches!(channels, 1 | 3 | 4) {
        return Err(Error::Input(format!(
            "images decode to 1, 3 or 4 channels, not {channels}"
        )));
    }
    let decoded = std::panic::catch_unwind(|| match bytes {
        [0xFF, 0xD8, ..] if channels != 4 => crate::jpeg::decode(bytes, channels, check_size),
        [0x89, b'P', b'N', b'G', ..] => png(bytes, channels),
        [0xFF, 0xD8, ..] => Err(Error::Input(
            "a JPEG has no alpha channel: 4 channels need a PNG".into(),
        )),
        _ => Err(Error::Input(format!(
            "not a JPEG or PNG image (first bytes {:02x?})",
            &bytes[..bytes.len().min(4)]
        ))),
    });
    decoded.unwrap_or_else(|_| Err(Error::Input("the image's decoder failed on it".into())))
}

fn check_size(width: usize, height: usize) -> Result<()> {
    match width.checked_mul(height) {
        Some(p) if p <= MAX_PIXELS && p > 0 => Ok(()),
        _ => Err(Error::Input(format!(
            "an image of {width}×{height} pixels (at most {MAX_PIXELS})"
        ))),
    }
}

fn png(bytes: &[u8], channels: usize) -> Result<Image> {
    use png::{ColorType, Transformations};
    let bad = |e: png::DecodingError| Error::Input(format!("PNG: {e}"));
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(Transformations::EXPAND | Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(bad)?;
    let (width, height) = (reader.info().width as usize, reader.info().height as usize);
    check_size(width, height)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| Error::Input("PNG: the image is too large".into()))?;
    let mut buf = vec![0; size];
    let frame = reader.next_frame(&mut buf).map_err(bad)?;
    buf.truncate(frame.buffer_size());
    let stored = match frame.color_type {
        ColorType::Grayscale => 1,
        ColorType::GrayscaleAlpha => 2,
        ColorType::Rgb => 3,
        ColorType::Rgba => 4,
        ColorType::Indexed => return Err(Error::Input("PNG: a palette left unexpanded".into())),
    };
    let pixels = buf.chunks_exact(stored);
    let data: Vec<u8> = match (stored, channels) {
        (1, 1) => buf,
        (2, 1) => pixels.map(|p| p[0]).collect(),
        (3 | 4, 1) => pixels.map(|p| rgb_to_gray(p[0], p[1], p[2])).collect(),
        (1 | 2, 3) => pixels.flat_map(|p| [p[0]; 3]).collect(),
        (3 | 4, 3) => pixels.flat_map(|p| [p[0], p[1], p[2]]).collect(),
        (1, 4) => pixels.flat_map(|p| [p[0], p[0], p[0], 255]).collect(),
        (2, 4) => pixels.flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        (3, 4) => pixels.flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        (4, 4) => buf,
        _ => unreachable!("1, 3 or 4 channels were checked"),
    };
    Ok(Image {
        height,
        width,
        channels,
        data,
    })
}

/// libpng's `png_do_rgb_to_gray` for 8-bit samples without gamma (truncating), with the
/// weights OpenCV sets (0.299, 0.587) as libpng stores them: 15-bit fixed point rounded
/// down, blue the rest.
fn rgb_to_gray(r: u8, g: u8, b: u8) -> u8 {
    const RED: u32 = 29_900 * 32_768 / 100_000;
    const GREEN: u32 = 58_700 * 32_768 / 100_000;
    const BLUE: u32 = 32_768 - RED - GREEN;
    if r == g && g == b {
        return r;
    }
    ((RED * u32::from(r) + GREEN * u32::from(g) + BLUE * u32::from(b)) >> 15) as u8
}
