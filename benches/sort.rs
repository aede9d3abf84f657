//! Parallel sorts against rayon's, measured in the same run.
//!
//! - `par_sort/u32` and `par_sort_unstable/u32`: 1M pseudo-random `u32`.
//! - `par_sort_by_key/u64` and `par_sort_unstable_by_key/u64`: 1M
//!   pseudo-random `u64` sorted by their top 16 bits (about 16 equal keys
//!   each).
//!
//! - `par_sort/<pattern>` and `par_sort_unstable/<pattern>`: 50k `u32` in
//!   the patterns where a sort can finish early or partitions go wrong:
//!   `sorted`, `reversed`, `mostly_sorted` (sorted, then about `sqrt(len)`
//!   random swaps), `sawtooth` (ascending runs of 1,000),
//!   `sawtooth_short` (ascending runs of 100: 500 copies of each value),
//!   `all_equal`, `few_distinct` (8 values at random).
//! - `par_sort/big` and `par_sort_unstable/big`: 50k random elements of
//!   128 bytes (`[u64; 16]`, compared as arrays), where moves cost more
//!   than comparisons.
//! - `sorted_8M`, `reversed_8M`: 8M `u32` (32 MiB) in one run, where the
//!   check and the reversal are split across the workers.
//!
//! Both sides call `par_sort` and friends on their `ParallelSliceMut`, on a
//! worker of their own pool: one `install` per batch of iterations, and
//! only the sorts are timed (not the copies of the input, nor waking the
//! pool, which would dominate a 15 us sort of sorted input).
//!
//! Run: `cargo bench --bench sort` (a filter such as `-- sorted` picks
//! groups). Both pools have as many threads as this machine has CPUs.

mod common;

use common::random_u64;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rayon::slice::ParallelSliceMut;
use std::hint::black_box;
use std::time::{Duration, Instant};

const LEN: usize = 1 << 20;

/// Length of the pattern and big-element inputs.
const PATTERN_LEN: usize = 50_000;

#[path = "common/pools.rs"]
mod pools;
use pools::pools;

fn key(x: &u64) -> u64 {
    x >> 48
}

/// One group: `locus_sort` and `rayon_sort` on copies of `input`. Both
/// results, passed through `normalize` (outside the measurement), are first
/// checked against `expected`.
#[allow(clippy::too_many_arguments)]
fn group<T: Clone + Ord + Send + Sync>(
    c: &mut Criterion,
    name: &str,
    param: &str,
    input: &[T],
    expected: &[T],
    normalize: fn(&mut [T]),
    locus_sort: fn(&mut [T]),
    rayon_sort: fn(&mut [T]),
) {
    let (locus_pool, rayon_pool) = pools();
    let mut v = input.to_vec();
    locus_pool.install(|| locus_sort(&mut v));
    normalize(&mut v);
    assert!(v == expected, "locus {name} differs from std");
    let mut v = input.to_vec();
    rayon_pool.install(|| rayon_sort(&mut v));
    normalize(&mut v);
    assert!(v == expected, "rayon {name} differs from std");

    let mut g = c.benchmark_group(name);
    g.sample_size(20);
    g.bench_function(BenchmarkId::new("locus", param), |b| {
        b.iter_custom(|iters| locus_pool.install(|| timed(iters, input, locus_sort)))
    });
    g.bench_function(BenchmarkId::new("rayon", param), |b| {
        b.iter_custom(|iters| rayon_pool.install(|| timed(iters, input, rayon_sort)))
    });
    g.finish();
}

/// Sorts `iters` fresh copies of `input` on the calling thread (a worker
/// of the pool being measured) and returns the time spent sorting, without
/// the copies.
fn timed<T: Clone>(iters: u64, input: &[T], sort: fn(&mut [T])) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let mut v = input.to_vec();
        let start = Instant::now();
        sort(&mut v);
        total += start.elapsed();
        black_box(&v);
    }
    total
}

/// `par_sort` and `par_sort_unstable` on `input` (checked against
/// `std`'s sort), each against rayon's.
fn sorts<T: Clone + Ord + Send + Sync>(c: &mut Criterion, param: &str, input: &[T]) {
    let mut expected = input.to_vec();
    expected.sort();
    let keep: fn(&mut [T]) = |_| {};
    group(
        c,
        "par_sort",
        param,
        input,
        &expected,
        keep,
        locus::slice::ParallelSliceMut::par_sort,
        |v| v.par_sort(),
    );
    group(
        c,
        "par_sort_unstable",
        param,
        input,
        &expected,
        keep,
        locus::slice::ParallelSliceMut::par_sort_unstable,
        |v| v.par_sort_unstable(),
    );
}

fn bench_sorts(c: &mut Criterion) {
    let words = random_u64(LEN);
    let u32s: Vec<u32> = words.iter().map(|&x| x as u32).collect();
    sorts(c, "u32/1M", &u32s);
    let mut by_key = words.clone();
    by_key.sort_by_key(key);
    group(
        c,
        "par_sort_by_key",
        "u64/1M",
        &words,
        &by_key,
        |_| {},
        |v| locus::slice::ParallelSliceMut::par_sort_by_key(v, key),
        |v| v.par_sort_by_key(key),
    );
    // Unstable: equal keys may come in any order; the check sorts them by
    // value first.
    let mut by_key_then_value = words.clone();
    by_key_then_value.sort_by_key(|x| (key(x), *x));
    group(
        c,
        "par_sort_unstable_by_key",
        "u64/1M",
        &words,
        &by_key_then_value,
        |v| v.sort_by_key(|x| (key(x), *x)),
        |v| locus::slice::ParallelSliceMut::par_sort_unstable_by_key(v, key),
        |v| v.par_sort_unstable_by_key(key),
    );
}

/// The pattern inputs, by name: 50k `u32` each.
fn patterns() -> Vec<(&'static str, Vec<u32>)> {
    let n = PATTERN_LEN as u32;
    let random = random_u64(PATTERN_LEN);
    let mut mostly: Vec<u32> = (0..n).collect();
    let swaps = (PATTERN_LEN as f64).sqrt() as usize;
    for w in random.chunks(2).take(swaps) {
        mostly.swap(w[0] as usize % PATTERN_LEN, w[1] as usize % PATTERN_LEN);
    }
    vec![
        ("sorted", (0..n).collect()),
        ("reversed", (0..n).rev().collect()),
        ("mostly_sorted", mostly),
        ("sawtooth", (0..n).map(|i| i % 1000).collect()),
        ("sawtooth_short", (0..n).map(|i| i % 100).collect()),
        ("all_equal", vec![7; PATTERN_LEN]),
        (
            "few_distinct",
            random.iter().map(|&x| (x >> 32) as u32 % 8).collect(),
        ),
    ]
}

fn bench_patterns(c: &mut Criterion) {
    for (name, input) in patterns() {
        sorts(c, name, &input);
    }
}

fn bench_big(c: &mut Criterion) {
    let words = random_u64(PATTERN_LEN * 16);
    let input: Vec<[u64; 16]> = words
        .chunks_exact(16)
        .map(|w| std::array::from_fn(|i| w[i]))
        .collect();
    sorts(c, "big", &input);
}

/// Length of the one-run inputs larger than a core's private cache.
const RUN_LEN: usize = 1 << 23;

/// Sorted and reversed input of 32 MiB, where the check and the reversal
/// are split across workers (below 2 MiB they are not: the piece is
/// likely in the caller's cache).
fn bench_long_runs(c: &mut Criterion) {
    let n = RUN_LEN as u32;
    sorts(c, "sorted_8M", &(0..n).collect::<Vec<u32>>());
    sorts(c, "reversed_8M", &(0..n).rev().collect::<Vec<u32>>());
}

criterion_group!(
    benches,
    bench_sorts,
    bench_patterns,
    bench_big,
    bench_long_runs
);
criterion_main!(benches);
