//! The random programs' variable values as plain memory, not atomics: only the engine's
//! ordering keeps operations that touch one value apart, so ThreadSanitizer sees every
//! access the engine fails to order (relaxed atomics would hide it from it).

use std::cell::UnsafeCell;

pub struct Values(Vec<UnsafeCell<u64>>);

// SAFETY: the values are shared by the operations of one engine, which access a value only
// while the engine grants them the variable it stands for (the contract under test).
unsafe impl Sync for Values {}

impl Values {
    /// Values `0, 1, ...`, one per variable.
    pub fn new(n: usize) -> Values {
        Values((0..n as u64).map(UnsafeCell::new).collect())
    }

    /// The value of variable `v`.
    ///
    /// # Safety
    /// Called by an operation that reads or writes `v`, or once the engine is idle.
    pub unsafe fn get(&self, v: usize) -> u64 {
        // SAFETY: the engine orders this read after every write of `v` (the contract).
        unsafe { *self.0[v].get() }
    }

    /// Sets variable `v`.
    ///
    /// # Safety
    /// Called by an operation that writes `v`.
    pub unsafe fn set(&self, v: usize, x: u64) {
        // SAFETY: the engine runs a writer of `v` alone with respect to `v` (the contract).
        unsafe { *self.0[v].get() = x }
    }

    /// Every value.
    ///
    /// # Safety
    /// Called once the engine is idle (after a wait for all its operations).
    pub unsafe fn all(&self) -> Vec<u64> {
        // SAFETY: no operation runs any more, and the wait ordered their writes before.
        (0..self.0.len()).map(|v| unsafe { self.get(v) }).collect()
    }
}
