//! The passes over a whole piece ([`runs`]): the reversal and the check
//! against `std`, at the lengths where they cut, on a pool whose workers
//! take halves; and the unstable sort on inputs large enough that it
//! splits them.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use super::{or_miri, pool};
use crate::slice::sort::runs::{self, LEAF};
use crate::slice::sort::{par_sort_by_key, par_sort_unstable};

/// Lengths around the cuts: one leaf, one more, several leaves, odd and
/// even (an odd length keeps its middle element).
fn lengths() -> Vec<usize> {
    let mut all = vec![0, 1, 2, 3];
    for k in [1, 2, 3, 5, 8] {
        for d in [-1isize, 0, 1] {
            all.push((k * LEAF).checked_add_signed(d).unwrap());
        }
    }
    all
}

#[test]
fn reverse_matches_std() {
    for len in lengths() {
        let mut v: Vec<u32> = (0..len as u32).collect();
        pool().install(|| runs::reverse_split(&mut v));
        let expected: Vec<u32> = (0..len as u32).rev().collect();
        assert!(v == expected, "reverse of {len} elements differs from std");
    }
}

#[test]
fn is_sorted_finds_any_one_descent() {
    let is_less = |a: &u32, b: &u32| a < b;
    for len in lengths() {
        let mut v: Vec<u32> = (0..len as u32).collect();
        assert!(
            pool().install(|| runs::is_sorted(&mut v, &is_less)),
            "{len}: sorted"
        );
        let mut equal = vec![7u32; len];
        assert!(
            pool().install(|| runs::is_sorted(&mut equal, &is_less)),
            "{len}: equal"
        );
        // One descent, at every cut of the halving and next to it: the
        // pair across a cut is looked at by neither half.
        let mut at: Vec<usize> = (1..len).filter(|i| i % (LEAF / 2) <= 1).collect();
        at.extend(
            [1, len / 2, len.saturating_sub(1)]
                .into_iter()
                .filter(|&i| i >= 1 && i < len),
        );
        for i in at {
            let mut w: Vec<u32> = (0..len as u32).collect();
            w.swap(i - 1, i);
            let sorted = pool().install(|| runs::is_sorted(&mut w, &is_less));
            assert!(!sorted, "{len}: the descent at {i} was missed");
        }
    }
}

#[test]
fn a_check_that_panics_moves_nothing() {
    let len = 4 * LEAF + 1;
    let input: Vec<u32> = (0..len as u32).collect();
    for stop in [0, LEAF / 2, 2 * LEAF, len - 2] {
        let mut v = input.clone();
        let calls = AtomicUsize::new(0);
        let is_less = |a: &u32, b: &u32| {
            if calls.fetch_add(1, Relaxed) == stop {
                panic!("comparator stops");
            }
            a < b
        };
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool().install(|| runs::is_sorted(&mut v, &is_less))
        }));
        assert!(result.is_err(), "call {stop} should have panicked");
        assert!(v == input, "a check moved elements");
    }
}

#[test]
fn only_pieces_larger_than_a_private_cache_split() {
    if cfg!(miri) {
        return;
    }
    let fits = (2 << 20) / size_of::<u32>();
    assert!(!runs::splits::<u32>(fits));
    assert!(runs::splits::<u32>(fits + 1));
    assert!(!runs::splits::<[u8; 1024]>(LEAF));
}

#[test]
fn sorts_large_sorted_and_reversed_input() {
    // (key, index) pairs of 16 bytes: above 2 MiB from 131,073 of them.
    let len = or_miri(200_001, 301);
    let sorted: Vec<(u64, u32)> = (0..len as u32).map(|i| (u64::from(i) / 3, i)).collect();
    let mut cases = vec![
        ("sorted", sorted.clone()),
        ("reversed", sorted.iter().rev().copied().collect()),
        (
            "all equal",
            sorted.iter().map(|&(_, i)| (7, i)).collect::<Vec<_>>(),
        ),
    ];
    for at in [1, len / 2, len - 1] {
        let mut one = sorted.clone();
        one.swap(at - 1, at);
        cases.push(("one descent", one));
    }
    for (what, input) in cases {
        let mut v = input.clone();
        pool().install(|| par_sort_unstable(&mut v));
        let mut expected = input;
        expected.sort_unstable();
        assert!(v == expected, "{what} ({len}): differs from std");
    }
}

#[test]
fn first_pair_finds_the_first_hit_across_blocks() {
    let descent = |a: &u32, b: &u32| b < a;
    for len in 0..70 {
        let sorted: Vec<u32> = (0..len as u32).collect();
        assert_eq!(runs::first_pair(&sorted, descent), None, "{len}");
        for at in 1..len {
            // Descents at `at` and, if there is room, again later: the
            // first one is reported.
            let mut v = sorted.clone();
            v.swap(at - 1, at);
            if at + 5 < len {
                v.swap(at + 3, at + 4);
            }
            let expected = v.windows(2).position(|w| w[1] < w[0]);
            assert_eq!(runs::first_pair(&v, descent), expected, "{len}, {at}");
        }
    }
}

#[test]
fn one_run_is_non_descending_or_strictly_descending() {
    let is_less = |a: &u32, b: &u32| a < b;
    let len = 3 * LEAF + 5;
    let up: Vec<u32> = (0..len as u32).collect();
    let down: Vec<u32> = up.iter().rev().copied().collect();
    let mut v = down.clone();
    assert!(pool().install(|| runs::finish_one_run(&mut v, &is_less)));
    assert!(v == up, "a strictly descending run is reversed");
    let mut v = up.clone();
    assert!(pool().install(|| runs::finish_one_run(&mut v, &is_less)));
    assert!(v == up, "a sorted run stays");
    // Two equal neighbours break a descending run (reversing it would
    // swap them); nothing moves.
    for at in [1, len / 2, len - 1] {
        let mut input = down.clone();
        input[at] = input[at - 1];
        let mut v = input.clone();
        assert!(
            !pool().install(|| runs::finish_one_run(&mut v, &is_less)),
            "{at}"
        );
        assert!(v == input, "{at}: a check moved elements");
    }
}

#[test]
fn stable_sort_of_large_runs_keeps_equal_keys_in_order() {
    // (key, index) pairs of 16 bytes, sorted by key only: above 2 MiB.
    let len = or_miri(200_001, 301);
    let rising: Vec<(u64, u32)> = (0..len as u32).map(|i| (u64::from(i) / 3, i)).collect();
    let strictly_falling: Vec<(u64, u32)> = (0..len as u32)
        .map(|i| (u64::from(len as u32 - i), i))
        .collect();
    let falling_with_ties: Vec<(u64, u32)> = (0..len as u32)
        .map(|i| (u64::from(len as u32 - i) / 3, i))
        .collect();
    for (what, input) in [
        ("rising", rising),
        ("strictly falling", strictly_falling),
        ("falling with ties", falling_with_ties),
    ] {
        let mut v = input.clone();
        pool().install(|| par_sort_by_key(&mut v, |p| p.0));
        let mut expected = input;
        expected.sort_by_key(|p| p.0);
        assert!(
            v == expected,
            "{what} ({len}): differs from std's stable sort"
        );
    }
}
