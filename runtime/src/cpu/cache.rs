//! The host's cache sizes, as the kernel reports them (Linux's sysfs), for choices that
//! depend on what fits in a core's cache.

use std::sync::OnceLock;

/// Assumed where the system does not say: the smallest L2 of current x86 server cores.
const FALLBACK_L2: usize = 1 << 20;

const CACHES: &str = "/sys/devices/system/cpu/cpu0/cache";

/// Bytes of the first core's level-2 data (or unified) cache.
pub fn l2_bytes() -> usize {
    static L2: OnceLock<usize> = OnceLock::new();
    *L2.get_or_init(|| data_caches(CACHES).get(&2).copied().unwrap_or(FALLBACK_L2))
}

/// Bytes of the first core's last-level cache (all of it where cores share it), if the
/// system says.
pub fn last_level_bytes() -> Option<usize> {
    static LAST: OnceLock<Option<usize>> = OnceLock::new();
    *LAST.get_or_init(|| data_caches(CACHES).last_key_value().map(|(_, &b)| b))
}

/// The data (or unified) caches of `dir` by level, in bytes.
fn data_caches(dir: &str) -> std::collections::BTreeMap<u32, usize> {
    let read = |p: std::path::PathBuf| std::fs::read_to_string(p).ok();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Default::default();
    };
    (entries.flatten())
        .filter_map(|entry| {
            let p = entry.path();
            let level = read(p.join("level"))?.trim().parse().ok()?;
            let kind = read(p.join("type"))?;
            (kind.trim() != "Instruction").then_some(())?;
            Some((level, parse_size(&read(p.join("size"))?)?))
        })
        .collect()
}

/// `"1024K"`, `"2M"` or a byte count, as sysfs writes cache sizes.
fn parse_size(s: &str) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_sizes_parse() {
        assert_eq!(parse_size("1024K\n"), Some(1 << 20));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("0K"), None);
        assert_eq!(parse_size("big"), None);
        assert!(l2_bytes() >= 64 << 10);
        if let Some(last) = last_level_bytes() {
            assert!(last >= l2_bytes());
        }
    }
}
