//! `repeat_n` clones its value once per item but the last, which is the
//! value itself, and drops it at once when there are no items (rayon's
//! `count_repeat_n_clones` and `check_repeat_n_zip_*` unit tests, in
//! `src/iter/test.rs`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use locus::iter::repeat_n;
use locus::prelude::*;

static CLONES: AtomicUsize = AtomicUsize::new(0);
static DROPS: AtomicUsize = AtomicUsize::new(0);
/// The counters are global: the tests that use them take turns.
static TURN: Mutex<()> = Mutex::new(());

/// A value that counts its clones and drops.
struct Tally;

impl Clone for Tally {
    fn clone(&self) -> Self {
        CLONES.fetch_add(1, Ordering::Relaxed);
        Tally
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::Relaxed);
    }
}

/// Checks and resets the counts since the last call.
#[track_caller]
fn since_last(clones: usize, drops: usize) {
    let got = (
        CLONES.swap(0, Ordering::Relaxed),
        DROPS.swap(0, Ordering::Relaxed),
    );
    assert_eq!(got, (clones, drops), "(clones, drops)");
}

#[test]
fn repeat_n_clones_once_per_item_but_the_last() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    since_last(0, 0);

    // Never driven: the value is dropped with the iterator.
    drop(repeat_n(Tally, 100));
    since_last(0, 1);

    // No items: the value goes at once, and the empty iterator holds
    // nothing to clone.
    let none = repeat_n(Tally, 0);
    since_last(0, 1);
    let none_again = none.clone();
    assert_eq!(none.count(), 0);
    assert_eq!(none_again.count(), 0);
    since_last(0, 0);

    // 100 items: 99 clones however the pool splits them, on any pool.
    for threads in [1, 2, 4] {
        let pool = locus::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let items = repeat_n(Tally, 100);
        let copy = items.clone();
        since_last(1, 0);
        assert_eq!(pool.install(|| items.count()), 100);
        since_last(99, 100);
        assert_eq!(pool.install(|| copy.map(std::mem::forget).count()), 100);
        since_last(99, 0);
        // Collected and reversed: the same clones.
        let v: Vec<Tally> = pool.install(|| repeat_n(Tally, 100).rev().collect());
        since_last(99, 0);
        drop(v);
        since_last(0, 100);
    }
}

#[test]
fn skipped_items_are_not_cloned() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    since_last(0, 0);

    // Items 0 and 99, from two pieces: one clone for the split, one for
    // item 0 (its piece's value stays for the skipped rest and is dropped
    // with it), item 99 is its piece's value itself.
    assert_eq!(repeat_n(Tally, 100).step_by(99).count(), 2);
    since_last(2, 3);

    // One piece: item 0 is a clone, item 99 the value.
    assert_eq!(repeat_n(Tally, 100).step_by(99).with_min_len(2).count(), 2);
    since_last(1, 2);

    // Items 0 and 50 from two pieces, each leaving a skipped rest.
    assert_eq!(repeat_n(Tally, 100).step_by(50).count(), 2);
    since_last(3, 4);
}

#[test]
fn repeat_n_zips_with_a_shorter_side() {
    // `usize::MAX` items are never made: `zip` takes as many as the other
    // side has.
    let fours = vec![4; 4];
    let left: Vec<(i32, i32)> = repeat_n(4, usize::MAX).zip(fours.clone()).collect();
    assert_eq!(left, [(4, 4); 4]);
    let right: Vec<(i32, i32)> = fours.into_par_iter().zip(repeat_n(4, usize::MAX)).collect();
    assert_eq!(right, [(4, 4); 4]);
}
