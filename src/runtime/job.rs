//! Jobs: type-erased units of work that sit in deques and injectors.
//!
//! A [`JobRef`] is a pointer plus the function that knows its real type. Two
//! kinds exist:
//! - [`StackJob`]: lives in the stack frame of the thread that waits for it
//!   (`join`'s second closure, `install`, `broadcast`). Its owner never leaves
//!   that frame before the job's latch is set, which is what makes the raw
//!   pointer in the `JobRef` valid while the job is queued or running.
//! - [`HeapJob`]: a closure on the heap (`spawn`, `Scope::spawn`), in a
//!   recycled block of [`super::jobmem`] when it fits; executing it frees
//!   the memory. It is executed exactly once, because a `JobRef` is moved out
//!   of a queue by exactly one pop/steal.
//!
//! Invariant: a `JobRef` is executed at most once; the latch of a stack job
//! is set as the very last access to the job's memory. Executing a job
//! never unwinds: a stack job catches its closure's panic into its result,
//! heap job bodies (`spawn`, `Scope::spawn`) catch theirs, and
//! `WorkerThread::execute` aborts should one escape anyway (see
//! [`super::unwind`]).

use std::any::Any;
use std::cell::UnsafeCell;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::panic::{self, AssertUnwindSafe};
use std::thread;

use super::group_state::GroupRef;
use super::jobmem;
use super::latch::Latch;
use super::unwind;
use super::worker::WorkerThread;

/// A type-erased pointer to a job and the function that executes it.
#[derive(Clone, Copy, Debug)]
pub struct JobRef {
    pointer: *const (),
    execute_fn: unsafe fn(*const ()),
}

// SAFETY: a JobRef is only created from jobs whose closures are `Send`
// (StackJob/HeapJob constructors require it), and the pointee is kept alive
// by its owner until the job has run (see the module docs).
unsafe impl Send for JobRef {}
// SAFETY: as above; sharing the pointer value itself is harmless.
unsafe impl Sync for JobRef {}

impl JobRef {
    /// Builds a reference from a raw pointer to a job of type `T`.
    ///
    /// # Safety
    /// `data` must stay valid until the job has been executed, and
    /// `T::execute` must be sound to call once on it from any thread.
    pub(crate) unsafe fn new<T: Job>(data: *const T) -> JobRef {
        JobRef {
            pointer: data.cast(),
            execute_fn: <T as Job>::execute_erased,
        }
    }

    /// Identity of the job (its address), used by `join` to recognize its own
    /// job when it pops it back.
    #[inline]
    pub(crate) fn id(&self) -> *const () {
        self.pointer
    }

    /// Runs the job.
    ///
    /// # Safety
    /// Must be called at most once per job (see the module docs).
    #[inline]
    pub(crate) unsafe fn execute(self) {
        // SAFETY: the caller guarantees single execution; validity of the
        // pointer is the contract of `JobRef::new`.
        unsafe { (self.execute_fn)(self.pointer) }
    }
}

/// A job type that can be executed through a type-erased pointer.
pub(crate) trait Job: Sized {
    /// Executes the job behind `this`.
    ///
    /// # Safety
    /// `this` must point to a live `Self` and be executed at most once.
    unsafe fn execute(this: *const Self);

    /// The erased entry point stored in a [`JobRef`].
    ///
    /// # Safety
    /// As [`Job::execute`], with `this` pointing to a `Self`.
    unsafe fn execute_erased(this: *const ()) {
        // SAFETY: JobRef::new stored a `*const Self` here.
        unsafe { Self::execute(this.cast::<Self>()) }
    }
}

/// The outcome of a job: not run yet, a value, or a panic payload.
pub(crate) enum JobResult<T> {
    /// Not executed (yet).
    None,
    /// Finished with a value.
    Ok(T),
    /// Panicked with this payload.
    Panic(Box<dyn Any + Send>),
}

impl<T> JobResult<T> {
    /// Runs `f`, catching a panic.
    pub(crate) fn call(f: impl FnOnce() -> T) -> Self {
        match panic::catch_unwind(AssertUnwindSafe(f)) {
            Ok(v) => JobResult::Ok(v),
            Err(p) => JobResult::Panic(p),
        }
    }

    /// The value, or resumes the panic.
    pub(crate) fn into_return_value(self) -> T {
        match self {
            JobResult::Ok(v) => v,
            JobResult::Panic(p) => panic::resume_unwind(p),
            JobResult::None => unreachable!("job result taken before the job ran"),
        }
    }

    /// Drops the outcome of a job whose result nobody wants (`join`'s `b`
    /// when `a` panicked): a panic payload through
    /// [`unwind::drop_payload`], so a payload whose `Drop` panics does not
    /// unwind.
    pub(crate) fn discard(self) {
        if let JobResult::Panic(p) = self {
            unwind::drop_payload(p);
        }
    }
}

/// A job living in its waiter's stack frame: the closure, its result slot,
/// and the latch the waiter watches.
pub(crate) struct StackJob<L, F, R> {
    /// The latch set when the job is done.
    pub(crate) latch: L,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<JobResult<R>>,
}

// SAFETY: the closure and result are only touched by one thread at a time:
// the creator before the JobRef is published, the executing thread while
// running, and the creator again after observing the latch (acquire).
unsafe impl<L: Sync, F: Send, R: Send> Sync for StackJob<L, F, R> {}

impl<L: Latch, F: FnOnce(bool) -> R + Send, R: Send> StackJob<L, F, R> {
    /// A new job; `func` receives `migrated` (true when run by a thread that
    /// did not create it).
    pub(crate) fn new(func: F, latch: L) -> Self {
        StackJob {
            latch,
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(JobResult::None),
        }
    }

    /// A reference to publish.
    ///
    /// # Safety
    /// The caller must not let `self` go out of scope (or move) before the
    /// latch is set or the job was taken back and run inline.
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // SAFETY: the caller keeps `self` alive and in place (see above).
        unsafe { JobRef::new(self as *const Self) }
    }

    /// Runs the closure on the creating thread (the job was popped back
    /// before anyone stole it). The latch is not set.
    ///
    /// Takes `&self` (not `self`) so the job is not copied out of the
    /// caller's frame just to be run.
    #[inline]
    pub(crate) fn run_inline(&self, migrated: bool) -> R {
        // SAFETY: the job was taken back before anyone else saw it (or was
        // never published), so this thread has exclusive access to `func`.
        let f = unsafe { (*self.func.get()).take() }.expect("stack job already executed");
        f(migrated)
    }

    /// The result after the latch was observed set.
    pub(crate) fn into_result(self) -> R {
        self.into_job_result().into_return_value()
    }

    /// The outcome, value or panic, after the latch was observed set.
    pub(crate) fn into_job_result(self) -> JobResult<R> {
        self.result.into_inner()
    }
}

impl<L: Latch, F: FnOnce(bool) -> R + Send, R: Send> Job for StackJob<L, F, R> {
    unsafe fn execute(this: *const Self) {
        // SAFETY: `this` is alive until the latch is set below (module docs);
        // no other thread touches `func`/`result` meanwhile.
        let this = unsafe { &*this };
        // SAFETY: exclusive access to the cells while the job runs (see Sync impl).
        let func = unsafe { (*this.func.get()).take() }.expect("stack job executed twice");
        let result = JobResult::call(|| func(true));
        // SAFETY: as above, still exclusive.
        unsafe { *this.result.get() = result };
        // Before the latch releases the waiter: the counts of the jobs run
        // for it, this one included (`ThreadPool::stats`).
        super::worker::publish_counts();
        // SAFETY: setting the latch is the last access to `this`; after it the
        // owner may free the frame. A raw pointer is passed because the
        // latch's memory may be freed while `set` is still running.
        unsafe { L::set(&raw const this.latch) };
    }
}

/// `join`'s second half: a [`StackJob`] stripped to what `join` needs on
/// its fast path, where the owner takes the half back and runs it inline.
/// The closure is run exactly once, by the owner ([`JoinJob::run_inline`])
/// or by the one thread that took its [`JobRef`] (`execute`), so it is
/// kept without an `Option` (no flag to write, test and clear); the result
/// is written only by that thread, so it is kept uninitialized until then
/// (nothing to drop on the inline path).
///
/// `join` runs the closure on every path (also when `a` panicked); a job
/// dropped without running leaks its closure's captures (it cannot happen
/// but in an abort).
pub(crate) struct JoinJob<L, F, R> {
    /// The latch set when another thread ran the job.
    pub(crate) latch: L,
    /// The group of the `join`'s caller: a thief runs the closure as a
    /// job of that group (counted in its own LLC); the owner, inline, is
    /// in it already.
    group: GroupRef,
    func: UnsafeCell<ManuallyDrop<F>>,
    result: UnsafeCell<MaybeUninit<thread::Result<R>>>,
}

// SAFETY: as `StackJob`: the closure and result are touched by one thread
// at a time (the creator before publishing or after taking the job back;
// the executing thread while it runs; the creator after the latch).
unsafe impl<L: Sync, F: Send, R: Send> Sync for JoinJob<L, F, R> {}

impl<L: Latch, F: FnOnce(bool) -> R + Send, R: Send> JoinJob<L, F, R> {
    /// A new job of group `group`; `func` receives `migrated` (true when
    /// run by a thread that did not create it).
    #[inline]
    pub(crate) fn new(func: F, latch: L, group: GroupRef) -> Self {
        JoinJob {
            latch,
            group,
            func: UnsafeCell::new(ManuallyDrop::new(func)),
            result: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// A reference to publish.
    ///
    /// # Safety
    /// As [`StackJob::as_job_ref`]: `self` stays in place until the latch
    /// is set or the job was taken back and run inline.
    #[inline]
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // SAFETY: the caller keeps `self` alive and in place.
        unsafe { JobRef::new(self as *const Self) }
    }

    /// Runs the closure on the creating thread. The latch is not set.
    ///
    /// # Safety
    /// Once, and only if no other thread runs the job (it was never
    /// published, or was taken back before anyone took it).
    #[inline]
    pub(crate) unsafe fn run_inline(&self, migrated: bool) -> R {
        // SAFETY: exclusive access and a single call (the caller's
        // contract): the closure is moved out once.
        let f = unsafe { ManuallyDrop::take(&mut *self.func.get()) };
        f(migrated)
    }

    /// The outcome, value or panic, of the run by another thread.
    ///
    /// # Safety
    /// Once, after the latch was observed set.
    #[inline]
    pub(crate) unsafe fn take_result(&self) -> thread::Result<R> {
        // SAFETY: `execute` wrote the result before setting the latch,
        // which the caller observed (Acquire); it is read once.
        unsafe { (*self.result.get()).assume_init_read() }
    }
}

impl<L: Latch, F: FnOnce(bool) -> R + Send, R: Send> Job for JoinJob<L, F, R> {
    unsafe fn execute(this: *const Self) {
        // SAFETY: `this` is alive until the latch is set below (module docs);
        // this thread took the only reference out of a queue, so it has
        // the cells to itself, and the closure is moved out once.
        let this = unsafe { &*this };
        let func = unsafe { ManuallyDrop::take(&mut *this.func.get()) };
        let group = this.group;
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            if group.is_none() {
                func(true)
            } else {
                WorkerThread::in_group_here(group, || func(true))
            }
        }));
        // SAFETY: as above, still exclusive.
        unsafe { (*this.result.get()).write(result) };
        // Before the latch releases the waiter: the counts of the jobs run
        // for it, this one included (`ThreadPool::stats`).
        super::worker::publish_counts();
        // SAFETY: setting the latch is the last access to `this`.
        unsafe { L::set(&raw const this.latch) };
    }
}

/// A heap job: the closure in a recycled block of [`super::jobmem`] when it
/// fits, else in a `Box`; running it moves the closure out, calls it, then
/// frees the memory (also when it panics). Freeing before the call, so
/// that the closure's own spawn reuses the block at once, measured slower
/// on 100k scope spawns (6.8 against 6.2 ms).
pub(crate) struct HeapJob<F> {
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    /// Puts `func` on the heap and returns a reference owning it; `wt` is
    /// the worker creating it (its block cache is used), `None` on a
    /// thread outside the pool.
    ///
    /// The memory is owned by the job until it runs; a job that is never
    /// executed would leak it, which cannot happen: workers drain all
    /// queues before exiting.
    pub(crate) fn into_job_ref(func: F, wt: Option<&WorkerThread>) -> JobRef
    where
        F: 'static,
    {
        // SAFETY: 'static closure; the memory lives until executed.
        unsafe { Self::into_job_ref_unchecked(func, wt) }
    }

    /// As [`HeapJob::into_job_ref`] for closures borrowing from a scope.
    ///
    /// # Safety
    /// The caller must guarantee that whatever `func` borrows outlives the
    /// job's execution (a scope waits for all its jobs).
    pub(crate) unsafe fn into_job_ref_unchecked(func: F, wt: Option<&WorkerThread>) -> JobRef {
        let job = HeapJob { func };
        if jobmem::fits::<Self>() {
            let block = jobmem::alloc(wt.map(WorkerThread::job_memory)).cast::<Self>();
            // SAFETY: the block is fresh, large and aligned enough for
            // `Self` (`fits`), and owned by this job until `execute`.
            unsafe {
                block.as_ptr().write(job);
                JobRef::new(block.as_ptr())
            }
        } else {
            // SAFETY: the box is valid until `execute` reclaims it, exactly once.
            unsafe { JobRef::new(Box::into_raw(Box::new(job))) }
        }
    }
}

/// Calls `f` with the current worker's job cache and depot, or `None` on a
/// thread outside every pool.
#[inline]
fn with_job_memory<R>(f: impl FnOnce(Option<(&jobmem::JobCache, &jobmem::Depot)>) -> R) -> R {
    WorkerThread::with_current(|wt| f(wt.map(WorkerThread::job_memory)))
}

impl<F: FnOnce() + Send> Job for HeapJob<F> {
    unsafe fn execute(this: *const Self) {
        let this = this as *mut Self;
        if jobmem::fits::<Self>() {
            // SAFETY: `this` is the block written in `into_job_ref_unchecked`,
            // executed once: the closure is moved out and run; the block,
            // no longer used, is freed afterwards (even if it panicked).
            unsafe {
                let func = std::ptr::read(&raw const (*this).func);
                let block = std::ptr::NonNull::new_unchecked(this.cast::<u8>());
                let _free = FreeBlock(block);
                func();
            }
        } else {
            // SAFETY: `this` came from Box::into_raw and is executed once.
            let b = unsafe { Box::from_raw(this) };
            (b.func)();
        }
    }
}

/// Frees a job block when dropped (after the job ran, or while its panic
/// unwinds).
struct FreeBlock(std::ptr::NonNull<u8>);

impl Drop for FreeBlock {
    fn drop(&mut self) {
        // SAFETY: the block's closure was moved out and has finished: the
        // block is no longer used.
        with_job_memory(|m| unsafe { jobmem::free(self.0, m) });
    }
}
