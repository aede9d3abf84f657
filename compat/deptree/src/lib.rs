//! A dependency tree on locus, built by CI (`.ci/run`).
//!
//! This crate depends on crates that use rayon by name (indicatif with its
//! `rayon` feature, ndarray with its `rayon` feature, rayon-cond, hashbrown,
//! indexmap and dashmap with their `rayon` features, blake3 with its
//! `rayon` feature, which calls rayon-core's `join`, jwalk, exr,
//! jpeg-decoder and oxipng, which build pools, spawn, scope and yield, and
//! tokio-rayon, whose spawned jobs answer through futures), and its
//! manifest patches `rayon` and `rayon-core` with the shims in `compat/`,
//! as the README tells users to. Its tests check that those crates compute
//! the right results and that their work runs on locus's workers; its
//! helpers below record where a closure ran.
#![deny(missing_docs)]

use std::collections::BTreeSet;
use std::sync::Mutex;

/// Where the closures of one run ran: the worker names seen, and whether
/// any call ran outside a locus worker.
#[derive(Default)]
pub struct Seen {
    names: Mutex<BTreeSet<String>>,
    outside: Mutex<usize>,
}

impl Seen {
    /// Records the calling thread: its name when it is a locus worker (as
    /// both locus and the `rayon` shim see it), else one call outside.
    pub fn record(&self) {
        let locus_index = locus::current_thread_index();
        // The shim's function is locus's, so the two always agree; checking
        // both shows that code asking rayon sees locus's worker.
        assert_eq!(rayon::current_thread_index(), locus_index);
        assert_eq!(rayon_core::current_thread_index(), locus_index);
        if locus_index.is_some() {
            let name = std::thread::current().name().unwrap_or("").to_owned();
            self.names.lock().unwrap().insert(name);
        } else {
            *self.outside.lock().unwrap() += 1;
        }
    }

    /// The worker names recorded.
    pub fn names(&self) -> BTreeSet<String> {
        self.names.lock().unwrap().clone()
    }

    /// How many calls ran on a thread that is not a locus worker.
    pub fn outside(&self) -> usize {
        *self.outside.lock().unwrap()
    }

    /// Checks that every call ran on a worker named `prefix` followed by a
    /// number, and that at least one call was recorded.
    pub fn assert_all_on(&self, prefix: &str) {
        assert_eq!(self.outside(), 0, "calls ran outside locus's workers");
        let names = self.names();
        assert!(!names.is_empty(), "no call recorded");
        for n in &names {
            let index = n.strip_prefix(prefix).unwrap_or_else(|| {
                panic!("a call ran on thread {n:?}, not on a worker named {prefix}N")
            });
            assert!(index.parse::<usize>().is_ok(), "worker name {n:?}");
        }
    }
}

/// A pool of two workers built with locus's own builder, its workers
/// named `prefix` followed by their index (what [`Seen::assert_all_on`]
/// checks).
pub fn pool(prefix: &str) -> locus::ThreadPool {
    let prefix = prefix.to_owned();
    locus::ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(move |i| format!("{prefix}{i}"))
        .build()
        .unwrap()
}

mod paths;
