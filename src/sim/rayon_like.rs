//! [`Policy::RayonLike`](super::Policy::RayonLike): rayon-core's own
//! scheduling (version 1.13), rule by rule, so that the comparison is with
//! rayon and not with locus minus its rules. None of locus's search applies
//! here: no spinner cap, no crossing marks, no idle masks, no fence charged
//! on a push, no private `join` halves, no job groups, no first split of
//! iterators.
//!
//! | rule here | the rayon-core function it models |
//! |---|---|
//! | one word of counters: sleeping, inactive, jobs-event counter (JEC) | `sleep::counters::AtomicCounters`, `Counters`, `JobsEventCounter` |
//! | a JEC value is sleepy when even, active when odd | `JobsEventCounter::is_sleepy`, `is_active` |
//! | a worker with nothing local becomes inactive | `Sleep::start_looking` from `WorkerThread::wait_until_cold` |
//! | a round: own deque, then one steal over the other workers from a random start, then the injector | `WorkerThread::find_work`, `take_local_job`, `steal` (`XorShift64Star::next_usize`), `Registry::pop_injected_job` |
//! | one job per steal | `WorkerThread::steal` (`Stealer::steal`, never a batch) |
//! | a round without work yields; the 33rd announces sleepy (JEC made even), the 34th tries to sleep | `Sleep::no_work_found`, `announce_sleepy`, `ROUNDS_UNTIL_SLEEPY`, `ROUNDS_UNTIL_SLEEPING` |
//! | sleeping: the JEC moved since sleepy goes back to the sleepy round; else counted sleeping, then an injected or own job cancels it; else blocked | `Sleep::sleep`, `IdleState::wake_partly`, `wake_fully`, `AtomicCounters::try_add_sleeping_thread` |
//! | a worker that finds work (or sees its latch set) becomes active and wakes up to two sleepers | `Sleep::work_found`, `AtomicCounters::sub_inactive_thread` |
//! | a push: the JEC made odd if sleepy; a sleeper woken when the deque was not empty, else only when fewer are awake and idle than jobs | `WorkerThread::push`, `Sleep::new_internal_jobs`, `Sleep::new_jobs` |
//! | an injection: the same, after a `SeqCst` fence | `Registry::inject`, `Sleep::new_injected_jobs` |
//! | a wakeup looks at every worker's sleep state in index order | `Sleep::wake_any_threads`, `wake_specific_thread` |
//! | a latch set for a blocked worker wakes it | `Sleep::notify_worker_latch_is_set` (from `SpinLatch::set`) |
//! | `join`: `b` pushed on the deque at once, `a` run, then `b` popped back or waited for | `join_context` |
//! | scope spawns and iterator splits are pushes; iterators are the adaptive tree, never cut by domain | `Scope::spawn` (`inject_or_push`), `bridge_producer_consumer` |
//!
//! Costs: every access to the counters word or to a worker's sleep state
//! (its mutex) is charged as one idle-mask word (`idle_word_ns`), as
//! locus's idle-mask accesses are, and counted in the same `claim_words`;
//! a round's look at a deque is a victim look (`Sim::victim_look`:
//! `probe_ns`, plus a line at the victim's distance while it runs); a yield is
//! `yield_ns`; a wakeup reaches the woken worker after `wake_ns`.
//!
//! The state those rules act on is [`RayonSleep`] (`rayon_sleep`);
//! this module drives it from the simulation's events.

use crate::layout::TierKind;
use crate::runtime::idle::Distance;

use super::engine::Sim;
use super::job::JobId;
use super::rayon_sleep::{NoWork, Phase, RayonSleep};
use super::worker_state::Mode;

impl Sim<'_> {
    fn rayon(&mut self) -> &mut RayonSleep {
        self.rayon
            .as_mut()
            .expect("the rayon-like state of a rayon-like simulation")
    }

    /// Charges and counts the counter and sleep-state words touched.
    fn rayon_words(&mut self) {
        let words = self.rayon().take_words();
        if words > 0 {
            self.counts.claim_words += words;
            self.counts.claim_calls += 1;
            self.acc += words as f64 * self.cost.idle_word_ns;
        }
    }

    /// A new pool's worker `w`: blocked (see [`RayonSleep::new`]).
    pub(super) fn rayon_born(&mut self, w: usize) {
        self.workers[w].mode = Mode::Rayon(Phase::Blocked);
    }

    /// `WorkerThread::push`: the deque, then `new_internal_jobs(1,
    /// queue_was_empty)`. No fence: rayon's push has none.
    pub(super) fn rayon_push(&mut self, w: usize, id: JobId) {
        let was_empty = self.workers[w].deque.is_empty();
        self.workers[w].deque.push(id);
        self.acc += self.cost.push_ns;
        let woken = self.rayon().new_jobs(1, was_empty);
        self.rayon_words();
        self.rayon_wake(Some(w), woken);
    }

    /// `Registry::inject`: the one injector, then `new_injected_jobs(1,
    /// queue_was_empty)`, whose `SeqCst` fence is charged.
    pub(super) fn rayon_inject(&mut self, id: JobId) {
        let was_empty = self.injectors[0].is_empty();
        self.injectors[0].push(id);
        self.acc += self.cost.push_ns + self.cost.fence_ns;
        let woken = self.rayon().new_jobs(1, was_empty);
        self.rayon_words();
        self.rayon_wake(None, woken);
    }

    /// Schedules the workers `woken` (unblocked by `waker` or from
    /// outside) after the wakeup latency, counting each by its distance
    /// from the waker.
    fn rayon_wake(&mut self, waker: Option<usize>, woken: Vec<usize>) {
        for v in woken {
            let d = match waker {
                Some(w) => match self.layout.relation(w, v) {
                    TierKind::Smt | TierKind::Cluster => Distance::Cluster,
                    TierKind::Llc => Distance::Llc,
                    _ => Distance::Remote,
                },
                None => Distance::Remote,
            };
            self.counts.wakeups[d as usize] += 1;
            self.rayon_unblocked(v);
        }
    }

    /// Worker `v`, just unblocked, runs again after the wakeup latency.
    fn rayon_unblocked(&mut self, v: usize) {
        debug_assert!(matches!(self.workers[v].mode, Mode::Rayon(Phase::Blocked)));
        self.workers[v].mode = Mode::Rayon(Phase::Waking);
        let at = self.now + (self.acc + self.cost.wake_ns).round() as u64;
        self.schedule(v, at);
    }

    /// A latch that worker `w` may wait for was set: `SpinLatch::set`
    /// wakes its owner if it sleeps on it (`notify_worker_latch_is_set`).
    pub(super) fn rayon_latch_set(&mut self, w: usize, latch: JobId) {
        if matches!(self.workers[w].mode, Mode::Rayon(Phase::Blocked))
            && self.waiting_on(w) == Some(latch)
        {
            let woke = self.rayon().wake_specific_thread(w);
            debug_assert!(woke);
            self.rayon_words();
            self.rayon_unblocked(w);
        }
    }

    /// `WorkerThread::wait_until_cold` after its local look found nothing
    /// (or the main loop's): `start_looking`, then the first round now.
    pub(super) fn rayon_start_looking(&mut self, w: usize) {
        self.rayon().start_looking(w);
        self.rayon_words();
        self.workers[w].mode = Mode::Rayon(Phase::Looking);
        self.rayon_round(w);
    }

    /// Worker `w`'s event in phase `phase`.
    pub(super) fn rayon_step(&mut self, w: usize, phase: Phase) {
        self.workers[w].mode = Mode::Rayon(phase);
        match phase {
            Phase::Looking => self.rayon_round(w),
            Phase::Waking => {
                self.rayon().woke_up(w);
                self.workers[w].mode = Mode::Rayon(Phase::Looking);
                self.rayon_round(w);
            }
            Phase::Blocked => unreachable!("a blocked worker has no event"),
        }
    }

    /// One round of `wait_until_cold`'s inner loop: the latch (or, in the
    /// main loop, the end of the run), then `find_work`; work found ends
    /// the looking (`work_found`), else `no_work_found`.
    fn rayon_round(&mut self, w: usize) {
        let done = self.wait_done(w).unwrap_or(self.roots_left == 0);
        let job = if done { None } else { self.rayon_find_work(w) };
        if done || job.is_some() {
            let woken = self.rayon().work_found();
            self.rayon_words();
            self.rayon_wake(Some(w), woken);
            self.workers[w].mode = Mode::Run;
            if let Some(id) = job {
                self.execute(w, id);
            }
            return self.after_cost(w);
        }
        let (deque, injector) = (&self.stealers[w], &self.injectors[0]);
        let injected = !deque.is_empty() || !injector.is_empty();
        let next = self.rayon().no_work_found(w, || injected);
        self.rayon_words();
        match next {
            NoWork::Yield => {
                self.acc += self.cost.yield_ns;
                self.after_cost(w);
            }
            NoWork::Again => self.after_cost(w),
            NoWork::Block => {
                self.counts.failed_searches += 1;
                self.counts.parks += 1;
                self.acc = 0.0;
                self.workers[w].mode = Mode::Rayon(Phase::Blocked);
            }
        }
    }

    /// `WorkerThread::find_work`: the own deque (`take_local_job`), one
    /// steal, the injector (`pop_injected_job`).
    fn rayon_find_work(&mut self, w: usize) -> Option<JobId> {
        self.counts.passes += 1;
        self.acc += self.cost.pop_ns;
        if let Some(id) = self.workers[w].deque.pop() {
            return Some(id);
        }
        if let Some(id) = self.rayon_steal(w) {
            return Some(id);
        }
        self.acc += self.cost.probe_ns;
        let id = self.injectors[0].steal().success()?;
        self.counts.injector_pulls += 1;
        let own = self.workers[w].llc == 0;
        let c = self.cost;
        let line = if own { c.line_llc_ns } else { c.line_node_ns };
        self.acc += c.steal_ns + line * c.job_lines;
        Some(id)
    }

    /// `WorkerThread::steal`: from a random start (`XorShift64Star`) over
    /// every other worker in index order, wrapping, one job from the first
    /// deque that has one; a victim's owner that pops its last job before
    /// the thief's clock gets there wins (`race`), and no steal retries.
    fn rayon_steal(&mut self, w: usize) -> Option<JobId> {
        let n = self.workers.len();
        if n <= 1 {
            return None;
        }
        let start = self.rayon().next_usize(w, n);
        for v in (start..n).chain(0..start).filter(|&v| v != w) {
            self.acc += self.victim_look(w, v);
            // An owner that gets there first pops its last job (`race`).
            if self.stealers[v].is_empty() || self.owner_pops_first(v) {
                continue;
            }
            if let Some(id) = self.stealers[v].steal().success() {
                self.stole(w, v, false);
                return Some(id);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {

    fn run(spec: &str, w: &dyn crate::sim::Workload, p: crate::sim::Policy) -> crate::sim::Run {
        let t = crate::topology::Topology::synthetic(spec).unwrap();
        crate::sim::simulate(&t, w, p, None, &crate::sim::CostModel::default()).unwrap()
    }

    #[test]
    fn wide_fan_out_on_1024_workers_wakes_most_of_them() {
        // One scope spawning 4,096 jobs of 1 ms: every spawn after the
        // first is a push to a non-empty deque, which wakes a sleeper (each
        // wakeup scans the sleep states from worker 0, so the last ones
        // come milliseconds after the first).
        let storm = crate::sim::SpawnStorm {
            jobs: 4096,
            ns: 1_000_000,
        };
        let r = run(
            "package:2 llc:8 core:64",
            &storm,
            crate::sim::Policy::RayonLike,
        );
        assert_eq!(r.workers, 1024);
        assert!(r.counts.workers_ran >= 900, "{:?}", r.counts.workers_ran);
        assert!(r.counts.wakeups_total() >= 900, "{:?}", r.counts.wakeups);
    }

    #[test]
    fn rayon_like_pushes_pay_no_fence() {
        // Pushes charge no fence: with every cost but the fence zero and
        // fib's work zero, the makespan is the same at any fence cost.
        let fib = crate::sim::Fib { n: 14, ns: 10 };
        let t = crate::topology::Topology::synthetic("llc:2 core:4").unwrap();
        let base = crate::sim::CostModel::default();
        let with = crate::sim::CostModel {
            fence_ns: 5_000.0,
            ..base.clone()
        };
        let p = crate::sim::Policy::RayonLike;
        let a = crate::sim::simulate(&t, &fib, p, None, &base).unwrap();
        let b = crate::sim::simulate(&t, &fib, p, None, &with).unwrap();
        // Only the root's injection pays the fence (`new_injected_jobs`),
        // before it wakes the first worker: the run is the same, shifted
        // by the difference.
        let shift = (with.fence_ns - base.fence_ns) as u64;
        assert_eq!(b.counts.makespan_ns, a.counts.makespan_ns + shift);
        let same = |c: &crate::sim::Counts| crate::sim::Counts {
            makespan_ns: 0,
            ..c.clone()
        };
        assert_eq!(same(&a.counts), same(&b.counts));
        assert!(a.counts.steals_total() > 0, "{:?}", a.counts);
    }
}
