//! rayon-core's own tests, ported to locus (issue 10): the behaviour of
//! `join`, `scope` and `scope_fifo`, `spawn` and `spawn_fifo`,
//! `broadcast` and `spawn_broadcast`, `ThreadPool` and its builder, and
//! rayon-core's integration tests (`scope_join`, `scoped_threadpool`,
//! `simple_panic`, `stack_overflow_crash`, `use_current_thread`;
//! `init_zero_threads` needs a process of its own:
//! `tests/rayon_core_global.rs`).
//!
//! The tests check behaviour, written anew for locus; rayon's test names
//! are kept where a test covers the same case, so the two suites can be
//! compared. Where locus differs on purpose, the test checks locus's
//! behaviour and says so (see the README's migration notes): a failed
//! build runs no start or exit handler, and a panicking `thread_name` is a
//! build error rather than a panic.
//!
//! Bodies that could hang run under a deadline; nothing asserts on timing.

#[path = "../common/mod.rs"]
mod common;

mod broadcast;
mod builder;
mod integration;
mod join;
mod scope;
mod spawn;
mod thread_pool;
mod yielding;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A start or exit handler counting its calls, and the count.
fn count_handler() -> (Arc<AtomicUsize>, impl Fn(usize) + Send + Sync + 'static) {
    let count = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&count);
    (count, move |_| {
        c.fetch_add(1, Ordering::SeqCst);
    })
}

/// A 1-worker pool: with nobody to steal, it shows the order in which a
/// worker runs its own jobs.
fn one_worker() -> locus::ThreadPool {
    locus::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
}

/// Lomuto partition around the last element (for the quicksorts); returns
/// the pivot's place.
fn partition<T: PartialOrd>(v: &mut [T]) -> usize {
    let last = v.len() - 1;
    let mut store = 0;
    for i in 0..last {
        if v[i] <= v[last] {
            v.swap(store, i);
            store += 1;
        }
    }
    v.swap(store, last);
    store
}

/// Deterministic pseudo-random numbers (xorshift64*), for test data.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
