//! The worker's side of the operations on its own queues
//! ([`crate::runtime::owner`]): its deque, its private `join` halves, its
//! marks and their published counts, its wakeups, and the deal's
//! primitives (`runtime::deal`: its holds, the pack queues' push).
//!
//! Invariant: only the worker's own thread calls these (see the `SAFETY`
//! of the impl).

use std::cell::Cell;
use std::sync::atomic::Ordering as StdOrdering;

use crossbeam_deque::{Injector, Worker};

use crate::runtime::job::JobRef;
use crate::runtime::owner::Owner;
use crate::runtime::private::PrivateStack;
use crate::runtime::registry::group_routing;
use crate::runtime::sleep::Sleep;

use super::WorkerThread;

/// The worker's side of the operations on its own queues ([`crate::runtime::owner`]).
// SAFETY: a `WorkerThread` is not `Sync` (cells) and lives on its thread's
// stack, so only its own thread calls these, and `private` is the stack of
// `registry.threads[index]`, which this thread owns.
unsafe impl Owner for &WorkerThread {
    type Job = JobRef;

    #[inline(always)]
    fn deque(&self) -> &Worker<JobRef> {
        &self.deque
    }

    #[inline(always)]
    fn private(&self) -> &PrivateStack<JobRef> {
        WorkerThread::private(self)
    }

    #[inline(always)]
    fn sleep(&self) -> &Sleep {
        &self.registry.sleep
    }

    #[inline(always)]
    fn out_of_line<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let mut me: &WorkerThread = self;
        f(&mut me)
    }

    #[inline(always)]
    fn idle_word(&self) -> &crate::sync::AtomicU64 {
        // SAFETY: `idle_word` points into the registry's idle masks, which
        // live as long as the registry this worker holds.
        unsafe { &*self.idle_word }
    }

    #[inline(always)]
    fn marks(&self) -> u8 {
        self.marks.get()
    }

    #[inline(always)]
    fn set_marks(&mut self, marks: u8) {
        self.marks.set(marks);
    }

    #[inline]
    fn publish_starting(&mut self, on: bool) {
        self.info().starting.store(on, StdOrdering::Relaxed);
    }

    #[inline]
    fn count_crossing(&mut self, up: bool) {
        let c = &self.registry.llc_hints[self.llc].crossing;
        if up {
            c.fetch_add(1, StdOrdering::Relaxed);
        } else {
            c.fetch_sub(1, StdOrdering::Relaxed);
        }
    }

    #[inline]
    fn notify(&mut self) {
        WorkerThread::notify(self);
    }

    #[inline]
    fn notify_promoted(&mut self) {
        let queued = || self.deque.len();
        if let Some((_, d)) = self
            .registry
            .sleep
            .notify_queued(self.index, self.llc, queued)
        {
            self.counters().wakeup(d);
        }
    }

    #[inline(always)]
    fn llc(&self) -> usize {
        self.llc
    }

    /// Its pack queue and `LlcHints::placed`.
    #[inline]
    fn llc_free(&self, m: usize) -> bool {
        let reg = &*self.registry;
        reg.group_llc[m].is_empty() && reg.llc_hints[m].placed.load(StdOrdering::Relaxed) == 0
    }

    /// With the stealer thieves use (`ThreadInfo::stealer`).
    #[inline]
    fn steal_oldest(&mut self) -> Option<JobRef> {
        self.info().stealer.steal().success()
    }

    /// A heap record with two holders (`deal::Holds::deal`).
    #[inline]
    fn hold_dealt(&mut self, job: JobRef) -> JobRef {
        crate::runtime::deal::Holds::deal(job)
    }

    /// The pool counts no deal.
    #[inline]
    fn deal_to(&mut self, llc: usize, job: JobRef) {
        group_routing::push_dealt(&mut (&*self.registry, Some(*self)), llc, job);
    }

    /// The owner's hold on its newest dealt half (`deal::Holds`).
    #[inline(always)]
    fn take_dealt(&mut self, b: JobRef) -> bool {
        crate::runtime::deal::Holds::any() && crate::runtime::deal::Holds::take_back(b)
    }

    #[inline]
    fn own_group_queues(&self) -> [&Injector<JobRef>; 2] {
        let reg = &*self.registry;
        [&reg.group_llc[self.llc], &reg.group_cluster[self.cluster]]
    }

    #[inline]
    fn injector_turn(&self) -> Option<(&Injector<JobRef>, &Cell<bool>)> {
        Some((&self.registry.injectors[self.llc], &self.injector_turn))
    }

    #[inline]
    fn promoted(&mut self) {
        self.counters().promotion();
    }

    #[inline(always)]
    fn popped(&mut self, hit: bool) {
        if hit {
            self.local_pops.set(self.local_pops.get() + 1);
        }
    }

    #[inline]
    fn pulled(&mut self) {
        self.counters().injector_pull();
    }
}
