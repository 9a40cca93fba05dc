//! The parsers of data files kiln reads from strangers, as fuzz targets (the harness of
//! `kiln_compiler::formats::fuzz`: the `fuzz/` package runs them under libFuzzer,
//! `tests/fuzz_corpus.rs` replays the committed corpora on stable). Each takes any bytes
//! and must return, never panic, hang or allocate what the input only claims.

use crate::recordio::{read_index, write_index, ImageRecord, RecordWriter, Records};
use kiln_compiler::formats::fuzz::Target;
use std::path::Path;

/// Every fuzz target of kiln-io, by name.
pub const TARGETS: &[(&str, Target)] = &[
    ("recordio", recordio),
    ("idx", idx),
    ("image_record", image_record),
    ("lst", lst),
];

/// Runs the target named `name` on `data`; an unknown name is a fuzz harness bug.
pub fn run(name: &str, data: &[u8]) {
    match TARGETS.iter().find(|(n, _)| *n == name) {
        Some((_, target)) => target(data),
        None => panic!("no fuzz target {name}"),
    }
}

/// Records read in order, each also read as an image record; the records read, written
/// again, read back the same.
fn recordio(data: &[u8]) {
    let path = Path::new("fuzz.rec");
    let payloads: Vec<Vec<u8>> = Records::new(data, path)
        .map_while(Result::ok)
        .map(|r| r.payload.into_owned())
        .collect();
    let mut writer = RecordWriter::new(Vec::new());
    for p in &payloads {
        let _ = ImageRecord::unpack(p);
        writer
            .write(p)
            .expect("a record read is small enough to write");
    }
    let written = writer.into_inner().expect("writing to memory");
    let again: Vec<Vec<u8>> = Records::new(&written, path)
        .map(|r| r.expect("kiln's own records read").payload.into_owned())
        .collect();
    assert_eq!(payloads, again, "records written back read differently");
}

/// An `.idx` text; entries read, written and read again are the same.
fn idx(data: &[u8]) {
    let path = Path::new("fuzz.idx");
    if let Ok(entries) = read_index(data, path) {
        let mut text = Vec::new();
        write_index(&mut text, &entries).expect("writing to memory");
        assert_eq!(
            read_index(&text, path).ok(),
            Some(entries),
            "idx round trip"
        );
    }
}

/// An image record's payload; one read packs to bytes that read and pack the same.
fn image_record(data: &[u8]) {
    if let Ok(record) = ImageRecord::unpack(data) {
        let packed = record.pack();
        let again = ImageRecord::unpack(&packed).expect("a packed record reads");
        assert_eq!(again.pack(), packed, "pack round trip");
    }
}

/// A `.lst` text.
fn lst(data: &[u8]) {
    if let Ok(entries) = crate::read_list(data, Path::new("fuzz.lst")) {
        let mut text = Vec::new();
        crate::write_list(&mut text, &entries).expect("writing to memory");
        let again = crate::read_list(&text, Path::new("fuzz.lst")).expect("a written list reads");
        assert_eq!(again.len(), entries.len(), "lst round trip");
    }
}
