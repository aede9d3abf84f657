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
use super::shared::SharedQueues;

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

    /// [`Registry::inject`] from a thread on OS CPU `cpu` ([`inject_to`]).
    fn inject_from(&self, job: JobRef, cpu: Option<usize>) {
        inject_to(&mut (self, None), job, cpu);
    }

    /// Queues a job only worker `index` may run, and wakes it.
    pub(crate) fn push_targeted(&self, index: usize, job: JobRef) {
        self.queue_targeted(index, job);
        self.sleep.wake_worker(index);
    }

    /// Queues a job in worker `index`'s targeted queue, without a wakeup.
    pub(super) fn queue_targeted(&self, index: usize, job: JobRef) {
        let t = &self.threads[index];
        t.targeted.lock().push_back(job);
        t.has_targeted.store(true, Ordering::SeqCst);
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

/// Pushes `job` from outside the pool, from a thread on OS CPU `cpu`, into
/// the injector of that CPU's LLC, else the next one round robin, and makes
/// the fenced notify (`Sleep::notify`) of that LLC. The pool's
/// [`Registry::inject`] and the simulator's injection (which has no caller
/// CPU) both run it.
#[inline]
pub(crate) fn inject_to<Q: SharedQueues>(q: &mut Q, job: Q::Job, cpu: Option<usize>) {
    let llcs = q.layout().llc_ranges().len();
    let llc = cpu
        .and_then(|c| q.layout().llc_of_cpu(c))
        .filter(|&l| l < llcs)
        .unwrap_or_else(|| q.next_round_robin() % llcs);
    q.injector(llc).push(job);
    q.injected();
    if let Some(hit) = q.idle_op(|s| s.notify(None, llc)) {
        q.woke(hit);
    }
}
