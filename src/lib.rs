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
pub mod slice;
pub mod str;
pub mod string;
pub mod vec;
pub(crate) mod runtime;
pub(crate) mod sync;
pub mod topology;

// Programs the compiler must reject (doctests only).
#[cfg(doctest)]
mod compile_fail;

pub use groups::{Affinity, GroupError, GroupOptions, GroupStats, Placement};
pub use layout::{Layout, LayoutError, LayoutOptions, Pinning, StealOrder, Tier, TierKind, WorkerPlace};
pub use pool::{
    BroadcastContext, BuildError, DomainContext, FnContext, JobGroup, Scope, ThreadPool, ThreadPoolBuilder, broadcast, current_num_threads,
    current_thread_index, join, join_context, outside_group, scope, spawn,
};
// The rest of rayon-core's surface (see the README's list of rayon names).
pub use pool::{
    ScopeFifo, ThreadBuilder, ThreadPoolBuildError, Yield, current_thread_has_pending_tasks, in_place_scope,
    in_place_scope_fifo, max_num_threads, scope_fifo, spawn_broadcast, spawn_fifo, yield_local, yield_now,
};
pub use runtime::idle::Distance;
pub use runtime::pin::PinStatus;
pub use runtime::stats::{PoolStats, TIER_KINDS, WorkerStats};
pub use topology::{CpuSet, Level, Topology, TopologyError};

/// Internals for the `idle_search` benchmark (`benches/idle_search.rs`).
///
/// Criterion benches are separate crates and can only reach public items, so
/// the idle-mask types are re-exported here. Not part of the API: hidden from
/// the docs, no stability promise.
#[doc(hidden)]
pub mod __bench {
    pub use crate::runtime::idle::{Distance, IdleMasks, IdleShape};
}

/// Internals for the group policy tests (`tests/groups_policy.rs`): the idle
/// masks of a layout, as the pool builds them, to check which worker a
/// group push wakes. Not part of the API: hidden, no stability promise.
#[doc(hidden)]
pub mod __policy {
    pub use crate::runtime::idle::{Distance, IdleMasks, IdleShape};

    /// The idle shape the pool builds for `layout`.
    pub fn idle_shape(layout: &crate::Layout) -> IdleShape {
        crate::runtime::registry::idle_shape(layout)
    }
}

/// Internals for the `loom-tests` crate, compiled only under `--cfg loom`:
/// the protocol types and the workers' search loop itself
/// ([`search`](crate::runtime::search::search), generic over its sources),
/// so the models run the code that ships.
#[cfg(loom)]
#[doc(hidden)]
pub mod __loom {
    pub use crate::runtime::idle::{Distance, IdleMasks, IdleShape};
    pub use crate::runtime::latch::{CoreLatch, CountLatch, Latch, LatchOwner, LockLatch};
    pub use crate::runtime::private::{
        CAPACITY, Claim, Popped, PrivateStack, claim_before_parking, must_publish,
    };
    pub use crate::runtime::search::{Found, Sources, search};
    pub use crate::runtime::sleep::{Idle, Parker, Sleep};
}

#[cfg(feature = "sim")]
pub mod sim;
