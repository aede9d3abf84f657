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
//! - [`extract`]: the unstable sort's pass for nearly sorted pieces.
//!
//! Most runs are on a 4-worker virtual pool, so that halves are stolen and
//! run on other threads even on a 2-core machine.

mod against_std;
mod any_order;
mod extract;
mod panics;
mod parts;

use std::sync::OnceLock;

use crate::{ThreadPool, ThreadPoolBuilder, Topology};

pub(super) fn pool() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        ThreadPoolBuilder::new()
            .topology(Topology::synthetic("llc:2 core:2").unwrap())
            .build()
            .unwrap()
    })
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
