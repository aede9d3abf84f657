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
#![deny(missing_docs)]
#![warn(unsafe_op_in_unsafe_fn)]

pub(crate) mod sync;
pub mod layout;
pub mod topology;

pub use layout::{Layout, LayoutError, LayoutOptions, Pinning, StealOrder, Tier, TierKind, WorkerPlace};
pub use topology::{CpuSet, Level, Topology, TopologyError};
