//! Sequential stable sorts: the leaves of the parallel merge sort and whole
//! slices too short to split ([`sort`]), and the natural merge sort that
//! backs the stable quicksort up ([`merge_sort`]).
//!
//! Both cut the slice into sorted runs from left to right and then merge
//! them pairwise, pass after pass, in place with a scratch buffer
//! ([`merge`]). [`find_run`] finds the longest prefix that is non-descending
//! or strictly descending (a descending one is reversed, which keeps
//! stability because no two of its elements are equal).
//!
//! - [`sort`] keeps runs of at least [`GOOD_RUN`] elements and sorts the
//!   stretches between them with the stable quicksort
//!   ([`super::stable_quick`]): sorted, reversed, sawtooth and nearly sorted
//!   input cost a few merges, random input one quicksort.
//! - [`merge_sort`] extends every run shorter than [`MIN_RUN`] by
//!   insertion.
//!
//! A merge first skips the elements already in place at both ends, so two
//! runs already in order cost one comparison, and copies the shorter
//! remaining run out to the scratch.
//!
//! Calls, whatever the comparator answers: finding runs at most `len` plus
//! one probe per [`GOOD_RUN`] elements; [`merge_sort`]'s insertions at
//! most `len * MIN_RUN / 2`; each merge pass at most `len` plus two binary
//! searches per merge, with at most `log2(len / MIN_RUN) + 1` passes; the
//! quicksort as stated there. Every loop is bounded by indices.
//!
//! Panic safety: a merge copies the shorter run out to the scratch, which
//! leaves its slots logically empty; a [`Pending`] guard owns the copied
//! elements not yet merged and the empty slots they fill, and its `Drop`
//! copies them back without comparing. Insertion and reversal are
//! panic-safe on their own, and so is the quicksort (see there).

use std::ptr;

use super::insertion::insertion_sort;
use super::{small, stable_quick};

/// [`merge_sort`] extends runs shorter than this (but the last) to this
/// length by insertion sort.
pub(super) const MIN_RUN: usize = 20;

/// Runs at least this long are kept by [`sort`]; shorter ones are left to
/// the quicksort.
const GOOD_RUN: usize = 32;

/// Elements larger than this are sorted by [`merge_sort`] alone.
const MAX_QUICK_SIZE: usize = 32;

/// The longest slice [`sort`] and [`merge_sort`] take: they keep the
/// boundaries of their runs in an array on the stack. Under Miri it is
/// smaller, so that the parallel merge sort's leaves and merges are
/// reached by tests of 100 elements (`docs/sanitizers.md`).
pub(super) const MAX_LEN: usize = if cfg!(miri) { 64 } else { 4096 };

/// Runs of a slice of at most [`MAX_LEN`] elements, plus one boundary.
const MAX_BOUNDARIES: usize = MAX_LEN / MIN_RUN + 2;

/// The length of the longest prefix of `v` that is non-descending or
/// strictly descending, and whether it is descending. At most `len - 1`
/// calls. One pair per step, not [`runs::first_pair`]'s blocks: the
/// leaves probe random input every [`GOOD_RUN`] elements, where a block
/// would add up to 16 calls per probe.
///
/// [`runs::first_pair`]: super::runs::first_pair
pub(super) fn find_run<T>(v: &[T], is_less: &impl Fn(&T, &T) -> bool) -> (usize, bool) {
    let len = v.len();
    if len < 2 {
        return (len, false);
    }
    let descending = is_less(&v[1], &v[0]);
    // The first pair (from the second one on) that breaks the run.
    let pairs = v[1..].windows(2);
    let stop = if descending {
        pairs.take_while(|w| is_less(&w[1], &w[0])).count()
    } else {
        pairs.take_while(|w| !is_less(&w[1], &w[0])).count()
    };
    (stop + 2, descending)
}

/// Sorts `v` (at most [`MAX_LEN`] elements) stably: a merge sort leaf.
///
/// Long runs (at least [`GOOD_RUN`] elements, non-descending or strictly
/// descending) are kept as they are (reversed if descending); what lies
/// between them is sorted by the stable quicksort; then everything is
/// merged. A probe that finds a short run skips [`GOOD_RUN`] elements
/// ahead, so random input costs few probes.
///
/// # Safety
/// `scratch` must be valid for writes of `v.len()` elements and must not
/// overlap `v`; its contents are ignored and left logically
/// uninitialized.
pub(super) unsafe fn sort<T>(v: &mut [T], scratch: *mut T, is_less: &impl Fn(&T, &T) -> bool) {
    let len = v.len();
    assert!(
        len <= MAX_LEN,
        "stable::sort takes at most MAX_LEN elements"
    );
    if len <= small::threshold::<T>() {
        small::sort(v, is_less);
        return;
    }
    if size_of::<T>() > MAX_QUICK_SIZE {
        // The quicksort copies every element twice per level, a merge
        // pass about one and a half times: for large elements the copies
        // cost more than the merge sort's extra comparisons.
        // SAFETY: as required of this function.
        unsafe { merge_sort(v, scratch, is_less) };
        return;
    }
    let mut bounds = Bounds::new();
    let mut unsorted_from = None;
    let mut start = 0;
    while start < len {
        let (run, descending) = find_run(&v[start..], is_less);
        if run < GOOD_RUN {
            unsorted_from.get_or_insert(start);
            start = (start + GOOD_RUN).min(len);
            continue;
        }
        if let Some(from) = unsorted_from.take() {
            // SAFETY: `scratch` has room for `len` elements (caller).
            unsafe { stable_quick::sort(&mut v[from..start], scratch, is_less) };
            bounds.push(start);
        }
        if descending {
            v[start..start + run].reverse();
        }
        start += run;
        bounds.push(start);
    }
    if let Some(from) = unsorted_from {
        // SAFETY: as above.
        unsafe { stable_quick::sort(&mut v[from..], scratch, is_less) };
        bounds.push(len);
    }
    // SAFETY: as above (merges need at most half).
    unsafe { bounds.merge_all(v, scratch, is_less) };
}

/// Sorts `v` (at most [`MAX_LEN`] elements) stably by merging natural
/// runs, each extended to [`MIN_RUN`] by insertion: the stable
/// quicksort's fallback, O(n log n) calls for any comparator.
///
/// # Safety
/// `scratch` must be valid for writes of `v.len() / 2` elements and must
/// not overlap `v`.
pub(super) unsafe fn merge_sort<T>(
    v: &mut [T],
    scratch: *mut T,
    is_less: &impl Fn(&T, &T) -> bool,
) {
    let len = v.len();
    assert!(
        len <= MAX_LEN,
        "stable::merge_sort takes at most MAX_LEN elements"
    );
    let mut bounds = Bounds::new();
    let mut start = 0;
    while start < len {
        let (mut run, descending) = find_run(&v[start..], is_less);
        if descending {
            v[start..start + run].reverse();
        }
        if run < MIN_RUN {
            let end = (start + MIN_RUN).min(len);
            insertion_sort(&mut v[start..end], run, is_less);
            run = end - start;
        }
        start += run;
        bounds.push(start);
    }
    // SAFETY: as required of this function.
    unsafe { bounds.merge_all(v, scratch, is_less) };
}

/// The boundaries of consecutive sorted runs of a slice of at most
/// [`MAX_LEN`] elements, each run (but the last) at least [`MIN_RUN`]
/// long: `ends[..count]`, starting with 0.
struct Bounds {
    ends: [usize; MAX_BOUNDARIES],
    count: usize,
}

impl Bounds {
    fn new() -> Self {
        Bounds {
            ends: [0; MAX_BOUNDARIES],
            count: 1,
        }
    }

    /// Ends the current run at `end`.
    fn push(&mut self, end: usize) {
        self.ends[self.count] = end;
        self.count += 1;
    }

    /// Merges the runs of `v` pairwise, pass after pass, into one.
    ///
    /// # Safety
    /// `scratch` must be valid for writes of `v.len() / 2` elements and
    /// must not overlap `v`.
    unsafe fn merge_all<T>(
        &mut self,
        v: &mut [T],
        scratch: *mut T,
        is_less: &impl Fn(&T, &T) -> bool,
    ) {
        let ends = &mut self.ends;
        let mut count = self.count;
        while count > 2 {
            let mut kept = 1;
            let mut i = 0;
            while i + 2 < count {
                let (lo, mid, hi) = (ends[i], ends[i + 1], ends[i + 2]);
                // SAFETY: the shorter of two runs of `v[lo..hi]` fits in
                // half of `v` (caller).
                unsafe { merge(&mut v[lo..hi], mid - lo, scratch, is_less) };
                ends[kept] = hi;
                kept += 1;
                i += 2;
            }
            if i + 1 < count {
                // An odd run out: it stays for the next pass.
                ends[kept] = ends[i + 1];
                kept += 1;
            }
            count = kept;
        }
    }
}

/// Merges the sorted runs `v[..mid]` and `v[mid..]` stably.
///
/// # Safety
/// `scratch` must be valid for writes of `min(mid, len - mid)` elements and
/// must not overlap `v`.
pub(super) unsafe fn merge<T>(
    v: &mut [T],
    mid: usize,
    scratch: *mut T,
    is_less: &impl Fn(&T, &T) -> bool,
) {
    let len = v.len();
    if mid == 0 || mid == len || !is_less(&v[mid], &v[mid - 1]) {
        return;
    }
    // The elements of the first run not greater than the second's first
    // stay in front, those of the second not less than the first's last stay
    // behind: only what lies between is merged.
    let (a, b) = v.split_at(mid);
    let start = a.partition_point(|x| !is_less(&b[0], x));
    let end = mid + b.partition_point(|x| is_less(x, &a[mid - 1]));
    if start == mid || end == mid {
        return;
    }
    let v = &mut v[start..end];
    let mid = mid - start;
    let len = v.len();
    let base = v.as_mut_ptr();
    // SAFETY: `0 < mid < len`; the scratch has room for the shorter run
    // (caller). Each step moves one element into the empty slot the
    // `Pending` guard describes and updates the guard before the next call,
    // so if `is_less` unwinds the guard copies exactly the unmerged scratch
    // elements into exactly the empty slots.
    unsafe {
        if mid <= len - mid {
            // Forward: the first run goes to the scratch; the output
            // position trails the second run by the scratch's remainder.
            ptr::copy_nonoverlapping(base, scratch, mid);
            let mut rest = Pending {
                src: scratch,
                src_end: scratch.add(mid),
                dst: base,
            };
            let mut b = base.add(mid);
            let b_end = base.add(len);
            while rest.src < rest.src_end && b < b_end {
                // Ties take the first run's element: stable.
                let take_b = is_less(&*b, &*rest.src);
                let from = if take_b { b } else { rest.src };
                ptr::copy_nonoverlapping(from, rest.dst, 1);
                rest.dst = rest.dst.add(1);
                b = b.add(take_b as usize);
                rest.src = rest.src.add(!take_b as usize);
            }
        } else {
            // Backward: the second run goes to the scratch; the output is
            // filled from the end, and the empty slots sit between the
            // first run's remainder and the output.
            ptr::copy_nonoverlapping(base.add(mid), scratch, len - mid);
            let mut rest = Pending {
                src: scratch,
                src_end: scratch.add(len - mid),
                dst: base.add(mid),
            };
            let mut out = base.add(len);
            while rest.src < rest.src_end && base < rest.dst {
                // Ties take the second run's element (it goes last).
                let a_last = rest.dst.sub(1);
                let b_last = rest.src_end.sub(1);
                let take_a = is_less(&*b_last, &*a_last);
                let from = if take_a { a_last } else { b_last };
                out = out.sub(1);
                ptr::copy_nonoverlapping(from, out, 1);
                rest.dst = rest.dst.sub(take_a as usize);
                rest.src_end = rest.src_end.sub(!take_a as usize);
            }
        }
    }
}

/// Scratch elements `src..src_end` that belong in the empty slots starting
/// at `dst`; dropping the guard copies them there.
struct Pending<T> {
    src: *const T,
    src_end: *const T,
    dst: *mut T,
}

impl<T> Drop for Pending<T> {
    fn drop(&mut self) {
        // SAFETY: the guard's owner keeps `src..src_end` the unmerged
        // copies and `dst..` exactly that many empty slots of the slice.
        unsafe {
            let n = self.src_end.offset_from(self.src) as usize;
            ptr::copy_nonoverlapping(self.src, self.dst, n);
        }
    }
}
