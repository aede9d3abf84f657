//! The search/sleep state machine of a worker whose own deque ran dry,
//! generic over where it looks for work.
//!
//! [`search`] is the only driver of [`Sleep`]'s protocol in the pool: the
//! states and the proof that no wakeup is lost are in [`super::sleep`]; this
//! module is the loop that walks them:
//!
//! ```text
//! pass, uncounted ─────────────────────────── job ──> return it
//!   │ nothing
//! start_searching
//!   │
//!   ├─> pass ── job ───────────────────────────────────> stop_searching, return it
//!   │    │ retry: spin, pass again
//!   │    │ nothing, finished ──────────────────────────> stop_searching, return None
//!   │    │ nothing, may spin (or over the cap: far passes): spin, pass again
//!   │    v
//!   │  prepare_sleep, re-check pass
//!   │    ├─ job / finished ──────────> cancel_sleep ───> stop_searching, return …
//!   ├────┼─ retry ───────────────────> cancel_sleep
//!   │    │ nothing; a latch waiter announces sleep on its latch:
//!   │    ├─ latch already set ───────> cancel_sleep ───> stop_searching, return None
//!   │    v
//!   │  sleep (park; searching again on return)
//!   │    ├─ latch set ─────────────────────────────────> stop_searching, return None
//!   └────┘
//! ```
//!
//! "Finished" is the latch being set when the worker waits for one (a
//! `join`, `scope`, `broadcast` or cross-pool `install`), else the pool's
//! exit condition ([`Sources::may_exit`]).
//!
//! A *lazy* park ([`Sources::lazy_park`] gives a timeout, latch or not)
//! makes the re-check pass with its look at the private `join` halves
//! unfenced and parks for at most the timeout. When the timeout expires
//! (no wakeup), a latch waiter withdraws its announcement (a latch set
//! meanwhile: `cancel_sleep`, `stop_searching`, return None) and the
//! search takes the re-check pass again, fenced, before the untimed park
//! ("The lazy park" in [`super::sleep`]).
//!
//! Besides the protocol, a counted searcher records the CPU it searches on
//! and, between passes and when it stops searching, wakes a blocked caller
//! from outside the pool whose wakeup the worker finishing the caller's
//! job handed to it ([`Sources::search_opened`], [`Sources::serve_handoff`],
//! [`Sources::search_closed`]; see `runtime::handoff`). None of this
//! touches the sleep protocol's words: a handoff the searcher does not
//! serve in time is taken back by its finisher.
//!
//! # One copy, three drivers
//!
//! The loop is a state machine, [`Search`]: each [`Search::step`] runs
//! the protocol up to the next point where time must pass and says what
//! its driver does before the next step ([`Step`]: run a job, stop, step
//! again, spin or yield ([`Pause`]), park). Three drivers step it:
//!
//! - the threads, through [`search`] and [`first_search`], which spin,
//!   yield and park for real (`&WorkerThread` is their [`Sources`]);
//! - the loom models in `loom-tests/`, through the same two functions over
//!   model queues (crossbeam's deques are not loom-aware);
//! - the simulator (`sim`, feature `sim`), which charges each step's
//!   passes and pauses as simulated time and puts a simulated wake
//!   latency between [`Step::Park`] and the next step (a lazy park's
//!   timeout is an event of its clock).
//!
//! The spinner caps and the reach of the first passes, which decide only
//! how long a searcher looks before its re-check, are `rules`.
//!
//! The pool instantiates it once, for `&WorkerThread`, where the driver's
//! loop and the steps inline into one loop, as when the loop was a method
//! of the worker.

use std::time::Duration;

use crate::sync::{Backoff, Pause, pause};

use super::sleep::Idle;
#[cfg(doc)]
use super::sleep::Sleep;

use rules::{
    IDLE_SPINNERS, LONG_BUDGET, NEAR_PASSES, RAMP_FANOUT, may_spin, may_spin_on, may_spin_over_cap,
};

pub(crate) mod rules;
mod sources;

pub use sources::Sources;

/// What one pass over a worker's sources found.
pub enum Found<J> {
    /// A job, already taken out of its queue (the caller runs it once).
    Job(J),
    /// A source reported contention (a lost race on a steal): pass again
    /// before sleeping.
    Retry,
    /// Every source looked empty.
    Nothing,
}

/// A crossbeam steal as a pass's answer (`Retry`: a lost race).
impl<J> From<crossbeam_deque::Steal<J>> for Found<J> {
    #[inline]
    fn from(s: crossbeam_deque::Steal<J>) -> Self {
        match s {
            crossbeam_deque::Steal::Success(job) => Found::Job(job),
            crossbeam_deque::Steal::Retry => Found::Retry,
            crossbeam_deque::Steal::Empty => Found::Nothing,
        }
    }
}

/// How far one pass looks (see "Near passes" in `runtime::pass`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The own queues and the steal tiers inside the worker's LLC.
    Near,
    /// Every source.
    Far,
}

/// The reach of pass number `n` of a search (0: the uncounted first pass;
/// the count restarts after a re-check that found contention), for a
/// search that began at an empty deque (`woken` false) or after a park.
#[inline]
pub(crate) fn reach_of_pass(n: u32, woken: bool) -> Reach {
    if woken || n >= NEAR_PASSES {
        Reach::Far
    } else {
        Reach::Near
    }
}

/// What the driver of a [`Search`] does after a step.
#[derive(Debug)]
pub(crate) enum Step<J> {
    /// Run this job: the search is over and the worker is *working* (not
    /// counted as searching, its idle bit clear).
    Run(J),
    /// The search is over without a job: the latch is set (with a latch)
    /// or the worker may exit (without one). The worker is working.
    Done,
    /// Step again at once (a point where the simulator lets time pass: a
    /// pass was made).
    Again,
    /// Take this pause, then step again.
    Pause(Pause),
    /// Park ([`Sleep::park`] with [`Search::idle`]) until woken, then
    /// step again; a lazy park ([`Search::lazy`]) parks for at most its
    /// timeout ([`Sleep::park_for`]) and reports a wakeup with
    /// [`Search::woken`] before the next step.
    Park,
}

/// Where a [`Search`] is.
#[derive(Debug)]
enum State {
    /// Before the uncounted first pass.
    Uncounted,
    /// Counted as searching: the next step is a pass.
    Counted,
    /// Idle, the re-check found nothing: parked (or about to park) with
    /// this token.
    Parked(Idle),
    /// Idle after a lazy park's re-check (its private look unfenced): parked
    /// for at most this long (a latch waiter announced on its latch); the
    /// next step, unless the driver reports a wakeup, is
    /// [`Search::expired`].
    Lazy(Idle, Duration),
}

/// The search of worker `worker` of LLC `llc` whose own deque ran dry, as
/// a state machine (the diagram of the module docs; one [`Search::step`]
/// per arrow that ends in a pass, a pause or a park).
///
/// Over the cap: a search that found nothing while more workers search
/// than the pool's spinner cap ([`may_spin`] says no) and whose budget is
/// long spins on if [`may_spin_over_cap`] allows it; from then on its
/// passes are [`Reach::Far`] (the look its re-check would take, repeated
/// during its backoff) and it spins until its backoff is completed or
/// [`may_spin_on`] says no, then goes idle as any search does.
#[derive(Debug)]
pub(crate) struct Search {
    worker: usize,
    llc: usize,
    state: State,
    backoff: Backoff,
    /// Passes made since the search (re)started counting, for
    /// [`reach_of_pass`] (0: the uncounted first pass).
    passes: u32,
    /// Whether the search resumed after a park (all its passes are far).
    woken: bool,
    /// Whether its budget is long ([`LONG_BUDGET`], for
    /// [`may_spin_over_cap`]).
    long_budget: bool,
    /// Whether it spins over the pool's spinner cap (its passes are far).
    over_cap: bool,
}

impl Search {
    /// A search that begins at an empty deque: its first pass uncounted.
    #[inline]
    pub(crate) fn new(worker: usize, llc: usize) -> Search {
        Search {
            worker,
            llc,
            state: State::Uncounted,
            backoff: Backoff::new(super::backoff::FULL_STEPS),
            passes: 0,
            woken: false,
            long_budget: true,
            over_cap: false,
        }
    }

    /// The first search of a worker *born idle* ([`Sleep::born_idle`],
    /// "Born idle" in [`super::sleep`]), which owns `idle`: its driver
    /// parks at once ([`Search::idle`]), without a pass (nothing was pushed
    /// before its bit was set), and steps once something wakes it, as a
    /// search woken from a park does.
    #[inline]
    pub(crate) fn born(worker: usize, llc: usize, idle: Idle) -> Search {
        Search {
            state: State::Parked(idle),
            ..Search::new(worker, llc)
        }
    }

    /// The idle token of a search that parks ([`Step::Park`], or
    /// [`Search::born`]), for [`Sleep::park`].
    #[inline]
    pub(crate) fn idle(&self) -> Option<&Idle> {
        match &self.state {
            State::Parked(idle) => Some(idle),
            _ => None,
        }
    }

    /// The idle token and timeout of a lazy park ([`Step::Park`] after a
    /// lazy re-check), for [`Sleep::park_for`].
    #[inline]
    pub(crate) fn lazy(&self) -> Option<(&Idle, Duration)> {
        match &self.state {
            State::Lazy(idle, timeout) => Some((idle, *timeout)),
            _ => None,
        }
    }

    /// The lazy park ended with a wakeup (not its timeout): the next step
    /// resumes the search as after any park.
    #[inline]
    pub(crate) fn woken(&mut self) {
        if let State::Lazy(idle, _) = std::mem::replace(&mut self.state, State::Counted) {
            self.state = State::Parked(idle);
        }
    }

    /// Runs the search up to its next pass, pause or park. `latch`: what
    /// the worker waits for, if it waits (else it searches until the pool
    /// may exit).
    #[inline]
    pub(crate) fn step<S: Sources>(
        &mut self,
        src: &mut S,
        latch: Option<&S::Latch>,
    ) -> Step<S::Job> {
        match std::mem::replace(&mut self.state, State::Counted) {
            State::Uncounted => {
                // A first look without announcing ourselves: when it finds
                // a job (the common case while work is plentiful) the
                // shared `searching` count is not touched, so thieves and
                // pushers do not bounce its cache line on every steal.
                // Sound: the sleep proof relies only on *counted* searchers
                // re-checking; an uncounted worker that finds a job is
                // simply working.
                if let Found::Job(job) = src.find_work(reach_of_pass(0, false)) {
                    return Step::Run(job);
                }
                src.sleep().start_searching(self.worker);
                src.search_opened();
                self.budget(src, latch.is_some());
                self.passes = 1;
                Step::Again
            }
            State::Parked(idle) => {
                // Back from the park: searching again (counted by ourselves
                // or by our claimer).
                src.sleep().cancel_sleep(idle);
                // A latch waiter woken for its latch leaves at once, through
                // `found`: if a claimer counted it (it may have been claimed
                // for a job it will not look for), its `stop_searching`
                // hands the wakeup on (see "Why no wakeup is lost" in
                // `sleep`).
                if let Some(l) = latch {
                    if src.wake_up(l) {
                        return self.found(src, None);
                    }
                }
                src.search_opened();
                self.budget(src, latch.is_some());
                self.woken = true;
                self.pass(src, latch)
            }
            State::Counted => self.pass(src, latch),
            State::Lazy(idle, _) => self.expired(src, latch, idle),
        }
    }

    /// The lazy park's timeout expired, the worker still idle (it holds
    /// `idle`): the fenced re-check, then an untimed park. A latch waiter
    /// first withdraws its sleep announcement ([`Sources::wake_up`]), so
    /// that the re-check starts from the latch's state before its first
    /// [`Sources::try_sleep`]: if the latch was set meanwhile (its setter
    /// saw the announcement and unparks: a stale token), it stops here;
    /// else the latch is unset and unannounced, and the re-check
    /// announces again before the untimed park ("The lazy park" in
    /// [`super::sleep`]).
    #[cold]
    fn expired<S: Sources>(
        &mut self,
        src: &mut S,
        latch: Option<&S::Latch>,
        idle: Idle,
    ) -> Step<S::Job> {
        if let Some(l) = latch {
            if src.wake_up(l) {
                src.sleep().cancel_sleep(idle);
                return self.found(src, None);
            }
        }
        self.recheck(src, latch, idle, None)
    }

    /// Starts the backoff over with the budget `src` gives (`waits`: a
    /// latch waiter's).
    #[inline]
    fn budget<S: Sources>(&mut self, src: &S, waits: bool) {
        let steps = src.search_steps(waits);
        self.backoff.reset(steps);
        self.long_budget = steps >= LONG_BUDGET;
    }

    /// A counted pass, then what its outcome asks for.
    #[inline]
    fn pass<S: Sources>(&mut self, src: &mut S, latch: Option<&S::Latch>) -> Step<S::Job> {
        let reach = if self.over_cap {
            Reach::Far
        } else {
            reach_of_pass(self.passes, self.woken)
        };
        self.passes = self.passes.saturating_add(1);
        match src.find_work(reach) {
            Found::Job(job) => return self.found(src, Some(job)),
            Found::Retry => return Step::Pause(self.backoff.spin()),
            Found::Nothing => {}
        }
        if finished(src, latch) {
            return self.found(src, None);
        }
        src.serve_handoff();
        if !self.backoff.is_completed()
            && (self.over_cap
                || may_spin(
                    latch.is_some(),
                    || src.sleep().searching(),
                    || src.sleep().alone_in(self.llc),
                    || src.mate_crossing(),
                    src.max_spinners(),
                )
                || self.spin_over_cap(src))
            && may_spin_on(
                latch.is_some(),
                self.woken,
                src.max_spinners() <= IDLE_SPINNERS,
                self.passes,
                || src.mostly_idle(),
                || src.sleep().searching(),
                || src.sleep().alone_in(self.llc),
            )
        {
            return Step::Pause(self.backoff.snooze());
        }
        self.go_idle(src, latch)
    }

    /// Over the pool's spinner cap: whether to spin on with far passes
    /// ([`may_spin_over_cap`]; once it does, the rest of this search
    /// does, within its budget and [`may_spin_on`]). Out of line: a pool
    /// of one or two workers never gets here (its cap is 2), and the
    /// search loop of a small pool stays as it was.
    #[cold]
    #[inline(never)]
    fn spin_over_cap<S: Sources>(&mut self, src: &S) -> bool {
        let llc = self.llc;
        self.over_cap = may_spin_over_cap(self.long_budget, || {
            // A searcher is counted in its LLC where the pool keeps
            // per-LLC counts: 0 means a pool of one LLC.
            match src.sleep().searching_in(llc) {
                0 => src.sleep().searching(),
                n => n,
            }
        });
        self.over_cap
    }

    /// Nothing after spinning: go idle, re-check, park.
    #[cold]
    fn go_idle<S: Sources>(&mut self, src: &mut S, latch: Option<&S::Latch>) -> Step<S::Job> {
        src.failed_search();
        src.search_closed();
        let worker = self.worker;
        let idle = src.idle_op(|s| s.prepare_sleep(worker));
        let lazy = src.lazy_park();
        let step = self.recheck(src, latch, idle, lazy);
        if matches!(step, Step::Park) {
            // One park per idle period, lazy or not (a lazy park whose
            // timeout expires parks again without counting).
            src.parked(latch.is_some());
        }
        step
    }

    /// The re-check of a worker that holds `idle` (after `prepare_sleep`),
    /// with the private look fenced unless `lazy`, then what it found asks
    /// for: run a job, stop, search again, or park (lazily, for at most
    /// the timeout, if `lazy`).
    fn recheck<S: Sources>(
        &mut self,
        src: &mut S,
        latch: Option<&S::Latch>,
        idle: Idle,
        lazy: Option<Duration>,
    ) -> Step<S::Job> {
        let recheck = match lazy {
            Some(_) => src.find_work_lazily(),
            None => src.find_work(Reach::Far),
        };
        if let Found::Job(job) = recheck {
            src.sleep().cancel_sleep(idle);
            return self.found(src, Some(job));
        }
        if finished(src, latch) {
            src.sleep().cancel_sleep(idle);
            return self.found(src, None);
        }
        if matches!(recheck, Found::Retry) {
            src.sleep().cancel_sleep(idle);
            src.search_opened();
            self.budget(src, latch.is_some());
            self.passes = 1;
            return Step::Again;
        }
        if let Some(l) = latch {
            if !src.try_sleep(l) {
                src.sleep().cancel_sleep(idle);
                return self.found(src, None);
            }
        }
        self.state = match lazy {
            Some(timeout) => State::Lazy(idle, timeout),
            None => State::Parked(idle),
        };
        Step::Park
    }

    /// Leaves the searching state: the last searcher to leave wakes a
    /// helper if some queue still holds a job (the hand-off that the
    /// `searching` skip of `notify` relies on; it looks first, so that a
    /// worker woken for the only job wakes nobody else). A search woken
    /// from a park that found a job with more behind it
    /// ([`Sources::more_behind`]) also wakes another idle worker: the
    /// fan-out of a ramp-up (see "Waking more during a ramp-up" in
    /// [`super::sleep`]; it only adds claims).
    #[inline]
    fn found<S: Sources>(&mut self, src: &mut S, job: Option<S::Job>) -> Step<S::Job> {
        src.search_closed();
        let (worker, llc) = (self.worker, self.llc);
        if src.idle_op(|s| s.leave_searching(llc)) && src.sees_work() {
            if let Some(hit) = src.idle_op(|s| s.notify(Some(worker), llc)) {
                src.woke(hit);
            }
        }
        if self.woken && job.is_some() && src.more_behind() {
            for _ in 0..RAMP_FANOUT {
                match src.idle_op(|s| s.wake_another(worker, llc)) {
                    Some(hit) => src.woke(hit),
                    None => break,
                }
            }
        }
        match job {
            Some(job) => Step::Run(job),
            None => Step::Done,
        }
    }
}

/// "Finished": the latch is set when the search waits for one, else the
/// pool's exit condition.
#[inline]
fn finished<S: Sources>(src: &S, latch: Option<&S::Latch>) -> bool {
    match latch {
        Some(l) => src.probe(l),
        None => src.may_exit(),
    }
}

/// Runs `search` on this thread until it returns a job or is over:
/// pauses spin or yield, parks park.
#[inline]
fn drive<S: Sources>(mut search: Search, src: &mut S, latch: Option<&S::Latch>) -> Option<S::Job> {
    loop {
        match search.step(src, latch) {
            Step::Run(job) => return Some(job),
            Step::Done => return None,
            Step::Again => {}
            Step::Pause(p) => {
                if p == Pause::Yield {
                    src.yielding();
                }
                pause(p)
            }
            Step::Park => park(&mut search, src),
        }
    }
}

/// Parks the thread of `search`, which holds its idle token: for at most
/// the timeout of a lazy park.
#[cold]
fn park<S: Sources>(search: &mut Search, src: &S) {
    if let Some((idle, timeout)) = search.lazy() {
        if src.sleep().park_for(idle, timeout) {
            search.woken();
        }
        return;
    }
    let idle = search.idle().expect("a search parks with its idle token");
    src.sleep().park(idle);
}

/// Searches `src` for a job for worker `worker` of LLC `llc`, sleeping while
/// there is none (on `src`'s [`Sleep`]). Returns a job, or `None` once
/// `latch` is set (with a latch) or the worker may exit (without one).
///
/// The caller's own deque is empty. On return the worker is not counted as
/// searching and its idle bit is clear (it is *working*, see
/// [`super::sleep`]).
#[inline]
pub fn search<S: Sources>(
    src: &mut S,
    worker: usize,
    llc: usize,
    latch: Option<&S::Latch>,
) -> Option<S::Job> {
    drive(Search::new(worker, llc), src, latch)
}

/// The first search of a worker born idle ([`Search::born`]): it parks at
/// once and searches once woken. Returns as [`search`] does for a worker
/// without a latch. A pool of N workers so starts with N parks and no pass
/// over N queues each.
pub fn first_search<S: Sources>(
    src: &mut S,
    worker: usize,
    llc: usize,
    idle: Idle,
) -> Option<S::Job> {
    let mut search = Search::born(worker, llc, idle);
    park(&mut search, src);
    drive(search, src, None)
}

#[cfg(test)]
mod tests;
