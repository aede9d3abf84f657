//! Parallel iterators on the hierarchy: the first split per LLC, affinity
//! replay, the reduction tree, and results on virtual multi-LLC pools.
//!
//! These pools are virtual (8 to 16 workers on whatever this machine has,
//! often 2 loaded cores), so where items run is measured by counting, with
//! bounds that leave room for what the OS does to oversubscribed threads
//! (see each test); nothing here depends on timing.

mod common;
// Shared with the other `iter_*` tests; this one uses its lengths and data.
#[allow(dead_code)]
mod iter_util;

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use locus::ThreadPool;
use locus::iter::Replay;
use locus::prelude::*;

use common::deadline::within_deadline;
use common::work::virtual_pool;

/// Taken by every test of this file, so that the tests that count where
/// items ran do not share this machine's few cores with the others' pools
/// (another pool's threads would take the CPUs a piece's workers need, and
/// the thresholds below assume they have only the OS's other load to share
/// with). The whole file takes a few seconds.
static MEASURING: Mutex<()> = Mutex::new(());

fn measuring() -> MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fixed amount of computation (not of time: a descheduled thread must
/// not finish its items for free when it gets the CPU back).
fn heavy(i: usize, rounds: u64) -> u64 {
    let mut x = i as u64 | 1;
    for _ in 0..rounds {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    std::hint::black_box(x)
}

/// The part of `n` items the first split gives each LLC of `pool`, whose
/// LLCs all have the same workers (every pool of this file): LLC `i` of
/// `L` gets `n / L` items, one more for the first `n % L`, in LLC order.
/// The crate's unit test `equal_llcs_get_equal_contiguous_parts` checks
/// that the split keeps this rule.
fn llc_parts(pool: &ThreadPool, n: usize) -> Vec<Range<usize>> {
    let llcs = pool.layout().llc_ranges().len();
    let (q, r) = (n / llcs, n % llcs);
    let mut start = 0;
    (0..llcs)
        .map(|i| {
            let end = start + q + usize::from(i < r);
            let part = start..end;
            start = end;
            part
        })
        .collect()
}

/// For each LLC's part of the first split of `ran.len()` items: how many
/// of its items ran in that LLC. `ran[i]` is the worker that ran item `i`.
fn in_own_llc(pool: &ThreadPool, ran: &[usize]) -> Vec<(usize, usize)> {
    let layout = pool.layout();
    llc_parts(pool, ran.len())
        .into_iter()
        .enumerate()
        .map(|(llc, part)| {
            let home = ran[part.clone()]
                .iter()
                .filter(|&&w| layout.workers()[w].llc == llc)
                .count();
            (home, part.len())
        })
        .collect()
}

/// Adds, per piece of the first split, how many of its items ran in its
/// LLC and how many it has, over `runs` runs of `item` on every index of
/// `0..n` on `pool`.
fn locality_per_piece(
    pool: &ThreadPool,
    n: usize,
    runs: usize,
    item: impl Fn(usize) + Sync,
) -> Vec<(usize, usize)> {
    let mut per_piece = vec![(0, 0); pool.layout().llc_ranges().len()];
    for _ in 0..runs {
        let ran: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(usize::MAX)).collect();
        pool.install(|| {
            (0..n).into_par_iter().for_each(|i| {
                item(i);
                ran[i].store(locus::current_thread_index().unwrap(), Ordering::Relaxed);
            })
        });
        let ran: Vec<usize> = ran.into_iter().map(AtomicUsize::into_inner).collect();
        for (acc, (home, all)) in per_piece.iter_mut().zip(in_own_llc(pool, &ran)) {
            acc.0 += home;
            acc.1 += all;
        }
    }
    per_piece
}

fn frac((home, all): (usize, usize)) -> f64 {
    home as f64 / all as f64
}

/// The share of all items of `per_piece` that ran in their piece's LLC.
fn overall(per_piece: &[(usize, usize)]) -> f64 {
    frac(per_piece.iter().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)))
}

/// Prints the share of each piece's items that ran in its LLC, then
/// asserts it is at least `min` for every piece.
fn assert_each_piece(what: &str, per_piece: &[(usize, usize)], min: f64) {
    let pieces: Vec<String> = per_piece
        .iter()
        .map(|&p| format!("{:.1}%", frac(p) * 100.0))
        .collect();
    eprintln!(
        "{what} in their piece's LLC, per piece: {pieces:?}, overall {:.1}%",
        overall(per_piece) * 100.0
    );
    for (i, &p) in per_piece.iter().enumerate() {
        assert!(
            frac(p) >= min,
            "{what}, piece {i}: only {:.1}% ran in its LLC ({pieces:?})",
            frac(p) * 100.0
        );
    }
}

/// Piece `i` of the first split runs in LLC `i`, per piece, for a
/// for_each whose items take time (3 ms each, as a blocking call, or a
/// long computation on a core of its own, would), over twelve runs: at
/// least 80% of the items of *each* piece, as the issue asks (the rest is
/// stealing at the tail, which stays allowed), and 85% of all items.
///
/// The items wait instead of computing because this pool is virtual: 8
/// workers on what is often 2 loaded cores. With CPU-bound items the OS,
/// not the pool, decides how far each LLC gets: it runs 2 of the 8
/// threads at a time and does not share the CPUs evenly among them over
/// a run, so an LLC whose threads got less CPU still has part of its
/// piece left when the others are done; then its 2 workers and the 6
/// thieves (tail stealing, which stays allowed) compete for the same 2
/// CPUs, and the thieves run about 3/4 of that rest (the CPU-bound test
/// below). Waiting items need no CPU, so this measures the placement.
///
/// What keeps them there is the rule "Before crossing the LLC" of the
/// runtime's steal pass (`src/runtime/pass.rs`): a worker that finds
/// nothing near looks at its own LLC's pack queue and its mates' private
/// halves before it takes from another LLC's piece. Without it, a worker
/// whose mate had not split its piece yet took half of another LLC's
/// piece at the start of a run, and that LLC ran dry early and did the
/// same: some runs had a piece below 80%. 80% per piece (85% overall) leaves
/// the OS's uneven sharing of 2 CPUs among 8 threads its room; with a
/// core per worker (the simulator) every item stays in its piece's LLC.
#[test]
fn items_of_each_piece_run_in_its_llc() {
    let _serial = measuring();
    within_deadline("items of a piece run in its llc", || {
        let pool = virtual_pool("llc:4 core:2");
        let per_piece = locality_per_piece(&pool, 512, 12, |_| {
            std::thread::sleep(Duration::from_millis(3))
        });
        assert_eq!(per_piece.len(), 4, "one piece per LLC");
        assert_each_piece("waiting items", &per_piece, 0.8);
        let overall = overall(&per_piece);
        assert!(
            overall >= 0.85,
            "only {:.1}% of the waiting items ran in their piece's LLC",
            overall * 100.0
        );
    });
}

/// The same with CPU-bound items: at least half of all items run in their
/// piece's LLC (twice what a split blind to the LLCs gives), and each
/// piece more than a third.
///
/// Why not 80% per piece here (see the test above): on a loaded 2-core
/// machine the 8 workers share 2 CPUs, and the OS does not give them
/// equal shares over short windows; an LLC whose threads wait for a CPU
/// while the others run has the rest of its piece stolen once the others
/// are done. Heavy items (several OS time slices per piece) and four runs
/// average that out for the total, but how much CPU each thread gets
/// depends on everything else the machine runs, so the total is held to
/// half (twice a blind split's quarter), not to the 80% a machine with a
/// core per worker gives, and each piece to a third: a single piece can
/// lose most of one run's items to the OS. On a machine with a core per
/// worker both should be near 100%. The placement itself is what
/// the waiting-items test checks (80% per piece).
#[test]
fn cpu_bound_items_run_in_their_llc_overall() {
    let _serial = measuring();
    within_deadline("cpu-bound items run in their llc overall", || {
        let pool = virtual_pool("llc:4 core:2");
        let per_piece = locality_per_piece(&pool, 512, 4, |i| {
            heavy(i, 60_000);
        });
        let overall = overall(&per_piece);
        eprintln!(
            "CPU-bound items in their piece's LLC: {:.1}% overall",
            overall * 100.0
        );
        assert!(
            overall >= 0.5,
            "only {:.1}% of the items ran in their piece's LLC",
            overall * 100.0
        );
        assert_each_piece("CPU-bound items", &per_piece, 1.0 / 3.0);
    });
}

/// With replay, from the second run on at least 80% of the pieces start in
/// the same LLC as in the previous run (`Replay::stats`).
///
/// A piece goes back to its worker, else to that worker's LLC; another
/// LLC takes it only under the pack rule (that LLC overloaded, or
/// saturated while the helper is idle). On 2 shared cores that happens
/// when a piece's worker waits for a CPU longer than another worker needs
/// to finish its own piece. Pieces of several OS time slices each make
/// that rare enough for 80% (lighter pieces let the OS's scheduling decide
/// more often); on a machine with a core per worker it should be 100%.
#[test]
fn replay_keeps_pieces_in_their_llc() {
    let _serial = measuring();
    within_deadline("replay keeps pieces in their llc", || {
        let pool = virtual_pool("llc:4 core:2");
        let replay = Replay::new();
        let mut v = vec![0u64; 128];
        let mut same = (0, 0, 0);
        for run in 0..5 {
            pool.install(|| {
                v.par_iter_mut()
                    .with_replay(&replay)
                    .enumerate()
                    .for_each(|(i, x)| *x += heavy(i, 100_000) % 2 + 1)
            });
            let s = replay.stats();
            assert_eq!(s.pieces, 8, "one piece per worker");
            assert!(s.same_worker <= s.same_llc && s.same_llc <= s.pieces);
            if run == 0 {
                assert_eq!(
                    (s.same_worker, s.same_llc),
                    (0, 0),
                    "nothing to compare the first run with"
                );
            } else {
                same.0 += s.same_worker;
                same.1 += s.same_llc;
                same.2 += s.pieces;
            }
        }
        let expect: Vec<u64> = (0..128)
            .map(|i| (0..5).map(|_| heavy(i, 100_000) % 2 + 1).sum())
            .collect();
        assert_eq!(v, expect);
        let frac = same.1 as f64 / same.2 as f64;
        eprintln!(
            "replay: {:.1}% of the pieces in the same LLC, {:.1}% on the same worker",
            frac * 100.0,
            same.0 as f64 / same.2 as f64 * 100.0
        );
        assert!(
            frac >= 0.8,
            "only {:.1}% of the pieces stayed in their LLC",
            frac * 100.0
        );
    });
}

/// Another length records afresh; a too-short run is not split and keeps
/// the record.
#[test]
fn replay_records_per_length() {
    let _serial = measuring();
    let pool = virtual_pool("llc:2 core:2");
    let replay = Replay::new();
    let run = |n: usize| {
        pool.install(|| {
            (0..n)
                .into_par_iter()
                .with_replay(&replay)
                .map(|x| x as u64)
                .sum::<u64>()
        })
    };
    assert_eq!(run(1000), 499_500);
    assert_eq!(run(1000), 499_500);
    assert_eq!(replay.stats().pieces, 4);
    assert_eq!(run(2000), 1_999_000);
    assert_eq!(
        replay.stats().same_llc,
        0,
        "a new length has nothing to compare with"
    );
    assert_eq!(run(1), 0);
    assert_eq!(replay.stats().pieces, 0, "one item is not split");
    assert_eq!(run(2000), 1_999_000);
    assert_eq!(replay.stats().pieces, 4);
    // Outside the pool: the global pool runs it, results unchanged.
    let r2 = Replay::new();
    let s: usize = (0..5000usize).into_par_iter().with_replay(&r2).sum();
    assert_eq!(s, 12_497_500);
}

/// On one LLC a replay places nothing: the iterator runs the adaptive
/// tree (0 pieces in the stats, the record untouched) with the same
/// results, and a pool of several LLCs still cuts per worker.
#[test]
fn replay_on_one_llc_is_not_split() {
    let _serial = measuring();
    let one = virtual_pool("llc:1 core:4");
    let replay = Replay::new();
    let mut v = vec![1u64; 10_000];
    for _ in 0..3 {
        one.install(|| v.par_iter_mut().with_replay(&replay).for_each(|x| *x *= 2));
        assert_eq!(replay.stats().pieces, 0, "one LLC: not split");
    }
    assert!(v.iter().all(|&x| x == 8));
    assert!(
        format!("{replay:?}").contains("recorded_len: None"),
        "nothing recorded: {replay:?}"
    );
    let two = virtual_pool("llc:2 core:2");
    two.install(|| v.par_iter_mut().with_replay(&replay).for_each(|x| *x += 1));
    assert_eq!(replay.stats().pieces, 4, "two LLCs: one piece per worker");
    assert!(v.iter().all(|&x| x == 9));
}

/// The reduction tree is the hierarchy: combining results from two LLCs'
/// pieces happens only in the top tree over the LLCs, `LLCs - 1` times,
/// whatever ran where; inside, each LLC's results are combined first.
#[test]
fn reduction_combines_inside_an_llc_first() {
    let _serial = measuring();
    within_deadline("reduction combines inside an llc first", || {
        for spec in ["llc:4 core:2", "llc:4 cluster:2 core:2", "llc:3 core:2"] {
            let pool = virtual_pool(spec);
            let llcs = pool.layout().llc_ranges().len();
            const N: usize = 10_000;
            // The first item of each LLC's part.
            let llc_starts: Vec<usize> = llc_parts(&pool, N).iter().map(|p| p.start).collect();
            let llc_of_item = |i: usize| llc_starts.iter().rposition(|&s| s <= i).unwrap();
            let crossings = AtomicUsize::new(0);
            let (lo, hi) = pool.install(|| {
                (0..N).into_par_iter().map(|i| (i, i)).reduce(
                    || (usize::MAX, 0),
                    |a, b| {
                        if a.0 == usize::MAX {
                            return b;
                        }
                        if b.0 == usize::MAX {
                            return a;
                        }
                        assert_eq!(a.1 + 1, b.0, "left before right, contiguous");
                        if llc_of_item(a.0) != llc_of_item(b.1) {
                            crossings.fetch_add(1, Ordering::Relaxed);
                        }
                        (a.0, b.1)
                    },
                )
            });
            assert_eq!((lo, hi), (0, N - 1));
            assert_eq!(
                crossings.into_inner(),
                llcs - 1,
                "{spec}: cross-LLC combines"
            );
        }
    });
}

/// Pool stats count the pieces like other jobs: each LLC's workers ran
/// jobs, and the pieces were taken from the LLC queues.
#[test]
fn stats_show_the_split() {
    let _serial = measuring();
    within_deadline("stats show the split", || {
        let pool = virtual_pool("llc:4 core:2");
        let before = pool.stats();
        pool.install(|| {
            (0..256usize).into_par_iter().for_each(|i| {
                heavy(i, 5_000);
            })
        });
        // A worker publishes its job count when it next searches: after a
        // broadcast every worker has searched since the iterator's jobs.
        pool.broadcast(|_| ());
        let after = pool.stats();
        let layout = pool.layout();
        for (l, r) in layout.llc_ranges().iter().enumerate() {
            let jobs: u64 = r
                .clone()
                .map(|w| after.workers[w].jobs_run - before.workers[w].jobs_run)
                .sum();
            assert!(jobs >= 1, "LLC {l} ran no job of the iterator");
        }
        let pulls = after.total().injector_pulls - before.total().injector_pulls;
        // The install job, and one piece per other LLC.
        assert!(pulls >= 4, "{pulls} queue pulls");
    });
}

/// A pool with one LLC takes the adaptive path only: no piece is queued,
/// so the only queue pull is the `install` job's.
#[test]
fn one_llc_pool_has_no_first_split() {
    let _serial = measuring();
    within_deadline("one llc pool has no first split", || {
        let pool = virtual_pool("core:8");
        for _ in 0..5 {
            let before = pool.stats().total().injector_pulls;
            let s: u64 = pool.install(|| (0..100_000u64).into_par_iter().map(|x| x * 3).sum());
            assert_eq!(s, 3 * 4_999_950_000);
            let after = pool.stats().total().injector_pulls;
            assert_eq!(after - before, 1, "only the install job came from a queue");
        }
    });
}

/// Results on multi-LLC pools (first split on) equal the sequential ones,
/// for the consumers whose result depends on order and splitting.
#[test]
fn results_on_multi_llc_pools() {
    let _serial = measuring();
    within_deadline("results on multi llc pools", || {
        for spec in [
            "llc:4 core:2",
            "llc:2 cluster:2 core:2 big:1",
            "numa:2 llc:2 core:2",
        ] {
            let pool = virtual_pool(spec);
            for &n in iter_util::LENS.iter().chain(&[100_003]) {
                let v = iter_util::data(n, n as u64);
                pool.install(|| check_consumers(&v));
            }
        }
    });
}

fn check_consumers(v: &[u64]) {
    let n = v.len();
    let c: Vec<u64> = v.par_iter().map(|x| x * 2).collect();
    assert_eq!(c, v.iter().map(|x| x * 2).collect::<Vec<_>>());
    assert_eq!(v.par_iter().sum::<u64>(), v.iter().sum());
    let s: String = v
        .par_iter()
        .map(|x| char::from(b'a' + (x % 26) as u8))
        .collect();
    assert_eq!(
        s,
        v.iter()
            .map(|x| char::from(b'a' + (x % 26) as u8))
            .collect::<String>()
    );
    let cat = v.par_iter().map(|&x| vec![x]).reduce(Vec::new, |mut a, b| {
        a.extend(b);
        a
    });
    assert_eq!(cat, v);
    let folded: Vec<u64> = v
        .par_iter()
        .fold(Vec::new, |mut a, &x| {
            a.push(x);
            a
        })
        .reduce(Vec::new, |mut a, b| {
            a.extend(b);
            a
        });
    assert_eq!(folded, v);
    assert_eq!(
        v.par_iter().position_first(|&x| x == 999),
        v.iter().position(|&x| x == 999)
    );
    assert_eq!(
        v.par_iter().position_last(|&x| x == 0),
        v.iter().rposition(|&x| x == 0)
    );
    assert_eq!(
        v.par_iter().find_first(|&&x| x > 990),
        v.iter().find(|&&x| x > 990)
    );
    assert_eq!(v.par_iter().any(|&x| x == 500), v.contains(&500));
    let z: Vec<(usize, u64)> = v
        .par_iter()
        .rev()
        .enumerate()
        .zip(v.par_iter())
        .map(|((i, a), b)| (i, a + b))
        .collect();
    let zs: Vec<(usize, u64)> = v
        .iter()
        .rev()
        .enumerate()
        .zip(v.iter())
        .map(|((i, a), b)| (i, a + b))
        .collect();
    assert_eq!(z, zs);
    let m: Vec<u64> = v
        .par_iter()
        .copied()
        .with_min_len(1000)
        .skip(n / 3)
        .take(n / 2)
        .collect();
    assert_eq!(
        m,
        v.iter()
            .copied()
            .skip(n / 3)
            .take(n / 2)
            .collect::<Vec<_>>()
    );
    let mut w = v.to_vec();
    w.par_chunks_mut(7)
        .enumerate()
        .for_each(|(i, c)| c.iter_mut().for_each(|x| *x += i as u64));
    let ws: Vec<u64> = v
        .iter()
        .enumerate()
        .map(|(i, x)| x + (i / 7) as u64)
        .collect();
    assert_eq!(w, ws);
    // Nested: the inner iterators split adaptively, results unchanged.
    let nested: u64 = (0..64u64)
        .into_par_iter()
        .map(|i| v.par_iter().map(|x| x ^ i).sum::<u64>())
        .sum();
    assert_eq!(
        nested,
        (0..64u64)
            .map(|i| v.iter().map(|x| x ^ i).sum::<u64>())
            .sum()
    );
    // Replayed, the same.
    let r = Replay::new();
    for _ in 0..2 {
        let c: Vec<u64> = v.par_iter().with_replay(&r).map(|x| x + 1).collect();
        assert_eq!(c, v.iter().map(|x| x + 1).collect::<Vec<_>>());
    }
}

/// A panic in one piece reaches the caller after every piece finished,
/// and a `collect` drops what it wrote exactly once.
#[test]
fn panic_in_a_piece_drops_each_item_once() {
    let _serial = measuring();
    within_deadline("panic in a piece drops each item once", || {
        static LIVE: AtomicUsize = AtomicUsize::new(0);
        struct Counted;
        impl Drop for Counted {
            fn drop(&mut self) {
                LIVE.fetch_sub(1, Ordering::SeqCst);
            }
        }
        let pool = virtual_pool("llc:4 core:2");
        for bad in [0usize, 999, 5000, 9999] {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    (0..10_000usize)
                        .into_par_iter()
                        .map(|i| {
                            if i == bad {
                                panic!("item {i}");
                            }
                            LIVE.fetch_add(1, Ordering::SeqCst);
                            Counted
                        })
                        .collect::<Vec<_>>()
                })
            }));
            assert!(r.is_err());
            assert_eq!(
                LIVE.load(Ordering::SeqCst),
                0,
                "every item dropped once (bad = {bad})"
            );
        }
    });
}
