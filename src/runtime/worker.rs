//! A worker thread: its deque, its search order, its main loop.
//!
//! A worker looks for work in this order: its own deque (LIFO), its
//! targeted queue (broadcast jobs), its LLC's injector, its steal tiers
//! nearest first (SMT siblings, cluster, LLC, NUMA node, package, remote)
//! with a random start inside each tier, then the other LLCs' injectors
//! nearest first. Inside an LLC it steals one job; across an LLC or NUMA
//! boundary, and from injectors, it steals a batch (half the victim's
//! queue, capped by crossbeam) so that the cache misses of a remote steal
//! buy more work.
//!
//! When a whole pass finds nothing the worker spins with backoff, then goes
//! through the sleep protocol of [`super::sleep`]: announce idle, re-check
//! everything (including its latch and the exit condition), park.

use std::cell::Cell;
use std::ptr;
use std::sync::Arc;

use crossbeam_deque::{Steal, Worker};
use crossbeam_utils::Backoff;

use crate::layout::{Tier, TierKind};

use super::job::JobRef;
use super::latch::CoreLatch;
use super::pin;
use super::registry::Registry;
use super::stats::Counters;

std::thread_local! {
    static CURRENT: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };
}

/// The per-thread state of a worker. Lives on the worker thread's stack
/// for the whole main loop; [`WorkerThread::current`] points to it.
pub(crate) struct WorkerThread {
    deque: Worker<JobRef>,
    index: usize,
    llc: usize,
    tiers: Vec<Tier>,
    registry: Arc<Registry>,
    rng: Cell<u64>,
    /// Above this many searching workers, a worker that found nothing skips
    /// spinning and goes to sleep at once (each spinning pass scans every
    /// other worker, so a crowd of spinners costs O(n²) on large pools).
    max_spinners: isize,
}

/// What one pass over the sources found.
enum Found {
    Job(JobRef),
    /// A source reported contention: try again before sleeping.
    Retry,
    Nothing,
}

/// Entry point of a worker thread.
pub(crate) fn main_loop(registry: Arc<Registry>, index: usize, deque: Worker<JobRef>) {
    let place = &registry.layout.workers()[index];
    let pin = pin::pin_current(&place.cpus);
    let wt = WorkerThread {
        deque,
        index,
        llc: place.llc,
        tiers: place.tiers.clone(),
        max_spinners: (registry.num_threads() / 8).max(2) as isize,
        rng: Cell::new(
            0x9E37_79B9_7F4A_7C15 ^ ((index as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03)),
        ),
        registry,
    };
    CURRENT.with(|c| c.set(&wt));
    wt.registry.worker_started(index, pin);
    wt.run(None);
    wt.registry.worker_exiting(index);
    CURRENT.with(|c| c.set(ptr::null()));
}

impl WorkerThread {
    /// The worker running on this thread, or null.
    #[inline]
    pub(crate) fn current() -> *const WorkerThread {
        CURRENT.with(|c| c.get())
    }

    /// Its pool.
    #[inline]
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Its index in the pool.
    #[inline]
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    #[inline]
    fn counters(&self) -> &Counters {
        &self.registry.counters[self.index]
    }

    /// Pushes a job on the own deque and wakes a helper if one is needed.
    #[inline]
    pub(crate) fn push(&self, job: JobRef) {
        self.deque.push(job);
        if let Some((_, d)) = self.registry.sleep.notify(Some(self.index), self.llc) {
            self.counters().wakeup(d);
        }
    }

    /// Pushes the second half of a `join`, which this worker takes back
    /// or waits for in the same frame, so the wake check needs no fence
    /// (see "Pushes onto the own deque" in `sleep`).
    #[inline]
    pub(crate) fn push_join(&self, job: JobRef) {
        self.deque.push(job);
        if let Some((_, d)) = self.registry.sleep.notify_local(self.index, self.llc) {
            self.counters().wakeup(d);
        }
    }

    /// Pops the most recently pushed job of the own deque.
    #[inline]
    pub(crate) fn take_local(&self) -> Option<JobRef> {
        let j = self.deque.pop();
        if j.is_some() {
            self.counters().local_pop();
        }
        j
    }

    /// Runs a job.
    ///
    /// # Safety
    /// `job` must have been taken out of a queue (so it runs once).
    #[inline]
    pub(crate) unsafe fn execute(&self, job: JobRef) {
        self.counters().job_run();
        // SAFETY: the caller took the job from a queue: single execution.
        unsafe { job.execute() }
    }

    /// Counts a job run inline (a `join` half popped back).
    #[inline]
    pub(crate) fn count_inline_job(&self) {
        self.counters().job_run();
    }

    /// Runs other jobs until `latch` is set.
    #[inline]
    pub(crate) fn wait_until(&self, latch: &CoreLatch) {
        if !latch.probe() {
            self.run(Some(latch));
        }
    }

    /// The loop: with a latch, until it is set; without one (the main
    /// loop), until the pool shuts down and no work is left.
    #[cold]
    fn run(&self, latch: Option<&CoreLatch>) {
        let done = |l: Option<&CoreLatch>| l.is_some_and(CoreLatch::probe);
        loop {
            while let Some(job) = self.take_local() {
                // SAFETY: popped from our deque.
                unsafe { self.execute(job) };
                if done(latch) {
                    return;
                }
            }
            if done(latch) {
                return;
            }
            match self.search(latch) {
                // SAFETY: taken from a queue by this search.
                Some(job) => unsafe { self.execute(job) },
                None => return,
            }
            if done(latch) {
                return;
            }
        }
    }

    /// Searches other sources; sleeps when there is nothing. Returns a job,
    /// or `None` when the latch is set (or, without latch, the pool exits).
    fn search(&self, latch: Option<&CoreLatch>) -> Option<JobRef> {
        let sleep = &self.registry.sleep;
        let finished = || match latch {
            Some(l) => l.probe(),
            None => self.registry.may_exit(),
        };
        sleep.start_searching();
        let backoff = Backoff::new();
        loop {
            match self.find_work() {
                Found::Job(job) => return self.found(Some(job)),
                Found::Retry => {
                    backoff.spin();
                    continue;
                }
                Found::Nothing => {}
            }
            if finished() {
                return self.found(None);
            }
            if !backoff.is_completed() && sleep.searching() <= self.max_spinners {
                backoff.snooze();
                continue;
            }
            // Nothing after spinning: go idle, re-check, park.
            self.counters().failed_search();
            sleep.prepare_sleep(self.index);
            let recheck = self.find_work();
            if let Found::Job(job) = recheck {
                sleep.cancel_sleep(self.index);
                return self.found(Some(job));
            }
            if finished() {
                sleep.cancel_sleep(self.index);
                return self.found(None);
            }
            if matches!(recheck, Found::Retry) {
                sleep.cancel_sleep(self.index);
                backoff.reset();
                continue;
            }
            if let Some(l) = latch {
                if !l.try_sleep() {
                    sleep.cancel_sleep(self.index);
                    return self.found(None);
                }
            }
            self.counters().park();
            sleep.sleep(self.index);
            if let Some(l) = latch {
                if l.wake_up() {
                    return self.found(None);
                }
            }
            backoff.reset();
        }
    }

    /// Leaves the searching state (see `Sleep::stop_searching`).
    #[inline]
    fn found(&self, job: Option<JobRef>) -> Option<JobRef> {
        if let Some((_, d)) = self.registry.sleep.stop_searching(self.index, self.llc) {
            self.counters().wakeup(d);
        }
        job
    }

    fn next_random(&self) -> u64 {
        // xorshift64
        let mut x = self.rng.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng.set(x);
        x
    }

    /// One pass over every source except the own deque.
    fn find_work(&self) -> Found {
        let reg = &*self.registry;
        if let Some(job) = reg.pop_targeted(self.index) {
            return Found::Job(job);
        }
        let mut retry = false;
        let own = &reg.injectors[self.llc];
        match if own.is_empty() {
            Steal::Empty
        } else {
            own.steal_batch_and_pop(&self.deque)
        } {
            Steal::Success(job) => {
                self.counters().injector_pull();
                return Found::Job(job);
            }
            Steal::Retry => retry = true,
            Steal::Empty => {}
        }
        for tier in &self.tiers {
            match self.steal_tier(tier) {
                Found::Job(job) => return Found::Job(job),
                Found::Retry => retry = true,
                Found::Nothing => {}
            }
        }
        for &l in reg.layout.llc_order(self.llc) {
            let inj = &reg.injectors[l];
            if inj.is_empty() {
                continue;
            }
            match inj.steal_batch_and_pop(&self.deque) {
                Steal::Success(job) => {
                    self.counters().injector_pull();
                    return Found::Job(job);
                }
                Steal::Retry => retry = true,
                Steal::Empty => {}
            }
        }
        if retry { Found::Retry } else { Found::Nothing }
    }

    /// Tries every worker of a tier once, from a random start.
    fn steal_tier(&self, tier: &Tier) -> Found {
        let total: usize = tier.ranges.iter().map(|r| r.len()).sum();
        if total == 0 {
            return Found::Nothing;
        }
        let batch = matches!(
            tier.kind,
            TierKind::Numa | TierKind::Package | TierKind::Remote
        );
        let start = (self.next_random() % total as u64) as usize;
        let mut retry = false;
        for k in 0..total {
            let victim = nth_in_ranges(&tier.ranges, (start + k) % total);
            if victim == self.index {
                continue;
            }
            let stealer = &self.registry.threads[victim].stealer;
            // A cheap look first (two loads, no epoch pin): most victims of
            // a scan are empty. Sound for the sleep protocol's re-check too:
            // after the sleeper's fence, the load of the victim's `back`
            // sees any push ordered before the pusher's fence.
            if stealer.is_empty() {
                continue;
            }
            let s = if batch {
                stealer.steal_batch_and_pop(&self.deque)
            } else {
                stealer.steal()
            };
            match s {
                Steal::Success(job) => {
                    // Counted by distance, not by tier, so that a `Flat`
                    // pool's steals are comparable (`Layout::relation`).
                    let kind = self.registry.layout.relation(self.index, victim);
                    self.counters().steal(kind);
                    return Found::Job(job);
                }
                Steal::Retry => retry = true,
                Steal::Empty => {}
            }
        }
        if retry { Found::Retry } else { Found::Nothing }
    }
}

/// The `n`-th index of a list of ranges taken as one sequence.
fn nth_in_ranges(ranges: &[std::ops::Range<usize>], mut n: usize) -> usize {
    for r in ranges {
        if n < r.len() {
            return r.start + n;
        }
        n -= r.len();
    }
    unreachable!("n < total length")
}
