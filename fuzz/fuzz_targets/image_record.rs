#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kiln_io::fuzz::run("image_record", data);
});
