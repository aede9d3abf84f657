//! [`JobGroup`]: a handle to run jobs as one group (see [`crate::groups`]).

use std::fmt;
use std::sync::Arc;

use crate::groups::{GroupError, GroupOptions, GroupStats};
use crate::runtime::group_state::{GroupRef, GroupState};
use crate::runtime::registry::Registry;
use crate::runtime::worker::WorkerThread;

use super::join::join_on;
use super::scope::{Scope, scope_on};
use super::thread_pool::ThreadPool;

/// A group of jobs that share a placement: created by [`ThreadPool::group`],
/// cheap to clone, `Send` and `Sync`. Jobs created inside its jobs (scope
/// spawns, `join` halves, [`crate::spawn`]) belong to it too.
///
/// A group is a handle to its pool, like the [`ThreadPool`]: the pool's
/// workers live while the pool or any group of it (or a clone) exists, so a
/// group keeps working after its `ThreadPool` was dropped, and the pool
/// shuts down when the last of them goes (see "Dropping" on
/// [`ThreadPool`]; no drop waits for the workers).
///
/// ```
/// let pool = locus::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let g = pool.group(locus::GroupOptions::new()).unwrap();
/// drop(pool); // `g` keeps the workers
/// assert_eq!(g.install(|| locus::join(|| 1, || 2)), (1, 2));
/// drop(g); // the last handle: the workers finish and exit on their own
/// ```
///
/// ```
/// use locus::{Affinity, GroupOptions, ThreadPoolBuilder, Topology};
/// let pool = ThreadPoolBuilder::new()
///     .topology(Topology::synthetic("llc:2 core:2").unwrap())
///     .build()
///     .unwrap();
/// let g = pool.group(GroupOptions::new().affinity(Affinity::Llc(1))).unwrap();
/// let llcs: Vec<usize> = g.scope(|s| {
///     let (tx, rx) = std::sync::mpsc::channel();
///     for _ in 0..4 {
///         let tx = tx.clone();
///         s.spawn(move |_| tx.send(locus::current_thread_index().unwrap()).unwrap());
///     }
///     drop(tx);
///     rx.iter().collect()
/// });
/// assert_eq!(llcs.len(), 4);
/// let st = g.stats();
/// assert_eq!(st.preferred_llc, Some(1));
/// assert!(st.total() >= 5); // the scope body and its four jobs
/// ```
pub struct JobGroup {
    registry: Arc<Registry>,
    state: Arc<GroupState>,
}

impl Clone for JobGroup {
    fn clone(&self) -> Self {
        self.registry.add_handle();
        JobGroup {
            registry: Arc::clone(&self.registry),
            state: Arc::clone(&self.state),
        }
    }
}

impl Drop for JobGroup {
    /// Drops a handle to the pool; the last one shuts it down (see
    /// "Dropping" on [`ThreadPool`]).
    fn drop(&mut self) {
        self.registry.drop_handle();
    }
}

impl fmt::Debug for JobGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobGroup")
            .field("id", &self.state.id())
            .field("options", &self.state.options())
            .finish_non_exhaustive()
    }
}

impl ThreadPool {
    /// A new job group in this pool. The group's state (and its entry in
    /// [`ThreadPool::stats`]) lives while a handle to the group (this one
    /// or a clone) or one of its jobs does; then it is freed and its
    /// counters are added to [`crate::PoolStats::retired_groups`]. The
    /// group is a handle: it keeps the pool's workers alive (see
    /// [`JobGroup`]).
    ///
    /// # Errors
    /// A [`GroupError`] when the affinity names an LLC, NUMA node or worker
    /// the pool does not have.
    pub fn group(&self, options: GroupOptions) -> Result<JobGroup, GroupError> {
        let plan = crate::groups::GroupPlan::new(&self.registry.layout, options)?;
        self.registry.add_handle();
        Ok(JobGroup {
            state: self.registry.new_group(plan),
            registry: Arc::clone(&self.registry),
        })
    }

    /// Turns cluster awareness on or off while the pool runs: steal tiers
    /// (from each worker's next search pass), wake order (cluster first or
    /// not) and spread dealing (over clusters or LLCs). Every queue stays
    /// in every worker's search, so no job is lost or run twice. Same
    /// effect as building with [`crate::ThreadPoolBuilder::cluster_aware`]
    /// (or `LOCUS_CLUSTER`), which sets the initial value.
    ///
    /// ```
    /// let pool = locus::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// pool.set_cluster_aware(false);
    /// assert!(!pool.cluster_aware());
    /// assert_eq!(pool.install(|| locus::join(|| 1, || 2)), (1, 2));
    /// ```
    pub fn set_cluster_aware(&self, on: bool) {
        self.registry.set_cluster_aware(on);
    }

    /// Whether the pool currently uses the cluster level.
    pub fn cluster_aware(&self) -> bool {
        self.registry.cluster_aware()
    }
}

impl JobGroup {
    fn gref(&self) -> GroupRef {
        GroupRef::of(&self.state)
    }

    /// Runs `f` asynchronously as a job of the group (see
    /// [`ThreadPool::spawn`] for panics and shutdown).
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.registry.spawn_detached_in(self.gref(), f)
    }

    /// Runs `op` as a job of the group and returns its result: inline when
    /// called from a worker of the pool, else on a worker chosen by the
    /// group's placement (blocking, as [`ThreadPool::install`]).
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.registry.in_worker_group(self.gref(), |_, _| op())
    }

    /// [`crate::join`] as a job of the group: both halves belong to it.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.registry.in_worker_group(self.gref(), |wt, injected| {
            join_on(wt, injected, |_| a(), |_| b())
        })
    }

    /// [`crate::scope`] as a job of the group: the body and every job
    /// spawned in it belong to it.
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.registry
            .in_worker_group(self.gref(), |wt, _| scope_on(wt, op))
    }

    /// The group's counters now.
    pub fn stats(&self) -> GroupStats {
        self.state.stats()
    }

    /// The group's options.
    pub fn options(&self) -> GroupOptions {
        self.state.options()
    }
}

/// Runs `f` so that the jobs it creates (spawns, scope spawns, `join`
/// halves) do not belong to the current group: inside a group job they
/// would by default. Outside a group job, or outside a pool, it just runs
/// `f`.
///
/// ```
/// use locus::{Affinity, GroupOptions, ThreadPoolBuilder, Topology};
/// let pool = ThreadPoolBuilder::new()
///     .topology(Topology::synthetic("llc:2 core:2").unwrap())
///     .build()
///     .unwrap();
/// let g = pool.group(GroupOptions::new().affinity(Affinity::Llc(0))).unwrap();
/// g.install(|| {
///     locus::outside_group(|| locus::scope(|s| s.spawn(|_| {})));
/// });
/// assert_eq!(g.stats().total(), 1); // the install body only
/// ```
pub fn outside_group<R>(f: impl FnOnce() -> R) -> R {
    WorkerThread::with_current(|wt| match wt {
        Some(wt) if !wt.group().is_none() => wt.with_group(GroupRef::NONE, f),
        _ => f(),
    })
}
