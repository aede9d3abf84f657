//! The parallel sorts against `std`'s, on random inputs and patterns, with
//! panicking comparators and key functions (drop-counted elements), and
//! zero-sized types. Most runs are on a 4-worker virtual pool, so that
//! halves are stolen and run on other threads even on a 2-core machine.

use std::cmp::Ordering;
use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};

use super::*;
use crate::{ThreadPool, ThreadPoolBuilder, Topology};

fn pool() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        ThreadPoolBuilder::new()
            .topology(Topology::synthetic("llc:2 core:2").unwrap())
            .build()
            .unwrap()
    })
}

/// xorshift64*: small, deterministic.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
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

const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 7, 13, 31, 127, 1021, 2048, 2049, 4096, 4099, 8191, 10_007, 65_537, 100_000,
];

/// Key ranges: many duplicates, some, (almost) none.
fn key_ranges(len: usize) -> [u64; 3] {
    [4, len as u64 / 4 + 1, u64::MAX]
}

/// `(key, original index)` pairs: the stable order by key is unique.
fn pairs(rng: &mut Rng, len: usize, range: u64) -> Vec<(u64, u32)> {
    (0..len).map(|i| (rng.below(range), i as u32)).collect()
}

fn patterns(len: usize, rng: &mut Rng) -> Vec<(&'static str, Vec<u64>)> {
    let n = len as u64;
    let mut nearly: Vec<u64> = (0..n).collect();
    for _ in 0..(len / 100).max(1) {
        if len > 0 {
            let (i, j) = (rng.below(n) as usize, rng.below(n) as usize);
            nearly.swap(i, j);
        }
    }
    vec![
        ("all equal", vec![7; len]),
        ("sorted", (0..n).collect()),
        ("reversed", (0..n).rev().collect()),
        ("sawtooth", (0..n).map(|i| i % 1000).collect()),
        ("organ pipe", (0..n).map(|i| i.min(n - i)).collect()),
        ("few values", (0..n).map(|_| rng.below(8)).collect()),
        ("nearly sorted", nearly),
        (
            "sorted then small",
            (0..n).map(|i| if i + 1 == n { 0 } else { i + 1 }).collect(),
        ),
    ]
}

fn with_index(v: &[u64]) -> Vec<(u64, u32)> {
    v.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect()
}

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

/// An element that records its drops in `drops[id]`.
struct Tracked {
    key: u32,
    id: u32,
    drops: &'static [AtomicU32],
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops[self.id as usize].fetch_add(1, Relaxed);
    }
}

/// A key whose comparisons are counted (panicking at call `target` or,
/// if `after`, at every call from it) and whose drops are counted.
struct Key {
    k: u32,
    probe: &'static Probe,
}

/// Shared counters of one panic test.
struct Probe {
    calls: AtomicUsize,
    target: usize,
    after: bool,
    keys_made: AtomicUsize,
    keys_dropped: AtomicUsize,
}

impl Probe {
    fn new(target: usize, after: bool) -> &'static Probe {
        Box::leak(Box::new(Probe {
            calls: AtomicUsize::new(0),
            target,
            after,
            keys_made: AtomicUsize::new(0),
            keys_dropped: AtomicUsize::new(0),
        }))
    }

    /// Counts a call; panics if it is the target (or after it, if `after`).
    fn call(&self) {
        let c = self.calls.fetch_add(1, Relaxed);
        if c == self.target || (self.after && c > self.target) {
            panic!("test panic at call {c}");
        }
    }

    fn key(&'static self, k: u32) -> Key {
        self.call();
        self.keys_made.fetch_add(1, Relaxed);
        Key { k, probe: self }
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        self.probe.keys_dropped.fetch_add(1, Relaxed);
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.probe.call();
        self.k.cmp(&other.k)
    }
}

#[derive(Clone, Copy, Debug)]
enum Variant {
    Stable,
    StableKey,
    /// The key function panics.
    CachedKeyFn,
    /// The keys' comparison panics.
    CachedKeyCmp,
    Unstable,
    UnstableKey,
}

const VARIANTS: [Variant; 6] = [
    Variant::Stable,
    Variant::StableKey,
    Variant::CachedKeyFn,
    Variant::CachedKeyCmp,
    Variant::Unstable,
    Variant::UnstableKey,
];

fn sort_with_probe(v: &mut [Tracked], variant: Variant, probe: &'static Probe) {
    let cmp = |a: &Tracked, b: &Tracked| {
        probe.call();
        a.key.cmp(&b.key)
    };
    let key = |t: &Tracked| {
        probe.call();
        t.key
    };
    match variant {
        Variant::Stable => par_sort_by(v, cmp),
        Variant::StableKey => par_sort_by_key(v, key),
        Variant::CachedKeyFn => par_sort_by_cached_key(v, |t| probe.key(t.key)),
        Variant::CachedKeyCmp => par_sort_by_cached_key(v, |t| Key {
            k: t.key,
            probe: keyed(probe),
        }),
        Variant::Unstable => par_sort_unstable_by(v, cmp),
        Variant::UnstableKey => par_sort_unstable_by_key(v, key),
    }
}

/// For `CachedKeyCmp`: counts the key as made without counting a call.
fn keyed(probe: &'static Probe) -> &'static Probe {
    probe.keys_made.fetch_add(1, Relaxed);
    probe
}

/// Sorts `len` tracked elements with `variant`, the probe panicking at
/// call `target` (and after, if `after`). Checks that the panic reached the
/// caller iff it happened, that the slice is then a permutation of the
/// input with nothing dropped, and that every element and key is dropped
/// exactly once in the end. Returns the number of calls made.
fn run_probe(
    len: usize,
    keys: u32,
    variant: Variant,
    target: usize,
    after: bool,
    seed: u64,
) -> usize {
    let drops: &'static [AtomicU32] = Box::leak((0..len).map(|_| AtomicU32::new(0)).collect());
    let mut rng = Rng::new(seed);
    let mut v: Vec<Tracked> = (0..len as u32)
        .map(|id| Tracked {
            key: rng.below(u64::from(keys)) as u32,
            id,
            drops,
        })
        .collect();
    let probe = Probe::new(target, after);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool().install(|| sort_with_probe(&mut v, variant, probe))
    }));
    let calls = probe.calls.load(Relaxed);
    let ctx =
        format!("{variant:?}, len {len}, panic at call {target} (after: {after}), {calls} calls");
    match result {
        Ok(()) => {
            assert!(calls <= target, "{ctx}: the panic did not reach the caller");
            assert!(
                v.windows(2).all(|w| w[0].key <= w[1].key),
                "{ctx}: not sorted"
            );
        }
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .unwrap_or("");
            assert!(
                msg.starts_with("test panic at call"),
                "{ctx}: unexpected panic {msg:?}"
            );
        }
    }
    assert_eq!(v.len(), len, "{ctx}: length changed");
    let mut seen = vec![false; len];
    for t in &v {
        assert!(
            !seen[t.id as usize],
            "{ctx}: element {} is in the slice twice",
            t.id
        );
        seen[t.id as usize] = true;
    }
    assert!(
        drops.iter().all(|d| d.load(Relaxed) == 0),
        "{ctx}: an element was dropped during the sort"
    );
    drop(v);
    for (id, d) in drops.iter().enumerate() {
        assert_eq!(
            d.load(Relaxed),
            1,
            "{ctx}: element {id} dropped {} times",
            d.load(Relaxed)
        );
    }
    assert_eq!(
        probe.keys_made.load(Relaxed),
        probe.keys_dropped.load(Relaxed),
        "{ctx}: keys made and keys dropped differ"
    );
    calls
}

#[test]
fn panics_keep_every_element_once() {
    let mut rng = Rng::new(8);
    for (len, keys) in [(3, 2), (100, 10), (5000, 100), (40_000, 40_000)] {
        for variant in VARIANTS {
            // Dry run: how many calls the sort makes (the count does not
            // depend on scheduling).
            let total = run_probe(len, keys, variant, usize::MAX, false, len as u64);
            assert!(total > 0 || len < 2);
            let mut targets = vec![0, total.saturating_sub(1)];
            targets.extend((0..6).map(|_| rng.below(total.max(1) as u64) as usize));
            for (i, &target) in targets.iter().enumerate() {
                run_probe(len, keys, variant, target, i % 2 == 1, len as u64);
            }
        }
    }
}

#[test]
fn inconsistent_comparator_keeps_every_element_once() {
    // A comparator that answers at random: the sorts may panic (std's
    // detect some violations) or finish in any order, but never lose or
    // duplicate an element.
    for len in [50, 5000, 30_000] {
        for unstable in [false, true] {
            let drops: &'static [AtomicU32] =
                Box::leak((0..len).map(|_| AtomicU32::new(0)).collect());
            let mut v: Vec<Tracked> = (0..len as u32)
                .map(|id| Tracked { key: id, id, drops })
                .collect();
            let state = AtomicUsize::new(len);
            let cmp = |_: &Tracked, _: &Tracked| {
                let x = state
                    .fetch_add(0x9E37_79B9, Relaxed)
                    .wrapping_mul(0x2545_F491);
                [Ordering::Less, Ordering::Equal, Ordering::Greater][(x >> 7) % 3]
            };
            let _ = panic::catch_unwind(AssertUnwindSafe(|| {
                pool().install(|| {
                    if unstable {
                        par_sort_unstable_by(&mut v, cmp)
                    } else {
                        par_sort_by(&mut v, cmp)
                    }
                })
            }));
            let mut seen = vec![false; len];
            for t in &v {
                assert!(
                    !seen[t.id as usize],
                    "element {} is in the slice twice",
                    t.id
                );
                seen[t.id as usize] = true;
            }
            assert_eq!(v.len(), len);
            drop(v);
            assert!(
                drops.iter().all(|d| d.load(Relaxed) == 1),
                "an element was not dropped exactly once"
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
    let len = 10_000;
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

