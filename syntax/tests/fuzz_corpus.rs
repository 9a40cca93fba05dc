//! Replays the committed corpus of the `network!` syntax's fuzz target
//! (`fuzz/corpus/network_syntax/`) on stable, so an input that once crashed the parser or
//! the builder fails here by name.

use kiln_compiler::formats::fuzz::replay;
use std::path::Path;

#[test]
fn every_network_syntax_input_builds_or_is_refused_without_a_panic() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/network_syntax");
    replay("network_syntax", kiln_syntax::fuzz_network, &folder);
}
