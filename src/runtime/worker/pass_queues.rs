//! The worker's side of one search pass ([`pass::pass`]): the pass over
//! its registry's queues, in the order of `pass`'s module docs, and the
//! [`PassQueues`] mechanism over the crossbeam queues (steals counted by
//! distance, a stolen-from victim's `want` set, the victim remembered for
//! `Sources::more_behind`).
//!
//! Invariant: only the worker's own thread runs these (a `WorkerThread`
//! is not `Sync`); private halves are claimed only in the re-check before
//! parking (`find_private`, with this worker's idle bit set).

use std::sync::atomic::Ordering as StdOrdering;

use crate::runtime::idle::Distance;
use crate::runtime::job::JobRef;
use crate::runtime::owner;
use crate::runtime::pass;
use crate::runtime::pass::queues::{PassQueues, Queue};
use crate::runtime::private::{self, Claim};
use crate::runtime::registry::group_routing;
use crate::runtime::search::{Reach, Sources};

use super::{Found, WorkerThread};

/// One pass over the sources, as far as a reach goes.
impl WorkerThread {
    /// One pass over the sources except the own deque, as far as `reach`
    /// ([`pass::pass`], in the order of its module docs).
    pub(super) fn find_work(&self, reach: Reach) -> Found {
        let mode = usize::from(self.registry.cluster_aware());
        if let Some(cut) = pass::near_cut(reach, self.near_tiers[mode]) {
            return self.find_work_near(mode, cut);
        }
        // The full pass, with `near_cut` a constant `None`, so that this
        // path (the hot one: every steal in a one-LLC pool) compiles to the
        // plain pass.
        self.pass_with(mode, None)
    }

    /// A near pass (see "Near passes" in `pass`), out of line so that it
    /// does not weigh on the full pass's code.
    #[inline(never)]
    fn find_work_near(&self, mode: usize, cut: usize) -> Found {
        self.pass_with(mode, Some(cut))
    }

    /// [`pass::pass`] for this worker, in cluster mode `mode`.
    #[inline(always)]
    fn pass_with(&self, mode: usize, near_cut: Option<usize>) -> Found {
        let reg = &*self.registry;
        let at = pass::Place {
            index: self.index,
            llc: self.llc,
            cluster: self.cluster,
            clusters: reg.group_cluster.len(),
            tiers: &self.tiers[mode],
            llc_order: reg.layout.llc_order_runs(self.llc),
            near_cut,
            llc_cut: self.near_tiers[mode],
        };
        pass::pass(&mut &*self, at)
    }

    /// The queue `q` names.
    #[inline]
    fn queue(&self, q: Queue) -> &crossbeam_deque::Injector<JobRef> {
        let reg = &*self.registry;
        match q {
            Queue::Spread(c) => &reg.group_cluster[c],
            Queue::Pack(l) => &reg.group_llc[l],
            Queue::Injector(l) => &reg.injectors[l],
        }
    }
}

/// The worker's side of one search pass ([`pass::pass`]).
impl PassQueues for &WorkerThread {
    type Job = JobRef;

    #[inline]
    fn targeted(&mut self) -> Option<JobRef> {
        let job = self.registry.pop_targeted(self.index);
        if job.is_some() {
            self.stolen_from.set(usize::MAX);
        }
        job
    }

    /// Takes one job from an injector-like queue, with `batch` also a
    /// batch into the own deque (not when helping another cluster or LLC:
    /// the jobs were placed there on purpose).
    #[inline]
    fn pull(&mut self, q: Queue, batch: bool) -> Found {
        let q = self.queue(q);
        if q.is_empty() {
            return Found::Nothing;
        }
        let found = Found::from(if batch {
            q.steal_batch_and_pop(&self.deque)
        } else {
            q.steal()
        });
        if let Found::Job(_) = found {
            self.stolen_from.set(usize::MAX);
            self.counters().injector_pull();
        }
        found
    }

    #[inline]
    fn looks_empty(&mut self, q: Queue) -> bool {
        self.queue(q).is_empty()
    }

    #[inline]
    fn victim_len(&mut self, v: usize) -> usize {
        self.registry.threads[v].stealer.len()
    }

    #[inline]
    fn mostly_idle(&mut self) -> bool {
        // The root's load alone while nobody is idle (the busy pool's
        // passes, every steal's).
        let idle = self.registry.sleep.idle();
        idle.any_idle() && 2 * idle.armed_total() >= idle.num_workers()
    }

    #[inline]
    fn awake_bits(&mut self, from: usize, end: usize) -> (u64, usize) {
        self.registry.sleep.idle().awake_bits(from, end)
    }

    #[inline]
    fn victim_private(&mut self, v: usize) -> usize {
        self.registry.threads[v].private.private_count()
    }

    #[inline]
    fn victim_placed(&mut self, v: usize) -> bool {
        let reg = &self.registry;
        reg.llc_hints[reg.layout.workers()[v].llc]
            .placed
            .load(StdOrdering::Relaxed)
            > 0
    }

    #[inline]
    fn steal_from(&mut self, victim: usize, batch: Option<usize>) -> Found {
        let stealer = &self.registry.threads[victim].stealer;
        let found = Found::from(match batch {
            Some(limit) => stealer.steal_batch_with_limit_and_pop(&self.deque, limit),
            None => stealer.steal(),
        });
        if let Found::Job(_) = found {
            // The victim's deque shrank: its next `join` looks at it.
            self.registry.threads[victim].private.want();
            self.stolen_from.set(victim);
            // Counted by distance, not by tier, so that a `Flat` pool's
            // steals are comparable (`Layout::relation`).
            let kind = self.registry.layout.relation(self.index, victim);
            self.counters().steal(kind);
        }
        found
    }

    #[inline]
    fn random(&mut self) -> u64 {
        self.next_random()
    }

    #[inline]
    fn spread_used(&mut self) -> bool {
        self.registry.spread_used()
    }

    #[inline]
    fn asleep_deals(&mut self) -> usize {
        self.registry.sleep.deal().asleep()
    }

    fn llc_asleep(&mut self, llc: usize) -> bool {
        self.registry.sleep.idle().all_armed(llc)
    }

    fn unmark_asleep(&mut self, llc: usize) {
        self.registry.sleep.deal().unmark_asleep(llc);
    }

    fn note_receiver(&mut self) {
        self.registry
            .sleep
            .deal()
            .note_receiver(self.llc, self.index);
    }

    fn receiver(&mut self, llc: usize) -> Option<usize> {
        self.registry.sleep.deal().receiver(llc)
    }

    fn llc_awake(&mut self, llc: usize) -> usize {
        group_routing::busy_in(self.registry.sleep.idle(), llc)
    }

    #[inline]
    fn may_help(&mut self, llc: usize) -> bool {
        group_routing::helps(&self.registry.sleep, llc, self.index)
    }

    /// Wakes an idle worker of `llc` for its pack queue (the sleep protocol
    /// relies on this take or forward: see `sleep`, "Queues of one LLC").
    fn forward(&mut self, llc: usize) {
        if self.registry.sleep.wake_in(None, llc).is_some() {
            self.counters().wakeup(Distance::Remote);
        }
    }

    /// The last step of a pass that found nothing: in the re-check before
    /// parking only (this worker's idle bit is set), take the oldest
    /// private `join` half of another worker, nearest tier first. The
    /// costly path: a heavy fence (a `membarrier` system call) for the
    /// look, unless every other worker is idle too or the re-check is a
    /// lazy park's (`lazy_look`), and another for a claim. So it runs at
    /// most once per park attempt, after a full spin phase found nothing,
    /// and never in an idle pool (parked workers do not search). See
    /// "Private `join` halves" in `sleep` for why a parking worker misses
    /// no private half, lazily or not.
    fn find_private(&mut self) -> Found {
        let reg = &*self.registry;
        let idle = reg.sleep.idle();
        // Idle workers hold no private half ("Idle workers" in `pass::tiers`):
        // skipped a word of idle bits at a time.
        let victims = self.tiers[usize::from(reg.cluster_aware())]
            .iter()
            .flat_map(|t| t.ranges.iter().flat_map(|r| idle.awake_in(r.clone())))
            .map(|v| (v, &reg.threads[v].private));
        let fenced = !self.lazy_look.get();
        match private::rules::look_before_parking(idle, self.index, victims, fenced) {
            Claim::Taken((victim, job)) => {
                self.stolen_from.set(usize::MAX);
                let kind = reg.layout.relation(self.index, victim);
                self.counters().steal(kind);
                self.counters().claim();
                Found::Job(job)
            }
            Claim::Busy => Found::Retry,
            Claim::Empty => Found::Nothing,
        }
    }

    #[inline]
    fn shows_private(&mut self, v: usize) -> bool {
        let t = &self.registry.threads[v];
        t.private.has_private() || t.starting.load(StdOrdering::Relaxed)
    }

    #[inline]
    fn llc_searching(&mut self, v: usize) -> isize {
        let reg = &self.registry;
        reg.sleep.searching_in(reg.layout.workers()[v].llc)
    }

    fn llc_claims(&mut self, v: usize) -> (usize, usize) {
        let reg = &self.registry;
        let llc = reg.layout.workers()[v].llc;
        reg.sleep.idle().claims_in(llc)
    }

    fn awake_searchers(&mut self) -> isize {
        let sleep = &self.registry.sleep;
        pass::queues::awake_searchers(sleep.searching_in(self.llc), || {
            sleep.idle().claims_in(self.llc).0
        })
    }

    #[inline]
    fn loop_seen(&mut self) -> bool {
        self.registry.llc_hints[self.llc]
            .loop_seen
            .load(StdOrdering::Relaxed)
    }

    /// A store only when the mark changes: the LLC's far walks read it.
    #[inline]
    fn set_loop_seen(&mut self, on: bool) {
        let mark = &self.registry.llc_hints[self.llc].loop_seen;
        if mark.load(StdOrdering::Relaxed) != on {
            mark.store(on, StdOrdering::Relaxed);
        }
    }

    #[inline]
    fn last_victim(&mut self) -> Option<usize> {
        let v = self.stolen_from.get();
        (v != usize::MAX).then_some(v)
    }

    #[inline]
    fn crossed(&mut self) {
        owner::mark_crossing(self);
    }

    #[inline]
    fn mate_crossing(&mut self) -> bool {
        Sources::mate_crossing(self)
    }

    #[inline]
    fn rechecking(&mut self) -> bool {
        self.registry.sleep.idle().is_idle(self.index)
    }
}
