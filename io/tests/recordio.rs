//! RecordIO against MXNet 1.9.1 (tests/fixtures/data/recordio/, made by
//! make_recordio_fixtures.py): its file reads back as the records it wrote, kiln writes the
//! same bytes and the same `.idx`, image record headers read and pack as MXNet's; corrupt
//! files are errors naming the file, the record and the byte offset.

use kiln_io::recordio::{
    read_index, write_index, Corrupt, ImageRecord, IndexEntry, Label, RecordFile, RecordWriter,
    Records,
};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/data/recordio")
        .join(name)
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The fixture's records: key, payload, and the JSON case.
fn cases() -> Vec<(i64, Vec<u8>, serde_json::Value)> {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("records.json")).unwrap()).unwrap();
    (json["records"].as_array().unwrap().iter())
        .map(|c| {
            let payload = hex(c["payload"].as_str().unwrap());
            (c["key"].as_i64().unwrap(), payload, c.clone())
        })
        .collect()
}

#[test]
fn mxnets_file_reads_back_as_the_records_it_wrote() {
    let file = RecordFile::open(fixture("records.rec")).unwrap();
    let index = read_index(
        &std::fs::read(fixture("records.idx")).unwrap(),
        Path::new("records.idx"),
    )
    .unwrap();
    let cases = cases();
    assert_eq!(cases.len(), 14);
    let records: Vec<_> = file.records().collect::<Result<_, _>>().unwrap();
    assert_eq!(records.len(), cases.len());
    for ((record, entry), (key, payload, _)) in records.iter().zip(&index).zip(&cases) {
        assert_eq!(entry.key, *key);
        assert_eq!(record.offset, entry.offset, "record {key}'s offset");
        assert_eq!(*record.payload, payload[..], "record {key} in order");
        assert_eq!(
            *file.read_at(entry.offset).unwrap(),
            payload[..],
            "record {key} by offset"
        );
        // A record without the magic at an aligned offset is one part: a slice of the map.
        let split = payload
            .chunks_exact(4)
            .any(|w| w == 0xCED7_230Au32.to_le_bytes());
        assert_eq!(
            matches!(record.payload, Cow::Borrowed(_)),
            !split,
            "record {key}: zero-copy exactly when whole"
        );
    }
}

#[test]
fn kiln_writes_mxnets_bytes_and_index() {
    let mut writer = RecordWriter::new(Vec::new());
    let mut entries = Vec::new();
    for (key, payload, _) in cases() {
        let offset = writer.write(&payload).unwrap();
        entries.push(IndexEntry { key, offset });
    }
    let bytes = writer.into_inner().unwrap();
    assert!(
        bytes == std::fs::read(fixture("records.rec")).unwrap(),
        "the .rec bytes differ"
    );
    let mut idx = Vec::new();
    write_index(&mut idx, &entries).unwrap();
    assert_eq!(
        String::from_utf8(idx).unwrap(),
        std::fs::read_to_string(fixture("records.idx")).unwrap()
    );
}

#[test]
fn image_records_unpack_and_pack_as_mxnets() {
    for (key, payload, case) in cases().into_iter().filter(|c| c.2.get("header").is_some()) {
        let record = ImageRecord::unpack(&payload).unwrap();
        let header = &case["header"];
        let want = match &header["label"] {
            serde_json::Value::Array(v) => {
                Label::Multi(v.iter().map(|x| x.as_f64().unwrap() as f32).collect())
            }
            x => Label::Scalar(x.as_f64().unwrap() as f32),
        };
        assert_eq!(record.label, want, "record {key}");
        assert_eq!(
            record.label.values().len(),
            header["flag"].as_u64().unwrap().max(1) as usize
        );
        assert_eq!(record.id, header["id"].as_u64().unwrap(), "record {key}");
        assert_eq!(record.id2, header["id2"].as_u64().unwrap(), "record {key}");
        assert_eq!(
            record.image,
            hex(case["image"].as_str().unwrap()),
            "record {key}"
        );
        assert_eq!(record.pack(), payload, "record {key} packs back");
    }
    let short = ImageRecord::unpack(&[1, 0, 0, 0]).unwrap_err();
    assert_eq!(short, Corrupt::ShortImageHeader { len: 4 });
    assert!(short.to_string().contains("24-byte header"), "{short}");
    let mut claims = ImageRecord {
        label: Label::Multi(vec![1.0; 3]),
        id: 1,
        id2: 0,
        image: b"",
    }
    .pack();
    claims[0] = 200;
    let err = ImageRecord::unpack(&claims).unwrap_err();
    assert_eq!(
        err,
        Corrupt::Labels {
            count: 200,
            left: 12
        }
    );
    assert!(err.to_string().contains("200 labels"), "{err}");
}

/// Reads every record of `bytes`; the error's text when one fails.
fn read_all(bytes: &[u8]) -> Result<usize, String> {
    let mut n = 0;
    for r in Records::new(bytes, Path::new("bad.rec")) {
        r.map_err(|e| e.to_string())?;
        n += 1;
    }
    Ok(n)
}

#[test]
fn corrupt_files_are_errors_naming_the_record_and_byte() {
    let good = std::fs::read(fixture("records.rec")).unwrap();
    // Cut anywhere: the records before the cut read, the cut one is an error (never a
    // panic), except at a record boundary.
    let boundaries: Vec<u64> = RecordFile::open(fixture("records.rec"))
        .unwrap()
        .records()
        .map(|r| r.unwrap().offset)
        .chain([good.len() as u64])
        .collect();
    for cut in 0..good.len() {
        let got = read_all(&good[..cut]);
        let complete = boundaries.iter().filter(|&&b| b as usize <= cut).count() - 1;
        match boundaries.contains(&(cut as u64)) {
            true => assert_eq!(got, Ok(complete), "cut at {cut}"),
            false => {
                let e = got.unwrap_err();
                assert!(
                    e.starts_with(&format!(
                        "bad.rec: record {complete}, starting at byte {}",
                        boundaries[complete]
                    )) && e.contains("truncated"),
                    "cut at {cut}: {e}"
                );
            }
        }
    }
    let cases: [(&str, Vec<u8>, &str); 4] = [
        (
            "a wrong magic",
            [b"RIFF".as_slice(), &[0; 4]].concat(),
            "magic 0x46464952, expected 0xced7230a",
        ),
        (
            "an undefined flag",
            [0xCED7_230Au32.to_le_bytes(), (5u32 << 29).to_le_bytes()].concat(),
            "continuation flag 5",
        ),
        (
            "a record starting mid-way",
            [0xCED7_230Au32.to_le_bytes(), (2u32 << 29).to_le_bytes()].concat(),
            "starts with a middle part",
        ),
        (
            "a new record before the last part",
            [
                0xCED7_230Au32.to_le_bytes(),
                (1u32 << 29).to_le_bytes(),
                0xCED7_230Au32.to_le_bytes(),
                0u32.to_le_bytes(),
            ]
            .concat(),
            "the part at byte 1376 starts a new record",
        ),
    ];
    for (what, bytes, message) in cases {
        let e = read_all(&[good.as_slice(), &bytes].concat()).unwrap_err();
        assert!(
            e.starts_with("bad.rec: record 14, starting at byte 1368") && e.contains(message),
            "{what}: {e}"
        );
    }
    let file = RecordFile::open(fixture("records.rec")).unwrap();
    let past = file.read_at(1 << 40).unwrap_err().to_string();
    assert!(
        past.contains("the record at byte 1099511627776") && past.contains("past the end"),
        "{past}"
    );
    let mid = file.read_at(4).unwrap_err().to_string();
    assert!(mid.contains("no RecordIO part at byte 4"), "{mid}");
}

#[test]
fn index_files_name_their_bad_lines() {
    let path = Path::new("x.idx");
    assert_eq!(
        read_index(b"3\t0\n-1\t16\n\n", path).unwrap(),
        [
            IndexEntry { key: 3, offset: 0 },
            IndexEntry {
                key: -1,
                offset: 16
            }
        ]
    );
    for (text, message) in [
        (
            &b"0\t0\n1 8\n"[..],
            "x.idx:2: `1 8` is not `key<TAB>offset`",
        ),
        (b"a\t0\n", "x.idx:1: key `a` is not an integer"),
        (b"0\t-8\n", "x.idx:1: offset `-8` is not a byte offset"),
        (b"0\t0\n\xff\t1\n", "x.idx:2: not UTF-8 text"),
    ] {
        assert_eq!(read_index(text, path).unwrap_err().to_string(), message);
    }
}

#[test]
fn image_lists_read_and_write_as_im2rec_does() {
    use kiln_io::{read_list, write_list, ListEntry};
    let path = Path::new("x.lst");
    let text = "0\t1.000000\tcat/a.jpg\n7\t2.5\t-1\tdog/b c.png\n\n";
    let entries = read_list(text.as_bytes(), path).unwrap();
    assert_eq!(
        entries,
        [
            ListEntry {
                index: 0,
                labels: vec![1.0],
                path: "cat/a.jpg".into()
            },
            ListEntry {
                index: 7,
                labels: vec![2.5, -1.0],
                path: "dog/b c.png".into()
            },
        ]
    );
    let mut out = Vec::new();
    write_list(&mut out, &entries).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "0\t1.000000\tcat/a.jpg\n7\t2.500000\t-1.000000\tdog/b c.png\n"
    );
    for (text, message) in [
        (
            &b"0\ta.jpg\n"[..],
            "x.lst:1: `0\ta.jpg` has 2 field(s): a line is `index<TAB>label(s)<TAB>path`",
        ),
        (
            b"a.jpg\n",
            "x.lst:1: `a.jpg` has 1 field(s): a line is `index<TAB>label(s)<TAB>path`",
        ),
        (
            b"0\t1\ta.jpg\nx\t1\tb.jpg\n",
            "x.lst:2: index `x` is not an integer",
        ),
        (b"0\tcat\ta.jpg\n", "x.lst:1: label `cat` is not a number"),
    ] {
        assert_eq!(read_list(text, path).unwrap_err().to_string(), message);
    }
}
