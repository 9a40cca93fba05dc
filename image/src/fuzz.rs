//! kiln-image's own decoder as a fuzz target (the harness of `kiln_compiler::formats::fuzz`:
//! the `fuzz/` package runs it under libFuzzer, `tests/fuzz_corpus.rs` replays the
//! committed corpus on stable). Any bytes decode or are refused, never a panic or a hang.
//! The target calls the JPEG decoder directly, past [`crate::decode`]'s guard that turns
//! a panic into an error, so that a panic is found.

use crate::Error;
use kiln_compiler::formats::fuzz::Target;

/// Every fuzz target of kiln-image, by name.
pub const TARGETS: &[(&str, Target)] = &[("jpeg", jpeg)];

/// Runs the target named `name` on `data`; an unknown name is a fuzz harness bug.
pub fn run(name: &str, data: &[u8]) {
    match TARGETS.iter().find(|(n, _)| *n == name) {
        Some((_, target)) => target(data),
        None => panic!("no fuzz target {name}"),
    }
}

/// The most pixels a fuzzed JPEG may claim: enough for every code path, small enough
/// that libFuzzer's memory limit is not what fails.
const FUZZ_PIXELS: usize = 1 << 20;

/// A JPEG decoded in colour and in gray, and turned by its EXIF orientation; a decoded
/// image has the size its header gives.
fn jpeg(data: &[u8]) {
    let check = |w: usize, h: usize| match w.checked_mul(h) {
        Some(p) if p <= FUZZ_PIXELS => Ok(()),
        _ => Err(Error::Input(format!("{w}×{h} is over the fuzzing limit"))),
    };
    for channels in [1, 3] {
        if let Ok(image) = crate::jpeg::decode(data, channels, check) {
            assert_eq!(
                image.data.len(),
                image.width * image.height * channels,
                "pixels for the header's size"
            );
            if let Some(orientation) = crate::orientation::exif_orientation(data) {
                let turned = crate::orientation::apply_orientation(image, orientation);
                assert_eq!(turned.data.len(), turned.width * turned.height * channels);
            }
        }
    }
}
