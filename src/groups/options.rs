//! What a job group asks for ([`GroupOptions`]: [`Affinity`], [`Placement`]),
//! why a request is refused ([`GroupError`]), and what the pool reports per
//! group ([`GroupStats`]).

use std::fmt;

/// Where a group's jobs should run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Affinity {
    /// No preference: jobs are placed like ordinary jobs (with
    /// [`Placement::Spread`]: spread over the whole pool).
    #[default]
    None,
    /// LLC `i` (dense id, an index into [`Layout::llc_ranges`](crate::Layout::llc_ranges)).
    Llc(usize),
    /// NUMA node `i` (dense id, [`Layout::numa_ranges`](crate::Layout::numa_ranges)):
    /// packed jobs go to the least busy LLC of the node at the time of the push.
    Numa(usize),
    /// The LLC of this worker; wakeups start at its cluster.
    Near(usize),
    /// Learned: the LLC where the group's jobs ran most recently, switched
    /// with 2x hysteresis: the preference moves only to an LLC with more
    /// than twice the current one's recent runs.
    /// Until there is enough activity, and while every worker of the
    /// learned LLC is busy, jobs are placed like ordinary jobs.
    Auto,
}

/// How a group's jobs are distributed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Keep the jobs in the affinity's LLC (a spawn from one of its
    /// workers on that worker's deque, others on its queue for its idle
    /// workers, cluster first, big cores first); other LLCs help only when it is
    /// overloaded, or saturated while they have nothing else to do (see
    /// [the module docs](super)): a preference, not a cap on
    /// parallelism. The default.
    #[default]
    Pack,
    /// Deal the jobs round robin over the clusters (over LLCs when cluster
    /// awareness is off) of the affinity's domain (the whole pool for
    /// `None` and `Auto`), weighted by capacity.
    Spread,
}

/// Options of a job group (see [`ThreadPool::group`](crate::ThreadPool::group)).
///
/// ```
/// use locus::{Affinity, GroupOptions, Placement};
/// let o = GroupOptions::new().affinity(Affinity::Auto);
/// assert_eq!(o.placement, Placement::Pack);
/// let s = GroupOptions::new().placement(Placement::Spread);
/// assert_eq!(s.affinity, Affinity::None);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct GroupOptions {
    /// Where the jobs should run.
    pub affinity: Affinity,
    /// How they are distributed.
    pub placement: Placement,
}

impl GroupOptions {
    /// No affinity, packing (that is: ordinary placement, but counted).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the affinity.
    pub fn affinity(mut self, a: Affinity) -> Self {
        self.affinity = a;
        self
    }

    /// Sets the placement.
    pub fn placement(mut self, p: Placement) -> Self {
        self.placement = p;
        self
    }
}

/// A [`GroupOptions`] that does not fit the pool.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GroupError {
    /// `Affinity::Llc(i)` with `i` not below the number of LLCs.
    NoSuchLlc {
        /// The index asked for.
        llc: usize,
        /// Number of LLCs of the pool.
        llcs: usize,
    },
    /// `Affinity::Numa(i)` with `i` not below the number of NUMA nodes.
    NoSuchNuma {
        /// The index asked for.
        numa: usize,
        /// Number of NUMA nodes of the pool.
        nodes: usize,
    },
    /// `Affinity::Near(w)` with `w` not below the number of workers.
    NoSuchWorker {
        /// The index asked for.
        worker: usize,
        /// Number of workers of the pool.
        workers: usize,
    },
}

impl fmt::Display for GroupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupError::NoSuchLlc { llc, llcs } => write!(
                f,
                "Affinity::Llc({llc}): the pool has {llcs} LLC(s), numbered from 0; see ThreadPool::layout().llc_ranges()"
            ),
            GroupError::NoSuchNuma { numa, nodes } => write!(
                f,
                "Affinity::Numa({numa}): the pool has {nodes} NUMA node(s), numbered from 0; see ThreadPool::layout().numa_ranges()"
            ),
            GroupError::NoSuchWorker { worker, workers } => write!(
                f,
                "Affinity::Near({worker}): the pool has {workers} worker(s), numbered from 0"
            ),
        }
    }
}

impl std::error::Error for GroupError {}

/// Counters of one job group, in [`PoolStats::groups`](crate::PoolStats::groups).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupStats {
    /// The group's id (unique in its pool, in creation order).
    pub id: usize,
    /// Its options.
    pub options: GroupOptions,
    /// Jobs of the group run in each LLC, by dense LLC id. Counted: group
    /// spawns, scope spawns and `install`/`scope` bodies, and `join` halves
    /// that ran on another worker than the one that created them.
    pub jobs_per_llc: Vec<u64>,
    /// The LLC its packed jobs currently go to (`Auto`: the learned one,
    /// `None` until there is enough activity).
    pub preferred_llc: Option<usize>,
    /// How often the learned preference moved to another LLC.
    pub preference_changes: u64,
}

impl GroupStats {
    /// All jobs counted.
    pub fn total(&self) -> u64 {
        self.jobs_per_llc.iter().sum()
    }
}

impl fmt::Display for GroupStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "group {} ({:?}, {:?}): jobs per LLC {:?}, preferred {}, changes {}",
            self.id,
            self.options.affinity,
            self.options.placement,
            self.jobs_per_llc,
            self.preferred_llc
                .map_or_else(|| "none".to_string(), |l| l.to_string()),
            self.preference_changes
        )
    }
}

/// What the freed job groups of a pool did, added up
/// ([`PoolStats::retired_groups`](crate::PoolStats::retired_groups)). A
/// group's state is freed once its last [`JobGroup`](crate::JobGroup)
/// handle and its last job are gone; its counters then move from
/// [`PoolStats::groups`](crate::PoolStats::groups) to here, so every job
/// of every group is counted once, and a pool that creates and drops
/// groups in a loop keeps a flat footprint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetiredGroups {
    /// How many groups were freed.
    pub count: u64,
    /// Their jobs run in each LLC, by dense LLC id (as
    /// [`GroupStats::jobs_per_llc`]).
    pub jobs_per_llc: Vec<u64>,
    /// Their learned preferences' moves, added up.
    pub preference_changes: u64,
}

impl RetiredGroups {
    /// All their jobs counted.
    pub fn total(&self) -> u64 {
        self.jobs_per_llc.iter().sum()
    }

    /// Adds the final counters of one freed group.
    pub(crate) fn add(&mut self, g: &GroupStats) {
        self.count += 1;
        if self.jobs_per_llc.len() < g.jobs_per_llc.len() {
            self.jobs_per_llc.resize(g.jobs_per_llc.len(), 0);
        }
        for (t, j) in self.jobs_per_llc.iter_mut().zip(&g.jobs_per_llc) {
            *t += j;
        }
        self.preference_changes += g.preference_changes;
    }
}
