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

    /// Blocks until a token is available or `timeout` has passed; consumes
    /// the token and returns true if there was one. A timed park that
    /// returns false leaves the caller exactly where it was before it
    /// parked (no token is lost: a later `unpark` leaves one for the next
    /// park). Under loom, which has no clock, it returns at once: the
    /// model checker puts that return at every point of the other
    /// threads' runs, which covers every timeout.
    pub fn park_timeout(&self, timeout: std::time::Duration) -> bool {
        let mut t = self.token.lock();
        #[cfg(not(loom))]
        {
            let deadline = std::time::Instant::now() + timeout;
            while !*t {
                if self.cv.wait_until(&mut t, deadline).timed_out() {
                    break;
                }
            }
        }
        #[cfg(loom)]
        let _ = timeout;
        std::mem::replace(&mut *t, false)
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
