//! Insertion sorts: the short pieces of both sorts and the "nearly sorted"
//! exit of the quicksort.
//!
//! An insertion takes one element out into a [`Hole`] and shifts greater
//! neighbours over it one slot at a time; the hole is always the one empty
//! slot, so a comparator that panics leaves every element in the slice
//! exactly once. Each loop is bounded by the slice's indices, not by what
//! the comparator answers: an inconsistent comparator gets some order, never
//! an out-of-bounds access, and an insertion into a prefix of `k` elements
//! makes at most `k` calls.

use std::ptr;

use super::hole::Hole;

/// Moves the last element of `v` left past every element greater than it.
/// If `v[..len - 1]` is sorted, `v` is sorted afterwards. Stable: the moved
/// element stops behind the first element that is not greater. At most
/// `len - 1` calls.
pub(super) fn insert_last<T>(v: &mut [T], is_less: &impl Fn(&T, &T) -> bool) {
    let len = v.len();
    if len < 2 || !is_less(&v[len - 1], &v[len - 2]) {
        return;
    }
    let base = v.as_mut_ptr();
    // SAFETY: every index used is below `len`. The hole starts at the last
    // slot; each shift copies the element left of the hole into it and
    // moves the hole left by one, so between calls exactly the hole's slot
    // is empty and the hole holds the missing element.
    unsafe {
        let mut hole = Hole::take(base.add(len - 1));
        let mut j = len - 1;
        loop {
            ptr::copy_nonoverlapping(base.add(j - 1), base.add(j), 1);
            j -= 1;
            hole.pos = base.add(j);
            if j == 0 || !is_less(hole.value(), &*base.add(j - 1)) {
                break;
            }
        }
    }
}

/// Moves the first element of `v` right past every element less than it.
/// If `v[1..]` is sorted, `v` is sorted afterwards. At most `len - 1`
/// calls.
pub(super) fn insert_first<T>(v: &mut [T], is_less: &impl Fn(&T, &T) -> bool) {
    let len = v.len();
    if len < 2 || !is_less(&v[1], &v[0]) {
        return;
    }
    let base = v.as_mut_ptr();
    // SAFETY: as in `insert_last`, mirrored: the hole moves right.
    unsafe {
        let mut hole = Hole::take(base);
        let mut j = 0;
        loop {
            ptr::copy_nonoverlapping(base.add(j + 1), base.add(j), 1);
            j += 1;
            hole.pos = base.add(j);
            if j + 1 == len || !is_less(&*base.add(j + 1), hole.value()) {
                break;
            }
        }
    }
}

/// Sorts `v` stably, given that `v[..sorted]` is already sorted. At most
/// `len * (len - 1) / 2` calls.
pub(super) fn insertion_sort<T>(v: &mut [T], sorted: usize, is_less: &impl Fn(&T, &T) -> bool) {
    for end in (sorted + 1).max(2)..=v.len() {
        insert_last(&mut v[..end], is_less);
    }
}

/// Out-of-order neighbours that [`partial_insertion_sort`] repairs before
/// it gives up.
const MAX_REPAIRS: usize = 5;

/// Below this length [`partial_insertion_sort`] only checks, without
/// repairing: the caller sorts such short slices cheaply anyway.
const MIN_REPAIR_LEN: usize = 50;

/// Sorts `v` if it is nearly sorted: scans for neighbours out of order and
/// repairs up to [`MAX_REPAIRS`] of them by insertion. Returns whether `v`
/// is now sorted; on `false` it is a permutation of the input. At most
/// `(MAX_REPAIRS + 1) * len` calls: one scan, and each repair inserts into
/// the prefix and the suffix, which together are shorter than `len`.
pub(super) fn partial_insertion_sort<T>(v: &mut [T], is_less: &impl Fn(&T, &T) -> bool) -> bool {
    let len = v.len();
    let mut i = 1;
    for _ in 0..MAX_REPAIRS {
        // The next `i` with `v[i] < v[i - 1]`, if any.
        match v[i - 1..].windows(2).position(|w| is_less(&w[1], &w[0])) {
            Some(k) => i += k,
            None => return true,
        }
        if len < MIN_REPAIR_LEN {
            return false;
        }
        // `v[i] < v[i - 1]`: swap them, then move the smaller one left into
        // the sorted prefix and the greater one right into the suffix.
        v.swap(i - 1, i);
        insert_last(&mut v[..i], is_less);
        insert_first(&mut v[i..], is_less);
    }
    false
}
