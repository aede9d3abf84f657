//! `par_chunk_by` and `par_split*` on slices ask their predicate once per
//! adjacent pair (per element for the splits), as the sequential forms do,
//! and give the sequential pieces (rayon's `slice_chunk_by` and
//! `slice_chunk_by_mut` unit tests, in `src/slice/test.rs`).

use std::sync::atomic::{AtomicUsize, Ordering};

use locus::prelude::*;

/// Slices of every length up to 64, then longer ones, with runs and
/// separators of many shapes (`x % m` for a few `m`, all equal, all
/// different).
fn inputs() -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for len in (0..64).chain([100, 999, 1000, 4096, 10_007]) {
        for m in [2u32, 3, 10, 97] {
            out.push((0..len).map(|i| (i * 7919 + i / 5) % m).collect());
        }
        out.push(vec![1; len as usize]);
        out.push((0..len).collect());
    }
    out
}

/// Calls `f` on pools of 1, 2 and 4 workers (the split trees differ).
fn on_pools(f: impl Fn() + Sync) {
    for threads in [1, 2, 4] {
        let pool = locus::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(&f);
    }
}

#[test]
fn edge_lengths_need_no_predicate_call() {
    let v: Vec<u32> = (0..4).collect();
    let never = |_: &u32, _: &u32| -> bool { unreachable!("asked about a pair of one element") };
    assert_eq!(v[..0].par_chunk_by(never).count(), 0);
    assert_eq!(v[..1].par_chunk_by(never).count(), 1);
    assert_eq!(v[..2].par_chunk_by(|_, _| true).count(), 1);
    assert_eq!(v[..2].par_chunk_by(|_, _| false).count(), 2);
    let mut w = v.clone();
    assert_eq!(w[..0].par_chunk_by_mut(never).count(), 0);
    assert_eq!(w[..1].par_chunk_by_mut(never).count(), 1);
    assert_eq!(w[..2].par_chunk_by_mut(|_, _| false).count(), 2);
}

#[test]
fn chunk_by_asks_each_pair_once() {
    on_pools(|| {
        for v in inputs() {
            let same = |a: &u32, b: &u32| (a % 10 < 3) == (b % 10 < 3) && a <= b;
            let calls = AtomicUsize::new(0);
            let runs: Vec<&[u32]> = v
                .par_chunk_by(|a, b| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    same(a, b)
                })
                .collect();
            assert_eq!(runs, v.chunk_by(same).collect::<Vec<_>>());
            assert_eq!(
                calls.into_inner(),
                v.len().saturating_sub(1),
                "len {}",
                v.len()
            );

            let mut w = v.clone();
            let calls = AtomicUsize::new(0);
            let lens: Vec<usize> = w
                .par_chunk_by_mut(|a, b| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    same(a, b)
                })
                .map(|run| {
                    run.reverse();
                    run.len()
                })
                .collect();
            assert_eq!(lens, v.chunk_by(same).map(<[u32]>::len).collect::<Vec<_>>());
            assert_eq!(calls.into_inner(), v.len().saturating_sub(1));
            let mut want = v.clone();
            want.chunk_by_mut(same).for_each(<[u32]>::reverse);
            assert_eq!(w, want);
        }
    });
}

#[test]
fn splits_ask_each_element_once() {
    on_pools(|| {
        for v in inputs() {
            let sep = |x: &u32| *x == 0;
            let calls = AtomicUsize::new(0);
            let counted = |x: &u32| {
                calls.fetch_add(1, Ordering::Relaxed);
                sep(x)
            };
            let pieces: Vec<&[u32]> = v.par_split(counted).collect();
            assert_eq!(pieces, v.split(sep).collect::<Vec<_>>());
            assert_eq!(calls.swap(0, Ordering::Relaxed), v.len());

            let pieces: Vec<&[u32]> = v.par_split_inclusive(counted).collect();
            assert_eq!(pieces, v.split_inclusive(sep).collect::<Vec<_>>());
            assert_eq!(calls.swap(0, Ordering::Relaxed), v.len(), "{v:?}");

            let mut w = v.clone();
            w.par_split_mut(counted).for_each(<[u32]>::reverse);
            assert_eq!(calls.swap(0, Ordering::Relaxed), v.len());
            let mut want = v.clone();
            want.split_mut(sep).for_each(<[u32]>::reverse);
            assert_eq!(w, want);

            let mut w = v.clone();
            w.par_split_inclusive_mut(counted).for_each(<[u32]>::sort);
            assert_eq!(calls.swap(0, Ordering::Relaxed), v.len());
            let mut want = v.clone();
            want.split_inclusive_mut(sep).for_each(<[u32]>::sort);
            assert_eq!(w, want);
        }
    });
}

#[test]
fn short_circuits_stop_inside_a_piece() {
    // A search that stops inside a leaf gives the sequential answer (the
    // folds skip the rest of a piece once full).
    on_pools(|| {
        for v in inputs() {
            let same = |a: &u32, b: &u32| a <= b;
            let want = v.chunk_by(same).find(|r| r.len() > 2);
            assert_eq!(v.par_chunk_by(same).find_first(|r| r.len() > 2), want);
            let want = v.chunk_by(same).rev().find(|r| r.len() > 2);
            assert_eq!(v.par_chunk_by(same).find_last(|r| r.len() > 2), want);
            let sep = |x: &u32| *x == 0;
            let want = v.split(sep).find(|p| p.len() > 3);
            assert_eq!(v.par_split(sep).find_first(|p| p.len() > 3), want);
            let want = v.split_inclusive(sep).rev().find(|p| p.len() > 3);
            assert_eq!(v.par_split_inclusive(sep).find_last(|p| p.len() > 3), want);
        }
    });
}
