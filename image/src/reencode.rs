//! `im2rec`'s image transformation (without `--pass-through`): read as OpenCV's
//! `imread` ([`imread`]: `--color` 1: colour, 0: gray, -1: as stored; EXIF orientation
//! applied to colour and gray JPEGs), crop the centre square
//! (`--center-crop`), resize the shorter edge (`--resize`, bilinear as OpenCV), encode as
//! JPEG (`--quality` 1-100; kiln's encoder writes libjpeg-turbo's bytes, as OpenCV's
//! `imencode` does) or PNG (`--quality` as OpenCV's compression level, clamped to 9: 0-3
//! fast, 4-6 default, 7 and up best; the png crate's bytes, which decode to the same
//! pixels as OpenCV's).

use crate::augment::{crop, shorter_edge_size};
use crate::encode::encode_png_level;
use crate::orientation::{apply_orientation, exif_orientation};
use crate::{decode, resize_bilinear, Error, Image, Result, Window};

/// An image file's encoding in a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Jpeg,
    Png,
}

impl std::str::FromStr for Encoding {
    type Err = Error;
    fn from_str(s: &str) -> Result<Encoding> {
        match s {
            ".jpg" | ".jpeg" => Ok(Encoding::Jpeg),
            ".png" => Ok(Encoding::Png),
            _ => Err(Error::Input(format!("encoding `{s}`: .jpg or .png"))),
        }
    }
}

/// How images are transformed before packing.
#[derive(Clone, Debug, PartialEq)]
pub struct Reencode {
    /// The shorter edge's length after resizing (0: as is).
    pub resize: usize,
    pub center_crop: bool,
    pub quality: u8,
    pub encoding: Encoding,
    /// 1 colour, 0 gray, -1 as stored.
    pub color: i8,
}

impl Reencode {
    /// The transformed image's encoded bytes.
    pub fn apply(&self, bytes: &[u8]) -> Result<Vec<u8>> {
        let mut image = imread(bytes, self.color)?;
        if self.center_crop {
            image = center_square(&image);
        }
        if self.resize > 0 {
            let (nw, nh) = shorter_edge_size((image.width, image.height), self.resize)?;
            image = resize_bilinear(&image, nw, nh);
        }
        match self.encoding {
            Encoding::Png => encode_png_level(&image, self.quality),
            Encoding::Jpeg => crate::jpeg::encode(&image, self.quality),
        }
    }
}

/// An image file read as OpenCV's `imread` reads it with `flags` 1 (colour), 0 (gray) or
/// -1 (as stored): decoded, then — for colour and gray JPEGs — turned by its EXIF
/// orientation.
pub fn imread(bytes: &[u8], flags: i8) -> Result<Image> {
    let channels = match flags {
        1 => 3,
        0 => 1,
        -1 => stored_channels(bytes),
        c => return Err(Error::Input(format!("--color {c}: 1, 0 or -1"))),
    };
    let image = decode(bytes, channels)?;
    Ok(match exif_orientation(bytes) {
        Some(orientation) if flags != -1 => apply_orientation(image, orientation),
        _ => image,
    })
}

/// The channels a file stores, as OpenCV's `IMREAD_UNCHANGED` keeps them (PNG alpha kept,
/// gray kept gray).
fn stored_channels(bytes: &[u8]) -> usize {
    let png_color = bytes.get(25).copied();
    match (bytes.starts_with(b"\x89PNG"), png_color) {
        (true, Some(0)) => 1,
        (true, Some(4 | 6)) => 4,
        (false, _) if crate::jpeg::components(bytes) == Some(1) => 1,
        _ => 3,
    }
}

/// The centre square, as im2rec.py crops it.
fn center_square(image: &Image) -> Image {
    let (h, w) = (image.height, image.width);
    let side = h.min(w);
    let window = Window {
        x: (w - side) / 2,
        y: (h - side) / 2,
        width: side,
        height: side,
    };
    crop(image, window)
}
