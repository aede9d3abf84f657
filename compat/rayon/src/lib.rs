//! rayon's API, as locus provides it.
//!
//! This crate has rayon's name and version so that a `[patch.crates-io]`
//! entry replaces rayon everywhere in a dependency tree: every crate that
//! uses `rayon::prelude::*`, implements `rayon::iter::plumbing`'s traits or
//! builds a `rayon::ThreadPool` then runs on locus's workers, in the same
//! global pool as code that uses locus directly. It only re-exports: the
//! modules are locus's (`rayon::iter` is `locus::iter`, so a type that
//! implements `rayon::iter::ParallelIterator` implements locus's), and the
//! root items are rayon-core's, as in rayon.
//!
//! Invariant: every public path of rayon 1.12 resolves here to the locus
//! item of the same name (`compat/deptree/tests/paths.rs` checks the list).
#![deny(missing_docs)]

pub use locus::{array, collections, iter, option, prelude, range, range_inclusive};
pub use locus::{result, slice, str, string, vec};

pub use rayon_core::{BroadcastContext, broadcast, spawn_broadcast};
pub use rayon_core::{FnContext, ThreadBuilder, ThreadPool};
pub use rayon_core::{Scope, in_place_scope, scope};
pub use rayon_core::{ScopeFifo, in_place_scope_fifo, scope_fifo};
pub use rayon_core::{ThreadPoolBuildError, ThreadPoolBuilder};
pub use rayon_core::{Yield, yield_local, yield_now};
pub use rayon_core::{current_num_threads, current_thread_index, max_num_threads};
pub use rayon_core::{join, join_context, spawn, spawn_fifo};
