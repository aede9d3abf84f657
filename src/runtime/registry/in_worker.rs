//! How a caller gets its closure run on a worker of the pool (the
//! [`Registry::in_worker`] family), and the hand-off of a blocked caller's
//! wakeup to the worker searching on its CPU (see `handoff`).
//!
//! Invariants:
//! - a caller on a worker of this pool runs the closure inline; any other
//!   caller pushes it as a job whose frame stays on its stack until the
//!   job's latch is set (it blocks outside any pool, or runs its own pool's
//!   jobs meanwhile), and a panic while it waits aborts instead of freeing
//!   that frame under a running job;
//! - the closure runs as a job of the group it was given, wherever it runs.

use std::sync::Arc;

use crate::runtime::group_state::GroupRef;
use crate::runtime::handoff::CallerLatch;
use crate::runtime::job::StackJob;
use crate::runtime::latch::{LockLatch, SpinLatch};
use crate::runtime::pin;
use crate::runtime::unwind::AbortOnUnwind;
use crate::runtime::worker::WorkerThread;

use super::Registry;

impl Registry {
    /// Calls `f` with the worker running on this thread if it is one of
    /// this pool's, else `None` ([`WorkerThread::with_current`]).
    #[inline]
    pub(crate) fn with_current_worker<R>(&self, f: impl FnOnce(Option<&WorkerThread>) -> R) -> R {
        WorkerThread::with_current(|wt| f(wt.filter(|wt| wt.registry().id() == self.id())))
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

    /// As [`Registry::in_worker`], with `op` running as a job of group `g`:
    /// inline (in the group) on a worker of this pool, else pushed where the
    /// group's placement says.
    pub(crate) fn in_worker_group<OP, R>(self: &Arc<Self>, g: GroupRef, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        WorkerThread::with_current(|wt| match wt {
            Some(wt) if wt.registry().id() == self.id() => wt.in_group(g, || op(wt, false)),
            Some(wt) => self.in_worker_cross(wt, g, op),
            None => self.in_worker_cold(g, op),
        })
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
            let cpu = self.caller_cpu();
            let latch = CallerLatch {
                lock: l,
                cpu,
                registry: self,
            };
            let job = StackJob::new(injected_op(g, op), latch);
            // SAFETY: `job` stays in this frame until the latch is set
            // (wait_and_reset returns only then).
            self.push_from_outside(g, unsafe { job.as_job_ref() }, cpu);
            let guard = AbortOnUnwind::new("an `install` waiting for its job on a worker");
            l.wait_and_reset();
            guard.disarm();
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
        self.push_from_outside(g, unsafe { job.as_job_ref() }, self.caller_cpu());
        let guard = AbortOnUnwind::new("an `install` waiting for its job in another pool");
        current.wait_until(&job.latch.core);
        guard.disarm();
        job.into_result()
    }
}

impl Registry {
    /// Hands the wakeup of the caller blocked on `lock`, who runs on OS CPU
    /// `cpu`, to the worker of that CPU if it searches there; false if the
    /// caller must be woken directly (see `handoff`).
    pub(crate) fn hand_wakeup(&self, lock: *const LockLatch, cpu: usize) -> bool {
        match self.worker_by_cpu.get(cpu) {
            // A finisher on the caller's CPU wakes it there itself: the
            // worker of that CPU may run elsewhere in its cluster
            // (`Pinning::Cluster`) with a word that still names the CPU,
            // and a request to it would only cost the withdrawal's wait.
            // Without this look, `iter_paired`'s filter + count measured
            // 1.02 to 1.09 of rayon against 0.87 to 0.98 (alternating
            // builds, 40 pairs).
            Some(&w) if w != usize::MAX && pin::current_cpu() != Some(cpu) => {
                // SAFETY: `CallerLatch::set`'s latch: its job is finished
                // and its caller blocks on it.
                unsafe { self.threads[w].handoff.hand(lock, cpu) }
            }
            _ => false,
        }
    }

    /// Whether workers record where they search (`handoff`): in the pools
    /// that place work by the caller's CPU.
    #[inline]
    pub(crate) fn hands_wakeups(&self) -> bool {
        self.inject_by_cpu
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
        WorkerThread::with_current(|wt| {
            let wt = wt.expect("injected job ran outside a worker");
            wt.in_group(g, || op(wt, injected))
        })
    }
}
