#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kiln_compiler::formats::fuzz::run("symbol_json", data);
});
