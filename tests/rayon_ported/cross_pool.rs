//! An iterator on one pool whose items each wait for a job on another
//! pool: the waiting worker keeps serving its own pool, and the other
//! pool's completion of a job it no longer waits on touches nothing freed
//! (rayon's `tests/cross-pool.rs`).

use locus::prelude::*;

use crate::common::deadline::within_deadline;

#[test]
fn items_that_wait_on_another_pool() {
    let sum = within_deadline("cross-pool", || {
        let outer = locus::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let inner = locus::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        outer.install(|| {
            (1..=100i32)
                .into_par_iter()
                .map(|i| inner.install(move || i))
                .sum::<i32>()
        })
    });
    assert_eq!(sum, 5050);
}
