//! The host's cache sizes, for choices that depend on what fits in a core's cache:
//! kiln-gemm's reading of them (Linux's sysfs, with fallbacks where it says nothing).

use kiln_gemm::machine::caches;

/// Bytes of the first core's level-2 data (or unified) cache.
pub fn l2_bytes() -> usize {
    caches().l2
}

/// Bytes of the first core's last-level cache (all of it where cores share it).
pub fn last_level_bytes() -> Option<usize> {
    let c = caches();
    Some(c.l3.unwrap_or(c.l2))
}
