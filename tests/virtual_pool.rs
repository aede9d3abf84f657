//! Virtual pools: synthetic topologies with more workers than cores.

use std::collections::BTreeSet;
use std::sync::{Condvar, Mutex};

use locus::{Layout, ThreadPool, ThreadPoolBuilder, TierKind, Topology};

mod common;
use common::work::{fib, virtual_pool};

fn tier_kinds(layout: &Layout) -> BTreeSet<TierKind> {
    layout
        .workers()
        .iter()
        .flat_map(|w| w.tiers.iter().map(|t| t.kind))
        .collect()
}

/// Makes worker `thief` steal from worker `victim` and from nobody else:
/// in a broadcast, every other worker blocks (busy, but not on a CPU, and
/// with an empty deque), the victim runs fork-join work until the thief's
/// steal counter for `kind` moves, and the thief, free, can only find work
/// in the victim's deque, through its tier of kind `kind`. The victim
/// starts only once all the others are blocked, so none of them can hold a
/// stolen piece of its work (blocking inside a job while holding stolen
/// work the victim waits for would deadlock any work-stealing pool).
/// Deterministic in what is counted; the round cap is only a guard.
fn steal_through(pool: &ThreadPool, thief: usize, victim: usize, kind: TierKind) -> u64 {
    let before = pool.stats().workers[thief].steals(kind);
    let n = pool.current_num_threads();
    // (number of blocked workers, victim done)
    let state = Mutex::new((0usize, false));
    let cv = Condvar::new();
    pool.broadcast(|ctx| {
        let me = ctx.index();
        if me == victim {
            let mut st = state.lock().unwrap();
            while st.0 < n - 2 {
                st = cv.wait(st).unwrap();
            }
            drop(st);
            for _ in 0..100_000 {
                assert_eq!(fib(14), 377);
                if pool.stats().workers[thief].steals(kind) > before {
                    break;
                }
            }
            state.lock().unwrap().1 = true;
            cv.notify_all();
        } else if me != thief {
            let mut st = state.lock().unwrap();
            st.0 += 1;
            cv.notify_all();
            while !st.1 {
                st = cv.wait(st).unwrap();
            }
        }
    });
    pool.stats().workers[thief].steals(kind) - before
}

#[test]
fn virtual_64_workers_steal_in_every_tier() {
    let pool = virtual_pool("numa:2 llc:2 cluster:2 core:4 smt:2");
    assert_eq!(pool.current_num_threads(), 64);
    assert!(pool.layout().options().virtual_topology);
    assert!(
        pool.pin_report()
            .iter()
            .all(|p| *p == locus::PinStatus::NotRequested)
    );
    // A plain fork-join workload first.
    assert_eq!(pool.install(|| fib(20)), 6765);
    let kinds = tier_kinds(pool.layout());
    assert!(kinds.len() >= 5, "{kinds:?}");
    // Then, for each tier of worker 0, a steal through it.
    let tiers = pool.layout().workers()[0].tiers.clone();
    for tier in &tiers {
        let victim = tier.ranges[0].start;
        let n = steal_through(&pool, 0, victim, tier.kind);
        assert!(
            n > 0,
            "worker 0 did not steal from {victim} ({:?})",
            tier.kind
        );
    }
    let stats = pool.stats();
    let total = stats.total();
    for k in &kinds {
        assert!(total.steals(*k) > 0, "no steal in tier {k:?}:\n{stats}");
    }
    eprintln!("{stats}");
}

#[test]
fn virtual_1024_workers_over_64_llcs() {
    let rss_before = rss_kib();
    let t = Topology::synthetic("llc:64 core:16").unwrap();
    let pool = ThreadPoolBuilder::new()
        .num_threads(1024)
        .topology(t)
        .stack_size(256 * 1024)
        .build()
        .unwrap();
    assert_eq!(pool.current_num_threads(), 1024);
    assert_eq!(pool.layout().llc_ranges().len(), 64);
    let rss_built = rss_kib();
    assert_eq!(pool.install(|| fib(20)), 6765);
    let hits = pool.broadcast(|ctx| ctx.index());
    assert_eq!(hits, (0..1024).collect::<Vec<_>>());
    let rss_ran = rss_kib();
    drop(pool);
    if let (Some(b), Some(c), Some(r)) = (rss_before, rss_built, rss_ran) {
        eprintln!(
            "RSS: before {b} KiB, built {c} KiB, after work {r} KiB: {:.1} KiB per worker built, {:.1} after work",
            (c.saturating_sub(b)) as f64 / 1024.0,
            (r.saturating_sub(b)) as f64 / 1024.0
        );
    }
}

fn rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
