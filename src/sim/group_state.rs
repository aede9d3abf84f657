//! The simulated pool's job groups: per group the runtime's plan and its
//! learning state (runs per LLC, the `AffinityTracker`) on simulated time,
//! fed as the pool's `GroupState::record` feeds them.
//!
//! Invariants: `runs` has one entry per LLC of the layout; only an `Auto`
//! group's tracker is fed, at the runs `feeds_at` names, its decay counted
//! from simulated time (`last_decay_ns`), so the same run gives the same
//! preferences.

use crate::groups::{Affinity, AffinityTracker, DECAY_PERIOD, GroupPlan};
use crate::layout::Layout;
use crate::runtime::group_state::{feed_tracker, feeds_at};

use super::counts::Counts;
use super::workload::Workload;

/// Per group: its plan and the runtime's learning state, on simulated time.
pub(super) struct SimGroup {
    pub(super) plan: GroupPlan,
    runs: Vec<u64>,
    ticks: u64,
    tracker: AffinityTracker,
    seen: Vec<u64>,
    last_decay_ns: u64,
    pub(super) preferred: Option<usize>,
}

/// The state of each job group the workload names: its plan on this
/// machine and its per-LLC run counts and affinity tracker, all empty.
pub(super) fn new_groups(layout: &Layout, workload: &dyn Workload) -> Vec<SimGroup> {
    workload
        .groups()
        .into_iter()
        .map(|o| {
            let nllc = layout.llc_ranges().len();
            let plan = GroupPlan::new(layout, o).expect("the workload's group fits the machine");
            SimGroup {
                preferred: plan.fixed_llc(),
                plan,
                runs: vec![0; nllc],
                ticks: 0,
                tracker: AffinityTracker::new(nllc),
                seen: vec![0; nllc],
                last_decay_ns: 0,
            }
        })
        .collect()
}

impl SimGroup {
    /// A run of group `g`'s job on worker `w` of LLC `llc` at simulated
    /// time `now` (`GroupState::record`): counted in its LLC and in
    /// `counts`; an `Auto` group's tracker fed when `feeds_at` says so.
    pub(super) fn record_run(
        &mut self,
        g: u32,
        (w, llc): (usize, usize),
        now: u64,
        counts: &mut Counts,
    ) {
        self.runs[llc] += 1;
        counts.group_runs.push((g, w as u32));
        if self.plan.options().affinity != Affinity::Auto {
            return;
        }
        self.ticks += 1;
        if feeds_at(self.ticks) {
            let elapsed = std::time::Duration::from_nanos(now - self.last_decay_ns);
            let steps = feed_tracker(
                &mut self.tracker,
                &mut self.seen,
                self.runs.iter().copied(),
                elapsed,
            );
            self.last_decay_ns += DECAY_PERIOD.as_nanos() as u64 * steps as u64;
            if steps == 64 {
                self.last_decay_ns = now;
            }
            let before = self.preferred;
            self.preferred = self.tracker.preferred();
            counts
                .group_feeds
                .push((g, self.tracker.counts(), before, self.preferred));
        }
    }
}
