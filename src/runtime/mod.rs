//! The runtime: idle masks, workers, their deques and injectors, search and sleep/wake,
//! latches, jobs, pinning and counters. The public API is the pool layer
//! above it; nothing here names that layer.

pub(crate) mod backoff;
pub(crate) mod deal;
pub(crate) mod error;
pub(crate) mod fifo;
pub(crate) mod group_state;
pub(crate) mod handoff;
pub(crate) mod idle;
pub(crate) mod job;
pub(crate) mod jobmem;
pub(crate) mod join_frame;
pub(crate) mod latch;
pub(crate) mod owner;
pub(crate) mod parker;
pub(crate) mod pass;
pub(crate) mod pin;
pub(crate) mod private;
pub(crate) mod registry;
pub(crate) mod run_loop;
pub(crate) mod search;
pub(crate) mod sleep;
pub(crate) mod start;
pub(crate) mod stats;
pub(crate) mod thread_builder;
pub(crate) mod unwind;
pub(crate) mod worker;

/// Whether the pool of the current thread's worker has a worker that
/// could take more work now (see [`registry::Registry::has_demand`]);
/// false off a worker.
#[inline]
pub(crate) fn demand() -> bool {
    worker::WorkerThread::with_current(|wt| wt.is_some_and(|wt| wt.registry().has_demand()))
}
