//! Errors at compile time: each case under `ui/` fails to build with the message (and
//! span) in its `.stderr` file. `TRYBUILD=overwrite` rewrites them after a deliberate
//! change.

#[test]
fn errors_point_at_the_offending_call() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
