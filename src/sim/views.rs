//! The simulated pool as the runtime's queue operations see it: a
//! worker's own queues (`SimOwner`, the runtime's `owner::Owner`) and the
//! pool's shared queues as a push sees them (`SimShared`, the registry's
//! `SharedQueues`), so that `owner::push`, `inject_to`, `push_to` and
//! `push_aimed_to` run here as in the pool. Each hook charges its cost to
//! the current event (`Sim::acc`) and keeps its count.
//!
//! Invariants: a view borrows the whole simulation for one operation and
//! is dropped before the event ends; the simulation is single-threaded,
//! so no owner operation runs concurrently with a claim of the same
//! worker's private stack (the `SAFETY` argument of `SimOwner`).

use crossbeam_deque::{Injector, Worker};

use crate::layout::Layout;
use crate::runtime::idle::Distance;
use crate::runtime::owner::Owner;
use crate::runtime::private::PrivateStack;
use crate::runtime::registry::shared::SharedQueues;
use crate::runtime::sleep::Sleep;

use super::engine::Sim;
use super::job::JobId;

impl<'a> Sim<'a> {
    /// The simulated pool as a push from worker `from` (none: from
    /// outside) sees its shared queues.
    pub(super) fn shared(&mut self, from: Option<usize>) -> SimShared<'_, 'a> {
        SimShared { sim: self, from }
    }

    /// Worker `w` as the runtime's operations on its own queues see it.
    pub(super) fn owner(&mut self, w: usize) -> SimOwner<'_, 'a> {
        SimOwner { sim: self, w }
    }
}

/// Worker `w` of `sim` as the runtime's operations on a worker's own
/// queues (`runtime::owner`) see it: its deque, private stack and marks,
/// with their costs charged to the event and their counts kept.
pub(super) struct SimOwner<'s, 'a> {
    sim: &'s mut Sim<'a>,
    w: usize,
}

// SAFETY: the simulation is single-threaded: worker `w`'s owner operations
// run only on the simulator's thread, never concurrently with a claim of
// its private stack, which is its own (`Sim::private[w]`).
unsafe impl Owner for SimOwner<'_, '_> {
    type Job = JobId;

    fn deque(&self) -> &Worker<JobId> {
        &self.sim.workers[self.w].deque
    }

    fn private(&self) -> &PrivateStack<JobId> {
        &self.sim.private[self.w]
    }

    fn sleep(&self) -> &Sleep {
        &self.sim.sleep
    }

    fn idle_word(&self) -> &crate::sync::AtomicU64 {
        self.sim.sleep.idle().root_word()
    }

    fn marks(&self) -> u8 {
        self.sim.marks[self.w]
    }

    fn set_marks(&mut self, marks: u8) {
        self.sim.marks[self.w] = marks;
    }

    /// `ThreadInfo::starting`, read by the passes' `shows_private`.
    fn publish_starting(&mut self, on: bool) {
        self.sim.starting[self.w] = on;
    }

    /// `LlcHints::crossing`.
    fn count_crossing(&mut self, up: bool) {
        let c = &mut self.sim.crossing[self.sim.workers[self.w].llc];
        if up {
            *c += 1;
        } else {
            *c -= 1;
        }
    }

    /// `Sleep::notify` (rayon-like pushes never come here: `rayon_like`).
    fn notify(&mut self) {
        let llc = self.sim.workers[self.w].llc;
        self.sim.notify(Some(self.w), llc);
    }

    /// `Sleep::notify_queued`, with the own deque's length.
    fn notify_promoted(&mut self) {
        let (w, llc) = (self.w, self.sim.workers[self.w].llc);
        self.sim.acc += self.sim.cost.fence_ns;
        let hit = self.sim.counting(|s| {
            let queued = || s.workers[w].deque.len();
            s.sleep.notify_queued(w, llc, queued)
        });
        self.sim.woke(hit);
    }

    fn llc(&self) -> usize {
        self.sim.workers[self.w].llc
    }

    /// Its pack queue and `placed` (not charged, as the deal's loads of
    /// its regions and counts are not).
    fn llc_free(&self, m: usize) -> bool {
        self.sim.group_llc[m].is_empty() && self.sim.placed[m] == 0
    }

    /// Charged as a steal.
    fn steal_oldest(&mut self) -> Option<JobId> {
        self.sim.acc += self.sim.cost.steal_ns;
        self.sim.stealers[self.w].steal().success()
    }

    /// One copy in the queue; the owner's hold is `dealt` (`Dealt`).
    fn hold_dealt(&mut self, job: JobId) -> JobId {
        self.sim.jobs[job as usize].copies = 1;
        self.sim.dealt[self.w].push(job);
        job
    }

    /// Counted in `deals`; the push and its wakeup charged as a group
    /// push's (`SimShared`).
    fn deal_to(&mut self, llc: usize, job: JobId) {
        self.sim.counts.deals += 1;
        let q = &mut self.sim.shared(Some(self.w));
        crate::runtime::registry::group_routing::push_dealt(q, llc, job);
    }

    /// `Holds::take_back`: the claim's swap charged as a steal's CAS.
    fn take_dealt(&mut self, b: JobId) -> bool {
        let holds = &mut self.sim.dealt[self.w];
        if holds.last() != Some(&b) {
            return false;
        }
        holds.pop();
        let b = b as usize;
        self.sim.acc += self.sim.cost.steal_ns;
        let won = !self.sim.jobs[b].taken;
        self.sim.jobs[b].taken = true;
        if won {
            self.sim.counts.dealt_taken_back += 1;
        }
        won
    }

    fn own_group_queues(&self) -> [&Injector<JobId>; 2] {
        let sw = &self.sim.workers[self.w];
        [
            &self.sim.group_llc[sw.llc],
            &self.sim.group_cluster[sw.cluster],
        ]
    }

    /// The own LLC's injector and the worker's turn flag.
    fn injector_turn(&self) -> Option<(&Injector<JobId>, &std::cell::Cell<bool>)> {
        let sw = &self.sim.workers[self.w];
        Some((&self.sim.injectors[sw.llc], &sw.injector_turn))
    }

    fn pushed(&mut self) {
        self.sim.acc += self.sim.cost.push_ns;
    }

    fn promoted(&mut self) {
        self.sim.counts.promotions += 1;
    }

    fn popped(&mut self, _: bool) {
        self.sim.acc += self.sim.cost.pop_ns;
    }

    fn pulled(&mut self) {
        self.sim.counts.injector_pulls += 1;
    }

    fn private_op(&mut self) {
        self.sim.acc += self.sim.cost.private_ns;
    }
}

/// The simulated pool as a push from `from` into its shared queues sees
/// it (`registry::shared::SharedQueues`): the pushes charge their costs in
/// the hooks.
pub(super) struct SimShared<'s, 'a> {
    sim: &'s mut Sim<'a>,
    from: Option<usize>,
}

impl SharedQueues for SimShared<'_, '_> {
    type Job = JobId;

    fn sleep(&self) -> &Sleep {
        &self.sim.sleep
    }

    fn layout(&self) -> &Layout {
        &self.sim.layout
    }

    fn pack(&self, llc: usize) -> &Injector<JobId> {
        &self.sim.group_llc[llc]
    }

    fn spread(&self, cluster: usize) -> &Injector<JobId> {
        &self.sim.group_cluster[cluster]
    }

    fn injector(&self, llc: usize) -> &Injector<JobId> {
        &self.sim.injectors[llc]
    }

    fn pusher(&self) -> Option<usize> {
        self.from
    }

    fn pusher_llc(&self) -> Option<usize> {
        self.from.map(|w| self.sim.workers[w].llc)
    }

    fn next_round_robin(&mut self) -> usize {
        self.sim.round_robin += 1;
        self.sim.round_robin - 1
    }

    fn push_ordinary(&mut self, job: JobId) {
        self.sim.push_from(job, self.from);
    }

    fn mark_spread_used(&mut self) {
        self.sim.spread_used = true;
    }

    /// The push and the wakeup's fence.
    fn routed(&mut self) {
        self.sim.acc += self.sim.cost.push_ns + self.sim.cost.fence_ns;
    }

    /// The notify's fence (the push is the injecting thread's, outside the
    /// pool).
    fn injected(&mut self) {
        self.sim.acc += self.sim.cost.fence_ns;
    }

    /// The job's count of copies; the copy is the job itself.
    fn two_copies(&mut self, job: JobId) -> JobId {
        self.sim.jobs[job as usize].copies = 2;
        job
    }

    /// The second push.
    fn queue_targeted(&mut self, w: usize, job: JobId) {
        self.sim.targeted[w].push_back(job);
        self.sim.acc += self.sim.cost.push_ns;
    }

    /// Charged with the push (`routed`).
    fn fence(&mut self) {}

    fn idle_op<R>(&mut self, op: impl FnOnce(&Sleep) -> R) -> R {
        self.sim.counting(|s| op(&s.sleep))
    }

    fn woke(&mut self, hit: (usize, Distance)) {
        self.sim.woke(Some(hit));
    }
}
