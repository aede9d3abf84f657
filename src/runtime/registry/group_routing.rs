//! Group routing: where a group job goes and whom its push wakes.
//! Group registration, the load estimates the plan and the help rule
//! read, [`Registry::push_group`] (the group branch of the push path in
//! `push`), and the wakeups the sleep protocol requires for the group
//! queues (see `sleep`, "Queues of one LLC"). The decisions themselves
//! are pure code in [`crate::groups`]; this file only feeds them the
//! pool's state and applies their answers.

use std::sync::Arc;

use crate::groups::Destination;
use crate::runtime::group_state::GroupState;
use crate::runtime::idle::Distance;
use crate::runtime::idle::IdleMasks;
use crate::runtime::job::JobRef;
use crate::runtime::sleep::Sleep;
use crate::runtime::worker::WorkerThread;
use crate::sync::Ordering;

use super::Registry;
use super::shared::SharedQueues;

impl Registry {
    /// A new group, listed in the pool's stats until it is freed.
    pub(crate) fn new_group(&self, plan: crate::groups::GroupPlan) -> Arc<GroupState> {
        self.groups.create(plan, &self.layout)
    }

    /// Pushes a job of group `g`, from the current thread (`from`: the
    /// current worker if it belongs to this pool), where the group's plan
    /// says ([`crate::groups::GroupPlan::destination`]), and wakes a worker
    /// for it ([`push_to`]).
    pub(crate) fn push_group(&self, g: &GroupState, job: JobRef, from: Option<&WorkerThread>) {
        let dest = g.plan.destination(
            g.preferred(),
            &|l| load_of(self.sleep.idle(), l),
            from.map(|wt| wt.index()),
            self.cluster_aware(),
        );
        push_to(&mut (self, from), dest, job);
    }

    /// Whether a spread group job was ever pushed (see `spread_used`).
    #[inline]
    pub(crate) fn spread_used(&self) -> bool {
        self.spread_used.load(Ordering::SeqCst)
    }

    /// Records that spread queues are in use (before the push).
    ///
    /// What the sleep proof needs: a sleeper whose re-check fence follows
    /// the pusher's `notify_in` fence in the SeqCst order `S` reads the flag
    /// as `true` (else its pass would skip the other clusters' queues and
    /// miss the job). The flag only ever goes from `false` to `true`, and
    /// every store of it is `true`.
    /// - The first load reads `false`: the pusher's own SeqCst store comes
    ///   before its fence, and the fence-fence rule makes it (or a later
    ///   store, also `true`) visible to every load after a later fence.
    /// - The Relaxed load reads `true`, stored by another thread `T`: the
    ///   pusher stores nothing, and no release/acquire pair orders `T`'s
    ///   store before the sleeper's load. The C++20 SeqCst rule does
    ///   ([atomics.order] p4.4, which Rust's model follows): if the
    ///   sleeper's load read the initial `false`, it would be
    ///   coherence-ordered before `T`'s store (it read a value earlier in
    ///   the modification order), hence before the pusher's Relaxed load,
    ///   which read that store; with a SeqCst fence sequenced before the
    ///   sleeper's load and one sequenced after the pusher's load, p4.4 then
    ///   puts the sleeper's fence before the pusher's in `S`, against the
    ///   assumption. So the sleeper reads `true`.
    ///
    /// So the Relaxed fast path (one plain load per spread push once the
    /// flag is set, no RMW, no cache line written) is as good as a SeqCst
    /// store in every push.
    pub(crate) fn mark_spread_used(&self) {
        if !self.spread_used.load(Ordering::Relaxed) {
            self.spread_used.store(true, Ordering::SeqCst);
        }
    }
}

/// Busy workers of LLC `l` (size minus idle), a cheap estimate.
pub(crate) fn busy_in(idle: &IdleMasks, l: usize) -> usize {
    idle.llc_len(l).saturating_sub(idle.idle_count(l))
}

/// Busy workers ([`busy_in`]) and workers of LLC `l`: what the group
/// plan reads per LLC (`GroupPlan::destination`).
pub(crate) fn load_of(idle: &IdleMasks, l: usize) -> (usize, usize) {
    (busy_in(idle, l), idle.llc_len(l))
}

/// The help rule ([`crate::groups::may_help_by`]) read from the idle masks:
/// may `helper` (or, for `None`, an idle helper) of another LLC take a job
/// from LLC `l`'s pack queue?
pub fn may_help_in(idle: &IdleMasks, l: usize, helper: Option<usize>) -> bool {
    crate::groups::may_help_by(
        idle.num_llcs(),
        |l| busy_in(idle, l),
        idle.llc_len(l),
        l,
        || helper.is_none_or(|w| idle.is_idle(w)),
    )
}

/// Whether worker `helper` of another LLC takes a job from LLC `l`'s pack
/// queue in a pass: no worker of `l` searches (one load, asked first), and
/// the help rule allows ([`may_help_in`]: whether the helper has nothing
/// else to do is its idle bit, set during the re-check before it parks;
/// read from the idle masks in place, since every pass that sees another
/// LLC's pack queue non-empty asks). When this says no, the pass forwards
/// a wakeup to `l` (`PassQueues::forward`), as when the help rule refuses.
///
/// Why the searchers: the help rule counts a searching worker as busy
/// (only an armed one, idle bit set, as free), so between two
/// parallel-iterator calls issued back to back, while `l`'s workers still
/// spin from the first, a worker of another LLC in its re-check before
/// parking took the next call's piece aimed at `l`. A searcher of `l`
/// looks at `l`'s pack queue early in each pass (step 2 of `pass`). In the
/// simulator (`iter:4194304:3`, `package:2 llc:12 core:8`, 192 workers)
/// the third run kept 62.4% of its pieces' work in their LLC (worst piece
/// 0.4%) before, 78.8% (40.6%) after; with replay (`iter-replay:4194304:4`)
/// the worst piece of runs 2 to 4 went from 0% to 6 to 25%.
///
/// Why no wakeup is lost: see rule 1 of "Queues of one LLC" in `sleep`;
/// the loom models of `loom-tests/tests/groups.rs` run it (and deadlock if
/// a helper always leaves the job while the help rule allows).
///
/// A pusher deciding whether to wake a helper (`notify_pack`) keeps the
/// plain rule: at worst one extra wakeup.
pub(crate) fn helps(sleep: &Sleep, l: usize, helper: usize) -> bool {
    sleep.searching_in(l) == 0 && may_help_in(sleep.idle(), l, Some(helper))
}

/// The wakeup after a push into LLC `llc`'s pack queue by a thread whose
/// LLC is `from_llc` (`None`: not a worker of the pool): a worker of `llc`,
/// the cluster of `wake_from` first, else a helper if the help rule would
/// let one take the job. See `sleep`, "Queues of one LLC".
pub(crate) fn notify_pack(
    sleep: &Sleep,
    llc: usize,
    wake_from: Option<usize>,
    from_llc: Option<usize>,
) -> Option<(usize, Distance)> {
    // A worker of `llc` pushing will look at the queue itself: wake a
    // helper only if nobody searches (as for a deque push). Anyone else
    // must wake a worker of `llc`.
    let own = from_llc == Some(llc);
    sleep.notify_in(wake_from, llc, own, false).or_else(|| {
        // A helper from another LLC only if it may take the job: `llc`
        // overloaded, or saturated (no idle worker left to wake there).
        if may_help_in(sleep.idle(), llc, None) {
            sleep.notify(wake_from, llc)
        } else {
            None
        }
    })
}

/// Pushes `job` to `dest`, the group plan's answer, and makes the wakeup
/// the sleep protocol requires for that queue ([`wake_for`]).
#[inline]
pub(crate) fn push_to<Q: SharedQueues>(q: &mut Q, dest: Destination, job: Q::Job) {
    if dest != Destination::Ordinary {
        q.routed();
    }
    match dest {
        Destination::Ordinary => return q.push_ordinary(job),
        Destination::Pack { llc, .. } => q.pack(llc).push(job),
        Destination::Cluster { cluster, .. } => {
            q.mark_spread_used();
            q.spread(cluster).push(job);
        }
        Destination::Llc { llc } => q.injector(llc).push(job),
    }
    let from_llc = q.pusher_llc();
    if let Some(hit) = q.idle_op(|s| wake_for(s, dest, from_llc)) {
        q.woke(hit);
    }
}

/// Pushes a job dealt to LLC `llc` (`runtime::deal`, `Owner::deal_to`) to
/// its pack queue, with the pack queue's wakeup preferring no cluster of
/// `llc` (`wake_from: None`: the dealer is not in `llc`, so it has no
/// cluster there to prefer).
#[inline]
pub(crate) fn push_dealt<Q: SharedQueues>(q: &mut Q, llc: usize, job: Q::Job) {
    let dest = Destination::Pack {
        llc,
        wake_from: None,
    };
    push_to(q, dest, job);
}

/// The wakeup after a group job was pushed where `dest` says (by a thread
/// whose LLC is `from_llc`, `None` from outside the pool); `Ordinary`
/// wakes nothing here (its push path notifies).
pub(crate) fn wake_for(
    sleep: &Sleep,
    dest: Destination,
    from_llc: Option<usize>,
) -> Option<(usize, Distance)> {
    match dest {
        Destination::Ordinary => None,
        Destination::Pack { llc, wake_from } => notify_pack(sleep, llc, wake_from, from_llc),
        Destination::Cluster { llc, wake_from, .. } => {
            sleep.notify_in(Some(wake_from), llc, false, true)
        }
        Destination::Llc { llc } => sleep.notify_in(None, llc, false, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::idle::IdleShape;

    /// Two LLCs of two workers ({0, 1}, {2, 3}); 0 and 1 run (LLC 0 is
    /// saturated); 3 is idle, in its re-check (a helper); 2 searches.
    fn saturated_llc_0() -> Sleep {
        let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(4, 2, 0)), 4);
        sleep.start_searching(3);
        let _idle = sleep.prepare_sleep(3);
        sleep.start_searching(2);
        sleep
    }

    #[test]
    fn a_helper_takes_from_a_saturated_llc_nobody_there_searches() {
        let sleep = saturated_llc_0();
        assert!(may_help_in(sleep.idle(), 0, Some(3)));
        assert!(helps(&sleep, 0, 3));
    }

    #[test]
    fn a_helper_leaves_the_job_to_a_searcher_of_its_llc() {
        let sleep = saturated_llc_0();
        // Worker 1 ran out of work and searches: it takes LLC 0's job on
        // its next pass. The help rule alone (searchers count as busy)
        // would still let worker 3 take it.
        sleep.start_searching(1);
        assert!(may_help_in(sleep.idle(), 0, Some(3)));
        assert!(!helps(&sleep, 0, 3));
        sleep.stop_searching(1, 0);
        assert!(helps(&sleep, 0, 3));
    }
}
