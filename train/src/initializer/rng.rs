//! The initializers' random source: kiln's Philox-4x32-10 streams, one key per random
//! array, derived from a seed and a counter exactly as the runtime's imperative generator
//! derives them (`kiln_ops::random::key(seed, n)` for the n-th random array), and each
//! element computed as the `_random_uniform` / `_random_normal` reference kernels compute
//! it for that key. An initializer run with `Rng::new(s)` therefore draws the same numbers
//! as `random::seed(s)` followed by the same `random::uniform`/`random::normal` calls, but
//! without the process-wide generator: two initializations in parallel threads each keep
//! their own sequence.

use kiln_ops::sampling::draw;

/// A seed and the number of random arrays drawn from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    seed: u64,
    drawn: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { seed, drawn: 0 }
    }

    /// The Philox key of the next random array.
    pub fn key(&mut self) -> [u32; 2] {
        let key = kiln_ops::random::key(self.seed, self.drawn);
        self.drawn += 1;
        key
    }

    /// `n` samples of U[low, high), as `_random_uniform` draws them.
    pub fn uniform(&mut self, low: f64, high: f64, n: usize) -> Vec<f64> {
        let key = self.key();
        (0..n as u64)
            .map(|i| low + (high - low) * kiln_ops::random::uniform(key, 0, i))
            .collect()
    }

    /// `n` samples of N(loc, scale²), as `_random_normal` draws them (Box–Muller).
    pub fn normal(&mut self, loc: f64, scale: f64, n: usize) -> Vec<f64> {
        let key = self.key();
        (0..n as u64)
            .map(|i| loc + scale * draw::std_normal(key, 0, i))
            .collect()
    }
}
