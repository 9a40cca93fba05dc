//! A device's lanes and its stream-ordered caching allocator. The lanes are a compute
//! stream and a copy stream, with an event each way, made once per pool and shared by
//! the executors bound on it (so their blocks are reused across binds); they live as long
//! as the device.
//!
//! Device memory is allocated once and reused, so a training step allocates nothing
//! (`cuMemAlloc` synchronizes the device and costs milliseconds).
//!
//! A released block is cached under the stream that last used it, and handed out again
//! only for that stream: the stream's order then puts the new use after the old one
//! with no event (PyTorch's caching allocator keeps the same rule). Sizes round up to
//! classes — 512 bytes below 1 MiB, 2 MiB above — so a block fits the requests of its
//! class. When the device runs out, every cached block is freed and the allocation
//! tried again.

use crate::device::{DevicePtr, Event, Gpu, Stream};
use crate::error::{GpuError, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

const SMALL: usize = 512;
const LARGE: usize = 2 << 20;

/// The class a request of `bytes` is served from.
fn class(bytes: usize) -> usize {
    let unit = if bytes < (1 << 20) { SMALL } else { LARGE };
    bytes.max(1).div_ceil(unit) * unit
}

/// What the pool holds, for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Allocations asked of the device so far.
    pub device_allocs: usize,
    /// Bytes held from the device (in use and cached).
    pub held: usize,
    /// Bytes handed out and not yet released.
    pub in_use: usize,
}

pub struct Pool {
    gpu: Arc<dyn Gpu>,
    lanes: Lanes,
    state: Mutex<State>,
}

/// The streams work is issued on, and the events that order one after the other.
#[derive(Clone, Copy, Debug)]
pub struct Lanes {
    pub compute: Stream,
    pub copy: Stream,
    /// Recorded on the copy stream after a copy in, waited for by the compute stream.
    pub copied: Event,
    /// Recorded on the compute stream before a copy, waited for by the copy stream.
    pub computed: Event,
}

#[derive(Default)]
struct State {
    /// Cached blocks by (stream, class).
    cached: HashMap<(usize, usize), Vec<DevicePtr>>,
    /// Every block handed out: its class.
    out: HashMap<DevicePtr, usize>,
    stats: PoolStats,
}

impl Pool {
    /// The pool of `gpu`, with its lanes.
    pub fn new(gpu: Arc<dyn Gpu>) -> Result<Pool> {
        let lanes = Lanes {
            compute: gpu.new_stream()?,
            copy: gpu.new_stream()?,
            copied: gpu.new_event()?,
            computed: gpu.new_event()?,
        };
        Ok(Pool {
            gpu,
            lanes,
            state: Mutex::new(State::default()),
        })
    }

    pub fn gpu(&self) -> &Arc<dyn Gpu> {
        &self.gpu
    }

    pub fn lanes(&self) -> Lanes {
        self.lanes
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A block of at least `bytes` for work on `stream`.
    pub fn alloc(&self, bytes: usize, stream: Stream) -> Result<DevicePtr> {
        let size = class(bytes);
        let mut st = self.state();
        let reused = st.cached.get_mut(&(stream.0, size)).and_then(Vec::pop);
        let ptr = match reused {
            Some(p) => p,
            None => {
                let p = match self.gpu.alloc(size) {
                    Ok(p) => p,
                    Err(GpuError::Driver { .. }) => {
                        Self::free_cached(&self.gpu, &mut st)?;
                        self.gpu.alloc(size)?
                    }
                    Err(e) => return Err(e),
                };
                st.stats.device_allocs += 1;
                st.stats.held += size;
                p
            }
        };
        st.out.insert(ptr, size);
        st.stats.in_use += size;
        Ok(ptr)
    }

    /// Returns a block; it is reused for later work on `stream`, the last stream that
    /// used it.
    pub fn release(&self, ptr: DevicePtr, stream: Stream) -> Result<()> {
        let mut st = self.state();
        let size = st.out.remove(&ptr).ok_or_else(|| {
            GpuError::invalid("release", format!("{ptr} was not handed out by the pool"))
        })?;
        st.stats.in_use -= size;
        st.cached.entry((stream.0, size)).or_default().push(ptr);
        Ok(())
    }

    /// Frees every cached block (the driver waits for work still using them).
    pub fn trim(&self) -> Result<()> {
        let mut st = self.state();
        Self::free_cached(&self.gpu, &mut st)
    }

    /// Frees every cached block, going on past a failure (the first is returned).
    fn free_cached(gpu: &Arc<dyn Gpu>, st: &mut State) -> Result<()> {
        let mut first = Ok(());
        for ((_, size), blocks) in std::mem::take(&mut st.cached) {
            for p in blocks {
                match gpu.free(p) {
                    Ok(()) => st.stats.held -= size,
                    Err(e) => first = first.and(Err(e)),
                }
            }
        }
        first
    }

    pub fn stats(&self) -> PoolStats {
        self.state().stats
    }
}

impl Drop for Pool {
    /// Returns the cached blocks; blocks still handed out belong to their holders.
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        // Nothing to report a failure to at drop; the device frees all at its own.
        let _ = Self::free_cached(&self.gpu, st);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulated::Emulated;

    /// A released block serves the next request of its class on its stream, not one on
    /// another stream; running out frees the cache and tries again.
    #[test]
    fn blocks_are_reused_on_their_stream() {
        let gpu: Arc<dyn Gpu> = Arc::new(Emulated::new(8 << 10));
        let pool = Pool::new(gpu.clone()).unwrap();
        let (s0, s1) = (gpu.new_stream().unwrap(), gpu.new_stream().unwrap());
        let a = pool.alloc(1000, s0).unwrap();
        pool.release(a, s0).unwrap();
        assert_eq!(pool.alloc(700, s0).unwrap(), a, "same class, same stream");
        pool.release(a, s0).unwrap();
        let b = pool.alloc(1000, s1).unwrap();
        assert_ne!(a, b, "another stream takes a new block");
        assert_eq!(pool.stats().device_allocs, 2);
        pool.release(b, s1).unwrap();
        // 7 KiB do not fit beside the two cached KiB blocks of an 8 KiB device, until
        // the cache is freed.
        let c = pool.alloc(7 << 10, s0).unwrap();
        assert_eq!(pool.stats().held, 7 << 10);
        assert!(pool.release(DevicePtr(c.0 + 8), s0).is_err());
    }
}
