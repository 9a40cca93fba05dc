//! Pooled device memory: blocks are rounded up to a size bucket and returned to a free list
//! when dropped, so steady-state allocation reuses freed memory instead of calling the
//! system allocator.
//!
//! Blocks of a huge page or more (an arena, a layer's weights) are aligned to one and
//! advised to use them (`madvise(MADV_HUGEPAGE)`): under Linux's default transparent
//! huge page policy (`madvise`) they would otherwise get 4 KiB pages, and a product
//! walking megabytes of weights or activations misses the TLB every few rows (ResNet-18's
//! inference at batch 1 on a Zen 3, five processes each, alternating: medians 20.8–23.5
//! ms advised against 22.0–24.7 not, the best runs alike).
//!
//! Limits: a fresh block is refused, with an error, where the pool would hold more than
//! [`Config::memory_limit`](crate::Config::memory_limit), or where none is set, where the
//! block passes the memory the machine has available ([`kiln_ops::memory`]): on Linux
//! such an allocation usually succeeds and the process is killed when it touches the
//! pages.

use crate::device::Device;
use crate::{Error, Result};
use std::alloc::Layout;
use std::collections::HashMap;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Every block is aligned for the widest vector loads.
const ALIGN: usize = 64;
/// Blocks from this size are aligned to it and advised to use huge pages (x86-64's).
const HUGE_PAGE: usize = 2 << 20;
/// Blocks from which a fresh one is checked against the machine's available memory (a
/// read of `/proc/meminfo`), where no limit is set: smaller ones are not worth the read.
const CHECKED_BLOCK: usize = 64 << 20;
/// Below this, sizes round up to a power of two; above, to a multiple of it.
const LINEAR_CUTOFF: usize = 4 << 20;

/// The alignment of a block of `capacity` bytes.
fn align(capacity: usize) -> usize {
    if capacity >= HUGE_PAGE {
        HUGE_PAGE
    } else {
        ALIGN
    }
}

/// A fresh zeroed block of `layout`, advised to use huge pages where it spans one.
fn allocate_zeroed(layout: Layout) -> Option<NonNull<u8>> {
    if layout.align() < HUGE_PAGE {
        // SAFETY: the layout has a non-zero size (every bucket has).
        return NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) });
    }
    // SAFETY: as above.
    let block = NonNull::new(unsafe { std::alloc::alloc(layout) })?;
    #[cfg(target_os = "linux")]
    // SAFETY: the range is the block just allocated, aligned to a page; the advice only
    // changes how its pages are backed (a refusal, as where THP is off, changes nothing).
    unsafe {
        libc::madvise(block.as_ptr().cast(), layout.size(), libc::MADV_HUGEPAGE);
    }
    // Zeroed after the advice, so that its first touch faults huge pages in.
    // SAFETY: the block holds `layout.size()` bytes.
    unsafe { std::ptr::write_bytes(block.as_ptr(), 0, layout.size()) };
    Some(block)
}

/// The bucket a request of `bytes` is served from.
fn bucket(bytes: usize) -> usize {
    if bytes <= LINEAR_CUTOFF {
        bytes.max(ALIGN).next_power_of_two()
    } else {
        bytes.div_ceil(LINEAR_CUTOFF) * LINEAR_CUTOFF
    }
}

/// Counters of one device's pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Blocks taken from the system allocator.
    pub fresh: usize,
    /// Blocks served from the free lists.
    pub reused: usize,
    /// Bytes sitting in free lists.
    pub cached_bytes: usize,
}

#[derive(Default)]
struct Pool {
    free: Mutex<HashMap<usize, Vec<NonNull<u8>>>>,
    fresh: AtomicUsize,
    reused: AtomicUsize,
    cached: AtomicUsize,
    /// Bytes taken from the system and not given back (in use or cached).
    held: AtomicUsize,
}

// SAFETY: the pool only stores pointers to blocks nobody uses; handing one out transfers it.
unsafe impl Send for Pool {}
// SAFETY: as for Send: the pool's lock (and atomics) order every use of its pointers.
unsafe impl Sync for Pool {}

fn cpu_pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(Pool::default)
}

/// The pool's counters for `device`.
pub fn pool_stats(device: Device) -> PoolStats {
    match device {
        Device::Cpu => {
            let p = cpu_pool();
            PoolStats {
                fresh: p.fresh.load(Ordering::Relaxed),
                reused: p.reused.load(Ordering::Relaxed),
                cached_bytes: p.cached.load(Ordering::Relaxed),
            }
        }
        Device::Cuda(_) => PoolStats::default(),
    }
}

/// Gives the blocks in `device`'s free lists back to the system (MXNet's `ReleaseAll`):
/// the pool keeps every freed block for a later request of its size, so a process that
/// binds networks of many sizes in turn holds them all until this runs. Returns the bytes
/// given back.
pub fn release_cached(device: Device) -> usize {
    let Device::Cpu = device else {
        return 0;
    };
    let pool = cpu_pool();
    let blocks = std::mem::take(&mut *pool.free.lock().unwrap_or_else(|e| e.into_inner()));
    let mut released = 0;
    for (capacity, ptrs) in blocks {
        for p in ptrs {
            // SAFETY: the block was allocated with this layout (the pool's buckets are
            // valid layouts) and nobody holds it: it sat in the free list.
            unsafe {
                std::alloc::dealloc(
                    p.as_ptr(),
                    Layout::from_size_align_unchecked(capacity, align(capacity)),
                )
            };
            released += capacity;
        }
    }
    pool.cached.fetch_sub(released, Ordering::Relaxed);
    pool.held.fetch_sub(released, Ordering::Relaxed);
    released
}

/// Why the pool may not take `capacity` more bytes from the system, if it may not.
fn refusal(pool: &Pool, capacity: usize) -> Option<String> {
    let held = pool.held.load(Ordering::Relaxed);
    match crate::Config::global().memory_limit {
        Some(limit) => (held.saturating_add(capacity) > limit).then(|| {
            format!("the memory limit is {limit} bytes (KILN_MEMORY_LIMIT) and {held} are held")
        }),
        None => (capacity >= CHECKED_BLOCK)
            .then(|| kiln_ops::memory::past_available(capacity))
            .flatten()
            .map(|free| format!("the machine has {free} bytes available")),
    }
}

/// A block of device memory, returned to its pool on drop.
pub struct Storage {
    ptr: NonNull<u8>,
    capacity: usize,
    device: Device,
}

// SAFETY: a Storage owns its block; concurrent access is ordered by the engine.
unsafe impl Send for Storage {}
// SAFETY: as for Send: `&Storage` hands out only raw pointers; the engine orders
// accesses through them.
unsafe impl Sync for Storage {}

impl Storage {
    /// At least `bytes` bytes on `device`. A fresh block is zeroed; a reused one holds
    /// whatever its last owner wrote (always initialized memory, never garbage).
    pub fn new(bytes: usize, device: Device) -> Result<Storage> {
        if let Device::Cuda(n) = device {
            return Err(Error::Allocation {
                bytes,
                device: format!("gpu({n})"),
                reason: "kiln's CUDA backend is not built yet".into(),
            });
        }
        let capacity = bucket(bytes);
        let pool = cpu_pool();
        let reused = pool
            .free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(&capacity)
            .and_then(Vec::pop);
        let ptr = match reused {
            Some(p) => {
                pool.reused.fetch_add(1, Ordering::Relaxed);
                pool.cached.fetch_sub(capacity, Ordering::Relaxed);
                p
            }
            None => {
                let layout = Layout::from_size_align(capacity, align(capacity)).map_err(|_| {
                    Error::Allocation {
                        bytes,
                        device: device.to_string(),
                        reason: "too large a block".into(),
                    }
                })?;
                // Where the limit or the system refuses, the free lists' blocks go back
                // first.
                let refused = |why| Error::Allocation {
                    bytes,
                    device: device.to_string(),
                    reason: why,
                };
                if refusal(pool, capacity).is_some() {
                    release_cached(device);
                    if let Some(why) = refusal(pool, capacity) {
                        return Err(refused(why));
                    }
                }
                let fresh = || allocate_zeroed(layout);
                let block = fresh()
                    .or_else(|| (release_cached(device) > 0).then(fresh).flatten())
                    .ok_or_else(|| refused("out of memory".into()))?;
                pool.fresh.fetch_add(1, Ordering::Relaxed);
                pool.held.fetch_add(capacity, Ordering::Relaxed);
                block
            }
        };
        Ok(Storage {
            ptr,
            capacity,
            device,
        })
    }

    pub fn device(&self) -> Device {
        self.device
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        let pool = cpu_pool();
        pool.cached.fetch_add(self.capacity, Ordering::Relaxed);
        pool.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(self.capacity)
            .or_default()
            .push(self.ptr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_round_up() {
        assert_eq!(bucket(0), 64);
        assert_eq!(bucket(65), 128);
        assert_eq!(bucket(LINEAR_CUTOFF), LINEAR_CUTOFF);
        assert_eq!(bucket(LINEAR_CUTOFF + 1), 2 * LINEAR_CUTOFF);
    }

    #[test]
    fn freed_blocks_are_reused_and_given_back() {
        let size = 1_500_007; // a bucket no other test uses
        let a = Storage::new(size, Device::Cpu).unwrap();
        // SAFETY: `a` owns a fresh block of at least `size` bytes and nothing else uses it.
        unsafe { std::ptr::write_bytes(a.as_ptr(), 0xAB, size) };
        let ptr = a.as_ptr();
        drop(a);
        let before = pool_stats(Device::Cpu).reused;
        let b = Storage::new(size - 5, Device::Cpu).unwrap();
        assert_eq!(b.as_ptr(), ptr, "the freed block is served again");
        assert!(pool_stats(Device::Cpu).reused > before);
        assert!(Storage::new(8, Device::Cuda(0)).is_err());
        // Given back, the block leaves the free lists. (One test: another releasing
        // the pool meanwhile would make this one's reuse fail.)
        drop(b);
        assert!(release_cached(Device::Cpu) >= bucket(size));
    }

    #[test]
    fn large_blocks_are_huge_page_aligned_and_zeroed() {
        let size = 3 * HUGE_PAGE + 12_345; // a bucket no other test uses
        let a = Storage::new(size, Device::Cpu).unwrap();
        assert_eq!(a.as_ptr() as usize % HUGE_PAGE, 0);
        // SAFETY: `a` owns a fresh block of at least `size` bytes.
        let bytes = unsafe { std::slice::from_raw_parts(a.as_ptr(), size) };
        assert!(bytes.iter().all(|&b| b == 0));
        assert_eq!((align(HUGE_PAGE - 1), align(HUGE_PAGE)), (ALIGN, HUGE_PAGE));
    }
}
