// The module docs, the protocol and the proof that no wakeup is lost, are
// in sleep_proof.md next to this file; the public docs render the same text
// as `locus::docs::sleep_wake`. Edit them there.
#![doc = include_str!("sleep_proof.md")]

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicUsize, Ordering, fence};

use super::idle::{Distance, IdleMasks};
use super::parker::Parker;

mod wake;

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

    /// The deal of a ramp-up (`runtime::deal`).
    pub fn deal(&self) -> &super::deal::Deal {
        &self.deal
    }

    /// The idle masks (for load estimates and the cluster switch).
    pub fn idle(&self) -> &IdleMasks {
        &self.idle
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

    /// [`Sleep::park`] for at most `timeout`: true if woken (a token was
    /// consumed), false if the timeout expired, the worker still idle and
    /// its token still to be handed to `park` or `cancel_sleep` (the lazy
    /// park of "Private `join` halves" in the module docs).
    pub fn park_for(&self, idle: &Idle, timeout: std::time::Duration) -> bool {
        self.parkers[idle.worker].park_timeout(timeout)
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
mod tests;
