//! The run-time state of a job group: where its jobs ran, its learned
//! preference, its spread dealers. The policy itself is in
//! [`crate::groups`] (pure code); this module only feeds it and stores its
//! answers where pushes can read them cheaply.
//!
//! Invariants:
//! - a `GroupState` lives while a strong reference to it exists, and the
//!   holders are exactly: the group's [`crate::JobGroup`] handles (each
//!   clone), and every queued or running job that carries the group and
//!   may outlive the frame that made it (a group `spawn`, a scope job
//!   spawned inside a group job): each holds an `Arc` until its closure is
//!   dropped, after its last instruction. When the last goes, the state is
//!   freed and its counters are folded into its pool's [`GroupList`]
//!   totals, so a program that creates and drops groups in a loop keeps a
//!   flat footprint;
//! - a [`GroupRef`] (a raw pointer, no count: read on the hot path) is
//!   only dereferenced while a holder of its state is alive and waits for
//!   the reader: a handle's call (`install`, `join`, `scope` through a
//!   `JobGroup` blocks until its job, which carries the ref, returned), the
//!   running group job itself (a worker's current group is set only while
//!   it runs such a job or such a call, see `WorkerThread::in_group`), or a
//!   `join` half carrying the ref, whose `join` frame (inside one of the
//!   former) waits for it;
//! - the pool's [`GroupList`] lists exactly the states not yet freed (an
//!   entry is added when the state is built and removed by its `Drop`),
//!   each with its counters, so `stats()` costs the live groups only;
//! - `preferred` is `NONE` or a dense LLC id below the number of LLCs.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crossbeam_utils::CachePadded;

use crate::groups::{
    Affinity, AffinityTracker, DECAY_PERIOD, GroupOptions, GroupPlan, GroupStats, RetiredGroups,
};
use crate::layout::Layout;

const NONE: usize = usize::MAX;
/// An `Auto` group feeds its tracker once per this many job runs.
const EPOCH: u64 = 8;

struct Learn {
    tracker: AffinityTracker,
    seen: Vec<u64>,
    last_decay: Instant,
}

/// What a group's stats are made of: shared by the group's state and its
/// pool's [`GroupList`], so that `stats()` reads them without a reference
/// to the state (which may be in its `Drop` meanwhile).
struct Counts {
    id: usize,
    options: GroupOptions,
    /// Runs per LLC (for stats and learning).
    runs: Box<[CachePadded<AtomicU64>]>,
    preferred: AtomicUsize,
    changes: AtomicU64,
}

impl Counts {
    fn stats(&self) -> GroupStats {
        let p = self.preferred.load(Relaxed);
        GroupStats {
            id: self.id,
            options: self.options,
            jobs_per_llc: self.runs.iter().map(|r| r.load(Relaxed)).collect(),
            preferred_llc: (p != NONE).then_some(p),
            preference_changes: self.changes.load(Relaxed),
        }
    }
}

/// The job groups of one pool: the live ones (their counters, by id) and
/// the totals of those already freed. One per registry; every state holds
/// it, to leave it when freed.
pub(crate) struct GroupList {
    inner: parking_lot::Mutex<ListInner>,
}

struct ListInner {
    next_id: usize,
    live: BTreeMap<usize, Arc<Counts>>,
    retired: RetiredGroups,
}

impl GroupList {
    /// The list of a pool with `llcs` LLCs, with no group yet.
    pub(crate) fn new(llcs: usize) -> Arc<GroupList> {
        Arc::new(GroupList {
            inner: parking_lot::Mutex::new(ListInner {
                next_id: 0,
                live: BTreeMap::new(),
                retired: RetiredGroups {
                    jobs_per_llc: vec![0; llcs],
                    ..RetiredGroups::default()
                },
            }),
        })
    }

    /// A new group with this plan on `layout`, listed until it is freed.
    pub(crate) fn create(self: &Arc<Self>, plan: GroupPlan, layout: &Layout) -> Arc<GroupState> {
        let nllc = layout.llc_ranges().len();
        let mut inner = self.inner.lock();
        let id = inner.next_id;
        inner.next_id += 1;
        let counts = Arc::new(Counts {
            id,
            options: plan.options(),
            runs: (0..nllc)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            preferred: AtomicUsize::new(plan.fixed_llc().unwrap_or(NONE)),
            changes: AtomicU64::new(0),
        });
        inner.live.insert(id, Arc::clone(&counts));
        drop(inner);
        Arc::new(GroupState {
            counts,
            ticks: AtomicU64::new(0),
            learn: Mutex::new(Learn {
                tracker: AffinityTracker::new(nllc),
                seen: vec![0; nllc],
                last_decay: Instant::now(),
            }),
            plan,
            list: Arc::clone(self),
        })
    }

    /// The stats of every live group, by id, and the totals of the freed
    /// ones: one lock, so each group is counted once, live or freed.
    pub(crate) fn stats(&self) -> (Vec<GroupStats>, RetiredGroups) {
        let inner = self.inner.lock();
        (
            inner.live.values().map(|c| c.stats()).collect(),
            inner.retired.clone(),
        )
    }

    /// Group `id`'s state is being freed: unlists it and adds its final
    /// counts to the totals.
    fn retire(&self, id: usize) {
        let mut inner = self.inner.lock();
        if let Some(c) = inner.live.remove(&id) {
            inner.retired.add(&c.stats());
        }
    }
}

/// One group's shared state.
pub(crate) struct GroupState {
    counts: Arc<Counts>,
    ticks: AtomicU64,
    learn: Mutex<Learn>,
    /// Where its jobs go.
    pub(crate) plan: GroupPlan,
    /// The pool's list, which it leaves when freed.
    list: Arc<GroupList>,
}

impl Drop for GroupState {
    fn drop(&mut self) {
        self.list.retire(self.counts.id);
    }
}

impl GroupState {
    /// The group's id (unique in its pool, in creation order).
    pub(crate) fn id(&self) -> usize {
        self.counts.id
    }

    /// The group's options (those of its plan).
    pub(crate) fn options(&self) -> GroupOptions {
        self.counts.options
    }

    /// The fixed or learned LLC (`None` for `Numa`, which picks per push).
    pub(crate) fn preferred(&self) -> Option<usize> {
        let p = self.counts.preferred.load(Relaxed);
        (p != NONE).then_some(p)
    }

    /// Counts a run of one of its jobs in `llc`; for `Auto`, feeds the
    /// tracker every [`EPOCH`] runs.
    pub(crate) fn record(&self, llc: usize) {
        if let Some(r) = self.counts.runs.get(llc) {
            r.fetch_add(1, Relaxed);
        }
        if self.options().affinity == Affinity::Auto
            && feeds_at(self.ticks.fetch_add(1, Relaxed) + 1)
        {
            // Someone else is updating: the next epoch takes our counts.
            if let Ok(mut g) = self.learn.try_lock() {
                self.update(&mut g);
            }
        }
    }

    fn update(&self, g: &mut Learn) {
        let Learn {
            tracker,
            seen,
            last_decay,
        } = g;
        let runs = self.counts.runs.iter().map(|r| r.load(Relaxed));
        let steps = feed_tracker(tracker, seen, runs, last_decay.elapsed());
        if steps > 0 {
            *last_decay += DECAY_PERIOD * steps;
            if steps == 64 {
                *last_decay = Instant::now();
            }
        }
        self.counts
            .preferred
            .store(tracker.preferred().unwrap_or(NONE), Relaxed);
        self.counts.changes.store(tracker.changes(), Relaxed);
    }

    /// The group's counters.
    pub(crate) fn stats(&self) -> GroupStats {
        self.counts.stats()
    }
}

/// Whether the `tick`-th run (counting from 1) of an `Auto` group's jobs
/// feeds its tracker: every [`EPOCH`]-th.
#[inline]
pub(crate) fn feeds_at(tick: u64) -> bool {
    tick % EPOCH == 0
}

/// One feed of an `Auto` group's tracker: halves its counts once per whole
/// [`DECAY_PERIOD`] in `elapsed` (at most 64 times), then records the runs
/// per LLC since the last feed (`runs` are running totals, `seen` the
/// totals at the last feed, updated here). Returns the number of decay
/// periods applied (the caller advances its decay clock by as many).
pub(crate) fn feed_tracker(
    tracker: &mut AffinityTracker,
    seen: &mut [u64],
    runs: impl Iterator<Item = u64>,
    elapsed: std::time::Duration,
) -> u32 {
    let steps = (elapsed.as_nanos() / DECAY_PERIOD.as_nanos()).min(64) as u32;
    tracker.decay(steps);
    let deltas: Vec<u64> = runs
        .zip(seen.iter_mut())
        .map(|(now, s)| {
            let d = now - *s;
            *s = now;
            d
        })
        .collect();
    tracker.record_all(&deltas);
    steps
}

/// A pointer to a group's state that jobs and workers carry (no reference
/// count on the hot path). Null means "no group".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GroupRef(*const GroupState);

// SAFETY: `GroupState` is Sync, and a `GroupRef` is only dereferenced while
// a holder of the state is alive (module invariants), whichever thread
// reads it.
unsafe impl Send for GroupRef {}
// SAFETY: as above.
unsafe impl Sync for GroupRef {}

impl GroupRef {
    /// No group.
    pub(crate) const NONE: GroupRef = GroupRef(std::ptr::null());

    /// The pointer to a group's state.
    pub(crate) fn of(g: &Arc<GroupState>) -> GroupRef {
        GroupRef(Arc::as_ptr(g))
    }

    /// Whether this is no group.
    #[inline]
    pub(crate) fn is_none(self) -> bool {
        self.0.is_null()
    }

    /// The state, if any.
    #[inline]
    pub(crate) fn get(&self) -> Option<&GroupState> {
        // SAFETY: non-null pointers come from `of` on a live state, and
        // are read only while a holder keeps it alive (module invariants).
        unsafe { self.0.as_ref() }
    }

    /// A strong reference to the state, if any: what a job that may
    /// outlive the current holder keeps (module invariants).
    pub(crate) fn hold(self) -> Option<Arc<GroupState>> {
        if self.0.is_null() {
            return None;
        }
        // SAFETY: the pointer comes from `Arc::as_ptr` in `of`, and the
        // caller reads it while a holder keeps the state alive (module
        // invariants), so the strong count is at least one: taking one
        // more and making an `Arc` of it is `Arc::clone` on that holder.
        unsafe {
            Arc::increment_strong_count(self.0);
            Some(Arc::from_raw(self.0))
        }
    }
}

impl fmt::Debug for GroupState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GroupState")
            .field("id", &self.id())
            .field("options", &self.options())
            .finish_non_exhaustive()
    }
}
