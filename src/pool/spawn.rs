//! `spawn`: fire-and-forget jobs.

use super::global;

/// Runs `f` asynchronously in the current pool (the global pool outside
/// any pool). Nothing waits for it, but dropping a [`crate::ThreadPool`]
/// waits until its spawned jobs have run.
///
/// A panic in `f` has no caller to reach: it goes to the pool's panic
/// handler (see [`crate::ThreadPoolBuilder::panic_handler`]); without one
/// it is printed by the standard panic hook, counted in
/// [`crate::WorkerStats::detached_panics`] (column `panics` of
/// [`crate::ThreadPool::stats`]) and dropped. The pool keeps working
/// either way (rayon aborts the process instead).
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// locus::spawn(move || tx.send(6 * 7).unwrap());
/// assert_eq!(rx.recv().unwrap(), 42);
/// ```
pub fn spawn<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    global::current_registry().spawn_detached(f)
}
