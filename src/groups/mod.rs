//! Job groups: jobs that share data run together in one LLC ([`Placement::Pack`]),
//! jobs that need bandwidth are dealt over clusters ([`Placement::Spread`]).
//!
//! A [`JobGroup`](crate::JobGroup) comes from
//! [`ThreadPool::group`](crate::ThreadPool::group). Its jobs (`spawn`,
//! `scope`, `join`, `install`) carry the group; jobs created inside a group
//! job (scope spawns, join halves) belong to the same group.
//!
//! This module holds what a user asks for and gets back ([`GroupOptions`],
//! [`Affinity`], [`Placement`], [`GroupError`], [`GroupStats`]); the
//! policy itself is crate-private pure code (`policy`: the learned LLC
//! preference, the overload and help rules, the capacity-weighted spread
//! dealer; `plan`: where each job of a group goes), unit-tested without
//! threads; the runtime applies them:
//! - **Pack** with an LLC `L` (given, or learned with [`Affinity::Auto`]):
//!   a job pushed by a worker of `L` goes on that worker's own deque, as an
//!   ordinary spawn (it runs next where its parent's data is, unless
//!   stolen); any other job goes to `L`'s group queue and wakes an idle
//!   worker of `L` (the `Near` worker's cluster first, big cores first).
//!   An `Auto` group does not pack into `L` while `L` is saturated (none
//!   of its workers idle): its jobs are then placed as ordinary ones.
//!   Workers of `L` take from that queue right after their own
//!   deque; workers of other LLCs only after every nearer source came up
//!   empty, and only as `may_help` allows: while `L` is `overloaded`,
//!   or when `L` is saturated (none of its workers idle) and the helper has
//!   found nothing else to do. A push into a saturated `L` also wakes an
//!   idle worker elsewhere. So a packed group uses the whole pool when its
//!   jobs wait for each other (a barrier across more jobs than `L` has
//!   workers finishes), and stays in `L` while `L` keeps up.
//! - **Spread**: each job is dealt to the next cluster (LLC when cluster
//!   awareness is off) by a `SpreadDealer` weighted by capacity, goes to
//!   that cluster's queue and wakes an idle worker there (big first); any
//!   idle worker may take it when that cluster's workers are busy.
//! - Every run of a group job is counted in its LLC ([`GroupStats`]); for
//!   `Auto` the counts feed the group's tracker every 8 runs, and the
//!   tracker's counts are halved once per elapsed decay period (10 ms) at that
//!   moment. Decay is applied when the tracker is fed, so a group that
//!   stops running keeps its last preference until it runs again (its
//!   first jobs then go to its old LLC, and the elapsed decay is applied at
//!   its next feed).
//!
//! Limits: `join` halves, and a packed group's spawns and scope spawns
//! from a worker of its LLC, stay on the creating worker's deque (as in
//! any work-stealing pool, they are what idle workers steal), so they can
//! be stolen by other LLCs' idle workers through their far steal tiers,
//! past the help rule; other spawns go through the group's queues
//! (docs/pipeline-packing.md).
//!
//! A group's state lives while its handles or its queued and running jobs
//! do; then it is freed and its counters are added to the pool's
//! [`RetiredGroups`] (see `runtime::group_state` for who holds it).

mod options;
mod plan;
// `pub(crate)`, not private: `__loom` re-exports `policy::overloaded`.
pub(crate) mod policy;
#[cfg(test)]
mod tests;

pub use options::{Affinity, GroupError, GroupOptions, GroupStats, Placement, RetiredGroups};
pub(crate) use plan::{Destination, GroupPlan};
pub(crate) use policy::{AffinityTracker, may_help_by};

/// How often an `Auto` group's counts are halved.
pub(crate) const DECAY_PERIOD: std::time::Duration = std::time::Duration::from_millis(10);
