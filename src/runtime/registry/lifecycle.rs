//! The lifecycle side of the registry: the start gate, user handles and
//! what the last one's drop does, the count of exit handlers still to
//! return, and the checks that make a build fail with an error instead of
//! a panic or an abort. The exit condition itself (`may_exit`) and the
//! handler calls stay in `registry`, whose module docs hold the argument
//! for why no job is lost and nothing hangs ("Lifetime: handles,
//! termination, exit").

use std::sync::atomic::{Ordering as StdOrdering, fence as std_fence};

use crate::runtime::error::{BuildError, ShutdownError};
use crate::runtime::latch::BlockingLatch;
use crate::runtime::pin::PinStatus;
use crate::runtime::worker::WorkerThread;
use crate::sync::Ordering;

use super::Registry;

/// What the builder decided about the workers waiting at the start gate.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
enum GateState {
    /// Threads are still being spawned.
    #[default]
    Closed,
    /// Every thread is up: run the start handler and the loop.
    Open,
    /// The build failed: return at once, running nothing.
    Aborted,
}

/// The start gate: three [`BlockingLatch`]es, each with several waiters
/// (every starting worker waits for the decision; any thread may wait for
/// the pin reports; a failed build and `shutdown_and_wait` wait for the
/// threads to leave).
#[derive(Default)]
pub(crate) struct StartGate {
    /// The builder's decision.
    decision: BlockingLatch<GateState>,
    /// Workers that reached the gate, plus those that never will (an
    /// adopted worker 0, a thread builder dropped unrun).
    reported: BlockingLatch<usize>,
    /// Thread builders created and not yet dropped.
    live: BlockingLatch<usize>,
}

impl Registry {
    /// Builder, once every thread was handed to the spawn strategy: opens
    /// the gate. Workers already waiting go on; later ones pass at once.
    /// (Not waiting for the threads to report keeps `build` about as cheap
    /// as spawning them; [`Registry::pin_report`] waits instead.)
    pub(crate) fn open_start_gate(&self) {
        self.start.decision.update(|d| *d = GateState::Open);
    }

    /// Builder, when naming or spawning a thread failed: aborts the start
    /// (the threads already started return without running anything),
    /// waits for those threads and joins them, and returns `error`.
    pub(crate) fn abort_start(&self, error: BuildError) -> BuildError {
        self.start.decision.update(|d| *d = GateState::Aborted);
        self.join_threads();
        error
    }

    /// A thread builder was created: one more live thread.
    pub(crate) fn thread_created(&self) {
        self.start.live.update(|n| *n += 1);
    }

    /// A thread builder was dropped (its `run` returned, or it never ran).
    pub(crate) fn thread_left(&self) {
        self.start.live.update(|n| *n -= 1);
    }

    /// Worker `index`'s thread builder was dropped without running: the
    /// worker will never report, run a job or its exit handler. Counted as
    /// reported and as done with its exit handler, so neither
    /// [`Registry::pin_report`] nor the other workers' exit wait for it.
    pub(crate) fn thread_never_ran(&self, index: usize) {
        self.exit_handler_returned(index);
        self.settle_one();
    }

    /// Worker 0 is the building thread, pinned with status `pin`.
    pub(crate) fn adopted_worker_ready(&self, pin: PinStatus) {
        self.pins.lock()[0] = pin;
        self.settle_one();
    }

    fn settle_one(&self) {
        self.start.reported.update(|n| *n += 1);
    }

    /// Waits until every worker reported at the start gate (or never will).
    pub(super) fn wait_until_settled(&self) {
        let n = self.num_threads();
        self.start.reported.wait_until(|&r| r >= n);
    }

    /// Waits until no thread builder is live: every worker thread left its
    /// loop or never entered it.
    pub(super) fn wait_until_no_thread_live(&self) {
        self.start.live.wait_until(|&n| n == 0);
    }

    /// Worker, once pinned: reports at the start gate and waits for the
    /// builder's decision; true if the build went on.
    pub(super) fn pass_start_gate(&self) -> bool {
        self.settle_one();
        self.start.decision.wait_until(|&d| d != GateState::Closed) == GateState::Open
    }

    /// Worker `index`, once its exit handler returned: records it, and
    /// counts the handler as done; the last one wakes every worker so they
    /// re-check the exit condition ([`Registry::may_exit`]).
    pub(super) fn exit_handler_returned(&self, index: usize) {
        self.threads[index]
            .exit_handler_ran
            .store(true, StdOrdering::Relaxed);
        if self.exit_pending.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.sleep.wake_all();
        }
    }

    /// A new user handle ([`crate::ThreadPool`], [`crate::JobGroup`])
    /// made from an existing one.
    pub(crate) fn add_handle(&self) {
        // Relaxed, as for `Arc::clone`: the caller holds a handle, so the
        // count cannot reach zero meanwhile.
        self.user_handles.fetch_add(1, StdOrdering::Relaxed);
    }

    /// Drops a user handle. The last one terminates the pool and returns
    /// at once: the workers run everything, then exit on their own (module
    /// docs, "Lifetime"). Returns whether it was the last.
    pub(crate) fn drop_handle(&self) -> bool {
        // Release/Acquire as for `Arc`'s drop: everything done through any
        // handle happens before the termination.
        if self.user_handles.fetch_sub(1, StdOrdering::Release) != 1 {
            return false;
        }
        std_fence(StdOrdering::Acquire);
        self.terminate();
        true
    }

    /// [`crate::ThreadPool::shutdown_and_wait`]: drops a user handle; if it
    /// was the last and the caller is outside every pool, waits for the
    /// workers to exit and joins the threads the pool started (module
    /// docs, "Waiting for the exit").
    pub(crate) fn drop_handle_and_wait(&self) -> Result<(), ShutdownError> {
        if WorkerThread::on_worker_thread() {
            self.drop_handle();
            return Err(ShutdownError::OnWorker);
        }
        if !self.drop_handle() {
            return Err(ShutdownError::GroupsAlive);
        }
        self.join_threads();
        Ok(())
    }
}
