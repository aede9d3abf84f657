//! The job-group side of the registry: the cluster switch, group
//! registration, load estimates, and pushing group jobs where their plan
//! says (with the wakeups the sleep protocol requires: see `sleep`,
//! "Queues of one LLC").

use std::sync::Arc;

use crate::groups::Destination;
use crate::runtime::group::{GroupRef, GroupState};
use crate::runtime::idle::IdleMasks;
use crate::runtime::sleep::Sleep;
use crate::runtime::idle::Distance;
use crate::runtime::job::JobRef;
use crate::runtime::worker::WorkerThread;

use super::Registry;

impl Registry {
    /// Whether the cluster level is used (the live switch).
    #[inline]
    pub(crate) fn cluster_aware(&self) -> bool {
        self.cluster_aware
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Switches cluster awareness: steal tiers (read by each worker at its
    /// next pass), the wake order and spread dealing. Queues are not
    /// touched: every worker keeps looking at every queue, so no job is
    /// lost or run twice.
    pub(crate) fn set_cluster_aware(&self, on: bool) {
        self.cluster_aware
            .store(on, std::sync::atomic::Ordering::Relaxed);
        self.sleep.idle().set_cluster_aware(on);
    }

    /// Registers a new group.
    pub(crate) fn new_group(&self, plan: crate::groups::GroupPlan) -> Arc<GroupState> {
        let mut g = self.groups.lock();
        let st = Arc::new(GroupState::new(g.len(), plan, &self.layout));
        g.push(Arc::clone(&st));
        st
    }

    /// Busy workers and workers per LLC ([`busy_per_llc`]).
    fn busy_per_llc(&self) -> (Vec<usize>, Vec<usize>) {
        busy_per_llc(self.sleep.idle())
    }

    /// Whether a worker of another LLC may take a job from LLC `l`'s pack
    /// queue ([`crate::groups::may_help`]): `helper` is that worker (whether
    /// it has nothing else to do is its idle bit, set during the re-check
    /// before it parks); `None` asks whether an idle helper would be
    /// allowed (a pusher deciding to wake one). Asked per pack push into a
    /// busy LLC and per search pass that sees another LLC's pack queue
    /// non-empty, so it reads the idle masks in place instead of collecting
    /// [`Registry::busy_per_llc`].
    pub(crate) fn may_help(&self, l: usize, helper: Option<usize>) -> bool {
        may_help_in(self.sleep.idle(), l, helper)
    }

    /// Pushes a job of group `g`, from the current thread (`from`: the
    /// current worker if it belongs to this pool), where the group's plan
    /// says ([`crate::groups::GroupPlan::destination`]), and wakes a worker
    /// for it.
    pub(crate) fn push_group(&self, g: &GroupState, job: JobRef, from: Option<&WorkerThread>) {
        let wake = |woken: Option<(usize, Distance)>| {
            if let Some((_, d)) = woken {
                match from {
                    Some(wt) => self.counters[wt.index()].wakeup(d),
                    None => self.external.wakeup(d),
                }
            }
        };
        let dest = g.plan.destination(
            g.preferred(),
            &|| self.busy_per_llc(),
            from.map(|wt| wt.index()),
            self.cluster_aware(),
        );
        if from.is_none() && dest != Destination::Ordinary {
            self.external.injected();
        }
        match dest {
            Destination::Ordinary => self.push_from(job, from),
            Destination::Pack { llc, .. } => self.group_llc[llc].push(job),
            Destination::Cluster { cluster, .. } => {
                self.mark_spread_used();
                self.group_cluster[cluster].push(job);
            }
            Destination::Llc { llc } => self.injectors[llc].push(job),
        }
        wake(wake_for(&self.sleep, dest, from.map(|wt| wt.llc())));
    }

    /// The wakeup after a push into LLC `llc`'s pack queue (a group job, or
    /// a piece of a parallel iterator aimed at `llc`): a worker of `llc`,
    /// the cluster of `wake_from` first, else a helper if the help rule
    /// would let one take the job. See `sleep`, "Queues of one LLC".
    pub(crate) fn notify_pack(
        &self,
        llc: usize,
        wake_from: Option<usize>,
        from: Option<&WorkerThread>,
    ) -> Option<(usize, Distance)> {
        notify_pack(&self.sleep, llc, wake_from, from.map(|wt| wt.llc()))
    }

    /// As [`Registry::in_worker`], with `op` running as a job of group `g`:
    /// inline (in the group) on a worker of this pool, else pushed where the
    /// group's placement says.
    pub(crate) fn in_worker_group<OP, R>(self: &Arc<Self>, g: GroupRef, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        let wt = WorkerThread::current();
        // SAFETY: see `Registry::current_worker`.
        match unsafe { wt.as_ref() } {
            Some(wt) if wt.registry().id() == self.id() => wt.in_group(g, || op(wt, false)),
            Some(wt) => self.in_worker_cross(wt, g, op),
            None => self.in_worker_cold(g, op),
        }
    }

    /// Pushes a job from a thread that is not a worker of this pool:
    /// into an injector, or as a group job.
    pub(super) fn push_from_outside(&self, g: GroupRef, job: JobRef) {
        match g.get() {
            Some(st) => self.push_group(st, job, None),
            None => self.inject(job),
        }
    }
}

/// Busy workers of LLC `l` (size minus idle), a cheap estimate.
pub(crate) fn busy_in(idle: &IdleMasks, l: usize) -> usize {
    idle.llc_len(l).saturating_sub(idle.idle_count(l))
}

/// Busy workers and workers per LLC ([`busy_in`]).
pub(crate) fn busy_per_llc(idle: &IdleMasks) -> (Vec<usize>, Vec<usize>) {
    let n = idle.num_llcs();
    (
        (0..n).map(|l| busy_in(idle, l)).collect(),
        (0..n).map(|l| idle.llc_len(l)).collect(),
    )
}

/// The help rule ([`crate::groups::may_help`]) read from the idle masks:
/// may `helper` (or, for `None`, an idle helper) of another LLC take a job
/// from LLC `l`'s pack queue?
pub(crate) fn may_help_in(idle: &IdleMasks, l: usize, helper: Option<usize>) -> bool {
    crate::groups::may_help_by(
        idle.num_llcs(),
        |l| busy_in(idle, l),
        idle.llc_len(l),
        l,
        || helper.is_none_or(|w| idle.is_idle(w)),
    )
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

/// The wakeup after a group job was pushed where `dest` says (by a thread
/// whose LLC is `from_llc`, `None` from outside the pool); `Ordinary`
/// wakes nothing here (its push path notifies).
pub(crate) fn wake_for(sleep: &Sleep, dest: Destination, from_llc: Option<usize>) -> Option<(usize, Distance)> {
    match dest {
        Destination::Ordinary => None,
        Destination::Pack { llc, wake_from } => notify_pack(sleep, llc, wake_from, from_llc),
        Destination::Cluster { llc, wake_from, .. } => sleep.notify_in(Some(wake_from), llc, false, true),
        Destination::Llc { llc } => sleep.notify_in(None, llc, false, true),
    }
}
