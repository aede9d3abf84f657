//! Sleep/wake stress: work arrives while workers are parking, from several
//! outside threads at once, in small bursts. A lost wakeup shows as a hang.

use std::sync::atomic::{AtomicUsize, Ordering};

use locus::ThreadPoolBuilder;

fn tree(depth: u32) -> usize {
    if depth == 0 {
        return 1;
    }
    let (a, b) = locus::join(|| tree(depth - 1), || tree(depth - 1));
    a + b
}

#[test]
fn bursts_from_several_threads_while_workers_park() {
    let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let spawned = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for t in 0..3u32 {
            let pool = &pool;
            let spawned = &spawned;
            s.spawn(move || {
                for i in 0..300u32 {
                    let d = (i + t) % 6;
                    assert_eq!(pool.install(|| tree(d)), 1 << d);
                    if i % 50 == 0 {
                        // Let the workers go to sleep, then wake them again.
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                    if i % 7 == 0 {
                        pool.scope(|sc| {
                            for _ in 0..4 {
                                sc.spawn(|_| {
                                    spawned.fetch_add(1, Ordering::Relaxed);
                                });
                            }
                        });
                    }
                }
            });
        }
    });
    assert_eq!(spawned.load(Ordering::Relaxed), 3 * 43 * 4);
    // Every call returned (the threads were joined), so the job counts are
    // exact ("When the job counts are exact" on `ThreadPool::stats`): an
    // `install` of `tree(d)` is its job plus `2^d - 1` joins, a scope of 4
    // spawns its job plus 4. A job lost or run twice under the bursts
    // shows here.
    let installs: u64 = (0..3u32)
        .flat_map(|t| (0..300u32).map(move |i| 1u64 << ((i + t) % 6)))
        .sum();
    assert_eq!(pool.stats().total().jobs_run, installs + 3 * 43 * 5);
}

#[test]
fn virtual_pool_bursts() {
    let t = locus::Topology::synthetic("llc:4 cluster:2 core:2 smt:2").unwrap();
    let pool = ThreadPoolBuilder::new()
        .num_threads(32)
        .topology(t)
        .build()
        .unwrap();
    for i in 0..200u32 {
        assert_eq!(pool.install(|| tree(i % 8)), 1 << (i % 8));
        if i % 40 == 0 {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    let b = pool.broadcast(|c| c.index());
    assert_eq!(b.len(), 32);
}

#[test]
fn spawn_chains_then_drop() {
    // Detached jobs that spawn more detached jobs: all run before the
    // workers exit, which `shutdown_and_wait` waits for.
    let count = std::sync::Arc::new(AtomicUsize::new(0));
    {
        let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        for _ in 0..50 {
            let c = std::sync::Arc::clone(&count);
            pool.spawn(move || {
                for _ in 0..10 {
                    let c2 = std::sync::Arc::clone(&c);
                    locus::spawn(move || {
                        c2.fetch_add(1, Ordering::Relaxed);
                    });
                }
                c.fetch_add(1, Ordering::Relaxed);
            });
        }
        pool.shutdown_and_wait().unwrap();
    }
    assert_eq!(count.load(Ordering::Relaxed), 50 * 11);
}

/// Installs from outside the pool back to back, from two threads at once,
/// on a pool with one pinned worker per CPU: the case where the worker
/// finishing a caller's job hands its wakeup to the worker searching on
/// the caller's CPU (`runtime::handoff`). Each call must return its own
/// job's result, after the job ran: a wakeup delivered twice would let a
/// later call of the same thread return before its job ran (a panic in
/// `install`), one lost would hang.
#[test]
fn back_to_back_installs_from_outside_return_their_own_results() {
    let pool = ThreadPoolBuilder::new().build().unwrap();
    std::thread::scope(|s| {
        for t in 0..2u64 {
            let pool = &pool;
            s.spawn(move || {
                for i in 0..1_500u64 {
                    let n = 1_000 + (i * 7 + t) % 3_000;
                    let sum = pool.install(|| {
                        use locus::prelude::*;
                        (0..n).into_par_iter().map(|x| x ^ t).sum::<u64>()
                    });
                    assert_eq!(
                        sum,
                        (0..n).map(|x| x ^ t).sum::<u64>(),
                        "call {i} of thread {t}"
                    );
                }
            });
        }
    });
}
