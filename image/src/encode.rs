//! PNG encoding of an image, to show what a record holds.

use crate::{Error, Image, Result};

/// `image` as PNG bytes (8-bit gray, RGB or RGBA).
pub fn encode_png(image: &Image) -> Result<Vec<u8>> {
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
    let mut writer = encoder.write_header().map_err(bad)?;
    writer.write_image_data(&image.data).map_err(bad)?;
    writer.finish().map_err(bad)?;
    Ok(out)
}
