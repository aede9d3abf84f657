//! [`ThreadPool`]: the handle to a pool, how a builder makes one
//! ([`ThreadPoolBuilder::build`], [`ThreadPoolBuilder::build_scoped`]),
//! and its methods, each the pool's form of a free function (`install`,
//! `join`, `scope`, `spawn`, `broadcast`, ...) or a look at the pool
//! (layout, pin report, counters).
//!
//! Invariants: a `ThreadPool` holds one user handle of its registry,
//! taken when the registry was built and given back by its drop (see
//! "Dropping" below and `runtime::registry`, "Lifetime"); every method
//! runs its work on this pool's workers, whatever pool the caller is on.

use std::fmt;
use std::sync::Arc;

use crate::Level;
use crate::layout::Layout;
use crate::runtime::error::BuildError;
use crate::runtime::pin::PinStatus;
use crate::runtime::registry::Registry;
use crate::runtime::stats::PoolStats;
use crate::runtime::thread_builder::ThreadBuilder;
use crate::runtime::worker::WorkerThread;

use super::broadcast::{self, BroadcastContext, DomainContext};
use super::builder::ThreadPoolBuilder;
use super::env;
use super::join;
use super::scope::{self, Scope, ScopeFifo};
use super::thread_builder::ThreadSpawn;
use super::yield_now::Yield;

/// A pool of worker threads laid out on a topology.
///
/// # Dropping
///
/// The pool's workers live while any *handle* to it exists: the
/// `ThreadPool` itself or a [`JobGroup`](crate::JobGroup) made from it (each clone counts).
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
    /// Read by the pool's other handles' modules (`job_group`, `shutdown`).
    pub(super) registry: Arc<Registry>,
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

    /// [`join`](crate::join) in this pool.
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

    /// [`scope`](crate::scope) in this pool.
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.registry.in_worker(|wt, _| scope::scope_on(wt, op))
    }

    /// [`scope_fifo`](crate::scope_fifo) in this pool.
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.registry
            .in_worker(|wt, _| scope::scope_fifo_on(wt, op))
    }

    /// [`in_place_scope`](crate::in_place_scope) with this pool: `op` runs on the calling thread,
    /// the scope's jobs in this pool.
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        scope::in_place_scope_in(Some(&self.registry), op)
    }

    /// [`in_place_scope_fifo`](crate::in_place_scope_fifo) with this pool.
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        scope::in_place_scope_fifo_in(Some(&self.registry), op)
    }

    /// [`spawn`](crate::spawn) in this pool (a panic in `f` goes to the panic handler;
    /// without one the process aborts: see [`spawn`](crate::spawn)).
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.registry.spawn_detached(f)
    }

    /// [`spawn_fifo`](crate::spawn_fifo) in this pool.
    pub fn spawn_fifo<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.registry.spawn_fifo(f)
    }

    /// [`spawn_broadcast`](crate::spawn_broadcast) in this pool: `op` once on every worker, without
    /// waiting.
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        self.registry
            .spawn_broadcast(move |index, n| op(BroadcastContext::new(index, n)))
    }

    /// [`yield_now`](crate::yield_now), if the current thread is a worker of this pool
    /// (`None` otherwise).
    pub fn yield_now(&self) -> Option<Yield> {
        self.registry
            .with_current_worker(|wt| wt.map(|wt| Yield::from_ran(wt.yield_now())))
    }

    /// [`yield_local`](crate::yield_local), if the current thread is a worker of this pool
    /// (`None` otherwise).
    pub fn yield_local(&self) -> Option<Yield> {
        self.registry
            .with_current_worker(|wt| wt.map(|wt| Yield::from_ran(wt.yield_local())))
    }

    /// [`current_thread_has_pending_tasks`](crate::current_thread_has_pending_tasks), if the current thread is a
    /// worker of this pool (`None` otherwise).
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        self.registry
            .with_current_worker(|wt| wt.map(WorkerThread::has_pending_tasks))
    }

    /// Runs `op` once on every worker of this pool; results by worker
    /// index (panics as in [`broadcast`](crate::broadcast)).
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
    /// with the default Linux policy. Panics as in [`broadcast`](crate::broadcast).
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

impl ThreadPoolBuilder {
    /// Builds a pool whose threads are scoped threads
    /// ([`std::thread::scope`]), runs `with_pool` with it, drops it, and
    /// returns what `with_pool` returned once every thread has exited.
    /// Each thread starts in `wrapper`, which must call
    /// [`ThreadBuilder::run`]: so the workers may borrow from the caller's
    /// stack, e.g. to set scoped thread-locals around `run`.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let started = AtomicUsize::new(0); // borrowed by the workers
    /// let sum = locus::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build_scoped(
    ///         |thread| {
    ///             started.fetch_add(1, Ordering::Relaxed);
    ///             thread.run()
    ///         },
    ///         |pool| pool.install(|| locus::join(|| 1, || 2)),
    ///     )
    ///     .unwrap();
    /// assert_eq!(sum, (1, 2));
    /// assert_eq!(started.into_inner(), 2);
    /// ```
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, BuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        std::thread::scope(|scope| {
            let wrapper = &wrapper;
            let pool = self
                .spawn_handler(|thread| {
                    let mut b = std::thread::Builder::new();
                    if let Some(name) = thread.name() {
                        b = b.name(name.to_owned());
                    }
                    if let Some(size) = thread.stack_size() {
                        b = b.stack_size(size);
                    }
                    b.spawn_scoped(scope, move || wrapper(thread))?;
                    Ok(())
                })
                .build()?;
            Ok(with_pool(&pool))
        })
    }
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    /// Builds the pool. Returns once every worker thread was started (not
    /// necessarily running yet: [`ThreadPool::pin_report`] waits for that).
    pub fn build(self) -> Result<ThreadPool, BuildError> {
        let registry = self.build_registry_with(&env::process_env)?;
        Ok(ThreadPool::from_registry(registry))
    }
}
