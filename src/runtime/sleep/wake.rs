//! Whom a push wakes ([`Sleep::notify`] and its variants): the fence
//! every waker runs, then at most one idle worker claimed and woken: the
//! nearest while nobody searches, else one of the pusher's LLC or of an
//! LLC where nobody searches, the spread of a ramp-up, and the wakeups
//! aimed at one LLC or one worker. The argument that these wakeups lose
//! none is the sleep proof's ("Waking in the pusher's LLC", "Spreading a
//! ramp-up", "Queues of one LLC" in `sleep`).
//!
//! Invariant: a worker is woken only through a claim of its idle bit,
//! counted as searching before it is unparked ([`Sleep::wake_claimed`]);
//! the `notify` functions start with a SeqCst fence (the waker's side of
//! the Dekker pair with `prepare_sleep`), the `wake_` ones are for callers
//! that fenced already.

use crate::runtime::idle::Distance;
use crate::sync::{Ordering, fence};

use super::Sleep;

/// Whether a pool with `armed` of its `workers` idle (armed, claimed or
/// not) ramps up, for the spread of [`Sleep::notify_queued`]: at least half
/// of them are idle (the threshold of the passes' "mostly idle").
#[inline]
pub(crate) fn ramping_up(armed: usize, workers: usize) -> bool {
    2 * armed >= workers
}

/// Whether a deque holding `queued` jobs holds more than the `searching`
/// workers of its LLC will take (each takes one): then a ramp-up wakes one
/// more worker ([`Sleep::notify_queued`]).
#[inline]
pub(crate) fn more_jobs_than_searchers(queued: usize, searching: isize) -> bool {
    isize::try_from(queued).unwrap_or(isize::MAX) > searching
}

impl Sleep {
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
        self.searching_in(m) <= 0 && self.idle.all_armed(m)
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
    /// one worker, see [`IdleMasks::claim_worker`](crate::runtime::idle::IdleMasks::claim_worker)); `d` is only reported
    /// back. A pusher that aims a job at `w` calls this after its fence
    /// (the claim is one of the claims of rule 2 in "Queues of one LLC").
    pub fn wake_if_idle(&self, w: usize, d: Distance) -> Option<(usize, Distance)> {
        self.idle.claim_worker(w).then(|| self.wake_claimed((w, d)))
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
}
