//! Tests of the parallel sorts, by theme:
//!
//! - [`against_std`]: every entry point against `std`'s sorts on random
//!   inputs, patterns, big elements, zero-sized types.
//! - [`panics`]: comparators and key functions that panic, with
//!   drop-counted elements: every element stays exactly once.
//! - [`any_order`]: comparators that are not total orders: no panic, every
//!   element exactly once, O(n log n) calls, and the comparator only ever
//!   sees live elements.
//! - [`parts`]: the sequential building blocks one by one.
//! - [`runs`]: the unstable sort's parallel check and reversal.
//! - [`extract`]: the unstable sort's pass for nearly sorted pieces.
//! - [`lt_order`]: the sorts by `T`'s order compare with `T::lt`, as rayon's.
//!
//! Most runs are on a 4-worker virtual pool, so that halves are stolen and
//! run on other threads even on a 2-core machine.

/// `PartialEq`, `Eq` and `PartialOrd` of test element types from their
/// `Ord` (so that every comparison goes through the test's counters).
macro_rules! order_from_cmp {
    ($($t:ty),*) => {$(
        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                self.cmp(other) == std::cmp::Ordering::Equal
            }
        }
        impl Eq for $t {}
        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
    )*};
}

mod against_std;
mod any_order;
mod extract;
mod lt_order;
mod panics;
mod parts;
mod runs;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::ThreadPool;
use crate::slice::sort::*;

/// The sorts' entry points, as [`any_order`] and [`panics`] run them.
#[derive(Clone, Copy, Debug)]
pub(super) enum Entry {
    Sort,
    SortBy,
    SortByKey,
    SortByCachedKey,
    SortUnstable,
    SortUnstableBy,
    SortUnstableByKey,
}

pub(super) const ENTRIES: [Entry; 7] = [
    Entry::Sort,
    Entry::SortBy,
    Entry::SortByKey,
    Entry::SortByCachedKey,
    Entry::SortUnstable,
    Entry::SortUnstableBy,
    Entry::SortUnstableByKey,
];

/// A test element: its order and its key are the test's own (they count
/// calls, answer anything, panic on cue).
pub(super) trait Probed: Ord + Send {
    type Key: Ord + Send;
    fn key(&self) -> Self::Key;
}

impl Entry {
    /// Sorts `v` through this entry point, by `T`'s order or its key.
    pub(super) fn sort<T: Probed>(self, v: &mut [T]) {
        match self {
            Entry::Sort => par_sort(v),
            Entry::SortBy => par_sort_by(v, T::cmp),
            Entry::SortByKey => par_sort_by_key(v, T::key),
            Entry::SortByCachedKey => par_sort_by_cached_key(v, T::key),
            Entry::SortUnstable => par_sort_unstable(v),
            Entry::SortUnstableBy => par_sort_unstable_by(v, T::cmp),
            Entry::SortUnstableByKey => par_sort_unstable_by_key(v, T::key),
        }
    }

    /// Whether the comparator sees keys instead of elements.
    pub(super) fn by_key(self) -> bool {
        matches!(
            self,
            Entry::SortByKey | Entry::SortByCachedKey | Entry::SortUnstableByKey
        )
    }
}

pub(super) fn pool() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| crate::test_support::work::virtual_pool("llc:2 core:2"))
}

/// xorshift64*: small, deterministic.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `native` in an ordinary test run, `miri` under Miri, which interprets
/// the tests some thousand times slower: there the sizes are cut to 100 to
/// a few hundred elements, above the sorts' parallel cut-offs, which are
/// smaller under Miri too (`docs/sanitizers.md`, "What runs").
pub(super) const fn or_miri<T: Copy>(native: T, miri: T) -> T {
    if cfg!(miri) { miri } else { native }
}

pub(super) const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 7, 13, 31, 127, 1021, 2048, 2049, 4096, 4099, 8191, 10_007, 65_537, 100_000,
];

/// Key ranges: many duplicates, some, (almost) none.
pub(super) fn key_ranges(len: usize) -> [u64; 3] {
    [4, len as u64 / 4 + 1, u64::MAX]
}

/// `(key, original index)` pairs: the stable order by key is unique.
pub(super) fn pairs(rng: &mut Rng, len: usize, range: u64) -> Vec<(u64, u32)> {
    (0..len).map(|i| (rng.below(range), i as u32)).collect()
}

pub(super) fn patterns(len: usize, rng: &mut Rng) -> Vec<(&'static str, Vec<u64>)> {
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
        ("short runs", (0..n).map(|i| i % 100).collect()),
        ("organ pipe", (0..n).map(|i| i.min(n - i)).collect()),
        ("few values", (0..n).map(|_| rng.below(8)).collect()),
        ("nearly sorted", nearly),
        (
            "sorted then small",
            (0..n).map(|i| if i + 1 == n { 0 } else { i + 1 }).collect(),
        ),
    ]
}

pub(super) fn with_index(v: &[u64]) -> Vec<(u64, u32)> {
    v.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect()
}

/// After a sort that returned or unwound: the slice, given by its
/// elements' `ids`, holds each of the `drops.len()` elements exactly once,
/// and none was dropped.
pub(super) fn assert_each_once(
    ids: impl ExactSizeIterator<Item = u32>,
    drops: &[AtomicU32],
    ctx: &str,
) {
    assert_eq!(ids.len(), drops.len(), "{ctx}: the length changed");
    let mut seen = vec![false; drops.len()];
    for id in ids {
        assert!(!seen[id as usize], "{ctx}: element {id} is there twice");
        seen[id as usize] = true;
    }
    assert!(
        drops.iter().all(|d| d.load(Relaxed) == 0),
        "{ctx}: an element was dropped during the sort"
    );
}

/// `v` is a permutation of `0..len` in its `.1` fields.
pub(super) fn assert_permutation(v: &[(u64, u32)], what: &str) {
    let mut ids: Vec<u32> = v.iter().map(|p| p.1).collect();
    ids.sort_unstable();
    assert!(
        ids.iter().enumerate().all(|(i, &id)| id == i as u32),
        "{what}: not a permutation of the input"
    );
}
