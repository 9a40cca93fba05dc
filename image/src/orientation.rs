//! EXIF orientation, as OpenCV's `imread` applies it (colour and gray reads, not
//! `IMREAD_UNCHANGED`): the Orientation tag (0x0112) of a JPEG's APP1 Exif segment turns
//! the decoded image by flips and a transpose. im2rec.py reads images so; MXNet's
//! ImageRecordIter (TurboJPEG) does not, and neither does kiln's.

use crate::Image;

/// The EXIF orientation (1–8) a JPEG declares, if any. Malformed segments are ignored, as
/// OpenCV's reader ignores them.
pub fn exif_orientation(jpeg: &[u8]) -> Option<u16> {
    let mut pos = 2;
    while let [0xFF, marker, hi, lo, ..] = *jpeg.get(pos..)? {
        let len = usize::from(u16::from_be_bytes([hi, lo]));
        if matches!(marker, 0xDA | 0xD9) || len < 2 {
            return None;
        }
        let body = jpeg.get(pos + 4..pos + 2 + len)?;
        if marker == 0xE1 && body.starts_with(b"Exif\0\0") {
            return tiff_orientation(&body[6..]);
        }
        pos += 2 + len;
    }
    None
}

/// The Orientation entry of a TIFF header's first IFD.
fn tiff_orientation(tiff: &[u8]) -> Option<u16> {
    let little = match tiff.get(..4)? {
        b"II*\0" => true,
        b"MM\0*" => false,
        _ => return None,
    };
    let u16_at = |at: usize| {
        let b: [u8; 2] = tiff.get(at..at + 2)?.try_into().ok()?;
        Some(if little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        })
    };
    let u32_at = |at: usize| {
        let b: [u8; 4] = tiff.get(at..at + 4)?.try_into().ok()?;
        Some(if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    };
    let ifd = usize::try_from(u32_at(4)?).ok()?;
    let entries = usize::from(u16_at(ifd)?);
    (0..entries).find_map(|i| {
        let at = ifd + 2 + 12 * i;
        (u16_at(at)? == 0x0112)
            .then(|| u16_at(at + 8))
            .flatten()
            .filter(|o| (1..=8).contains(o))
    })
}

/// `image` turned as OpenCV's `ApplyExifOrientation` turns it for `orientation`.
pub fn apply_orientation(image: Image, orientation: u16) -> Image {
    // (transpose first, then flip columns, flip rows)
    let (transpose, flip_x, flip_y) = match orientation {
        2 => (false, true, false),
        3 => (false, true, true),
        4 => (false, false, true),
        5 => (true, false, false),
        6 => (true, true, false),
        7 => (true, true, true),
        8 => (true, false, true),
        _ => return image,
    };
    let (h, w, c) = (image.height, image.width, image.channels);
    let (oh, ow) = if transpose { (w, h) } else { (h, w) };
    let mut data = vec![0u8; image.data.len()];
    for y in 0..oh {
        for x in 0..ow {
            let (sx, sy) = (
                if flip_x { ow - 1 - x } else { x },
                if flip_y { oh - 1 - y } else { y },
            );
            let (sy, sx) = if transpose { (sx, sy) } else { (sy, sx) };
            let from = (sy * w + sx) * c;
            data[(y * ow + x) * c..][..c].copy_from_slice(&image.data[from..from + c]);
        }
    }
    Image {
        height: oh,
        width: ow,
        channels: c,
        data,
    }
}
