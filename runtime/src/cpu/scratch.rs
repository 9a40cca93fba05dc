//! Scratch memory for kernels that need a workspace (packed gemm operands): buffers are
//! taken from a process-wide free list and given back when dropped, so once the largest
//! workspace of a step has been seen, steps take scratch without allocating.

use std::sync::Mutex;

static FREE: Mutex<Vec<Vec<u64>>> = Mutex::new(Vec::new());

/// A buffer of at least the requested bytes, 8-byte aligned, with unspecified contents.
pub struct Scratch(Vec<u64>);

impl Scratch {
    pub fn take(bytes: usize) -> Scratch {
        let words = bytes.div_ceil(8).max(1);
        let mut free = FREE.lock().unwrap_or_else(|p| p.into_inner());
        // The smallest free buffer that fits; else the largest, grown.
        let fits = (0..free.len())
            .filter(|&i| free[i].len() >= words)
            .min_by_key(|&i| free[i].len());
        let largest = (0..free.len()).max_by_key(|&i| free[i].len());
        let mut buf = match fits.or(largest) {
            Some(i) => free.swap_remove(i),
            None => Vec::new(),
        };
        drop(free);
        if buf.len() < words {
            buf.resize(words, 0);
        }
        Scratch(buf)
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.0.as_mut_ptr().cast()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.0);
        FREE.lock().unwrap_or_else(|p| p.into_inner()).push(buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_returned_buffer_is_reused() {
        let p = {
            let mut s = Scratch::take(1000);
            s.as_mut_ptr() as usize
        };
        let mut again = Scratch::take(800);
        assert_eq!(again.as_mut_ptr() as usize, p);
    }
}
