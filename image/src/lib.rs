//! The image half of MXNet's data IO, computing what MXNet 1.9.1's libjpeg-turbo and
//! OpenCV compute, value for value: JPEG decoding and encoding (kiln's own codec, equal to
//! libjpeg-turbo's) and PNG (the `png` crate), OpenCV's resizes and affine warp, MXNet's
//! augmenters (resize, affine, crops, colour and lighting jitter, mean images,
//! normalization), [`ImageRecordIter`] over RecordIO files decoding on its own threads,
//! [`ImageIter`] over `.lst` files, and im2rec's re-encoding. The codecs live in this
//! crate so that kiln-io (and everything that only reads arrays) builds without them.

mod augment;
mod color_aug;
mod decode;
mod encode;
pub mod fuzz;
mod image_iter;
mod interpolation;
mod jpeg;
mod mean_image;
mod orientation;
mod params;
mod record_iter;
mod reencode;
mod resize;
mod warp;

pub use decode::decode;
pub use encode::encode_png;
pub use image_iter::{ImageIter, ImageIterParams};
pub use interpolation::{resize, Interpolation};
pub use jpeg::encode as encode_jpeg;
pub use params::{Affine, ImageRecordParams};
pub use record_iter::ImageRecordIter;
pub use reencode::{imread, Encoding, Reencode};
pub use resize::{resize_bilinear, resize_window, Window};
pub use warp::{warp_affine, WarpInterpolation};

/// An 8-bit image, rows of pixels of `channels` interleaved values: RGB for 3 channels,
/// RGBA for 4 (MXNet's order after its BGR → RGB swap), luminance for 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub height: usize,
    pub width: usize,
    pub channels: usize,
    pub data: Vec<u8>,
}

impl Image {
    /// The value of channel `c` of the pixel at row `y`, column `x`.
    pub fn at(&self, y: usize, x: usize, c: usize) -> u8 {
        self.data[(y * self.width + x) * self.channels + c]
    }
}

/// What the image pipeline refuses or fails at.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Io(#[from] kiln_io::Error),
    #[error(transparent)]
    Runtime(#[from] kiln_runtime::Error),
    /// A record's bytes are not an image record.
    #[error(transparent)]
    Corrupt(#[from] kiln_io::recordio::Corrupt),
    /// The image after resize and pad, smaller than the crop.
    #[error("the image is {width}×{height} (after resize and pad), smaller than data_shape's {crop_width}×{crop_height}")]
    TooSmall {
        width: usize,
        height: usize,
        crop_width: usize,
        crop_height: usize,
    },
    #[error("the record has {labels} label(s) but label_width is {label_width}")]
    LabelWidth { labels: usize, label_width: usize },
    /// An `inter_method` code that is not one of OpenCV's (0–4) or MXNet's 9 and 10.
    #[error("inter_method={0} is not 0-4, 9 or 10")]
    InterMethod(u8),
    #[error("image id {id} is not in path_imglist")]
    NotInImageList { id: u64 },
    /// What went wrong with one record of a file.
    #[error("{}: record {number}, starting at byte {offset}: {source}", path.display())]
    AtRecord {
        path: std::path::PathBuf,
        number: usize,
        offset: u64,
        source: Box<Error>,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
