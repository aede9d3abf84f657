//! Virtual pools: synthetic topologies with more workers than cores.

use std::collections::BTreeSet;

use locus::{Layout, ThreadPool, ThreadPoolBuilder, TierKind, Topology};

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = locus::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn tier_kinds(layout: &Layout) -> BTreeSet<TierKind> {
    layout
        .workers()
        .iter()
        .flat_map(|w| w.tiers.iter().map(|t| t.kind))
        .collect()
}

/// Runs fork-join rounds from every worker (so every worker has work that
/// its neighbours at every distance may steal) until every tier kind of the
/// layout has seen a steal, or a generous round limit is reached.
fn run_until_all_tiers_stolen(pool: &ThreadPool, max_rounds: usize) -> usize {
    let kinds = tier_kinds(pool.layout());
    for round in 0..max_rounds {
        // A fork-join tree rooted on one worker: helpers from every tier
        // must steal to take part.
        assert_eq!(pool.install(|| fib(18)), 2584);
        // And one tree per worker, started everywhere at once.
        let r = pool.broadcast(|_| fib(12));
        assert!(r.iter().all(|&x| x == 144));
        let total = pool.stats().total();
        if kinds.iter().all(|&k| total.steals(k) > 0) {
            return round + 1;
        }
    }
    max_rounds
}

#[test]
fn virtual_64_workers_steal_in_every_tier() {
    let t = Topology::synthetic("numa:2 llc:2 cluster:2 core:4 smt:2").unwrap();
    let pool = ThreadPoolBuilder::new().topology(t).build().unwrap();
    assert_eq!(pool.current_num_threads(), 64);
    assert!(pool.layout().options().virtual_topology);
    assert!(
        pool.pin_report()
            .iter()
            .all(|p| *p == locus::PinStatus::NotRequested)
    );
    let kinds = tier_kinds(pool.layout());
    assert!(kinds.len() >= 5, "{kinds:?}");
    let rounds = run_until_all_tiers_stolen(&pool, 2000);
    let stats = pool.stats();
    let total = stats.total();
    for k in &kinds {
        assert!(
            total.steals(*k) > 0,
            "no steal in tier {k:?} after {rounds} rounds:\n{stats}"
        );
    }
    assert!(total.jobs_run > 0);
    eprintln!("all tiers stolen after {rounds} rounds; total: {total:?}");
}

#[test]
fn virtual_1024_workers_over_64_llcs() {
    let rss_before = rss_kib();
    let t = Topology::synthetic("llc:64 core:16").unwrap();
    let pool = ThreadPoolBuilder::new()
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
