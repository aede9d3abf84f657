//! The shared state of a pool: queues, sleep state, counters, threads.
//!
//! Invariants:
//! - worker `i` owns deque `i` (only it pushes and pops); `threads[i]`
//!   holds the stealer, the private `join` halves (only worker `i` pushes
//!   and pops, others claim: see `private`) and the targeted queue of
//!   worker `i`;
//! - `injectors[l]` receives jobs from outside the pool aimed at LLC `l`;
//! - `group_llc[l]` holds packed group jobs aimed at LLC `l` (taken by `l`'s
//!   workers, by others only under the overload rule); `group_cluster[c]`
//!   holds spread group jobs dealt to cluster `c` (taken by anyone, `c`'s
//!   workers first); every worker's find-work pass looks at all of them, so
//!   switching cluster awareness at run time strands no job;
//! - `groups` keeps every group's state for the pool's life;
//! - `detached` counts spawned jobs not yet finished; workers exit only once
//!   `terminating` is set and `detached` is zero and they found no work;
//! - the registry outlives all its worker threads' use of it: each worker
//!   holds an `Arc`.

use std::any::Any;
use std::collections::VecDeque;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool as StdAtomicBool, AtomicUsize as StdAtomicUsize};
use std::thread::JoinHandle;

use crossbeam_deque::{Injector, Stealer, Worker};
use crossbeam_utils::CachePadded;

use crate::layout::{Layout, Pinning};
use crate::sync::{AtomicBool, AtomicUsize, Ordering};

use super::group::{GroupRef, GroupState};
use super::idle::{IdleMasks, IdleShape};
use super::job::{HeapJob, JobRef, StackJob};
use super::jobmem::Depot;
use super::latch::{LatchRef, LockLatch, SpinLatch};
use super::pin::{self, PinStatus};
use super::private::PrivateStack;
use super::sleep::Sleep;
use super::stats::{Counters, ExternalCounters, PoolStats};
use super::worker::{self, WorkerThread};

mod groups;

/// Handler called with the worker index.
pub(crate) type IndexHandler = Arc<dyn Fn(usize) + Send + Sync>;
/// Handler for panics in detached jobs.
pub(crate) type PanicHandler = Arc<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;

/// Everything a registry needs, resolved by the builder.
pub(crate) struct RegistryConfig {
    pub(crate) layout: Layout,
    pub(crate) thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    pub(crate) stack_size: Option<usize>,
    pub(crate) start_handler: Option<IndexHandler>,
    pub(crate) exit_handler: Option<IndexHandler>,
    pub(crate) panic_handler: Option<PanicHandler>,
}

/// Per-worker shared state.
pub(crate) struct ThreadInfo {
    pub(crate) stealer: Stealer<JobRef>,
    /// The worker's private `join` halves (see `private`).
    pub(crate) private: PrivateStack<JobRef>,
    /// Jobs that only this worker may run (broadcast).
    targeted: crate::sync::Mutex<VecDeque<JobRef>>,
    has_targeted: AtomicBool,
}

/// The shared state of one pool.
pub(crate) struct Registry {
    pub(crate) layout: Layout,
    pub(crate) sleep: Sleep,
    pub(crate) threads: Box<[CachePadded<ThreadInfo>]>,
    pub(crate) injectors: Box<[CachePadded<Injector<JobRef>>]>,
    /// Recycled heap-job blocks per LLC (see `jobmem`).
    pub(crate) depots: Box<[CachePadded<Depot>]>,
    /// Packed group jobs per LLC.
    pub(crate) group_llc: Box<[CachePadded<Injector<JobRef>>]>,
    /// Spread group jobs per cluster.
    pub(crate) group_cluster: Box<[CachePadded<Injector<JobRef>>]>,
    /// Set (for good) before the first push into `group_cluster`; workers
    /// walk other clusters' queues only once it is set. A protocol word:
    /// the store precedes the pusher's `notify_in` fence, so a sleeper's
    /// re-check after its own fence sees the flag whenever it must see the
    /// job (the two-fence argument of `sleep`).
    spread_used: AtomicBool,
    /// The run-time cluster switch (a hint for orders, never for which
    /// queues are looked at).
    cluster_aware: StdAtomicBool,
    groups: std::sync::Mutex<Vec<Arc<GroupState>>>,
    pub(crate) counters: Box<[CachePadded<Counters>]>,
    external: CachePadded<ExternalCounters>,
    terminating: AtomicBool,
    detached: AtomicUsize,
    round_robin: StdAtomicUsize,
    inject_by_cpu: bool,
    start_handler: Option<IndexHandler>,
    exit_handler: Option<IndexHandler>,
    panic_handler: Option<PanicHandler>,
    pins: std::sync::Mutex<Vec<PinStatus>>,
    started: (std::sync::Mutex<usize>, std::sync::Condvar),
    handles: std::sync::Mutex<Vec<JoinHandle<()>>>,
    stopped: StdAtomicBool,
}

/// The idle shape of a layout: its LLCs, always its clusters (the
/// run-time switch turns their step off), capacities, LLC order.
pub(crate) fn idle_shape(layout: &Layout) -> IdleShape {
    let llcs = layout.llc_ranges().len();
    IdleShape {
        llc_ranges: layout.llc_ranges().to_vec(),
        cluster_ranges: layout.cluster_ranges().to_vec(),
        capacity: layout.workers().iter().map(|w| w.capacity).collect(),
        llc_order: (0..llcs).map(|l| layout.llc_order(l).to_vec()).collect(),
    }
}

/// A thread could not be spawned.
pub(crate) struct SpawnFailure {
    pub(crate) index: usize,
    pub(crate) error: io::Error,
}

impl Registry {
    /// Builds the registry and starts its workers; returns once every worker
    /// has started (and pinned itself).
    pub(crate) fn new(mut cfg: RegistryConfig) -> Result<Arc<Registry>, SpawnFailure> {
        // Before any worker runs: the private `join` halves' fences, and
        // without them no private halves (see `private`).
        let private_halves = crate::sync::init_asymmetric_fences();
        let layout = cfg.layout;
        let n = layout.workers().len();
        let deques: Vec<Worker<JobRef>> = (0..n).map(|_| Worker::new_lifo()).collect();
        let threads = deques
            .iter()
            .map(|d| {
                CachePadded::new(ThreadInfo {
                    stealer: d.stealer(),
                    private: if private_halves {
                        PrivateStack::new()
                    } else {
                        PrivateStack::disabled()
                    },
                    targeted: crate::sync::Mutex::new(VecDeque::new()),
                    has_targeted: AtomicBool::new(false),
                })
            })
            .collect();
        let llcs = layout.llc_ranges().len();
        let shape = idle_shape(&layout);
        let opts = layout.options();
        let inject_by_cpu = opts.pinning != Pinning::None && !opts.virtual_topology;
        let masks = IdleMasks::new(shape);
        masks.set_cluster_aware(opts.cluster_aware);
        let clusters = layout.cluster_ranges().len();
        let registry = Arc::new(Registry {
            sleep: Sleep::new(masks, n),
            group_llc: (0..llcs)
                .map(|_| CachePadded::new(Injector::new()))
                .collect(),
            group_cluster: (0..clusters)
                .map(|_| CachePadded::new(Injector::new()))
                .collect(),
            cluster_aware: StdAtomicBool::new(opts.cluster_aware),
            spread_used: AtomicBool::new(false),
            groups: std::sync::Mutex::new(Vec::new()),
            threads,
            injectors: (0..llcs)
                .map(|_| CachePadded::new(Injector::new()))
                .collect(),
            depots: layout
                .llc_ranges()
                .iter()
                .map(|r| CachePadded::new(Depot::new(r.len())))
                .collect(),
            counters: (0..n)
                .map(|_| CachePadded::new(Counters::default()))
                .collect(),
            external: CachePadded::new(ExternalCounters::default()),
            terminating: AtomicBool::new(false),
            detached: AtomicUsize::new(0),
            round_robin: StdAtomicUsize::new(0),
            inject_by_cpu,
            start_handler: cfg.start_handler.take(),
            exit_handler: cfg.exit_handler.take(),
            panic_handler: cfg.panic_handler.take(),
            pins: std::sync::Mutex::new(vec![PinStatus::Pending; n]),
            started: (std::sync::Mutex::new(0), std::sync::Condvar::new()),
            handles: std::sync::Mutex::new(Vec::with_capacity(n)),
            stopped: StdAtomicBool::new(false),
            layout,
        });
        for (index, deque) in deques.into_iter().enumerate() {
            let mut b = std::thread::Builder::new();
            if let Some(f) = cfg.thread_name.as_mut() {
                b = b.name(f(index));
            }
            if let Some(s) = cfg.stack_size {
                b = b.stack_size(s);
            }
            let r = Arc::clone(&registry);
            match b.spawn(move || worker::main_loop(r, index, deque)) {
                Ok(h) => registry
                    .handles
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(h),
                Err(error) => {
                    registry.terminate();
                    registry.join_threads();
                    return Err(SpawnFailure { index, error });
                }
            }
        }
        let (m, cv) = &registry.started;
        let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
        while *g < n {
            g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        drop(g);
        Ok(registry)
    }

    /// Number of workers.
    #[inline]
    pub(crate) fn num_threads(&self) -> usize {
        self.threads.len()
    }

    /// Identity for "is this my pool" checks.
    #[inline]
    pub(crate) fn id(&self) -> *const Registry {
        self
    }

    /// Called by each worker once it has pinned itself.
    pub(crate) fn worker_started(&self, index: usize, pin: PinStatus) {
        self.pins.lock().unwrap_or_else(|e| e.into_inner())[index] = pin;
        let (m, cv) = &self.started;
        *m.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        cv.notify_all();
        if let Some(h) = &self.start_handler {
            let _ = panic::catch_unwind(AssertUnwindSafe(|| h(index)));
        }
    }

    /// Called by each worker as it exits.
    pub(crate) fn worker_exiting(&self, index: usize) {
        if let Some(h) = &self.exit_handler {
            let _ = panic::catch_unwind(AssertUnwindSafe(|| h(index)));
        }
    }

    /// The pin outcome of every worker.
    pub(crate) fn pin_report(&self) -> Vec<PinStatus> {
        self.pins.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Snapshot of the counters.
    pub(crate) fn stats(&self) -> PoolStats {
        let mut s = PoolStats::collect(
            self.counters.iter().map(|c| &**c),
            &self.external,
            self.sleep.searching(),
        );
        s.groups = self
            .groups
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|g| g.stats())
            .collect();
        s
    }

    /// Whether an idle worker may exit: shutting down and no detached job
    /// pending. (SeqCst: pairs with `terminate` and `detached_done`.)
    pub(crate) fn may_exit(&self) -> bool {
        self.terminating.load(Ordering::SeqCst) && self.detached.load(Ordering::SeqCst) == 0
    }

    /// Starts shutdown: workers finish all queued work and exit.
    pub(crate) fn terminate(&self) {
        self.terminating.store(true, Ordering::SeqCst);
        self.sleep.wake_all();
    }

    /// Joins all worker threads (never call from a worker of this pool).
    pub(crate) fn join_threads(&self) {
        if self.stopped.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return;
        }
        let handles = std::mem::take(&mut *self.handles.lock().unwrap_or_else(|e| e.into_inner()));
        for h in handles {
            let _ = h.join();
        }
    }

    /// Pushes a job from outside the pool (or from another pool's worker)
    /// into an LLC injector, and wakes a worker if needed.
    pub(crate) fn inject(&self, job: JobRef) {
        let llcs = self.injectors.len();
        let llc = if self.inject_by_cpu {
            pin::current_cpu().and_then(|c| self.layout.llc_of_cpu(c))
        } else {
            None
        }
        .filter(|&l| l < llcs)
        .unwrap_or_else(|| {
            self.round_robin
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                % llcs
        });
        self.injectors[llc].push(job);
        self.external.injected();
        if let Some((_, d)) = self.sleep.notify(None, llc) {
            self.external.wakeup(d);
        }
    }

    /// The worker running on this thread, if it is one of this pool's.
    #[inline]
    pub(crate) fn current_worker(&self) -> Option<&WorkerThread> {
        // SAFETY: a non-null current pointer refers to the live WorkerThread
        // of this thread, set for the whole worker loop, which every call on
        // this thread runs inside; `&WorkerThread` is not `Send`, so the
        // borrow cannot leave the thread.
        unsafe { WorkerThread::current().as_ref() }.filter(|wt| wt.registry().id() == self.id())
    }

    /// Pushes onto `from`'s deque (a worker of this pool, see
    /// [`Registry::current_worker`]), or injects when there is none.
    #[inline]
    pub(crate) fn push_from(&self, job: JobRef, from: Option<&WorkerThread>) {
        match from {
            Some(wt) => wt.push(job),
            None => self.inject(job),
        }
    }

    /// Whether a spread group job was ever pushed (see `spread_used`).
    #[inline]
    pub(crate) fn spread_used(&self) -> bool {
        self.spread_used.load(Ordering::SeqCst)
    }

    /// Records that spread queues are in use (before the push).
    pub(crate) fn mark_spread_used(&self) {
        if !self.spread_used.load(Ordering::Relaxed) {
            self.spread_used.store(true, Ordering::SeqCst);
        }
    }

    /// Queues a job only worker `index` may run, and wakes it.
    pub(crate) fn push_targeted(&self, index: usize, job: JobRef) {
        let t = &self.threads[index];
        t.targeted.lock().push_back(job);
        t.has_targeted.store(true, Ordering::SeqCst);
        self.sleep.wake_worker(index);
    }

    /// Takes a job from worker `index`'s targeted queue.
    pub(crate) fn pop_targeted(&self, index: usize) -> Option<JobRef> {
        let t = &self.threads[index];
        if !t.has_targeted.load(Ordering::SeqCst) {
            return None;
        }
        let mut q = t.targeted.lock();
        let job = q.pop_front();
        if q.is_empty() {
            t.has_targeted.store(false, Ordering::SeqCst);
        }
        job
    }

    /// Runs `f` as a detached job; inside a group job of this pool (or
    /// with `group` given) as a job of that group.
    pub(crate) fn spawn_detached<F: FnOnce() + Send + 'static>(self: &Arc<Self>, f: F) {
        self.spawn_detached_in(GroupRef::NONE, f)
    }

    /// As [`Registry::spawn_detached`] in group `group` (none: the current
    /// worker's group, if it is a worker of this pool).
    pub(crate) fn spawn_detached_in<F: FnOnce() + Send + 'static>(
        self: &Arc<Self>,
        group: GroupRef,
        f: F,
    ) {
        self.detached.fetch_add(1, Ordering::SeqCst);
        let reg = Arc::clone(self);
        let wt = self.current_worker();
        let g = if group.is_none() {
            wt.map_or(GroupRef::NONE, |wt| wt.group())
        } else {
            group
        };
        let body = move || {
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(f)) {
                reg.handle_detached_panic(p);
            }
            reg.detached_done();
        };
        match g.get() {
            None => self.push_from(HeapJob::into_job_ref(body, wt), wt),
            Some(st) => {
                let job = HeapJob::into_job_ref(move || WorkerThread::in_group_here(g, body), wt);
                self.push_group(st, job, wt);
            }
        }
    }

    fn handle_detached_panic(&self, payload: Box<dyn Any + Send>) {
        match self.current_worker() {
            Some(wt) => self.counters[wt.index()].panic(),
            None => self.external.panic(),
        }
        if let Some(h) = &self.panic_handler {
            // A panicking handler is ignored: there is nobody to report to.
            let _ = panic::catch_unwind(AssertUnwindSafe(|| h(payload)));
        }
    }

    fn detached_done(&self) {
        if self.detached.fetch_sub(1, Ordering::SeqCst) == 1
            && self.terminating.load(Ordering::SeqCst)
        {
            self.sleep.wake_all();
        }
    }

    /// Runs `op` on a worker of this pool: directly if the caller is one,
    /// else by injecting it and blocking (outside any pool) or stealing
    /// in its own pool meanwhile (a worker of another pool). Group-less
    /// [`Registry::in_worker_group`].
    #[inline]
    pub(crate) fn in_worker<OP, R>(self: &Arc<Self>, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        self.in_worker_group(GroupRef::NONE, op)
    }

    /// `in_worker_group` from a thread outside every pool: inject and block.
    #[cold]
    fn in_worker_cold<OP, R>(&self, g: GroupRef, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        std::thread_local!(static LOCK_LATCH: LockLatch = LockLatch::new());
        LOCK_LATCH.with(|l| {
            let job = StackJob::new(injected_op(g, op), LatchRef(l));
            // SAFETY: `job` stays in this frame until the latch is set
            // (wait_and_reset returns only then).
            self.push_from_outside(g, unsafe { job.as_job_ref() });
            l.wait_and_reset();
            job.into_result()
        })
    }

    /// `in_worker_group` from a worker of another pool: inject, and steal
    /// in the caller's own pool until done.
    #[cold]
    fn in_worker_cross<OP, R>(&self, current: &WorkerThread, g: GroupRef, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        let latch = SpinLatch::cross(current.registry(), current.index());
        let job = StackJob::new(injected_op(g, op), latch);
        // SAFETY: `job` stays in this frame until its latch is set
        // (wait_until returns only then).
        self.push_from_outside(g, unsafe { job.as_job_ref() });
        current.wait_until(&job.latch.core);
        job.into_result()
    }
}

/// The body of a job that `in_worker` hands to the pool from outside: runs
/// `op` on the worker that takes it, as a job of group `g`.
fn injected_op<OP, R>(g: GroupRef, op: OP) -> impl FnOnce(bool) -> R + Send
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    move |injected| {
        // SAFETY: injected jobs run on a worker of this pool, whose current
        // pointer is set and live.
        let wt = unsafe { WorkerThread::current().as_ref() };
        let wt = wt.expect("injected job ran outside a worker");
        wt.in_group(g, || op(wt, injected))
    }
}
