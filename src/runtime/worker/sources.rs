//! The worker's side of its run loop ([`crate::runtime::run_loop::run`]) and of the
//! search loop ([`crate::runtime::search::search`]): what it takes before searching, the
//! sleep protocol's look at every queue (`sees_work`), its latch's
//! probes, and the search's reports to the idle governor, the counters
//! and the wakeup handoff.
//!
//! Invariant: only the worker's own thread runs these; `sees_work` only
//! loads (the sleep proof's re-check, `sleep_proof.md`).

use std::sync::atomic::Ordering as StdOrdering;

use crate::runtime::idle::Distance;
use crate::runtime::job::JobRef;
use crate::runtime::latch::CoreLatch;
use crate::runtime::owner::{self, CROSSING};
use crate::runtime::pass;
use crate::runtime::pin;
use crate::runtime::run_loop::RunLoop;
use crate::runtime::search::{Reach, Sources};
use crate::runtime::sleep::Sleep;

use super::{Found, WorkerThread};

/// The worker's side of its run loop ([`crate::runtime::run_loop::run`]).
impl RunLoop for &WorkerThread {
    #[inline]
    fn take_local(&mut self) -> Option<JobRef> {
        WorkerThread::take_local(self).or_else(|| WorkerThread::take_own_group(self))
    }

    /// Publishes the counts; ends the `CROSSING` mark: out of work, no
    /// halves of a job taken across the LLC will come from here any more.
    #[inline]
    fn before_search(&mut self) {
        self.flush_counts();
        if self.marks.get() & CROSSING != 0 {
            owner::end_marks(self, CROSSING);
        }
    }
}

/// The worker's side of the search loop ([`crate::runtime::search::search`]).
impl Sources for &WorkerThread {
    type Job = JobRef;
    type Latch = CoreLatch;

    #[inline]
    fn sleep(&self) -> &Sleep {
        &self.registry.sleep
    }

    #[inline]
    fn find_work(&mut self, reach: Reach) -> Found {
        WorkerThread::find_work(self, reach)
    }

    #[inline]
    fn may_exit(&self) -> bool {
        self.registry.may_exit(self.index)
    }

    #[inline]
    fn probe(&self, latch: &CoreLatch) -> bool {
        latch.probe()
    }

    #[inline]
    fn try_sleep(&self, latch: &CoreLatch) -> bool {
        latch.try_sleep()
    }

    #[inline]
    fn wake_up(&self, latch: &CoreLatch) -> bool {
        latch.wake_up()
    }

    #[inline]
    fn max_spinners(&self) -> isize {
        self.max_spinners
    }

    #[inline]
    fn mate_crossing(&self) -> bool {
        // This worker's own mark ended before it searched.
        let reg = &*self.registry;
        let crossing = reg.llc_hints[self.llc].crossing.load(StdOrdering::Relaxed);
        pass::crossing_covers(crossing, || reg.sleep.searching_in(self.llc))
    }

    #[inline]
    fn mostly_idle(&self) -> bool {
        let idle = self.registry.sleep.idle();
        idle.any_idle() && 2 * idle.armed_total() >= idle.num_workers()
    }

    /// Loads only, stopping at the first job seen; idle workers' deques
    /// are skipped a word of idle bits at a time (they hold no jobs).
    fn sees_work(&mut self) -> bool {
        let reg = &*self.registry;
        if !self.deque.is_empty() {
            return true;
        }
        let shared = reg.injectors.iter();
        if shared
            .chain(reg.group_llc.iter())
            .chain(reg.group_cluster.iter())
            .any(|q| !q.is_empty())
        {
            return true;
        }
        reg.sleep
            .idle()
            .awake_in(0..reg.threads.len())
            .any(|v| v != self.index && !reg.threads[v].stealer.is_empty())
    }

    #[inline]
    fn woke(&mut self, (_, d): (usize, Distance)) {
        self.counters().wakeup(d);
    }

    /// The victim of the steal that gave the job, if it was one, still
    /// holds a job, or a batch is in the own deque (two loads each).
    #[inline]
    fn more_behind(&mut self) -> bool {
        let v = self.stolen_from.replace(usize::MAX);
        !self.deque.is_empty()
            || self
                .registry
                .threads
                .get(v)
                .is_some_and(|t| !t.stealer.is_empty())
    }

    #[inline]
    fn failed_search(&mut self) {
        self.governor.spent();
        self.counters().failed_search();
    }

    #[inline]
    fn parked(&mut self, waits: bool) {
        let now = std::time::Instant::now();
        self.governor.parking_at(now);
        if let Some(p) = &self.loaded_pin {
            p.idle_at(now);
            if !waits && self.governor.light() {
                p.float();
            }
        }
        self.counters().park();
    }

    #[inline]
    fn search_opened(&mut self) {
        self.governor.opened();
        if let Some(p) = &self.loaded_pin
            && self.governor.busy()
        {
            p.settle();
        }
        if self.registry.hands_wakeups() {
            self.info().handoff.open(pin::current_cpu());
        }
    }

    #[inline]
    fn search_closed(&mut self) {
        self.governor.closed();
        if self.info().handoff.close() {
            std::thread::yield_now();
        }
    }

    #[inline]
    fn yielding(&mut self) {
        if let Some(p) = &self.loaded_pin {
            p.idle();
        }
    }

    #[inline]
    fn serve_handoff(&mut self) {
        if self.info().handoff.serve() {
            std::thread::yield_now();
        }
    }

    #[inline]
    fn search_steps(&self, waits: bool) -> u32 {
        self.governor.steps(waits)
    }

    /// [`LAZY_PARK`](crate::runtime::backoff::LAZY_PARK) while some other
    /// worker is not armed (`backoff::lazy_park`).
    #[inline]
    fn lazy_park(&mut self) -> Option<std::time::Duration> {
        crate::runtime::backoff::lazy_park(self.registry.sleep.idle())
    }

    /// The far pass with `PassQueues::find_private`'s look unfenced.
    #[inline]
    fn find_work_lazily(&mut self) -> Found {
        self.lazy_look.set(true);
        let found = WorkerThread::find_work(self, Reach::Far);
        self.lazy_look.set(false);
        found
    }
}
