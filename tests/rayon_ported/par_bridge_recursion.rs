//! `par_bridge` over a sequential iterator whose `next` itself uses the
//! pool (a `join`): a worker that steals while inside `next` may re-enter
//! the same bridge, which must not deadlock on its own lock (rayon's
//! `tests/par_bridge_recursion.rs`).

use std::iter;

use locus::prelude::*;

use crate::common::deadline::within_deadline;

const N: usize = 100_000;

#[test]
fn a_bridged_iterator_that_joins_inside_next() {
    within_deadline("par_bridge recursion", || {
        let pool = locus::ThreadPoolBuilder::new()
            .num_threads(10)
            .build()
            .unwrap();
        let want: Vec<(usize, String)> = (0..N).map(|i| (i, i.to_string())).collect();
        // Every worker runs the whole pipeline at once.
        pool.broadcast(|_| {
            let mut got: Vec<(usize, String)> = (0..N)
                .into_par_iter()
                .flat_map(|i| {
                    iter::once_with(move || locus::join(move || i, move || i.to_string()))
                        .par_bridge()
                })
                .collect();
            got.par_sort_unstable();
            assert_eq!(got, want);
        });
    });
}
