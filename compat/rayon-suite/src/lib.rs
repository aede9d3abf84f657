//! Support for rayon's tests run against locus (see `.ci/rayon-suite`):
//! public stand-ins for the few crate-internal helpers the tests call.
#![deny(missing_docs)]

/// Stands in for rayon-core's internal `unwind` module, whose
/// `halt_unwinding` the unit tests use to observe a panic.
pub mod unwind {
    /// Runs `f`, returning its panic payload instead of unwinding further:
    /// what rayon-core's internal helper of the same name does.
    pub fn halt_unwinding<F, R>(f: F) -> std::thread::Result<R>
    where
        F: FnOnce() -> R,
    {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
    }
}

/// Stands in for rayon-core's internal `registry` module, whose `in_worker`
/// the unit tests use to run code on a worker thread.
pub mod registry {
    /// Runs `op` on a worker of the current pool (the global pool when
    /// called from outside any pool) and waits for it, passing a panic on:
    /// what rayon-core's internal `in_worker` does. That one's arguments are
    /// the worker (an internal type, here `()`) and whether `op` was sent
    /// from outside the pool; `scope` runs its closure the same way.
    pub fn in_worker<OP, R>(op: OP) -> R
    where
        OP: FnOnce(&(), bool) -> R + Send,
        R: Send,
    {
        let injected = rayon_core::current_thread_index().is_none();
        rayon_core::scope(|_| op(&(), injected))
    }
}
