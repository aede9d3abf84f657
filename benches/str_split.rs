//! `par_split` on a string against rayon's, measured in the same run.
//!
//! The input is about 1 MB of space-separated words (lengths 1 to 8).
//! - `par_split_count/pred`: `par_split(|c| c == ' ').count()`.
//! - `par_split_count/char`: `par_split(' ').count()`.
//! - `par_split_len_sum/pred` and `/char`: `.map(str::len).sum()`.
//!
//! Run: `cargo bench --bench str_split`. Both pools have as many threads as
//! this machine has CPUs.

mod common;

use common::random_u64;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rayon::prelude::*;

#[path = "common/pools.rs"]
mod pools;
use pools::pools;

/// About 1 MB of words of 1 to 8 lowercase letters, one space apart.
fn text() -> String {
    let mut s = String::with_capacity(1 << 20);
    for x in random_u64(1 << 18) {
        if s.len() >= 1 << 20 {
            break;
        }
        let len = 1 + (x % 8) as usize;
        for i in 0..len {
            s.push((b'a' + ((x >> (8 + 5 * i)) % 26) as u8) as char);
        }
        s.push(' ');
    }
    s
}

fn bench_split(c: &mut Criterion) {
    let (locus_pool, rayon_pool) = pools();
    let text = text();
    let s = text.as_str();
    let count = s.split(' ').count();
    let len_sum: usize = s.split(' ').map(str::len).sum();

    let mut g = c.benchmark_group("par_split_count");
    g.bench_function(BenchmarkId::new("locus", "pred"), |b| {
        b.iter(|| {
            let n = locus_pool.install(|| {
                locus::iter::ParallelIterator::count(locus::str::ParallelString::par_split(
                    s,
                    |c: char| c == ' ',
                ))
            });
            assert_eq!(n, count);
        })
    });
    g.bench_function(BenchmarkId::new("rayon", "pred"), |b| {
        b.iter(|| {
            let n = rayon_pool.install(|| s.par_split(|c: char| c == ' ').count());
            assert_eq!(n, count);
        })
    });
    g.bench_function(BenchmarkId::new("locus", "char"), |b| {
        b.iter(|| {
            let n = locus_pool.install(|| {
                locus::iter::ParallelIterator::count(locus::str::ParallelString::par_split(s, ' '))
            });
            assert_eq!(n, count);
        })
    });
    g.bench_function(BenchmarkId::new("rayon", "char"), |b| {
        b.iter(|| {
            let n = rayon_pool.install(|| s.par_split(' ').count());
            assert_eq!(n, count);
        })
    });
    g.finish();

    let mut g = c.benchmark_group("par_split_len_sum");
    g.bench_function(BenchmarkId::new("locus", "pred"), |b| {
        b.iter(|| {
            let n: usize = locus_pool.install(|| {
                locus::iter::ParallelIterator::sum(locus::iter::ParallelIterator::map(
                    locus::str::ParallelString::par_split(s, |c: char| c == ' '),
                    str::len,
                ))
            });
            assert_eq!(n, len_sum);
        })
    });
    g.bench_function(BenchmarkId::new("rayon", "pred"), |b| {
        b.iter(|| {
            let n: usize =
                rayon_pool.install(|| s.par_split(|c: char| c == ' ').map(str::len).sum());
            assert_eq!(n, len_sum);
        })
    });
    g.bench_function(BenchmarkId::new("locus", "char"), |b| {
        b.iter(|| {
            let n: usize = locus_pool.install(|| {
                locus::iter::ParallelIterator::sum(locus::iter::ParallelIterator::map(
                    locus::str::ParallelString::par_split(s, ' '),
                    str::len,
                ))
            });
            assert_eq!(n, len_sum);
        })
    });
    g.bench_function(BenchmarkId::new("rayon", "char"), |b| {
        b.iter(|| {
            let n: usize = rayon_pool.install(|| s.par_split(' ').map(str::len).sum());
            assert_eq!(n, len_sum);
        })
    });
    g.finish();
}

criterion_group!(benches, bench_split);
criterion_main!(benches);
