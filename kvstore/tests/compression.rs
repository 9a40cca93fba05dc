//! 2-bit gradient compression against MXNet 1.9.1 (tests/fixtures/kvstore/compression,
//! made by its `make_fixtures.py` through MXNet's own `GradientCompression`): packed words
//! bit for bit, residuals and dequantized values exactly, over steps that carry the
//! residual; and the parameters and buffers it refuses.

use kiln_kvstore::compression::{compressed_size, GradientCompression};
use kiln_kvstore::Error;
use serde_json::Value;

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/kvstore/compression/cases.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn floats(bits: &Value) -> Vec<f32> {
    (bits.as_array().unwrap().iter())
        .map(|b| f32::from_bits(b.as_u64().unwrap() as u32))
        .collect()
}

fn compression(case: &Value) -> GradientCompression {
    GradientCompression::two_bit(f32::from_bits(case["threshold"].as_u64().unwrap() as u32))
        .unwrap()
}

/// Equal bits, or both NaN (a NaN's payload depends on the order of an addition's
/// operands, which neither MXNet nor Rust fixes).
fn assert_same(got: &[f32], expected: &[f32], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: length");
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        assert!(
            g.to_bits() == e.to_bits() || (g.is_nan() && e.is_nan()),
            "{what}, element {i}: {g} ({:#010x}) vs MXNet's {e} ({:#010x})",
            g.to_bits(),
            e.to_bits()
        );
    }
}

#[test]
fn compressed_sizes_are_mxnets() {
    let fixture = fixture();
    for pair in fixture["sizes"].as_array().unwrap() {
        let (n, words) = (pair[0].as_u64().unwrap(), pair[1].as_u64().unwrap());
        assert_eq!(compressed_size(n as usize), words as usize, "n = {n}");
    }
}

#[test]
fn quantize_and_dequantize_equal_mxnets_over_steps() {
    let fixture = fixture();
    let cases = fixture["quantize"].as_array().unwrap();
    assert_eq!(cases.len(), 8);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let gc = compression(case);
        let steps = case["steps"].as_array().unwrap();
        let n = steps[0]["grad"].as_array().unwrap().len();
        // One residual for the whole sequence, zeroed at the start as MXNet's.
        let mut residual = vec![0.0; n];
        let mut packed = vec![f32::NAN; compressed_size(n)];
        let mut out = vec![f32::NAN; n];
        for (s, step) in steps.iter().enumerate() {
            gc.quantize(&floats(&step["grad"]), &mut residual, &mut packed)
                .unwrap();
            let words: Vec<u32> = packed.iter().map(|w| w.to_bits()).collect();
            let expected: Vec<u32> = (floats(&step["packed"]).iter())
                .map(|w| w.to_bits())
                .collect();
            assert_eq!(words, expected, "{name}, step {s}: packed words");
            assert_same(
                &residual,
                &floats(&step["residual"]),
                &format!("{name}, step {s}: residual"),
            );
            gc.dequantize(&packed, &mut out).unwrap();
            assert_same(
                &out,
                &floats(&step["dequantized"]),
                &format!("{name}, step {s}: dequantized"),
            );
        }
    }
}

#[test]
fn dequantize_reads_any_word_as_mxnet() {
    let fixture = fixture();
    for case in fixture["dequantize"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let mut out = vec![f32::NAN; case["n"].as_u64().unwrap() as usize];
        compression(case)
            .dequantize(&floats(&case["packed"]), &mut out)
            .unwrap();
        assert_same(&out, &floats(&case["out"]), name);
    }
}

#[test]
fn chunks_at_word_boundaries_compress_as_the_whole() {
    let gc = GradientCompression::two_bit(0.25).unwrap();
    let grad: Vec<f32> = (0..70)
        .map(|i| ((i * 37 % 23) as f32 - 11.0) / 16.0)
        .collect();
    let (mut whole, mut residual) = (vec![0.0; compressed_size(70)], vec![0.0; 70]);
    gc.quantize(&grad, &mut residual, &mut whole).unwrap();
    let (mut parts, mut part_residual) = (vec![0.0; compressed_size(70)], vec![0.0; 70]);
    for ((g, r), p) in grad
        .chunks(32)
        .zip(part_residual.chunks_mut(32))
        .zip(parts.chunks_mut(2))
    {
        gc.quantize(g, r, p).unwrap();
    }
    assert_same(&parts, &whole, "packed");
    assert_same(&part_residual, &residual, "residual");
}

fn input_error<T: std::fmt::Debug>(result: Result<T, Error>) -> String {
    match result {
        Err(Error::Input(message)) => message,
        other => panic!("an input error expected, got {other:?}"),
    }
}

fn parse(params: &[(&str, &str)]) -> Result<Option<GradientCompression>, Error> {
    GradientCompression::from_params(params.iter().copied())
}

#[test]
fn parameters_parse_as_mxnets() {
    let two_bit = |t: f32| Some(GradientCompression::two_bit(t).unwrap());
    assert_eq!(parse(&[("type", "2bit")]).unwrap(), two_bit(0.5));
    assert_eq!(
        parse(&[("type", "2bit"), ("threshold", "0.05")]).unwrap(),
        two_bit(0.05)
    );
    assert_eq!(
        parse(&[("threshold", " .25"), ("type", "2bit")]).unwrap(),
        two_bit(0.25)
    );
    assert_eq!(parse(&[("type", "none")]).unwrap(), None);
    assert_eq!(two_bit(0.05).unwrap().threshold(), 0.05);

    for (params, expected) in [
        (vec![("type", "1bit")], "unknown `type` '1bit'"),
        (vec![("type", "2BIT")], "unknown `type` '2BIT'"),
        (vec![("threshold", "0.5")], "`type` is required"),
        (vec![("type", "2bit"), ("threshold", "abc")], "got 'abc'"),
        (vec![("type", "2bit"), ("threshold", "0.5 ")], "got '0.5 '"),
        (vec![("type", "2bit"), ("threshold", "0")], "got 0"),
        (vec![("type", "2bit"), ("threshold", "-1")], "got -1"),
        (vec![("type", "2bit"), ("threshold", "nan")], "got NaN"),
        (vec![("type", "2bit"), ("threshold", "inf")], "got inf"),
        (
            vec![("type", "2bit"), ("threshold", "1e-40")],
            "positive normal",
        ),
        (vec![("type", "2bit"), ("threshhold", "1")], "`threshhold`"),
    ] {
        let message = input_error(parse(&params));
        assert!(
            message.contains(expected),
            "{params:?}: `{message}` lacks `{expected}`"
        );
    }
}

#[test]
fn mismatched_buffers_are_errors() {
    let gc = GradientCompression::two_bit(0.5).unwrap();
    let grad = [0.0; 17];
    let (mut residual, mut packed) = ([0.0; 17], [0.0; 2]);
    let message = input_error(gc.quantize(&grad, &mut residual[..16], &mut packed));
    assert!(message.contains("residual of 17"), "{message}");
    let message = input_error(gc.quantize(&grad, &mut residual, &mut packed[..1]));
    assert!(
        message.contains("2 packed words, got 17 and 1"),
        "{message}"
    );
    let message = input_error(gc.dequantize(&packed, &mut [0.0; 33]));
    assert!(
        message.contains("33 values need 3 packed words, got 2"),
        "{message}"
    );
    assert!(gc.dequantize(&packed, &mut [0.0; 32]).is_ok());
}
