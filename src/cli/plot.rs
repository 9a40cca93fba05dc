//! `kiln train --plot FILE.png`: the training curves (each metric per epoch, training and
//! validation), drawn by plotters into a buffer with the font kiln ships
//! (assets/fonts/DejaVuSansMono.ttf, Bitstream Vera license beside it), so no system font
//! is needed, then encoded as PNG and written whole or not at all. Redrawn after every
//! epoch: a run stopped early keeps the curves so far.

use kiln::compiler::formats::atomic::write_atomically;
use kiln::{Error, Result};
use plotters::prelude::*;
use std::path::Path;

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");
const FAMILY: &str = "kiln-mono";
const SIZE: (u32, u32) = (800, 500);

/// One curve: its name (`Train-accuracy`) and a value per epoch, from `first_epoch`.
pub struct Curve {
    pub name: String,
    pub values: Vec<f64>,
}

fn failed(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Input(format!("--plot {}: {e}", path.display()))
}

/// Draws `curves` over epochs `first_epoch..` into a PNG at `path`.
pub fn write(path: &Path, first_epoch: usize, curves: &[Curve]) -> Result<()> {
    plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
        .map_err(|_| failed(path, "the shipped font does not load"))?;
    let epochs = curves.iter().map(|c| c.values.len()).max().unwrap_or(0);
    let finite = curves
        .iter()
        .flat_map(|c| &c.values)
        .copied()
        .filter(|v| v.is_finite());
    let (low, high) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    let (low, high) = match (low.is_finite(), high > low) {
        (false, _) => (0.0, 1.0),
        (true, false) => (low - 0.5, low + 0.5),
        (true, true) => (low - 0.05 * (high - low), high + 0.05 * (high - low)),
    };
    let x_end = (first_epoch + epochs.max(2) - 1) as f64;
    let mut pixels = vec![0u8; (SIZE.0 * SIZE.1 * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| failed(path, e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption("kiln train", (FAMILY, 22))
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(first_epoch as f64..x_end, low..high)
            .map_err(|e| failed(path, e))?;
        chart
            .configure_mesh()
            .x_desc("epoch")
            .label_style((FAMILY, 14))
            .draw()
            .map_err(|e| failed(path, e))?;
        for (i, curve) in curves.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let points = (curve.values.iter().enumerate())
                .map(|(e, &v)| ((first_epoch + e) as f64, v))
                .filter(|(_, v)| v.is_finite());
            chart
                .draw_series(LineSeries::new(points, color.stroke_width(2)))
                .map_err(|e| failed(path, e))?
                .label(curve.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .label_font((FAMILY, 14))
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| failed(path, e))?;
        root.present().map_err(|e| failed(path, e))?;
    }
    let image = image::RgbImage::from_raw(SIZE.0, SIZE.1, pixels)
        .ok_or_else(|| failed(path, "the picture has the wrong size"))?;
    let mut png = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut png, image::ImageFormat::Png)
        .map_err(|e| failed(path, e))?;
    write_atomically(path, png.get_ref()).map_err(|e| failed(path, e))
}
