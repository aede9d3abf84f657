//! The push path: where a job goes when it is pushed, and the wakeup each
//! push owes the sleep protocol (see `sleep`).
//!
//! - From a worker of this pool: its own deque ([`Registry::push_from`]);
//! - from any other thread: an LLC injector ([`Registry::inject`]), the LLC
//!   of the pushing CPU when workers are pinned, else round robin;
//! - a group job: where its group's plan says
//!   ([`Registry::push_group`], in `group_routing`), from anywhere;
//! - a job only one worker may run (broadcast, aimed copies): that
//!   worker's targeted queue ([`Registry::push_targeted`]).
//!
//! [`Registry::in_worker`] and its family (in `registry`) hand their jobs
//! from outside the pool to [`Registry::push_from_outside`].

use crate::runtime::group_state::GroupRef;
use crate::runtime::job::JobRef;
use crate::runtime::pin;
use crate::runtime::worker::WorkerThread;
use crate::sync::Ordering;

use super::Registry;

impl Registry {
    /// Pushes onto `from`'s deque (a worker of this pool, see
    /// [`Registry::with_current_worker`]), or injects when there is none.
    #[inline]
    pub(crate) fn push_from(&self, job: JobRef, from: Option<&WorkerThread>) {
        match from {
            Some(wt) => wt.push(job),
            None => self.inject(job),
        }
    }

    /// Pushes a job from a thread that is not a worker of this pool, which
    /// runs on OS CPU `cpu` ([`Registry::caller_cpu`]): into an injector,
    /// or as a group job.
    pub(super) fn push_from_outside(&self, g: GroupRef, job: JobRef, cpu: Option<usize>) {
        match g.get() {
            Some(st) => self.push_group(st, job, None),
            None => self.inject_from(job, cpu),
        }
    }

    /// The calling thread's OS CPU when the pool places work by CPU (its
    /// workers are pinned on a real topology), else `None`: read once per
    /// call from outside, for its injection and for its wakeup (`handoff`).
    #[inline]
    pub(crate) fn caller_cpu(&self) -> Option<usize> {
        self.inject_by_cpu.then(pin::current_cpu).flatten()
    }

    /// Pushes a job from outside the pool (or from another pool's worker)
    /// into an LLC injector, and wakes a worker if needed.
    pub(crate) fn inject(&self, job: JobRef) {
        self.inject_from(job, self.caller_cpu());
    }

    /// [`Registry::inject`] from a thread on OS CPU `cpu`: the injector of
    /// that CPU's LLC, else the next one round robin.
    fn inject_from(&self, job: JobRef, cpu: Option<usize>) {
        let llcs = self.injectors.len();
        let llc = cpu
            .and_then(|c| self.layout.llc_of_cpu(c))
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
}
