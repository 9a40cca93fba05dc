//! Replays the committed fuzz corpora (`fuzz/corpus/NAME/`, seeded from the test fixtures
//! and grown by libFuzzer) through their targets on stable: every input that once
//! crashed a parser is in a corpus, so a regression fails here, naming the file.

use kiln_compiler::formats::fuzz::TARGETS;
use std::path::Path;

#[test]
fn every_corpus_input_parses_or_is_refused_without_a_panic() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    for (name, target) in TARGETS {
        let folder = corpus.join(name);
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("{}: {e} (each target has a corpus)", folder.display()));
        let mut inputs = 0;
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            let ran = std::panic::catch_unwind(|| target(&data));
            assert!(ran.is_ok(), "{name}: {} panicked", path.display());
            inputs += 1;
        }
        assert!(inputs > 0, "{name}: an empty corpus");
    }
}
