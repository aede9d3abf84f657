//! The simulated worker's side of one search pass: [`PassQueues`] over the
//! simulator's queues (crossbeam's own deques and injectors, driven by one
//! thread), so that [`pass::pass`], the function the pool's workers run,
//! decides the order. Each look is charged to the event's cost.

use crate::runtime::idle::Distance;
use crate::runtime::pass::queues::{PassQueues, Queue};
use crate::runtime::pass::{self, Place};
use crate::runtime::private::{self, Claim};
use crate::runtime::registry::group_routing::{busy_in, helps};
use crate::runtime::search::Found;

use super::engine::Sim;
use super::job::JobId;

/// Worker `w`'s pass over `sim`.
struct SimPass<'s, 'a> {
    sim: &'s mut Sim<'a>,
    w: usize,
    rng: &'s mut u64,
}

/// Runs one [`pass::pass`] for worker `w` (its random state in `rng`).
pub(super) fn run_pass(sim: &mut Sim<'_>, w: usize, rng: &mut u64, at: Place<'_>) -> Found<JobId> {
    pass::pass(&mut SimPass { sim, w, rng }, at)
}

/// Tests: worker `w`'s look at the other workers' private halves before
/// it parks, alone, with its costs in `sim.acc`.
#[cfg(test)]
pub(super) fn look_before_parking(sim: &mut Sim<'_>, w: usize) -> Found<JobId> {
    let mut rng = 1;
    SimPass {
        sim,
        w,
        rng: &mut rng,
    }
    .find_private()
}

impl SimPass<'_, '_> {
    fn queue(&self, q: Queue) -> &crossbeam_deque::Injector<JobId> {
        match q {
            Queue::Spread(c) => &self.sim.group_cluster[c],
            Queue::Pack(l) => &self.sim.group_llc[l],
            Queue::Injector(l) => &self.sim.injectors[l],
        }
    }
}

impl PassQueues for SimPass<'_, '_> {
    type Job = JobId;

    fn targeted(&mut self) -> Option<JobId> {
        self.sim.acc += self.sim.cost.probe_ns;
        let job = self.sim.targeted[self.w].pop_front();
        if job.is_some() {
            self.sim.workers[self.w].stolen_from = None;
        }
        job
    }

    fn pull(&mut self, q: Queue, batch: bool) -> Found<JobId> {
        self.sim.acc += self.sim.cost.probe_ns;
        let queue = self.queue(q);
        if queue.is_empty() {
            return Found::Nothing;
        }
        let s = if batch {
            queue.steal_batch_and_pop(self.sim.deque(self.w))
        } else {
            queue.steal()
        };
        let f = Found::from(s);
        if let Found::Job(_) = f {
            let own = match q {
                Queue::Spread(_) => true,
                Queue::Pack(l) | Queue::Injector(l) => l == self.sim.llc_of(self.w),
            };
            let c = &self.sim.cost;
            let line = if own { c.line_llc_ns } else { c.line_node_ns };
            self.sim.acc += c.steal_ns + line * c.job_lines;
            self.sim.counts.injector_pulls += 1;
            self.sim.workers[self.w].stolen_from = None;
        }
        f
    }

    fn looks_empty(&mut self, q: Queue) -> bool {
        self.sim.acc += self.sim.cost.probe_ns;
        self.queue(q).is_empty()
    }

    fn victim_len(&mut self, v: usize) -> usize {
        self.sim.acc += self.sim.victim_look(self.w, v);
        self.sim.stealers[v].len()
    }

    fn mostly_idle(&mut self) -> bool {
        self.sim.acc += self.sim.cost.idle_word_ns;
        let idle = self.sim.sleep.idle();
        2 * idle.armed_total() >= idle.num_workers()
    }

    fn awake_bits(&mut self, from: usize, end: usize) -> (u64, usize) {
        // Locus skips idle victims: a load of an idle word per 64 workers.
        self.sim.acc += self.sim.cost.idle_word_ns;
        self.sim.sleep.idle().awake_bits(from, end)
    }

    fn victim_private(&mut self, v: usize) -> usize {
        // The private stack's ends, as the deque's in `victim_len`: a line
        // at the victim's distance while its owner runs (`victim_look`).
        self.sim.acc += self.sim.victim_look(self.w, v);
        self.sim.private[v].private_count()
    }

    fn victim_placed(&mut self, v: usize) -> bool {
        self.sim.acc += self.sim.cost.probe_ns;
        self.sim.placed[self.sim.llc_of(v)] > 0
    }

    fn steal_from(&mut self, v: usize, batch: Option<usize>) -> Found<JobId> {
        // The thief gets to `v` after the looks charged so far (`race`).
        if self.sim.owner_pops_first(v) {
            return Found::Nothing;
        }
        let before = self.sim.deque(self.w).len();
        let stealer = &self.sim.stealers[v];
        let s = match batch {
            Some(limit) => stealer.steal_batch_with_limit_and_pop(self.sim.deque(self.w), limit),
            None => stealer.steal(),
        };
        let f = Found::from(s);
        if let Found::Job(_) = f {
            // The victim's deque shrank: its next `join` looks at it
            // (`PrivateStack::want`, as the thread's steal).
            self.sim.private[v].want();
            self.sim.stole(self.w, v, false);
            // A batch also copied the handles now in the own deque.
            let copied = self.sim.deque(self.w).len().saturating_sub(before);
            self.sim.acc += self.sim.cost.batch_copy(self.sim.reach(v, self.w), copied);
            self.sim.workers[self.w].stolen_from = Some(v);
        }
        f
    }

    fn random(&mut self) -> u64 {
        pass::tiers::next_random(self.rng)
    }

    fn spread_used(&mut self) -> bool {
        self.sim.spread_used
    }

    /// A word every worker reads and a deal rarely writes: free, as
    /// `spread_used` and `loop_seen`.
    fn asleep_deals(&mut self) -> usize {
        self.sim.sleep.deal().asleep()
    }

    /// Two loads of the idle summary, charged as idle words.
    fn llc_asleep(&mut self, llc: usize) -> bool {
        self.sim.acc += self.sim.cost.idle_word_ns;
        let asleep = self.sim.sleep.idle().all_armed(llc);
        if asleep {
            self.sim.counts.asleep_takes += 1;
        }
        asleep
    }

    /// A write of a shared word, charged as an idle word's.
    fn unmark_asleep(&mut self, llc: usize) {
        self.sim.acc += self.sim.cost.idle_word_ns;
        self.sim.sleep.deal().unmark_asleep(llc);
    }

    /// A plain store (no read-modify-write, no fence after it in the
    /// receiver's path) to a word only searchers of a marked LLC read:
    /// free, as the store buffer retires it off the worker's path.
    fn note_receiver(&mut self) {
        let llc = self.sim.llc_of(self.w);
        self.sim.sleep.deal().note_receiver(llc, self.w);
    }

    /// A word written once per deal received and read only while its LLC
    /// is marked: free, as `asleep_deals`.
    fn receiver(&mut self, llc: usize) -> Option<usize> {
        self.sim.sleep.deal().receiver(llc)
    }

    fn robbed_receiver(&mut self) {
        self.sim.counts.receiver_takes += 1;
    }

    /// A load of the idle summary, charged as an idle word.
    fn llc_awake(&mut self, llc: usize) -> usize {
        self.sim.acc += self.sim.cost.idle_word_ns;
        busy_in(self.sim.sleep.idle(), llc)
    }

    fn may_help(&mut self, llc: usize) -> bool {
        helps(&self.sim.sleep, llc, self.w)
    }

    fn forward(&mut self, llc: usize) {
        let hit = self.sim.counting(|s| s.sleep.wake_in(None, llc));
        self.sim.woke(hit.map(|(w, _)| (w, Distance::Remote)));
    }

    fn find_private(&mut self) -> Found<JobId> {
        let w = self.w;
        let sim = &*self.sim;
        if !sim.sleep.idle().is_idle(w) {
            return Found::Nothing;
        }
        let tiers = sim.layout.tiers_for(w, sim.policy.cluster_aware());
        let idle = sim.sleep.idle();
        let victims = tiers
            .iter()
            .flat_map(|t| t.ranges.iter().flat_map(|r| r.clone()))
            .filter(|&v| !idle.is_idle(v))
            .map(|v| (v, &sim.private[v]));
        // A lazy park's re-check looks unfenced (the worker thread's
        // `lazy_look`); the fence is charged when the look runs it.
        let fenced = !sim.workers[w].lazy_look;
        let fences = private::rules::look_fences(idle, fenced);
        let claim = private::rules::look_before_parking(idle, w, victims, fenced);
        if fences {
            // The caller's call, and its wait for each worker it
            // interrupts (`CostModel::fence_target_ns`).
            let hit = self.sim.interrupt_running(w) as f64;
            let c = self.sim.cost;
            self.sim.acc += c.heavy_fence_ns + hit * c.fence_target_ns;
            self.sim.counts.heavy_fences += 1;
        }
        match claim {
            Claim::Taken((v, id)) => {
                self.sim.workers[w].stolen_from = None;
                self.sim.stole(w, v, true);
                self.sim.counts.private_claims += 1;
                Found::Job(id)
            }
            Claim::Busy => Found::Retry,
            Claim::Empty => Found::Nothing,
        }
    }

    fn shows_private(&mut self, v: usize) -> bool {
        self.sim.acc += self.sim.victim_look(self.w, v);
        self.sim.private[v].has_private() || self.sim.starting[v]
    }

    fn llc_searching(&mut self, v: usize) -> isize {
        self.sim.sleep.searching_in(self.sim.llc_of(v))
    }

    /// The summary's field and the LLC's idle words, charged and counted
    /// as idle words (`Sim::counting`).
    fn llc_claims(&mut self, v: usize) -> (usize, usize) {
        let llc = self.sim.llc_of(v);
        self.sim.counting(|s| s.sleep.idle().claims_in(llc))
    }

    /// The LLC's searcher count is free, as in `llc_searching`; its claims
    /// are charged as in `llc_claims`.
    fn awake_searchers(&mut self) -> isize {
        let llc = self.sim.llc_of(self.w);
        let searching = self.sim.sleep.searching_in(llc);
        pass::queues::awake_searchers(searching, || {
            self.sim.counting(|s| s.sleep.idle().claims_in(llc)).0
        })
    }

    fn passed_claims(&mut self) {
        self.sim.counts.claim_passes += 1;
    }

    fn loop_seen(&mut self) -> bool {
        // A line its LLC's workers share and rarely write: free, as the
        // searcher counts of `llc_searched`.
        self.sim.loop_seen[self.sim.llc_of(self.w)]
    }

    fn set_loop_seen(&mut self, on: bool) {
        let l = self.sim.llc_of(self.w);
        if self.sim.loop_seen[l] != on {
            self.sim.acc += self.sim.cost.probe_ns;
            self.sim.loop_seen[l] = on;
        }
    }

    fn last_victim(&mut self) -> Option<usize> {
        // The worker's own record (`stolen_from`): free, as the thread's
        // field.
        self.sim.workers[self.w].stolen_from
    }

    fn crossed(&mut self) {
        self.sim.mark_crossing(self.w);
    }

    fn mate_crossing(&mut self) -> bool {
        self.sim.acc += self.sim.cost.probe_ns;
        self.sim.crossing_covers(self.w)
    }

    fn rechecking(&mut self) -> bool {
        self.sim.sleep.idle().is_idle(self.w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::job::JobRef;
    use crate::sim::cost::Reach;
    use crate::sim::tests::hierarchical_layout as machine;
    use crate::sim::{CostModel, Fib, Policy};

    /// The cost of worker `w`'s steal from `v` (`batch` as the pass asks),
    /// with the jobs moved (the popped one and those in `w`'s deque).
    fn steal(sim: &mut Sim<'_>, w: usize, v: usize, batch: Option<usize>) -> (f64, usize) {
        sim.acc = 0.0;
        let mut rng = 1;
        let f = SimPass {
            sim,
            w,
            rng: &mut rng,
        }
        .steal_from(v, batch);
        assert!(matches!(f, Found::Job(_)));
        let moved = 1 + sim.deque(w).len();
        while sim.deque(w).pop().is_some() {}
        (sim.acc, moved)
    }

    #[test]
    fn a_batch_steal_pays_its_copy_line_by_line() {
        let l = machine("llc:2 core:2");
        let (w, v) = (0, 2);
        let cost = CostModel::published();
        let fib = Fib { n: 3, ns: 1 };
        let mut sim = Sim::new(l, &cost, Policy::Hierarchical, &fib, 0);
        let reach = sim.reach(v, w);
        assert!(matches!(reach, Reach::At(k, _) if k.crosses_llc()));
        for id in 0..4096 {
            sim.deque(v).push(id);
        }
        let (one, n1) = steal(&mut sim, w, v, None);
        let (batch, n) = steal(&mut sim, w, v, Some(1024));
        assert_eq!((n1, n), (1, 1024));
        // The popped job is the single steal's (`stole`); the 1,023 copied
        // handles are read line by line from the victim's buffer.
        let lines = (1023 * std::mem::size_of::<JobRef>()).div_ceil(64);
        let copy = cost.line_node_ns + (lines * 64) as f64 / cost.bw_node;
        assert!(
            (batch - one - copy).abs() < 1e-6,
            "{batch} - {one} vs {copy}"
        );
        assert!(lines >= 1023 / 8, "a handle is at most 8 to a line");
        // A steal of one job or a batch of one copies nothing more.
        assert_eq!(cost.batch_copy(reach, 0), 0.0);
        let (single_batch, n) = steal(&mut sim, w, v, Some(1));
        assert_eq!((n, single_batch), (1, one));
    }
}
