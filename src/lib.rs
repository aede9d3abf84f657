//! # locus: a cache-aware work-stealing thread pool
//!
//! locus schedules fork-join and spawned jobs the way modern Linux schedules
//! threads on machines whose cores share caches in several levels (ARM
//! servers with clusters of 4 cores, AMD EPYC with many L3s, multi-socket
//! NUMA servers, hybrid big/little laptops).
//!
//! The crate is built in layers, data flowing one way:
//!
//! ```text
//! topology  ->  layout  ->  runtime (sleep, deques, workers)  ->  API
//! ```
//!
//! - [`topology`]: what the machine is ([`Topology`], [`CpuSet`]).
//!
//! ```
//! let t = locus::Topology::synthetic("llc:2 cluster:2 core:4").unwrap();
//! println!("{t}");
//! ```
//!
//! - API: rayon's names and semantics ([`join`], [`scope`], [`spawn`],
//!   [`ThreadPool::install`], [`ThreadPool::broadcast`]) on a pool of
//!   workers laid out on the topology, with per-worker counters
//!   ([`ThreadPool::stats`]).
//!
//! ```
//! fn sum(v: &[u64]) -> u64 {
//!     if v.len() <= 1024 {
//!         return v.iter().sum();
//!     }
//!     let (a, b) = v.split_at(v.len() / 2);
//!     let (x, y) = locus::join(|| sum(a), || sum(b));
//!     x + y
//! }
//! let v: Vec<u64> = (0..100_000).collect();
//! // On the global pool (built on first use)...
//! assert_eq!(sum(&v), 4_999_950_000);
//! // ...or on a pool of your own, here a virtual one on a synthetic machine.
//! let pool = locus::ThreadPoolBuilder::new()
//!     .topology(locus::Topology::synthetic("llc:2 core:2").unwrap())
//!     .build()
//!     .unwrap();
//! assert_eq!(pool.install(|| sum(&v)), 4_999_950_000);
//! println!("{}", pool.stats());
//! ```
#![deny(missing_docs)]
#![warn(unsafe_op_in_unsafe_fn)]

pub mod groups;
pub mod layout;
mod pool;
pub(crate) mod runtime;
pub(crate) mod sync;
pub mod topology;

pub use groups::{Affinity, GroupError, GroupOptions, GroupStats, Placement};
pub use layout::{Layout, LayoutError, LayoutOptions, Pinning, StealOrder, Tier, TierKind, WorkerPlace};
pub use pool::{
    BroadcastContext, BuildError, FnContext, JobGroup, Scope, ThreadPool, ThreadPoolBuilder, broadcast, current_num_threads,
    current_thread_index, join, join_context, outside_group, scope, spawn,
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

/// Internals for the `loom-tests` crate, compiled only under `--cfg loom`.
#[cfg(loom)]
#[doc(hidden)]
pub mod __loom {
    pub use crate::runtime::idle::{Distance, IdleMasks, IdleShape};
    pub use crate::runtime::latch::{CoreLatch, LockLatch};
    pub use crate::runtime::private::{
        CAPACITY, Claim, Popped, PrivateStack, claim_before_parking, must_publish,
    };
    pub use crate::runtime::sleep::{Parker, Sleep};
}

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
