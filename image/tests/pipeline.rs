//! The image pipeline against MXNet 1.9.1 (tests/fixtures/data/images/, made by
//! make_image_fixtures.py): JPEG decoding, OpenCV's bilinear resize, and ImageRecordIter
//! batches over two epochs (centre crops, mean/std, grayscale, round_batch on and off).

mod support;

use kiln_image::{decode, resize_bilinear, Image};
use std::path::Path;
use support::{fixture, jpegs, npy_f32, npy_u8};

fn names() -> Vec<String> {
    (0..6).map(|i| format!("img{i}")).collect()
}

/// How many values differ, and by how much at most.
fn diff(got: &[u8], want: &[u8]) -> (usize, u8) {
    assert_eq!(got.len(), want.len());
    let d = got.iter().zip(want).filter(|(a, b)| a != b).count();
    let m = got
        .iter()
        .zip(want)
        .map(|(a, b)| a.abs_diff(*b))
        .max()
        .unwrap_or(0);
    (d, m)
}

/// JPEG decoding equals libjpeg-turbo's inside MXNet, value for value.
#[test]
fn jpeg_decodes_as_mxnet() {
    for name in names() {
        let image = decode(
            &std::fs::read(fixture(&format!("src/{name}.jpg"))).unwrap(),
            3,
        )
        .unwrap();
        let (want, shape) = npy_u8(&fixture(&format!("decode/{name}.jpg.npy")));
        assert_eq!(
            [image.height, image.width, image.channels],
            shape[..],
            "{name}"
        );
        assert_eq!(
            diff(&image.data, &want),
            (0, 0),
            "{name}: (values differing, by at most)"
        );
    }
}

/// Every JPEG of jpeg/ (each chroma subsampling, progressive, optimized and restart-coded,
/// gray, tiny and odd sizes, low and high quality; make_jpeg_fixtures.py) decodes in
/// colour and in gray to MXNet's values exactly. Failures are listed by file.
#[test]
fn jpeg_variants_decode_as_mxnet() {
    let mut failures = Vec::new();
    let files = jpegs("jpeg");
    for (bytes, stem) in &files {
        for (channels, kind) in [(3, "rgb"), (1, "gray")] {
            let (want, shape) = npy_u8(&fixture(&format!("jpeg/{stem}.{kind}.npy")));
            match decode(bytes, channels) {
                Ok(image) if [image.height, image.width, image.channels] != shape[..] => {
                    failures.push(format!("{stem} {kind}: shape {image:?} for {shape:?}"))
                }
                Ok(image) if image.data != want => failures.push(format!(
                    "{stem} {kind}: (values differing, by at most) {:?}",
                    diff(&image.data, &want)
                )),
                Ok(_) => {}
                Err(e) => failures.push(format!("{stem} {kind}: {e}")),
            }
        }
    }
    assert!(files.len() >= 40, "{} JPEG fixtures", files.len());
    assert!(failures.is_empty(), "{failures:#?}");
}

/// kiln's JPEG encoder writes the bytes OpenCV's `imencode` writes (libjpeg-turbo): colour
/// and gray, tiny and odd sizes, qualities 10 to 100 (encode/, made by
/// make_jpeg_encode_fixtures.py). Failures are listed by file.
#[test]
fn jpeg_encoding_equals_opencvs_bytes() {
    let mut failures = Vec::new();
    let files = jpegs("encode");
    for (theirs, stem) in &files {
        let (source, quality) = stem.rsplit_once("_q").unwrap();
        let channels = if source.starts_with("gray") { 1 } else { 3 };
        let png = std::fs::read(fixture(&format!("encode/{source}.png"))).unwrap();
        let image = decode(&png, channels).unwrap();
        let ours = kiln_image::encode_jpeg(&image, quality.parse().unwrap()).unwrap();
        if ours != *theirs {
            let first = ours.iter().zip(theirs).position(|(a, b)| a != b);
            failures.push(format!(
                "{stem}: {} bytes against {}, first difference at {first:?}",
                ours.len(),
                theirs.len()
            ));
        }
    }
    assert!(files.len() >= 72, "{} fixtures", files.len());
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `imread` turns JPEGs by their EXIF orientation as OpenCV's does (orientations 1-8,
/// little- and big-endian EXIF; colour and gray), exif/ made by make_exif_fixtures.py.
#[test]
fn imread_applies_exif_orientation_as_opencv() {
    for orientation in 1..=8 {
        let bytes = std::fs::read(fixture(&format!("exif/o{orientation}.jpg"))).unwrap();
        for (flags, kind) in [(1, "rgb"), (0, "gray")] {
            let image = kiln_image::imread(&bytes, flags).unwrap();
            let (want, shape) = npy_u8(&fixture(&format!("exif/o{orientation}.{kind}.npy")));
            let got = [image.height, image.width, image.channels];
            assert_eq!(got, shape[..], "orientation {orientation} {kind}");
            assert!(
                image.data == want,
                "orientation {orientation} {kind}: pixels"
            );
        }
    }
}

#[test]
fn bilinear_resize_is_opencvs() {
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("cases.json")).unwrap()).unwrap();
    let mut failures = Vec::new();
    for case in cases["resize"].as_array().unwrap() {
        let (name, w, h) = (
            case[0].as_str().unwrap(),
            case[1].as_u64().unwrap() as usize,
            case[2].as_u64().unwrap() as usize,
        );
        let src: Image = decode(
            &std::fs::read(fixture(&format!("src/{name}.png"))).unwrap(),
            3,
        )
        .unwrap();
        let got = resize_bilinear(&src, w, h);
        let (want, shape) = npy_u8(&fixture(&format!("resize/{name}_{w}x{h}.npy")));
        assert_eq!([got.height, got.width, got.channels], shape[..]);
        let d = diff(&got.data, &want);
        if d != (0, 0) {
            failures.push(format!(
                "{name} {}x{} -> {w}x{h}: {d:?}",
                src.width, src.height
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// ImageRecordIter's batches over two epochs equal MXNet's (decode of PNGs and JPEGs,
/// resize, crop, normalization), labels and pads exactly.
#[test]
fn image_record_iter_batches_equal_mxnets() {
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("cases.json")).unwrap()).unwrap();
    check_iter_cases(&cases["iter"], "iter_", 2);
}

/// The same with MXNet's affine augmentation (rotation, scale, aspect ratio, image size
/// bounds, border fill), random-size square crops, images enlarged to fit the crop, HLS
/// round trips, every interpolation, uint8 and int8 batches, and a mean image made (equal
/// to the one MXNet made) and read, at settings whose draws are fixed
/// (make_augment_fixtures.py), over one epoch.
#[test]
fn augmentation_equals_mxnets() {
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("augment/cases.json")).unwrap())
            .unwrap();
    check_iter_cases(&cases, "augment/", 1);
}

/// Runs ImageRecordIter over images.rec for each case of `cases` (MXNet's parameters) and
/// compares `epochs` epochs of batches with the fixtures `{prefix}{case}_eE_bB_*`.
fn check_iter_cases(cases: &serde_json::Value, prefix: &str, epochs: usize) {
    use kiln_image::{ImageRecordIter, ImageRecordParams};
    use kiln_io::DataIter;
    let records = 12;
    let scratch = std::env::temp_dir().join(format!(
        "kiln-iter-cases-{}-{}",
        std::process::id(),
        prefix.trim_end_matches(['/', '_'])
    ));
    std::fs::create_dir_all(&scratch).unwrap();
    for (case, params) in cases.as_object().unwrap() {
        let mut made_mean = None;
        let mut pairs: Vec<(String, String)> = vec![
            (
                "path_imgrec".into(),
                fixture("images.rec").to_string_lossy().into(),
            ),
            (
                "path_imgidx".into(),
                fixture("images.idx").to_string_lossy().into(),
            ),
            ("preprocess_threads".into(), "3".into()),
        ];
        for (k, v) in params.as_object().unwrap() {
            let v = match v {
                serde_json::Value::Array(dims) => format!(
                    "({})",
                    dims.iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                serde_json::Value::Bool(b) => {
                    if *b {
                        "True".into()
                    } else {
                        "False".into()
                    }
                }
                serde_json::Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            // A mean image MXNet made is read from the fixtures; one to make goes to a
            // scratch file, compared with MXNet's afterwards.
            let v = match (k.as_str(), case.ends_with("_made")) {
                ("mean_img", false) => fixture(&v).to_string_lossy().into_owned(),
                ("mean_img", true) => {
                    made_mean = Some((scratch.join("mean.params"), fixture(&v)));
                    let _ = std::fs::remove_file(scratch.join("mean.params"));
                    scratch.join("mean.params").to_string_lossy().into_owned()
                }
                _ => v,
            };
            pairs.push((k.clone(), v));
        }
        let pairs: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let p = ImageRecordParams::from_pairs(&pairs).unwrap();
        let (bs, round) = (p.batch_size, p.round_batch);
        let image_len: usize = p.data_shape.iter().product();
        let mut it = ImageRecordIter::new(p).unwrap();
        let mut served = 0usize;
        for epoch in 0..epochs {
            let mut b = 0;
            let mut in_epoch = 0;
            while let Some(batch) = it.next_batch().unwrap() {
                let stem = format!("{prefix}{case}_e{epoch}_b{b}");
                let (data, shape) = npy_f32(&fixture(&format!("{stem}_data.npy")));
                let (label, _) = npy_f32(&fixture(&format!("{stem}_label.npy")));
                let pad: usize = std::fs::read_to_string(fixture(&format!("{stem}_pad.txt")))
                    .unwrap()
                    .trim()
                    .parse()
                    .unwrap();
                assert_eq!(batch.data[0].shape(), &shape[..], "{stem}");
                let got = batch.data[0].to_vec::<f32>().unwrap();
                let got_label = batch.label[0].to_vec::<f32>().unwrap();
                // Without round_batch MXNet reports pad 0 and leaves stale rows.
                let real = if round {
                    bs
                } else {
                    bs.min(records - in_epoch)
                };
                assert_eq!(
                    batch.pad,
                    if round { pad } else { bs - real },
                    "{stem}: pad"
                );
                assert_eq!(got_label[..real], label[..real], "{stem}: labels");
                for i in 0..real {
                    let record = if round {
                        (served + i) % records
                    } else {
                        in_epoch + i
                    };
                    let (g, w) = (
                        &got[i * image_len..(i + 1) * image_len],
                        &data[i * image_len..(i + 1) * image_len],
                    );
                    let worst = g
                        .iter()
                        .zip(w)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0f32, f32::max);
                    assert!(
                        worst <= 1e-5,
                        "{stem}: sample {i} (record {record}): differs by {worst}"
                    );
                }
                served += real;
                in_epoch += real;
                b += 1;
            }
            assert!(
                !fixture(&format!("{prefix}{case}_e{epoch}_b{b}_data.npy")).exists(),
                "{case}: MXNet has more batches in epoch {epoch}"
            );
            it.reset();
        }
        if let Some((ours, mxnets)) = made_mean {
            let read = |path: &Path| {
                kiln_compiler::formats::params::read_params(path)
                    .unwrap()
                    .arrays[0]
                    .clone()
            };
            // Summed in the same order in single precision: equal to the bit.
            assert_eq!(read(&ours), read(&mxnets), "{case}: mean image");
        }
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

fn params(rec: &Path, extra: &[(&str, &str)]) -> kiln_image::ImageRecordParams {
    let rec = rec.to_string_lossy().into_owned();
    let mut pairs = vec![
        ("path_imgrec", rec.as_str()),
        ("data_shape", "(3,16,16)"),
        ("batch_size", "4"),
        ("resize", "20"),
    ];
    pairs.extend_from_slice(extra);
    kiln_image::ImageRecordParams::from_pairs(&pairs).unwrap()
}

#[test]
fn a_record_that_does_not_decode_is_named_and_iterators_dropped_mid_epoch_stop() {
    use kiln_image::ImageRecordIter;
    use kiln_io::recordio::{ImageRecord, Label, RecordWriter};
    use kiln_io::DataIter;
    let dir = std::env::temp_dir().join(format!("kiln-image-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = std::fs::read(fixture("src/img0.png")).unwrap();
    let mut writer = RecordWriter::new(Vec::new());
    let mut offsets = Vec::new();
    for (i, image) in [&png[..], &png[..], b"\x89PNG not really", &png[..]]
        .iter()
        .enumerate()
    {
        let record = ImageRecord {
            label: Label::Scalar(i as f32),
            id: i as u64,
            id2: 0,
            image,
        };
        offsets.push(writer.write(&record.pack()).unwrap());
    }
    let rec = dir.join("bad.rec");
    std::fs::write(&rec, writer.into_inner().unwrap()).unwrap();
    let mut it = ImageRecordIter::new(params(&rec, &[])).unwrap();
    let err = it.next_batch().unwrap_err().to_string();
    assert!(
        err.contains(&format!(
            "bad.rec: record 2, starting at byte {}: PNG",
            offsets[2]
        )),
        "{err}"
    );
    // Iterators dropped with batches in flight stop their threads (the loop would hang or
    // pile up threads otherwise).
    let good = fixture("images.rec");
    for _ in 0..20 {
        let mut it = ImageRecordIter::new(params(&good, &[("prefetch_buffer", "1")])).unwrap();
        it.next_batch().unwrap().unwrap();
    }
    let refused = [
        (
            vec![("shuffle_chunk_size", "64")],
            "`shuffle_chunk_size` is an MXNet parameter kiln does not apply yet",
        ),
        (
            vec![("color_jitter", "1")],
            "ImageRecordIter has no parameter `color_jitter`",
        ),
        (vec![("data_shape", "(2,16,16)")], "1, 3 or 4 channels"),
    ];
    for (extra, message) in refused {
        let rec = good.to_string_lossy().into_owned();
        let mut pairs = vec![
            ("path_imgrec", rec.as_str()),
            ("data_shape", "(3,16,16)"),
            ("batch_size", "4"),
        ];
        pairs.extend_from_slice(&extra);
        let err = kiln_image::ImageRecordParams::from_pairs(&pairs)
            .unwrap_err()
            .to_string();
        assert!(err.contains(message), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_iterator_started_at_an_epoch_continues_as_one_that_iterated_there() {
    use kiln_image::ImageRecordIter;
    use kiln_io::DataIter;
    let rec = fixture("images.rec");
    // 12 records in batches of 5: each epoch's last batch wraps into the next.
    for extra in [
        vec![],
        vec![
            ("shuffle", "True"),
            ("seed", "3"),
            ("rand_crop", "True"),
            ("rand_mirror", "True"),
        ],
        vec![("round_batch", "False")],
    ] {
        let labels = |it: &mut ImageRecordIter| -> Vec<(Vec<f32>, usize, f32)> {
            let mut out = Vec::new();
            while let Some(b) = it.next_batch().unwrap() {
                let data = b.data[0].to_vec::<f32>().unwrap();
                out.push((
                    b.label[0].to_vec::<f32>().unwrap(),
                    b.pad,
                    data.iter().sum(),
                ));
            }
            it.reset();
            out
        };
        let mut through =
            ImageRecordIter::new(params(&rec, &[&[("batch_size", "5")], &extra[..]].concat()))
                .unwrap();
        let epochs: Vec<_> = (0..4).map(|_| labels(&mut through)).collect();
        for start in 1..4 {
            let it =
                ImageRecordIter::new(params(&rec, &[&[("batch_size", "5")], &extra[..]].concat()))
                    .unwrap();
            let mut resumed = it.with_epoch(start as u64);
            for (e, want) in epochs.iter().enumerate().skip(start) {
                assert_eq!(
                    &labels(&mut resumed),
                    want,
                    "{extra:?}: started at {start}, epoch {e}"
                );
            }
        }
    }
}

#[test]
fn a_resized_window_is_the_window_of_the_resize() {
    use kiln_image::{resize_window, Window};
    let src = decode(&std::fs::read(fixture("src/img3.png")).unwrap(), 3).unwrap();
    for (w, h) in [(60, 50), (40, 40), (100, 90), (81, 81)] {
        let whole = resize_bilinear(&src, w, h);
        for window in [
            Window {
                x: 0,
                y: 0,
                width: w,
                height: h,
            },
            Window {
                x: 3,
                y: 7,
                width: w / 2,
                height: h / 3,
            },
            Window {
                x: w - 5,
                y: h - 1,
                width: 5,
                height: 1,
            },
        ] {
            let part = resize_window(&src, (w, h), window);
            for y in 0..window.height {
                for x in 0..window.width {
                    for c in 0..3 {
                        assert_eq!(
                            part.at(y, x, c),
                            whole.at(window.y + y, window.x + x, c),
                            "{w}x{h} {window:?} at {y},{x}"
                        );
                    }
                }
            }
        }
    }
    let even = resize_bilinear(&src, 80, 80); // halved by the area path
    let part = resize_window(
        &even,
        (40, 40),
        Window {
            x: 5,
            y: 9,
            width: 20,
            height: 30,
        },
    );
    assert_eq!(part.at(0, 0, 1), resize_bilinear(&even, 40, 40).at(9, 5, 1));
}

/// The resident memory of this process, in KB (Linux).
fn rss_kb() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn iterators_made_and_dropped_mid_epoch_keep_memory_flat() {
    use kiln_image::ImageRecordIter;
    use kiln_io::DataIter;
    let Some(_) = rss_kb() else {
        return; // not Linux: nothing to measure
    };
    let rec = fixture("images.rec");
    let cycle = || {
        let mut it = ImageRecordIter::new(params(&rec, &[("preprocess_threads", "2")])).unwrap();
        it.next_batch().unwrap().unwrap();
    };
    for _ in 0..10 {
        cycle(); // allocator and thread caches settle
    }
    let before = rss_kb().unwrap();
    for _ in 0..100 {
        cycle();
    }
    let grown = rss_kb().unwrap().saturating_sub(before);
    // A cycle holds about 50 KB of batches and two threads' stacks: a leak of either
    // would grow by megabytes over 100 cycles.
    assert!(
        grown < 4096,
        "resident memory grew by {grown} KB over 100 iterators"
    );
}

#[test]
fn an_image_list_replaces_the_records_labels() {
    use kiln_image::ImageRecordIter;
    use kiln_io::DataIter;
    let dir = std::env::temp_dir().join(format!("kiln-imglist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lst = dir.join("labels.lst");
    let text: String = (0..12)
        .map(|i| format!("{i}\t{}\t{}\timg.png\n", i * 10, i + 100))
        .collect();
    std::fs::write(&lst, text).unwrap();
    let (rec, list) = (fixture("images.rec"), lst.to_string_lossy().into_owned());
    let mut it = ImageRecordIter::new(params(
        &rec,
        &[("path_imglist", &list), ("label_width", "2")],
    ))
    .unwrap();
    assert_eq!(it.provide_label()[0].shape, [4, 2]);
    let batch = it.next_batch().unwrap().unwrap();
    assert_eq!(
        batch.label[0].to_vec::<f32>().unwrap(),
        [0.0, 100.0, 10.0, 101.0, 20.0, 102.0, 30.0, 103.0]
    );
    std::fs::write(&lst, "0\t1\tx.png\n").unwrap();
    let err = ImageRecordIter::new(params(
        &rec,
        &[("path_imglist", &list), ("label_width", "2")],
    ))
    .err()
    .unwrap()
    .to_string();
    assert!(
        err.contains("image 0 has 1 label(s) but label_width is 2"),
        "{err}"
    );
    let mut it = ImageRecordIter::new(params(&rec, &[("path_imglist", &list)])).unwrap();
    let err = it.next_batch().unwrap_err().to_string();
    assert!(err.contains("is not in path_imglist"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With random rotation, shear, scale and aspect ratio, and with random resized crops,
/// colour jitter, PCA noise and random lighting, batches are a function of the seed and
/// epoch alone (the same for 1 and 3 decoding threads), change with the seed, and keep
/// image content (not only border fill).
#[test]
fn random_augmentation_is_determined_by_seed_and_epoch() {
    assert_seeded(&[
        ("max_rotate_angle", "25"),
        ("max_shear_ratio", "0.2"),
        ("min_random_scale", "0.9"),
        ("max_random_scale", "1.3"),
        ("max_aspect_ratio", "0.2"),
        ("rand_crop", "True"),
        ("fill_value", "0"),
    ]);
    assert_seeded(&[
        ("random_resized_crop", "True"),
        ("min_random_area", "0.3"),
        ("max_aspect_ratio", "0.25"),
        ("brightness", "0.3"),
        ("contrast", "0.3"),
        ("saturation", "0.3"),
        ("pca_noise", "0.1"),
        ("max_random_contrast", "0.2"),
        ("max_random_illumination", "10"),
    ]);
}

fn assert_seeded(random: &[(&str, &str)]) {
    use kiln_image::ImageRecordIter;
    use kiln_io::DataIter;
    let rec = fixture("images.rec");
    let batches = |seed: &str, threads: &str| -> Vec<Vec<f32>> {
        let mut extra = random.to_vec();
        extra.extend([("seed", seed), ("preprocess_threads", threads)]);
        let mut it = ImageRecordIter::new(params(&rec, &extra)).unwrap();
        let mut out = Vec::new();
        for _ in 0..2 {
            while let Some(batch) = it.next_batch().unwrap() {
                assert_eq!(batch.data[0].shape(), [4, 3, 16, 16]);
                out.push(batch.data[0].to_vec::<f32>().unwrap());
            }
            it.reset();
        }
        out
    };
    let first = batches("7", "1");
    assert_eq!(first, batches("7", "3"), "{random:?}");
    assert_ne!(first, batches("8", "1"), "{random:?}");
    for batch in &first {
        let content = batch.iter().filter(|&&v| v != 0.0).count();
        assert!(
            content > batch.len() / 2,
            "{content} of {} values",
            batch.len()
        );
    }
}
