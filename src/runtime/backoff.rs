//! How long a worker that found nothing keeps searching before it parks:
//! the idle governor, one per worker.
//!
//! A search that found nothing spins ([`SPIN_STEPS`] doubling pause loops)
//! and then yields up to [`SEARCH_YIELDS`] times (`sync::Backoff`) before
//! it re-checks and parks. The yields are worth their CPU when work comes back within them:
//! short parallel calls issued back to back leave the pool idle for about
//! the time their caller needs to send the next call (tens of
//! microseconds), and a worker that parked in each such gap made every call
//! pay a futex wakeup or two. They are wasted when work comes rarely: a
//! pool fed one small job every millisecond (or every 100 us) woke, ran the
//! job, yielded tens of microseconds for nothing and parked, each time.
//!
//! The governor predicts which case the worker is in from how its recent
//! idle periods ended, as the kernel's `menu` and `teo` cpuidle governors
//! pick an idle state from the recent sleep lengths and Go's scheduler
//! keeps spinning threads only while work keeps turning up. It keeps a
//! score from 0 to [`MAX_SCORE`]; a search's budget ([`steps`]) is the
//! pause spins and [`SEARCH_YIELDS`] yields scaled by score /
//! [`MAX_SCORE`]; at 0 it is [`FLOOR_STEPS`] short spins (15 pauses, about
//! a microsecond) and then the re-check and the park. Each idle period
//! moves the score:
//!
//! - the search found work while spinning or yielding (it did not park):
//!   the spin paid, `+2`;
//! - the worker parked and was woken within [`SHORT_PARK`] (about the
//!   length of a full budget of yields on an idle machine): a longer spin
//!   would have caught the work without the park and the wakeup, `+1`;
//! - the worker parked for longer: the spin before it was wasted, `-2`.
//!
//! So a worker whose work arrives in bursts with short gaps keeps the full
//! budget; one whose gaps are long parks after its pause spins within a
//! few periods; a worker that parked at once and then sees short parks
//! grows its budget back. The clock is read only around a park (which
//! costs a futex wait and wake anyway), never on a search that finds work.
//!
//! The score also says when an idle worker may leave its pin: a worker
//! that parks for new work at score 0 (light load: its idle periods are
//! long) floats on its LLC's CPUs, and takes its pin again once its score
//! reaches [`BUSY_SCORE`] (`runtime::pin::LoadedPin::float`,
//! `docs/idle-pins.md`).
//!
//! Invariants: the governor is advice only. It decides how many yields a
//! search may spend before it re-checks and parks; it never skips the
//! re-check, the park or any step of the sleep protocol (`runtime::sleep`),
//! so it cannot lose a wakeup. It is owned by its worker's thread (`Cell`s,
//! no sharing).
//!
//! The kind of park is not the governor's: a worker parks *lazily*
//! ([`lazy_park`], `Sources::lazy_park`) whenever some other worker is not
//! armed: its re-check skips the heavy fence of its look at the private
//! `join` halves, and it parks for at most [`LAZY_PARK`], re-checking
//! with the fence when that expires ("The lazy park" in
//! `runtime::sleep`). The fence is a `membarrier` whose interrupt lands on
//! every running worker, so a fenced park taken while the others run is
//! paid by all of them, on their critical paths; a lazy park that is
//! woken before its timeout pays no fence at all, and one that expires
//! pays one timer wakeup and the fence it deferred (if some worker is
//! still not armed then). While every other worker is armed the fenced
//! look skips its fence anyway (`private::rules::look_fences`), and the
//! park is untimed: an idle pool's last parker sets no timer.
//!
//! Latch waiters (a stolen `join` half, a `scope`) get a longer budget
//! whatever the score, [`WAIT_STEPS`]: the pause spins and [`WAIT_YIELDS`]
//! yields. Their wait ends with work already running elsewhere (the thief
//! of their half), so the spin is not wasted on an idle pool, and a waiter
//! that parks puts a futex wakeup (tens of microseconds) on the critical
//! path when the thief finishes. The search's budget is shorter than the
//! usual wait for a thief's last chunk; four times its yields cover most
//! of them (the measurements: `docs/iter-paired.md`, "Latch waiters park
//! too early").

use std::cell::Cell;
use std::time::{Duration, Instant};

use super::idle::IdleMasks;

/// Yields of a full budget, after the pause spins, before a search parks
/// (rayon searches 32 rounds with a yield each).
pub(crate) const SEARCH_YIELDS: u32 = 32;

/// The spin steps of `sync::Backoff` (1, 2, .. 64 pauses) before it yields.
pub(crate) const SPIN_STEPS: u32 = 7;

/// The backoff steps of a full budget.
pub(crate) const FULL_STEPS: u32 = SPIN_STEPS + SEARCH_YIELDS;

/// Yields of a latch waiter's budget (see the module docs): four times a
/// search's.
pub(crate) const WAIT_YIELDS: u32 = 4 * SEARCH_YIELDS;

/// The backoff steps of a latch waiter.
pub(crate) const WAIT_STEPS: u32 = SPIN_STEPS + WAIT_YIELDS;

// A waiter never spins less than a searcher with the full budget.
const _: () = assert!(WAIT_STEPS > FULL_STEPS);

/// The backoff steps at score 0: spins of 1, 2, 4 and 8 pauses. The longer
/// spins (up to 64 pauses each, several microseconds in all) are for gaps
/// that a worker at score 0 has not been seeing.
pub(crate) const FLOOR_STEPS: u32 = 4;

/// The governor's score ceiling (full budget).
pub(crate) const MAX_SCORE: u8 = 8;

/// The score from which a worker counts as busy ([`IdleGovernor::busy`]):
/// one search that caught work, or two short parks. Between 0 (light)
/// and this, a worker keeps the affinity it has, so that a score moving
/// between 0 and 1 (a short park now and then at light load) does not
/// set it at every park.
pub(crate) const BUSY_SCORE: u8 = 2;

/// A park shorter than this counts as an idle period a full spin would
/// have covered.
pub(crate) const SHORT_PARK: Duration = Duration::from_micros(50);

/// The timeout of a lazy park: longer than the waits that end with work
/// done elsewhere, so that they rarely expire: the gaps between the short
/// parallel calls of a loop (60 to 80 us between two 50k-element sorts on
/// the machine of `docs/sort-two-workers.md`), a latch waiter's wait for a
/// thief running a block of a data kernel (a 64 x 64 block of a 2048
/// matrix product is about 0.4 ms of work) and an idle worker's wait
/// through the last round of such blocks. An expiry's fenced look
/// interrupts every worker still running, on its critical path, once per
/// expiring worker: at the end of a round of long blocks, every worker
/// that ran out of work expires while the last blocks run. The timeout is
/// also the longest a half missed by the unfenced look can wait (in the
/// race the fence exists for: "The lazy park" in `runtime::sleep`), so it
/// stays a few milliseconds, not unbounded.
pub(crate) const LAZY_PARK: Duration = Duration::from_millis(2);

/// `Sources::lazy_park` of a worker of a pool whose idle state is `idle`
/// (the pool's and the simulator's): [`LAZY_PARK`] while some other
/// worker is not armed (it may be running, and the fence would interrupt
/// it). Otherwise the fenced look skips its fence anyway
/// (`private::rules::look_fences`), and a park without a timeout costs
/// less than a timed one.
#[inline]
pub(crate) fn lazy_park(idle: &IdleMasks) -> Option<Duration> {
    (idle.armed_total() < idle.num_workers()).then_some(LAZY_PARK)
}

/// The per-worker idle governor (see the module docs).
#[derive(Debug)]
pub(crate) struct IdleGovernor {
    score: Cell<u8>,
    /// When the current park began, until the first hook after it.
    parked_at: Cell<Option<Instant>>,
    /// The current search began at a wakeup: what its first pass finds is
    /// the wakeup's work, not the spin's.
    woken: Cell<bool>,
    /// The current search spent its budget without finding work.
    spent: Cell<bool>,
}

impl Default for IdleGovernor {
    fn default() -> Self {
        Self::new()
    }
}

impl IdleGovernor {
    /// A governor with the full budget (a new worker behaves as before
    /// any evidence).
    pub(crate) fn new() -> Self {
        IdleGovernor {
            score: Cell::new(MAX_SCORE),
            parked_at: Cell::new(None),
            woken: Cell::new(false),
            spent: Cell::new(false),
        }
    }

    /// The backoff steps the next search may spend before parking; a
    /// latch waiter (`waits`) gets [`WAIT_STEPS`].
    #[inline]
    pub(crate) fn steps(&self, waits: bool) -> u32 {
        if waits {
            WAIT_STEPS
        } else {
            steps(self.score.get())
        }
    }

    /// The score now.
    #[cfg(test)]
    pub(crate) fn score(&self) -> u8 {
        self.score.get()
    }

    /// The worker is at light load: its recent idle periods were long
    /// (score 0), so an idle worker may leave its pin
    /// (`runtime::pin::LoadedPin::float`).
    #[inline]
    pub(crate) fn light(&self) -> bool {
        self.score.get() == 0
    }

    /// The worker is busy again: it found work while spinning, or its
    /// parks are short (score at least [`BUSY_SCORE`]), so a floating
    /// worker returns to its pin (`runtime::pin::LoadedPin::settle`).
    #[inline]
    pub(crate) fn busy(&self) -> bool {
        self.score.get() >= BUSY_SCORE
    }

    /// A (counted) search starts or resumes after a park.
    #[inline]
    pub(crate) fn opened(&self) {
        self.opened_at(Instant::elapsed);
    }

    /// [`IdleGovernor::opened`] on a clock: `since` is the time from an
    /// instant to now (read only if a park just ended; the simulator's
    /// clock is its virtual time).
    #[inline]
    pub(crate) fn opened_at(&self, since: impl FnOnce(&Instant) -> Duration) {
        self.woken.set(self.end_park(since));
        self.spent.set(false);
    }

    /// The search spent its budget and goes idle.
    #[inline]
    pub(crate) fn spent(&self) {
        self.spent.set(true);
    }

    /// The worker parks now.
    #[cfg(test)]
    pub(crate) fn parking(&self) {
        self.parking_at(Instant::now());
    }

    /// The worker parks at `now` (the simulator's virtual time).
    #[inline]
    pub(crate) fn parking_at(&self, now: Instant) {
        self.parked_at.set(Some(now));
    }

    /// The search stops (work found, latch set) or goes idle. A search
    /// that neither began at a wakeup nor spent its budget found its work
    /// while spinning.
    #[inline]
    pub(crate) fn closed(&self) {
        self.closed_at(Instant::elapsed);
    }

    /// [`IdleGovernor::closed`] on a clock (`since`, read only if a park
    /// just ended, as for [`IdleGovernor::opened_at`]).
    #[inline]
    pub(crate) fn closed_at(&self, since: impl FnOnce(&Instant) -> Duration) {
        if self.end_park(since) {
            return;
        }
        if !self.woken.get() && !self.spent.get() {
            self.score.set(caught(self.score.get()));
            // Counted once: a second close of the same search (the
            // re-check path closes twice) changes nothing.
            self.spent.set(true);
        }
    }

    /// Scores a park that just ended, if one did (`since`: the time from
    /// an instant to now); whether one did.
    #[inline]
    fn end_park(&self, since: impl FnOnce(&Instant) -> Duration) -> bool {
        match self.parked_at.take() {
            Some(t) => {
                let parked = since(&t);
                self.score.set(after_park(self.score.get(), parked));
                true
            }
            None => false,
        }
    }
}

/// The backoff steps of score `score`.
#[inline]
pub(crate) fn steps(score: u8) -> u32 {
    match score.min(MAX_SCORE) {
        0 => FLOOR_STEPS,
        s => SPIN_STEPS + SEARCH_YIELDS * u32::from(s) / u32::from(MAX_SCORE),
    }
}

/// The score after a search that found work while spinning.
#[inline]
pub(crate) fn caught(score: u8) -> u8 {
    score.saturating_add(2).min(MAX_SCORE)
}

/// The score after a park of `parked`.
#[inline]
pub(crate) fn after_park(score: u8, parked: Duration) -> u8 {
    if parked < SHORT_PARK {
        score.saturating_add(1).min(MAX_SCORE)
    } else {
        score.saturating_sub(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_scales_from_short_spins_to_the_full_yields() {
        assert_eq!(steps(0), FLOOR_STEPS);
        assert_eq!(steps(1), SPIN_STEPS + SEARCH_YIELDS / 8);
        assert_eq!(steps(MAX_SCORE / 2), SPIN_STEPS + SEARCH_YIELDS / 2);
        assert_eq!(steps(MAX_SCORE), FULL_STEPS);
        assert_eq!(steps(u8::MAX), FULL_STEPS);
    }

    #[test]
    fn long_parks_lower_the_score_and_short_ones_raise_it() {
        let long = SHORT_PARK * 20;
        let mut s = MAX_SCORE;
        for _ in 0..MAX_SCORE {
            s = after_park(s, long);
        }
        assert_eq!(s, 0);
        assert_eq!(after_park(0, long), 0);
        assert_eq!(after_park(0, Duration::ZERO), 1);
        assert_eq!(after_park(MAX_SCORE, Duration::ZERO), MAX_SCORE);
        assert_eq!(caught(0), 2);
        assert_eq!(caught(MAX_SCORE - 1), MAX_SCORE);
    }

    #[test]
    fn light_after_long_parks_busy_after_a_catch_and_neither_between() {
        let long = SHORT_PARK * 20;
        let g = IdleGovernor::new();
        assert!(g.busy() && !g.light(), "a new worker counts as busy");
        // Long parks only: light once the score reaches 0.
        for _ in 0..MAX_SCORE / 2 {
            assert!(!g.light());
            g.parking();
            g.opened_at(|_| long);
        }
        assert!(g.light() && !g.busy());
        // One short park: neither (the worker keeps what it has).
        g.parking();
        g.opened_at(|_| Duration::ZERO);
        assert_eq!(g.score(), 1);
        assert!(!g.light() && !g.busy());
        // That search began at a wakeup: finding work is no catch.
        g.closed();
        assert_eq!(g.score(), 1);
        // A search that catches work while spinning: busy.
        g.opened();
        g.closed();
        assert_eq!(g.score(), 1 + 2);
        assert!(g.busy());
    }

    #[test]
    fn a_search_that_finds_work_without_parking_raises_the_score() {
        let g = IdleGovernor::new();
        g.score.set(0);
        g.opened();
        g.closed();
        assert_eq!(g.score(), 2);
        // Closed twice (the re-check path): counted once.
        g.closed();
        assert_eq!(g.score(), 2);
    }

    #[test]
    fn a_search_that_spent_its_budget_or_began_at_a_wakeup_is_no_catch() {
        let g = IdleGovernor::new();
        g.score.set(4);
        g.opened();
        g.spent();
        g.closed();
        assert_eq!(g.score(), 4);
        // Parked: the park is scored when the worker resumes, and the
        // job its first pass finds is the wakeup's, not the spin's.
        g.parking();
        g.parked_at.set(Some(Instant::now() - SHORT_PARK * 4));
        g.opened();
        assert_eq!(g.score(), 2);
        g.closed();
        assert_eq!(g.score(), 2);
    }

    #[test]
    fn a_park_is_lazy_while_some_other_worker_is_not_armed() {
        use crate::runtime::idle::IdleShape;
        let idle = IdleMasks::new(IdleShape::uniform(3, 3, 0));
        // The parker is armed (after `prepare_sleep`), the others run:
        // lazy, whatever the parker's past parks (none here).
        idle.set_idle(0);
        assert_eq!(lazy_park(&idle), Some(LAZY_PARK));
        idle.set_idle(1);
        assert_eq!(lazy_park(&idle), Some(LAZY_PARK), "worker 2 runs");
        // The last worker to park: untimed (its look skips the fence).
        idle.set_idle(2);
        assert_eq!(lazy_park(&idle), None);
    }

    #[test]
    fn latch_waiters_get_the_wait_budget_whatever_the_score() {
        let g = IdleGovernor::new();
        g.score.set(0);
        assert_eq!(g.steps(false), FLOOR_STEPS);
        assert_eq!(g.steps(true), WAIT_STEPS);
        g.score.set(MAX_SCORE);
        assert_eq!(g.steps(false), FULL_STEPS);
        assert_eq!(g.steps(true), WAIT_STEPS);
    }
}
