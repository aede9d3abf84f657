//! Every entry point against `std`'s sorts.

use super::*;
use crate::slice::sort::*;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// A sort of `(key, index)` pairs, as the tests call it.
type PairSort = dyn Fn(&mut Vec<(u64, u32)>) + Sync;

/// Every stable entry point on `input` (pairs sorted by `.0`), checked
/// against `std`'s stable sort.
fn check_stable(input: &[(u64, u32)], what: &str) {
    let mut expected = input.to_vec();
    expected.sort_by_key(|p| p.0);
    let run = |sort: &PairSort, name: &str| {
        let mut v = input.to_vec();
        pool().install(|| sort(&mut v));
        assert!(
            v == expected,
            "{name} on {what} (len {}) differs from std's stable sort",
            input.len()
        );
    };
    run(&|v| par_sort_by(v, |a, b| a.0.cmp(&b.0)), "par_sort_by");
    run(&|v| par_sort_by_key(v, |p| p.0), "par_sort_by_key");
    run(
        &|v| par_sort_by_cached_key(v, |p| p.0),
        "par_sort_by_cached_key",
    );
    // Whole pairs are distinct: `par_sort` must give the same order.
    run(&|v| par_sort(v), "par_sort");
}

/// Every unstable entry point on `input`, checked against `std`.
fn check_unstable(input: &[u64], what: &str) {
    let mut expected = input.to_vec();
    expected.sort_unstable();
    let len = input.len();
    let mut v = input.to_vec();
    pool().install(|| par_sort_unstable(&mut v));
    assert!(
        v == expected,
        "par_sort_unstable on {what} (len {len}) differs from std"
    );

    let mut v = input.to_vec();
    pool().install(|| par_sort_unstable_by(&mut v, |a, b| b.cmp(a)));
    expected.reverse();
    assert!(
        v == expected,
        "par_sort_unstable_by (descending) on {what} (len {len}) differs from std"
    );

    // By key on pairs: sorted by key, and a permutation of the input.
    let mut v = with_index(input);
    pool().install(|| par_sort_unstable_by_key(&mut v, |p| p.0));
    assert!(
        v.windows(2).all(|w| w[0].0 <= w[1].0),
        "par_sort_unstable_by_key on {what} (len {len}): not sorted"
    );
    v.sort_unstable();
    let mut all = with_index(input);
    all.sort_unstable();
    assert!(
        v == all,
        "par_sort_unstable_by_key on {what} (len {len}): not a permutation of the input"
    );
}

#[test]
fn stable_random_against_std() {
    let mut rng = Rng::new(1);
    for &len in LENGTHS {
        for range in key_ranges(len) {
            check_stable(
                &pairs(&mut rng, len, range),
                &format!("random keys below {range}"),
            );
        }
    }
}

#[test]
fn unstable_random_against_std() {
    let mut rng = Rng::new(2);
    for &len in LENGTHS {
        for range in key_ranges(len) {
            let v: Vec<u64> = (0..len).map(|_| rng.below(range)).collect();
            check_unstable(&v, &format!("random values below {range}"));
        }
    }
}

#[test]
fn patterns_against_std() {
    let mut rng = Rng::new(3);
    for len in [2, 100, 4097, 50_000] {
        for (name, v) in patterns(len, &mut rng) {
            check_stable(&with_index(&v), name);
            check_unstable(&v, name);
        }
    }
}

#[test]
fn short_ascending_runs() {
    // `sawtooth_short` of `benches/sort.rs` and its neighbours: ascending
    // runs of `run` (many copies of each value), whose pivot samples often
    // look sorted, or sit on run boundaries when `run` divides `len / 4`
    // (the spread sample's pieces). Every unstable entry point: sorted and a
    // permutation.
    for run in [10, 16, 30, 100, 128, 300, 1000] {
        for len in [4097, 50_000, 65_536] {
            let v: Vec<u64> = (0..len).map(|i| i % run).collect();
            check_unstable(&v, &format!("ascending runs of {run}"));
        }
    }
}

#[test]
fn short_runs_split_evenly() {
    // Ascending runs of 100 in 50,000 elements: the pivots of the root and
    // of the other pieces split across workers are checked against a
    // spread sample, and the samples at run boundaries (which split off one
    // value's copies at a time) replaced: 480,457 calls before, 405,123 now.
    let v: Vec<u64> = (0..50_000).map(|i| i % 100).collect();
    let calls = std::sync::atomic::AtomicU64::new(0);
    let mut w = v.clone();
    pool().install(|| {
        par_sort_unstable_by(&mut w, |a, b| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            a.cmp(b)
        })
    });
    assert!(w.windows(2).all(|p| p[0] <= p[1]), "not sorted");
    let calls = calls.into_inner();
    assert!(calls < 420_000, "{calls} calls");
}

#[test]
fn one_million() {
    let mut rng = Rng::new(4);
    let input: Vec<u32> = (0..1_000_000).map(|_| rng.next() as u32).collect();
    let mut expected = input.clone();
    expected.sort_unstable();
    let mut v = input.clone();
    pool().install(|| par_sort(&mut v));
    assert!(v == expected, "par_sort of 1M differs from std");
    let mut v = input.clone();
    pool().install(|| par_sort_unstable(&mut v));
    assert!(v == expected, "par_sort_unstable of 1M differs from std");
    // Stability at that size, many equal keys.
    let p: Vec<(u64, u32)> = input
        .iter()
        .enumerate()
        .map(|(i, &x)| (u64::from(x % 1000), i as u32))
        .collect();
    let mut expected = p.clone();
    expected.sort_by_key(|p| p.0);
    let mut v = p;
    pool().install(|| par_sort_by_key(&mut v, |p| p.0));
    assert!(
        v == expected,
        "par_sort_by_key of 1M differs from std's stable sort"
    );
}

#[test]
fn global_pool_and_non_copy_elements() {
    // Outside any pool (the global one) and with heap-owning elements.
    let mut rng = Rng::new(5);
    let input: Vec<String> = (0..30_000)
        .map(|_| format!("{:x}", rng.below(5000)))
        .collect();
    let mut expected = input.clone();
    expected.sort();
    let mut v = input.clone();
    par_sort(&mut v);
    assert!(v == expected, "par_sort of strings differs from std");
    let mut v = input.clone();
    par_sort_unstable(&mut v);
    assert!(
        v == expected,
        "par_sort_unstable of strings differs from std"
    );
    let mut v = input.clone();
    par_sort_by_cached_key(&mut v, |s| s.len());
    let mut expected = input;
    expected.sort_by_key(|s| s.len());
    assert!(
        v == expected,
        "par_sort_by_cached_key of strings differs from std"
    );
}

#[test]
fn cached_key_index_widths() {
    // Keys of 1, 2, 4 and 8 bytes select u8, u16, u32 and usize indices.
    let mut rng = Rng::new(6);
    fn check<K: Ord + Send + Copy>(input: &[(u64, u32)], key: impl Fn(&(u64, u32)) -> K + Sync) {
        let mut expected = input.to_vec();
        expected.sort_by_key(&key);
        let mut v = input.to_vec();
        pool().install(|| par_sort_by_cached_key(&mut v, &key));
        assert!(
            v == expected,
            "par_sort_by_cached_key (key of {} bytes) differs from std",
            size_of::<K>()
        );
    }
    for len in [200, 255, 256, 60_000, 70_000] {
        let input = pairs(&mut rng, len, u64::MAX);
        check(&input, |p| p.0 as u8);
        check(&input, |p| p.0 as u16);
        check(&input, |p| p.0 as u32);
        check(&input, |p| p.0);
    }
}

#[test]
fn heapsort_fallback_sorts() {
    // A piece with no budget left is heapsorted.
    let mut rng = Rng::new(7);
    for len in [5000, 50_000] {
        let mut inputs = patterns(len, &mut rng);
        inputs.push(("random", (0..len).map(|_| rng.next()).collect()));
        for (name, input) in inputs {
            let mut expected = input.clone();
            expected.sort_unstable();
            let mut v = input;
            let mut budget = quick::Budget::new(len);
            budget.limit = 0;
            let is_less = |a: &u64, b: &u64| a < b;
            pool().install(|| quick::sort_piece(&mut v, &is_less, None, budget));
            assert!(
                v == expected,
                "heapsort fallback on {name} (len {len}) differs from std"
            );
        }
    }
}

#[test]
fn zero_sized_types() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    static KEYS: AtomicUsize = AtomicUsize::new(0);
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    struct Zst;
    impl Drop for Zst {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Relaxed);
        }
    }
    let len = or_miri(10_000, 600);
    let sorts: [fn(&mut [Zst]); 7] = [
        |v| par_sort(v),
        |v| par_sort_by(v, |a, b| a.cmp(b)),
        |v| par_sort_by_key(v, |_| 0u8),
        |v| {
            par_sort_by_cached_key(v, |_| {
                KEYS.fetch_add(1, Relaxed);
                1u32
            })
        },
        |v| par_sort_unstable(v),
        |v| par_sort_unstable_by(v, |a, b| a.cmp(b)),
        |v| par_sort_unstable_by_key(v, |_| 0u8),
    ];
    for sort in sorts {
        let mut v: Vec<Zst> = (0..len).map(|_| Zst).collect();
        pool().install(|| sort(&mut v));
        assert_eq!(v.len(), len);
    }
    assert_eq!(
        DROPS.load(Relaxed),
        7 * len,
        "every ZST element dropped once"
    );
    assert_eq!(
        KEYS.load(Relaxed),
        len,
        "the cached key is computed once per element"
    );
    let mut units = vec![(); 3];
    par_sort(&mut units);
    par_sort_unstable(&mut units);
    assert_eq!(units.len(), 3);
}

#[test]
fn large_elements_against_std() {
    // 136-byte elements: the block partition, insertion sorted small
    // pieces, stable leaves and merges that move big values.
    let mut rng = Rng::new(9);
    for len in [100, 5000, 40_000] {
        for range in [16, u64::MAX] {
            let input: Vec<([u64; 16], u64)> = (0..len)
                .map(|i| {
                    let k = rng.below(range);
                    ([k; 16], i as u64)
                })
                .collect();
            let mut expected = input.clone();
            expected.sort_by_key(|e| e.0);
            let mut v = input.clone();
            pool().install(|| par_sort_by_key(&mut v, |e| e.0));
            assert!(v == expected, "par_sort_by_key, large elements, len {len}");
            let mut v = input.clone();
            pool().install(|| par_sort_unstable_by(&mut v, |a, b| a.0.cmp(&b.0)));
            assert!(
                v.windows(2).all(|w| w[0].0 <= w[1].0),
                "par_sort_unstable_by, large elements, len {len}: not sorted"
            );
            v.sort_by_key(|e| e.1);
            assert!(
                v == input,
                "par_sort_unstable_by, large elements: not a permutation"
            );
        }
    }
}
