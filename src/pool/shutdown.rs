//! [`ThreadPool::shutdown_and_wait`]: dropping a pool and waiting for its
//! threads to exit, for the callers that must (dropping a [`ThreadPool`]
//! never waits, as in rayon).

use std::mem::ManuallyDrop;

use super::thread_pool::ThreadPool;
use crate::runtime::error::ShutdownError;

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
