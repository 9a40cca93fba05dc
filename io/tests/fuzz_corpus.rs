//! Replays the committed corpora of kiln-io's fuzz targets (`fuzz/corpus/NAME/`) on
//! stable, so an input that once crashed a parser fails here by name.

use kiln_compiler::formats::fuzz::replay;
use std::path::Path;

#[test]
fn every_data_file_input_is_read_or_refused_without_a_panic() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    for (name, target) in kiln_io::fuzz::TARGETS {
        replay(name, *target, &corpus.join(name));
    }
}
