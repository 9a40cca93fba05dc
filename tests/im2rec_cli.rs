//! `kiln im2rec` called as `im2rec.py` is: a list, then pass-through packing, give
//! MXNet's files (tests/fixtures/data/im2rec/expected/); what it cannot do is refused by
//! name.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kiln(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
        .current_dir(dir)
        .arg("im2rec")
        .args(args)
        .output()
        .unwrap()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/data/im2rec")
        .join(name)
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
        (vec!["data", images], "pass --pass-through"),
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
