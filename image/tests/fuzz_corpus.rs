//! Replays the committed corpus of kiln-image's fuzz target (`fuzz/corpus/jpeg/`) on
//! stable, so an input that once crashed the decoder fails here by name.

use kiln_compiler::formats::fuzz::replay;
use std::path::Path;

#[test]
fn every_image_input_is_decoded_or_refused_without_a_panic() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    for (name, target) in kiln_image::fuzz::TARGETS {
        replay(name, *target, &corpus.join(name));
    }
}
