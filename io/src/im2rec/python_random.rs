//! Python's `random.seed(int)` and `random.shuffle`, so that `im2rec --list` orders a
//! shuffled list as `im2rec.py` does: MT19937 seeded by `init_by_array` with the seed's
//! 32-bit words, and `_randbelow` drawing `bit_length(n)` bits until one is below `n`.

use rand_mt::Mt;

/// Python's generator after `random.seed(seed)`.
pub struct PythonRandom(Mt);

impl PythonRandom {
    pub fn new(seed: u64) -> PythonRandom {
        // CPython splits the seed's absolute value into 32-bit words, low first, and
        // keeps at least one.
        let key: Vec<u32> = match seed >> 32 {
            0 => vec![seed as u32],
            high => vec![seed as u32, high as u32],
        };
        PythonRandom(Mt::new_with_key(key))
    }

    /// `getrandbits(k)` for `1 <= k <= 32`.
    fn bits(&mut self, k: u32) -> u32 {
        self.0.next_u32() >> (32 - k)
    }

    /// `_randbelow(n)` for `1 <= n <= 2^32`.
    fn below(&mut self, n: u64) -> u64 {
        let k = 64 - n.leading_zeros();
        loop {
            let r = u64::from(self.bits(k));
            if r < n {
                return r;
            }
        }
    }

    /// `random.shuffle(items)`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}
