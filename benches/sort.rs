//! Parallel sorts against rayon's, measured in the same run.
//!
//! - `par_sort/u32` and `par_sort_unstable/u32`: 1M pseudo-random `u32`.
//! - `par_sort_by_key/u64` and `par_sort_unstable_by_key/u64`: 1M
//!   pseudo-random `u64` sorted by their top 16 bits (about 16 equal keys
//!   each).
//!
//! Both sides call `par_sort` and friends on their `ParallelSliceMut`.
//!
//! Run: `cargo bench --bench sort`. Both pools have as many threads as this
//! machine has CPUs.

mod common;

use common::random_u64;
use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use rayon::slice::ParallelSliceMut;

const LEN: usize = 1 << 20;

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
        b.iter_batched_ref(
            || input.to_vec(),
            |v| locus_pool.install(|| locus_sort(v)),
            BatchSize::LargeInput,
        )
    });
    g.bench_function(BenchmarkId::new("rayon", param), |b| {
        b.iter_batched_ref(
            || input.to_vec(),
            |v| rayon_pool.install(|| rayon_sort(v)),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn bench_sorts(c: &mut Criterion) {
    let words = random_u64(LEN);
    let u32s: Vec<u32> = words.iter().map(|&x| x as u32).collect();
    let mut sorted_u32 = u32s.clone();
    sorted_u32.sort();
    let mut by_key = words.clone();
    by_key.sort_by_key(key);

    let keep: fn(&mut [u32]) = |_| {};
    group(
        c,
        "par_sort",
        "u32/1M",
        &u32s,
        &sorted_u32,
        keep,
        locus::slice::ParallelSliceMut::par_sort,
        |v| v.par_sort(),
    );
    group(
        c,
        "par_sort_unstable",
        "u32/1M",
        &u32s,
        &sorted_u32,
        keep,
        locus::slice::ParallelSliceMut::par_sort_unstable,
        |v| v.par_sort_unstable(),
    );
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

criterion_group!(benches, bench_sorts);
criterion_main!(benches);
