//! [`ThreadPool::shutdown_and_wait`]: dropping a pool and waiting for its
//! threads to exit, for the callers that must (dropping a [`ThreadPool`]
//! never waits, as in rayon).

use std::fmt;
use std::mem::ManuallyDrop;

use super::ThreadPool;

/// Why [`ThreadPool::shutdown_and_wait`] returned without waiting. The
/// pool's handle was dropped all the same (as by `drop`), and the workers
/// exit on their own once the pool shut down and ran everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShutdownError {
    /// Job groups of the pool ([`crate::JobGroup`], clones included) still
    /// exist: they keep the pool running, and it shuts down when the last
    /// of them is dropped. Drop them before calling `shutdown_and_wait`.
    GroupsAlive,
    /// Called on a worker thread of a locus pool: on one of this pool it
    /// would wait for itself, and on one of another pool it could wait
    /// for a job of this pool that waits for that pool (an `install` into
    /// it). Call it from a thread outside every pool.
    OnWorker,
}

impl fmt::Display for ShutdownError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShutdownError::GroupsAlive => f.write_str(
                "job groups of the pool still exist and keep it running: drop every JobGroup \
                 before ThreadPool::shutdown_and_wait to wait for the workers",
            ),
            ShutdownError::OnWorker => f.write_str(
                "ThreadPool::shutdown_and_wait was called on a worker thread, where waiting \
                 could deadlock: call it from a thread outside every pool",
            ),
        }
    }
}

impl std::error::Error for ShutdownError {}

impl ThreadPool {
    /// Drops the pool and waits until its workers have exited: they run
    /// every queued and spawned job (and those these jobs spawn), then
    /// their exit handlers (and what those queue), then leave; the threads
    /// the pool started itself are joined, so their thread-local values
    /// have been dropped too when this returns. For a program that must
    /// know the pool is gone (its exit handlers ran, no thread of it is
    /// left on the CPUs the next pool pins to). `drop` does not wait, as
    /// in rayon. Since it waits for every spawned job, a spawned job that
    /// waits for something the caller does only after this returns never
    /// finishes: drop the pool instead there.
    ///
    /// Threads started by a [`crate::ThreadPoolBuilder::spawn_handler`]
    /// have left their worker loop when this returns (they belong to the
    /// handler, which joins them if it wants); with
    /// [`crate::ThreadPoolBuilder::use_current_thread`] the building
    /// thread, worker 0, is not waited for.
    ///
    /// # Errors
    /// Returns without waiting, the handle dropped all the same:
    /// [`ShutdownError::GroupsAlive`] when job groups of the pool still
    /// exist (the pool runs until the last is dropped), and
    /// [`ShutdownError::OnWorker`] when called on a worker of a locus pool
    /// (waiting there could deadlock).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let exited = Arc::new(AtomicUsize::new(0));
    /// let e = Arc::clone(&exited);
    /// let pool = locus::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .exit_handler(move |_| {
    ///         e.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// pool.spawn(|| std::thread::sleep(std::time::Duration::from_millis(10)));
    /// pool.shutdown_and_wait().unwrap();
    /// assert_eq!(exited.load(Ordering::SeqCst), 2);
    /// ```
    pub fn shutdown_and_wait(self) -> Result<(), ShutdownError> {
        let this = ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again, so moving the
        // field out of it leaves no second owner of the `Arc`.
        let registry = unsafe { std::ptr::read(&this.registry) };
        registry.drop_handle_and_wait()
    }
}
