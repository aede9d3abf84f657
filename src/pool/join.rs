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

use std::panic::{self, AssertUnwindSafe};

use crate::runtime::job::StackJob;
use crate::runtime::latch::{CoreLatch, SpinLatch};
use crate::runtime::owner::TakeBack;
use crate::runtime::unwind::{self, AbortOnUnwind};
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
pub(crate) fn join_on<A, B, RA, RB>(wt: &WorkerThread, injected: bool, a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    // Inside a group job, `b` belongs to the group: if another worker runs
    // it, it runs there as a job of the group (counted in that LLC).
    let group = wt.group();
    let job_b = StackJob::new(
        move |migrated| {
            if migrated && !group.is_none() {
                WorkerThread::in_group_here(group, || b(FnContext { migrated }))
            } else {
                b(FnContext { migrated })
            }
        },
        SpinLatch::new(wt.registry(), wt.index()),
    );
    // SAFETY: `job_b` stays in this frame until its latch is set or we took
    // it back from the deque; every path below waits for one of the two
    // (including the panic path).
    let job_b_ref = unsafe { job_b.as_job_ref() };
    let id = job_b_ref.id();
    wt.push_private(job_b_ref);
    // Until b is ours again or its latch is set, another worker may run b
    // in this frame: no unwinding out of it (a's panic is caught; see
    // `runtime::unwind`). Disarmed on every path that leaves the loop.
    let guard = AbortOnUnwind::new("`join` while its second half may run on another worker");

    let ra = panic::catch_unwind(AssertUnwindSafe(|| a(FnContext { migrated: injected })));
    // b is ours again if it was never promoted or claimed, or if it was
    // promoted and nobody stole it: then run it here. If a panicked, b
    // still runs (as in rayon: both closures always run), its own panic is
    // dropped, and a's is resumed. One call site for that, and the waiting
    // out of line, so that this frame stays small enough for the compiler
    // to inline `a` and `b` into it.
    if wt.pop_private(id) || take_back_or_wait(wt, &job_b.latch.core, id) {
        guard.disarm();
        wt.count_job();
        return match ra {
            Ok(ra) => (ra, job_b.run_inline(injected)),
            Err(p) => {
                let rb = panic::catch_unwind(AssertUnwindSafe(|| job_b.run_inline(injected)));
                if let Err(pb) = rb {
                    unwind::drop_payload(pb);
                }
                panic::resume_unwind(p)
            }
        };
    }
    guard.disarm();
    match ra {
        Ok(ra) => (ra, job_b.into_result()),
        Err(p) => {
            // a's panic wins; b's outcome is dropped here, not while
            // unwinding (a payload whose `Drop` panics would abort then).
            job_b.into_job_result().discard();
            panic::resume_unwind(p)
        }
    }
}

/// `b` (the job `id` with latch `latch`) was promoted to the deque or
/// claimed by another worker: take it back if it is still on the deque
/// (returns true: the caller runs it), else help until whoever took it
/// has set its latch (returns false). The steps are
/// `runtime::owner::take_back`'s, which the simulator's `join` frame
/// steps too.
#[cold]
#[inline(never)]
fn take_back_or_wait(wt: &WorkerThread, latch: &CoreLatch, id: *const ()) -> bool {
    loop {
        match wt.take_back(|| latch.probe(), |job| job.id() == id) {
            TakeBack::Done => return false,
            TakeBack::Inline => return true,
            // SAFETY: popped from our deque, so it runs once.
            TakeBack::Run(job) => unsafe { wt.execute(job) },
            TakeBack::Wait => {
                wt.wait_until(latch);
                return false;
            }
        }
    }
}
