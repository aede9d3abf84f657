#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![warn(unsafe_op_in_unsafe_fn)]

pub mod array;
pub mod collections;
pub mod docs;
pub mod groups;
pub mod iter;
pub mod layout;
pub mod option;
mod pool;
pub mod prelude;
pub mod range;
pub mod range_inclusive;
pub mod result;
pub(crate) mod runtime;
pub mod slice;
pub mod str;
pub mod string;
pub(crate) mod sync;
#[cfg(test)]
mod test_support;
// The test helpers shared with the integration tests name the crate `locus`.
#[cfg(test)]
extern crate self as locus;
pub mod topology;
pub mod vec;

// Programs the compiler must reject (doctests only).
#[cfg(doctest)]
mod compile_fail;

pub use groups::{Affinity, GroupError, GroupOptions, GroupStats, Placement, RetiredGroups};
pub use layout::{
    Layout, LayoutError, LayoutOptions, Pinning, StealOrder, Tier, TierKind, WorkerPlace,
};
pub use pool::{
    BroadcastContext, BuildError, DomainContext, FnContext, JobGroup, Scope, ShutdownError,
    ThreadPool, ThreadPoolBuilder, broadcast, current_num_threads, current_thread_index, join,
    join_context, outside_group, scope, spawn,
};
// The rest of rayon-core's surface (see the README's list of rayon names).
// rayon-core's deprecated entry points, still in rayon-core 1.13.
#[allow(deprecated)]
pub use pool::{Configuration, initialize};
pub use pool::{
    ScopeFifo, ThreadBuilder, ThreadPoolBuildError, Yield, current_thread_has_pending_tasks,
    in_place_scope, in_place_scope_fifo, max_num_threads, scope_fifo, spawn_broadcast, spawn_fifo,
    yield_local, yield_now,
};
pub use runtime::idle::Distance;
pub use runtime::idle::probe::IdleSearch;
pub use runtime::pin::PinStatus;
pub use runtime::stats::{PoolStats, TIER_KINDS, WorkerStats};
pub use topology::{CpuSet, Level, Topology, TopologyError};

/// Internals for the `loom-tests` crate, compiled only under `--cfg loom`
/// (never in a normal build, so no part of the public API): the protocol
/// types, the workers' run loop and search loop themselves
/// ([`run`](crate::runtime::run_loop::run),
/// [`search`](crate::runtime::search::search), generic over their
/// sources), so the models run the code that ships.
#[cfg(loom)]
#[doc(hidden)]
pub mod __loom {
    pub use crate::groups::policy::overloaded;
    pub use crate::runtime::deal::{Deal, Dealt};
    pub use crate::runtime::handoff::Handoff;
    pub use crate::runtime::idle::{Distance, IdleMasks, IdleShape};
    pub use crate::runtime::latch::{CoreLatch, CountLatch, Latch, LatchOwner, LockLatch};
    pub use crate::runtime::parker::Parker;
    pub use crate::runtime::private::rules::{claim_before_parking, must_publish};
    pub use crate::runtime::private::{CAPACITY, Claim, Popped, PrivateStack};
    pub use crate::runtime::registry::group_routing::may_help_in;
    pub use crate::runtime::run_loop::{RunLoop, run};
    pub use crate::runtime::search::{Found, Reach, Sources, first_search, search};
    pub use crate::runtime::sleep::{Idle, Sleep};
}

#[cfg(feature = "sim")]
pub mod sim;
