#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kiln_image::fuzz::run("jpeg", data);
});
