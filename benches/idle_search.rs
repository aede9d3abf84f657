//! Finding and claiming the nearest idle worker: locus's per-LLC idle masks
//! and their summary tree against a linear scan of one flag per worker.
//!
//! Virtual shapes of 64, 256, 1024 and 4096 workers, 16 per LLC, clusters
//! of 4 (`locus::IdleSearch`: the masks alone, without threads). The waker is worker 0 (LLC 0); the
//! only idle workers are three in the farthest LLC, so both searches must go
//! all the way. One iteration = claim the nearest idle worker + mark it idle
//! again (so the state is the same for the next iteration).
//!
//! Timing: the machines this runs on are shared (two cores, many builds),
//! and a descheduled thread makes a mean over seconds mostly noise. So each
//! sample times batches of 64 iterations and keeps the fastest batch (a
//! batch lasts 2 to 400 µs, far less than a scheduler time slice), scaled
//! to the sample's iteration count. Both searches are timed the same way,
//! in the same group, so compare their ratio.
//!
//! `cargo bench --bench idle_search -- --warm-up-time 1 --measurement-time 2`

use std::hint::black_box;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "common/scan.rs"]
mod scan;
use locus::IdleSearch;
use scan::Scan;

const PER_LLC: usize = 16;
const BATCH: u64 = 64;

/// `iters` runs of `f`, timed as the fastest batch of [`BATCH`] runs times
/// the number of batches (see the module docs).
fn fastest_batches(iters: u64, mut f: impl FnMut() -> usize) -> Duration {
    let batches = iters.div_ceil(BATCH);
    let mut best = Duration::MAX;
    for _ in 0..batches {
        let t = Instant::now();
        for _ in 0..BATCH {
            black_box(f());
        }
        best = best.min(t.elapsed());
    }
    best * u32::try_from(iters).unwrap_or(u32::MAX) / BATCH as u32
}

fn idle_search(c: &mut Criterion) {
    for n in [64usize, 256, 1024, 4096] {
        let far = [n - PER_LLC + 1, n - PER_LLC + 6, n - 1];
        let masks = IdleSearch::uniform(n, PER_LLC, 4);
        let scan = Scan::new(n);
        for &w in &far {
            masks.set_idle(w);
            scan.0[w].store(true, Ordering::SeqCst);
        }
        let mut g = c.benchmark_group(format!("idle_search/{n}"));
        g.bench_function("locus_masks", |b| {
            b.iter_custom(|iters| {
                fastest_batches(iters, || {
                    let (w, _) = masks.claim_nearest(black_box(0)).unwrap();
                    masks.set_idle(w);
                    w
                })
            })
        });
        g.bench_function("linear_scan", |b| {
            b.iter_custom(|iters| {
                fastest_batches(iters, || {
                    let w = scan.claim().unwrap();
                    scan.0[w].store(true, Ordering::SeqCst);
                    w
                })
            })
        });
        g.finish();
    }
}

criterion_group!(benches, idle_search);
criterion_main!(benches);
