//! `join` and `join_context`.
//!
//! The caller records `b` as a stack job (no allocation) on its *private*
//! stack of pending halves ([`crate::runtime::private`]), runs `a`, and,
//! if `b` is still there, takes it back and runs it inline: no atomic
//! read-modify-write, no fence. Other workers get `b` in two ways:
//! - **promotion**: the caller pushes its *oldest* private half, the
//!   biggest piece of a recursion, on its deque at `join` entry and exit
//!   while the deque holds fewer than two jobs (lazy promotion in the
//!   spirit of Acar, Charguéraud and Rainey, PPoPP 2013, and of chili's
//!   heartbeat, but driven by the deque running low instead of a timer),
//!   and all of them while some worker is idle or before it waits for a
//!   latch;
//! - **claim**: a worker about to park takes the oldest private half of a
//!   busy worker directly from its stack, under a heavy fence
//!   (`membarrier`), so `b` does not depend on the caller reaching its
//!   next `join`: `a` may run long serial code, or block until `b` has
//!   run (see "Private `join` halves" in `runtime::sleep`).
//!
//! A promoted `b` is popped back from the deque if nobody stole it;
//! otherwise (stolen or claimed) the caller runs other jobs until `b`'s
//! latch is set.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

use crate::runtime::job::{JobRef, JoinJob};
use crate::runtime::join_frame::{JoinFrame, JoinStep};
use crate::runtime::latch::JoinLatch;
use crate::runtime::unwind::{self, AbortOnUnwindJoin};
use crate::runtime::worker::WorkerThread;

use super::global;

/// What a `join_context` closure learns about where it runs.
#[derive(Debug, Clone, Copy)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    /// True if the closure runs on another thread than the one that called
    /// `join_context` (it was stolen, or the call came from outside the
    /// pool).
    #[inline]
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// Runs `a` and `b`, potentially in parallel, and returns both results.
///
/// Called from a worker, it uses that worker's pool; elsewhere it runs in
/// the global pool and blocks. As in rayon, `a` and `b` *may* run in
/// parallel but need not: `b` may run after `a` on the calling thread.
/// `a` may wait for something `b` does (a channel, a lock, a flag): an
/// idle worker of the pool takes `b`, even though it has not been
/// published yet, before it would go to sleep. That needs a worker free
/// to take it: with a pool of one worker, or while every other worker is
/// blocked too, `a` waits forever, as in rayon. Both closures always run,
/// also when one panics (as in rayon); a panic is resumed in the caller
/// after both have finished; if both panic, `a`'s panic wins.
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 { return n; }
///     let (a, b) = locus::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// assert_eq!(fib(20), 6765);
/// ```
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_context(|_| a(), |_| b())
}

/// As [`join`], with a [`FnContext`] telling each closure whether it
/// migrated to another thread.
// Not inlined, with the whole frame (`join_on`) inlined into it: then a
// recursion through `join` (fib) compiles to this function calling
// itself, with the caller's body inlined into `a` and `b` and the
// thread-local read of the current worker inline. Left to the compiler,
// the recursion came out as `join_on` with that read as an outlined call,
// or as the user's function holding the frame and paying its prologue on
// every leaf call: 5 to 14 instructions more per `join`
// (`docs/join-cost.md`).
#[inline(never)]
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    global::in_worker(|wt, injected| join_on(wt, injected, a, b))
}

/// `join_context` on worker `wt`.
///
/// The fast path (nobody took `b`) costs a private push and pop, a look at
/// the idle word after the push and at the `wanted` hint after the pop, and
/// a counter: everything else (publishing to the deque, waiting, panics,
/// a full private stack) is out of line (`docs/join-cost.md`). Always
/// inlined, into [`join_context`], which never is (see there).
#[inline(always)]
pub(crate) fn join_on<A, B, RA, RB>(wt: &WorkerThread, injected: bool, a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    // Inside a group job, `b` belongs to the group: if another worker runs
    // it, it runs there as a job of the group (counted in that LLC).
    let job_b = JoinJob::new(
        move |migrated| b(FnContext { migrated }),
        wt.join_latch(),
        wt.group(),
    );
    run_frame::<false, _, _, _, _>(wt, injected, JoinFrame::new(true), a, &job_b)
}

/// Drives a `join`'s frame ([`JoinFrame`], the steps the simulator takes
/// too) from `frame` on: `a` and `b` run inline here, the take-back steps
/// out of line ([`take_back_or_wait`]), a published `b` on its own cold
/// path ([`join_public`]), `a`'s panic on its own ([`a_panicked`]). The
/// steps are inlined and the frame's state is a constant at each of them,
/// so it compiles to the straight line of the steps the fast path takes
/// (`docs/one-copy.md`).
#[inline(always)]
fn run_frame<const PUBLISHED: bool, A, F, RA, RB>(
    wt: &WorkerThread,
    injected: bool,
    mut frame: JoinFrame,
    a: A,
    job_b: &JoinJob<JoinLatch<'_>, F, RB>,
) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    F: FnOnce(bool) -> RB + Send,
    RA: Send,
    RB: Send,
{
    // Once b is recorded and until it is ours again or its latch is set,
    // another worker may run b in this frame: no unwinding out of it (a's
    // panic is caught; see `runtime::unwind`). Disarmed on every path that
    // leaves the frame.
    let guard = AbortOnUnwindJoin;
    // The fast path is two steps: the first answers `Publish` (a cold
    // path of its own) or `RunA`, the second `RunB` or `Gone`, after which
    // the cold `take_back_or_wait` steps on (`runtime::join_frame`'s
    // invariants). Matched one at a time, so that `a` is moved where it
    // runs and its result is a plain local (a loop over the steps carried
    // both as `Option`s, which cost the fast path: `docs/one-copy.md`).
    // SAFETY: the caller keeps `job_b` in its frame until this returns,
    // which is once its latch is set or we took it back (every path
    // below, the panic path included).
    match unsafe { step(wt, &mut frame, job_b) } {
        JoinStep::Publish if !PUBLISHED => {
            guard.disarm();
            return join_public(wt, injected, frame, a, job_b);
        }
        JoinStep::RunA => {}
        _ => unreachable!("a join frame runs `a` before its other steps"),
    }
    // `a`'s panic is caught here, not left to a drop guard that would run
    // `b` while it unwinds: then `b`, and the other jobs this worker runs
    // while it waits for a stolen `b`, would see `thread::panicking()`,
    // which rayon's do not. Matched at once, with the panic's path out of
    // line, so that the fast path keeps no `Result` to test after the pop.
    let ra = match panic::catch_unwind(AssertUnwindSafe(|| a(FnContext { migrated: injected }))) {
        Ok(ra) => ra,
        Err(p) => {
            guard.disarm();
            // SAFETY: as above; `a_panicked` ends the frame.
            unsafe { a_panicked(wt, injected, frame, job_b, p) }
        }
    };
    // SAFETY: as above.
    let mine = unsafe { b_is_mine(wt, &mut frame, job_b) };
    guard.disarm();
    if mine {
        wt.count_job();
        // SAFETY: b was taken back (or never published) and has not run.
        return (ra, unsafe { job_b.run_inline(injected) });
    }
    // SAFETY: b's latch is set.
    match unsafe { job_b.take_result() } {
        Ok(rb) => (ra, rb),
        Err(pb) => panic::resume_unwind(pb),
    }
}

/// One step of `job_b`'s frame on worker `wt`: the one place that names
/// the step's arguments (the job, its latch probe, the test that
/// recognises it).
///
/// # Safety
/// `job_b` stays in place until its frame ends (at [`JoinStep::RunB`] or
/// [`JoinStep::Done`]): once recorded, other workers may run it.
#[inline(always)]
unsafe fn step<F, RB>(
    wt: &WorkerThread,
    frame: &mut JoinFrame,
    job_b: &JoinJob<JoinLatch<'_>, F, RB>,
) -> JoinStep<JobRef>
where
    F: FnOnce(bool) -> RB + Send,
    RB: Send,
{
    // SAFETY: the caller's contract.
    let b = unsafe { job_b.as_job_ref() };
    let latch = &job_b.latch.core;
    frame.step(&mut { wt }, b, || latch.probe(), |j| j.id() == b.id())
}

/// The frame's steps once `a` returned or panicked, to its end: true if
/// `b` is ours and has not run (run it), false once its latch is set.
///
/// # Safety
/// As [`step`].
#[inline(always)]
unsafe fn b_is_mine<F, RB>(
    wt: &WorkerThread,
    frame: &mut JoinFrame,
    job_b: &JoinJob<JoinLatch<'_>, F, RB>,
) -> bool
where
    F: FnOnce(bool) -> RB + Send,
    RB: Send,
{
    // SAFETY: the caller's contract.
    match unsafe { step(wt, frame, job_b) } {
        // b was never published, or was promoted and nobody stole it.
        JoinStep::RunB => true,
        // The waiting is out of line, so that the frame stays small enough
        // for the compiler to inline `a` and `b` into it.
        // SAFETY: the caller's contract.
        JoinStep::Gone => unsafe { take_back_or_wait(wt, *frame, job_b) },
        _ => unreachable!("a join frame's `b` is gone after `a`, or ours"),
    }
}

/// `b` goes on the deque at once, as rayon's: the path of a `join` nested
/// deeper than the private stack holds (the frame's
/// [`JoinStep::Publish`]); the rest of the frame's steps as in
/// [`run_frame`].
#[cold]
#[inline(never)]
fn join_public<A, F, RA, RB>(
    wt: &WorkerThread,
    injected: bool,
    frame: JoinFrame,
    a: A,
    job_b: &JoinJob<JoinLatch<'_>, F, RB>,
) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    F: FnOnce(bool) -> RB + Send,
    RA: Send,
    RB: Send,
{
    // SAFETY: as in `run_frame`, whose caller keeps `job_b` until this
    // returns.
    wt.push(unsafe { job_b.as_job_ref() });
    run_frame::<true, _, _, _, _>(wt, injected, frame, a, job_b)
}

/// `a` panicked with `p`: the frame's steps to its end, then `b` runs here
/// if it is still ours (as in rayon, both closures always run; `b`'s own
/// panic is then dropped) or its outcome is dropped, and `p` is resumed
/// (`a`'s panic wins).
///
/// # Safety
/// As [`step`]; `frame` has answered [`JoinStep::RunA`].
#[cold]
#[inline(never)]
unsafe fn a_panicked<F, RB>(
    wt: &WorkerThread,
    injected: bool,
    mut frame: JoinFrame,
    job_b: &JoinJob<JoinLatch<'_>, F, RB>,
    p: Box<dyn Any + Send>,
) -> !
where
    F: FnOnce(bool) -> RB + Send,
    RB: Send,
{
    // As in `run_frame`: `b` may run on another worker until the frame
    // ends.
    let guard = AbortOnUnwindJoin;
    // SAFETY: the caller's contract.
    let mine = unsafe { b_is_mine(wt, &mut frame, job_b) };
    guard.disarm();
    if mine {
        wt.count_job();
        // SAFETY: ours, not run yet.
        let rb = panic::catch_unwind(AssertUnwindSafe(|| unsafe { job_b.run_inline(injected) }));
        if let Err(pb) = rb {
            unwind::drop_payload(pb);
        }
    } else {
        // b's outcome is dropped here, not while unwinding (a payload whose
        // `Drop` panics would abort then).
        // SAFETY: the latch is set.
        if let Err(pb) = unsafe { job_b.take_result() } {
            unwind::drop_payload(pb);
        }
    }
    panic::resume_unwind(p)
}

/// The take-back steps of a `join` frame whose `b` was promoted to the
/// deque, claimed or published (after [`JoinStep::Gone`]): take it back if
/// it is still on the deque (returns true: the caller runs it), else help
/// until whoever took it has set its latch (returns false). Generic, as
/// the frame is, so that it is instantiated where the `join` is: a
/// non-generic copy in this crate would make the compiler share the
/// frame's cold steps from here (`docs/one-copy.md`).
///
/// # Safety
/// As [`step`].
#[cold]
#[inline(never)]
unsafe fn take_back_or_wait<F, RB>(
    wt: &WorkerThread,
    mut frame: JoinFrame,
    job_b: &JoinJob<JoinLatch<'_>, F, RB>,
) -> bool
where
    F: FnOnce(bool) -> RB + Send,
    RB: Send,
{
    let latch = &job_b.latch.core;
    loop {
        // SAFETY: the caller's contract.
        match unsafe { step(wt, &mut frame, job_b) } {
            // SAFETY: popped from our deque, so it runs once.
            JoinStep::Run(job) => unsafe { wt.execute(job) },
            JoinStep::Wait => wt.wait_until(latch),
            JoinStep::RunB => return true,
            JoinStep::Done => return false,
            JoinStep::Publish | JoinStep::RunA | JoinStep::Gone => {
                unreachable!("a join frame publishes and runs `a` before `b` is gone")
            }
        }
    }
}
