//! A worker thread: its deque, its search order, its main loop.
//!
//! A worker looks for work in this order: its own deque (LIFO), its
//! targeted queue (broadcast jobs), its cluster's spread-group queue, its
//! LLC's pack-group queue, its LLC's injector, its steal tiers
//! nearest first (SMT siblings, cluster, LLC, NUMA node, package, remote)
//! with a random start inside each tier, then the other LLCs' injectors
//! nearest first, then the other clusters' spread-group queues, then the
//! other LLCs' pack-group queues, each only as [`crate::groups::policy::may_help_by`]
//! allows (that LLC overloaded, or saturated while this worker is idle).
//! The tiers are those of the pool's current cluster mode, read at the
//! start of each pass (the run-time switch changes orders only: every
//! queue is in every pass).
//!
//! Inside an LLC it steals one job, unless the victim's deque is long
//! ([`pass::tiers::LONG_DEQUE`]: a loop of spawns, not a recursion); across an LLC or
//! NUMA boundary, and from injectors, it steals a batch (half the victim's
//! queue, capped by crossbeam's 32, or by [`pass::tiers::CROSS_BATCH`] from a long
//! deque) so that the cache misses of a remote steal buy more work.
//!
//! When a whole pass finds nothing the worker spins with backoff, then goes
//! through the sleep protocol of [`super::sleep`]: announce idle, re-check
//! everything (including its latch and the exit condition), park. That loop
//! is [`super::search::search`], generic over its sources so that loom runs
//! it too; the worker supplies the sources (`sources`: `Sources` for
//! `WorkerThread`, over its `find_work` pass). The re-check also looks at the
//! other workers' private `join` halves, the only time a worker does (see
//! [`super::private`] and "Private `join` halves" in `sleep`): taking one
//! costs a heavy fence.
//!
//! This module holds the worker's state, its thread's entry and its own
//! operations (`execute`, the counts, the group of the running job); its
//! side of each protocol is a child module, an `impl` over
//! `&WorkerThread`: `pass_queues` (a search pass, `pass::PassQueues`),
//! `own_queues` (its deque and private halves, `owner::Owner`) and
//! `sources` (its run and search loops, `run_loop::RunLoop` and
//! `search::Sources`). Invariant of all of them: a `WorkerThread` lives on
//! its thread's stack and is not `Sync`, so only that thread runs them.

use std::cell::Cell;
use std::ptr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering as StdOrdering};

use crossbeam_deque::Worker;
use crossbeam_utils::Backoff;

use crate::CpuSet;
use crate::layout::{Pinning, Tier};

use super::backoff::IdleGovernor;
use super::group_state::GroupRef;
use super::job::JobRef;
use super::jobmem::{Depot, JobCache};
use super::latch::CoreLatch;
use super::latch::{JoinLatch, ParkerSlot};
use super::owner::{self, STARTING};
use super::pass;
use super::pin;
use super::private::PrivateStack;
use super::registry::{Registry, ThreadInfo};
use super::run_loop;
use super::search::{self, Reach};
use super::sleep::Idle;
use super::stats::Counters;
use super::unwind::AbortOnUnwind;

mod own_queues;
mod pass_queues;
mod sources;

std::thread_local! {
    static CURRENT: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };
}

/// The per-thread state of a worker. Lives on the worker thread's stack
/// for the whole main loop; [`CURRENT`] points to it (read through
/// [`WorkerThread::with_current`]).
///
/// `repr(C)`, with the parker's slot first: a `join`'s latch points at the
/// slot, which is then the worker's own address (`latch::JoinLatch`). The
/// fields every `join` reads follow it, in the same cache line.
#[repr(C)]
pub(crate) struct WorkerThread {
    /// Its parker in the registry's sleep state, for the latch of every
    /// `join` ([`WorkerThread::join_latch`]). First: see above.
    parker: ParkerSlot,
    /// This worker's private `join` halves: `registry.threads[index]
    /// .private`, which this thread owns (see `push_private`).
    private: *const PrivateStack<JobRef>,
    /// The idle masks' summary root word: read after every private push
    /// (`private::rules::must_publish`).
    idle_word: *const crate::sync::AtomicU64,
    /// The group of the job running now (null: none).
    group: Cell<GroupRef>,
    /// Jobs run and local pops not yet published (see `flush_counts`).
    local_jobs: Cell<u64>,
    local_pops: Cell<u64>,
    registry: Arc<Registry>,
    deque: Worker<JobRef>,
    index: usize,
    llc: usize,
    cluster: usize,
    /// Steal tiers without and with the cluster level.
    tiers: [Vec<Tier>; 2],
    /// `pass::near_tiers` of each of `tiers`.
    near_tiers: [Option<usize>; 2],
    rng: Cell<u64>,
    /// The spinner cap, `search::rules::max_spinners` of the pool's size.
    max_spinners: isize,
    /// Recycled blocks for heap jobs (see `jobmem`).
    jobmem: JobCache,
    /// How long this worker's searches spin before parking
    /// (`runtime::backoff`), fed by the search's reports below.
    governor: IdleGovernor,
    /// The pin and the wider set the worker takes while the kernel keeps
    /// it waiting (`pin::widen`), stepped when it parks or yields; `None`
    /// where widening does not apply.
    loaded_pin: Option<Box<pin::LoadedPin>>,
    /// The re-check pass running now is a lazy park's: its look at the
    /// private halves skips the heavy fence (`Sources::find_work_lazily`).
    lazy_look: Cell<bool>,
    /// The victim of the last job a pass took by a steal, `usize::MAX` if
    /// the last job a pass took came from elsewhere: for
    /// `Sources::more_behind`.
    stolen_from: Cell<usize>,
    /// The injector's turn of `owner::take_own_group`: set after a job of
    /// an own group queue, so that the next local take looks at the own
    /// LLC's injector first.
    injector_turn: Cell<bool>,
    /// This worker's marks ([`STARTING`], [`CROSSING`](owner::CROSSING)) as it last
    /// published them: `ThreadInfo::starting`, and its count in
    /// `LlcHints::crossing`. Its first `join` ends both.
    marks: Cell<u8>,
}

// The latch's pointer to the slot is the worker's address (see above).
const _: () = assert!(std::mem::offset_of!(WorkerThread, parker) == 0);

/// What one pass over the sources found.
type Found = search::Found<JobRef>;

/// Entry point of a worker thread.
pub(crate) fn main_loop(registry: Arc<Registry>, index: usize, deque: Worker<JobRef>, idle: Idle) {
    let (wt, pin) = WorkerThread::pinned(registry, index, deque);
    CURRENT.with(|c| c.set(&wt));
    // Declared after `wt`, so dropped before it: the pointer never outlives
    // the worker, also if something unwinds out of this frame.
    let _current = ResetCurrent;
    // The two-step exit of `registry` ("Lifetime"): the loop until the pool
    // terminated with no detached job left; the exit handler, still as a
    // worker; the loop again until every worker's handler returned and no
    // job is left. A failed build opens no gate: nothing runs.
    if wt.registry.worker_started(index, pin) {
        // The deque may hold other threads' stack jobs (stolen in a batch):
        // the loops must not be unwound out of (see `unwind`). The exit
        // handler's panics are contained by `worker_exiting`.
        let guard = AbortOnUnwind::new("a worker's main loop");
        wt.run_born(idle);
        wt.run(None);
        wt.registry.worker_exiting(index);
        wt.run(None);
        guard.disarm();
    } else {
        // The build failed: nobody can push, but the token is given back
        // as the protocol asks.
        wt.registry.retire_idle(idle);
    }
    wt.flush_counts();
}

/// Makes the calling thread worker `index` of `registry` without running
/// a loop (`use_current_thread`): pins it like that worker and sets it as
/// the current worker for the rest of the thread's life. The worker state
/// is leaked, as the thread may still be inside the pool's calls whenever
/// the pool goes away (rayon does the same).
pub(crate) fn adopt_current_thread(
    registry: Arc<Registry>,
    index: usize,
    deque: Worker<JobRef>,
) -> pin::PinStatus {
    let (wt, pin) = WorkerThread::pinned(registry, index, deque);
    let wt: &'static WorkerThread = Box::leak(Box::new(wt));
    CURRENT.with(|c| c.set(wt));
    pin
}

impl WorkerThread {
    /// Pins the calling thread for worker `index` and builds its state.
    fn pinned(
        registry: Arc<Registry>,
        index: usize,
        deque: Worker<JobRef>,
    ) -> (Self, pin::PinStatus) {
        let place = &registry.layout.workers()[index];
        let pin = pin::pin_current(&place.cpus);
        // The wider set is the LLC's: the pins of its workers together.
        let wide = registry.layout.workers()[registry.layout.llc_ranges()[place.llc].clone()]
            .iter()
            .fold(CpuSet::default(), |a, w| a.union(&w.cpus));
        let may_widen = registry.layout.options().pinning == Pinning::Cluster;
        let loaded_pin = pin::LoadedPin::new(&pin, &place.cpus, wide, may_widen);
        let tiers = [
            registry.layout.tiers_for(index, false).to_vec(),
            registry.layout.tiers_for(index, true).to_vec(),
        ];
        let wt = WorkerThread {
            deque,
            index,
            llc: place.llc,
            cluster: place.cluster,
            near_tiers: [pass::near_tiers(&tiers[0]), pass::near_tiers(&tiers[1])],
            tiers,
            group: Cell::new(GroupRef::NONE),
            local_jobs: Cell::new(0),
            local_pops: Cell::new(0),
            max_spinners: search::rules::max_spinners(registry.num_threads()),
            rng: Cell::new(pass::tiers::worker_seed(index)),
            jobmem: JobCache::new(),
            private: &registry.threads[index].private,
            marks: Cell::new(0),
            stolen_from: Cell::new(usize::MAX),
            injector_turn: Cell::new(false),
            idle_word: registry.sleep.idle().root_word(),
            parker: ParkerSlot::new(registry.sleep.parker(index)),
            governor: IdleGovernor::new(),
            loaded_pin,
            lazy_look: Cell::new(false),
            registry,
        };
        (wt, pin)
    }
}

/// Publishes the calling thread's pending job counts, if it is a worker
/// (see `flush_counts`). A job calls this just before it sets the latch
/// that may release its waiter (the end of a stolen `join` half, of an
/// `install`ed closure, of a `scope` job), so that the waiter, once it
/// returns, reads counts that include every job run for it
/// ([`crate::ThreadPool::stats`]). Not on the `join` fast path: halves
/// taken back and run inline set no latch.
#[inline]
pub(crate) fn publish_counts() {
    WorkerThread::with_current(|wt| {
        if let Some(wt) = wt {
            wt.flush_counts();
        }
    });
}

/// Clears [`CURRENT`] when dropped (see `main_loop`).
struct ResetCurrent;

impl Drop for ResetCurrent {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(ptr::null()));
    }
}

impl WorkerThread {
    /// Calls `f` with the worker running on this thread (a worker of any
    /// pool), or `None` on any other thread: the safe way to reach the
    /// current worker, used everywhere but the `join` entry.
    #[inline]
    pub(crate) fn with_current<R>(f: impl FnOnce(Option<&WorkerThread>) -> R) -> R {
        // SAFETY: the borrow cannot outlive this call: `f` must accept a
        // borrow of any lifetime and `R` is chosen by the caller, so
        // neither can name it.
        f(unsafe { Self::current_in_frame() })
    }

    /// The worker running on this thread, or `None`: the one place that
    /// turns [`CURRENT`] into a reference. Prefer
    /// [`with_current`](Self::with_current); this form exists for
    /// `pool::global::in_worker`, the entry of every `join`, where the
    /// closure form cost fib/locus/30 about a third more time (measured:
    /// 28-32 ms against 40-47 ms on the same loaded machine).
    ///
    /// # Safety
    /// The caller must not let the reference outlive its own frame (not
    /// store it, not return it).
    #[inline]
    pub(crate) unsafe fn current_in_frame<'a>() -> Option<&'a WorkerThread> {
        // SAFETY: `CURRENT` is non-null only while it points to a live
        // `WorkerThread` of this thread: `main_loop` sets it to its own
        // `wt` and clears it (`ResetCurrent`, dropped before `wt`, also on
        // unwind) before `wt` goes away, and `adopt_current_thread` sets it
        // to a worker leaked for good. Every frame that calls this on a
        // worker thread runs inside `main_loop` (or after the leak), so the
        // worker outlives the caller's frame, which the reference does not
        // outlive (the caller's contract). `WorkerThread` is not `Sync`
        // (cells), so the reference cannot reach another thread.
        unsafe { CURRENT.get().as_ref() }
    }

    /// Whether this thread is a worker (of any pool).
    #[inline]
    pub(crate) fn on_worker_thread() -> bool {
        !CURRENT.with(Cell::get).is_null()
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

    /// Its LLC (dense index in the layout).
    #[inline]
    pub(crate) fn llc(&self) -> usize {
        self.llc
    }

    /// Its job-block cache and its LLC's depot (see `jobmem`).
    #[inline]
    pub(crate) fn job_memory(&self) -> (&JobCache, &Depot) {
        (&self.jobmem, &self.registry.depots[self.llc])
    }

    /// The group of the job running now.
    #[inline]
    pub(crate) fn group(&self) -> GroupRef {
        self.group.get()
    }

    /// Runs `f` as (part of) a job of group `g`: counts the run in this
    /// worker's LLC and makes `g` the current group meanwhile (restored on
    /// return and on panic). With no group, just runs `f`.
    pub(crate) fn in_group<R>(&self, g: GroupRef, f: impl FnOnce() -> R) -> R {
        let Some(st) = g.get() else {
            return f();
        };
        st.record(self.llc);
        self.with_group(g, f)
    }

    /// [`Self::in_group`] on the worker running this thread (jobs run on
    /// workers; on any other thread `f` just runs).
    pub(crate) fn in_group_here<R>(g: GroupRef, f: impl FnOnce() -> R) -> R {
        Self::with_current(|wt| match wt {
            Some(wt) => wt.in_group(g, f),
            None => f(),
        })
    }

    /// Runs `f` with `g` as the current group (restored on return and on
    /// panic), counting nothing.
    pub(crate) fn with_group<R>(&self, g: GroupRef, f: impl FnOnce() -> R) -> R {
        struct Restore<'a>(&'a Cell<GroupRef>, GroupRef);
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                self.0.set(self.1);
            }
        }
        let _restore = Restore(&self.group, self.group.replace(g));
        f()
    }

    #[inline]
    fn counters(&self) -> &Counters {
        &self.registry.counters[self.index]
    }

    /// Pushes a job on the own deque and wakes a helper if one is needed
    /// ([`owner::push`]).
    #[inline]
    pub(crate) fn push(&self, job: JobRef) {
        owner::push(&mut &*self, job);
    }

    /// After jobs were pushed on the own deque: the fenced
    /// [`super::sleep::Sleep::notify`], counting the wakeup.
    #[inline]
    fn notify(&self) {
        if let Some((_, d)) = self.registry.sleep.notify(Some(self.index), self.llc) {
            self.counters().wakeup(d);
        }
    }

    /// Its shared state in the registry.
    #[inline]
    fn info(&self) -> &ThreadInfo {
        &self.registry.threads[self.index]
    }

    /// Its private `join` halves.
    #[inline]
    fn private(&self) -> &PrivateStack<JobRef> {
        // SAFETY: points into `self.registry.threads`, which lives as long
        // as the registry this worker holds an `Arc` of.
        unsafe { &*self.private }
    }

    /// A latch for a `join` half this worker waits for.
    #[inline]
    pub(crate) fn join_latch(&self) -> JoinLatch<'_> {
        JoinLatch::new(&self.parker)
    }

    /// [`owner::start_piece`].
    pub(crate) fn start_piece(&self) {
        owner::start_piece(&mut &*self);
    }

    /// Runs `f`, a piece of a parallel iterator's first split, counted in
    /// its LLC's `LlcHints::placed` until it returns or unwinds: the far
    /// steals of other LLCs then treat this LLC's jobs as placed data, not
    /// as the biggest work to take (`pass::queues::victim_size`).
    pub(crate) fn run_placed<R>(&self, f: impl FnOnce() -> R) -> R {
        /// Takes the count back when `f` returns or unwinds.
        struct Placed<'a>(&'a StdAtomicUsize);
        impl Drop for Placed<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, StdOrdering::Relaxed);
            }
        }
        let count = &self.registry.llc_hints[self.llc].placed;
        count.fetch_add(1, StdOrdering::Relaxed);
        let _placed = Placed(count);
        f()
    }

    /// Ends [`Self::start_piece`]'s mark, if it is set.
    #[cold]
    #[inline(never)]
    pub(crate) fn end_start(&self) {
        owner::end_marks(&mut &*self, STARTING);
    }

    /// Pops the most recently pushed job of the own deque.
    #[inline]
    pub(crate) fn take_local(&self) -> Option<JobRef> {
        owner::take_local(&mut &*self)
    }

    /// [`owner::take_own_group`].
    #[inline]
    fn take_own_group(&self) -> Option<JobRef> {
        owner::take_own_group(&mut &*self)
    }

    /// Runs a job, in no group: a worker that waits inside a job of group
    /// G (in a `join`, a `scope`, an `install` into another pool) must not
    /// lend G to the unrelated jobs it runs meanwhile, or their own spawns
    /// would be routed by G's plan and counted in G's stats. Jobs of a
    /// group enter it themselves (their wrappers call
    /// [`WorkerThread::in_group_here`]; an injected `install` op sets its
    /// group in `injected_op`).
    ///
    /// Jobs never unwind (each catches its own panics and hands them to
    /// its waiter or handler); one that does anyway aborts the process
    /// here, before it can unwind through a frame that owns a stack job
    /// (see `unwind`).
    ///
    /// # Safety
    /// `job` must have been taken out of a queue (so it runs once).
    #[inline]
    pub(crate) unsafe fn execute(&self, job: JobRef) {
        self.count_job();
        let guard = AbortOnUnwind::new("a job run by a worker");
        let g = self.group.get();
        if g.is_none() {
            // SAFETY: the caller took the job from a queue: single execution.
            unsafe { job.execute() }
        } else {
            // No restore guard needed: `guard` aborts on unwinding.
            self.group.set(GroupRef::NONE);
            // SAFETY: as above.
            unsafe { job.execute() };
            self.group.set(g);
        }
        guard.disarm();
    }

    /// Counts a job run (also a `join` half popped back and run inline).
    #[inline]
    pub(crate) fn count_job(&self) {
        self.local_jobs.set(self.local_jobs.get() + 1);
    }

    /// Publishes the fast-path counts (jobs run, local pops) to the shared
    /// counters. Called whenever the worker looks for work beyond its
    /// deque (so before it parks), when it exits, and before a job it runs
    /// sets a latch ([`publish_counts`]), so `stats()` lags a busy worker by
    /// at most its current run of local jobs and counts every job of a call
    /// that returned; the fast path itself touches only this thread's
    /// `Cell`s.
    fn flush_counts(&self) {
        let c = self.counters();
        c.add_jobs_run(self.local_jobs.replace(0));
        c.add_local_pops(self.local_pops.replace(0));
    }

    /// Runs other jobs until `latch` is set.
    ///
    /// A worker about to wait first makes all its private `join` halves
    /// public: they belong to the frames it waits in (a `scope` inside the
    /// `a` of a `join`, say), and while it waits it calls no `join` that
    /// would promote them, so without this an idle worker could not take
    /// them and the waiter itself would not run them either.
    #[inline]
    pub(crate) fn wait_until(&self, latch: &CoreLatch) {
        if !latch.probe() {
            owner::promote_all(&mut &*self);
            self.run(Some(latch));
        }
    }

    /// [`crate::yield_local`]: runs one job of this worker's own deque (the
    /// newest) or of its targeted queue, if there is one.
    pub(crate) fn yield_local(&self) -> bool {
        let job = self
            .take_local()
            .or_else(|| self.registry.pop_targeted(self.index));
        self.run_one(job)
    }

    /// [`crate::yield_now`]: runs one job from wherever this worker looks
    /// for work (its deque, then one pass over the other sources, tried
    /// again a few times while a queue reports contention), if there is
    /// one. Never sleeps.
    pub(crate) fn yield_now(&self) -> bool {
        let job = self
            .take_local()
            .or_else(|| self.take_own_group())
            .or_else(|| {
                let backoff = Backoff::new();
                loop {
                    match self.find_work(Reach::Far) {
                        Found::Job(job) => return Some(job),
                        Found::Retry if !backoff.is_completed() => backoff.spin(),
                        _ => return None,
                    }
                }
            });
        self.run_one(job)
    }

    fn run_one(&self, job: Option<JobRef>) -> bool {
        let Some(job) = job else { return false };
        // SAFETY: taken out of a queue by the caller.
        unsafe { self.execute(job) };
        true
    }

    /// [`crate::current_thread_has_pending_tasks`]: whether this worker
    /// holds jobs it has not run yet, in its deque or as private `join`
    /// halves (which rayon would keep in the deque).
    pub(crate) fn has_pending_tasks(&self) -> bool {
        // The owner's own loads of its stack's ends are current.
        !self.deque.is_empty() || self.private().has_private()
    }

    /// The start of the main loop of a worker born idle (see "Born idle" in
    /// `sleep`): it parks at once, and runs the job its first search finds
    /// once woken. Then [`Self::run`] takes over. Starting a pool of N
    /// workers so costs N parks, not N searches over N queues each, which
    /// the pool's first calls used to wait for (`docs/first-broadcast.md`).
    fn run_born(&self, idle: Idle) {
        if let Some(job) = search::first_search(&mut &*self, self.index, self.llc, idle) {
            // SAFETY: taken from a queue by this search.
            unsafe { self.execute(job) };
        }
    }

    /// The loop: with a latch, until it is set; without one (the main
    /// loop), until the pool shuts down and no work is left
    /// ([`run_loop::run`]).
    #[cold]
    fn run(&self, latch: Option<&CoreLatch>) {
        run_loop::run(&mut &*self, self.index, self.llc, latch, |wt, job| {
            // SAFETY: taken from a queue (the own ones, or by the search).
            unsafe { wt.execute(job) }
        });
    }

    fn next_random(&self) -> u64 {
        let mut x = self.rng.get();
        let r = pass::tiers::next_random(&mut x);
        self.rng.set(x);
        r
    }
}
