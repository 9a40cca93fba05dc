//! An executor's random stream: a seed and the number of keys drawn from it, behind an
//! engine variable that every random operation of the executor writes. The engine runs
//! writers of one variable in push order, so the n-th random operation pushed draws key n
//! whatever the thread count, and reseeding (itself an operation on the variable) takes
//! effect exactly between the operations pushed before and after it.

use crate::engine::{FnProperty, Var};
use std::sync::{Arc, Mutex};

pub(crate) struct RandomStream {
    var: Var,
    /// (seed, keys drawn since it was set).
    state: Mutex<(u64, u64)>,
}

impl RandomStream {
    pub fn new(seed: u64) -> Arc<RandomStream> {
        Arc::new(RandomStream {
            var: super::engine().new_var(),
            state: Mutex::new((seed, 0)),
        })
    }

    /// The variable a random operation writes to draw from the stream.
    pub fn var(&self) -> &Var {
        &self.var
    }

    /// The next key. Called only inside operations that write [`RandomStream::var`].
    pub fn next_key(&self) -> [u32; 2] {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let key = kiln_ops::random::key(state.0, state.1);
        state.1 += 1;
        key
    }

    /// Restarts the stream from `seed` after the random operations pushed so far.
    pub fn reseed(self: &Arc<Self>, seed: u64) {
        let stream = self.clone();
        let writes = [self.var.clone()];
        super::engine().push_fn("reseed", &[], &writes, FnProperty::Normal, 0, move || {
            *stream.state.lock().unwrap_or_else(|e| e.into_inner()) = (seed, 0);
            Ok(())
        });
    }
}
