//! `scope`: spawn jobs that borrow from the caller's stack.
//!
//! A scope holds a counting latch: one share for the scope body, one per
//! spawned job. `scope` returns only when the count reached zero, so every
//! job has finished before any borrowed data goes away. The first panic of
//! the body or of any job is kept and resumed in the caller at the end.

use std::any::Any;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::runtime::group::GroupRef;
use crate::runtime::job::HeapJob;
use crate::runtime::latch::{CountLatch, Latch};
use crate::runtime::registry::Registry;
use crate::runtime::unwind::{self, AbortOnUnwind};
use crate::runtime::worker::WorkerThread;

use super::global;

/// The variance marker of [`Scope`]: invariant in `'scope`.
type ScopeMarker<'scope> = PhantomData<Box<dyn FnOnce(&Scope<'scope>) + Send + Sync + 'scope>>;

/// A scope in which jobs borrowing data that outlives `'scope` can be
/// spawned. Created by [`scope`] or [`crate::ThreadPool::scope`].
pub struct Scope<'scope> {
    latch: CountLatch,
    panic: AtomicPtr<Box<dyn Any + Send + 'static>>,
    /// Invariant in `'scope`, like rayon and `std::thread::Scope`.
    marker: ScopeMarker<'scope>,
}

/// A pointer to a scope that may cross threads.
struct ScopePtr<T>(*const T);
// SAFETY: the pointee (a Scope, which is Sync) outlives every job holding
// the pointer (the scope waits for them).
unsafe impl<T: Sync> Send for ScopePtr<T> {}
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

/// `scope` on worker `wt`.
pub(crate) fn scope_on<'scope, OP, R>(wt: &WorkerThread, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    let scope = Scope {
        latch: CountLatch::new(wt.registry(), wt.index()),
        panic: AtomicPtr::new(ptr::null_mut()),
        marker: PhantomData,
    };
    // From the first spawn until the count reaches zero, jobs on other
    // workers use `scope`: this frame must not be unwound (the body's
    // panics are caught below; see `runtime::unwind`).
    let guard = AbortOnUnwind::new("`scope` while its jobs may run on other workers");
    let r = match panic::catch_unwind(AssertUnwindSafe(|| op(&scope))) {
        Ok(v) => Some(v),
        Err(p) => {
            scope.record_panic(p);
            None
        }
    };
    // The body's share.
    // SAFETY: `scope` lives in this frame until wait_until below returns.
    unsafe { CountLatch::set(&scope.latch) };
    wt.wait_until(&scope.latch.core);
    guard.disarm();
    let p = scope.panic.swap(ptr::null_mut(), Ordering::AcqRel);
    if !p.is_null() {
        // SAFETY: came from Box::into_raw in record_panic, taken once.
        let payload = unsafe { Box::from_raw(p) };
        panic::resume_unwind(*payload);
    }
    r.expect("no panic recorded, so the body returned")
}

impl<'scope> Scope<'scope> {
    /// Spawns a job into the scope's pool. It may borrow anything that
    /// outlives `'scope`; the scope waits for it. A panic in it is resumed
    /// by `scope` after all jobs finished.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.latch.increment();
        let ptr = ScopePtr(self as *const Scope<'scope>);
        let job = move || {
            let this = ptr.get();
            // SAFETY: the scope outlives its jobs: it waits for the count,
            // which includes this job, to reach zero.
            let scope = unsafe { &*this };
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(|| body(scope))) {
                scope.record_panic(p);
            }
            // SAFETY: last access to the scope from this job.
            unsafe { CountLatch::set(&raw const (*this).latch) };
        };
        let reg = self.registry();
        let wt = reg.current_worker();
        let group = wt.map_or(GroupRef::NONE, |wt| wt.group());
        match group.get() {
            None => {
                // SAFETY: the closure borrows only data outliving 'scope, and
                // the scope (which outlives nothing longer than 'scope) waits
                // for it.
                let job_ref = unsafe { HeapJob::into_job_ref_unchecked(job, wt) };
                reg.push_from(job_ref, wt);
            }
            Some(st) => {
                // Spawned inside a group job: a job of the same group.
                let in_group = move || WorkerThread::in_group_here(group, job);
                // SAFETY: as above.
                let job_ref = unsafe { HeapJob::into_job_ref_unchecked(in_group, wt) };
                reg.push_group(st, job_ref, wt);
            }
        }
    }

    fn registry(&self) -> &Registry {
        self.latch.registry()
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

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope").finish_non_exhaustive()
    }
}
