//! Philox-4x32-10, the counter-based generator behind every random operator: a value
//! depends only on (key, counter), so results are the same whatever the thread count or
//! backend, and a backend's random outputs can be compared with the oracle exactly.

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox-4x32 with 10 rounds (Salmon et al., SC'11).
pub fn philox4x32(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (counter, key);
    for _ in 0..10 {
        let p0 = (M0 as u64) * (c[0] as u64);
        let p1 = (M1 as u64) * (c[2] as u64);
        c = [
            ((p1 >> 32) as u32) ^ c[1] ^ k[0],
            p1 as u32,
            ((p0 >> 32) as u32) ^ c[3] ^ k[1],
            p0 as u32,
        ];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    c
}

/// The key of one operator instance: the user's seed and the instance's id.
pub fn key(seed: u64, instance: u64) -> [u32; 2] {
    let mixed = philox4x32(
        [instance as u32, (instance >> 32) as u32, 0, 0],
        [seed as u32, (seed >> 32) as u32],
    );
    [mixed[0], mixed[1]]
}

/// The seed of stream `instance` of `seed` (a device's, an epoch's), independent of the
/// others.
pub fn subseed(seed: u64, instance: u64) -> u64 {
    let [hi, lo] = key(seed, instance);
    (u64::from(hi) << 32) | u64::from(lo)
}

/// A uniform value in [0, 1) for element `index` of stream `stream`, with 24 random bits so
/// that an f32 kernel produces exactly the same number.
pub fn uniform(key: [u32; 2], stream: u32, index: u64) -> f64 {
    let r = philox4x32([index as u32, (index >> 32) as u32, stream, 0], key);
    (r[0] >> 8) as f64 * (1.0 / (1u64 << 24) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_random123_known_answers() {
        // Known-answer vectors from the Random123 distribution (kat_vectors, philox4x32_10).
        assert_eq!(
            philox4x32([0, 0, 0, 0], [0, 0]),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        assert_eq!(
            philox4x32([0xffffffff; 4], [0xffffffff; 2]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32(
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0]
            ),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn uniform_moments() {
        let k = key(42, 7);
        let n = 100_000;
        let mean = (0..n).map(|i| uniform(k, 0, i)).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
    }
}
