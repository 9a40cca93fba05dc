//! `kiln data`: `iter` writes the batches ImageRecordIter (or ImageIter) makes (numbered
//! from 1, with their pad), `show` writes a record's image as a PNG holding its pixels; bad
//! parameters are refused by name.

use kiln::image::decode;
use kiln::runtime::NDArray;
use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/cli.rs"]
mod cli;

fn kiln(dir: &Path, args: &[&str]) -> Output {
    cli::kiln_in(dir, "data", args)
}

fn fixture(name: &str) -> PathBuf {
    cli::data_fixture("images", name)
}

#[test]
fn iter_writes_the_batches_and_show_the_image() {
    let dir = std::env::temp_dir().join(format!("kiln-data-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rec = format!("path_imgrec={}", fixture("images.rec").display());
    let args = [
        "iter",
        rec.as_str(),
        "data_shape=(3,24,20)",
        "batch_size=5",
        "resize=28",
        "--epochs",
        "2",
        "--out",
        "out",
    ];
    let stdout = cli::kiln_ok(&dir, "data", &args);
    assert!(
        stdout.contains("epoch 1: 3 batches, 12 images")
            && stdout.contains("epoch 2: 2 batches, 9 images"),
        "{stdout}"
    );
    // The last batch of epoch 1 wraps 3 images of the next epoch: MXNet's batch, pad 3.
    let data = NDArray::load_npy(dir.join("out/epoch1_batch3_data.npy")).unwrap();
    assert_eq!(data.shape(), [5, 3, 24, 20]);
    let want = NDArray::load_npy(fixture("iter_center_e0_b2_data.npy"))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let got = data.to_vec::<f32>().unwrap();
    let png_rows = 3 * 24 * 20 * 2; // records 10 and 11 are JPEGs, then PNGs 0, 1, 2
    assert_eq!(got[png_rows..], want[png_rows..], "the wrapped PNG images");
    let pad = NDArray::load_npy(dir.join("out/epoch1_batch3_pad.npy")).unwrap();
    assert_eq!(pad.to_vec::<i64>().unwrap(), [3]);
    assert!(!dir.join("out/epoch2_batch3_data.npy").exists());

    let shown = kiln(
        &dir,
        &[
            "show",
            fixture("images.rec").to_str().unwrap(),
            "--index",
            "2",
        ],
    );
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    let png = std::fs::read(dir.join("record2.png")).unwrap();
    let original = std::fs::read(fixture("src/img2.png")).unwrap();
    assert_eq!(
        decode(&png, 3).unwrap(),
        decode(&original, 3).unwrap(),
        "the record's pixels"
    );

    for (args, message) in [
        (vec!["iter", "batch_size"], "`batch_size` is not KEY=VALUE"),
        (
            vec![
                "iter",
                &rec,
                "data_shape=(3,8,8)",
                "batch_size=2",
                "colour=1",
            ],
            "no parameter `colour`",
        ),
        (
            vec![
                "show",
                fixture("images.rec").to_str().unwrap(),
                "--index",
                "99",
            ],
            "no record 99",
        ),
    ] {
        let out = kiln(&dir, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(message),
            "{args:?}: {stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn iter_runs_mxnets_other_iterators_by_name() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/data");
    let dir = std::env::temp_dir();
    let at = |p: &str| data.join(p).to_string_lossy().into_owned();
    let (image, label) = (
        format!("image={}", at("mnist/images-idx3-ubyte")),
        format!("label={}", at("mnist/labels-idx1-ubyte")),
    );
    let mnist = kiln(
        &dir,
        &[
            "iter",
            "--iter",
            "MNISTIter",
            &image,
            &label,
            "batch_size=8",
            "shuffle=False",
        ],
    );
    let stdout = String::from_utf8_lossy(&mnist.stdout);
    assert!(
        stdout.contains("data [8, 1, 6, 5], label [8]") && stdout.contains("6 batches, 48 images"),
        "{stdout}"
    );
    let csv = format!("data_csv={}", at("csv/data.csv"));
    let out = kiln(
        &dir,
        &[
            "iter",
            "--iter",
            "CSVIter",
            &csv,
            "data_shape=(2,2)",
            "batch_size=3",
            "--epochs",
            "2",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("epoch 1: 4 batches, 10 images")
            && stdout.contains("epoch 2: 3 batches, 8 images"),
        "{stdout}"
    );
    let out = kiln(&dir, &["iter", "--iter", "LibSVMIter", "batch_size=1"]);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--iter LibSVMIter: ImageRecordIter, ImageIter, MNISTIter or CSVIter"));
}

#[test]
fn iter_runs_image_iter_over_a_list() {
    let dir = std::env::temp_dir().join(format!("kiln-data-cli-list-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = format!(
        "path_imglist={}",
        fixture("image_iter/images.lst").display()
    );
    let root = format!("path_root={}", fixture("src").display());
    // make_image_iter_fixtures.py's resize_meanstd_roll_over.
    let mut args = vec![
        "iter",
        "--iter",
        "ImageIter",
        &list,
        &root,
        "data_shape=(3,14,14)",
        "batch_size=4",
        "resize=16",
        "inter_method=1",
        "last_batch_handle=roll_over",
        "mean=(123.68,116.28,103.53)",
        "std=(58.395,57.12,57.375)",
        "--epochs",
        "2",
        "--out",
        "out",
    ];
    let stdout = cli::kiln_ok(&dir, "data", &args);
    // The second epoch's first batch holds the two images rolled over and two new ones;
    // MXNet's pad counts the new ones.
    assert!(
        stdout.contains("data [4, 3, 14, 14], label [4]")
            && stdout.contains("epoch 1: 1 batches, 4 images")
            && stdout.contains("epoch 2: 2 batches, 6 images"),
        "{stdout}"
    );
    for (written, fixture_name) in [
        ("epoch1_batch1", "resize_meanstd_roll_over_e0_b0"),
        ("epoch2_batch1", "resize_meanstd_roll_over_e1_b0"),
    ] {
        for part in ["data", "label"] {
            let got = NDArray::load_npy(dir.join(format!("out/{written}_{part}.npy"))).unwrap();
            let want = NDArray::load_npy(fixture(&format!("image_iter/{fixture_name}_{part}.npy")))
                .unwrap();
            assert_eq!(got.shape(), want.shape(), "{written} {part}");
            assert_eq!(
                got.to_vec::<f32>().unwrap(),
                want.to_vec::<f32>().unwrap(),
                "{written} {part}"
            );
        }
    }
    args.push("colour=1");
    let out = kiln(&dir, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("ImageIter has no parameter `colour`"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
