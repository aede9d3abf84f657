//! The sequential building blocks, one by one: against `std`'s sorts, on
//! the boundaries of their cases, and with inconsistent comparators
//! (where they must return a permutation without panicking).

use std::cell::Cell;

use super::{Rng, assert_permutation, or_miri, patterns};
use crate::slice::sort::heapsort::heapsort;
use crate::slice::sort::insertion::{insertion_sort, partial_insertion_sort};
use crate::slice::sort::partition::{partition, partition_equal};
use crate::slice::sort::pivot::{self, Looks};
use crate::slice::sort::{both_ends, small, stable, stable_quick};

/// A key and the element's original index.
type Pair = (u64, u32);

/// `(key, original index)` pairs with keys below `range`.
fn pairs(rng: &mut Rng, len: usize, range: u64) -> Vec<(u64, u32)> {
    (0..len).map(|i| (rng.below(range), i as u32)).collect()
}

fn by_key(a: &(u64, u32), b: &(u64, u32)) -> bool {
    a.0 < b.0
}

/// The inputs a part is checked on: random keys with many, some and no
/// duplicates, and the patterns, as `(key, index)` pairs.
fn inputs(len: usize, rng: &mut Rng) -> Vec<(String, Vec<(u64, u32)>)> {
    let mut all: Vec<(String, Vec<(u64, u32)>)> = [3, len as u64 / 2 + 1, u64::MAX]
        .into_iter()
        .map(|range| (format!("random below {range}"), pairs(rng, len, range)))
        .collect();
    for (name, keys) in patterns(len, rng) {
        let v = keys
            .into_iter()
            .enumerate()
            .map(|(i, k)| (k, i as u32))
            .collect();
        all.push((name.to_string(), v));
    }
    all
}

/// A comparator that answers from a counter: inconsistent in every way.
fn chaotic<T>() -> impl Fn(&T, &T) -> bool {
    let state = Cell::new(0x9E37_79B9_7F4A_7C15u64);
    move |_: &T, _: &T| {
        let x = state.get() ^ (state.get() << 13);
        let x = x ^ (x >> 7);
        let x = x ^ (x << 17);
        state.set(x);
        x & 1 == 1
    }
}

/// Checks a stable sort of `(key, index)` pairs against `std`'s.
fn check_stable_sort(sort: impl Fn(&mut [(u64, u32)]), what: &str) {
    let mut rng = Rng::new(11);
    for len in (0..=70).chain([100, 1000, 4096]) {
        for (name, input) in inputs(len, &mut rng) {
            let mut expected = input.clone();
            expected.sort_by_key(|p| p.0);
            let mut v = input;
            sort(&mut v);
            assert!(
                v == expected,
                "{what} on {name} (len {len}) differs from std's stable sort"
            );
        }
    }
}

#[test]
fn heapsort_sorts_and_bounds_calls() {
    let mut rng = Rng::new(1);
    for len in (0..=70).chain([1000, 4099]) {
        for (name, input) in inputs(len, &mut rng) {
            let mut expected = input.clone();
            expected.sort_by_key(|p| p.0);
            let mut v = input;
            heapsort(&mut v, &by_key);
            let keys = |v: &[(u64, u32)]| v.iter().map(|p| p.0).collect::<Vec<_>>();
            assert!(
                keys(&v) == keys(&expected),
                "heapsort on {name} (len {len})"
            );
            assert_permutation(&v, "heapsort");
        }
        let calls = Cell::new(0usize);
        let mut v = pairs(&mut rng, len, 100);
        heapsort(&mut v, &|_: &(u64, u32), _: &(u64, u32)| {
            calls.set(calls.get() + 1);
            true
        });
        let bound = 2 * len * (usize::BITS - len.leading_zeros()) as usize + 2 * len;
        assert!(
            calls.get() <= bound,
            "heapsort made {} calls, len {len}",
            calls.get()
        );
        assert_permutation(&v, "heapsort, always less");
    }
}

#[test]
fn insertion_sort_is_stable() {
    check_stable_sort(|v| insertion_sort(v, 1, &by_key), "insertion_sort");
    // From a sorted prefix of any length.
    let mut rng = Rng::new(2);
    for len in 0..40 {
        for sorted in 0..=len {
            let mut v = pairs(&mut rng, len, 5);
            v[..sorted].sort_by_key(|p| p.0);
            let mut expected = v.clone();
            expected.sort_by_key(|p| p.0);
            insertion_sort(&mut v, sorted, &by_key);
            assert!(v == expected, "insertion_sort from {sorted} of {len}");
        }
    }
}

#[test]
fn partial_insertion_sort_finishes_nearly_sorted_input_only() {
    let mut rng = Rng::new(3);
    for len in [50, 51, 200, 5000] {
        let sorted: Vec<(u64, u32)> = (0..len).map(|i| (i as u64, i as u32)).collect();
        let mut v = sorted.clone();
        assert!(partial_insertion_sort(&mut v, &by_key) && v == sorted);
        // Up to five misplaced elements are repaired, wherever they go.
        for swaps in 1..=5 {
            let mut v = sorted.clone();
            for s in 0..swaps {
                let i = len / 6 * (s + 1);
                v.swap(i, rng.below(len as u64) as usize);
            }
            if partial_insertion_sort(&mut v, &by_key) {
                assert!(
                    v == sorted,
                    "reported sorted but is not ({swaps} swaps, len {len})"
                );
            }
            assert_permutation(&v, "partial_insertion_sort");
        }
        let mut v = sorted.clone();
        v.swap(0, len - 1);
        assert!(partial_insertion_sort(&mut v, &by_key) && v == sorted);
        // Random input: gives up, a permutation.
        let mut v = pairs(&mut rng, len, u64::MAX);
        assert!(!partial_insertion_sort(&mut v, &by_key));
        assert_permutation(&v, "partial_insertion_sort on random input");
    }
    // Short slices are only checked, never changed.
    let mut v = vec![(2, 0), (1, 1), (3, 2)];
    assert!(!partial_insertion_sort(&mut v, &by_key));
    assert_eq!(v, [(2, 0), (1, 1), (3, 2)]);
}

/// Checks `partition` on `input` for every kernel choice.
fn check_partition<T: Clone + Ord + std::fmt::Debug>(input: &[T], what: &str) {
    for keep_order in [false, true] {
        for pivot in [0, input.len() / 2, input.len() - 1] {
            let mut v = input.to_vec();
            let p = v[pivot].clone();
            let (mid, was_partitioned) = partition(&mut v, pivot, keep_order, &|a, b| a < b);
            let ctx = format!(
                "{what} (len {}), pivot at {pivot}, keep_order {keep_order}",
                v.len()
            );
            assert!(v[mid] == p, "{ctx}: the pivot is not at mid");
            assert!(v[..mid].iter().all(|x| *x < p), "{ctx}: left side");
            assert!(v[mid + 1..].iter().all(|x| *x >= p), "{ctx}: right side");
            let (mut a, mut b) = (input.to_vec(), v.clone());
            a.sort();
            b.sort();
            assert!(a == b, "{ctx}: not a permutation");
            if was_partitioned {
                // Nothing moved but the pivot (swapped to the front and
                // then to `mid`).
                let moved = input.iter().zip(&v).filter(|(x, y)| x != y).count();
                assert!(moved <= 3, "{ctx}: said partitioned, {moved} moved");
            }
        }
    }
}

#[test]
fn partitions_split_around_the_pivot() {
    let mut rng = Rng::new(4);
    let (short, long) = or_miri(
        (40, &[127, 128, 129, 255, 256, 257, 1000, 3000][..]),
        (5, &[129, 300][..]),
    );
    for len in (1..=short).chain(long.iter().copied()) {
        for (name, input) in inputs(len, &mut rng) {
            let keys: Vec<u64> = input.iter().map(|p| p.0).collect();
            check_partition(&keys, &name);
            // Large elements take the block kernel always.
            let big: Vec<[u64; 16]> = keys.iter().map(|&k| [k; 16]).collect();
            check_partition(&big, &format!("{name}, 128-byte elements"));
        }
        let sorted: Vec<u64> = (0..len as u64).collect();
        let (_, was) = partition(&mut sorted.clone(), len / 2, true, &|a, b| a < b);
        assert!(was, "a sorted slice is partitioned (len {len})");
    }
}

/// [`partitions_split_around_the_pivot`] cut for Miri (`.ci/sanitizers`):
/// the lengths that reach each kernel's edges (1 to 3; 129, one block
/// and a bit; 260, more than two blocks of the block kernel), keys with
/// many duplicates and distinct keys, every pivot position and
/// `keep_order`; 128-byte elements (the block kernel always) with distinct
/// keys.
#[test]
fn partitions_split_around_the_pivot_few_inputs() {
    let mut rng = Rng::new(14);
    for len in [1, 2, 3, 129, 260] {
        let dups: Vec<u64> = pairs(&mut rng, len, 3).iter().map(|p| p.0).collect();
        check_partition(&dups, "keys below 3");
        let distinct: Vec<u64> = pairs(&mut rng, len, u64::MAX).iter().map(|p| p.0).collect();
        check_partition(&distinct, "distinct keys");
        let big: Vec<[u64; 16]> = distinct.iter().map(|&k| [k; 16]).collect();
        check_partition(&big, "distinct keys, 128-byte elements");
    }
}

#[test]
fn partition_equal_splits_off_the_minimum() {
    let mut rng = Rng::new(5);
    let (short, long) = or_miri((40, &[300, 1000][..]), (9, &[40, 300][..]));
    for len in (1..=short).chain(long.iter().copied()) {
        for keep_order in [false, true] {
            let input: Vec<u64> = (0..len).map(|_| 10 + rng.below(3)).collect();
            let min = *input.iter().min().unwrap();
            let pivot = input.iter().position(|&x| x == min).unwrap();
            let mut v = input.clone();
            let mid = partition_equal(&mut v, pivot, keep_order, &|a, b| a < b);
            assert!(
                mid >= 1 && v[..mid].iter().all(|&x| x == min),
                "len {len}: left"
            );
            assert!(v[mid..].iter().all(|&x| x > min), "len {len}: right");
        }
    }
}

#[test]
fn partitions_with_an_inconsistent_comparator_permute() {
    let mut rng = Rng::new(6);
    let (short, long) = or_miri((40, &[200, 1000, 5000][..]), (9, &[40, 300][..]));
    for len in (1..=short).chain(long.iter().copied()) {
        for keep_order in [false, true] {
            let input = pairs(&mut rng, len, u64::MAX);
            let mut v = input.clone();
            let (mid, _) = partition(&mut v, len / 2, keep_order, &chaotic());
            assert!(mid < len);
            assert_permutation(&v, "partition, chaotic comparator");
            let mut v = input.clone();
            let mid = partition_equal(&mut v, len / 2, keep_order, &chaotic());
            assert!(mid >= 1 && mid <= len);
            assert_permutation(&v, "partition_equal, chaotic comparator");
            let mut big: Vec<([u64; 16], u32)> = input.iter().map(|p| ([p.0; 16], p.1)).collect();
            let (mid, _) = partition(&mut big, 0, keep_order, &chaotic());
            assert!(mid < len);
            let flat: Vec<(u64, u32)> = big.iter().map(|p| (p.0[0], p.1)).collect();
            assert_permutation(&flat, "partition of 128-byte elements, chaotic");
        }
    }
}

#[test]
fn pivot_samples_tell_sorted_and_descending() {
    for len in [8, 21, 49, 50, 51, 1000] {
        let sorted: Vec<u64> = (0..len).collect();
        let calls = Cell::new(0);
        let is_less = |a: &u64, b: &u64| {
            calls.set(calls.get() + 1);
            a < b
        };
        let (p, looks) = pivot::choose(&sorted, &is_less);
        assert_eq!(looks, Looks::Sorted, "len {len}");
        assert!(p < len as usize && calls.get() <= 12);
        let descending: Vec<u64> = (0..len).rev().collect();
        assert_eq!(pivot::choose(&descending, &is_less).1, Looks::Descending);
        let equal = vec![1u64; len as usize];
        assert_eq!(pivot::choose(&equal, &is_less).1, Looks::Sorted);
        // The pivot is a median of its samples: never the extreme of a
        // long slice with distinct values.
        let mut rng = Rng::new(len);
        let random: Vec<u64> = (0..len).map(|_| rng.next()).collect();
        let (p, _) = pivot::choose(&random, &is_less);
        let rank = random.iter().filter(|&&x| x < random[p]).count();
        assert!(
            rank > 0 && rank + 1 < len as usize,
            "len {len}: pivot of rank {rank}"
        );
    }
}

#[test]
fn spread_median_is_not_fooled_by_periods() {
    // Ascending runs whose length divides `len / 4` put every sample of
    // `pivot::choose` at a run's boundary: its pivot is the second smallest
    // value, a sliver split (`benches/sort.rs`, `sawtooth_short`).
    let runs: Vec<u64> = (0..50_000).map(|i| i % 100).collect();
    let (p, looks) = pivot::choose(&runs, &|a: &u64, b: &u64| a < b);
    assert_eq!((runs[p], looks), (1, Looks::Mixed));
    // The spread sample sees it, and passes a pivot near the middle.
    assert!(!pivot::spread_agrees(&runs, p, &|a: &u64, b: &u64| a < b));
    let middle = runs.iter().position(|&x| x == 50).unwrap();
    assert!(pivot::spread_agrees(&runs, middle, &|a: &u64, b: &u64| a < b));
    // The spread sample's median splits such inputs with at least an
    // eighth of the elements on either side, in at most 120 calls.
    for period in [16, 50, 100, 128, 250, 1000] {
        for len in [2049, 10_000, 50_000, 65_536, 100_000] {
            let v: Vec<u64> = (0..len).map(|i| i % period).collect();
            let calls = Cell::new(0);
            let is_less = |a: &u64, b: &u64| {
                calls.set(calls.get() + 1);
                a < b
            };
            let p = pivot::spread_median(&v, &is_less, None);
            let less = v.iter().filter(|&&x| x < v[p]).count();
            let greater = v.iter().filter(|&&x| x > v[p]).count();
            let len = len as usize;
            assert!(
                less >= len / 8 && greater >= len / 8,
                "runs of {period}, len {len}: pivot {} splits {less} / {greater}",
                v[p]
            );
            assert!(calls.get() <= 120, "{} calls", calls.get());
        }
    }
    // Three fifths zeros: the sample's median is a zero, whose copies
    // would all go right; the next value (1) splits nearer even, unless
    // zero is the piece's known minimum (`floor`), which `partition_equal`
    // splits off in one pass.
    let v: Vec<u64> = (0..10_000).map(|i| u64::from(i % 5 >= 3)).collect();
    let is_less = |a: &u64, b: &u64| a < b;
    assert_eq!(v[pivot::spread_median(&v, &is_less, None)], 1);
    assert_eq!(v[pivot::spread_median(&v, &is_less, Some(&0))], 0);
}

#[test]
fn small_sort_is_stable() {
    check_stable_sort(
        |v| {
            for piece in v.chunks_mut(small::MAX_LEN) {
                small::sort(piece, &by_key);
            }
            // The chunks are sorted; the whole only when it is one chunk.
            if v.len() > small::MAX_LEN {
                v.sort_by_key(|p| p.0);
            }
        },
        "small::sort",
    );
    // Elements too large for the scratch arrays are inserted.
    let mut rng = Rng::new(7);
    for len in 0..=small::MAX_LEN {
        let input: Vec<([u64; 8], u32)> = (0..len).map(|i| ([rng.below(4); 8], i as u32)).collect();
        let mut expected = input.clone();
        expected.sort_by_key(|p| p.0);
        let mut v = input;
        small::sort(&mut v, &|a: &([u64; 8], u32), b: &([u64; 8], u32)| {
            a.0 < b.0
        });
        assert!(v == expected, "small::sort of 64-byte elements, len {len}");
    }
}

#[test]
fn small_sort_with_an_inconsistent_comparator_permutes() {
    let mut rng = Rng::new(8);
    for len in 0..=small::MAX_LEN {
        for _ in 0..20 {
            let mut v = pairs(&mut rng, len, 10);
            small::sort(&mut v, &chaotic());
            assert_permutation(&v, "small::sort, chaotic comparator");
        }
    }
}

#[test]
fn merges_from_both_ends() {
    let mut rng = Rng::new(9);
    let merge = |src: &[(u64, u32)], na: usize, is_less: &dyn Fn(&Pair, &Pair) -> bool| {
        let mut out = vec![(0, 0); src.len()];
        // SAFETY: both buffers hold `len` `Copy` elements.
        unsafe {
            both_ends::merge(
                src.as_ptr(),
                na,
                src.as_ptr().add(na),
                src.len() - na,
                out.as_mut_ptr(),
                &is_less,
            )
        };
        out
    };
    for len in 0..=70 {
        for na in 0..=len {
            for range in [3, u64::MAX] {
                let mut src = pairs(&mut rng, len, range);
                src[..na].sort_by_key(|p| p.0);
                src[na..].sort_by_key(|p| p.0);
                let mut expected = src.clone();
                expected.sort_by_key(|p| p.0);
                let out = merge(&src, na, &by_key);
                assert!(
                    out == expected,
                    "both_ends::merge, runs {na} and {}",
                    len - na
                );
                // Inconsistent: a permutation all the same.
                let out = merge(&src, na, &chaotic());
                assert_permutation(&out, "both_ends::merge, chaotic comparator");
                let out = merge(&src, na, &|_, _| true);
                assert_permutation(&out, "both_ends::merge, always less");
            }
        }
    }
}

#[test]
fn stable_sequential_sorts_match_std() {
    let mut scratch: Vec<(u64, u32)> = Vec::with_capacity(stable::MAX_LEN);
    let buf = scratch.as_mut_ptr();
    // SAFETY (all three): `buf` has room for `MAX_LEN >= len` elements and
    // is a separate allocation.
    check_stable_sort(|v| unsafe { stable::sort(v, buf, &by_key) }, "stable::sort");
    check_stable_sort(
        |v| unsafe { stable::merge_sort(v, buf, &by_key) },
        "stable::merge_sort",
    );
    check_stable_sort(
        |v| unsafe { stable_quick::sort(v, buf, &by_key) },
        "stable_quick::sort",
    );
    // The quicksort's fallback: no budget left.
    check_stable_sort(
        |v| unsafe { stable_quick::sort_piece(v, buf, None, 0, &by_key) },
        "stable_quick without budget",
    );
}

#[test]
fn stable_merge_trims_and_picks_a_direction() {
    let mut scratch: Vec<(u64, u32)> = Vec::with_capacity(4096);
    let buf = scratch.as_mut_ptr();
    let mut rng = Rng::new(10);
    for len in [2, 3, 10, 100, 1000] {
        for mid in [1, len / 3, len / 2, len - len / 3, len - 1] {
            for range in [3, 50, u64::MAX] {
                let mut v = pairs(&mut rng, len, range);
                v[..mid].sort_by_key(|p| p.0);
                v[mid..].sort_by_key(|p| p.0);
                let mut expected = v.clone();
                expected.sort_by_key(|p| p.0);
                // SAFETY: the scratch has room for half of `v`.
                unsafe { stable::merge(&mut v, mid, buf, &by_key) };
                assert!(
                    v == expected,
                    "stable::merge, len {len}, mid {mid}, keys below {range}"
                );
            }
        }
    }
}

#[test]
fn stable_sequential_sorts_with_an_inconsistent_comparator_permute() {
    let mut scratch: Vec<(u64, u32)> = Vec::with_capacity(stable::MAX_LEN);
    let buf = scratch.as_mut_ptr();
    let mut rng = Rng::new(12);
    for len in [0, 1, 2, 5, 33, 100, 1000, 4096] {
        let input = pairs(&mut rng, len, 1000);
        for which in 0..3 {
            let mut v = input.clone();
            // SAFETY: as in `stable_sequential_sorts_match_std`.
            unsafe {
                match which {
                    0 => stable::sort(&mut v, buf, &chaotic()),
                    1 => stable::merge_sort(&mut v, buf, &chaotic()),
                    _ => stable_quick::sort(&mut v, buf, &chaotic()),
                }
            }
            assert_permutation(
                &v,
                &format!("stable sort {which}, chaotic comparator, len {len}"),
            );
        }
    }
}

#[test]
fn find_run_takes_the_longest_prefix() {
    let lt = |a: &u32, b: &u32| a < b;
    assert_eq!(stable::find_run(&[] as &[u32], &lt), (0, false));
    assert_eq!(stable::find_run(&[5], &lt), (1, false));
    assert_eq!(stable::find_run(&[1, 2, 2, 3, 1], &lt), (4, false));
    assert_eq!(stable::find_run(&[3, 2, 1, 1], &lt), (3, true));
    assert_eq!(stable::find_run(&[2, 2, 1], &lt), (2, false));
    assert_eq!(stable::find_run(&[4, 3, 2, 1], &lt), (4, true));
}
