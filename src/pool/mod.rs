//! The public API: [`ThreadPool`], its builder, and rayon-core's free
//! functions ([`join`], [`scope`], [`scope_fifo`], [`in_place_scope`],
//! [`spawn`], [`spawn_fifo`], [`broadcast`], [`spawn_broadcast`],
//! [`yield_now`], [`current_thread_index`], [`current_num_threads`], ...).
//!
//! Free functions run on the current worker's pool when called from a
//! worker, else on the global pool (built on first use from
//! [`ThreadPoolBuilder::new`] and the environment). Building the global
//! pool on first use does not fail on an invalid `LOCUS_*` environment
//! variable (there is no caller to return the error to): it prints one
//! warning naming the variable and what it accepts, and ignores it. Call
//! [`ThreadPoolBuilder::build_global`] early to get a [`BuildError`]
//! instead.

mod broadcast;
mod builder;
mod deprecated;
mod env;
pub(crate) mod global;
mod job_group;
mod join;
mod scope;
mod shutdown;
mod spawn;
pub(crate) mod thread_builder;
mod yield_now;

use std::fmt;
use std::sync::Arc;

pub use crate::runtime::error::ShutdownError;
pub use crate::runtime::error::{BuildError, ThreadPoolBuildError};
pub use crate::runtime::thread_builder::ThreadBuilder;
pub use broadcast::{BroadcastContext, DomainContext, broadcast, spawn_broadcast};
pub use builder::ThreadPoolBuilder;
#[allow(deprecated)]
pub use deprecated::{Configuration, initialize};
pub use job_group::{JobGroup, outside_group};
pub use join::{FnContext, join, join_context};
pub use scope::{Scope, ScopeFifo, in_place_scope, in_place_scope_fifo, scope, scope_fifo};
pub use spawn::{spawn, spawn_fifo};
pub use yield_now::{Yield, current_thread_has_pending_tasks, yield_local, yield_now};

use crate::Level;
use crate::layout::Layout;
use crate::runtime::pin::PinStatus;
use crate::runtime::registry::Registry;
use crate::runtime::stats::PoolStats;
use crate::runtime::worker::WorkerThread;

/// A pool of worker threads laid out on a topology.
///
/// # Dropping
///
/// The pool's workers live while any *handle* to it exists: the
/// `ThreadPool` itself or a [`JobGroup`] made from it (each clone counts).
/// Dropping the `ThreadPool` while groups exist leaves the pool running,
/// and the groups keep working (`install`, `join`, `scope`, `spawn`). When
/// the last handle is dropped the pool shuts down: its workers run every
/// queued and spawned job (also those spawned meanwhile by these jobs),
/// then each runs its exit handler (which may still spawn, join or
/// broadcast: that work runs too), then they exit. Dropping never waits
/// for any of this, as in rayon: `drop` returns at once, on any thread,
/// and the workers finish on their own, so a spawned job may wait for
/// something the dropping thread does after the drop. To wait until the
/// workers have exited, use [`ThreadPool::shutdown_and_wait`] instead of
/// `drop`. A handle stored in one of the pool's own handlers keeps the
/// pool alive for good.
///
/// ```
/// let pool = locus::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (tx, rx) = std::sync::mpsc::channel::<u32>();
/// let (back, answer) = std::sync::mpsc::channel();
/// pool.spawn(move || back.send(rx.recv().unwrap() + 1).unwrap());
/// drop(pool); // returns at once; the spawned job still runs
/// tx.send(41).unwrap();
/// assert_eq!(answer.recv().unwrap(), 42);
/// ```
///
/// ```
/// let pool = locus::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let sum: u64 = pool.install(|| {
///     let (a, b) = locus::join(|| (0..500u64).sum::<u64>(), || (500..1000u64).sum::<u64>());
///     a + b
/// });
/// assert_eq!(sum, 499_500);
/// ```
pub struct ThreadPool {
    registry: Arc<Registry>,
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("num_threads", &self.registry.num_threads())
            .finish_non_exhaustive()
    }
}

impl ThreadPool {
    /// The pool owning `registry`'s initial user handle.
    pub(crate) fn from_registry(registry: Arc<Registry>) -> Self {
        ThreadPool { registry }
    }

    /// Runs `op` on a worker of this pool and returns its result. From a
    /// thread outside any pool this blocks; from a worker of another pool,
    /// that worker keeps running its own pool's jobs while it waits. Inside
    /// `op`, the free functions use this pool. A panic in `op` is resumed
    /// in the caller.
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.registry.in_worker(|_, _| op())
    }

    /// [`join`] in this pool.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.registry
            .in_worker(|wt, injected| join::join_on(wt, injected, |_| a(), |_| b()))
    }

    /// [`scope`] in this pool.
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.registry.in_worker(|wt, _| scope::scope_on(wt, op))
    }

    /// [`scope_fifo`] in this pool.
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.registry
            .in_worker(|wt, _| scope::scope_fifo_on(wt, op))
    }

    /// [`in_place_scope`] with this pool: `op` runs on the calling thread,
    /// the scope's jobs in this pool.
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        scope::in_place_scope_in(Some(&self.registry), op)
    }

    /// [`in_place_scope_fifo`] with this pool.
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        scope::in_place_scope_fifo_in(Some(&self.registry), op)
    }

    /// [`spawn`] in this pool (a panic in `f` goes to the panic handler;
    /// without one the process aborts: see [`spawn`]).
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.registry.spawn_detached(f)
    }

    /// [`spawn_fifo`] in this pool.
    pub fn spawn_fifo<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.registry.spawn_fifo(f)
    }

    /// [`spawn_broadcast`] in this pool: `op` once on every worker, without
    /// waiting.
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        self.registry
            .spawn_broadcast(move |index, n| op(BroadcastContext::new(index, n)))
    }

    /// [`yield_now`], if the current thread is a worker of this pool
    /// (`None` otherwise).
    pub fn yield_now(&self) -> Option<Yield> {
        self.registry
            .with_current_worker(|wt| wt.map(|wt| Yield::from_ran(wt.yield_now())))
    }

    /// [`yield_local`], if the current thread is a worker of this pool
    /// (`None` otherwise).
    pub fn yield_local(&self) -> Option<Yield> {
        self.registry
            .with_current_worker(|wt| wt.map(|wt| Yield::from_ran(wt.yield_local())))
    }

    /// [`current_thread_has_pending_tasks`], if the current thread is a
    /// worker of this pool (`None` otherwise).
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        self.registry
            .with_current_worker(|wt| wt.map(WorkerThread::has_pending_tasks))
    }

    /// Runs `op` once on every worker of this pool; results by worker
    /// index (panics as in [`broadcast`]).
    ///
    /// ```
    /// let pool = locus::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let idx = pool.broadcast(|ctx| ctx.index());
    /// assert_eq!(idx, vec![0, 1, 2]);
    /// ```
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        self.registry
            .in_worker(|wt, _| broadcast::broadcast_on(wt, &op))
    }

    /// Runs `op` once per domain of `level` (core, cluster, LLC, NUMA
    /// node, package; [`Level::Machine`] is one call) that has workers,
    /// on a worker inside it (the domain's first), and returns the results
    /// in domain order ([`DomainContext::domain`], the layout's dense ids).
    /// For per-domain replicas and first-touch initialisation: memory `op`
    /// allocates and writes is placed on the node of the CPU running it,
    /// with the default Linux policy. Panics as in [`broadcast`].
    ///
    /// ```
    /// use locus::{Level, ThreadPoolBuilder, Topology};
    /// let t = Topology::synthetic("numa:2 llc:2 core:2").unwrap();
    /// let pool = ThreadPoolBuilder::new().topology(t).build().unwrap();
    /// let first = pool.broadcast_per(Level::Llc, |ctx| (ctx.domain(), ctx.index()));
    /// assert_eq!(first, [(0, 0), (1, 2), (2, 4), (3, 6)]);
    /// let per_node = pool.broadcast_per(Level::Numa, |ctx| vec![0u8; 16 * ctx.workers().len()]);
    /// assert_eq!(per_node.iter().map(Vec::len).collect::<Vec<_>>(), [64, 64]);
    /// ```
    pub fn broadcast_per<OP, R>(&self, level: Level, op: OP) -> Vec<R>
    where
        OP: Fn(DomainContext<'_>) -> R + Sync,
        R: Send,
    {
        self.registry
            .in_worker(|wt, _| broadcast::broadcast_per_on(wt, level, &op))
    }

    /// The index of the current thread in this pool, if it is one of its
    /// workers.
    pub fn current_thread_index(&self) -> Option<usize> {
        self.registry
            .with_current_worker(|wt| wt.map(WorkerThread::index))
    }

    /// The number of workers.
    pub fn current_num_threads(&self) -> usize {
        self.registry.num_threads()
    }

    /// The layout the pool runs on (workers, their CPU sets and steal tiers).
    pub fn layout(&self) -> &Layout {
        &self.registry.layout
    }

    /// What happened when each worker pinned itself, by worker index.
    /// Waits until every worker thread has started (`build` does not).
    pub fn pin_report(&self) -> Vec<PinStatus> {
        self.registry.pin_report()
    }

    /// A snapshot of the pool's counters.
    ///
    /// # When the job counts are exact
    ///
    /// A worker counts the jobs it runs (`jobs_run`, `local_pops`) in
    /// thread-local cells and adds them to the counters read here at three
    /// points: before a job it runs sets the latch its waiter blocks or
    /// helps on (the end of an `install`ed closure, of a stolen `join`
    /// half, of a `scope` or `broadcast` job), whenever it looks for work
    /// beyond its own deque, and so before it parks. Hence:
    ///
    /// - **After a blocking call returned** (`install`, `join`, `scope`,
    ///   `in_place_scope`, `broadcast`, on this pool), a snapshot taken by
    ///   the thread it returned to, or by any thread that learned of the
    ///   return through a synchronizing operation, counts every job that
    ///   ran as part of that call: the call itself waits for those jobs'
    ///   latches, and their counts were added before. No waiting needed:
    ///   `pool.install(f); pool.stats()` is exact for `f`'s jobs.
    /// - **Detached jobs** (`spawn`, `spawn_fifo`, `spawn_broadcast`), which
    ///   no call waits for, are counted once the worker that ran them looks
    ///   for its next job, so at the latest when the pool has gone idle
    ///   (every worker found nothing and parked); a `spawn` that signals a
    ///   channel may be read before it is counted. To count them exactly,
    ///   spawn them in a `scope` and read the stats after it returns.
    ///
    /// Counts of other events (steals, wakeups, parks, failed searches)
    /// are recorded as they happen; they keep moving for a moment after a
    /// call returns, while workers search and park. A snapshot taken while
    /// jobs run is not atomic across counters.
    pub fn stats(&self) -> PoolStats {
        self.registry.stats()
    }
}

impl Drop for ThreadPool {
    /// See "Dropping" above.
    fn drop(&mut self) {
        self.registry.drop_handle();
    }
}

/// The index of the current thread in its pool, if it is a worker.
pub fn current_thread_index() -> Option<usize> {
    WorkerThread::with_current(|wt| wt.map(WorkerThread::index))
}

/// The largest number of workers a pool may have
/// ([`crate::layout::MAX_WORKERS`], 65,536). A larger count, from
/// [`ThreadPoolBuilder::num_threads`] or from the environment, is lowered
/// to it, as rayon does. (rayon's own maximum is 65,535 on 64-bit targets,
/// the width of its sleep counters; locus's is the widest layout its idle
/// masks index. Either is past what a process can start on a default Linux
/// `vm.max_map_count`, see [`ThreadPoolBuilder::num_threads`].)
pub fn max_num_threads() -> usize {
    crate::layout::MAX_WORKERS
}

/// The number of workers of the current pool: the current worker's pool,
/// else the global pool (built on first use).
pub fn current_num_threads() -> usize {
    WorkerThread::with_current(|wt| match wt {
        Some(wt) => wt.registry().num_threads(),
        None => global::global_registry().num_threads(),
    })
}

#[cfg(test)]
mod tests;
