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
//! Invariants (checked in debug builds): `sleeping <= inactive <=
//! workers`; a worker is counted sleeping exactly while it is blocked or
//! between `try_add_sleeping_thread` and its own cancel in the same event.

use super::engine::{JobId, Mode, Sim};
use super::workload::mix;
use crate::layout::TierKind;
use crate::runtime::idle::Distance;

/// Rounds a worker looks (and yields) before it announces itself sleepy
/// (rayon-core's `ROUNDS_UNTIL_SLEEPY`).
pub(super) const ROUNDS_UNTIL_SLEEPY: u32 = 32;
/// The round at which a sleepy worker tries to sleep (rayon-core's
/// `ROUNDS_UNTIL_SLEEPING`).
pub(super) const ROUNDS_UNTIL_SLEEPING: u32 = ROUNDS_UNTIL_SLEEPY + 1;

/// Where a rayon-like worker is in `WorkerThread::wait_until_cold`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Inactive, looking for work round by round.
    Looking,
    /// Blocked on its condition variable (`is_blocked`), no event pending.
    Blocked,
    /// Notified: running again after the wakeup latency.
    Waking,
}

/// A looking worker's `IdleState`: its rounds, and the JEC it saw when it
/// announced itself sleepy (`None`: rayon's `DUMMY`, not sleepy).
#[derive(Debug, Clone, Copy, Default)]
struct IdleState {
    rounds: u32,
    sleepy_jec: Option<u64>,
}

/// What a round without work leads to (`Sleep::no_work_found`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NoWork {
    /// `thread::yield_now`, then another round.
    Yield,
    /// Another round at once: the JEC moved since sleepy (`wake_partly`),
    /// or a job was injected after the worker counted itself sleeping.
    Again,
    /// Blocked until woken.
    Block,
}

/// rayon-core's `Sleep` on simulated time: its counters word, each
/// worker's `is_blocked` flag and `IdleState`, and each worker's
/// `XorShift64Star` for its steal's random start.
#[derive(Debug)]
pub(super) struct RayonSleep {
    /// The jobs-event counter.
    jec: u64,
    /// Workers not running a job (idle, sleepy or sleeping).
    inactive: usize,
    /// Workers counted sleeping.
    sleeping: usize,
    blocked: Vec<bool>,
    idle: Vec<IdleState>,
    rng: Vec<u64>,
    /// Accesses to the counters word and to sleep states since the last
    /// [`RayonSleep::take_words`].
    words: u64,
}

impl RayonSleep {
    /// A pool of `n` workers, every one asleep, as rayon's are once they
    /// went through their rounds after the pool was built (the state
    /// locus's "born idle" workers start in, so both start alike): all
    /// inactive and sleeping, the JEC at 0 (sleepy, as rayon's starts).
    /// Each worker's random state comes from `seed` (rayon seeds it from a
    /// global counter's hash; any non-zero value does).
    pub(super) fn new(n: usize, seed: u64) -> RayonSleep {
        RayonSleep {
            jec: 0,
            inactive: n,
            sleeping: n,
            blocked: vec![true; n],
            idle: vec![IdleState::default(); n],
            rng: (0..n)
                .map(|i| mix(seed ^ mix(i as u64 + 1)).max(1))
                .collect(),
            words: 0,
        }
    }

    /// Counter and sleep-state accesses since the last call.
    pub(super) fn take_words(&mut self) -> u64 {
        std::mem::take(&mut self.words)
    }

    /// Workers counted sleeping.
    #[cfg(test)]
    pub(super) fn sleeping(&self) -> usize {
        self.sleeping
    }

    /// Workers counted inactive.
    #[cfg(test)]
    pub(super) fn inactive(&self) -> usize {
        self.inactive
    }

    /// Whether worker `w` is blocked.
    #[cfg(test)]
    pub(super) fn is_blocked(&self, w: usize) -> bool {
        self.blocked[w]
    }

    /// `JobsEventCounter::is_sleepy`: the last to move it was a worker
    /// getting sleepy (even values).
    fn jec_sleepy(&self) -> bool {
        self.jec % 2 == 0
    }

    /// `Sleep::start_looking`: one more inactive worker, rounds from 0.
    pub(super) fn start_looking(&mut self, w: usize) {
        self.words += 1;
        self.inactive += 1;
        self.idle[w] = IdleState::default();
        self.check();
    }

    /// `Sleep::work_found` (`sub_inactive_thread`): one inactive worker
    /// fewer; if any slept, up to two of them are woken. Returns the woken.
    pub(super) fn work_found(&mut self) -> Vec<usize> {
        self.words += 1;
        debug_assert!(self.inactive > 0);
        let to_wake = self.sleeping.min(2);
        self.inactive -= 1;
        self.check();
        self.wake_any_threads(to_wake)
    }

    /// `Sleep::no_work_found` for worker `w` after a round without work;
    /// `has_injected_jobs` is rayon's last look (its own deque, the
    /// injector) after it counted itself sleeping.
    pub(super) fn no_work_found(
        &mut self,
        w: usize,
        has_injected_jobs: impl FnOnce() -> bool,
    ) -> NoWork {
        let st = self.idle[w];
        if st.rounds < ROUNDS_UNTIL_SLEEPY {
            self.idle[w].rounds += 1;
            return NoWork::Yield;
        }
        if st.rounds == ROUNDS_UNTIL_SLEEPY {
            // `announce_sleepy`: make the JEC sleepy (even) unless it is,
            // and remember it.
            self.words += 1;
            if !self.jec_sleepy() {
                self.jec += 1;
            }
            self.idle[w] = IdleState {
                rounds: st.rounds + 1,
                sleepy_jec: Some(self.jec),
            };
            return NoWork::Yield;
        }
        debug_assert_eq!(st.rounds, ROUNDS_UNTIL_SLEEPING);
        self.sleep(w, has_injected_jobs)
    }

    /// `Sleep::sleep`: back to the sleepy round if the JEC moved since the
    /// worker got sleepy (a job was posted it may not have seen), else
    /// counted sleeping; then a job injected meanwhile (or in its own
    /// deque) cancels the sleep, else the worker blocks.
    fn sleep(&mut self, w: usize, has_injected_jobs: impl FnOnce() -> bool) -> NoWork {
        self.words += 1;
        if Some(self.jec) != self.idle[w].sleepy_jec {
            // `IdleState::wake_partly`.
            self.idle[w] = IdleState {
                rounds: ROUNDS_UNTIL_SLEEPY,
                sleepy_jec: None,
            };
            return NoWork::Again;
        }
        // `try_add_sleeping_thread`.
        self.words += 1;
        self.sleeping += 1;
        self.check();
        if has_injected_jobs() {
            // `sub_sleeping_thread` by the worker itself, then
            // `wake_fully`.
            self.words += 1;
            self.sleeping -= 1;
            self.idle[w] = IdleState::default();
            return NoWork::Again;
        }
        self.blocked[w] = true;
        NoWork::Block
    }

    /// The woken worker's side of `Sleep::sleep` after its wait returns
    /// (`IdleState::wake_fully`): rounds from 0, still inactive.
    pub(super) fn woke_up(&mut self, w: usize) {
        self.idle[w] = IdleState::default();
    }

    /// `Sleep::new_internal_jobs` (a push on a worker's deque) and, after
    /// the caller's fence, `Sleep::new_injected_jobs`: `Sleep::new_jobs`
    /// for `num_jobs` jobs. Makes the JEC active (odd) if it was sleepy;
    /// with sleepers, wakes one per job when the queue was not empty
    /// (the idle workers are clearly not enough), else only as many as
    /// jobs exceed the awake idle workers. Returns the woken.
    pub(super) fn new_jobs(&mut self, num_jobs: usize, queue_was_empty: bool) -> Vec<usize> {
        // `increment_jobs_event_counter_if` loads the counters and writes
        // them only when the JEC is sleepy: the load of a line the pusher
        // usually holds is part of the push (`push_ns`); only the
        // read-modify-write is a counter word touched.
        if self.jec_sleepy() {
            self.words += 1;
            self.jec += 1;
        }
        if self.sleeping == 0 {
            return Vec::new();
        }
        let awake_idle = self.inactive - self.sleeping;
        let to_wake = if !queue_was_empty {
            num_jobs.min(self.sleeping)
        } else if awake_idle < num_jobs {
            (num_jobs - awake_idle).min(self.sleeping)
        } else {
            0
        };
        self.wake_any_threads(to_wake)
    }

    /// `Sleep::wake_any_threads`: every worker's sleep state in index
    /// order until `n` were woken.
    fn wake_any_threads(&mut self, n: usize) -> Vec<usize> {
        let mut woken = Vec::new();
        if n == 0 {
            return woken;
        }
        for i in 0..self.blocked.len() {
            if self.wake_specific_thread(i) {
                woken.push(i);
                if woken.len() == n {
                    break;
                }
            }
        }
        woken
    }

    /// `Sleep::wake_specific_thread` (also `notify_worker_latch_is_set`):
    /// a blocked worker is unblocked and uncounted as sleeping by its
    /// waker.
    pub(super) fn wake_specific_thread(&mut self, i: usize) -> bool {
        self.words += 1;
        if !self.blocked[i] {
            return false;
        }
        self.words += 1;
        self.blocked[i] = false;
        self.sleeping -= 1;
        self.check();
        true
    }

    /// `XorShift64Star::next_usize` of worker `w`: a value in `0..n`.
    fn next_usize(&mut self, w: usize, n: usize) -> usize {
        let mut x = self.rng[w];
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng[w] = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }

    fn check(&self) {
        debug_assert!(
            self.sleeping <= self.inactive && self.inactive <= self.blocked.len(),
            "rayon-like counters: {} sleeping, {} inactive, {} workers",
            self.sleeping,
            self.inactive,
            self.blocked.len()
        );
    }
}

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
    /// deque that has one. The simulator's looks never race, so there is
    /// no retry.
    fn rayon_steal(&mut self, w: usize) -> Option<JobId> {
        let n = self.workers.len();
        if n <= 1 {
            return None;
        }
        let start = self.rayon().next_usize(w, n);
        for v in (start..n).chain(0..start).filter(|&v| v != w) {
            self.acc += self.victim_look(w, v);
            if self.stealers[v].is_empty() {
                continue;
            }
            if let Some(id) = self.stealers[v].steal().success() {
                self.stole(w, v);
                return Some(id);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_to_a_non_empty_deque_wakes_one_sleeper() {
        let mut s = RayonSleep::new(4, 1);
        // Worker 0 woke and runs; three sleep.
        assert!(s.wake_specific_thread(0));
        s.woke_up(0);
        assert_eq!(
            s.work_found(),
            vec![1, 2],
            "a worker finding work wakes two"
        );
        // Workers 1 and 2 look, worker 3 sleeps.
        assert_eq!((s.inactive(), s.sleeping()), (3, 1));
        // A push to an empty deque with two awake idle workers wakes nobody.
        assert!(s.new_jobs(1, true).is_empty());
        // A push to a non-empty deque wakes a sleeper although two look.
        assert_eq!(s.new_jobs(1, false), vec![3]);
        assert_eq!(s.sleeping(), 0);
        assert!(s.new_jobs(1, false).is_empty(), "nobody left to wake");
    }

    #[test]
    fn push_to_an_empty_deque_wakes_only_when_no_idle_worker_is_awake() {
        let mut s = RayonSleep::new(3, 1);
        assert_eq!(s.new_jobs(1, true), vec![0], "all asleep: wake one");
        assert_eq!(s.new_jobs(2, true), vec![1], "one awake idle, two jobs");
    }

    #[test]
    fn a_worker_is_sleepy_before_it_sleeps() {
        let mut s = RayonSleep::new(2, 1);
        assert!(s.wake_specific_thread(0));
        s.woke_up(0);
        for _ in 0..ROUNDS_UNTIL_SLEEPY {
            assert_eq!(s.no_work_found(0, || false), NoWork::Yield);
        }
        let before = s.jec;
        // The sleepy round: the JEC is made sleepy (even) and recorded.
        assert_eq!(s.no_work_found(0, || false), NoWork::Yield);
        assert!(s.jec_sleepy() && s.jec >= before);
        assert_eq!(s.idle[0].sleepy_jec, Some(s.jec));
        assert!(!s.is_blocked(0));
        // Then it sleeps.
        assert_eq!(s.no_work_found(0, || false), NoWork::Block);
        assert!(s.is_blocked(0));
        assert_eq!(s.sleeping(), 2);
    }

    #[test]
    fn a_job_posted_while_sleepy_sends_the_worker_back_a_round() {
        let mut s = RayonSleep::new(2, 1);
        assert!(s.wake_specific_thread(0));
        s.woke_up(0);
        for _ in 0..ROUNDS_UNTIL_SLEEPING {
            s.no_work_found(0, || false);
        }
        // A push (by another thread) moves the JEC: the sleep attempt sees
        // it and goes back to just before the sleepy round.
        s.new_jobs(1, true);
        assert_eq!(s.no_work_found(0, || false), NoWork::Again);
        assert_eq!(s.idle[0].rounds, ROUNDS_UNTIL_SLEEPY);
        assert_eq!(s.no_work_found(0, || false), NoWork::Yield);
        // An injected job seen after counting itself sleeping cancels it.
        let sleeping = s.sleeping();
        assert_eq!(s.no_work_found(0, || true), NoWork::Again);
        assert_eq!(s.sleeping(), sleeping);
        assert!(!s.is_blocked(0));
        assert_eq!(s.idle[0].rounds, 0);
    }

    #[test]
    fn random_starts_cover_every_worker() {
        let mut s = RayonSleep::new(8, 3);
        let mut seen = [false; 8];
        for _ in 0..200 {
            seen[s.next_usize(2, 8)] = true;
        }
        assert!(seen.iter().all(|&x| x), "{seen:?}");
    }

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
