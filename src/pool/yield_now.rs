//! Cooperative yielding to the pool ([`yield_now`], [`yield_local`]) and
//! the questions a polling loop asks first
//! ([`current_thread_has_pending_tasks`]).

use crate::runtime::worker::WorkerThread;

/// What [`yield_now`] or [`yield_local`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Yield {
    /// A job was found and run.
    Executed,
    /// No job was available.
    Idle,
}

impl Yield {
    pub(crate) fn from_ran(ran: bool) -> Yield {
        if ran { Yield::Executed } else { Yield::Idle }
    }
}

/// `f` of the worker running on this thread (of any pool), if any.
fn on_current<R>(f: impl FnOnce(&WorkerThread) -> R) -> Option<R> {
    WorkerThread::with_current(|wt| wt.map(f))
}

/// On a worker thread, runs one pending job of its pool if there is one:
/// from its own deque, else from wherever it would look for work (other
/// workers' deques, the pool's queues). The job may run other jobs in turn
/// (its own joins and scopes). Never sleeps: a polling loop that got
/// `Idle` may want to yield to the OS as well ([`std::thread::yield_now`]).
///
/// Returns `None` outside every pool, else `Some(Yield::Executed)` or
/// `Some(Yield::Idle)`.
///
/// ```
/// use locus::Yield;
/// assert_eq!(locus::yield_now(), None); // not a worker
/// let pool = locus::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let r = pool.install(|| {
///     let (tx, rx) = std::sync::mpsc::channel();
///     locus::spawn(move || tx.send(1).unwrap());
///     // The only worker is busy here: run the spawn ourselves.
///     assert_eq!(locus::yield_now(), Some(Yield::Executed));
///     rx.try_recv().unwrap()
/// });
/// assert_eq!(r, 1);
/// ```
pub fn yield_now() -> Option<Yield> {
    on_current(|wt| Yield::from_ran(wt.yield_now()))
}

/// As [`yield_now`], but only looks at this worker's own jobs (its deque,
/// newest first, and the broadcast jobs aimed at it): it never steals.
pub fn yield_local() -> Option<Yield> {
    on_current(|wt| Yield::from_ran(wt.yield_local()))
}

/// On a worker thread, whether it holds jobs that no worker has taken
/// yet (spawned or `join`ed work waiting in its deque); `None` outside
/// every pool.
pub fn current_thread_has_pending_tasks() -> Option<bool> {
    on_current(WorkerThread::has_pending_tasks)
}
