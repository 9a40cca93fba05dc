//! `im2rec` against MXNet 1.9.1's `tools/im2rec.py` (tests/fixtures/data/im2rec/, made by
//! make_im2rec_fixtures.py): the same lists from the same folder (shuffled, flat, split
//! into chunks and ratios), and with `--pass-through` the same `.rec` and `.idx` bytes.

use kiln_io::im2rec::{
    lists_for_prefix, make_lists, pack_list, ListOptions, PackOptions, Unpackable,
};
use kiln_io::Error;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/data/im2rec")
        .join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kiln-im2rec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn same_file(got: &Path, want: &Path) {
    assert!(
        std::fs::read(got).unwrap() == std::fs::read(want).unwrap(),
        "{} differs from {}",
        got.display(),
        want.display()
    );
}

fn pass_through(_: &Path, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    Ok(bytes)
}

#[test]
fn lists_equal_im2rec_pys() {
    let dir = scratch("lists");
    let images = fixture("images");
    let recursive = ListOptions {
        recursive: true,
        ..ListOptions::default()
    };
    let flat = ListOptions {
        shuffle: false,
        ..ListOptions::default()
    };
    let split = ListOptions {
        recursive: true,
        shuffle: false,
        chunks: 2,
        train_ratio: 0.5,
        test_ratio: 0.25,
        ..ListOptions::default()
    };
    let split_files = ["0", "1"]
        .iter()
        .flat_map(|c| ["test", "val", "train"].map(|p| format!("split_{c}_{p}.lst")))
        .collect();
    for (stem, options, files) in [
        ("shuffled", &recursive, vec!["shuffled.lst".to_string()]),
        ("flat", &flat, vec!["flat.lst".to_string()]),
        ("split", &split, split_files),
    ] {
        let prefix = dir.join(stem);
        let (written, folders) = make_lists(prefix.to_str().unwrap(), &images, options).unwrap();
        let names: Vec<String> = (written.iter())
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, files, "{stem}: the files written");
        for name in names {
            same_file(&dir.join(&name), &fixture(&format!("expected/{name}")));
        }
        if options.recursive {
            let labels: Vec<(&str, usize)> =
                folders.iter().map(|(f, l)| (f.as_str(), *l)).collect();
            assert_eq!(
                labels,
                [
                    (".", 0),
                    ("cat", 1),
                    ("dog", 2),
                    ("dog/puppies", 3),
                    ("zebra", 4)
                ],
                "{stem}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pass_through_packs_im2rec_pys_bytes() {
    let dir = scratch("pack");
    let images = fixture("images");
    for (stem, pack_label) in [("shuffled", false), ("multi", true)] {
        let list = dir.join(format!("{stem}.lst"));
        std::fs::copy(fixture(&format!("expected/{stem}.lst")), &list).unwrap();
        for num_thread in [1, 3] {
            let options = PackOptions {
                pack_label,
                num_thread,
                ..PackOptions::default()
            };
            let done = std::sync::atomic::AtomicUsize::new(0);
            let add = |n: usize| {
                done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            };
            let packed = pack_list(&list, &images, &options, &pass_through, &add).unwrap();
            assert!(packed.skipped.is_empty());
            assert_eq!(done.into_inner(), packed.records);
            same_file(&packed.rec, &fixture(&format!("expected/{stem}.rec")));
            same_file(&packed.idx, &fixture(&format!("expected/{stem}.idx")));
        }
    }
    assert_eq!(
        lists_for_prefix(&dir.join("shuf")).unwrap(),
        [dir.join("shuffled.lst")],
        "the lists a prefix names"
    );
    assert_eq!(
        lists_for_prefix(&dir).unwrap().len(),
        2,
        "a folder as the prefix: all its lists"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unreadable_images_fail_naming_the_entry_or_are_skipped_and_counted() {
    let dir = scratch("missing");
    let list = dir.join("bad.lst");
    std::fs::write(
        &list,
        "0\t1\tcat/a.jpg\n1\t1\tcat/gone.jpg\n2\t2\tdog/y.jpg\n",
    )
    .unwrap();
    let images = fixture("images");
    let quiet = |_: usize| {};
    let err = pack_list(
        &list,
        &images,
        &PackOptions::default(),
        &pass_through,
        &quiet,
    )
    .unwrap_err();
    assert!(
        matches!(&err, Error::Image(e) if e.index == 1 && matches!(e.why, Unpackable::Read { .. })),
        "{err}"
    );
    let err = err.to_string();
    assert!(
        err.contains("bad.lst: image 1 (cat/gone.jpg): ") && err.contains("gone.jpg: No such file"),
        "{err}"
    );
    assert!(
        !dir.join("bad.rec").exists() && !dir.join("bad.idx").exists(),
        "nothing written"
    );
    let skip = PackOptions {
        skip_errors: true,
        ..PackOptions::default()
    };
    let packed = pack_list(&list, &images, &skip, &pass_through, &quiet).unwrap();
    assert_eq!((packed.records, packed.skipped.len()), (2, 1));
    let refuse = |path: &Path, _: Vec<u8>| -> Result<Vec<u8>, String> {
        Err(format!("{} does not decode", path.display()))
    };
    let err = pack_list(&list, &images, &PackOptions::default(), &refuse, &quiet).unwrap_err();
    assert!(
        matches!(&err, Error::Image(e) if matches!(e.why, Unpackable::Encode(_))),
        "{err}"
    );
    assert!(
        err.to_string().contains("image 0 (cat/a.jpg): ")
            && err.to_string().contains("does not decode"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
