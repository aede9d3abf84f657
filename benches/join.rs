//! Fork-join overhead against rayon and chili, same machine, same moment:
//! fib(n) with a `join` per call (the classic worst case for a pool: almost
//! no work per job), and a parallel sum over a slice split down to 4096
//! elements (more work per job). Every pool has the machine's core count.
//!
//! `cargo bench --bench join -- --warm-up-time 1 --measurement-time 2`
//! Compare ratios only (see DESIGN.md on honest measurement).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

fn fib_locus(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = locus::join(|| fib_locus(n - 1), || fib_locus(n - 2));
    a + b
}

fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

fn fib_chili(s: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = s.join(|s| fib_chili(s, n - 1), |s| fib_chili(s, n - 2));
    a + b
}

fn sum_locus(v: &[u64]) -> u64 {
    if v.len() <= 4096 {
        return v.iter().sum();
    }
    let (a, b) = v.split_at(v.len() / 2);
    let (x, y) = locus::join(|| sum_locus(a), || sum_locus(b));
    x + y
}

fn sum_rayon(v: &[u64]) -> u64 {
    if v.len() <= 4096 {
        return v.iter().sum();
    }
    let (a, b) = v.split_at(v.len() / 2);
    let (x, y) = rayon::join(|| sum_rayon(a), || sum_rayon(b));
    x + y
}

fn bench(c: &mut Criterion) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let lp = locus::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let rp = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let cp = chili::ThreadPool::with_config(chili::Config {
        thread_count: std::num::NonZero::new(threads),
        ..Default::default()
    });

    let mut g = c.benchmark_group("fib25");
    g.bench_function("locus", |b| {
        b.iter(|| lp.install(|| fib_locus(black_box(25))))
    });
    g.bench_function("rayon", |b| {
        b.iter(|| rp.install(|| fib_rayon(black_box(25))))
    });
    g.bench_function("chili", |b| {
        b.iter(|| fib_chili(&mut cp.scope(), black_box(25)))
    });
    g.finish();

    let v: Vec<u64> = (0..1 << 20).collect();
    let mut g = c.benchmark_group("sum1M");
    g.bench_function("locus", |b| {
        b.iter(|| lp.install(|| sum_locus(black_box(&v))))
    });
    g.bench_function("rayon", |b| {
        b.iter(|| rp.install(|| sum_rayon(black_box(&v))))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
