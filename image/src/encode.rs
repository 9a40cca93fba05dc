//! PNG encoding of an image, to show what a record holds.

use crate::{Error, Image, Result};

/// `image` as PNG bytes (8-bit gray, RGB or RGBA), zlib's default compression.
pub fn encode_png(image: &Image) -> Result<Vec<u8>> {
    encode_png_at(image, png::Compression::Balanced)
}

/// [`encode_png`] at an OpenCV compression level (0-9; above 9 is 9, as OpenCV clamps).
pub(crate) fn encode_png_level(image: &Image, level: u8) -> Result<Vec<u8>> {
    let compression = match level {
        0..=3 => png::Compression::Fast,
        4..=6 => png::Compression::Balanced,
        _ => png::Compression::High,
    };
    encode_png_at(image, compression)
}

fn encode_png_at(image: &Image, compression: png::Compression) -> Result<Vec<u8>> {
    let color = match image.channels {
        1 => png::ColorType::Grayscale,
        3 => png::ColorType::Rgb,
        4 => png::ColorType::Rgba,
        c => return Err(Error::Input(format!("a PNG of {c} channels"))),
    };
    let bad = |e: png::EncodingError| Error::Input(format!("PNG: {e}"));
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width as u32, image.height as u32);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(compression);
    let mut writer = encoder.write_header().map_err(bad)?;
    writer.write_image_data(&image.data).map_err(bad)?;
    writer.finish().map_err(bad)?;
    Ok(out)
}
