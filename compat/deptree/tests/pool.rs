//! The crates of the tree, run inside a pool built with locus's own
//! builder: their results are right, every closure runs on that pool's
//! workers, and the pool's statistics count their jobs.

use deptree::Seen;
use indicatif::{ParallelProgressIterator, ProgressBar};
use ndarray::parallel::prelude::*;
use ndarray::{Array1, Array2, Zip};
use rayon_cond::CondIterator;

fn pool() -> locus::ThreadPool {
    deptree::pool("tree-pool-")
}

/// The jobs the pool's workers ran so far.
fn jobs(pool: &locus::ThreadPool) -> u64 {
    pool.stats().total().jobs_run
}

#[test]
fn the_shims_name_locus_types() {
    // Type identity, checked by the compiler: a pool built by locus is a
    // rayon and a rayon-core pool, and a rayon builder builds locus pools.
    let p: rayon::ThreadPool = pool();
    let q: rayon_core::ThreadPool = p;
    let r: locus::ThreadPool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(q.current_num_threads(), 2);
    assert_eq!(r.current_num_threads(), 1);
}

#[test]
fn ndarray_map_inplace_runs_on_the_pool() {
    let pool = pool();
    let seen = Seen::default();
    let before = jobs(&pool);
    let mut a = Array2::from_shape_fn((64, 64), |(i, j)| (i * 64 + j) as u64);
    pool.install(|| {
        a.par_map_inplace(|x| {
            seen.record();
            *x *= 3;
        })
    });
    assert!(
        a.indexed_iter()
            .all(|((i, j), &x)| x == 3 * (i * 64 + j) as u64)
    );
    seen.assert_all_on("tree-pool-");
    assert!(jobs(&pool) > before, "the pool ran no job");
}

#[test]
fn ndarray_zip_and_azip_run_on_the_pool() {
    let pool = pool();
    let seen = Seen::default();
    let a = Array1::from_iter(0..10_000u64);
    let b = Array1::from_iter((0..10_000u64).rev());
    let before = jobs(&pool);
    let (sums, folded) = pool.install(|| {
        let sums = Zip::from(&a).and(&b).par_map_collect(|&x, &y| {
            seen.record();
            x + y
        });
        let mut out = Array1::zeros(10_000);
        par_azip!((o in &mut out, &x in &a) { seen.record(); *o = x * x });
        let folded = Zip::from(&out).par_fold(|| 0u64, |acc, &x| acc + x, |l, r| l + r);
        (sums, folded)
    });
    assert!(sums.iter().all(|&s| s == 9_999));
    assert_eq!(folded, (0..10_000u64).map(|x| x * x).sum::<u64>());
    seen.assert_all_on("tree-pool-");
    assert!(jobs(&pool) > before, "the pool ran no job");
}

#[test]
fn ndarray_axis_iterators_run_on_the_pool() {
    let pool = pool();
    let seen = Seen::default();
    let a = Array2::from_shape_fn((100, 30), |(i, j)| (i + j) as u64);
    let rows: Vec<u64> = pool.install(|| {
        a.axis_iter(ndarray::Axis(0))
            .into_par_iter()
            .map(|row| {
                seen.record();
                row.sum()
            })
            .collect()
    });
    let want: Vec<u64> = (0..100u64).map(|i| (0..30).map(|j| i + j).sum()).collect();
    assert_eq!(rows, want);
    seen.assert_all_on("tree-pool-");
}

#[test]
fn indicatif_counts_every_item_on_the_pool() {
    let pool = pool();
    let seen = Seen::default();
    let bar = ProgressBar::hidden();
    let before = jobs(&pool);
    let squares: Vec<u64> = pool.install(|| {
        (0..5_000u64)
            .into_par_iter()
            .progress_with(bar.clone())
            .map(|x| {
                seen.record();
                x * x
            })
            .collect()
    });
    assert_eq!(squares, (0..5_000u64).map(|x| x * x).collect::<Vec<_>>());
    assert_eq!(bar.position(), 5_000);
    seen.assert_all_on("tree-pool-");
    assert!(jobs(&pool) > before, "the pool ran no job");
}

#[test]
fn rayon_cond_parallel_runs_on_the_pool_and_serial_on_the_caller() {
    let pool = pool();
    let seen = Seen::default();
    let data: Vec<u64> = (0..10_000).collect();
    let (par, ser) = pool.install(|| {
        let par: Vec<u64> = CondIterator::new(data.clone(), true)
            .map(|x| {
                seen.record();
                x + 1
            })
            .collect();
        let ser: u64 = CondIterator::new(data.clone(), false).map(|x| x + 1).sum();
        (par, ser)
    });
    assert_eq!(par, (1..=10_000).collect::<Vec<u64>>());
    assert_eq!(ser, (1..=10_000u64).sum::<u64>());
    seen.assert_all_on("tree-pool-");
    // Outside any pool, the serial side stays on the calling thread.
    let outside = Seen::default();
    let n = CondIterator::new(data, false)
        .inspect(|_| outside.record())
        .count();
    assert_eq!(n, 10_000);
    assert_eq!(outside.outside(), 10_000);
}
