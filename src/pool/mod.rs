//! The public API: [`ThreadPool`], its builder, and rayon-core's free
//! functions ([`join`](fn@join), [`scope`](fn@scope), [`scope_fifo`], [`in_place_scope`],
//! [`spawn`](fn@spawn), [`spawn_fifo`], [`broadcast`](fn@broadcast), [`spawn_broadcast`],
//! [`yield_now`](fn@yield_now), [`current_thread_index`], [`current_num_threads`], ...).
//!
//! Free functions run on the current worker's pool when called from a
//! worker, else on the global pool (built on first use from
//! [`ThreadPoolBuilder::new`] and the environment). Building the global
//! pool on first use does not fail on an invalid `LOCUS_*` environment
//! variable (there is no caller to return the error to): it prints one
//! warning naming the variable and what it accepts, and ignores it. Call
//! [`ThreadPoolBuilder::build_global`] early to get a [`BuildError`]
//! instead.

mod broadcast;
mod builder;
mod deprecated;
mod env;
pub(crate) mod global;
mod job_group;
mod join;
mod scope;
mod shutdown;
mod spawn;
pub(crate) mod thread_builder;
mod thread_pool;
mod yield_now;

pub use crate::runtime::error::ShutdownError;
pub use crate::runtime::error::{BuildError, ThreadPoolBuildError};
pub use crate::runtime::thread_builder::ThreadBuilder;
pub use broadcast::{BroadcastContext, DomainContext, broadcast, spawn_broadcast};
pub use builder::ThreadPoolBuilder;
#[allow(deprecated)]
pub use deprecated::{Configuration, initialize};
pub use job_group::{JobGroup, outside_group};
pub use join::{FnContext, join, join_context};
pub use scope::{Scope, ScopeFifo, in_place_scope, in_place_scope_fifo, scope, scope_fifo};
pub use spawn::{spawn, spawn_fifo};
pub use thread_pool::ThreadPool;
pub use yield_now::{Yield, current_thread_has_pending_tasks, yield_local, yield_now};

use crate::runtime::worker::WorkerThread;

/// The index of the current thread in its pool, if it is a worker.
pub fn current_thread_index() -> Option<usize> {
    WorkerThread::with_current(|wt| wt.map(WorkerThread::index))
}

/// The largest number of workers a pool may have
/// ([`crate::layout::MAX_WORKERS`], 65,536). A larger count, from
/// [`ThreadPoolBuilder::num_threads`] or from the environment, is lowered
/// to it, as rayon does. (rayon's own maximum is 65,535 on 64-bit targets,
/// the width of its sleep counters; locus's is the widest layout its idle
/// masks index. Either is past what a process can start on a default Linux
/// `vm.max_map_count`, see [`ThreadPoolBuilder::num_threads`].)
pub fn max_num_threads() -> usize {
    crate::layout::MAX_WORKERS
}

/// The number of workers of the current pool: the current worker's pool,
/// else the global pool (built on first use).
pub fn current_num_threads() -> usize {
    WorkerThread::with_current(|wt| match wt {
        Some(wt) => wt.registry().num_threads(),
        None => global::global_registry().num_threads(),
    })
}

#[cfg(test)]
mod tests;
