// The module docs, the protocol and the proof that no wakeup is lost, are
// in sleep_proof.md next to this file; the public docs render the same text
// as `locus::docs::sleep_wake`. Edit them there.
#![doc = include_str!("sleep_proof.md")]

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

    /// Whether a token is available (tests).
    #[cfg(any(test, loom))]
    pub fn has_token(&self) -> bool {
        *self.token.lock()
    }

    /// Makes a token available and wakes the parked thread, if any.
    pub fn unpark(&self) {
        let mut t = self.token.lock();
        *t = true;
        self.cv.notify_one();
        drop(t);
    }
}

/// Whether a pool with `armed` of its `workers` idle (armed, claimed or
/// not) ramps up, for the spread of [`Sleep::notify_queued`]: at least half
/// of them are idle (the threshold of the passes' "mostly idle").
#[inline]
pub fn ramping_up(armed: usize, workers: usize) -> bool {
    2 * armed >= workers
}

/// Whether a deque holding `queued` jobs holds more than the `searching`
/// workers of its LLC will take (each takes one): then a ramp-up wakes one
/// more worker ([`Sleep::notify_queued`]).
#[inline]
pub fn more_jobs_than_searchers(queued: usize, searching: isize) -> bool {
    isize::try_from(queued).unwrap_or(isize::MAX) > searching
}

/// A worker between [`Sleep::prepare_sleep`] and its re-check's outcome:
/// consumed by [`Sleep::cancel_sleep`], at once or after [`Sleep::park`]
/// returned, so the compiler keeps the rule "after `prepare_sleep`,
/// `cancel_sleep` once".
#[must_use = "after prepare_sleep, call cancel_sleep (after park, if parking)"]
#[derive(Debug)]
pub struct Idle {
    worker: usize,
}

/// The sleep state of a pool: idle masks, parkers and the searcher counts.
pub struct Sleep {
    idle: IdleMasks,
    parkers: Box<[CachePadded<Parker>]>,
    searching: CachePadded<AtomicUsize>,
    /// The same count per LLC (changed by the same operations, for the
    /// worker's LLC), kept only in pools of more than one LLC (empty
    /// otherwise, so one-LLC pools pay nothing). Read by the local wake of
    /// [`Sleep::notify`] (see "Waking in the pusher's LLC" in the module
    /// docs), where it is only a hint, and by `group_routing::helps`, where
    /// rule 1 of "Queues of one LLC" relies on it: a worker is counted in
    /// its LLC from its `start_searching` (or its claim) until its
    /// `stop_searching` or `prepare_sleep`, which lower this count before
    /// the global one.
    llc_searching: Box<[CachePadded<AtomicUsize>]>,
    /// The regions of the deal of a ramp-up (`runtime::deal`; none in a
    /// pool of one LLC).
    deal: super::deal::Deal,
}

impl Sleep {
    /// Sleep state for `num_workers` workers described by `idle`.
    pub fn new(idle: IdleMasks, num_workers: usize) -> Self {
        let llcs = if idle.num_llcs() > 1 {
            idle.num_llcs()
        } else {
            0
        };
        Sleep {
            llc_searching: (0..llcs)
                .map(|_| CachePadded::new(AtomicUsize::new(0)))
                .collect(),
            deal: super::deal::Deal::new(idle.num_llcs()),
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

    /// Number of workers of LLC `llc` counted as searching (0 in a pool of
    /// one LLC, which keeps no per-LLC count).
    pub fn searching_in(&self, llc: usize) -> isize {
        self.llc_searching
            .get(llc)
            .map_or(0, |c| c.load(Ordering::SeqCst) as isize)
    }

    /// Whether at most one worker of LLC `llc` is counted as searching, in
    /// a pool that keeps per-LLC counts (false in a pool of one LLC): for a
    /// searcher of `llc`, whether it is its LLC's only one (the spinner
    /// allowance of `search::rules::may_spin`).
    pub fn alone_in(&self, llc: usize) -> bool {
        !self.llc_searching.is_empty() && self.searching_in(llc) <= 1
    }

    /// Counts one more (`up`) or one fewer searcher in LLC `llc`, in a pool
    /// that keeps per-LLC counts (else nothing).
    #[inline]
    fn count_in(&self, llc: usize, up: bool) {
        if let Some(c) = self.llc_searching.get(llc) {
            if up {
                c.fetch_add(1, Ordering::SeqCst);
            } else {
                c.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }

    /// [`Sleep::count_in`] for worker `w`'s LLC (looked up only in a pool
    /// that keeps per-LLC counts).
    #[inline]
    fn count_worker(&self, w: usize, up: bool) {
        if !self.llc_searching.is_empty() {
            self.count_in(self.idle.llc_of(w), up);
        }
    }

    /// Worker `worker`, whose deque is empty, starts looking elsewhere.
    #[inline]
    pub fn start_searching(&self, worker: usize) {
        self.searching.fetch_add(1, Ordering::SeqCst);
        self.count_worker(worker, true);
    }

    /// A searching worker found work (or its latch was set). If it was the
    /// last searcher, wakes one idle worker (see the module docs). Returns
    /// the worker woken, if any. The search loop uses
    /// [`Sleep::leave_searching`] instead, which looks before it wakes.
    #[inline]
    pub fn stop_searching(&self, worker: usize, llc: usize) -> Option<(usize, Distance)> {
        if self.leave_searching(llc) {
            self.notify(Some(worker), llc)
        } else {
            None
        }
    }

    /// [`Sleep::stop_searching`] up to its hand-off: leaves the searching
    /// state and says whether the worker was the last searcher while some
    /// worker is idle (read after a SeqCst fence). If so, the caller looks
    /// at every queue a pushed job can be in (without taking one) and calls
    /// [`Sleep::notify`] if one holds a job: "The hand-off looks first" in
    /// the module docs.
    #[inline]
    pub fn leave_searching(&self, llc: usize) -> bool {
        self.count_in(llc, false);
        if self.searching.fetch_sub(1, Ordering::SeqCst) as isize > 1 {
            return false;
        }
        fence(Ordering::SeqCst);
        self.idle.any_idle()
    }

    /// Called after a job was made visible to other workers (by `from_worker`,
    /// or by a thread outside the pool when `None`, aimed at LLC
    /// `from_llc`). Wakes at most one idle worker: the nearest, if no worker
    /// is searching; else, in a pool of several LLCs where none of
    /// `from_llc`'s workers is searching, one of `from_llc` (so that the job
    /// is taken near where it was made, not by a searcher of another LLC),
    /// or if `from_llc` has none idle, the nearest in an LLC where nobody
    /// searches. Returns the worker woken and its distance.
    ///
    /// [`Sleep::notify_with`] without its hook.
    #[inline]
    pub fn notify(&self, from_worker: Option<usize>, from_llc: usize) -> Option<(usize, Distance)> {
        self.notify_with(from_worker, from_llc, None::<fn() -> usize>)
    }

    /// [`Sleep::notify`] after worker `from_worker` of LLC `llc` pushed on
    /// its own deque, which then holds `queued()` jobs: [`Sleep::notify_with`]
    /// with that hook (a promotion's notify: "Spreading a ramp-up" in the
    /// module docs).
    #[inline]
    pub fn notify_queued(
        &self,
        from_worker: usize,
        llc: usize,
        queued: impl FnOnce() -> usize,
    ) -> Option<(usize, Distance)> {
        self.notify_with(Some(from_worker), llc, Some(queued))
    }

    /// The one body of [`Sleep::notify`] and [`Sleep::notify_queued`]: the
    /// fence, then the wakeups of `notify`. With a hook `queued` (the
    /// pusher's deque length), the spread of a ramp-up adds one: where
    /// `notify` would skip because `from_llc` has a searcher, in a pool of
    /// several LLCs, [`Sleep::wake_spread`] (which alone calls the hook).
    #[inline]
    pub fn notify_with<F: FnOnce() -> usize>(
        &self,
        from_worker: Option<usize>,
        from_llc: usize,
        queued: Option<F>,
    ) -> Option<(usize, Distance)> {
        fence(Ordering::SeqCst);
        if self.searching.load(Ordering::SeqCst) as isize > 0 {
            return self.wake_local(from_worker, from_llc, queued);
        }
        self.wake_nearest_if_idle(from_worker, from_llc)
    }

    /// The spread of a ramp-up, for a push by `from_worker` of LLC `llc`
    /// where some worker of `llc` searches: while the pool ramps up
    /// ([`ramping_up`]: at least half its workers idle) and its deque
    /// holds more jobs (`queued()`, asked only then) than `llc` has
    /// searchers, claims and wakes an idle worker of `llc`, or if it has
    /// none, of the nearest *empty* LLC (every worker idle, none claimed:
    /// [`Sleep::is_empty`]). Returns the worker woken, if any.
    fn wake_spread(
        &self,
        from_worker: Option<usize>,
        llc: usize,
        queued: impl FnOnce() -> usize,
    ) -> Option<(usize, Distance)> {
        if !more_jobs_than_searchers(queued(), self.searching_in(llc))
            || !ramping_up(self.idle.armed_total(), self.idle.num_workers())
        {
            return None;
        }
        if let Some(hit) = self.wake_in(from_worker, llc) {
            return Some(hit);
        }
        let claimed = self.idle.claim_remote_where(llc, |m| self.is_empty(m))?;
        Some(self.wake_claimed(claimed))
    }

    /// Whether LLC `m` is *empty*: nobody of it searches (or was claimed)
    /// and every worker of it is armed (idle). A hint (two loads).
    fn is_empty(&self, m: usize) -> bool {
        self.searching_in(m) <= 0 && self.idle.idle_count(m) >= self.idle.llc_len(m)
    }

    /// What [`Sleep::notify_with`] does while some worker searches:
    /// nothing in a pool of one LLC (tested here, inline), else
    /// [`Sleep::wake_local_unless_searching`] (out of line, off the push
    /// path).
    #[inline]
    fn wake_local<F: FnOnce() -> usize>(
        &self,
        from_worker: Option<usize>,
        llc: usize,
        queued: Option<F>,
    ) -> Option<(usize, Distance)> {
        if self.llc_searching.is_empty() {
            return None;
        }
        self.wake_local_unless_searching(from_worker, llc, queued)
    }

    /// The local wake of [`Sleep::notify`] while some worker searches, in a
    /// pool of several LLCs, if no worker of `llc` searches: an idle worker
    /// of `llc`; if none is idle there (`llc` is saturated), the nearest
    /// idle worker of another LLC where nobody searches either (see
    /// "Waking in the pusher's LLC" in the module docs). If some worker of
    /// `llc` searches, nothing, or with a hook `queued` the spread of a
    /// ramp-up ([`Sleep::wake_spread`]). Called only in a pool of several
    /// LLCs (in one, the searchers are `llc`'s own).
    #[inline(never)]
    fn wake_local_unless_searching<F: FnOnce() -> usize>(
        &self,
        from_worker: Option<usize>,
        llc: usize,
        queued: Option<F>,
    ) -> Option<(usize, Distance)> {
        let quiet = |l: usize| self.llc_searching[l].load(Ordering::SeqCst) as isize <= 0;
        if !quiet(llc) {
            return queued.and_then(|q| self.wake_spread(from_worker, llc, q));
        }
        if !self.idle.any_idle() {
            return None;
        }
        if let Some(hit) = self.wake_in(from_worker, llc) {
            return Some(hit);
        }
        let claimed = self.idle.claim_remote_where(llc, quiet)?;
        Some(self.wake_claimed(claimed))
    }

    /// The part of [`Sleep::notify`] after its fence: no wakeup while some
    /// worker searches (it will find the job), else the nearest idle one.
    #[inline]
    fn wake_nearest_unless_searching(
        &self,
        from_worker: Option<usize>,
        from_llc: usize,
    ) -> Option<(usize, Distance)> {
        if self.searching.load(Ordering::SeqCst) as isize > 0 {
            return None;
        }
        self.wake_nearest_if_idle(from_worker, from_llc)
    }

    /// [`Sleep::wake_nearest`] unless no worker is idle (one load of the
    /// summary's root).
    #[inline]
    fn wake_nearest_if_idle(
        &self,
        from_worker: Option<usize>,
        from_llc: usize,
    ) -> Option<(usize, Distance)> {
        if !self.idle.any_idle() {
            return None;
        }
        self.wake_nearest(from_worker, from_llc)
    }

    /// The fan-out of a ramp-up: a worker woken from a park found a job
    /// with more behind it (`search::Sources::more_behind`), so it claims
    /// and wakes the nearest idle worker, whether or not some worker
    /// searches (see "Waking more during a ramp-up" in the module docs).
    /// Returns the worker woken, if any.
    #[inline]
    pub fn wake_another(&self, from_worker: usize, llc: usize) -> Option<(usize, Distance)> {
        self.wake_nearest_if_idle(Some(from_worker), llc)
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
    /// module docs), unless none of the searchers is in `llc` (the local
    /// wake of `notify`).
    pub fn notify_in(
        &self,
        from_worker: Option<usize>,
        llc: usize,
        if_none_searching: bool,
        fallback: bool,
    ) -> Option<(usize, Distance)> {
        fence(Ordering::SeqCst);
        if if_none_searching && self.searching.load(Ordering::SeqCst) as isize > 0 {
            return self.wake_local(from_worker, llc, None::<fn() -> usize>);
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

    /// The deal of a ramp-up (`runtime::deal`).
    pub fn deal(&self) -> &super::deal::Deal {
        &self.deal
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
        self.count_worker(w, true);
        self.parkers[w].unpark();
        (w, d)
    }

    /// A searching worker found nothing: it becomes idle. The caller must
    /// then re-check every queue (and its latch, and the exit condition),
    /// and hand the returned token to [`Sleep::cancel_sleep`] if it found
    /// something, else to [`Sleep::park`] and then `cancel_sleep`.
    pub fn prepare_sleep(&self, worker: usize) -> Idle {
        self.idle.set_idle(worker);
        self.count_worker(worker, false);
        self.searching.fetch_sub(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        Idle { worker }
    }

    /// Makes worker `worker` idle before its thread ever ran ("Born idle"
    /// in the module docs): sets its bit and returns the token its first
    /// park and `cancel_sleep` consume (or [`Sleep::retire`], if it never
    /// runs).
    /// Call only while the pool is being built, before any job can be
    /// pushed into it: its bit is then set before every push's `notify`,
    /// which is all the re-check of `prepare_sleep` is for.
    pub fn born_idle(&self, worker: usize) -> Idle {
        self.idle.set_idle(worker);
        Idle { worker }
    }

    /// A worker that will never run gives up its idle state (born idle,
    /// its thread was never started): it clears its bit, or, if a waker
    /// claimed it meanwhile, leaves the searching state its claimer counts
    /// it in as a searcher that stops does, handing the wakeup on. Called
    /// on the thread that owns the worker's identity (the one that drops
    /// its thread builder), in its stead. Returns the worker woken, if any.
    pub fn retire(&self, idle: Idle) -> Option<(usize, Distance)> {
        if self.idle.clear_idle(idle.worker) {
            return None;
        }
        self.stop_searching(idle.worker, self.idle.llc_of(idle.worker))
    }

    /// The re-check after [`Sleep::prepare_sleep`] found something, or
    /// [`Sleep::park`] returned: the worker is searching again.
    pub fn cancel_sleep(&self, idle: Idle) {
        if self.idle.clear_idle(idle.worker) {
            // We cleared our own bit: nobody counted us.
            self.searching.fetch_add(1, Ordering::SeqCst);
            self.count_worker(idle.worker, true);
        }
        // Else a waker claimed us and counts us as searching (it may not
        // have done so yet: see "The count" in the module docs).
    }

    /// Parks the idle worker until woken. It then hands its token to
    /// [`Sleep::cancel_sleep`], after which it is searching again (counted
    /// by itself or by its claimer). Split from `cancel_sleep` so that the
    /// simulator can put its wake latency between the two
    /// (`runtime::search::Search` is driven by both).
    pub fn park(&self, idle: &Idle) {
        self.parkers[idle.worker].park();
    }

    /// Wakes one specific worker (latch owner, broadcast target). Harmless
    /// if it is not parked: it keeps the token and re-checks once.
    pub fn wake_worker(&self, worker: usize) {
        self.parkers[worker].unpark();
    }

    /// The parker of `worker`, which [`Self::wake_worker`] unparks: for a
    /// latch that wakes one worker of this pool without naming the pool
    /// (`latch::JoinLatch`).
    pub fn parker(&self, worker: usize) -> &Parker {
        &self.parkers[worker]
    }

    /// Wakes every worker (shutdown).
    pub fn wake_all(&self) {
        for p in self.parkers.iter() {
            p.unpark();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::idle::IdleShape;

    /// Three LLCs of two workers ({0, 1}, {2, 3}, {4, 5}), every worker
    /// idle (its bit set, not counted), as after `prepare_sleep`.
    fn all_idle() -> (Sleep, Vec<Option<Idle>>) {
        let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(6, 2, 0)), 6);
        let idle = (0..6)
            .map(|w| {
                sleep.start_searching(w);
                Some(sleep.prepare_sleep(w))
            })
            .collect();
        (sleep, idle)
    }

    /// Worker `w` wakes by itself (its bit cleared by itself) and searches.
    fn wake_self(sleep: &Sleep, idle: &mut [Option<Idle>], w: usize) {
        sleep.cancel_sleep(idle[w].take().unwrap());
    }

    #[test]
    fn counts_follow_the_worker_llc() {
        let (sleep, mut idle) = all_idle();
        assert_eq!(sleep.searching(), 0);
        wake_self(&sleep, &mut idle, 2);
        assert_eq!((sleep.searching_in(0), sleep.searching_in(1)), (0, 1));
        // A claim counts the claimed worker in its own LLC.
        let (w, _) = sleep.wake_in(None, 2).unwrap();
        assert_eq!(sleep.idle().llc_of(w), 2);
        assert_eq!((sleep.searching(), sleep.searching_in(2)), (2, 1));
        // Leaving (found a job) uncounts it there.
        sleep.stop_searching(2, 1);
        assert_eq!((sleep.searching(), sleep.searching_in(1)), (1, 0));
    }

    #[test]
    fn a_push_wakes_its_own_llc_while_another_searches() {
        let (sleep, mut idle) = all_idle();
        // Worker 0 (LLC 0) searches; worker 2 (LLC 1) runs and pushes.
        wake_self(&sleep, &mut idle, 0);
        wake_self(&sleep, &mut idle, 2);
        sleep.stop_searching(2, 1);
        assert_eq!(sleep.searching(), 1);
        // The global rule alone would skip (a searcher exists): the local
        // wake takes LLC 1's idle worker 3.
        assert_eq!(sleep.notify(Some(2), 1).map(|h| h.0), Some(3));
        assert_eq!(sleep.searching_in(1), 1);
        // Now LLC 1 has a searcher: the next push skips.
        assert_eq!(sleep.notify(Some(2), 1), None);
    }

    #[test]
    fn a_saturated_llc_spills_to_an_llc_where_nobody_searches() {
        let (sleep, mut idle) = all_idle();
        // Worker 0 (LLC 0) searches; 2 and 3 (LLC 1) run.
        for w in [0, 2, 3] {
            wake_self(&sleep, &mut idle, w);
        }
        sleep.stop_searching(2, 1);
        sleep.stop_searching(3, 1);
        // LLC 1 has nobody idle; LLC 0 has idle worker 1 but a searcher;
        // LLC 2 has idle workers and no searcher: one of them is woken.
        let (w, _) = sleep.notify(Some(2), 1).unwrap();
        assert_eq!(sleep.idle().llc_of(w), 2);
        // Every LLC with idle workers now has a searcher: no more wakes.
        assert_eq!(sleep.notify(Some(2), 1), None);
        assert_eq!(sleep.searching(), 2);
    }

    #[test]
    fn one_llc_keeps_the_global_rule() {
        let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(3, 3, 0)), 3);
        let idle: Vec<_> = (0..3)
            .map(|w| {
                sleep.start_searching(w);
                sleep.prepare_sleep(w)
            })
            .collect();
        let mut idle = idle.into_iter();
        sleep.cancel_sleep(idle.next().unwrap());
        // Worker 0 searches: a push by anyone wakes nobody.
        assert_eq!(sleep.notify(None, 0), None);
        assert_eq!(sleep.searching_in(0), 0, "no per-LLC count in one LLC");
        // Nor a spinner allowance: the global cap alone decides there.
        assert!(!sleep.alone_in(0));
    }

    /// Worker `w` is working (woke by itself, left the searching state
    /// without a hand-off).
    fn working(sleep: &Sleep, idle: &mut [Option<Idle>], w: usize) {
        wake_self(sleep, idle, w);
        let _ = sleep.leave_searching(sleep.idle().llc_of(w));
    }

    #[test]
    fn a_ramp_up_promotion_wakes_one_worker_per_empty_llc() {
        let (sleep, mut idle) = all_idle();
        // Worker 0 works, its mate 1 searches: LLC 0 has a searcher and no
        // idle worker; LLCs 1 and 2 are empty; 4 of 6 workers idle.
        working(&sleep, &mut idle, 0);
        wake_self(&sleep, &mut idle, 1);
        assert_eq!(sleep.notify(Some(0), 0), None, "the plain rule skips");
        // Two jobs queued, one searcher in LLC 0: the nearest empty LLC.
        let (w, d) = sleep.notify_queued(0, 0, || 2).unwrap();
        assert_eq!((sleep.idle().llc_of(w), d), (1, Distance::Remote));
        // LLC 1 has a claimed worker now: the next push goes to LLC 2.
        let (w, _) = sleep.notify_queued(0, 0, || 3).unwrap();
        assert_eq!(sleep.idle().llc_of(w), 2);
        // No empty LLC is left (the claimed workers count as searchers).
        assert_eq!(sleep.notify_queued(0, 0, || 4), None);
        assert_eq!(sleep.searching(), 3);
    }

    #[test]
    fn a_ramp_up_promotion_fills_its_own_llc_first() {
        let (sleep, mut idle) = all_idle();
        // Worker 2 works, 4 searches (LLC 2): LLC 1 has idle worker 3.
        working(&sleep, &mut idle, 2);
        wake_self(&sleep, &mut idle, 4);
        // LLC 1 has no searcher: the local wake of `notify`, as before.
        assert_eq!(
            sleep.notify_queued(2, 1, || unreachable!()).map(|h| h.0),
            Some(3)
        );
        // Now it has one (3, claimed): two queued jobs wake toward LLC 0,
        // the nearest empty one.
        let (w, _) = sleep.notify_queued(2, 1, || 2).unwrap();
        assert_eq!(sleep.idle().llc_of(w), 0);
    }

    #[test]
    fn no_spread_without_more_jobs_than_searchers() {
        let (sleep, mut idle) = all_idle();
        working(&sleep, &mut idle, 0);
        wake_self(&sleep, &mut idle, 1);
        // One job, one searcher of LLC 0 to take it.
        assert_eq!(sleep.notify_queued(0, 0, || 1), None);
        assert_eq!(sleep.searching(), 1);
    }

    #[test]
    fn no_spread_once_half_the_pool_is_awake() {
        let (sleep, mut idle) = all_idle();
        // 0, 2, 3 work, 1 searches: 2 of 6 idle.
        for w in [0, 2, 3] {
            working(&sleep, &mut idle, w);
        }
        wake_self(&sleep, &mut idle, 1);
        assert_eq!(sleep.notify_queued(0, 0, || 5), None);
        assert_eq!(sleep.searching(), 1);
    }

    #[test]
    fn one_llc_never_spreads() {
        let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(4, 4, 0)), 4);
        let mut idle: Vec<_> = (0..4)
            .map(|w| {
                sleep.start_searching(w);
                Some(sleep.prepare_sleep(w))
            })
            .collect();
        working(&sleep, &mut idle, 0);
        wake_self(&sleep, &mut idle, 1);
        // A searcher exists: nothing, and the deque is not looked at.
        assert_eq!(sleep.notify_queued(0, 0, || unreachable!()), None);
    }

    #[test]
    fn ramp_up_rules() {
        assert!(ramping_up(3, 6) && ramping_up(6, 6) && !ramping_up(2, 6));
        assert!(ramping_up(0, 0), "an empty pool is trivially idle");
        assert!(more_jobs_than_searchers(2, 1) && more_jobs_than_searchers(1, 0));
        assert!(!more_jobs_than_searchers(1, 1) && !more_jobs_than_searchers(0, 0));
        assert!(
            more_jobs_than_searchers(1, -1),
            "a count transiently below zero"
        );
    }

    #[test]
    fn alone_in_says_whether_a_searcher_is_its_llcs_only_one() {
        let (sleep, mut idle) = all_idle();
        assert!(sleep.alone_in(1), "nobody searches in LLC 1");
        wake_self(&sleep, &mut idle, 2);
        assert!(sleep.alone_in(1), "worker 2 is LLC 1's only searcher");
        wake_self(&sleep, &mut idle, 3);
        assert!(!sleep.alone_in(1), "workers 2 and 3 both search");
        assert!(sleep.alone_in(0));
        sleep.stop_searching(3, 1);
        assert!(sleep.alone_in(1));
    }
}
