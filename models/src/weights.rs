//! The deterministic parameter formula shared with the MXNet parity fixtures
//! (`tests/fixtures/README.md`, "Weight formula"): every value depends only on the
//! parameter's name, shape and position, through integer hashing and exact float steps, so
//! Python and Rust produce the same bits. Useful wherever a model needs plausible weights
//! without a file: parity tests, examples, benchmarks.

use kiln_compiler::{DType, Tensor};

/// FNV-1a, 64 bits.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `n` values in [-1, 1) from a splitmix64 stream seeded by the name's hash.
pub fn uniform_stream(name: &str, n: usize) -> impl Iterator<Item = f64> {
    let mut state = fnv1a64(name.as_bytes());
    (0..n).map(move |_| {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 * (1.0 / (1u64 << 52) as f64) - 1.0
    })
}

/// The value of parameter `name` with `shape`, as float32: variances near 1, gammas near 1,
/// betas, biases and means near 0, weights He-uniform over their fan-in.
pub fn parameter(name: &str, shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let fan_in = if shape.len() >= 2 {
        n / shape[0].max(1)
    } else {
        n
    };
    let ends = |suffixes: &[&str]| suffixes.iter().any(|s| name.ends_with(s));
    let scale = (6.0 / fan_in.max(1) as f64).sqrt();
    let data = uniform_stream(name, n)
        .map(|u| {
            if ends(&["running_var", "moving_var"]) {
                1.0 + (0.5 * u) * u
            } else if ends(&["gamma"]) {
                1.0 + 0.1 * u
            } else if ends(&["beta", "bias", "running_mean", "moving_mean"]) {
                0.1 * u
            } else {
                u * scale
            }
        })
        .collect();
    Tensor::new(DType::F32, shape.to_vec(), data)
}

/// An input tensor: the raw stream of `name`, as float32.
pub fn input(name: &str, shape: &[usize]) -> Tensor {
    let n = shape.iter().product();
    Tensor::new(
        DType::F32,
        shape.to_vec(),
        uniform_stream(name, n).collect(),
    )
}

/// FNV-1a-64 of a tensor's little-endian bytes (the fixtures record it per parameter).
pub fn fingerprint(t: &Tensor) -> u64 {
    fnv1a64(&t.to_bytes())
}
