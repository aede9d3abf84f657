//! `scope`, `scope_fifo` and their in-place forms: spawn jobs that borrow
//! from the caller's stack.
//!
//! A scope holds a counting latch: one share for the scope body, one per
//! spawned job (a `spawn_broadcast` adds one per worker). The scope returns
//! only when the count reached zero, so every job has finished before any
//! borrowed data goes away. The first panic of the body or of any job is
//! kept and resumed in the caller at the end.
//!
//! Who waits: [`scope`] and [`scope_fifo`] run their body on a worker of
//! the pool, which runs jobs while it waits. The in-place forms run the
//! body on the calling thread: a worker (of any pool) runs its own pool's
//! jobs while it waits; a thread outside every pool blocks. Jobs go to the
//! scope's pool: onto the caller's deque if it is one of that pool's
//! workers, else into the pool's injector.
//!
//! Order: `Scope::spawn` pushes on the spawning worker's deque, which pops
//! newest first (LIFO, as rayon). `ScopeFifo::spawn_fifo` queues the job in
//! a per-worker fifo of the scope and pushes a ticket (see `pool::fifo`),
//! so one worker alone runs a fifo scope's jobs oldest first.

use std::any::Any;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, OnceLock};

use crate::runtime::group_state::GroupRef;
use crate::runtime::job::HeapJob;
use crate::runtime::latch::{CountLatch, Latch};
use crate::runtime::registry::Registry;
use crate::runtime::unwind::{self, AbortOnUnwind};
use crate::runtime::worker::WorkerThread;

use super::broadcast::BroadcastContext;
use super::global;
use crate::runtime::fifo::JobFifo;

/// The variance marker of [`Scope`]: invariant in `'scope`.
type ScopeMarker<'scope> = PhantomData<Box<dyn FnOnce(&Scope<'scope>) + Send + Sync + 'scope>>;

/// What both kinds of scope hold: their pool, the count of unfinished
/// shares, and the first panic.
struct ScopeBase<'scope> {
    registry: Arc<Registry>,
    latch: CountLatch,
    panic: AtomicPtr<Box<dyn Any + Send + 'static>>,
    /// Invariant in `'scope`, like rayon and `std::thread::Scope`.
    marker: ScopeMarker<'scope>,
}

/// A scope in which jobs borrowing data that outlives `'scope` can be
/// spawned. Created by [`scope`], [`in_place_scope`] or
/// [`crate::ThreadPool::scope`]; its jobs run newest first when one worker
/// runs them all (see [`ScopeFifo`] for the other order).
pub struct Scope<'scope> {
    base: ScopeBase<'scope>,
}

/// A scope whose jobs a worker runs in spawn order (oldest first), where
/// [`Scope`] runs them newest first. Created by [`scope_fifo`],
/// [`in_place_scope_fifo`] or [`crate::ThreadPool::scope_fifo`].
///
/// ```
/// use std::sync::Mutex;
/// let pool = locus::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let order = Mutex::new(Vec::new());
/// pool.scope_fifo(|s| {
///     for i in 0..4 {
///         let order = &order;
///         s.spawn_fifo(move |_| order.lock().unwrap().push(i));
///     }
/// });
/// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]);
/// ```
pub struct ScopeFifo<'scope> {
    base: ScopeBase<'scope>,
    /// One fifo per worker of the pool, made on its first `spawn_fifo`
    /// there (boxed: a slot costs 16 bytes until then, not a whole queue).
    fifos: Box<[OnceLock<Box<JobFifo>>]>,
}

/// A pointer to a scope that may cross threads.
struct ScopePtr<T>(*const T);
// SAFETY: the pointee (a scope, which is Sync) outlives every job holding
// the pointer (the scope waits for them).
unsafe impl<T: Sync> Send for ScopePtr<T> {}
// SAFETY: as above; shared by the jobs of one `spawn_broadcast`.
unsafe impl<T: Sync> Sync for ScopePtr<T> {}
impl<T> ScopePtr<T> {
    /// A method (not a field access) so closures capture the whole
    /// wrapper, which is `Send`, rather than the raw pointer field.
    fn get(&self) -> *const T {
        self.0
    }
}

/// Creates a scope, runs `op` in it on a worker (the current one, else one
/// of the global pool) and waits for every job spawned in it.
///
/// ```
/// let mut counts = vec![0usize; 4];
/// locus::scope(|s| {
///     for (i, c) in counts.iter_mut().enumerate() {
///         s.spawn(move |_| *c = i * 10);
///     }
/// });
/// assert_eq!(counts, [0, 10, 20, 30]);
/// ```
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    global::in_worker(|wt, _| scope_on(wt, op))
}

/// As [`scope`], for a [`ScopeFifo`]: its jobs run in spawn order when one
/// worker runs them all.
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    global::in_worker(|wt, _| scope_fifo_on(wt, op))
}

/// As [`scope`], but `op` runs on the calling thread, whatever it is; the
/// jobs run in the current pool (the current worker's, else the global
/// pool). So `op` need not be `Send`, and it may block on its own jobs
/// even in a one-thread pool. The caller then waits for the jobs: a
/// worker runs jobs of its pool meanwhile, another thread blocks.
///
/// ```
/// let pool = locus::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let (tx, rx) = std::sync::mpsc::channel();
/// pool.in_place_scope(|s| {
///     s.spawn(move |_| tx.send(7).unwrap());
///     // The body runs on this thread, not on the pool's only worker.
///     assert_eq!(rx.recv().unwrap(), 7);
/// });
/// ```
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    in_place_scope_in(None, op)
}

/// As [`in_place_scope`], for a [`ScopeFifo`].
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    in_place_scope_fifo_in(None, op)
}

/// `scope` on worker `wt`.
pub(crate) fn scope_on<'scope, OP, R>(wt: &WorkerThread, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    let scope = Scope {
        base: ScopeBase::new(Arc::clone(wt.registry()), Some(wt)),
    };
    scope.base.complete(Some(wt), || op(&scope))
}

/// `scope_fifo` on worker `wt`.
pub(crate) fn scope_fifo_on<'scope, OP, R>(wt: &WorkerThread, op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    let scope = ScopeFifo::new(Arc::clone(wt.registry()), Some(wt));
    scope.base.complete(Some(wt), || op(&scope))
}

/// Calls `f` with the current thread's worker (of any pool) and the pool
/// an in-place scope uses: `registry`, else the current worker's, else the
/// global one.
fn in_place<R>(
    registry: Option<&Arc<Registry>>,
    f: impl FnOnce(Option<&WorkerThread>, Arc<Registry>) -> R,
) -> R {
    WorkerThread::with_current(|wt| {
        let registry = match (registry, wt) {
            (Some(r), _) => Arc::clone(r),
            (None, Some(wt)) => Arc::clone(wt.registry()),
            (None, None) => Arc::clone(global::global_registry()),
        };
        f(wt, registry)
    })
}

/// `in_place_scope` into `registry` (none: the current pool).
pub(crate) fn in_place_scope_in<'scope, OP, R>(registry: Option<&Arc<Registry>>, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    in_place(registry, |wt, registry| {
        let scope = Scope {
            base: ScopeBase::new(registry, wt),
        };
        scope.base.complete(wt, || op(&scope))
    })
}

/// `in_place_scope_fifo` into `registry` (none: the current pool).
pub(crate) fn in_place_scope_fifo_in<'scope, OP, R>(registry: Option<&Arc<Registry>>, op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    in_place(registry, |wt, registry| {
        let scope = ScopeFifo::new(registry, wt);
        scope.base.complete(wt, || op(&scope))
    })
}

impl<'scope> ScopeBase<'scope> {
    /// A scope of `registry` waited for by `owner` (a worker of any pool;
    /// `None`: a thread outside every pool, which blocks).
    fn new(registry: Arc<Registry>, owner: Option<&WorkerThread>) -> Self {
        let latch = match owner {
            Some(wt) => CountLatch::new(wt.registry(), wt.index()),
            None => CountLatch::blocking(),
        };
        ScopeBase {
            registry,
            latch,
            panic: AtomicPtr::new(ptr::null_mut()),
            marker: PhantomData,
        }
    }

    /// Runs the scope body `op` on this thread, then waits for every job;
    /// resumes the first panic.
    fn complete<R>(&self, owner: Option<&WorkerThread>, op: impl FnOnce() -> R) -> R {
        // From the first spawn until the count reaches zero, jobs on other
        // workers use the scope: this frame must not be unwound (the body's
        // panics are caught below; see `runtime::unwind`).
        let guard = AbortOnUnwind::new("`scope` while its jobs may run on other workers");
        let r = match panic::catch_unwind(AssertUnwindSafe(op)) {
            Ok(v) => Some(v),
            Err(p) => {
                self.record_panic(p);
                None
            }
        };
        // The body's share.
        // SAFETY: the scope lives in the caller's frame until `wait` returns.
        unsafe { CountLatch::set(&self.latch) };
        self.latch.wait(owner);
        guard.disarm();
        let p = self.panic.swap(ptr::null_mut(), Ordering::AcqRel);
        if !p.is_null() {
            // SAFETY: came from Box::into_raw in record_panic, taken once.
            let payload = unsafe { Box::from_raw(p) };
            panic::resume_unwind(*payload);
        }
        r.expect("no panic recorded, so the body returned")
    }

    /// Wraps a job body taking the scope `S` (whose base is `base`): runs
    /// it with `scope`, keeps its panic, and gives its share back.
    fn job<S: Sync + 'scope>(
        scope: ScopePtr<S>,
        base: ScopePtr<ScopeBase<'scope>>,
        body: impl FnOnce(&S) + Send + 'scope,
    ) -> impl FnOnce() + Send + 'scope {
        move || {
            // SAFETY: the scope outlives its jobs: it waits for the count,
            // which includes this job, to reach zero.
            let (s, b) = unsafe { (&*scope.get(), &*base.get()) };
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(|| body(s))) {
                b.record_panic(p);
            }
            // Before the count may release the scope: this job's counts
            // (`ThreadPool::stats`).
            crate::runtime::worker::publish_counts();
            // SAFETY: last access to the scope from this job.
            unsafe { CountLatch::set(&raw const (*base.get()).latch) };
        }
    }

    /// Pushes a counted job: onto the current worker's deque if it is a
    /// worker of the scope's pool (in its group, if it runs a group job),
    /// else into the pool's injector.
    fn push(&self, job: impl FnOnce() + Send + 'scope) {
        let reg = &*self.registry;
        reg.with_current_worker(|wt| {
            let group = wt.map_or(GroupRef::NONE, |wt| wt.group());
            match group.hold() {
                None => {
                    // SAFETY: the closure borrows only data outliving 'scope,
                    // and the scope (which outlives nothing longer than
                    // 'scope) waits for it.
                    let job_ref = unsafe { HeapJob::into_job_ref_unchecked(job, wt) };
                    reg.push_from(job_ref, wt);
                }
                Some(st) => {
                    // Spawned inside a group job: a job of the same group,
                    // holding the group's state until it is done (the
                    // scope may outlive the group job that spawned it:
                    // `group_state`, invariants).
                    let held = std::sync::Arc::clone(&st);
                    let in_group = move || WorkerThread::in_group_here(GroupRef::of(&held), job);
                    // SAFETY: as above.
                    let job_ref = unsafe { HeapJob::into_job_ref_unchecked(in_group, wt) };
                    reg.push_group(&st, job_ref, wt);
                }
            }
        })
    }

    /// Runs `body` once on every worker of the scope's pool, as jobs of
    /// the scope (see [`Scope::spawn_broadcast`]).
    fn spawn_broadcast<S, BODY>(&self, scope: &S, body: BODY)
    where
        S: Sync + 'scope,
        BODY: Fn(&S, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        let reg = &*self.registry;
        let n = reg.num_threads();
        self.latch.add(n);
        let body = Arc::new(body);
        reg.with_current_worker(|wt| {
            for index in 0..n {
                let body = Arc::clone(&body);
                let job = Self::job(
                    ScopePtr(scope as *const S),
                    ScopePtr(self as *const Self),
                    move |s: &S| body(s, BroadcastContext::new(index, n)),
                );
                // SAFETY: as in `push`.
                let job_ref = unsafe { HeapJob::into_job_ref_unchecked(job, wt) };
                reg.push_targeted(index, job_ref);
            }
        })
    }

    /// Keeps the first panic of the scope; later ones are dropped, through
    /// `drop_payload` because a payload's `Drop` may panic and this runs
    /// outside any `catch_unwind` (before the job's share of the count is
    /// given back).
    fn record_panic(&self, p: Box<dyn Any + Send>) {
        let b = Box::into_raw(Box::new(p));
        if self
            .panic
            .compare_exchange(ptr::null_mut(), b, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // SAFETY: `b` was never shared.
            unwind::drop_payload(*unsafe { Box::from_raw(b) });
        }
    }
}

impl<'scope> Scope<'scope> {
    /// Spawns a job into the scope's pool. It may borrow anything that
    /// outlives `'scope`; the scope waits for it. A panic in it is resumed
    /// by `scope` after all jobs finished.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.base.latch.increment();
        let job = ScopeBase::job(ScopePtr(self), ScopePtr(&self.base), body);
        self.base.push(job);
    }

    /// Spawns `body` once on every worker of the scope's pool (each call
    /// gets the scope and its [`BroadcastContext`]); the scope waits for
    /// all of them, and a panic in one is resumed by the scope.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = locus::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let sum = AtomicUsize::new(0);
    /// pool.scope(|s| s.spawn_broadcast(|_, ctx| {
    ///     sum.fetch_add(ctx.index(), Ordering::Relaxed);
    /// }));
    /// assert_eq!(sum.into_inner(), 0 + 1 + 2);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&Scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        self.base.spawn_broadcast(self, body);
    }
}

impl<'scope> ScopeFifo<'scope> {
    fn new(registry: Arc<Registry>, owner: Option<&WorkerThread>) -> Self {
        let n = registry.num_threads();
        ScopeFifo {
            base: ScopeBase::new(registry, owner),
            fifos: (0..n).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Spawns a job into the scope's pool, as [`Scope::spawn`]; a worker
    /// runs the jobs it spawned in this scope in spawn order.
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        self.base.latch.increment();
        let job = ScopeBase::job(ScopePtr(self), ScopePtr(&self.base), body);
        self.base.registry.with_current_worker(|wt| match wt {
            Some(wt) if wt.group().is_none() => {
                // SAFETY: as in `ScopeBase::push`.
                let job_ref = unsafe { HeapJob::into_job_ref_unchecked(job, Some(wt)) };
                let fifo = self.fifos[wt.index()].get_or_init(|| Box::new(JobFifo::new()));
                // SAFETY: the fifo lives in the scope, which waits for the
                // job, hence for its ticket (see `pool::fifo`).
                wt.push(unsafe { fifo.push(job_ref) });
            }
            // From outside the pool the injector is in spawn order already;
            // inside a group job the group's queues decide.
            _ => self.base.push(job),
        })
    }

    /// As [`Scope::spawn_broadcast`], for this scope.
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&ScopeFifo<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        self.base.spawn_broadcast(self, body);
    }
}

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("num_threads", &self.base.registry.num_threads())
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ScopeFifo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopeFifo")
            .field("num_threads", &self.base.registry.num_threads())
            .finish_non_exhaustive()
    }
}
