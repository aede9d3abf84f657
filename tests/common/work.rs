//! The pools and the workload the tests share: a pool of `n` workers, a
//! pool on a virtual topology, `fib` with a `join` at every level, and a
//! bounded wait for a flag. Also included by the crate's unit tests
//! (`src/test_support.rs`), where `locus` names the crate itself.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use locus::{ThreadPool, ThreadPoolBuilder, Topology};

/// A pool of `n` workers (`0`: the default count).
pub fn pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

/// A pool on the virtual topology `spec` (one worker per PU, unpinned).
/// The count is set, not left to the default: `LOCUS_NUM_THREADS` or
/// `RAYON_NUM_THREADS` would set a default one (as rayon's variable sets
/// every builder's), and the tests size their work on the topology (a
/// barrier per LLC hangs on fewer workers).
pub fn virtual_pool(spec: &str) -> ThreadPool {
    let t = Topology::synthetic(spec).unwrap();
    ThreadPoolBuilder::new()
        .num_threads(t.allowed().len())
        .topology(t)
        .build()
        .unwrap()
}

/// Whether the environment may set the default worker count
/// (`LOCUS_NUM_THREADS`, `RAYON_NUM_THREADS`, `RAYON_RS_NUM_CPUS`): a test
/// of the default count itself (from the topology, the cgroup quota, a
/// CPU set) has nothing to check then, the variable decides.
pub fn env_sets_count() -> bool {
    [
        "LOCUS_NUM_THREADS",
        "RAYON_NUM_THREADS",
        "RAYON_RS_NUM_CPUS",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some())
}

/// The `n`th Fibonacci number, with a `join` at every level
/// ([`fib_joins`] of them).
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = locus::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// The joins `fib(n)` makes: one per call with `n >= 2`.
pub fn fib_joins(n: u64) -> u64 {
    if n < 2 {
        0
    } else {
        1 + fib_joins(n - 1) + fib_joins(n - 2)
    }
}

/// Calls `step` until `flag` is set or `deadline` has passed; returns the
/// flag. The deadline is generous on purpose: a test waits for something
/// to happen, not for it to happen fast, and must pass on a loaded machine.
pub fn spin_until(flag: &AtomicBool, deadline: Duration, mut step: impl FnMut()) -> bool {
    let end = Instant::now() + deadline;
    while !flag.load(Ordering::Acquire) && Instant::now() < end {
        step();
    }
    flag.load(Ordering::Acquire)
}
