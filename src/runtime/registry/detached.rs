//! Detached jobs: `spawn`, `spawn_fifo`, `spawn_broadcast`, and the
//! `detached` count they keep, which the exit condition reads (see
//! "Lifetime: handles, termination, exit" in `registry`): a detached job is
//! counted from before its push until after its last instruction.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crate::runtime::group_state::GroupRef;
use crate::runtime::job::HeapJob;
use crate::runtime::worker::WorkerThread;
use crate::sync::{Ordering, fence};

use super::Registry;

impl Registry {
    /// Runs `f` as a detached job; inside a group job of this pool (or
    /// with `group` given) as a job of that group.
    pub(crate) fn spawn_detached<F: FnOnce() + Send + 'static>(self: &Arc<Self>, f: F) {
        self.spawn_detached_in(GroupRef::NONE, f)
    }

    /// As [`Registry::spawn_detached`] in group `group` (none: the current
    /// worker's group, if it is a worker of this pool).
    pub(crate) fn spawn_detached_in<F: FnOnce() + Send + 'static>(
        self: &Arc<Self>,
        group: GroupRef,
        f: F,
    ) {
        self.detached.fetch_add(1, Ordering::SeqCst);
        self.with_current_worker(|wt| {
            let g = if group.is_none() {
                wt.map_or(GroupRef::NONE, |wt| wt.group())
            } else {
                group
            };
            let body = self.detached_body(f);
            match g.hold() {
                None => self.push_from(HeapJob::into_job_ref(body, wt), wt),
                Some(st) => {
                    // The job holds its group's state until it is done
                    // (`group_state`, invariants): the handle it came from
                    // may be dropped before it runs.
                    let held = Arc::clone(&st);
                    let job = HeapJob::into_job_ref(
                        move || WorkerThread::in_group_here(GroupRef::of(&held), body),
                        wt,
                    );
                    self.push_group(&st, job, wt);
                }
            }
        })
    }

    /// The body of a detached job running `f`, already counted in
    /// `detached`: its panic goes to [`Registry::handle_detached_panic`],
    /// and its end is counted.
    fn detached_body<F: FnOnce() + Send + 'static>(
        self: &Arc<Self>,
        f: F,
    ) -> impl FnOnce() + Send + 'static {
        let reg = Arc::clone(self);
        move || {
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(f)) {
                reg.handle_detached_panic(p);
            }
            reg.detached_done();
        }
    }

    /// `spawn_fifo`: as [`Registry::spawn_detached`], but a worker of this
    /// pool outside any group queues the job in its fifo and pushes a
    /// ticket (see `pool::fifo`), so it runs its own spawns oldest first.
    /// From elsewhere the job goes where `spawn` puts it (an injector is in
    /// spawn order already).
    pub(crate) fn spawn_fifo<F: FnOnce() + Send + 'static>(self: &Arc<Self>, f: F) {
        self.with_current_worker(|wt| match wt {
            Some(wt) if wt.group().is_none() => {
                self.detached.fetch_add(1, Ordering::SeqCst);
                let job = HeapJob::into_job_ref(self.detached_body(f), Some(wt));
                // SAFETY: the fifo lives in the registry, which outlives
                // every job of its workers.
                wt.push(unsafe { self.threads[wt.index()].fifo.push(job) });
            }
            _ => self.spawn_detached(f),
        })
    }

    /// `spawn_broadcast`: runs `op(index, num_threads)` once on every
    /// worker, as detached jobs (each counted, its panic handled as a
    /// detached job's). `pool` wraps the two numbers into the public
    /// `BroadcastContext`, so the runtime does not depend on it.
    pub(crate) fn spawn_broadcast<OP>(self: &Arc<Self>, op: OP)
    where
        OP: Fn(usize, usize) + Send + Sync + 'static,
    {
        let n = self.num_threads();
        self.detached.fetch_add(n, Ordering::SeqCst);
        let op = Arc::new(op);
        self.with_current_worker(|wt| {
            for index in 0..n {
                let op = Arc::clone(&op);
                let body = self.detached_body(move || op(index, n));
                self.push_targeted(index, HeapJob::into_job_ref(body, wt));
            }
        })
    }

    /// A panic of a detached job: counted (`detached_panics`), then given
    /// to the panic handler ([`Registry::handle_panic`]: without one, or if
    /// it panics, the process aborts, as in rayon). Returns only when
    /// handled, so the job still calls `detached_done`.
    fn handle_detached_panic(&self, payload: Box<dyn Any + Send>) {
        if self.panic_handler.is_some() {
            self.with_current_worker(|wt| match wt {
                Some(wt) => self.counters[wt.index()].panic(),
                None => self.external.panic(),
            });
        }
        self.handle_panic(payload, "a spawned job");
    }

    /// The job's last step: uncounts it; the decrement to zero of a
    /// terminating pool wakes every worker. The fence between the decrement
    /// and the load of `terminating` pairs with the one in
    /// [`Registry::terminate`] (a Dekker pair of fences, so that the
    /// argument "Termination is seen without the hand-off" of the sleep
    /// module's docs does not rest on the total order of SeqCst accesses,
    /// which the loom models cannot check); paid only at zero.
    fn detached_done(&self) {
        if self.detached.fetch_sub(1, Ordering::SeqCst) == 1 {
            fence(Ordering::SeqCst);
            if self.terminating.load(Ordering::SeqCst) {
                self.sleep.wake_all();
            }
        }
    }
}
