//! Sequential stable quicksort through a scratch buffer: the stretches of
//! a merge sort leaf that are not already runs (see [`super::stable`]).
//!
//! A partition reads the piece once, left to right, and copies every
//! element to the scratch: those that go left to its front in order, the
//! others to its back in reverse order; the pivot gets the slot between.
//! Copying the front back, then the back reversed, keeps the input order
//! on both sides. For stability the pivot `p` splits ties by position: an
//! element equal to it goes left if it came before it, right if after.
//! Pieces of at most [`small::threshold`] elements are sorted by
//! [`small::sort`], which is stable.
//!
//! - **Runs.** When the pivot's samples are all in order (or all strictly
//!   descending), the piece is checked for being one run and then is done
//!   (or reversed).
//! - **Many equal elements.** As in the unstable quicksort: a piece right
//!   of a pivot `pred` whose new pivot is not greater than `pred` splits
//!   off the elements equal to it, in order, and they are done.
//! - **Worst case, for every comparator.** A partition whose smaller side
//!   is under 1/8 of the piece costs a unit of a budget of `log2(len) + 1`;
//!   a piece whose budget is spent is sorted by the natural merge sort
//!   ([`stable::merge_sort`]), O(n log n) for any comparator. A partition
//!   always sets the pivot aside (and an equal-elements split always keeps
//!   it), so every step shrinks the piece.
//!
//! Panic safety, and the comparator seeing live elements only: during a
//! partition's pass the slice is not written, and each element is copied
//! to the scratch only after its last comparison of the pass (the pivot at
//! the very end), so if the comparator unwinds the slice still holds every
//! element, with whatever the comparator did to it. Copying back compares
//! nothing.

use std::ops::Range;
use std::ptr;

use super::pivot::{self, Looks};
use super::{small, stable};

/// Sorts `v` stably.
///
/// # Safety
/// `scratch` must be valid for writes of `v.len()` elements and must not
/// overlap `v`; its contents are ignored and left logically uninitialized.
pub(super) unsafe fn sort<T>(v: &mut [T], scratch: *mut T, is_less: &impl Fn(&T, &T) -> bool) {
    let limit = usize::BITS - v.len().leading_zeros();
    // SAFETY: as required of this function.
    unsafe { sort_piece(v, scratch, None, limit, is_less) };
}

/// Sorts `v`; `pred`, if any, is not greater than any element of `v`.
///
/// # Safety
/// As for [`sort`].
pub(super) unsafe fn sort_piece<'a, T>(
    mut v: &'a mut [T],
    scratch: *mut T,
    mut pred: Option<&'a T>,
    mut limit: u32,
    is_less: &impl Fn(&T, &T) -> bool,
) {
    loop {
        let len = v.len();
        if len <= small::threshold::<T>() {
            small::sort(v, is_less);
            return;
        }
        if limit == 0 {
            // SAFETY: `scratch` has room for `len` elements (caller).
            unsafe { stable::merge_sort(v, scratch, is_less) };
            return;
        }
        let (pivot, looks) = pivot::choose(v, is_less);
        if matches!(looks, Looks::Sorted | Looks::Descending) {
            let (run, descending) = stable::find_run(v, is_less);
            if run == len {
                if descending {
                    v.reverse();
                }
                return;
            }
        }
        if let Some(p) = pred {
            if !is_less(p, &v[pivot]) {
                // pivot <= pred <= every element: the elements not
                // greater than the pivot equal it and are done.
                // SAFETY: as for this function.
                let mid = unsafe { partition(v, scratch, pivot, true, is_less) };
                if mid < len / 8 {
                    limit -= 1;
                }
                v = &mut v[mid..];
                continue;
            }
        }
        // SAFETY: as for this function.
        let mid = unsafe { partition(v, scratch, pivot, false, is_less) };
        if mid.min(len - 1 - mid) < len / 8 {
            limit -= 1;
        }
        let (left, rest) = v.split_at_mut(mid);
        let (pivot, right) = rest.split_first_mut().expect("the pivot is in the piece");
        let pivot: &'a T = pivot;
        // The shorter side by recursion, the longer in the loop: the stack
        // stays logarithmic.
        if left.len() < right.len() {
            // SAFETY: as for this function; the sides are shorter.
            unsafe { sort_piece(left, scratch, pred, limit, is_less) };
            v = right;
            pred = Some(pivot);
        } else {
            // SAFETY: as above.
            unsafe { sort_piece(right, scratch, Some(pivot), limit, is_less) };
            v = left;
        }
    }
}

/// Partitions `v` stably around `v[p]` through `scratch` and returns the
/// pivot's new index `mid`.
///
/// Normally (`!equal`) `v[..mid]` holds the elements less than the pivot
/// and those equal to it that came before it, `v[mid + 1..]` the rest.
/// With `equal`, `v[..mid]` holds the elements not greater than the
/// pivot, the pivot included (as the last of those that came before it),
/// and the return value counts it: `mid >= 1`. Both keep the input order
/// on each side. `len - 1` calls.
///
/// # Safety
/// `scratch` must be valid for writes of `v.len()` elements and must not
/// overlap `v`.
unsafe fn partition<T>(
    v: &mut [T],
    scratch: *mut T,
    p: usize,
    equal: bool,
    is_less: &impl Fn(&T, &T) -> bool,
) -> usize {
    let len = v.len();
    let src = v.as_mut_ptr();
    let mut ends = Ends { left: 0, right: 0 };
    // SAFETY: reads are within `v`, which is not written until the copy
    // back; `spread` writes distinct slots of `scratch[..len]`, and the
    // pivot the one slot left between the two ends.
    unsafe {
        let pivot = &*src.add(p);
        ends.spread(src, 0..p, scratch, len, |x| !is_less(pivot, x));
        let pivot_slot = ends.left;
        if equal {
            // The pivot goes left, between the ties before and after it.
            ends.left += 1;
            ends.spread(src, p + 1..len, scratch, len, |x| !is_less(pivot, x));
        } else {
            ends.spread(src, p + 1..len, scratch, len, |x| is_less(x, pivot));
        }
        let (mid, front) = if equal {
            (ends.left, ends.left)
        } else {
            (ends.left, ends.left + 1)
        };
        let pivot_slot = if equal { pivot_slot } else { mid };
        ptr::copy_nonoverlapping(src.add(p), scratch.add(pivot_slot), 1);
        // Back: the front in order (with the pivot), the back reversed.
        ptr::copy_nonoverlapping(scratch, src, front);
        for k in 0..len - front {
            ptr::copy_nonoverlapping(scratch.add(len - 1 - k), src.add(front + k), 1);
        }
        mid
    }
}

/// How many elements a partition has written to each end of the scratch.
struct Ends {
    left: usize,
    right: usize,
}

impl Ends {
    /// Copies `src[range]` to the scratch: the elements for which
    /// `goes_left` holds to the front (upward from `left`), the others to
    /// the back (downward from `len - 1 - right`), branch-free.
    ///
    /// # Safety
    /// `src[range]` readable; the scratch writable for `len` elements, with
    /// room between the ends for the whole range.
    #[inline(always)]
    unsafe fn spread<T>(
        &mut self,
        src: *const T,
        range: Range<usize>,
        scratch: *mut T,
        len: usize,
        goes_left: impl Fn(&T) -> bool,
    ) {
        for i in range {
            // SAFETY: as the caller promises.
            unsafe {
                let goes = goes_left(&*src.add(i));
                let slot = if goes {
                    self.left
                } else {
                    len - 1 - self.right
                };
                ptr::copy_nonoverlapping(src.add(i), scratch.add(slot), 1);
                self.left += goes as usize;
                self.right += !goes as usize;
            }
        }
    }
}
