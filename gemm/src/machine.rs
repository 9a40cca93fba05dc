//! What the product is tuned from: the caches of the CPU that runs it (as Linux's sysfs
//! reports them), and the blocking derived from them.
//!
//! The blocking follows the loops of [`crate::blocked_as_given`] (Goto's, with BLIS's
//! analytical model of Low et al., 2016, for the sizes):
//! - **KC**, the depth of a block: a tile runs along A's `MR × KC` micro-panel, which
//!   stays in half of L1d while the panel's tile and the next one read it — a power of
//!   two (whole cache lines in every panel), 128 to 1024.
//! - **MC**, A's rows packed at once: A's `MC × KC` block and the `KC × NR` panel of B
//!   that every row tile of the block multiplies stay in half of L2 (the other half for
//!   C's tiles and the next panel) — a multiple of MR.
//! - **NC**, B's columns packed at once: B's `KC × NC` block in a quarter of this core's
//!   share of the last-level cache, at most 1024 columns (what bounds each thread's
//!   workspace) — a multiple of NR.
//!
//! On a Zen 4 core (32 KiB L1d, 1 MiB L2) with the AVX-512 f32 tile (6 × 64) this gives
//! the sizes kiln used before as constants, tuned there (KC 512, MC 192, NC 1024); on an
//! Ice Lake core (48 KiB, 2 MiB) KC 1024 and MC 192.

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The caches of the first core, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caches {
    pub l1d: usize,
    pub l2: usize,
    /// The last-level cache, all of it, where it is not L2.
    pub l3: Option<usize>,
    /// Logical CPUs sharing the last-level cache.
    pub l3_sharing: usize,
}

/// Assumed where the system does not say: the smallest of current x86 server cores.
const FALLBACK: Caches = Caches {
    l1d: 32 << 10,
    l2: 1 << 20,
    l3: None,
    l3_sharing: 1,
};

const CACHES: &str = "/sys/devices/system/cpu/cpu0/cache";

/// The caches of this machine's first core (read once).
pub fn caches() -> Caches {
    static CACHES_READ: OnceLock<Caches> = OnceLock::new();
    *CACHES_READ.get_or_init(|| read_caches(CACHES))
}

/// The data (or unified) caches under `dir` (sysfs's `index*` folders).
fn read_caches(dir: &str) -> Caches {
    // A file sysfs does not have (or a folder that is not a cache) leaves its level to
    // the fallback sizes: there is nothing else to do with why.
    let read = |p: std::path::PathBuf| std::fs::read_to_string(p).ok();
    let mut levels: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        let level = read(p.join("level")).and_then(|l| l.trim().parse().ok());
        let data = read(p.join("type")).is_some_and(|t| t.trim() != "Instruction");
        let size = read(p.join("size")).and_then(|s| parse_size(&s));
        let sharing = read(p.join("shared_cpu_list")).map_or(1, |l| count_cpus(&l));
        if let (Some(level), true, Some(size)) = (level, data, size) {
            levels.insert(level, (size, sharing));
        }
    }
    let at = |l| levels.get(&l).map(|&(size, _)| size);
    let last = levels.range(3..).next_back().map(|(_, &v)| v);
    Caches {
        l1d: at(1).unwrap_or(FALLBACK.l1d),
        l2: at(2).unwrap_or(FALLBACK.l2),
        l3: last.map(|(size, _)| size),
        l3_sharing: last.map_or(1, |(_, sharing)| sharing.max(1)),
    }
}

/// `"1024K"`, `"2M"` or a byte count, as sysfs writes cache sizes.
pub fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let scale = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        _ => return None,
    };
    digits
        .parse::<usize>()
        .ok()?
        .checked_mul(scale)
        .filter(|&b| b > 0)
}

/// CPUs in a list such as `0-3,8,10-11`.
fn count_cpus(list: &str) -> usize {
    (list.trim().split(',').filter(|r| !r.is_empty()))
        .map(|r| match r.split_once('-') {
            Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 1,
            },
            None => 1,
        })
        .sum()
}

/// The loops' block sizes for a tile of `MR × NR` elements of `size` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocking {
    pub kc: usize,
    pub mc: usize,
    pub nc: usize,
}

/// Columns of B packed at once at most: each thread's workspace holds `(MC + NC) × KC`
/// elements and the row tables of `NC / NR` panels ([`Blocking::workspace_bytes`]).
const MAX_NC: usize = 1024;

impl Blocking {
    /// The blocking the module doc derives from `caches`.
    pub fn derive(caches: &Caches, size: usize, mr: usize, nr: usize) -> Blocking {
        let floor_pow2 = |x: usize| if x == 0 { 0 } else { 1 << x.ilog2() };
        let kc = floor_pow2(caches.l1d / 2 / (mr * size)).clamp(128, 1024);
        let rows = (caches.l2 / 2 / (kc * size)).saturating_sub(nr);
        let mc = (rows / mr * mr).max(mr);
        let share = caches.l3.map_or(caches.l2, |l3| l3 / caches.l3_sharing);
        let cols = (share / 4 / (kc * size)).min(MAX_NC);
        let nc = (cols / nr * nr).max(nr);
        Blocking { kc, mc, nc }
    }

    /// Bytes of the packed blocks, A's `MC × KC` and B's `KC × NC` (each rounded to
    /// cache lines), and of the row tables of B's panels `nr` wide.
    pub fn workspace_bytes(&self, size: usize, nr: usize) -> usize {
        let tables = self.nc / nr * self.kc * size_of::<*const u8>();
        (self.mc + self.nc) * self.kc * size + 2 * 64 + tables
    }
}

/// Multiply-adds one core issues per second at most in `T`, measured: independent fused
/// multiply-add chains over the widest vectors this machine's products use, as many as
/// hide the instruction's latency, for about `seconds`. Twice this is the FLOP/s peak
/// products are measured against (`kiln bench gemm`).
pub fn peak_fmas<T: crate::Real>(seconds: f64) -> f64 {
    let mut iters = 1 << 16;
    loop {
        let start = std::time::Instant::now();
        let fmas = T::fma_chains(iters);
        let t = start.elapsed().as_secs_f64();
        if t >= seconds || iters >= 1 << 40 {
            return fmas as f64 / t;
        }
        iters *= 2;
    }
}

/// The probe [`measure_in_place_b`] times: `m × n × k`, f32, row-major — A's rows (a 6-row
/// tile's 12 KiB a depth block) and C's in place as given, B 512 KiB with rows 1 KiB
/// apart (a convolution's weights of 256 filters), 64 row tiles a panel so packing it
/// costs some 3% of the product.
const PROBE: [usize; 3] = [384, 256, 512];

/// Seconds of the probe product with B's panels read in place and packed (the best of
/// alternating rounds, so a drift in the machine's speed hits both), on this thread: their
/// ratio is [`crate::in_place_b_slowdown`] for this machine (packing included, a slight
/// underestimate).
pub fn measure_in_place_b() -> [f64; 2] {
    let [m, n, k] = PROBE;
    let (a, b) = (vec![0.5f32; m * k], vec![0.25f32; k * n]);
    let mut c = vec![0f32; m * n];
    let product = crate::Product::row_major(m, n, k, &a, &b, &mut c);
    let mut best = [f64::INFINITY; 2];
    for _ in 0..8 {
        for (slot, slowdown) in best.iter_mut().zip([1.0, f64::INFINITY]) {
            let start = std::time::Instant::now();
            // SAFETY: A, B and C are vectors of their sizes (checked by `row_major`), alive
            // here; C is its own vector.
            crate::with_in_place_b_slowdown(slowdown, || unsafe { crate::run(&product) });
            *slot = slot.min(start.elapsed().as_secs_f64());
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_sizes_and_cpu_lists_parse() {
        assert_eq!(parse_size("1024K\n"), Some(1 << 20));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("0K"), None);
        assert_eq!(parse_size("big"), None);
        assert_eq!(count_cpus("0-3,8,10-11\n"), 7);
        assert_eq!(count_cpus("5"), 1);
        let c = caches();
        assert!(c.l1d >= 16 << 10 && c.l2 >= c.l1d, "{c:?}");
    }

    /// The model on two machines' caches, by hand: Zen 4 and Ice Lake, f32 AVX-512
    /// (6 × 64) and f64 (6 × 32).
    #[test]
    fn blocking_follows_the_caches() {
        let zen4 = Caches {
            l1d: 32 << 10,
            l2: 1 << 20,
            l3: Some(32 << 20),
            l3_sharing: 16,
        };
        let icelake = Caches {
            l1d: 48 << 10,
            l2: 2 << 20,
            l3: Some(48 << 20),
            l3_sharing: 48,
        };
        // 32K/2/24 = 682 → 512; 512K/2048 − 64 = 192; 2M/4/2048 = 256.
        let b = |kc, mc, nc| Blocking { kc, mc, nc };
        assert_eq!(Blocking::derive(&zen4, 4, 6, 64), b(512, 192, 256));
        // 48K/2/24 = 1024; 1M/4096 − 64 = 192; 1M/4/4096 = 64.
        assert_eq!(Blocking::derive(&icelake, 4, 6, 64), b(1024, 192, 64));
        // f64: 32K/2/48 = 341 → 256; 512K/2048 − 32 = 224 → 222; 2M/4/2048 = 256.
        assert_eq!(Blocking::derive(&zen4, 8, 6, 32), b(256, 222, 256));
        // No caches reported: the fallback's sizes, still multiples of the tile.
        let bare = Blocking::derive(&FALLBACK, 4, 4, 24);
        assert_eq!((bare.kc, bare.mc % 4, bare.nc % 24), (1024, 0, 0));
    }
}
