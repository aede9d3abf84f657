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
//! it in the worker's *private* list (`WorkerThread::push_private`),
//! which no other thread reads, and takes it back after `a` without an
//! atomic write. Such a half is never "a job in a queue", so the property
//! says nothing about it; it needs its own argument:
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
//! workers at any time, by a worker `X` of another LLC only as the help
//! rule ([`crate::groups::may_help`]) allows: `L` overloaded, or `L`
//! *saturated* (no armed worker of `L`: every one is running, searching
//! or claimed and not yet armed again) while `X`'s own idle bit is set,
//! which in a pass of `X` means the re-check after
//! [`Sleep::prepare_sleep`]. Three rules keep the argument above valid
//! for these queues, *without* assuming that `L`'s running jobs return
//! (they may block until the queued jobs run: a barrier):
//!
//! 1. **A re-checking searcher takes or forwards.** In every find-work
//!    pass, `X` that finds `L`'s pack queue non-empty either takes a job
//!    from it (when the rule allows) or calls [`Sleep::wake_in`] for `L`.
//!    In `X`'s re-check (its bit set, unless a claimer cleared it: then
//!    `X` returns from `sleep` at once and reaches another re-check), the
//!    rule refuses only if some worker of `L` is armed; then `wake_in`
//!    either claims one (it wakes and its pass looks at `L`'s queue right
//!    after its targeted queue) or finds every armed worker of `L` claimed
//!    or clearing its own bit: awake, or about to be, and about to search.
//!    So a counted searcher whose re-check follows a push into `L` makes
//!    sure that the job is taken or that some worker of `L` will search
//!    after the push. A worker so woken that takes *another* job (and
//!    blocks in it) leaves the searching state through
//!    [`Sleep::stop_searching`], which passes a wakeup on when it was the
//!    last searcher, as in the general argument; the worker woken then
//!    re-checks in turn. With this the `searching` skip of
//!    [`Sleep::notify`] is sound for pack queues too.
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
//! 3. **A push into a saturated `L` wakes a helper.** When the claim in
//!    `L` finds nobody (or was skipped because someone searches) and the
//!    rule would let an idle helper take the job, the pusher also calls
//!    [`Sleep::notify`]: that is the general argument for this push (its
//!    fence, then a wakeup unless someone searches), and whoever re-checks
//!    after it takes the job or forwards it by rule 1. Without this, jobs
//!    pushed while every worker of `L` blocks and every other worker
//!    sleeps would wait for `L`'s jobs to return.
//!
//! Pieces of parallel iterators aimed at an LLC or a worker
//! (`registry::aimed`) go into the same pack queues with the same wakeups
//! ([`Sleep::wake_if_idle`] on the aimed worker is a claim restricted to
//! one worker of `L`, an instance of rule 2, with the general rule-2/3
//! wakeup when it fails), so all of the above holds for them; the copy an
//! aimed piece also puts in its worker's targeted queue is never needed
//! for progress (the pack copy is), only for placement.
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

    /// Claims and wakes worker `w` if it is idle (a claim restricted to
    /// one worker, see [`IdleMasks::claim_worker`]); `d` is only reported
    /// back. A pusher that aims a job at `w` calls this after its fence
    /// (the claim is one of the claims of rule 2 in "Queues of one LLC").
    pub fn wake_if_idle(&self, w: usize, d: Distance) -> Option<(usize, Distance)> {
        self.idle.claim_worker(w).then(|| self.wake_claimed((w, d)))
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
