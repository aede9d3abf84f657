//! The pool's shared queues as a push into them sees them: the one
//! interface of the pushes that do not go to the pusher's own deque, so
//! that the pool and the simulator (`sim`) run the same push code.
//!
//! [`SharedQueues`] is implemented by the registry with the pushing thread
//! (`(&Registry, Option<&WorkerThread>)`, below) and by the simulated pool
//! with its pushing worker, which charges the pushes' costs in the hooks.
//! The pushes generic over it:
//! - an injection from outside the pool ([`super::push::inject_to`]);
//! - a group job ([`super::group_routing::push_to`]);
//! - a job aimed at an LLC or a worker ([`super::aimed::push_aimed_to`]).
//!
//! Each is instantiated once for the pool, with every hook inlined: the
//! pool's pushes are the code they were before they were generic.

use crossbeam_deque::Injector;

use crate::layout::Layout;
use crate::runtime::idle::Distance;
use crate::runtime::job::JobRef;
use crate::runtime::sleep::Sleep;
use crate::runtime::worker::WorkerThread;
use crate::sync::{Ordering, fence};

use super::Registry;

/// The pool's shared queues and sleep state, as a push from one thread
/// (the pusher) sees them (module docs).
pub(crate) trait SharedQueues {
    /// A job as the queues hold it.
    type Job: Copy;

    /// The pool's sleep state.
    fn sleep(&self) -> &Sleep;

    /// The pool's layout.
    fn layout(&self) -> &Layout;

    /// LLC `llc`'s pack-group queue.
    fn pack(&self, llc: usize) -> &Injector<Self::Job>;

    /// Cluster `cluster`'s spread-group queue.
    fn spread(&self, cluster: usize) -> &Injector<Self::Job>;

    /// LLC `llc`'s injector.
    fn injector(&self, llc: usize) -> &Injector<Self::Job>;

    /// The pushing worker (none: from outside the pool).
    fn pusher(&self) -> Option<usize>;

    /// The pushing worker's LLC (none: from outside the pool).
    fn pusher_llc(&self) -> Option<usize>;

    /// The next ticket of the injectors' round robin (any value; the push
    /// takes it modulo the number of LLCs).
    fn next_round_robin(&mut self) -> usize;

    /// A job that the plan leaves to the ordinary push path: the pushing
    /// worker's deque, else an injector (`Registry::push_from`).
    fn push_ordinary(&mut self, job: Self::Job);

    /// Records that spread queues are in use, before the push
    /// (`Registry::mark_spread_used`).
    fn mark_spread_used(&mut self);

    /// Counts a job routed to a group queue, an LLC's injector or aimed.
    fn routed(&mut self);

    /// Counts a job injected from outside the pool.
    fn injected(&mut self);

    /// One job as two copies that run it once (`AffineProxy`): the copy,
    /// to be queued twice.
    fn two_copies(&mut self, job: Self::Job) -> Self::Job;

    /// Queues `job` in worker `w`'s targeted queue (no wakeup).
    fn queue_targeted(&mut self, w: usize, job: Self::Job);

    /// The pusher's `SeqCst` fence of the sleep protocol, before a wakeup
    /// that has none of its own.
    fn fence(&mut self);

    /// Runs the wakeup `op` on the sleep state (the simulator counts the
    /// idle-mask words it touches).
    #[inline]
    fn idle_op<R>(&mut self, op: impl FnOnce(&Sleep) -> R) -> R {
        op(self.sleep())
    }

    /// Counts the wakeup the push made.
    fn woke(&mut self, hit: (usize, Distance));
}

/// The registry and the pushing thread (its worker of this pool, if it is
/// one).
impl SharedQueues for (&Registry, Option<&WorkerThread>) {
    type Job = JobRef;

    #[inline]
    fn sleep(&self) -> &Sleep {
        &self.0.sleep
    }

    #[inline]
    fn layout(&self) -> &Layout {
        &self.0.layout
    }

    #[inline]
    fn pack(&self, llc: usize) -> &Injector<JobRef> {
        &self.0.group_llc[llc]
    }

    #[inline]
    fn spread(&self, cluster: usize) -> &Injector<JobRef> {
        &self.0.group_cluster[cluster]
    }

    #[inline]
    fn injector(&self, llc: usize) -> &Injector<JobRef> {
        &self.0.injectors[llc]
    }

    #[inline]
    fn pusher(&self) -> Option<usize> {
        self.1.map(|wt| wt.index())
    }

    #[inline]
    fn pusher_llc(&self) -> Option<usize> {
        self.1.map(|wt| wt.llc())
    }

    #[inline]
    fn next_round_robin(&mut self) -> usize {
        // Relaxed: the ticket only spreads jobs; no other memory hangs on it.
        self.0
            .round_robin
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    #[inline]
    fn push_ordinary(&mut self, job: JobRef) {
        self.0.push_from(job, self.1);
    }

    #[inline]
    fn mark_spread_used(&mut self) {
        self.0.mark_spread_used();
    }

    #[inline]
    fn routed(&mut self) {
        if self.1.is_none() {
            self.0.external.injected();
        }
    }

    #[inline]
    fn injected(&mut self) {
        self.0.external.injected();
    }

    #[inline]
    fn two_copies(&mut self, job: JobRef) -> JobRef {
        super::aimed::two_copies(job)
    }

    #[inline]
    fn queue_targeted(&mut self, w: usize, job: JobRef) {
        self.0.queue_targeted(w, job);
    }

    #[inline]
    fn fence(&mut self) {
        fence(Ordering::SeqCst);
    }

    #[inline]
    fn woke(&mut self, (_, d): (usize, Distance)) {
        match self.1 {
            Some(wt) => self.0.counters[wt.index()].wakeup(d),
            None => self.0.external.wakeup(d),
        }
    }
}
