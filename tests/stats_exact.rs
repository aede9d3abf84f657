//! `ThreadPool::stats` counts every job of a blocking call once the call
//! returned (see "When the job counts are exact" on `ThreadPool::stats`):
//! no waiting, no sleep, on any number of workers. Each case runs many
//! times, because the race it guards against (a worker still holding the
//! counts of the jobs it just ran in its thread-local cells while the
//! caller already reads the snapshot) is lost only sometimes.
//!
//! Expected counts: a call from outside the pool is one injected job; a
//! `join` adds one job (its second half, run inline or stolen); a `scope`
//! job, a `broadcast` job, one each.

use std::sync::atomic::{AtomicUsize, Ordering};

use locus::ThreadPool;

mod common;
use common::work::{fib, fib_joins, pool};

const ROUNDS: usize = 200;

fn jobs(p: &ThreadPool) -> u64 {
    p.stats().total().jobs_run
}

/// Runs `call` `ROUNDS` times on `p`; each time, the jobs counted by the
/// snapshot right after it returned must have grown by exactly `expect`.
fn check(p: &ThreadPool, what: &str, expect: u64, call: impl Fn(&ThreadPool)) {
    let mut misses = Vec::new();
    let mut before = jobs(p);
    for round in 0..ROUNDS {
        call(p);
        let after = jobs(p);
        if after - before != expect {
            misses.push((round, after - before));
        }
        before = after;
    }
    assert!(
        misses.is_empty(),
        "{what} on {} threads: expected {expect} jobs per call; (round, counted): {misses:?}",
        p.current_num_threads()
    );
}

#[test]
fn one_thread_install_of_a_scope_of_nine() {
    // The reported case: a 1-thread pool that had just run 9 jobs printed 0.
    let p = pool(1);
    let ran = AtomicUsize::new(0);
    check(&p, "install(scope of 9 spawns)", 1 + 9, |p| {
        p.install(|| {
            locus::scope(|s| {
                for _ in 0..9 {
                    s.spawn(|_| {
                        ran.fetch_add(1, Ordering::Relaxed);
                    });
                }
            })
        })
    });
    assert_eq!(ran.load(Ordering::Relaxed), 9 * ROUNDS);
}

#[test]
fn one_thread_join_and_scope_from_outside() {
    let p = pool(1);
    check(&p, "join from outside", 1 + 1, |p| {
        p.join(|| 1, || 2);
    });
    check(&p, "scope from outside", 1 + 9, |p| {
        p.scope(|s| {
            for _ in 0..9 {
                s.spawn(|_| {});
            }
        })
    });
    check(&p, "install(fib(10))", 1 + fib_joins(10), |p| {
        assert_eq!(p.install(|| fib(10)), 55);
    });
}

#[test]
fn many_threads_join_trees_scopes_and_broadcasts() {
    for n in [2, 3, 4] {
        let p = pool(n);
        check(&p, "install(fib(12))", 1 + fib_joins(12), |p| {
            assert_eq!(p.install(|| fib(12)), 144);
        });
        check(
            &p,
            "install(scope of 64 spawns, each a join)",
            1 + 64 * 2,
            |p| {
                p.install(|| {
                    locus::scope(|s| {
                        for _ in 0..64 {
                            s.spawn(|_| {
                                locus::join(|| fib(1), || fib(1));
                            });
                        }
                    })
                })
            },
        );
        check(
            &p,
            "scope from outside with nested scopes",
            1 + 8 + 8 * 4,
            |p| {
                p.scope(|s| {
                    for _ in 0..8 {
                        s.spawn(|s| {
                            for _ in 0..4 {
                                s.spawn(|_| {});
                            }
                        });
                    }
                })
            },
        );
        check(&p, "broadcast", 1 + n as u64, |p| {
            p.broadcast(|_| {});
        });
    }
}

#[test]
fn in_place_scope_from_outside() {
    // The body runs on the calling thread (not a job); each spawn is one.
    let p = pool(2);
    check(&p, "in_place_scope of 16 spawns", 16, |p| {
        p.in_place_scope(|s| {
            for _ in 0..16 {
                s.spawn(|_| {});
            }
        })
    });
}
