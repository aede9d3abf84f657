//! FIFO order for `spawn_fifo` and `scope_fifo` on top of LIFO deques.
//!
//! A [`JobFifo`] is a queue of jobs in spawn order. Spawning in FIFO order
//! puts the job at the back of a `JobFifo` and pushes a *ticket* on the
//! worker's deque: a job that, whoever runs it, takes the *oldest* job of
//! that fifo and runs it. The deque still pops tickets newest first and
//! thieves still steal them, but since every ticket stands for "the next
//! job of this fifo", a worker alone runs the fifo's jobs in spawn order.
//!
//! Invariants (the proof that no ticket outlives its fifo or finds it
//! empty):
//! - one ticket is pushed per job, after the job is in the queue; a ticket
//!   is run at most once (it sits in one deque slot) and takes exactly one
//!   job. So when a ticket runs, at least as many jobs were queued as
//!   tickets started, and the queue is not empty.
//! - a ticket touches the fifo only to take its job, before running it. A
//!   job is done only after its ticket took it, so once every job of a
//!   fifo is done, every ticket has left the fifo: its owner (a
//!   [`crate::ScopeFifo`], which waits for its jobs; or the registry, which
//!   outlives its workers) may then free it.

use crossbeam_deque::{Injector, Steal};
use crossbeam_utils::Backoff;

use crate::runtime::job::{Job, JobRef};

/// Jobs in spawn order, run through tickets (see the module docs).
pub(crate) struct JobFifo {
    queue: Injector<JobRef>,
}

impl JobFifo {
    /// An empty fifo.
    pub(crate) fn new() -> Self {
        JobFifo {
            queue: Injector::new(),
        }
    }

    /// Queues `job` and returns the ticket to push on a deque.
    ///
    /// # Safety
    /// `self` must stay alive and in place until the ticket has run (its
    /// owner waits for every job pushed here: see the module docs).
    pub(crate) unsafe fn push(&self, job: JobRef) -> JobRef {
        self.queue.push(job);
        // SAFETY: the caller keeps `self` alive until the ticket ran.
        unsafe { JobRef::new(self as *const JobFifo) }
    }
}

impl Job for JobFifo {
    unsafe fn execute(this: *const Self) {
        // SAFETY: the fifo is alive until every ticket ran (module docs).
        let queue = unsafe { &(*this).queue };
        let backoff = Backoff::new();
        let job = loop {
            match queue.steal() {
                Steal::Success(job) => break job,
                Steal::Retry => backoff.spin(),
                // One ticket per queued job, pushed after it: a ticket never
                // finds its fifo empty (module docs).
                Steal::Empty => unreachable!("a fifo ticket found its fifo empty"),
            }
        };
        // SAFETY: taken out of the queue by this ticket, so it runs once;
        // the fifo is not touched after this point.
        unsafe { job.execute() }
    }
}
