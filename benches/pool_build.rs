//! What a pool costs to build and drop: a 4-thread pool, locus against
//! rayon, in one group (so the ratio comes from one run on one machine).
//!
//! Both drops return at once: they tell the workers to stop, and the
//! threads finish in the background. So `build+drop` is what a program
//! that makes pools again and again pays on its own thread; `build` alone
//! is also shown, with the drop left out of the timing (each pool is
//! dropped after the measurement). `locus build+shutdown_and_wait` waits
//! for the threads to exit and joins them; `std spawn+join` (start 4
//! threads that do nothing and join them) is the floor for that.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

const THREADS: usize = 4;

fn locus_pool() -> locus::ThreadPool {
    locus::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .unwrap()
}

fn rayon_pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .unwrap()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("pool_build_4");
    g.bench_function("locus build+drop", |b| b.iter(|| drop(locus_pool())));
    g.bench_function("rayon build+drop", |b| b.iter(|| drop(rayon_pool())));
    g.bench_function("locus build+shutdown_and_wait", |b| {
        b.iter(|| locus_pool().shutdown_and_wait().unwrap())
    });
    g.bench_function("std spawn+join", |b| {
        b.iter(|| {
            let threads: Vec<_> = (0..THREADS).map(|_| std::thread::spawn(|| {})).collect();
            for t in threads {
                t.join().unwrap();
            }
        })
    });
    // A pool that has run something: its workers have parked once.
    g.bench_function("locus build+install+drop", |b| {
        b.iter(|| {
            let p = locus_pool();
            p.install(|| locus::join(|| 1, || 2));
        })
    });
    g.bench_function("rayon build+install+drop", |b| {
        b.iter(|| {
            let p = rayon_pool();
            p.install(|| rayon::join(|| 1, || 2));
        })
    });
    g.bench_function("locus build", |b| {
        b.iter_batched(|| (), |()| locus_pool(), BatchSize::PerIteration)
    });
    g.bench_function("rayon build", |b| {
        b.iter_batched(|| (), |()| rayon_pool(), BatchSize::PerIteration)
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
