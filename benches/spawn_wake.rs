//! Spawning, waking and idling against rayon, measured in the same run.
//!
//! - `scope_spawn/100k`: 100 000 `Scope::spawn`s of tiny jobs in one scope.
//! - `wake_latency`: the pool sleeps (every worker parked), a job is handed
//!   to it from outside, and we time until the job starts running.
//! - `idle_cpu`: CPU time (user + system, `getrusage`) the whole process burns
//!   during 200 ms in which an N-thread pool has nothing to do. Reported by
//!   criterion as "time per iteration": it is CPU time per 200 ms of idleness,
//!   so 2 ms means 1% of one core.
//!
//! Run: `cargo bench --bench spawn_wake`.
//!
//! On a small VM, `scope_spawn` swings from run to run for both peers
//! (rayon 12 or 26 to 35 ms per 100k here): compare the ratio within one
//! run only, and repeat the run.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[path = "common/cpu.rs"]
mod cpu;
#[path = "common/pools.rs"]
mod pools;
use pools::{pools, threads};

const SPAWNS: usize = 100_000;

/// 100k tiny spawns in one scope of `$pool` (locus or rayon: the same
/// text for both, their `Scope` types differ).
macro_rules! spawn_100k {
    ($pool:expr) => {{
        let n = AtomicUsize::new(0);
        $pool.scope(|s| {
            for _ in 0..SPAWNS {
                s.spawn(|_| {
                    n.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        assert_eq!(n.into_inner(), SPAWNS);
    }};
}

fn bench_spawn(c: &mut Criterion) {
    let (locus_pool, rayon_pool) = pools();
    let mut g = c.benchmark_group("scope_spawn");
    g.sample_size(20);
    g.bench_function(BenchmarkId::new("locus", "100k"), |b| {
        b.iter(|| spawn_100k!(locus_pool))
    });
    g.bench_function(BenchmarkId::new("rayon", "100k"), |b| {
        b.iter(|| spawn_100k!(rayon_pool))
    });
    g.finish();
}

/// Lets every worker finish its spin phase and park.
const SETTLE: Duration = Duration::from_millis(20);

/// A job to spawn (boxed for both peers alike).
type Job = Box<dyn FnOnce() + Send>;

/// Total time over `iters` rounds from handing a job to a settled (parked)
/// pool with `spawn` until the job starts.
fn wake_latency(iters: u64, spawn: impl Fn(Job)) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        std::thread::sleep(SETTLE);
        let (tx, rx) = mpsc::channel();
        let t0 = Instant::now();
        spawn(Box::new(move || tx.send(Instant::now()).unwrap()));
        total += rx.recv().unwrap() - t0;
    }
    total
}

fn bench_wake(c: &mut Criterion) {
    let (locus_pool, rayon_pool) = pools();
    let mut g = c.benchmark_group("wake_latency");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_millis(500));
    g.bench_function("locus", |b| {
        b.iter_custom(|iters| wake_latency(iters, |f| locus_pool.spawn(f)))
    });
    g.bench_function("rayon", |b| {
        b.iter_custom(|iters| wake_latency(iters, |f| rayon_pool.spawn(f)))
    });
    g.finish();
}

const IDLE_WINDOW: Duration = Duration::from_millis(200);

fn idle_cost(iters: u64, warm: &dyn Fn()) -> Duration {
    warm();
    std::thread::sleep(SETTLE);
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let before = cpu::process_cpu();
        std::thread::sleep(IDLE_WINDOW);
        total += cpu::process_cpu() - before;
    }
    total
}

fn bench_idle(c: &mut Criterion) {
    let n = threads();
    let locus_pool = locus::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap();
    let rayon_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap();
    let mut g = c.benchmark_group("idle_cpu_per_200ms");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(300));
    g.bench_function(BenchmarkId::new("locus", n), |b| {
        b.iter_custom(|iters| {
            idle_cost(iters, &|| {
                locus_pool.install(|| locus::join(|| (), || ()));
            })
        })
    });
    g.bench_function(BenchmarkId::new("rayon", n), |b| {
        b.iter_custom(|iters| {
            idle_cost(iters, &|| {
                rayon_pool.install(|| rayon::join(|| (), || ()));
            })
        })
    });
    g.finish();
}

criterion_group!(benches, bench_spawn, bench_wake, bench_idle);
criterion_main!(benches);
