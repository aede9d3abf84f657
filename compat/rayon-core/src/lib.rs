//! rayon-core's API, as locus provides it.
//!
//! This crate has rayon-core's name and version so that a
//! `[patch.crates-io]` entry replaces rayon-core everywhere in a dependency
//! tree: every crate that calls `rayon_core::join`, `spawn` or `scope`, or
//! builds a `ThreadPool`, then runs on locus's workers, in the same global
//! pool as code that uses locus directly. It only re-exports locus's items
//! under rayon-core's root paths; the types are locus's own
//! (`rayon_core::ThreadPool` is `locus::ThreadPool`).
//!
//! Invariant: every public item of rayon-core 1.13's root is here, under the
//! same name, and nothing else (`compat/deptree/tests/paths.rs` checks the
//! list). locus's additions (job groups, layouts, pool statistics) are
//! reached through `locus` itself.
#![deny(missing_docs)]

pub use locus::{BroadcastContext, broadcast, spawn_broadcast};
pub use locus::{FnContext, join, join_context};
pub use locus::{Scope, in_place_scope, scope};
pub use locus::{ScopeFifo, in_place_scope_fifo, scope_fifo};
pub use locus::{ThreadBuilder, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder};
pub use locus::{Yield, yield_local, yield_now};
pub use locus::{current_num_threads, current_thread_index, max_num_threads};
pub use locus::{current_thread_has_pending_tasks, spawn, spawn_fifo};
#[allow(deprecated)]
pub use locus::{Configuration, initialize};
