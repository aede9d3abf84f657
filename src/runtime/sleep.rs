//! Sleeping and waking workers, free of lost wakeups.
//!
//! # States of a worker (as this module sees it)
//!
//! - **working**: running a job or popping its own deque;
//! - **searching**: its deque is empty and it is looking elsewhere
//!   (injectors, other workers' deques, its latch); counted in `searching`
//!   (see "The count" for exactly how);
//! - **idle**: its bit is set in the [`IdleMasks`]; it re-checks every
//!   queue once more and then **parks** on its [`Parker`].
//!
//! Transitions, with the calls that perform them (the loop that makes them
//! is [`super::search::search`]):
//!
//! ```text
//! working --start_searching--> searching --stop_searching--> working
//!                                  |  ^
//!                     prepare_sleep|  |cancel_sleep (re-check found work)
//!                                  v  |
//!                                 idle --park--> parked --(unpark)--> searching
//! ```
//!
//! [`Sleep::prepare_sleep`] returns an [`Idle`] token that only
//! [`Sleep::cancel_sleep`] and [`Sleep::sleep`] consume, so the compiler
//! keeps the rule "after `prepare_sleep`, exactly one of them".
//!
//! # The waker's rule (avoiding thundering herds)
//!
//! After making a job visible (deque push, injector push), the pusher calls
//! [`Sleep::notify`]: `fence(SeqCst)`; if some worker is *searching*
//! (`searching > 0`), do nothing: that searcher will find the job or
//! re-check before it parks, or hand the wakeup on when it stops (below).
//! Else claim the nearest idle worker ([`IdleMasks::claim_nearest`] clears
//! its bit atomically, so each idle worker is claimed by one waker), count
//! it as searching on its behalf, and unpark it. A searcher that stops
//! searching (it found a job, or its latch was set, or the pool lets it
//! exit) and was the last searcher calls `notify` itself (the rule tokio
//! uses). So a burst of pushes wakes workers one at a time, each woken
//! worker waking the next once it found something, instead of one wakeup
//! per push.
//!
//! # The count
//!
//! `searching` is a signed count (an `AtomicUsize` read as `isize`),
//! changed only by RMWs: `+1` by a worker's own [`Sleep::start_searching`],
//! `+1` by [`Sleep::cancel_sleep`] when the worker cleared its own bit,
//! `+1` by a claimer for the worker it claimed (after the claim, before the
//! unpark), `-1` by [`Sleep::stop_searching`] and by
//! [`Sleep::prepare_sleep`]. An increment is *not* always followed by the
//! decrement it pays for: a claimed worker may wake early (on a stale
//! token, see below), find its bit already cleared (so it does not count
//! itself), and stop searching before its claimer's increment lands.
//!
//! All these operations, the idle masks' and the fences are SeqCst, so they
//! lie in one total order S, and a SeqCst load of `searching` reads the
//! last change before it in S. What holds at every point of S:
//!
//! > **I.** `searching` = (number of open *entries*) − (number of claims
//! > whose increment has not happened yet).
//!
//! An entry of worker `w` is opened by `w`'s own increment
//! (`start_searching`, or `cancel_sleep` after clearing its own bit) or by
//! a claim of `w`'s bit (the claimer's `fetch_and`); each decrement by `w`
//! (`stop_searching` or `prepare_sleep`) closes one open entry of `w`.
//! *Proof.* Each operation keeps both sides equal: an own increment opens
//! an entry and adds one; a claim opens an entry and adds a pending
//! increment (the count does not move); the claimer's increment removes the
//! pending one and adds one; a decrement closes an entry and subtracts one,
//! whether or not the claim that opened it has been counted yet; a claimed
//! worker's `cancel_sleep` that finds its bit cleared changes nothing. A
//! decrement always has an entry to close: the search loop decrements only
//! after `start_searching` or after a `cancel_sleep`, which counted the
//! worker or found its bit claimed. ∎
//!
//! A worker has at most two open entries, and two only in one window: it
//! is claimed after `prepare_sleep` set its bit and before its decrement;
//! that decrement then closes the older entry and the claim's stays open
//! until its next one. With no open entry a worker is working or idle; with
//! one it is in the *searching state* (perhaps still parked, its claimer's
//! unpark pending). Consequences:
//! - The count can be transiently too low, even negative (by the claims in
//!   flight). That only causes extra wakeups.
//! - A load that reads `searching = k > 0` proves that `k` entries are
//!   open at that point of S, each to be closed by a decrement *later* in S.
//! - Every open entry gets closed: each exit of the search loop goes
//!   through `stop_searching`, every park through `prepare_sleep`, and a
//!   claimed worker that is still parked gets its claimer's unpark (after
//!   the increment) and resumes the loop, even a latch waiter woken for its
//!   latch (it leaves through `stop_searching`).
//! - With no claim in flight and no worker searching, the count is 0 (the
//!   loom models check this at the end of every run).
//!
//! # Why no wakeup is lost
//!
//! **Property 1**: it never happens that a job sits in a queue while every
//! worker is parked with no unpark pending (and no claim in flight). The
//! racing operations are:
//!
//! ```text
//! sleeper S                          waker W (after pushing job J)
//! S1 set_idle(S)        (SeqCst RMW) W1 push J            (store)
//! S2 searching -= 1     (SeqCst RMW) W2 fence(SeqCst)
//! S3 fence(SeqCst)                   W3 load searching    (SeqCst)
//! S4 re-check all queues             W4 any_idle / claim  (SeqCst loads, RMWs)
//! S5 park (token parker)             W5 unpark(claimed)
//! ```
//!
//! Suppose such a state Σ, with J pushed by W. Every worker is parked, each
//! in a park that followed its *last* `prepare_sleep` before Σ (every park
//! follows one); call that worker's operations S1..S5. No worker has an
//! open entry in Σ (an entry opened by a claim means an unpark pending or
//! done, and a worker that was unparked is not in its last park).
//! - No S3 follows W2 in S: else J's push (before W2) is visible to that
//!   worker's loads after S3 (C++ fence-fence rule), so its re-check S4
//!   finds J or finds another job first or a contended queue (then it does
//!   not park), or finds J already taken (then J is not in a queue in Σ).
//! - So every S1 precedes W3 and W4 in S. And no worker's bit was cleared
//!   between its S1 and Σ: it can be cleared by a claim (whose claimer
//!   unparks it: an unpark pending, or done and then the worker woke and
//!   parked again, after a later `prepare_sleep`), or by the worker itself,
//!   awake (same).
//! - If W3 reads `searching <= 0`, W4 runs: any_idle sees the armed counts
//!   of those S1 and, by the idle masks' invariant 3 ("a later claimer finds
//!   an earlier idle worker"; every LLC is in every LLC's search order),
//!   the claim clears some worker's bit after its S1: contradiction.
//! - If W3 reads `searching > 0`, by I some worker X has an entry open at
//!   W3, closed (it is closed in Σ) by a decrement D of X after W3 in S.
//!   X's last `prepare_sleep` is D or comes after it, so its S3 follows W2
//!   in S: contradiction with the first point. ∎
//!
//! **Property 2** (the hand-off): the skip of `notify` never leaves J to a
//! searcher that stops without looking at it. Property 1 only needs the
//! searchers to park at some time; but a searcher X that finds *another*
//! job J′, or whose latch is set, or whose pool lets it exit, leaves the
//! searching state without a re-check, and may then run J′ for a long time
//! or block in user code, while idle workers sleep next to J. So the
//! stronger statement: after W's notify, J is taken, or a worker's
//! re-check follows W2 in S (and so sees J), or no worker is idle at some
//! point after W2 (then every worker that parks later re-checks after W2).
//!
//! *Proof.* If W3 reads `searching <= 0`, W4 claims an idle worker Y,
//! which opens an entry of Y after W2, closed by a decrement D of Y after
//! it (go on below with X = Y), or finds none (the last outcome). If W3
//! reads `searching > 0`, by I some worker X has an entry open at W3,
//! closed by a decrement D of X after W3, so after W2. By the form of D:
//! - `prepare_sleep`: X's re-check fence follows D, hence W2. Its re-check
//!   finds J, or another job (it cancels and returns it through
//!   `stop_searching`: a new D after W2, repeat), or J gone.
//! - `stop_searching` (X found another job, or X's latch is set, or X may
//!   exit), which read `v` before its decrement: if `v <= 1`, X runs
//!   `notify`, whose fence follows D and so W2: X plays W's part for J, and
//!   the argument restarts from X's W3. If `v > 1`, the count is positive
//!   after D, so by I an entry (of X or another worker) is open there,
//!   closed by a decrement later still: repeat with it.
//!
//! Each step moves to a later operation in S; it ends in one of the three
//! outcomes because open entries get closed (see "The count"). This is
//! what makes a claimed latch waiter safe: pushers may have skipped their
//! wakeup *because* its claimer counted it; when its latch wakes it, it
//! returns without searching, and its `stop_searching` hands the wakeup on.
//! The loom models `two_jobs_searcher_passes_the_notify_on` and
//! `latch_waiter_racing_pushes_and_claims` deadlock without that `notify`.
//!
//! # Private `join` halves
//!
//! The properties above need the waker's fence for every job that sits in
//! a queue: jobs injected from outside the pool, jobs aimed at other
//! workers, spawns (the spawning job may block on them), and promoted
//! `join` halves. All of these go through [`Sleep::notify`].
//!
//! `join` does not put its second half `b` in a queue at first: it keeps
//! it in the worker's *private* list (`WorkerThread::push_private`),
//! which no other thread reads, and takes it back after `a` without an
//! atomic write. Such a half is never "a job in a queue", so the properties
//! say nothing about it; it needs its own argument:
//!
//! 1. **It is never stranded.** Its owner is running (it is inside `a`,
//!    in the same frame) and, when `a` returns, either takes `b` back and
//!    runs it, or finds it promoted. A promoted half was pushed on the
//!    owner's deque with [`Sleep::notify`]'s fence: from then on it is a
//!    queued job like any other and the two-fence argument applies. This
//!    assumes, as `join` documents (and rayon does), that `a` does not
//!    block waiting for something `b` does.
//! 2. **Idle workers get a share.** This is about parallelism, not
//!    progress. At every `join` entry and exit, an owner whose deque holds
//!    fewer than two jobs promotes its oldest private half, with the
//!    fenced push and `notify` (which wakes an idle worker if none is
//!    searching). So a worker holding private halves has its oldest ones
//!    in its deque from its next `join` on, queued jobs for which the
//!    argument above wakes a helper; when a thief takes one, the owner's
//!    next `join` entry or exit puts up the next. A worker that starts to
//!    wait for a latch (a `scope`, a stolen `join` half, `install`)
//!    promotes all its private halves first, since it calls no `join`
//!    while it waits. The length test is a
//!    hint (plain loads, no fence): a stale read only moves a promotion to
//!    a later `join`, it never loses a job.
//!
//! # Queues of one LLC (job groups)
//!
//! A packed job group's queue of LLC `L` may be taken by `L`'s own
//! workers at any time, by others only under the overload rule. Two rules
//! keep the argument above valid for it:
//!
//! 1. **A searcher forwards what it may not take.** A find-work pass of
//!    a worker of another LLC looks at the other LLCs' pack queues last,
//!    and only if it found no job before them (a pass returns the first
//!    job it finds); such a pass that finds `L`'s pack queue non-empty and
//!    `L` not overloaded calls [`Sleep::wake_in`] for `L`: it claims and
//!    wakes an idle worker of `L` if there is one. So the forward happens
//!    in every pass that finds nothing, in particular in every re-check
//!    before a park, but not in a pass that returns another job. That is
//!    enough for both properties above, where "a pass after W2 sees J"
//!    becomes "takes J (`L` overloaded), or forwards":
//!    - Property 1: if W skipped because of a counted searcher X of
//!      another LLC, X's last re-check, after W2, forwards; its claim
//!      finds an idle worker of `L` (invariant 3 of the idle masks, applied
//!      to `L` alone), since in Σ every worker of `L` is parked with its
//!      bit set since before W2: a claim after their S1, contradiction.
//!    - Property 2: a pass of X that returns another job forwards nothing,
//!      but X then leaves through `stop_searching`, and the hand-off goes
//!      on: the worker its `notify` claims (in any LLC) searches, and its
//!      own passes take J, forward, or return yet another job (hand-off
//!      again). The loom model `forward_skipped_by_a_pass_that_finds_a_job`
//!      deadlocks without the hand-off.
//!
//!    With this the `searching` skip of [`Sleep::notify`] is sound for
//!    pack queues too.
//! 2. **A pusher from outside `L` wakes `L` directly.** [`Sleep::notify_in`]
//!    without `if_none_searching`: W1 push, W2 fence, W4' a claim restricted
//!    to `L`'s workers, with no `searching` test (lower latency than a
//!    forward). The two-fence argument applies with "some idle worker of
//!    `L`": if W2 precedes the re-check fence S3 of a sleeping worker `S` of
//!    `L`, `S`'s re-check (which always includes its LLC's pack queue)
//!    sees the job; otherwise W4' sees `S`'s bit (invariant 3 of the idle
//!    masks, applied to `L` alone) unless a claimer cleared it (and woke a
//!    worker of `L`, whose re-check follows) or `S` did (awake, it searches
//!    again). A worker of `L` pushing to its own LLC's queue uses the
//!    `searching` skip (`if_none_searching`), relying on rule 1.
//!
//! A spread job group's cluster queues may be taken by any worker (every
//! worker looks at every cluster queue in its pass), so for them the
//! general argument holds as for injectors; `notify_in` with `fallback`
//! only adds a wakeup inside the aimed LLC first.
//!
//! A worker also takes from its own LLC's pack queue and its own cluster's
//! spread queue without searching, right after its deque runs dry (a fast
//! path, like a deque pop); that only removes jobs, it never hides one.
//!
//! # Tokens
//!
//! Unparks are never lost: the [`Parker`] keeps a token, so an unpark that
//! happens between S4 and S5 makes S5 return at once. The price is *stale*
//! tokens: an unpark for a wake the worker no longer needs (a claim that
//! landed while it was re-checking, a latch set after its owner stopped
//! waiting, a broadcast job it already took) stays in the parker and makes
//! a later park return at once. That is harmless: a parked worker that
//! wakes, for whatever reason, re-enters *searching* through
//! [`Sleep::cancel_sleep`]: if it clears its own bit (`clear_idle ==
//! true`) it counts itself; if a waker claimed it, the waker counts it
//! (maybe later: see "The count"). Then it passes again, and parks again
//! only after a new `prepare_sleep` and re-check.
//!
//! Targeted wakes (a latch owner, a broadcast job for one worker, pool
//! shutdown) bypass the masks: they unpark the worker directly, which is
//! safe because of the token and because the woken worker re-checks.
//!
//! Property 1 says nothing while some worker runs a job: by itself it gets
//! J run only if running jobs eventually return (a job blocked forever
//! keeps its worker busy, as in every work-stealing pool). Property 2 keeps
//! the idle workers going meanwhile.
//!
//! # For loom
//!
//! [`Sleep`] and [`Parker`] need no pool, and the loop that drives them,
//! [`super::search::search`], is generic over its sources: the models in
//! `loom-tests/` run that very loop, as the pool does, over queues made of
//! loom atomics, with pushes and `notify` on other threads; loom reports a
//! deadlock if a wakeup is lost, and each run ends by checking that the
//! count is back to 0 and no idle bit is left armed. Property 1:
//! `tests/sleep.rs` (`push_versus_sleep_*`, `two_sleepers_one_job_skip_rule`,
//! `stale_tokens`, `clusters_claim_own_cluster_then_llc`,
//! `multi_word_masks`, and with latches `join_latch_never_loses_the_wakeup`,
//! `count_latch_frame_freed_by_the_waiter`, with shutdown
//! `terminate_versus_spawns`); Property 2: the two models named there;
//! queues of one LLC: `tests/groups.rs`.

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicUsize, Condvar, Mutex, Ordering, fence};

use super::idle::{Distance, IdleMasks};

/// A per-worker parker with a token: `unpark` before `park` makes the next
/// `park` return immediately.
pub struct Parker {
    token: Mutex<bool>,
    cv: Condvar,
}

impl Default for Parker {
    fn default() -> Self {
        Self::new()
    }
}

impl Parker {
    /// A parker without a token.
    pub fn new() -> Self {
        Parker {
            token: Mutex::new(false),
            cv: Condvar::new(),
        }
    }

    /// Blocks until a token is available, and consumes it.
    pub fn park(&self) {
        let mut t = self.token.lock();
        while !*t {
            self.cv.wait(&mut t);
        }
        *t = false;
    }

    /// Makes a token available and wakes the parked thread, if any.
    pub fn unpark(&self) {
        let mut t = self.token.lock();
        *t = true;
        self.cv.notify_one();
        drop(t);
    }
}

/// A worker between [`Sleep::prepare_sleep`] and its re-check's outcome:
/// consumed by [`Sleep::cancel_sleep`] or [`Sleep::sleep`], so the compiler
/// keeps the rule "after `prepare_sleep`, call one of them, once".
#[must_use = "after prepare_sleep, call cancel_sleep or sleep"]
#[derive(Debug)]
pub struct Idle {
    worker: usize,
}

/// The sleep state of a pool: idle masks, parkers and the searcher count.
pub struct Sleep {
    idle: IdleMasks,
    parkers: Box<[CachePadded<Parker>]>,
    searching: CachePadded<AtomicUsize>,
}

impl Sleep {
    /// Sleep state for `num_workers` workers described by `idle`.
    pub fn new(idle: IdleMasks, num_workers: usize) -> Self {
        Sleep {
            idle,
            parkers: (0..num_workers)
                .map(|_| CachePadded::new(Parker::new()))
                .collect(),
            searching: CachePadded::new(AtomicUsize::new(0)),
        }
    }

    /// Number of workers currently counted as searching (for tests; may be
    /// transiently off by the claims in flight, see the module docs).
    pub fn searching(&self) -> isize {
        self.searching.load(Ordering::SeqCst) as isize
    }

    /// A worker whose deque is empty starts looking elsewhere.
    #[inline]
    pub fn start_searching(&self) {
        self.searching.fetch_add(1, Ordering::SeqCst);
    }

    /// A searching worker found work (or its latch was set). If it was the
    /// last searcher, wakes one idle worker (see the module docs). Returns
    /// the worker woken, if any.
    #[inline]
    pub fn stop_searching(&self, worker: usize, llc: usize) -> Option<(usize, Distance)> {
        if self.searching.fetch_sub(1, Ordering::SeqCst) as isize <= 1 {
            self.notify(Some(worker), llc)
        } else {
            None
        }
    }

    /// Called after a job was made visible to other workers (by `from_worker`,
    /// or by a thread outside the pool when `None`, aimed at LLC
    /// `from_llc`). Wakes at most one idle worker, the nearest, if no worker
    /// is searching. Returns the worker woken and its distance.
    #[inline]
    pub fn notify(&self, from_worker: Option<usize>, from_llc: usize) -> Option<(usize, Distance)> {
        fence(Ordering::SeqCst);
        self.wake_nearest_unless_searching(from_worker, from_llc)
    }

    /// The part of [`Sleep::notify`] after its fence: no wakeup while some
    /// worker searches (it will find the job), else the nearest idle one.
    #[inline]
    fn wake_nearest_unless_searching(
        &self,
        from_worker: Option<usize>,
        from_llc: usize,
    ) -> Option<(usize, Distance)> {
        if self.searching.load(Ordering::SeqCst) as isize > 0 || !self.idle.any_idle() {
            return None;
        }
        self.wake_nearest(from_worker, from_llc)
    }

    /// Like [`Sleep::notify`] for a job aimed at LLC `llc` (a job group's
    /// queue): claims an idle worker *of that LLC* (the cluster of
    /// `from_worker` first, big cores first); if none is idle there and
    /// `fallback`, does what `notify` does (which may wake a worker of
    /// another LLC). Returns the worker woken.
    ///
    /// With `if_none_searching` false the claim is made whether or not some
    /// worker is searching; with `true` it is skipped while someone
    /// searches, as in `notify` (sound because searchers forward wakeups
    /// for pack queues they may not take: see "Queues of one LLC" in the
    /// module docs).
    pub fn notify_in(
        &self,
        from_worker: Option<usize>,
        llc: usize,
        if_none_searching: bool,
        fallback: bool,
    ) -> Option<(usize, Distance)> {
        fence(Ordering::SeqCst);
        if if_none_searching && self.searching.load(Ordering::SeqCst) as isize > 0 {
            return None;
        }
        if let Some(hit) = self.wake_in(from_worker, llc) {
            return Some(hit);
        }
        if !fallback {
            return None;
        }
        self.wake_nearest_unless_searching(from_worker, llc)
    }

    /// Claims and wakes an idle worker of LLC `llc` (the cluster of
    /// `from_worker` first, big cores first), if there is one. A searcher
    /// that sees another LLC's pack queue non-empty but may not take from
    /// it calls this (see "Queues of one LLC" in the module docs).
    pub fn wake_in(&self, from_worker: Option<usize>, llc: usize) -> Option<(usize, Distance)> {
        let claimed = self.idle.claim_in_llc(from_worker, llc)?;
        Some(self.wake_claimed(claimed))
    }

    /// The idle masks (for load estimates and the cluster switch).
    pub fn idle(&self) -> &IdleMasks {
        &self.idle
    }

    #[cold]
    fn wake_nearest(
        &self,
        from_worker: Option<usize>,
        from_llc: usize,
    ) -> Option<(usize, Distance)> {
        let claimed = self.idle.claim_nearest(from_worker, from_llc)?;
        Some(self.wake_claimed(claimed))
    }

    /// Wakes a worker whose idle bit this thread just claimed, counting it
    /// as searching first: before it can be unparked by us (it may wake
    /// earlier on a stale token: see the module docs).
    fn wake_claimed(&self, (w, d): (usize, Distance)) -> (usize, Distance) {
        self.searching.fetch_add(1, Ordering::SeqCst);
        self.parkers[w].unpark();
        (w, d)
    }

    /// A searching worker found nothing: it becomes idle. The caller must
    /// then re-check every queue (and its latch, and the exit condition),
    /// and hand the returned token to [`Sleep::cancel_sleep`] if it found
    /// something, else to [`Sleep::sleep`].
    pub fn prepare_sleep(&self, worker: usize) -> Idle {
        self.idle.set_idle(worker);
        self.searching.fetch_sub(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        Idle { worker }
    }

    /// The re-check after [`Sleep::prepare_sleep`] found something: the
    /// worker is searching again.
    pub fn cancel_sleep(&self, idle: Idle) {
        if self.idle.clear_idle(idle.worker) {
            // We cleared our own bit: nobody counted us.
            self.searching.fetch_add(1, Ordering::SeqCst);
        }
        // Else a waker claimed us and counts us as searching (it may not
        // have done so yet: see "The count" in the module docs).
    }

    /// Parks the worker until woken; it is searching again on return.
    pub fn sleep(&self, idle: Idle) {
        self.parkers[idle.worker].park();
        self.cancel_sleep(idle);
    }

    /// Wakes one specific worker (latch owner, broadcast target). Harmless
    /// if it is not parked: it keeps the token and re-checks once.
    pub fn wake_worker(&self, worker: usize) {
        self.parkers[worker].unpark();
    }

    /// Wakes every worker (shutdown).
    pub fn wake_all(&self) {
        for p in self.parkers.iter() {
            p.unpark();
        }
    }
}
