//! ImageIter against MXNet 1.9.1's `mx.image.ImageIter` (tests/fixtures/data/images/
//! image_iter/, made by make_image_iter_fixtures.py over the PNGs in src/): batches over
//! several epochs equal to the bit (centre crops, resize, crops resized up, mean/std, label
//! widths, every last_batch_handle; resizes by every `inter_method` but the random 10),
//! MXNet's batching for lists of every size; shuffling, the random augmenters and
//! `inter_method=10` by seed; and its errors, which name the parameter, or the list line
//! and image.

mod support;

use kiln_image::{decode, ImageIter, ImageIterParams};
use kiln_io::{DataIter, PrefetchingIter};
use kiln_runtime::NDArray;
use std::path::{Path, PathBuf};
use support::fixture;

fn json(name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap()
}

/// A case's KEY=VALUE pairs, its paths made absolute.
fn case_pairs(case: &serde_json::Value) -> Vec<(String, String)> {
    (case["pairs"].as_array().unwrap().iter())
        .map(|pair| {
            let (key, value) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
            let value = match key {
                "path_imglist" | "path_root" => fixture(value).to_string_lossy().into_owned(),
                _ => value.to_string(),
            };
            (key.to_string(), value)
        })
        .collect()
}

fn image_iter(pairs: &[(String, String)]) -> ImageIter {
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (&k[..], &v[..])).collect();
    ImageIter::new(ImageIterParams::from_pairs(&pairs).unwrap()).unwrap()
}

fn load(path: PathBuf) -> NDArray {
    NDArray::load_npy(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn batches_equal_mxnets_image_iter() {
    batches_equal_mxnets("image_iter/cases.json");
}

/// `inter_method` 2 (MXNet's default), 0, 3, 4 and 9 in `resize` and in crops enlarged to
/// `data_shape` (1 is in the cases above); their data are stored as uint8, whole pixels.
#[test]
fn resizes_by_each_inter_method_equal_mxnets() {
    batches_equal_mxnets("image_iter/interp_cases.json");
}

/// Every case of `cases` (a JSON file of make_image_iter_fixtures.py) against MXNet's
/// batches.
fn batches_equal_mxnets(cases: &str) {
    let cases = json(cases);
    assert!(!cases.as_object().unwrap().is_empty());
    for (name, case) in cases.as_object().unwrap() {
        let mut it = image_iter(&case_pairs(case));
        let (data, label) = (&it.provide_data()[0], &it.provide_label()[0]);
        let want = |v: &serde_json::Value| (v[0].as_str().unwrap().to_string(), v[1].clone());
        let shape = |s: &[usize]| serde_json::json!(s);
        assert_eq!(
            (data.name.clone(), shape(&data.shape)),
            want(&case["provide_data"]),
            "{name}"
        );
        assert_eq!(
            (label.name.clone(), shape(&label.shape)),
            want(&case["provide_label"]),
            "{name}"
        );
        let counts = case["batches"].as_array().unwrap();
        for (epoch, count) in counts.iter().enumerate() {
            let mut b = 0;
            while let Some(batch) = it.next_batch().unwrap() {
                let stem = format!("image_iter/{name}_e{epoch}_b{b}");
                let data = load(fixture(&format!("{stem}_data.npy")));
                let label = load(fixture(&format!("{stem}_label.npy")));
                let pad = load(fixture(&format!("{stem}_pad.npy")));
                assert_eq!(batch.data[0].shape(), data.shape(), "{stem}");
                assert_eq!(batch.label[0].shape(), label.shape(), "{stem}");
                let (got, want) = (
                    batch.data[0].to_vec::<f32>().unwrap(),
                    data.to_vec::<f32>().unwrap(),
                );
                let worst = (got.iter().zip(&want))
                    .map(|(a, b)| (a - b).abs())
                    .fold(0f32, f32::max);
                assert_eq!(worst, 0.0, "{stem}: values differ by {worst}");
                assert_eq!(
                    batch.label[0].to_vec::<f32>().unwrap(),
                    label.to_vec::<f32>().unwrap(),
                    "{stem}: labels"
                );
                assert_eq!(
                    batch.pad as i64,
                    pad.to_vec::<i64>().unwrap()[0],
                    "{stem}: pad"
                );
                b += 1;
            }
            assert_eq!(
                b,
                count.as_u64().unwrap(),
                "{name}: epoch {epoch}'s batches"
            );
            it.reset();
        }
    }
}

/// Writes a list of `n` lines, line k holding label k + 1, all of img0.png.
fn numbered_list(dir: &Path, n: usize) -> PathBuf {
    let image = fixture("src/img0.png");
    let text: String = (0..n)
        .map(|k| format!("{k}\t{}.000000\t{}\n", k + 1, image.display()))
        .collect();
    let path = dir.join(format!("n{n}.lst"));
    std::fs::write(&path, text).unwrap();
    path
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kiln-image-iter-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Which lines make each batch, and the pad, in every last_batch_handle, for lists
/// shorter and longer than a batch, over four epochs: MXNet's rows.
#[test]
fn batching_equals_mxnets_for_every_list_and_batch_size() {
    let dir = temp_dir("batching");
    let image_len = 3 * 4 * 4;
    for case in json("image_iter/batching.json").as_array().unwrap() {
        let n = case["lines"].as_u64().unwrap() as usize;
        let bs = case["batch_size"].as_u64().unwrap().to_string();
        let handle = case["last_batch_handle"].as_str().unwrap();
        let list = numbered_list(&dir, n).to_string_lossy().into_owned();
        let root = dir.to_string_lossy().into_owned();
        let pairs = [
            ("path_imglist", &list[..]),
            ("path_root", &root[..]),
            ("data_shape", "(3,4,4)"),
            ("batch_size", &bs[..]),
            ("last_batch_handle", handle),
        ];
        let mut it = ImageIter::new(ImageIterParams::from_pairs(&pairs).unwrap()).unwrap();
        for (e, epoch) in case["epochs"].as_array().unwrap().iter().enumerate() {
            let mut got = Vec::new();
            while let Some(batch) = it.next_batch().unwrap() {
                let data = batch.data[0].to_vec::<f32>().unwrap();
                let labels = batch.label[0].to_vec::<f32>().unwrap();
                let rows: Vec<serde_json::Value> = (labels.iter().enumerate())
                    .map(|(r, &l)| {
                        let row = &data[r * image_len..(r + 1) * image_len];
                        match row.iter().any(|&v| v != 0.0) {
                            true => serde_json::json!(l),
                            false => {
                                assert_eq!(l, 0.0, "an unfilled row's label");
                                serde_json::Value::Null
                            }
                        }
                    })
                    .collect();
                got.push(serde_json::json!({"labels": rows, "pad": batch.pad}));
            }
            assert_eq!(
                &serde_json::Value::Array(got),
                epoch,
                "{n} lines, batch {bs}, {handle}: epoch {e}"
            );
            it.reset();
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A batch's data, labels and pad.
type Batch = (Vec<f32>, Vec<f32>, usize);

/// All batches of `epochs` epochs.
fn run(it: &mut dyn DataIter, epochs: usize) -> Vec<Vec<Batch>> {
    (0..epochs)
        .map(|_| {
            let mut batches = Vec::new();
            while let Some(b) = it.next_batch().unwrap() {
                batches.push((
                    b.data[0].to_vec::<f32>().unwrap(),
                    b.label[0].to_vec::<f32>().unwrap(),
                    b.pad,
                ));
            }
            it.reset();
            batches
        })
        .collect()
}

fn random_pairs(seed: &str) -> Vec<(String, String)> {
    let at = |p: &str| fixture(p).to_string_lossy().into_owned();
    [
        ("path_imglist", at("image_iter/images.lst")),
        ("path_root", at("src")),
        ("data_shape", "(3,12,10)".into()),
        ("batch_size", "3".into()),
        ("shuffle", "True".into()),
        ("rand_crop", "True".into()),
        ("rand_mirror", "True".into()),
        ("seed", seed.into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

#[test]
fn shuffles_and_random_augmenters_are_deterministic_by_seed() {
    let epochs = run(&mut image_iter(&random_pairs("3")), 3);
    assert_eq!(epochs, run(&mut image_iter(&random_pairs("3")), 3));
    assert_ne!(epochs, run(&mut image_iter(&random_pairs("4")), 3));
    let mut list_labels = vec![0.0, 1.0, 2.5, 3.0, 1.0, 0.5];
    list_labels.sort_by(f32::total_cmp);
    let mut orders = Vec::new();
    for epoch in &epochs {
        assert_eq!(epoch.len(), 2);
        let mut labels: Vec<f32> = epoch.iter().flat_map(|b| b.1.clone()).collect();
        orders.push(labels.clone());
        labels.sort_by(f32::total_cmp);
        assert_eq!(labels, list_labels, "each epoch reads every line once");
        for (data, _, pad) in epoch {
            assert_eq!((data.len(), *pad), (3 * 3 * 12 * 10, 0));
        }
    }
    assert!(
        orders[0] != orders[1] || orders[1] != orders[2],
        "{orders:?}"
    );
}

/// Every random crop is a crop of the decoded image, mirrored or not, within it; over
/// twelve images both coins and more than the centre come up.
#[test]
fn random_crops_and_mirrors_are_of_the_image() {
    let mut pairs = random_pairs("11");
    pairs.retain(|(k, _)| k != "shuffle");
    let mut it = image_iter(&pairs);
    let (h, w) = (12, 10);
    let (mut mirrored, mut centred, mut seen) = (0, 0, 0);
    for _ in 0..2 {
        let mut row = 0;
        while let Some(batch) = it.next_batch().unwrap() {
            let data = batch.data[0].to_vec::<f32>().unwrap();
            for sample in data.chunks_exact(3 * h * w) {
                let bytes = std::fs::read(fixture(&format!("src/img{row}.png"))).unwrap();
                let image = decode(&bytes, 3).unwrap();
                let at = |x: usize, y: usize, c: usize| f32::from(image.at(y, x, c));
                let crop_at = |x0: usize, y0: usize, flip: bool| {
                    (0..3).all(|c| {
                        (0..h).all(|y| {
                            (0..w).all(|x| {
                                let sx = if flip { w - 1 - x } else { x };
                                sample[(c * h + y) * w + x] == at(x0 + sx, y0 + y, c)
                            })
                        })
                    })
                };
                let found = (0..=image.width - w)
                    .flat_map(|x| (0..=image.height - h).map(move |y| (x, y)))
                    .flat_map(|(x, y)| [(x, y, false), (x, y, true)])
                    .find(|&(x, y, flip)| crop_at(x, y, flip));
                let (x, y, flip) = found.unwrap_or_else(|| panic!("img{row}: not a crop"));
                mirrored += usize::from(flip);
                centred += usize::from((x, y) == ((image.width - w) / 2, (image.height - h) / 2));
                seen += 1;
                row += 1;
            }
        }
        it.reset();
    }
    assert_eq!(seen, 12);
    assert!(0 < mirrored && mirrored < 12, "{mirrored} of 12 mirrored");
    assert!(centred < 12, "every crop centred");
}

/// Wrapped in PrefetchingIter, the batches are the same (roll_over carries across
/// epochs).
#[test]
fn prefetching_it_gives_the_same_batches() {
    let cases = json("image_iter/cases.json");
    let pairs = case_pairs(&cases["resize_meanstd_roll_over"]);
    let direct = run(&mut image_iter(&pairs), 3);
    let mut wrapped = PrefetchingIter::new(Box::new(image_iter(&pairs))).unwrap();
    assert_eq!(run(&mut wrapped, 3), direct);
    let mut shuffled = PrefetchingIter::new(Box::new(image_iter(&random_pairs("5")))).unwrap();
    assert_eq!(
        run(&mut shuffled, 3),
        run(&mut image_iter(&random_pairs("5")), 3)
    );
}

#[test]
fn bad_lists_and_images_are_errors_naming_the_line() {
    let dir = temp_dir("bad");
    let src = fixture("src").to_string_lossy().into_owned();
    let list = dir.join("list.lst");
    let list_arg = list.to_string_lossy().into_owned();
    let base = [
        ("path_imglist", &list_arg[..]),
        ("path_root", &src[..]),
        ("data_shape", "(3,8,8)"),
        ("batch_size", "2"),
    ];
    std::fs::write(dir.join("not_an_image.png"), b"hello").unwrap();
    let not_image = dir.join("not_an_image.png").to_string_lossy().into_owned();
    // The list, extra parameters, what `new` says or else what the first batch says.
    type Case<'a> = (String, Vec<(&'a str, &'a str)>, String);
    let cases: Vec<Case> = vec![
        (
            "0\t1\timg0.png\n\n1\t1\tmissing.png\n".into(),
            vec![],
            format!("list.lst:3: image {src}/missing.png: "),
        ),
        (
            format!("0\t1\timg0.png\n1\t1\t{not_image}\n"),
            vec![],
            format!("list.lst:2: image {not_image}: not a JPEG or PNG image"),
        ),
        (
            "0\t1\timg0.png\n1\t1\t2\timg1.png\n".into(),
            vec![],
            "list.lst:2: 2 label(s) but label_width is 1".into(),
        ),
        (
            "7\t1\timg0.png\n7\t1\timg1.png\n".into(),
            vec![],
            "list.lst:2: index 7 is on line 1 too".into(),
        ),
        (
            "0\t1\n".into(),
            vec![],
            "list.lst:1: `0\t1` has 2 field(s)".into(),
        ),
        (
            "".into(),
            vec![],
            "list.lst: no images (in part 0 of 1)".into(),
        ),
        (
            "0\t1\timg0.png\n1\t1\timg2.png\n".into(),
            vec![("data_shape", "(3,1000,1)")],
            format!("list.lst:1: image {src}/img0.png: 53×37: a 1×1000 crop scaled down to fit a 53×37 image is 0×37 pixels"),
        ),
    ];
    for (text, extra, message) in cases {
        std::fs::write(&list, text).unwrap();
        let mut pairs = base.to_vec();
        pairs.extend(extra);
        let err = match ImageIter::new(ImageIterParams::from_pairs(&pairs).unwrap()) {
            Err(e) => e.to_string(),
            Ok(mut it) => it.next_batch().unwrap_err().to_string(),
        };
        assert!(err.contains(&message), "{err}\nshould say: {message}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn parameters_are_refused_by_name() {
    let base = [
        ("path_imglist", "a.lst"),
        ("path_root", "."),
        ("data_shape", "(3,8,8)"),
        ("batch_size", "2"),
    ];
    let refused = [
        (
            ("colour", "1"),
            "ImageIter has no parameter `colour` (its parameters:",
        ),
        (
            ("brightness", "0.1"),
            "`brightness` is a CreateAugmenter parameter kiln does not",
        ),
        (
            ("rand_resize", "True"),
            "`rand_resize` is a CreateAugmenter parameter",
        ),
        (("path_imgrec", "a.rec"), "ImageRecordIter reads .rec files"),
        (("aug_list", "[]"), "`aug_list` is a Python object"),
        (("inter_method", "7"), "inter_method=7 is not 0-4, 9 or 10"),
        (("inter_method", "-1"), "inter_method"),
        (
            ("data_shape", "(1,8,8)"),
            "MXNet's ImageIter reads RGB images only",
        ),
        (
            ("mean", "(1,2)"),
            "mean=(1,2): 2 values; MXNet takes 1 or 3",
        ),
        (("std", "False"), "std=False: True, None, or 1 or 3 numbers"),
        (("std", "0"), "std of channel 0 is 0"),
        (
            ("last_batch_handle", "keep"),
            "ImageIter: last_batch_handle `keep`: expected pad",
        ),
        (
            ("dtype", "int32"),
            "dtype=int32: kiln reads the list's labels as float32",
        ),
        (
            ("batch_size", "0"),
            "batch_size 0 and label_width 1 must be positive",
        ),
        (("num_parts", "2"), ""),
    ];
    for ((key, value), message) in refused {
        let mut pairs = base.to_vec();
        pairs.push((key, value));
        match ImageIterParams::from_pairs(&pairs) {
            Err(e) => assert!(e.to_string().contains(message), "{key}={value}: {e}"),
            // Two parts of one: fine; part 2 of 2 is not.
            Ok(_) => {
                assert_eq!(key, "num_parts");
                pairs.push(("part_index", "2"));
                let e = ImageIterParams::from_pairs(&pairs).unwrap_err().to_string();
                assert!(e.contains("part_index 2 must be below num_parts 2"), "{e}");
            }
        }
    }
    let e = ImageIterParams::from_pairs(&base[1..])
        .unwrap_err()
        .to_string();
    assert!(e.contains("ImageIter: path_imglist is required"), "{e}");
    // Defaults of augmenters kiln lacks change nothing; True and tuples of one value.
    let mut pairs = base.to_vec();
    pairs.extend([
        ("brightness", "0"),
        ("rand_gray", "0.0"),
        ("mean", "True"),
        ("std", "(2,)"),
    ]);
    let p = ImageIterParams::from_pairs(&pairs).unwrap();
    assert_eq!(p.mean, Some([123.68, 116.28, 103.53]));
    assert_eq!(p.std, Some([2.0; 3]));
    assert_eq!(p.inter_method, 2, "MXNet's default, bicubic");
    // Every code _get_interp_method knows, with a resize or without.
    for method in ["0", "1", "2", "3", "4", "9", "10"] {
        let mut pairs = base.to_vec();
        pairs.extend([("inter_method", method), ("resize", "20")]);
        assert_eq!(
            ImageIterParams::from_pairs(&pairs)
                .unwrap()
                .inter_method
                .to_string(),
            method
        );
    }
}

/// `pairs` with `key` set to `value` (replaced or added).
fn with(pairs: &[(String, String)], key: &str, value: &str) -> Vec<(String, String)> {
    let mut pairs: Vec<_> = pairs.iter().filter(|(k, _)| k != key).cloned().collect();
    pairs.push((key.into(), value.into()));
    pairs
}

/// The rows (images) of one epoch's batches.
fn rows(it: &mut ImageIter) -> Vec<Vec<f32>> {
    let epoch = run(it, 1).remove(0);
    let image_len = epoch[0].0.len() / it.batch_size();
    (epoch.iter())
        .flat_map(|(data, _, _)| data.chunks_exact(image_len).map(<[f32]>::to_vec))
        .collect()
}

/// inter_method=10 draws one of 0-4 per resize from kiln's seeded draws (not Python's
/// `random`, as MXNet): each image is what one of the five methods makes of it, the same
/// for a seed, and over the images (seed 2) at least three methods come up. Run on the fixture
/// cases whose images are resized once each: by `resize` alone, or by the crop alone.
#[test]
fn inter_method_ten_draws_a_method_per_resize_by_seed() {
    let cases = json("image_iter/interp_cases.json");
    let resize_only = with(
        &case_pairs(&cases["cubic_default_resize"]),
        "data_shape",
        "(3,40,40)",
    );
    let crop_only = case_pairs(&cases["cubic_default_crop"]);
    for pairs in [resize_only, crop_only] {
        let by_method: Vec<Vec<Vec<f32>>> = (0..=4)
            .map(|m| {
                rows(&mut image_iter(&with(
                    &pairs,
                    "inter_method",
                    &m.to_string(),
                )))
            })
            .collect();
        let random = |seed: &str| {
            let pairs = with(&with(&pairs, "inter_method", "10"), "seed", seed);
            rows(&mut image_iter(&pairs))
        };
        let got = random("2");
        assert_eq!(got, random("2"));
        let mut methods_seen = Vec::new();
        for (i, row) in got.iter().enumerate() {
            let resized = (by_method.iter()).any(|rows| rows[i] != by_method[0][i]);
            let methods: Vec<usize> = (0..=4).filter(|&m| by_method[m][i] == *row).collect();
            assert!(!methods.is_empty(), "image {i} is none of the methods'");
            if resized && methods.len() == 1 {
                methods_seen.push(methods[0]);
            }
        }
        methods_seen.sort();
        methods_seen.dedup();
        assert!(methods_seen.len() >= 3, "{methods_seen:?}");
        let other_seeds = ["3", "4", "5"].map(random);
        assert!(other_seeds.iter().any(|rows| *rows != got));
    }
}
