//! `kiln im2rec` called as `im2rec.py` is: a list, then pass-through packing, give
//! MXNet's files (tests/fixtures/data/im2rec/expected/); re-encoded records hold the
//! pixels im2rec.py's hold (tests/fixtures/data/im2rec/reencode/); bad flags are refused
//! by name.

use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/cli.rs"]
mod cli;

fn kiln(dir: &Path, args: &[&str]) -> Output {
    cli::kiln_in(dir, "im2rec", args)
}

fn fixture(name: &str) -> PathBuf {
    cli::data_fixture("im2rec", name)
}

#[test]
fn lists_and_packs_as_im2rec_py() {
    let dir = std::env::temp_dir().join(format!("kiln-im2rec-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let images = fixture("images");
    let images = images.to_str().unwrap();
    let listed = kiln(&dir, &["data", images, "--list", "--recursive"]);
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout),
        ". 0\ncat 1\ndog 2\ndog/puppies 3\nzebra 4\n",
        "the labelled folders, as im2rec.py prints them"
    );
    let packed = kiln(
        &dir,
        &["data", images, "--pass-through", "--num-thread", "2"],
    );
    let stderr = String::from_utf8_lossy(&packed.stderr);
    assert!(
        packed.status.success() && stderr.contains("11 images into"),
        "{stderr}"
    );
    for (got, want) in [
        ("data.lst", "shuffled.lst"),
        ("data.rec", "shuffled.rec"),
        ("data.idx", "shuffled.idx"),
    ] {
        assert!(
            std::fs::read(dir.join(got)).unwrap()
                == std::fs::read(fixture(&format!("expected/{want}"))).unwrap(),
            "{got} differs from im2rec.py's {want}"
        );
    }
    let refused = [
        (
            vec!["data", images, "--encoding", ".gif"],
            "--encoding: encoding `.gif`",
        ),
        (vec!["nothing", images, "--pass-through"], "no list file"),
        (
            vec!["data", "no/such/folder", "--pass-through"],
            "not a folder of images",
        ),
    ];
    for (args, message) in refused {
        let out = kiln(&dir, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(message),
            "{args:?}: {stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The records of a .rec file: (id, label, pixels decoded to `channels`).
fn images(path: &Path, channels: usize) -> Vec<(u64, Vec<f32>, kiln::image::Image)> {
    use kiln::io::recordio::{ImageRecord, RecordFile};
    let file = RecordFile::open(path).unwrap();
    file.records()
        .map(|r| {
            let r = r.unwrap();
            let record = ImageRecord::unpack(&r.payload).unwrap();
            let image = kiln::image::decode(record.image, channels).unwrap();
            (record.id, record.label.values().to_vec(), image)
        })
        .collect()
}

/// Re-encoded records (centre square, resize, colour and gray) as im2rec.py packs them:
/// as PNG, the same pixels (the png crate's bytes are not OpenCV's); as JPEG, the same
/// .rec file byte for byte (kiln's encoder writes libjpeg-turbo's bytes).
#[test]
fn reencoded_records_are_im2rec_pys() {
    let dir = std::env::temp_dir().join(format!("kiln-im2rec-reencode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sources = fixture("../images/src");
    let sources = sources.to_str().unwrap();
    for (stem, channels, extra) in [("color", 3, vec![]), ("gray", 1, vec!["--color", "0"])] {
        for encoding in [".png", ".jpg"] {
            std::fs::copy(
                fixture(&format!("reencode/{stem}.lst")),
                dir.join(format!("{stem}.lst")),
            )
            .unwrap();
            let mut args = vec![
                stem,
                sources,
                "--resize",
                "20",
                "--center-crop",
                "--encoding",
                encoding,
            ];
            args.extend(&extra);
            cli::kiln_ok(&dir, "im2rec", &args);
            let ours = dir.join(format!("{stem}.rec"));
            if encoding == ".jpg" {
                let theirs = fixture(&format!("reencode/{stem}_jpg.rec"));
                assert!(
                    std::fs::read(&ours).unwrap() == std::fs::read(&theirs).unwrap(),
                    "{stem}: kiln's .rec differs from im2rec.py's"
                );
                continue;
            }
            let got = images(&ours, channels);
            let want = images(&fixture(&format!("reencode/{stem}.rec")), channels);
            assert_eq!(got.len(), 6);
            for ((id, label, image), (want_id, want_label, want)) in got.iter().zip(&want) {
                assert_eq!((id, label), (want_id, want_label));
                assert_eq!(image, want, "{stem} .png: image {id}'s pixels differ");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--color -1` keeps the channels a file stores, as OpenCV's IMREAD_UNCHANGED: an RGBA
/// PNG stays RGBA, a gray one gray.
#[test]
fn color_minus_one_keeps_the_stored_channels() {
    let dir = std::env::temp_dir().join(format!("kiln-im2rec-unchanged-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture("reencode/unchanged.lst"), dir.join("unchanged.lst")).unwrap();
    let sources = fixture("unchanged_src");
    let args = [
        "unchanged",
        sources.to_str().unwrap(),
        "--color",
        "-1",
        "--encoding",
        ".png",
    ];
    cli::kiln_ok(&dir, "im2rec", &args);
    for (record, channels) in [(0, 4), (1, 1)] {
        let got = images(&dir.join("unchanged.rec"), channels).remove(record);
        let want = images(&fixture("reencode/unchanged.rec"), channels).remove(record);
        assert_eq!(got.2, want.2, "record {record}: pixels as stored");
        // The PNG's colour type (byte 25): 6 RGBA, 0 gray.
        let file = kiln::io::recordio::RecordFile::open(dir.join("unchanged.rec")).unwrap();
        let payload = file
            .records()
            .nth(record)
            .unwrap()
            .unwrap()
            .payload
            .into_owned();
        let png = kiln::io::recordio::ImageRecord::unpack(&payload)
            .unwrap()
            .image
            .to_vec();
        assert_eq!(
            png[25],
            if channels == 4 { 6 } else { 0 },
            "record {record}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
