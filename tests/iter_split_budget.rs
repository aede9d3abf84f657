//! The adaptive split budget of iterators (`iter::plumbing`'s splitter):
//! a tree started while every worker of the pool is busy splits once,
//! not once per thread; one started while a worker is free splits as
//! rayon's. Counted with `fold`, which makes one result per leaf. The
//! busy case is arranged with barriers; the free case waits for the other
//! worker to park (see the test).

mod common;

use std::sync::Barrier;

use locus::ThreadPoolBuilder;
use locus::prelude::*;

use common::deadline::within_deadline;

/// The leaves of an adaptive tree over `len` items run here (one `fold`
/// result per leaf).
fn leaves(len: u64) -> usize {
    (0..len).into_par_iter().fold(|| 0u64, |n, _| n + 1).count()
}

#[test]
fn an_iterator_started_while_the_pool_is_busy_splits_once() {
    within_deadline("busy split budget", || {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (both_in, done) = (Barrier::new(2), Barrier::new(2));
        let mut busy = None;
        pool.install(|| {
            locus::scope(|s| {
                // Each worker takes one of the two jobs (neither returns
                // before both started); the second waits in user code until
                // the first's iterator has run, so no worker searches or is
                // idle while it starts and runs.
                s.spawn(|_| {
                    both_in.wait();
                    busy = Some(leaves(1 << 16));
                    done.wait();
                });
                s.spawn(|_| {
                    both_in.wait();
                    done.wait();
                });
            })
        });
        assert_eq!(busy, Some(2), "one split: two leaves");
        // Started while the other worker searches or is idle: a budget of
        // two splits (two levels), four leaves at least. Right after a
        // call the other worker may still be in the first, uncounted look
        // of its search (neither searching nor idle), more so since the
        // caller is woken from its own CPU (`runtime::handoff`): so wait
        // until it has surely parked (idle), and allow a few tries on a
        // loaded machine where it was not scheduled in time.
        let free: Vec<usize> = (0..5)
            .map(|_| {
                std::thread::sleep(std::time::Duration::from_millis(20));
                pool.install(|| leaves(1 << 16))
            })
            .collect();
        assert!(free.iter().any(|&n| n >= 4), "leaves per try: {free:?}");
    });
}

#[test]
fn results_of_busy_started_iterators_are_complete() {
    within_deadline("busy nested results", || {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        // Nested iterators: most inner ones start while both workers are
        // busy with outer items.
        let s: u64 = pool.install(|| {
            (0..200u64)
                .into_par_iter()
                .map(|i| (0..1000u64).into_par_iter().map(|j| i ^ j).sum::<u64>())
                .sum()
        });
        let want: u64 = (0..200u64)
            .map(|i| (0..1000u64).map(|j| i ^ j).sum::<u64>())
            .sum();
        assert_eq!(s, want);
        let v: Vec<Vec<u32>> = pool.install(|| {
            (0..100u32)
                .into_par_iter()
                .map(|i| (0..i).into_par_iter().map(|j| j * i).collect())
                .collect()
        });
        for (i, inner) in v.iter().enumerate() {
            let i = i as u32;
            assert_eq!(*inner, (0..i).map(|j| j * i).collect::<Vec<_>>());
        }
    });
}
