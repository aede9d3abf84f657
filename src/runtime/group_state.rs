//! The run-time state of a job group: where its jobs ran, its learned
//! preference, its spread dealers. The policy itself is in
//! [`crate::groups`] (pure code); this module only feeds it and stores its
//! answers where pushes can read them cheaply.
//!
//! Invariants:
//! - a `GroupState` is owned by its registry's group list for the pool's
//!   whole life, so raw pointers to it (in jobs, in a worker's current
//!   group) are valid while any worker runs;
//! - `preferred` is `NONE` or a dense LLC id below the number of LLCs.

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crossbeam_utils::CachePadded;

use crate::groups::{Affinity, AffinityTracker, DECAY_PERIOD, GroupOptions, GroupPlan, GroupStats};
use crate::layout::Layout;

const NONE: usize = usize::MAX;
/// An `Auto` group feeds its tracker once per this many job runs.
const EPOCH: u64 = 8;

struct Learn {
    tracker: AffinityTracker,
    seen: Vec<u64>,
    last_decay: Instant,
}

/// One group's shared state.
pub(crate) struct GroupState {
    pub(crate) id: usize,
    /// Runs per LLC (for stats and learning).
    runs: Box<[CachePadded<AtomicU64>]>,
    ticks: AtomicU64,
    learn: Mutex<Learn>,
    preferred: AtomicUsize,
    changes: AtomicU64,
    /// Where its jobs go.
    pub(crate) plan: GroupPlan,
}

impl GroupState {
    /// State for a group with this plan on `layout`.
    pub(crate) fn new(id: usize, plan: GroupPlan, layout: &Layout) -> GroupState {
        let nllc = layout.llc_ranges().len();
        GroupState {
            id,
            runs: (0..nllc)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            ticks: AtomicU64::new(0),
            learn: Mutex::new(Learn {
                tracker: AffinityTracker::new(nllc),
                seen: vec![0; nllc],
                last_decay: Instant::now(),
            }),
            preferred: AtomicUsize::new(plan.fixed_llc().unwrap_or(NONE)),
            changes: AtomicU64::new(0),
            plan,
        }
    }

    /// The group's options (those of its plan).
    pub(crate) fn options(&self) -> GroupOptions {
        self.plan.options()
    }

    /// The fixed or learned LLC (`None` for `Numa`, which picks per push).
    pub(crate) fn preferred(&self) -> Option<usize> {
        let p = self.preferred.load(Relaxed);
        (p != NONE).then_some(p)
    }

    /// Counts a run of one of its jobs in `llc`; for `Auto`, feeds the
    /// tracker every [`EPOCH`] runs.
    pub(crate) fn record(&self, llc: usize) {
        if let Some(r) = self.runs.get(llc) {
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
        let runs = self.runs.iter().map(|r| r.load(Relaxed));
        let steps = feed_tracker(tracker, seen, runs, last_decay.elapsed());
        if steps > 0 {
            *last_decay += DECAY_PERIOD * steps;
            if steps == 64 {
                *last_decay = Instant::now();
            }
        }
        self.preferred
            .store(tracker.preferred().unwrap_or(NONE), Relaxed);
        self.changes.store(tracker.changes(), Relaxed);
    }

    /// The group's counters.
    pub(crate) fn stats(&self) -> GroupStats {
        GroupStats {
            id: self.id,
            options: self.options(),
            jobs_per_llc: self.runs.iter().map(|r| r.load(Relaxed)).collect(),
            preferred_llc: self.preferred(),
            preference_changes: self.changes.load(Relaxed),
        }
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

// SAFETY: `GroupState` is Sync, and the registry keeps every group state
// alive for the pool's whole life (module invariants), longer than any job
// or worker holding the pointer.
unsafe impl Send for GroupRef {}
// SAFETY: as above.
unsafe impl Sync for GroupRef {}

impl GroupRef {
    /// No group.
    pub(crate) const NONE: GroupRef = GroupRef(std::ptr::null());

    /// The pointer to a registered group's state.
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
        // SAFETY: non-null pointers come from `of` on a registered group,
        // alive as long as the pool (module invariants); callers use them
        // only on that pool's threads or while holding the pool.
        unsafe { self.0.as_ref() }
    }
}

impl fmt::Debug for GroupState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GroupState")
            .field("id", &self.id)
            .field("options", &self.options())
            .finish_non_exhaustive()
    }
}
