//! Sleeping and waking workers, free of lost wakeups.
//!
//! # States of a worker (as this module sees it)
//!
//! - **working**: running a job or popping its own deque;
//! - **searching**: its deque is empty and it is looking elsewhere
//!   (injectors, other workers' deques, its latch); counted in `searching`;
//! - **idle**: its bit is set in the [`IdleMasks`]; it re-checks every
//!   queue once more and then **parks** on its [`Parker`].
//!
//! Transitions, with the calls that perform them:
//!
//! ```text
//! working --start_searching--> searching --stop_searching--> working
//!                                  |  ^
//!                     prepare_sleep|  |cancel_sleep (re-check found work)
//!                                  v  |
//!                                 idle --park--> parked --(unpark)--> searching
//! ```
//!
//! # The waker's rule (avoiding thundering herds)
//!
//! After making a job visible (deque push, injector push), the pusher calls
//! [`Sleep::notify`]: `fence(SeqCst)`; if some worker is *searching*
//! (`searching > 0`), do nothing: that searcher will find the job or
//! re-check before it parks. Else claim the nearest idle worker
//! ([`IdleMasks::claim_nearest`] clears its bit atomically, so each idle
//! worker is claimed by one waker), count it as searching on its behalf,
//! and unpark it. A searcher that finds work and was the last searcher
//! calls `notify` itself (the rule tokio uses). So a burst of pushes wakes
//! workers one at a time, each woken worker waking the next once it found
//! something, instead of one wakeup per push.
//!
//! `searching` is a signed count (an `AtomicUsize` read as `isize`). The
//! claimer increments it *after* its claim, so a claimed worker that wakes
//! early (a stale token) and stops searching before that increment makes
//! the count transiently one too low, even negative. A count that is too
//! low only causes extra wakeups; a skip needs `searching > 0`, which then
//! implies a real searcher (see below).
//!
//! # Why no wakeup is lost
//!
//! The property: it never happens that a job sits in a queue while every
//! worker is parked with no unpark pending. The racing operations are:
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
//! The two fences S3 and W2 are totally ordered in the single order S of
//! SeqCst operations.
//! - If W2 precedes S3: J's push (before W2) is visible to S's loads after
//!   S3 (C++ fence-fence rule), so the re-check S4 finds J (or finds it
//!   already taken by someone, which is as good). S does not park.
//! - If S3 precedes W2: W's loads after W2 see S1 and S2 or later writes.
//!   *Case W3 reads `searching <= 0`*: W4 runs; by the idle masks'
//!   invariant 3 ("a later claimer finds an earlier idle worker") it claims
//!   some idle worker unless S's bit was cleared in between, by another
//!   claimer (who wakes S) or by S itself (S is awake). The worker W claims
//!   gets W5's unpark and then searches; its own re-check fence comes after
//!   W5 (happens-before through the parker's mutex), so it sees J.
//!   *Case W3 reads `searching > 0`*: every increment of `searching` is
//!   matched by exactly one later decrement by the worker it counts (its
//!   `stop_searching` or `prepare_sleep`), so a positive value means some
//!   counted worker X has its decrement after W3 in the modification order,
//!   hence after W2 in S. If X decrements in `prepare_sleep`, its re-check
//!   fence follows W2: first case, X finds J. If X decrements in
//!   `stop_searching`, it found work and stays awake (it searches again
//!   after its job); if its decrement leaves `searching <= 0` it runs
//!   `notify` itself, whose fence follows W2, and the argument repeats with
//!   X as the waker; if it leaves `searching > 0`, another counted worker
//!   decrements later still (induction over the pending decrements).
//!
//! # Private `join` halves
//!
//! The property above needs the waker's fence for every job that sits in
//! a queue: jobs injected from outside the pool, jobs aimed at other
//! workers, spawns (the spawning job may block on them), and promoted
//! `join` halves. All of these go through [`Sleep::notify`].
//!
//! `join` does not put its second half `b` in a queue at first: it keeps
//! it on the worker's *private* stack ([`super::private`]), takes it back
//! after `a` without a fence, and lets other workers take it by
//! *promotion* (the owner pushes it on its deque, fenced, with `notify`)
//! or by a *claim* (a thief takes it from the stack under a heavy fence).
//! Such a half is not "a job in a queue", so it needs its own argument,
//! and this one must not assume that the owner comes back: `a` may run
//! serial code for a long time, or block on something the pool cannot see
//! (a channel, a lock, another pool, a spin) until `b` has run. The
//! property: **no worker stays parked while some worker holds a private
//! half** (pushed, not popped, not promoted, not claimed). Two rules give
//! it; both are Dekker pairs whose owner side is the light fence of the
//! asymmetric pair (`sync::light_fence`, a compiler fence under
//! `membarrier`) and whose other side is a SeqCst fence or the heavy one:
//!
//! 1. **A parking worker looks.** In the re-check after `prepare_sleep`
//!    (S1-S3 above), if its own idle bit is still set, the worker runs
//!    `private::claim_before_parking`: a heavy fence H, then, for every
//!    other worker, a read of its stack's ends, and a claim of the oldest
//!    private half of the first one that shows one. A claim that is
//!    contended (another thief, or the owner's promotion) makes the
//!    re-check report `Retry`, so the worker does not park.
//! 2. **A pushing owner publishes when someone is idle.** After each push
//!    (slot, `top`, light fence L), the owner reads the idle bits
//!    (`IdleMasks::any_unclaimed`, SeqCst loads: the summary, then the
//!    words); if one is set it promotes *all* its private halves (fenced
//!    deque pushes and `notify`).
//!
//! *Proof sketch.* Let worker `P` park for good at a point where worker
//! `O` holds a private half `h`, pushed at depth `d` with store `Wtop`.
//! `P`'s last re-check ran after its `set_idle` (S1), and (if its bit was
//! claimed in between, the claimer's unpark makes the park return: not
//! "for good") it ran rule 1 with `P`'s bit set. Pair `O`'s `Wtop ; L ;
//! read idle bits` with `P`'s `set_idle ; H ; read O's top`:
//! - If `P`'s read of `top` sees `Wtop` (or a later store): `top > d`,
//!   and `index <= d` (the `bottom` index passes `d` only when depth `d`
//!   is promoted or claimed, and `h` is neither), so `P` claims. The claim
//!   takes a half (then `P` runs it: it does not park), or is contended
//!   (`Retry`: `P` does not park), or finds `top <= index` after its own
//!   heavy fence: `O` popped down past `index <= d`, so `h` was popped.
//!   Each case contradicts the assumption.
//! - Otherwise the fences order `H` before `L`, and `O`'s read of the
//!   idle bits, after `L`, sees `P`'s bit (set before `H`) unless a
//!   claimer cleared it (then `P` is woken: not parked for good) or `P`
//!   did (awake). So `O` promoted all its halves, `h` with them: `h` is
//!   not private. Contradiction.
//!
//! `P` skips `H` when every worker is armed (the summary counts all of
//! them), which the idle pool's last worker to park would otherwise pay
//! for nothing. Sound: an armed worker `Q` holds no private half (it is in
//! a search: either in the main loop, where every `join` has returned, or
//! waiting for a latch, which promotes all its halves first), and `P`'s
//! SeqCst read of the summary precedes `Q`'s disarming RMW (it read the
//! value before it), which precedes `Q`'s later read of the idle bits
//! after any push: that read sees `P`'s `set_idle`, which came before
//! `P`'s read, and rule 2 applies.
//!
//! Rule 2 is also cheap where it matters: while every worker is busy the
//! summary is zero and the owner's check is one load; while a worker is
//! idle, every `join` of a busy worker publishes its halves, as rayon
//! does for every `join`. A worker that starts to wait for a latch (a
//! `scope`, a stolen `join` half, `install`) promotes all its private
//! halves as well, so that it can run them itself while it waits. And for
//! parallelism rather than progress, an owner whose deque holds fewer
//! than two jobs promotes its oldest private half at every `join` entry
//! and exit (a hint read without a fence: a stale read only moves a
//! promotion to a later `join`).
//!
//! The heavy fence is a system call that interrupts every CPU running a
//! thread of the process, so it is rate-limited by where it sits: at most
//! one per park attempt (plus one per claim), and a park attempt follows
//! a full spin phase that found nothing. A parked worker makes none: an
//! idle pool costs nothing. Without `membarrier` both fences are
//! `fence(SeqCst)` and the argument is the same.
//!
//! Promotion never makes a job that is still referenced by a private
//! stack runnable twice: promotions, claims and the owner's pops agree on
//! one `bottom` word ([`super::private`] has that proof; loom checks it
//! in `loom-tests/tests/private.rs`, along with a model of rules 1 and 2
//! that deadlocks if either is removed).
//!
//! # Queues of one LLC (job groups)
//!
//! A packed job group's queue of LLC `L` may be taken by `L`'s own
//! workers at any time, by others only under the overload rule. Two rules
//! keep the argument above valid for it:
//!
//! 1. **A searcher forwards what it may not take.** In every find-work
//!    pass (so in every re-check before parking), a worker of another LLC
//!    that finds `L`'s pack queue non-empty and `L` not overloaded calls
//!    [`Sleep::wake_in`] for `L`: it claims and wakes an idle worker of `L`
//!    if there is one. So "some counted searcher will re-check after my
//!    push" still implies "the job is taken, or a worker of `L` is woken
//!    for it, or no worker of `L` is idle" (then every worker of `L` is
//!    running, or searching and about to look at the queue, or claimed and
//!    about to wake: each reaches a find-work pass that looks at it, under
//!    the assumption that running jobs return). With this the `searching`
//!    skip of [`Sleep::notify`] is sound for pack queues too.
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
//! Unparks are never lost either: the [`Parker`] keeps a token, so an
//! unpark that happens between S4 and S5 makes S5 return at once. A parked
//! worker that wakes re-enters *searching*: if it clears its own bit
//! ([`Sleep::cancel_sleep`], `clear_idle == true`: spurious, targeted or
//! stale-token wake) it counts itself; if a waker claimed it, the waker
//! counts it.
//!
//! Targeted wakes (a latch owner, a broadcast job for one worker, pool
//! shutdown) bypass the masks: they unpark the worker directly, which is
//! safe because of the token and because the woken worker re-checks.
//!
//! Progress assumes running jobs eventually return (a job blocked forever
//! keeps its worker busy, as in every work-stealing pool).
//!
//! # For loom
//!
//! [`Sleep`] and [`Parker`] need no pool: a model creates `Sleep::new` with
//! an [`IdleMasks`], uses an atomic flag as "the queue", and drives
//! `start_searching`/`prepare_sleep`/`cancel_sleep`/`sleep` on one thread and
//! push + `notify` on another; loom reports a deadlock if a wakeup is lost.

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
    /// and call [`Sleep::cancel_sleep`] if it found something, else
    /// [`Sleep::sleep`].
    pub fn prepare_sleep(&self, worker: usize) {
        self.idle.set_idle(worker);
        self.searching.fetch_sub(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// The re-check after [`Sleep::prepare_sleep`] found something: the
    /// worker is searching again.
    pub fn cancel_sleep(&self, worker: usize) {
        if self.idle.clear_idle(worker) {
            // We cleared our own bit: nobody counted us.
            self.searching.fetch_add(1, Ordering::SeqCst);
        }
        // Else a waker claimed us and already counted us as searching.
    }

    /// Parks the worker until woken; it is searching again on return.
    pub fn sleep(&self, worker: usize) {
        self.parkers[worker].park();
        self.cancel_sleep(worker);
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
