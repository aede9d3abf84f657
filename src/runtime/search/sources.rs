//! [`Sources`]: what the search loop ([`super::Search`]) asks of its
//! driver's world: the queues it looks at, the latch it waits for, and
//! where it reports what it did. The pool, the loom models and the
//! simulator each implement it.

use std::time::Duration;

use crate::runtime::idle::Distance;
use crate::runtime::sleep::Sleep;

#[cfg(doc)]
use super::rules::{may_spin, may_spin_on};
use super::{Found, Reach};

/// Where a worker looks for work beyond its own deque, the latch it waits
/// for, and where the search reports what it did.
///
/// The sleep proof asks of [`Sources::find_work`] that one pass looks at
/// every queue a sleeping worker could be responsible for, with the
/// forward rule for queues the worker may not take from (see "Queues of one
/// LLC" in [`crate::runtime::sleep`]).
///
/// Queries take `&self`; a pass and the reports take `&mut self`, so that
/// the simulator's sources can charge costs to their worker (the pool's
/// are `&WorkerThread`, whose state is in cells).
pub trait Sources {
    /// A job as the queues hold it.
    type Job;

    /// What a search waits for when it waits ([`CoreLatch`](crate::runtime::latch::CoreLatch) for the pool
    /// and the loom models; the simulator's own latches).
    type Latch: ?Sized;

    /// The pool's sleep state.
    fn sleep(&self) -> &Sleep;

    /// One pass over the sources except the own deque: every one with
    /// [`Reach::Far`], those inside the worker's LLC with [`Reach::Near`]
    /// (see "Near passes" in `runtime::pass`; an implementation may look
    /// farther).
    fn find_work(&mut self, reach: Reach) -> Found<Self::Job>;

    /// For a worker waiting for no latch: whether it may leave the pool (it
    /// shuts down and nothing is pending).
    fn may_exit(&self) -> bool;

    /// Whether `latch` is set ([`CoreLatch::probe`](crate::runtime::latch::CoreLatch::probe)).
    fn probe(&self, latch: &Self::Latch) -> bool;

    /// Announces that the worker parks waiting for `latch`; false if it is
    /// set already ([`CoreLatch::try_sleep`](crate::runtime::latch::CoreLatch::try_sleep)).
    fn try_sleep(&self, latch: &Self::Latch) -> bool;

    /// After a park: whether the worker was woken because `latch` was set
    /// ([`CoreLatch::wake_up`](crate::runtime::latch::CoreLatch::wake_up)).
    fn wake_up(&self, latch: &Self::Latch) -> bool;

    /// Above this many searching workers, a worker that found nothing and
    /// waits for no latch goes idle at once instead of spinning first
    /// ([`may_spin`]; pools use [`max_spinners`](super::rules::max_spinners)).
    fn max_spinners(&self) -> isize;

    /// Whether a worker of this worker's LLC took a job from another LLC's
    /// worker and has not split it yet (`pass::PassQueues::crossed`): a
    /// hint for [`may_spin`], never a protocol word. None by default.
    #[inline]
    fn mate_crossing(&self) -> bool {
        false
    }

    /// Whether at least half of the pool's workers are idle (a hint for
    /// [`may_spin_on`], one load of the idle summary; never a protocol
    /// word). No by default.
    #[inline]
    fn mostly_idle(&self) -> bool {
        false
    }

    /// Whether some queue a pushed job can be in holds a job: every
    /// injector, spread and pack queue, this worker's own deque and the
    /// deque of every other worker whose idle bit is clear; loads only,
    /// nothing taken. The last searcher to leave looks before it hands a
    /// wakeup on (see "The hand-off looks first" in [`crate::runtime::sleep`]).
    /// Yes by default (every such searcher hands the wakeup on).
    #[inline]
    fn sees_work(&mut self) -> bool {
        true
    }

    /// Runs `op`, a transition of the sleep state that may read or write
    /// idle-mask words ([`Sleep::prepare_sleep`], [`Sleep::stop_searching`]),
    /// on the sleep state (the simulator counts the words it touches).
    #[inline]
    fn idle_op<R>(&mut self, op: impl FnOnce(&Sleep) -> R) -> R {
        op(self.sleep())
    }

    /// Counts a wakeup this worker made: of `hit.0`, at distance `hit.1`
    /// (the pool's stats; the simulator schedules the woken worker).
    #[inline]
    fn woke(&mut self, hit: (usize, Distance)) {
        let _ = hit;
    }

    /// Whether the job the last pass returned has more work behind it: it
    /// was stolen from another worker's deque that still holds a job, or
    /// it came with a batch that is now in the own deque (a cheap look,
    /// asked only by a search woken from a park that found a job: see
    /// [`Search`](super::Search)'s fan-out, "Waking more during a ramp-up" in
    /// [`crate::runtime::sleep`]). No by default.
    #[inline]
    fn more_behind(&mut self) -> bool {
        false
    }

    /// Counts a search that found nothing and goes idle (just before
    /// [`Sleep::prepare_sleep`]).
    #[inline]
    fn failed_search(&mut self) {}

    /// Counts a park; `waits`: the worker waits for a latch (a `join`
    /// half, a `scope`), not for new work.
    #[inline]
    fn parked(&mut self, waits: bool) {
        let _ = waits;
    }

    /// The worker starts or resumes searching (as a counted searcher):
    /// a caller's wakeup may be handed to it from now on (see
    /// `runtime::handoff`).
    #[inline]
    fn search_opened(&mut self) {}

    /// The worker stops searching or goes idle: it wakes the caller handed
    /// to it, if any.
    #[inline]
    fn search_closed(&mut self) {}

    /// Between passes: wakes the caller handed to the worker, if any.
    #[inline]
    fn serve_handoff(&mut self) {}

    /// The search yields its CPU now (a pause of its backoff, on a real
    /// thread: `search::drive`): a moment at which a clock read costs
    /// little beside the system call (the pool's worker steps its pin's
    /// widener, `runtime::pin::widen`).
    #[inline]
    fn yielding(&mut self) {}

    /// After `prepare_sleep`, for any worker (a latch waiter too): whether
    /// this park is *lazy*, and its timeout if so. A lazy park's re-check
    /// looks at the other workers' private halves without the heavy fence
    /// ([`Sources::find_work_lazily`]) and the worker parks for at most the
    /// timeout; when it expires, a latch waiter withdraws its announcement
    /// ([`Sources::wake_up`]), and the worker re-checks with the fence and
    /// then parks without one ("The lazy park" in "Private `join` halves"
    /// of [`crate::runtime::sleep`]). Never by default.
    #[inline]
    fn lazy_park(&mut self) -> Option<Duration> {
        None
    }

    /// The re-check pass of a lazy park: a [`Reach::Far`] pass whose look
    /// at the private halves may skip its heavy fence. By default the
    /// fenced pass.
    #[inline]
    fn find_work_lazily(&mut self) -> Found<Self::Job> {
        self.find_work(Reach::Far)
    }

    /// How many backoff steps (spins, then yields) the search may spend
    /// before it re-checks and parks, for a latch waiter if `waits` (the
    /// worker's idle governor, `runtime::backoff`; the full budget by
    /// default).
    #[inline]
    fn search_steps(&self, waits: bool) -> u32 {
        let _ = waits;
        crate::runtime::backoff::FULL_STEPS
    }
}
