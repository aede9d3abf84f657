//! The one facade through which the concurrency protocols reach atomics,
//! locks and thread parking.
//!
//! Normally these are `std` atomics and `parking_lot` locks; under
//! `--cfg loom` they are loom's model-checked versions, so the protocols in
//! `runtime::sleep`, `runtime::search`, `runtime::idle` and `runtime::latch`
//! can be checked by the `loom-tests` crate exactly as they are compiled for
//! users (the approach tokio takes). Code in those modules must not import
//! `std::sync` directly. The search loop's spin backoff goes through here too
//! (crossbeam's normally; under loom one that yields to the model checker).

#[cfg(not(loom))]
mod imp {
    pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering, fence};

    /// A mutex with the `parking_lot` interface (no poisoning).
    pub(crate) type Mutex<T> = parking_lot::Mutex<T>;
    /// A condition variable with the `parking_lot` interface.
    pub(crate) type Condvar = parking_lot::Condvar;

    /// Spin-then-yield backoff of a searching worker.
    pub(crate) use crossbeam_utils::Backoff;
}

#[cfg(loom)]
mod imp {
    pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering, fence};

    /// loom's mutex, wrapped to expose the `parking_lot` interface.
    pub(crate) struct Mutex<T>(loom::sync::Mutex<T>);
    impl<T> Mutex<T> {
        pub(crate) fn new(t: T) -> Self {
            Mutex(loom::sync::Mutex::new(t))
        }
        pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
            MutexGuard(Some(self.0.lock().unwrap()))
        }
    }
    impl<T: Default> Default for Mutex<T> {
        fn default() -> Self {
            Mutex::new(T::default())
        }
    }
    /// Guard of [`Mutex`]; an `Option` so that [`Condvar::wait`] can move it.
    pub(crate) struct MutexGuard<'a, T>(Option<loom::sync::MutexGuard<'a, T>>);
    impl<T> std::ops::Deref for MutexGuard<'_, T> {
        type Target = T;
        fn deref(&self) -> &T {
            self.0.as_ref().unwrap()
        }
    }
    impl<T> std::ops::DerefMut for MutexGuard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            self.0.as_mut().unwrap()
        }
    }
    /// loom's condition variable with the `parking_lot` interface.
    pub(crate) struct Condvar(loom::sync::Condvar);
    impl Condvar {
        pub(crate) fn new() -> Self {
            Condvar(loom::sync::Condvar::new())
        }
        pub(crate) fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
            let g = guard.0.take().unwrap();
            guard.0 = Some(self.0.wait(g).unwrap());
        }
        pub(crate) fn notify_one(&self) -> bool {
            self.0.notify_one();
            true
        }
        pub(crate) fn notify_all(&self) -> usize {
            self.0.notify_all();
            0
        }
    }

    impl Default for Condvar {
        fn default() -> Self {
            Condvar::new()
        }
    }

    /// The search loop's backoff under loom: completed from the start, so a
    /// worker that found nothing goes idle after one pass (spinning only
    /// repeats passes; the sleep proof does not rely on it, and every extra
    /// pass multiplies the interleavings loom explores), and a spin after a
    /// lost race yields to loom's scheduler, as a spin loop must under loom.
    pub(crate) struct Backoff;
    impl Backoff {
        pub(crate) fn new() -> Self {
            Backoff
        }
        pub(crate) fn spin(&self) {
            loom::thread::yield_now();
        }
        pub(crate) fn snooze(&self) {
            loom::thread::yield_now();
        }
        pub(crate) fn is_completed(&self) -> bool {
            true
        }
        pub(crate) fn reset(&self) {}
    }
}

pub(crate) use imp::*;
