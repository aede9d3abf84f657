//! Tests of the search state machine and its spinning rule.

use super::rules::*;
use super::*;

#[test]
fn latch_waiters_spin_past_the_cap_without_reading_the_count() {
    let count = || -> isize { unreachable!("not read") };
    let alone = || -> bool { unreachable!("not read") };
    let crossing = || -> bool { unreachable!("not read") };
    assert!(may_spin(true, count, alone, crossing, 2));
    assert!(may_spin(false, || 2, alone, crossing, 2));
    assert!(!may_spin(false, || 3, || false, || false, 2));
    // The only searcher of its LLC passes the cap.
    assert!(may_spin(false, || 3, || true, crossing, 2));
    // So does a mate of a worker that just crossed the LLC.
    assert!(may_spin(false, || 3, || false, || true, 2));
    assert_eq!(max_spinners(1), 2);
    assert_eq!(max_spinners(192), 24);
}

use crate::runtime::idle::{Distance, IdleMasks, IdleShape};
use crate::runtime::latch::CoreLatch;
use crate::runtime::sleep::Sleep;
use std::cell::Cell;
use std::rc::Rc;

/// Sets `latch` as a setter does ([`CoreLatch::set`]); whether the owner
/// had announced sleep (the setter then unparks it).
fn set(latch: &CoreLatch) -> bool {
    // SAFETY: a valid reference, alive past the call.
    unsafe { CoreLatch::set(latch) }
}

/// One worker's sources in a pool of one LLC of two workers: `jobs`
/// jobs to find, a latch (the pool's state word, [`CoreLatch`]), and the
/// events reported.
struct Fake {
    sleep: Sleep,
    jobs: Cell<u32>,
    /// What `Sources::mostly_idle` says.
    mostly_idle: bool,
    /// The spinner cap (of a pool of two workers by default).
    cap: isize,
    passes: Vec<Reach>,
    parks: u32,
    failed: u32,
    /// What `more_behind` answers.
    more: bool,
    /// The workers this one woke, in order.
    woke: Vec<usize>,
    /// What `search_steps` answers (the idle governor's budget).
    steps: u32,
    /// What `lazy_park` answers.
    lazy: Option<Duration>,
    /// The lazy re-checks made (blind: they see nothing).
    lazy_passes: u32,
    /// A latch the next fenced pass sets (a setter racing the waiter's
    /// re-check), and what that set's swap read: whether the waiter had
    /// announced sleep (then the setter would unpark it).
    set_in_pass: Option<Rc<CoreLatch>>,
    set_saw_sleeping: Option<bool>,
}

impl Fake {
    fn new() -> Fake {
        Fake::with_workers(2)
    }

    /// The same in a pool of one LLC of `n` workers.
    fn with_workers(n: usize) -> Fake {
        Fake {
            sleep: Sleep::new(IdleMasks::new(IdleShape::uniform(n, n, 0)), n),
            jobs: Cell::new(0),
            mostly_idle: false,
            cap: max_spinners(2),
            passes: Vec::new(),
            parks: 0,
            failed: 0,
            more: false,
            woke: Vec::new(),
            steps: crate::runtime::backoff::FULL_STEPS,
            lazy: None,
            lazy_passes: 0,
            set_in_pass: None,
            set_saw_sleeping: None,
        }
    }
}

impl Sources for Fake {
    type Job = u32;
    type Latch = CoreLatch;
    fn sleep(&self) -> &Sleep {
        &self.sleep
    }
    fn find_work(&mut self, reach: Reach) -> Found<u32> {
        self.passes.push(reach);
        if let Some(l) = self.set_in_pass.take() {
            self.set_saw_sleeping = Some(set(&l));
        }
        match self.jobs.get() {
            0 => Found::Nothing,
            n => {
                self.jobs.set(n - 1);
                Found::Job(n)
            }
        }
    }
    fn may_exit(&self) -> bool {
        false
    }
    fn probe(&self, latch: &CoreLatch) -> bool {
        latch.probe()
    }
    fn try_sleep(&self, latch: &CoreLatch) -> bool {
        latch.try_sleep()
    }
    fn wake_up(&self, latch: &CoreLatch) -> bool {
        latch.wake_up()
    }
    fn max_spinners(&self) -> isize {
        self.cap
    }
    fn mostly_idle(&self) -> bool {
        self.mostly_idle
    }
    fn more_behind(&mut self) -> bool {
        self.more
    }
    fn woke(&mut self, hit: (usize, Distance)) {
        self.woke.push(hit.0);
    }
    fn failed_search(&mut self) {
        self.failed += 1;
    }
    fn parked(&mut self, _waits: bool) {
        self.parks += 1;
    }
    fn lazy_park(&mut self) -> Option<Duration> {
        self.lazy
    }
    fn find_work_lazily(&mut self) -> Found<u32> {
        self.lazy_passes += 1;
        Found::Nothing
    }
    fn search_steps(&self, waits: bool) -> u32 {
        if waits {
            crate::runtime::backoff::FULL_STEPS
        } else {
            self.steps
        }
    }
}

/// Steps `search` until it asks for something other than a pause or
/// another step; returns that and the pauses taken on the way.
fn until_settled(
    search: &mut Search,
    src: &mut Fake,
    latch: Option<&CoreLatch>,
) -> (Step<u32>, Vec<Pause>) {
    let mut pauses = Vec::new();
    loop {
        match search.step(src, latch) {
            Step::Again => {}
            Step::Pause(p) => pauses.push(p),
            other => return (other, pauses),
        }
    }
}

#[test]
fn an_uncounted_pass_that_finds_a_job_leaves_the_searcher_count_alone() {
    let mut src = Fake::new();
    src.jobs.set(1);
    let mut s = Search::new(0, 0);
    assert!(matches!(s.step(&mut src, None), Step::Run(1)));
    assert_eq!(src.passes, [Reach::Near]);
    assert_eq!(src.sleep.searching(), 0);
}

#[test]
fn a_dry_search_backs_off_as_the_backoff_says_then_parks_and_resumes_far() {
    let mut src = Fake::new();
    let mut s = Search::new(0, 0);
    let (step, pauses) = until_settled(&mut s, &mut src, None);
    assert!(matches!(step, Step::Park));
    assert!(s.idle().is_some(), "a parking search holds its token");
    // The pauses are the backoff's own: doubling spins, then yields.
    let mut b = Backoff::new(crate::runtime::backoff::FULL_STEPS);
    let mut expected = Vec::new();
    while !b.is_completed() {
        expected.push(b.snooze());
    }
    assert_eq!(pauses, expected);
    assert_eq!(pauses[0], Pause::Spin(1));
    assert_eq!(pauses.last(), Some(&Pause::Yield));
    // One uncounted pass, one counted pass per pause and one more
    // that found nothing, then the re-check.
    assert_eq!(src.passes.len(), 1 + pauses.len() + 1 + 1);
    assert_eq!(src.passes[1..=NEAR_PASSES as usize - 1], [Reach::Near; 19]);
    assert_eq!(src.passes.last(), Some(&Reach::Far));
    assert_eq!((src.failed, src.parks), (1, 1));
    assert_eq!(src.sleep.searching(), 0);
    assert!(src.sleep.idle().is_idle(0));
    // A push claims it; the step after the park finds the job with a
    // far pass and leaves the searching state.
    src.jobs.set(1);
    let claimed = src.sleep.notify(Some(1), 0);
    assert_eq!(claimed.map(|(w, _)| w), Some(0));
    src.passes.clear();
    assert!(matches!(s.step(&mut src, None), Step::Run(1)));
    assert_eq!(src.passes, [Reach::Far]);
    assert_eq!(src.sleep.searching(), 0);
    assert!(!src.sleep.idle().is_idle(0));
}

#[test]
fn in_a_mostly_idle_pool_a_dry_search_spins_only_its_near_passes() {
    // However big the pool, a search without a latch that began at an
    // empty deque makes its near passes and one far pass (the re-check).
    let mut src = Fake::new();
    src.mostly_idle = true;
    src.cap = max_spinners(4096);
    let mut s = Search::new(0, 0);
    let (step, _) = until_settled(&mut s, &mut src, None);
    assert!(matches!(step, Step::Park));
    assert_eq!(src.passes.len(), NEAR_PASSES as usize + 1);
    let far = src.passes.iter().filter(|&&r| r == Reach::Far).count();
    assert_eq!(far, 1, "the re-check alone looks far");
    assert_eq!(src.passes.last(), Some(&Reach::Far));
    assert_eq!((src.failed, src.parks), (1, 1));
    assert_eq!(src.sleep.searching(), 0);

    // A latch waiter keeps its whole budget.
    let mut src = Fake::new();
    src.mostly_idle = true;
    src.cap = max_spinners(4096);
    let latch = CoreLatch::new();
    let (step, pauses) = until_settled(&mut Search::new(0, 0), &mut src, Some(&latch));
    assert!(matches!(step, Step::Park));
    assert_eq!(pauses.len(), crate::runtime::backoff::FULL_STEPS as usize);
    assert!(src.passes.len() > NEAR_PASSES as usize + 1);
}

#[test]
fn in_a_mostly_idle_pool_spinners_over_the_constant_cap_go_idle_at_once() {
    let count = || -> isize { unreachable!("not read") };
    let busy = || -> bool { unreachable!("not read") };
    let alone = || -> bool { unreachable!("not read") };
    let idle = || true;
    let spin_on = |waits, woken, small, next| (waits, woken, small, next);
    // Latch waiters, woken searches and small pools read no hint.
    for (waits, woken, small, next) in [
        spin_on(true, false, false, NEAR_PASSES),
        spin_on(false, true, false, NEAR_PASSES),
        spin_on(false, false, true, NEAR_PASSES),
    ] {
        assert!(may_spin_on(waits, woken, small, next, busy, count, alone));
    }
    // A busy pool: no limit here (the spinner cap of `may_spin` applies).
    let not_idle = || false;
    assert!(may_spin_on(
        false,
        false,
        false,
        NEAR_PASSES,
        not_idle,
        count,
        alone
    ));
    // Mostly idle: near passes only, and at most IDLE_SPINNERS searchers,
    // whatever the pool's size, or the only searcher of an LLC.
    let at_cap = || IDLE_SPINNERS;
    assert!(may_spin_on(false, false, false, 1, idle, at_cap, alone));
    let over = || IDLE_SPINNERS + 1;
    assert!(!may_spin_on(false, false, false, 1, idle, over, || false));
    assert!(may_spin_on(false, false, false, 1, idle, over, || true));
    assert!(!may_spin_on(
        false,
        false,
        false,
        NEAR_PASSES,
        idle,
        count,
        alone
    ));

    // Eight other searchers (claimed, so counted) in a mostly idle pool
    // whose own cap (N / 8) is far above: the ninth makes its uncounted
    // pass, one counted pass, the re-check.
    let mut src = Fake::new();
    src.sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(16, 16, 0)), 16);
    src.mostly_idle = true;
    src.cap = max_spinners(4096);
    for w in 1..16 {
        src.sleep.start_searching(w);
        let _ = src.sleep.prepare_sleep(w);
    }
    for _ in 0..IDLE_SPINNERS {
        assert!(src.sleep.wake_in(None, 0).is_some());
    }
    let (step, pauses) = until_settled(&mut Search::new(0, 0), &mut src, None);
    assert!(matches!(step, Step::Park));
    assert!(pauses.is_empty());
    assert_eq!(src.passes, [Reach::Near, Reach::Near, Reach::Far]);
}

#[test]
fn a_latch_waiter_stops_when_its_latch_is_set_before_or_after_parking() {
    // Set while it searches: done at its next pass, counted off.
    let mut src = Fake::new();
    let latch = CoreLatch::new();
    let mut s = Search::new(0, 0);
    assert!(matches!(s.step(&mut src, Some(&latch)), Step::Again));
    assert_eq!(src.sleep.searching(), 1);
    assert!(!set(&latch), "not announced: nobody to wake");
    assert!(matches!(s.step(&mut src, Some(&latch)), Step::Done));
    assert_eq!(src.sleep.searching(), 0);
    // Set while it is parked: the step after the park ends it without
    // a pass.
    let mut src = Fake::new();
    let latch = CoreLatch::new();
    let mut s = Search::new(0, 0);
    let (step, _) = until_settled(&mut s, &mut src, Some(&latch));
    assert!(matches!(step, Step::Park));
    assert!(set(&latch), "announced: the setter wakes it");
    let passes = src.passes.len();
    assert!(matches!(s.step(&mut src, Some(&latch)), Step::Done));
    assert_eq!(src.passes.len(), passes);
    assert_eq!(src.sleep.searching(), 0);
    assert!(!src.sleep.idle().is_idle(0));
}

#[test]
fn a_worker_born_idle_parks_before_its_first_pass() {
    let mut src = Fake::new();
    let idle = src.sleep.born_idle(1);
    let mut s = Search::born(1, 0, idle);
    assert!(s.idle().is_some());
    src.jobs.set(1);
    let claimed = src.sleep.notify(None, 0);
    assert!(claimed.is_some());
    assert!(matches!(s.step(&mut src, None), Step::Run(1)));
    assert_eq!(src.passes, [Reach::Far]);
    assert_eq!(src.sleep.searching(), 0);
}

/// Worker 0 of a pool of `n` born idle, claimed by a push from outside
/// with `jobs` jobs to find, its search about to step after the park.
fn claimed_worker_zero(n: usize, jobs: u32, more: bool) -> (Fake, Search, Vec<Idle>) {
    let mut src = Fake::with_workers(n);
    src.more = more;
    let mut tokens: Vec<Idle> = (0..n).map(|w| src.sleep.born_idle(w)).collect();
    let s = Search::born(0, 0, tokens.remove(0));
    src.jobs.set(jobs);
    let claimed = src.sleep.notify(None, 0);
    assert_eq!(claimed.map(|(w, _)| w), Some(0));
    (src, s, tokens)
}

#[test]
fn a_woken_search_that_finds_more_behind_wakes_the_fan_out() {
    let (mut src, mut s, _tokens) = claimed_worker_zero(6, 3, true);
    assert!(matches!(s.step(&mut src, None), Step::Run(3)));
    // The last searcher's hand-off, then RAMP_FANOUT more, each claimed
    // and counted as searching.
    let woken = 1 + RAMP_FANOUT as usize;
    assert_eq!(src.woke.len(), woken);
    assert!(!src.woke.contains(&0));
    assert_eq!(src.sleep.searching(), woken as isize);
    for &w in &src.woke {
        assert!(!src.sleep.idle().is_idle(w));
    }
}

#[test]
fn a_woken_search_with_nothing_behind_its_job_wakes_only_the_hand_off() {
    let (mut src, mut s, _tokens) = claimed_worker_zero(6, 1, false);
    assert!(matches!(s.step(&mut src, None), Step::Run(1)));
    assert_eq!(src.woke.len(), 1, "the last searcher's hand-off alone");
    assert_eq!(src.sleep.searching(), 1);
}

#[test]
fn the_fan_out_wakes_while_others_search_and_stops_when_nobody_is_idle() {
    // Another worker searches, so worker 0 is not the last searcher: no
    // hand-off, but the fan-out still claims; with two idle workers left
    // it claims both and no more.
    let (mut src, mut s, mut tokens) = claimed_worker_zero(4, 2, true);
    src.sleep.cancel_sleep(tokens.remove(0));
    assert_eq!(src.sleep.searching(), 2);
    assert!(matches!(s.step(&mut src, None), Step::Run(2)));
    assert_eq!(src.woke.len(), 2.min(RAMP_FANOUT as usize));
    if RAMP_FANOUT >= 2 {
        assert!((0..4).all(|w| !src.sleep.idle().is_idle(w)));
    }
    // A search that began at an empty deque (not woken) never fans out.
    let mut busy = Fake::with_workers(4);
    busy.more = true;
    let _idle: Vec<Idle> = (1..4).map(|w| busy.sleep.born_idle(w)).collect();
    busy.jobs.set(1);
    let mut s = Search::new(0, 0);
    assert!(matches!(s.step(&mut busy, None), Step::Run(1)));
    assert!(busy.woke.is_empty());
}

#[test]
fn over_the_cap_only_a_long_budget_reads_the_llc_count() {
    let count = || -> isize { unreachable!("not read") };
    assert!(!may_spin_over_cap(false, count));
    assert!(may_spin_over_cap(true, || LLC_SPINNERS));
    assert!(!may_spin_over_cap(true, || LLC_SPINNERS + 1));
}

/// A busy pool of one LLC of `n` workers (not mostly idle) whose spinner
/// cap is 2, where `others` workers besides worker 0 search.
fn over_the_cap(n: usize, others: usize) -> Fake {
    let src = Fake::with_workers(n);
    for w in 1..=others {
        src.sleep.start_searching(w);
    }
    src
}

#[test]
fn over_the_cap_a_search_with_a_long_budget_spins_far_then_parks() {
    let mut src = over_the_cap(16, 4);
    let mut s = Search::new(0, 0);
    let (step, pauses) = until_settled(&mut s, &mut src, None);
    assert!(matches!(step, Step::Park));
    // The whole budget, as under the cap ...
    assert_eq!(pauses.len(), crate::runtime::backoff::FULL_STEPS as usize);
    // ... but every pass after the first counted one (which found it over
    // the cap) looks far: the uncounted pass, one counted near pass, the
    // spins' far passes and the re-check.
    assert_eq!(src.passes.len(), 1 + pauses.len() + 1 + 1);
    assert_eq!(src.passes[..2], [Reach::Near, Reach::Near]);
    assert!(src.passes[2..].iter().all(|&r| r == Reach::Far));
    assert_eq!((src.failed, src.parks), (1, 1));
    assert_eq!(src.sleep.searching(), 4);
}

#[test]
fn over_the_cap_a_short_budget_or_a_crowded_llc_goes_idle_at_once() {
    // The governor saw long gaps: a budget under LONG_BUDGET.
    let mut src = over_the_cap(16, 4);
    src.steps = LONG_BUDGET - 1;
    let (step, pauses) = until_settled(&mut Search::new(0, 0), &mut src, None);
    assert!(matches!(step, Step::Park));
    assert!(pauses.is_empty());
    assert_eq!(src.passes, [Reach::Near, Reach::Near, Reach::Far]);

    // More than LLC_SPINNERS searchers in the LLC (the pool's, in a pool
    // of one LLC).
    let n = LLC_SPINNERS as usize + 8;
    let mut src = over_the_cap(n, LLC_SPINNERS as usize);
    let (step, pauses) = until_settled(&mut Search::new(0, 0), &mut src, None);
    assert!(matches!(step, Step::Park));
    assert!(pauses.is_empty());
    assert_eq!(src.passes, [Reach::Near, Reach::Near, Reach::Far]);

    // Under the cap nothing changes: near passes first.
    let mut src = over_the_cap(16, 1);
    let (step, _) = until_settled(&mut Search::new(0, 0), &mut src, None);
    assert!(matches!(step, Step::Park));
    assert_eq!(src.passes[1..NEAR_PASSES as usize], [Reach::Near; 19]);
}

/// Worker 0 of a pool of two, parked lazily (for `LAZY`) after a dry
/// search whose lazy re-check saw nothing.
fn parked_lazily() -> (Fake, Search) {
    let mut src = Fake::new();
    src.lazy = Some(LAZY);
    let mut s = Search::new(0, 0);
    let (step, _) = until_settled(&mut s, &mut src, None);
    assert!(matches!(step, Step::Park));
    assert_eq!(s.lazy().map(|(_, t)| t), Some(LAZY));
    assert!(s.idle().is_none(), "a lazy park is timed");
    assert_eq!((src.lazy_passes, src.parks), (1, 1));
    assert!(src.sleep.idle().is_idle(0));
    src.passes.clear();
    (src, s)
}

const LAZY: Duration = Duration::from_micros(200);

#[test]
fn a_lazy_park_whose_timeout_expires_rechecks_fenced_then_parks_untimed() {
    let (mut src, mut s) = parked_lazily();
    // The timeout expired: the fenced re-check, then a park without one,
    // still idle and not counted again as a park.
    assert!(matches!(s.step(&mut src, None), Step::Park));
    assert_eq!(src.passes, [Reach::Far]);
    assert!(s.lazy().is_none() && s.idle().is_some());
    assert_eq!((src.lazy_passes, src.parks), (1, 1));
    assert!(src.sleep.idle().is_idle(0));
    assert_eq!(src.sleep.searching(), 0);
    // A job that came meanwhile: the fenced re-check finds it.
    let (mut src, mut s) = parked_lazily();
    src.jobs.set(1);
    assert!(matches!(s.step(&mut src, None), Step::Run(1)));
    assert_eq!(src.passes, [Reach::Far]);
    assert!(!src.sleep.idle().is_idle(0));
    assert_eq!(src.sleep.searching(), 0);
}

#[test]
fn a_lazy_park_ended_by_a_wakeup_resumes_as_any_park() {
    let (mut src, mut s) = parked_lazily();
    src.jobs.set(1);
    let claimed = src.sleep.notify(Some(1), 0);
    assert_eq!(claimed.map(|(w, _)| w), Some(0));
    assert!(src.sleep.park_for(s.lazy().unwrap().0, LAZY));
    s.woken();
    assert!(s.lazy().is_none() && s.idle().is_some());
    assert!(matches!(s.step(&mut src, None), Step::Run(1)));
    assert_eq!(src.passes, [Reach::Far]);
    assert_eq!(src.sleep.searching(), 0);
    assert!(!src.sleep.idle().is_idle(0));
}

/// Worker 0 of a pool of two, waiting for `latch`, parked lazily (for
/// `LAZY`) after a dry search whose lazy re-check saw nothing, announced
/// on its latch.
fn latch_waiter_parked_lazily(latch: &CoreLatch) -> (Fake, Search) {
    let mut src = Fake::new();
    src.lazy = Some(LAZY);
    let mut s = Search::new(0, 0);
    let (step, _) = until_settled(&mut s, &mut src, Some(latch));
    assert!(matches!(step, Step::Park));
    assert_eq!(
        s.lazy().map(|(_, t)| t),
        Some(LAZY),
        "a latch waiter parks lazily"
    );
    assert_eq!((src.lazy_passes, src.parks), (1, 1));
    assert!(src.sleep.idle().is_idle(0));
    src.passes.clear();
    (src, s)
}

/// The end of a latch waiter's search: working (bit clear, not counted).
fn left(src: &Fake) {
    assert!(!src.sleep.idle().is_idle(0));
    assert_eq!(src.sleep.searching(), 0);
}

#[test]
fn a_latch_waiter_whose_lazy_park_expires_announces_again_before_the_untimed_park() {
    let latch = CoreLatch::new();
    let (mut src, mut s) = latch_waiter_parked_lazily(&latch);
    // The timeout expired: the announcement withdrawn, the fenced
    // re-check, announced again, the untimed park.
    assert!(matches!(s.step(&mut src, Some(&latch)), Step::Park));
    assert_eq!(src.passes, [Reach::Far]);
    assert!(s.lazy().is_none() && s.idle().is_some());
    assert_eq!((src.lazy_passes, src.parks), (1, 1));
    assert!(src.sleep.idle().is_idle(0));
    // The setter sees the announcement (and unparks); the step after the
    // park stops without a pass.
    assert!(set(&latch));
    assert!(matches!(s.step(&mut src, Some(&latch)), Step::Done));
    assert_eq!(src.passes, [Reach::Far]);
    left(&src);
}

#[test]
fn a_latch_set_during_a_lazy_park_wakes_the_waiter_or_ends_it_at_the_timeout() {
    // The setter's unpark reaches the timed park: woken, it stops.
    let latch = CoreLatch::new();
    let (mut src, mut s) = latch_waiter_parked_lazily(&latch);
    assert!(
        set(&latch),
        "the lazy waiter announced: the setter wakes it"
    );
    src.sleep.wake_worker(0);
    assert!(src.sleep.park_for(s.lazy().unwrap().0, LAZY));
    s.woken();
    assert!(matches!(s.step(&mut src, Some(&latch)), Step::Done));
    assert!(src.passes.is_empty());
    left(&src);
    // The timeout wins the race with the unpark: the withdrawal reads the
    // latch set, and the waiter stops without a pass (the unpark's token
    // is a stale one).
    let latch = CoreLatch::new();
    let (mut src, mut s) = latch_waiter_parked_lazily(&latch);
    assert!(set(&latch));
    assert!(matches!(s.step(&mut src, Some(&latch)), Step::Done));
    assert!(src.passes.is_empty());
    left(&src);
}

#[test]
fn a_latch_set_during_the_fenced_recheck_after_the_timeout_wakes_nobody_and_ends_the_wait() {
    let latch = Rc::new(CoreLatch::new());
    let (mut src, mut s) = latch_waiter_parked_lazily(&latch);
    // Set by the fenced re-check's pass: after the withdrawal, so the
    // setter reads the latch unannounced and unparks nobody, and the
    // waiter does not park.
    src.set_in_pass = Some(Rc::clone(&latch));
    assert!(matches!(s.step(&mut src, Some(&latch)), Step::Done));
    assert_eq!(src.set_saw_sleeping, Some(false));
    assert_eq!(src.passes, [Reach::Far]);
    left(&src);
}

#[test]
fn a_latch_waiter_whose_fenced_recheck_finds_a_job_leaves_its_latch_unannounced() {
    let latch = CoreLatch::new();
    let (mut src, mut s) = latch_waiter_parked_lazily(&latch);
    src.jobs.set(1);
    assert!(matches!(s.step(&mut src, Some(&latch)), Step::Run(1)));
    assert_eq!(src.passes, [Reach::Far]);
    left(&src);
    // It runs the job, then waits again: the latch reads unset and
    // unannounced, so the next search announces and parks (a word left
    // announced would fail that `try_sleep`, read as a set latch).
    let mut s = Search::new(0, 0);
    let (step, _) = until_settled(&mut s, &mut src, Some(&latch));
    assert!(matches!(step, Step::Park));
    assert!(s.lazy().is_some());
    assert!(set(&latch), "announced by the new search alone");
}

#[test]
fn a_latch_waiter_parks_untimed_when_every_other_worker_is_armed() {
    let mut src = Fake::new();
    src.lazy = None;
    let latch = CoreLatch::new();
    let mut s = Search::new(0, 0);
    let (step, _) = until_settled(&mut s, &mut src, Some(&latch));
    assert!(matches!(step, Step::Park));
    assert!(s.lazy().is_none() && s.idle().is_some());
    assert_eq!(src.lazy_passes, 0);
    assert_eq!(src.passes.last(), Some(&Reach::Far));
}
