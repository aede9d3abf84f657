//! `spawn`: fire-and-forget jobs.

use super::global;

/// Runs `f` asynchronously in the current pool (the global pool outside
/// any pool). Nothing waits for it, and it runs even when the pool is
/// dropped meanwhile: the workers run every spawned job before they exit
/// (see "Dropping" on [`crate::ThreadPool`]).
///
/// A panic in `f` has no caller to reach: it goes to the pool's panic
/// handler (see [`crate::ThreadPoolBuilder::panic_handler`]), is counted
/// in [`crate::WorkerStats::detached_panics`] (column `panics` of
/// [`crate::ThreadPool::stats`]), and the pool keeps working. Without a
/// panic handler the process aborts, after the standard panic hook
/// printed the panic, as in rayon.
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

/// As [`spawn`], but a worker runs the jobs it spawned with `spawn_fifo`
/// in spawn order (oldest first), where it runs `spawn` jobs newest first
/// (both as rayon). Panics are handled as in [`spawn`].
///
/// ```
/// let pool = locus::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let (tx, rx) = std::sync::mpsc::channel();
/// pool.install(|| {
///     for i in 0..4 {
///         let tx = tx.clone();
///         locus::spawn_fifo(move || tx.send(i).unwrap());
///     }
/// });
/// drop(tx);
/// assert_eq!(rx.iter().collect::<Vec<_>>(), [0, 1, 2, 3]);
/// ```
pub fn spawn_fifo<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    global::current_registry().spawn_fifo(f)
}
