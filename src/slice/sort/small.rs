//! Small pieces (at most [`MAX_LEN`] elements) of both quicksorts: a
//! stable sort without mispredicted branches.
//!
//! Elements of at most [`MAX_SIZE`] bytes, pieces of at least 8: a
//! bottom-up merge sort through two scratch arrays on the stack. The piece
//! is cut into `2^depth` leaves of 4 to 8 elements (halving evenly); a
//! leaf is
//! copied out sorted by a branch-free network for its first four elements
//! ([`sort4`]) and insertion for the rest; then each level merges pairs of
//! runs from both ends at once ([`both_ends::merge`]: two independent
//! chains of comparisons, no branch on their outcomes), alternating between the
//! scratch arrays so that the last level writes into the slice. Larger
//! elements, and shorter pieces, are insertion sorted in place.
//!
//! Ownership: an element is *live* in exactly one place, and the
//! comparator only ever sees live elements. Each pass (the leaves, then
//! each merge level) reads one place and writes another, left to right,
//! and finishes a range before it moves on: the elements before position
//! `done` are live in the pass's output, the others in its input. A
//! [`Live`] guard knows both and, if the comparator unwinds, copies the
//! live elements back over the same positions of the slice, so the slice
//! again holds every element exactly once, with whatever the comparator
//! did to them through shared references.
//!
//! Any comparator: every read stays within the runs being merged, and
//! every pass writes each element exactly once (see [`both_ends::merge`]).

use std::mem::{self, MaybeUninit};
use std::ptr;

use super::both_ends;
use super::insertion::{insert_last, insertion_sort};

/// The longest piece [`sort`] takes.
pub(super) const MAX_LEN: usize = 32;

/// Elements larger than this are insertion sorted in place: the scratch
/// would cost stack and the copies more than the branches saved.
const MAX_SIZE: usize = 32;

/// The longest piece a quicksort hands to [`sort`] for elements of type
/// `T`: [`MAX_LEN`] where [`sort`] merges, fewer where it only inserts.
pub(super) const fn threshold<T>() -> usize {
    if size_of::<T>() <= MAX_SIZE {
        MAX_LEN
    } else {
        20
    }
}

/// Sorts `v` (at most [`MAX_LEN`] elements) stably.
pub(super) fn sort<T>(v: &mut [T], is_less: &impl Fn(&T, &T) -> bool) {
    let len = v.len();
    assert!(len <= MAX_LEN, "small::sort takes at most MAX_LEN elements");
    if size_of::<T>() > MAX_SIZE || len < 8 {
        insertion_sort(v, 1, is_less);
        return;
    }
    // Halvings until the leaves are shorter than 8 (and at least 4).
    let mut depth = 0;
    while len >> depth >= 8 {
        depth += 1;
    }
    let mut a = [const { MaybeUninit::<T>::uninit() }; MAX_LEN];
    let mut b = [const { MaybeUninit::<T>::uninit() }; MAX_LEN];
    let slice = v.as_mut_ptr();
    let (a, b) = (a.as_mut_ptr().cast::<T>(), b.as_mut_ptr().cast::<T>());
    // The output of pass `j` (the leaves are pass 0, the last merge level
    // pass `depth`): the slice for the last, the scratch arrays
    // alternately before it.
    let output = |j: u32| {
        if j == depth {
            slice
        } else if (depth - j) % 2 == 1 {
            a
        } else {
            b
        }
    };
    let mut live = Live {
        slice,
        input: slice.cast_const(),
        output: output(0),
        done: 0,
        len,
    };
    // SAFETY: `slice[..len]` is the piece, `a` and `b` hold `MAX_LEN >=
    // len` elements each; the three are disjoint. Every pass writes each
    // position of its output exactly once, from its input, and advances
    // `live.done` past a range right after the range is complete, so
    // `live` describes where every element is live between any two calls.
    unsafe {
        for i in 0..1usize << depth {
            let (start, end) = ((i * len) >> depth, ((i + 1) * len) >> depth);
            let (src, dst) = (slice.add(start), live.output.add(start));
            sort4(src, dst, is_less);
            live.done = start + 4;
            for k in 4..end - start {
                ptr::copy_nonoverlapping(src.add(k), dst.add(k), 1);
                live.done = start + k + 1;
                insert_last(std::slice::from_raw_parts_mut(dst, k + 1), is_less);
            }
        }
        for j in 1..=depth {
            // In this order `live` is right after each assignment.
            live.input = live.output;
            live.done = 0;
            live.output = output(j);
            let level = depth - j;
            for i in 0..1usize << level {
                let (start, end) = ((i * len) >> level, ((i + 1) * len) >> level);
                let mid = ((2 * i + 1) * len) >> (level + 1);
                let (src, dst) = (live.input.add(start), live.output.add(start));
                let (na, nb) = (mid - start, end - mid);
                both_ends::merge(src, na, src.add(na), nb, dst, is_less);
                live.done = end;
            }
        }
    }
    // Every element is live in the slice.
    mem::forget(live);
}

/// Where the elements are live during a pass: `output[..done]` and
/// `input[done..len]`. Dropping copies both over the same positions of the
/// slice (skipping a part that already is the slice).
struct Live<T> {
    slice: *mut T,
    input: *const T,
    output: *mut T,
    done: usize,
    len: usize,
}

impl<T> Drop for Live<T> {
    fn drop(&mut self) {
        // SAFETY: the two ranges hold the live elements, at the positions
        // they belong to; the slice's other copies are stale.
        unsafe {
            if self.output != self.slice {
                ptr::copy_nonoverlapping(self.output, self.slice, self.done);
            }
            if self.input != self.slice.cast_const() {
                ptr::copy_nonoverlapping(
                    self.input.add(self.done),
                    self.slice.add(self.done),
                    self.len - self.done,
                );
            }
        }
    }
}

/// Copies `src[0..4]` to `dst[0..4]` sorted, stably, with five comparisons
/// and no branch on their outcomes. Whatever they answer, each element is
/// copied exactly once.
///
/// # Safety
/// `src[0..4]` must be readable, `dst[0..4]` writable, not overlapping.
unsafe fn sort4<T>(src: *const T, dst: *mut T, is_less: &impl Fn(&T, &T) -> bool) {
    // SAFETY: all pointers are within `src[0..4]` (caller).
    unsafe {
        let (c1, c2) = (
            is_less(&*src.add(1), &*src.add(0)),
            is_less(&*src.add(3), &*src.add(2)),
        );
        // (a, b) and (c, d): the two pairs in order.
        let a = src.add(c1 as usize);
        let b = src.add(!c1 as usize);
        let c = src.add(2 + c2 as usize);
        let d = src.add(2 + !c2 as usize);
        let (c3, c4) = (is_less(&*c, &*a), is_less(&*d, &*b));
        let min = if c3 { c } else { a };
        let max = if c4 { b } else { d };
        // The two left in the middle, in input order for stability.
        let mid_lo = if c3 {
            a
        } else if c4 {
            c
        } else {
            b
        };
        let mid_hi = if c4 {
            d
        } else if c3 {
            b
        } else {
            c
        };
        let c5 = is_less(&*mid_hi, &*mid_lo);
        let (lo, hi) = if c5 {
            (mid_hi, mid_lo)
        } else {
            (mid_lo, mid_hi)
        };
        ptr::copy_nonoverlapping(min, dst, 1);
        ptr::copy_nonoverlapping(lo, dst.add(1), 1);
        ptr::copy_nonoverlapping(hi, dst.add(2), 1);
        ptr::copy_nonoverlapping(max, dst.add(3), 1);
    }
}
