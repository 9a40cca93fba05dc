//! `kiln_image::resize` in each of OpenCV's interpolations against the OpenCV 3.4.2 inside
//! MXNet 1.9.1 (tests/fixtures/data/images/interpolation/, made by
//! make_interpolation_fixtures.py), value for value, plus values worked out by hand that
//! pin down each method's rounding and coordinate quirks.

mod support;

use kiln_image::{decode, resize, Image, Interpolation};
use support::{fixture, npy_u8};

/// The top-left `width` × `height` of `image`.
fn crop(image: &Image, width: usize, height: usize) -> Image {
    let cn = image.channels;
    let data = (0..height)
        .flat_map(|y| &image.data[y * image.width * cn..][..width * cn])
        .copied()
        .collect();
    Image {
        height,
        width,
        channels: cn,
        data,
    }
}

/// A fixture's input, as make_interpolation_fixtures.py builds it from a PNG of src/.
fn input(image: &str, variant: &str) -> Image {
    let png = std::fs::read(fixture(&format!("src/{image}.png"))).unwrap();
    match variant {
        "rgb" => decode(&png, 3).unwrap(),
        "gray" => decode(&png, 1).unwrap(),
        "rgba" => {
            // The RGB pixels plus a fourth channel (x·7 + y·13) mod 256.
            let rgb = decode(&png, 3).unwrap();
            let mut data = Vec::with_capacity(rgb.data.len() / 3 * 4);
            for (i, pixel) in rgb.data.chunks_exact(3).enumerate() {
                let (y, x) = (i / rgb.width, i % rgb.width);
                data.extend_from_slice(pixel);
                data.push(((x * 7 + y * 13) % 256) as u8);
            }
            Image {
                channels: 4,
                data,
                ..rgb
            }
        }
        _ => panic!("unknown variant {variant}"),
    }
}

/// A one-channel image from rows of values.
fn gray(rows: &[&[u8]]) -> Image {
    Image {
        height: rows.len(),
        width: rows[0].len(),
        channels: 1,
        data: rows.concat(),
    }
}

/// Every fixture case equals MXNet's values exactly; failures are listed by case, with
/// how many values differ and by how much at most.
#[test]
fn every_interpolation_equals_opencvs() {
    let cases: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("interpolation/cases.json")).unwrap(),
    )
    .unwrap();
    let cases = cases.as_array().unwrap();
    assert!(cases.len() >= 300, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut image = input(
            case["image"].as_str().unwrap(),
            case["variant"].as_str().unwrap(),
        );
        if let Some(size) = case["crop"].as_array() {
            let size: Vec<usize> = size.iter().map(|v| v.as_u64().unwrap() as usize).collect();
            image = crop(&image, size[0], size[1]);
        }
        let target = &case["target"];
        let (width, height) = (
            target[0].as_u64().unwrap() as usize,
            target[1].as_u64().unwrap() as usize,
        );
        let code = case["interp"].as_u64().unwrap() as u8;
        let method = Interpolation::from_opencv(code).unwrap();
        let got = resize(&image, width, height, method);
        let (want, shape) = npy_u8(&fixture(&format!("interpolation/{name}.npy")));
        if [got.height, got.width, got.channels] != shape[..] {
            failures.push(format!("{name}: shape {got:?} for {shape:?}"));
            continue;
        }
        let differing = got.data.iter().zip(&want).filter(|(a, b)| a != b).count();
        if differing > 0 {
            let most = (got.data.iter().zip(&want))
                .map(|(a, b)| a.abs_diff(*b))
                .max()
                .unwrap_or(0);
            failures.push(format!(
                "{name}: {differing} values differ, by at most {most}"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Nearest picks `⌊d · (1 / (98 / 2))⌋`: 49 · 0.0204… falls just short of 1 in double
/// precision, so destination pixel 49 still copies source pixel 0 (`⌊49 · 2 / 98⌋` is 1).
#[test]
fn nearest_picks_by_opencvs_double_scale() {
    let out = resize(&gray(&[&[10, 20]]), 98, 1, Interpolation::Nearest);
    assert_eq!(out.data[47..52], [10, 10, 10, 20, 20]);
    let out = resize(&gray(&[&[10, 20, 30]]), 5, 1, Interpolation::Nearest);
    assert_eq!(out.data, [10, 10, 20, 20, 30]);
}

/// Bicubic at source x = 1.25 (destination 3 of 4 → 8): weights −216, 1800, 536, −72 over
/// 0, 100, 200, 255 give 268 840 / 2048 = 131.27 → 131.
#[test]
fn cubic_weighs_four_taps_in_fixed_point() {
    let out = resize(&gray(&[&[0, 100, 200, 255]]), 8, 1, Interpolation::Cubic);
    assert_eq!(out.data[3], 131);
    assert_eq!(out.data, [0, 19, 67, 131, 175, 223, 246, 255]);
}

/// Area: 2×2 blocks round half up (OpenCV's vector kernel: (0 + 0 + 0 + 2) / 4 → 1),
/// other whole blocks half to even (1 / 2 → 0), and a 1.5 shrink weighs 1 and ½ pixel:
/// (30 + 60 / 2) / 1.5 = 40, (60 / 2 + 90) / 1.5 = 80.
#[test]
fn area_rounds_as_each_opencv_path() {
    let halving = resize(&gray(&[&[0, 0], &[0, 2]]), 1, 1, Interpolation::Area);
    assert_eq!(halving.data, [1]);
    let column = resize(&gray(&[&[0], &[1]]), 1, 1, Interpolation::Area);
    assert_eq!(column.data, [0]);
    let fractional = resize(&gray(&[&[30, 60, 90]]), 2, 1, Interpolation::Area);
    assert_eq!(fractional.data, [40, 80]);
}

/// Shrinking by exactly 3 puts every source coordinate 3d + 1 on a pixel, where the
/// Lanczos-4 and bicubic kernels are 1 at the centre and 0 elsewhere: both pick pixels.
#[test]
fn lanczos4_and_cubic_pick_pixels_at_whole_coordinates() {
    let data: Vec<u8> = (0..9 * 12 * 3).map(|i| (i * 37 % 251) as u8).collect();
    let image = Image {
        height: 9,
        width: 12,
        channels: 3,
        data,
    };
    for method in [Interpolation::Lanczos4, Interpolation::Cubic] {
        let out = resize(&image, 4, 3, method);
        for (i, value) in out.data.iter().enumerate() {
            let (y, x, c) = (i / 12, i / 3 % 4, i % 3);
            let centre = image.at(3 * y + 1, 3 * x + 1, c);
            assert_eq!(*value, centre, "{method:?} at {y}, {x}, {c}");
        }
    }
}

/// Every method, every small size in and out, 1, 3 and 4 channels: the right shape and no
/// panic.
#[test]
fn tiny_sizes_resize_without_panicking() {
    let methods = (0..5).map(|code| Interpolation::from_opencv(code).unwrap());
    let methods: Vec<Interpolation> = methods.collect();
    for channels in [1, 3, 4] {
        for (sw, sh) in (1..5).flat_map(|w| (1..5).map(move |h| (w, h))) {
            let data = (0..sw * sh * channels)
                .map(|i| (i * 91 % 256) as u8)
                .collect();
            let image = Image {
                height: sh,
                width: sw,
                channels,
                data,
            };
            for (w, h) in (1..7).flat_map(|w| (1..7).map(move |h| (w, h))) {
                for &method in &methods {
                    let out = resize(&image, w, h, method);
                    assert_eq!((out.width, out.height, out.channels), (w, h, channels));
                    assert_eq!(out.data.len(), w * h * channels);
                }
            }
        }
    }
}

#[test]
fn opencv_codes_name_the_methods() {
    assert_eq!(Interpolation::from_opencv(2), Some(Interpolation::Cubic));
    assert_eq!(Interpolation::from_opencv(3), Some(Interpolation::Area));
    assert_eq!(Interpolation::from_opencv(5), None);
}
