//! Sequential stable sort: the leaves of the parallel merge sort and whole
//! slices too short to split.
//!
//! A natural merge sort. The slice is cut into runs from left to right:
//! each run starts as the longest prefix that is non-descending or strictly
//! descending ([`find_run`]; a descending one is reversed, which keeps
//! stability because no two of its elements are equal), and a run shorter
//! than [`MIN_RUN`] is extended to it by insertion. The runs are then
//! merged pairwise, pass after pass, in place with a scratch buffer
//! ([`merge`]). A merge first skips the elements already in place at both
//! ends, so two runs already in order cost one comparison, and copies the
//! shorter remaining run out to the scratch.
//!
//! Calls, whatever the comparator answers: the runs cost at most
//! `len * (1 + MIN_RUN / 2)`, each pass at most `len` plus two binary
//! searches per merge, and there are at most `log2(len / MIN_RUN) + 1`
//! passes. Every loop is bounded by indices.
//!
//! Panic safety: a merge copies the shorter run out to the scratch, which
//! leaves its slots logically empty; a [`Pending`] guard owns the copied
//! elements not yet merged and the empty slots they fill, and its `Drop`
//! copies them back without comparing. Insertion and reversal are
//! panic-safe on their own.

use std::ptr;

use super::insertion::insertion_sort;

/// Runs shorter than this (but the last) are extended to this length by
/// insertion sort.
pub(super) const MIN_RUN: usize = 20;

/// The longest slice [`sort`] takes: it keeps the boundaries of its runs in
/// an array on the stack.
pub(super) const MAX_LEN: usize = 4096;

/// Runs of a slice of at most [`MAX_LEN`] elements, plus one boundary.
const MAX_BOUNDARIES: usize = MAX_LEN / MIN_RUN + 2;

/// The length of the longest prefix of `v` that is non-descending or
/// strictly descending, and whether it is descending. At most `len - 1`
/// calls.
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

/// Sorts `v` (at most [`MAX_LEN`] elements) stably.
///
/// # Safety
/// `scratch` must be valid for writes of `v.len() / 2` elements and must
/// not overlap `v`; its contents are ignored and left logically
/// uninitialized.
pub(super) unsafe fn sort<T>(v: &mut [T], scratch: *mut T, is_less: &impl Fn(&T, &T) -> bool) {
    let len = v.len();
    assert!(len <= MAX_LEN, "stable::sort takes at most MAX_LEN elements");
    if len <= MIN_RUN {
        insertion_sort(v, 1, is_less);
        return;
    }
    let mut bounds = [0usize; MAX_BOUNDARIES];
    let mut count = 1;
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
        bounds[count] = start;
        count += 1;
    }
    // Every run but the last has at least MIN_RUN elements, so they fit.
    while count > 2 {
        let mut kept = 1;
        let mut i = 0;
        while i + 2 < count {
            let (lo, mid, hi) = (bounds[i], bounds[i + 1], bounds[i + 2]);
            // SAFETY: `scratch` has room for half of `v`, hence for the
            // shorter of two runs of `v[lo..hi]` (caller).
            unsafe { merge(&mut v[lo..hi], mid - lo, scratch, is_less) };
            bounds[kept] = hi;
            kept += 1;
            i += 2;
        }
        if i + 1 < count {
            // An odd run out: it stays for the next pass.
            bounds[kept] = bounds[i + 1];
            kept += 1;
        }
        count = kept;
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
