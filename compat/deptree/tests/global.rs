//! The global pool: `rayon::ThreadPoolBuilder::build_global` configures
//! locus's global pool, and crates of the tree that run outside any
//! `install` use it. One test per process: the global pool is built once.

use deptree::Seen;
use indicatif::{ParallelProgressIterator, ProgressBar};
use ndarray::Array2;
use rayon::prelude::*;
use rayon_cond::CondIterator;

#[test]
fn the_crates_of_the_tree_share_locus_global_pool() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("tree-global-{i}"))
        .build_global()
        .unwrap();
    // The pool that rayon's builder configured is the one locus uses.
    assert_eq!(locus::current_num_threads(), 2);
    let seen = Seen::default();

    let mut a = Array2::from_elem((50, 50), 1.5f64);
    a.par_mapv_inplace(|x| {
        seen.record();
        x * 2.0
    });
    assert!(a.iter().all(|&x| x == 3.0));

    let bar = ProgressBar::hidden();
    let total: u64 = (1..=1_000u64)
        .into_par_iter()
        .progress_with(bar.clone())
        .inspect(|_| seen.record())
        .sum();
    assert_eq!(total, 500_500);
    assert_eq!(bar.position(), 1_000);

    let evens = CondIterator::new(0..1_000u32, true)
        .filter(|x| {
            seen.record();
            x % 2 == 0
        })
        .count();
    assert_eq!(evens, 500);

    // And locus's own API, on the same workers.
    let (x, y) = locus::join(
        || {
            seen.record();
            1
        },
        || {
            seen.record();
            2
        },
    );
    assert_eq!(x + y, 3);
    seen.assert_all_on("tree-global-");
}
