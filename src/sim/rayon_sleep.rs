//! rayon-core's `Sleep` on simulated time ([`RayonSleep`]): the counters
//! word (sleeping, inactive, the jobs-event counter), each worker's
//! `is_blocked` flag and `IdleState`, and each worker's `XorShift64Star`,
//! with the operations rayon-core's workers run on them. The rules and the
//! rayon-core function each models are the table of `rayon_like`, which
//! drives this state from the simulation's events.
//!
//! Invariants (checked in debug builds): `sleeping <= inactive <=
//! workers`; a worker is counted sleeping exactly while it is blocked or
//! between `try_add_sleeping_thread` and its own cancel in the same event.

use super::workload::mix;

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
    pub(super) fn next_usize(&mut self, w: usize, n: usize) -> usize {
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
}
