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
pub fn virtual_pool(spec: &str) -> ThreadPool {
    ThreadPoolBuilder::new()
        .topology(Topology::synthetic(spec).unwrap())
        .build()
        .unwrap()
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
