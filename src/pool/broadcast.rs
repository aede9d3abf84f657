//! `broadcast`: run a closure once on every worker of a pool.
//!
//! One stack job per worker goes to that worker's targeted queue (only it
//! may run it) and the worker is woken directly; a counting latch tells
//! the caller (itself a worker, via `install`) when all have run.
//! `broadcast_per` does the same with one job per domain of a level, on
//! the domain's first worker (domains are contiguous ranges of workers).

use std::marker::PhantomData;
use std::ops::Range;

use crate::Level;

use crate::runtime::job::{JobResult, StackJob};
use crate::runtime::latch::{CountLatch, LatchRef};
use crate::runtime::unwind::AbortOnUnwind;
use crate::runtime::worker::WorkerThread;

use super::global;

/// What a broadcast closure learns about where it runs.
#[derive(Debug)]
pub struct BroadcastContext<'a> {
    index: usize,
    num_threads: usize,
    _marker: PhantomData<&'a ()>,
}

impl BroadcastContext<'_> {
    pub(crate) fn new(index: usize, num_threads: usize) -> Self {
        BroadcastContext {
            index,
            num_threads,
            _marker: PhantomData,
        }
    }

    /// The index of the worker running this call (`0..num_threads`).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of workers, i.e. of calls.
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

/// Runs `op` once on every worker of the current pool (the global pool
/// outside any pool) and returns the results by worker index. If `op`
/// panics on some workers, the first of those panics (by worker index) is
/// resumed in the caller once every call has finished.
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    global::in_worker(|wt, _| broadcast_on(wt, &op))
}

/// Runs `op` once on every worker of the current pool (the global pool
/// outside any pool), without waiting: the calls are detached jobs, like
/// [`crate::spawn`] (a panic in one goes to the panic handler; without
/// one the process aborts). They run even if the pool is dropped meanwhile.
///
/// ```
/// let pool = locus::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// let (tx, rx) = std::sync::mpsc::channel();
/// pool.spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());
/// let mut seen: Vec<usize> = rx.iter().take(3).collect();
/// seen.sort();
/// assert_eq!(seen, [0, 1, 2]);
/// ```
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    global::current_registry().spawn_broadcast(move |index, n| op(BroadcastContext::new(index, n)))
}

/// `broadcast` with the caller on worker `wt`.
pub(crate) fn broadcast_on<OP, R>(wt: &WorkerThread, op: &OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let n = wt.registry().num_threads();
    run_on_each(wt, n, |k| k, &|k| op(BroadcastContext::new(k, n)))
}

/// Where a [`crate::ThreadPool::broadcast_per`] call runs: one domain of
/// the pool's layout and the worker running it.
#[derive(Debug)]
pub struct DomainContext<'a> {
    domain: usize,
    num_domains: usize,
    workers: Range<usize>,
    _marker: PhantomData<&'a ()>,
}

impl DomainContext<'_> {
    /// The domain's dense id in the layout (an index into
    /// [`crate::Layout::llc_ranges`] and friends, not into the
    /// [`crate::Topology`]'s domains).
    pub fn domain(&self) -> usize {
        self.domain
    }

    /// The number of domains, i.e. of calls.
    pub fn num_domains(&self) -> usize {
        self.num_domains
    }

    /// The workers of the domain (a range of worker indexes).
    pub fn workers(&self) -> Range<usize> {
        self.workers.clone()
    }

    /// The index of the worker running this call: the domain's first.
    pub fn index(&self) -> usize {
        self.workers.start
    }
}

/// `broadcast_per` with the caller on worker `wt`: `op` once per domain of
/// `level`, on the domain's first worker.
pub(crate) fn broadcast_per_on<OP, R>(wt: &WorkerThread, level: Level, op: &OP) -> Vec<R>
where
    OP: Fn(DomainContext<'_>) -> R + Sync,
    R: Send,
{
    let layout = &wt.registry().layout;
    let whole = 0..layout.len();
    let ranges: &[Range<usize>] = match level {
        Level::Core => layout.core_ranges(),
        Level::Cluster => layout.cluster_ranges(),
        Level::Llc => layout.llc_ranges(),
        Level::Numa => layout.numa_ranges(),
        Level::Package => layout.package_ranges(),
        Level::Machine => std::slice::from_ref(&whole),
    };
    let n = ranges.len();
    run_on_each(wt, n, |k| ranges[k].start, &|k| {
        op(DomainContext {
            domain: k,
            num_domains: n,
            workers: ranges[k].clone(),
            _marker: PhantomData,
        })
    })
}

/// Runs `op(k)` for every `k` in `0..count` on worker `target(k)` (each a
/// distinct worker) and returns the results in order of `k`, waiting on
/// worker `wt`. The first panic (by `k`) is resumed once all have run.
fn run_on_each<R, T, F>(wt: &WorkerThread, count: usize, target: T, op: &F) -> Vec<R>
where
    T: Fn(usize) -> usize,
    F: Fn(usize) -> R + Sync,
    R: Send,
{
    let registry = wt.registry();
    let latch = CountLatch::with_count(registry, wt.index(), count);
    let jobs: Vec<_> = (0..count)
        .map(|k| StackJob::new(move |_| op(k), LatchRef(&latch)))
        .collect();
    // From the first push until the latch is set, workers use `jobs`: no
    // unwinding out of this frame (see `runtime::unwind`).
    let guard = AbortOnUnwind::new("`broadcast` while its jobs run on the workers");
    for (k, job) in jobs.iter().enumerate() {
        // SAFETY: `jobs` is not moved or dropped until the latch, which
        // every job sets, is observed below.
        registry.push_targeted(target(k), unsafe { job.as_job_ref() });
    }
    wt.wait_until(&latch.core);
    guard.disarm();
    // The first panic (by `k`) is resumed; later ones are dropped
    // here rather than while it unwinds (a payload whose `Drop` panics
    // would abort then).
    let mut results = Vec::with_capacity(count);
    let mut panic = None;
    for job in jobs {
        match job.into_job_result() {
            JobResult::Ok(r) => results.push(r),
            JobResult::Panic(p) if panic.is_none() => panic = Some(p),
            other => other.discard(),
        }
    }
    match panic {
        None => results,
        Some(p) => std::panic::resume_unwind(p),
    }
}
