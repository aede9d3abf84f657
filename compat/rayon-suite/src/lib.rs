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
