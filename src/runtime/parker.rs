//! A per-worker parker with a token ([`Parker`]): the one place a worker
//! thread blocks in the pool (its park in the sleep protocol, `sleep`,
//! and a blocking latch's wait, `latch::LockLatch`).
//!
//! Invariant: a token is never lost: `unpark` before `park` makes the
//! next `park` return at once, and a `park` consumes exactly one token
//! (so a stale token costs one extra re-check, never a missed wakeup).

use crate::sync::{Condvar, Mutex};

/// A per-worker parker with a token: `unpark` before `park` makes the next
/// `park` return immediately.
pub struct Parker {
    token: Mutex<bool>,
    cv: Condvar,
}

impl Default for Parker {
    fn default() -> Self {
        Self::new()
    }
}

impl Parker {
    /// A parker without a token.
    pub fn new() -> Self {
        Parker {
            token: Mutex::new(false),
            cv: Condvar::new(),
        }
    }

    /// Blocks until a token is available, and consumes it.
    pub fn park(&self) {
        let mut t = self.token.lock();
        while !*t {
            self.cv.wait(&mut t);
        }
        *t = false;
    }

    /// Whether a token is available (tests).
    #[cfg(any(test, loom))]
    pub fn has_token(&self) -> bool {
        *self.token.lock()
    }

    /// Makes a token available and wakes the parked thread, if any.
    pub fn unpark(&self) {
        let mut t = self.token.lock();
        *t = true;
        self.cv.notify_one();
        drop(t);
    }
}
