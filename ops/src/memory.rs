//! What memory the machine has to give: sizes come from files and shapes users give, and
//! on Linux an allocation past what is there usually succeeds (memory is
//! overcommitted) and the process is killed when it touches the pages. Allocations of
//! user-sized memory check against this first and fail with an error instead.

/// Bytes the system can give without swapping (Linux's `MemAvailable`); `None` where the
/// system does not say.
pub fn available() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_available(&info)
}

fn parse_available(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut words = line.split_whitespace().skip(1);
    let kib: usize = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then(|| kib.saturating_mul(1024))
}

/// Whether `bytes` more would pass what the machine has available, and if so the
/// available bytes.
pub fn past_available(bytes: usize) -> Option<usize> {
    available().filter(|&free| bytes > free)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mem_available_in_bytes() {
        let info = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   1234 kB\n";
        assert_eq!(parse_available(info), Some(1234 * 1024));
        assert_eq!(parse_available("MemTotal: 5 kB\n"), None);
        assert_eq!(parse_available("MemAvailable: lots\n"), None);
        if cfg!(target_os = "linux") {
            assert!(available().is_some_and(|b| b > 0));
        }
    }

    #[test]
    fn tensors_past_the_available_memory_are_refused() {
        let Some(free) = available() else {
            return;
        };
        // f64 values: twice what is available.
        let e = crate::Tensor::try_full(crate::DType::F32, vec![free / 4], 0.0).unwrap_err();
        assert!(e.available.is_some(), "{e}");
        assert!(e.to_string().contains("bytes available"), "{e}");
    }
}
