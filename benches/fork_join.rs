//! Fork-join against rayon (and chili for fine-grained join), measured in the
//! same run so the ratio is meaningful on a small or noisy machine.
//!
//! - `fib/30`: `join` at every level of fib(30), no cutoff: pure scheduling
//!   overhead (1.6M joins).
//! - `quicksort/1M`: sort 1M pseudo-random u32 with `join` and a cutoff of
//!   4096 elements below which the slice is sorted serially.
//!
//! Run: `cargo bench --bench fork_join`. Each group holds locus, rayon (and
//! chili), each with as many threads as this machine has CPUs.

mod common;

#[path = "common/fib.rs"]
mod fib;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use fib::{fib_chili, fib_locus, fib_rayon};
use std::hint::black_box;

#[path = "common/pools.rs"]
mod pools;
use pools::{pools, threads};

#[path = "common/quicksort.rs"]
mod quicksort;
use quicksort::{CUTOFF, partition, random_vec};

fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_serial(n - 1) + fib_serial(n - 2)
    }
}

fn bench_fib(c: &mut Criterion) {
    let n = 30;
    let expected = fib_serial(n);
    let (locus_pool, rayon_pool) = pools();
    let chili_pool = chili::ThreadPool::with_config(chili::Config {
        thread_count: std::num::NonZero::new(threads()),
        ..Default::default()
    });
    let mut g = c.benchmark_group("fib");
    g.sample_size(20);
    g.bench_with_input(BenchmarkId::new("locus", n), &n, |b, &n| {
        b.iter(|| assert_eq!(locus_pool.install(|| fib_locus(black_box(n))), expected))
    });
    g.bench_with_input(BenchmarkId::new("rayon", n), &n, |b, &n| {
        b.iter(|| assert_eq!(rayon_pool.install(|| fib_rayon(black_box(n))), expected))
    });
    g.bench_with_input(BenchmarkId::new("chili", n), &n, |b, &n| {
        b.iter(|| assert_eq!(fib_chili(&mut chili_pool.scope(), black_box(n)), expected))
    });
    g.finish();
}

fn qs_locus(v: &mut [u32]) {
    if v.len() <= CUTOFF {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    locus::join(|| qs_locus(lo), || qs_locus(&mut hi[1..]));
}

fn qs_rayon(v: &mut [u32]) {
    if v.len() <= CUTOFF {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    rayon::join(|| qs_rayon(lo), || qs_rayon(&mut hi[1..]));
}

fn bench_quicksort(c: &mut Criterion) {
    let input = random_vec(1 << 20);
    let (locus_pool, rayon_pool) = pools();
    let mut g = c.benchmark_group("quicksort");
    g.sample_size(20);
    g.bench_function(BenchmarkId::new("locus", "1M"), |b| {
        b.iter_batched_ref(
            || input.clone(),
            |v| locus_pool.install(|| qs_locus(v)),
            criterion::BatchSize::LargeInput,
        )
    });
    g.bench_function(BenchmarkId::new("rayon", "1M"), |b| {
        b.iter_batched_ref(
            || input.clone(),
            |v| rayon_pool.install(|| qs_rayon(v)),
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench_fib, bench_quicksort);
criterion_main!(benches);
