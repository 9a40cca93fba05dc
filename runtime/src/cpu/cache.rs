//! The host's cache sizes, as the kernel reports them (Linux's sysfs), for choices that
//! depend on what fits in a core's cache.

use std::sync::OnceLock;

/// Assumed where the system does not say: the smallest L2 of current x86 server cores.
const FALLBACK_L2: usize = 1 << 20;

/// Bytes of the first core's level-2 data (or unified) cache.
pub fn l2_bytes() -> usize {
    static L2: OnceLock<usize> = OnceLock::new();
    *L2.get_or_init(|| read_l2("/sys/devices/system/cpu/cpu0/cache").unwrap_or(FALLBACK_L2))
}

fn read_l2(dir: &str) -> Option<usize> {
    let read = |p: std::path::PathBuf| std::fs::read_to_string(p).ok();
    std::fs::read_dir(dir).ok()?.flatten().find_map(|entry| {
        let p = entry.path();
        let level = read(p.join("level"))?;
        let kind = read(p.join("type"))?;
        (level.trim() == "2" && kind.trim() != "Instruction")
            .then(|| parse_size(&read(p.join("size"))?))
            .flatten()
    })
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
    }
}
