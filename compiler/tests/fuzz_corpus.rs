//! Replays the committed fuzz corpora (`fuzz/corpus/NAME/`, seeded from the test fixtures
//! and grown by libFuzzer) through their targets on stable: every input that once
//! crashed a parser is in a corpus, so a regression fails here, naming the file.

use kiln_compiler::formats::fuzz::{replay, TARGETS};
use std::path::Path;

#[test]
fn every_corpus_input_parses_or_is_refused_without_a_panic() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    for (name, target) in TARGETS {
        replay(name, *target, &corpus.join(name));
    }
}
