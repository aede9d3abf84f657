//! Parallel unstable sort: quicksort whose two sides run in parallel.
//!
//! Each piece longer than [`SEQUENTIAL`] is partitioned around a ninther
//! (median of three medians of three) and both sides are sorted with `join`;
//! shorter pieces are sorted with `std`'s `sort_unstable_by`.
//!
//! - **Many equal elements.** A piece to the right of a pivot knows that
//!   pivot (`pred`), which is at most every element of the piece. If the new
//!   pivot is not greater than `pred`, it equals the piece's minimum: the
//!   piece is split into the elements equal to it (done) and the greater
//!   ones, so runs of equal keys cost one linear pass, not a quadratic
//!   descent.
//! - **Worst case.** A partition whose smaller side holds less than 1/8 of
//!   the piece costs one unit of a budget of `log2(len) + 1`; a piece whose
//!   budget is exhausted takes the exact median as pivot
//!   (`select_nth_unstable_by`, linear in the worst case), so every later
//!   level halves it. Along any path there are O(log n) levels of linear
//!   total work: O(n log n) worst case, and the fallback stays parallel
//!   (rayon's falls back to a sequential heapsort).
//!
//! Panic safety: elements only move by swaps, except inside
//! [`partition_in_place`] (see its gap invariant).

use std::cmp::Ordering;
use std::mem::ManuallyDrop;
use std::ptr;

/// Pieces up to this length are sorted sequentially.
const SEQUENTIAL: usize = 2048;

/// Sorts `v` by `compare`, unstably, in parallel.
pub(super) fn sort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if size_of::<T>() == 0 || v.len() < 2 {
        return;
    }
    let limit = usize::BITS - v.len().leading_zeros();
    sort_piece(v, compare, None, limit);
}

/// Sorts `v`. `pred`, if any, is an element at most every element of `v`
/// (the pivot just left of it); `limit` is the number of unbalanced
/// partitions this piece may still make before it switches to exact
/// medians.
pub(super) fn sort_piece<'a, T, F>(
    mut v: &'a mut [T],
    compare: &F,
    pred: Option<&'a mut T>,
    mut limit: u32,
) where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    loop {
        let len = v.len();
        if len <= SEQUENTIAL {
            v.sort_unstable_by(compare);
            return;
        }
        let mid = if limit == 0 {
            // Exact median: `v[..mid] <= v[mid] <= v[mid + 1..]`.
            let mid = len / 2;
            v.select_nth_unstable_by(mid, compare);
            mid
        } else {
            let pivot = choose_pivot(v, &is_less);
            if let Some(p) = pred.as_deref() {
                if !is_less(p, &v[pivot]) {
                    // pivot <= pred <= every element: the pivot is the
                    // minimum. Elements not greater than it equal it and are
                    // in place; sort the rest.
                    let mid = partition(v, pivot, |x, p| !is_less(p, x));
                    let rest = v;
                    v = &mut rest[mid + 1..];
                    continue;
                }
            }
            let mid = partition(v, pivot, |x, p| is_less(x, p));
            if mid.min(len - 1 - mid) < len / 8 {
                limit -= 1;
            }
            mid
        };
        let (left, rest) = v.split_at_mut(mid);
        let (pivot, right) = rest.split_at_mut(1);
        let pivot = &mut pivot[0];
        crate::join(
            || sort_piece(left, compare, pred, limit),
            || sort_piece(right, compare, Some(pivot), limit),
        );
        return;
    }
}

/// The index of a ninther of `v` (`v.len() >= 8`): the median of the
/// medians of three triples around `len/4`, `len/2` and `3len/4`.
fn choose_pivot<T>(v: &[T], is_less: &impl Fn(&T, &T) -> bool) -> usize {
    let len = v.len();
    debug_assert!(len >= 8);
    let (a, b, c) = (len / 4, len / 2, len / 4 * 3);
    let a = median3(v, a - 1, a, a + 1, is_less);
    let b = median3(v, b - 1, b, b + 1, is_less);
    let c = median3(v, c - 1, c, c + 1, is_less);
    median3(v, a, b, c, is_less)
}

/// The index among `a`, `b`, `c` of the median of `v[a]`, `v[b]`, `v[c]`.
fn median3<T>(v: &[T], a: usize, b: usize, c: usize, is_less: &impl Fn(&T, &T) -> bool) -> usize {
    let ab = is_less(&v[a], &v[b]);
    let bc = is_less(&v[b], &v[c]);
    if ab == bc {
        // a < b < c, or c <= b <= a.
        return b;
    }
    // b is the largest or the smallest; the median is the other extreme of a
    // and c: if a < b (b largest) the larger of a, c, else the smaller.
    let ac = is_less(&v[a], &v[c]);
    if ab == ac { c } else { a }
}

/// Partitions `v` around `v[pivot]` and returns the pivot's new index
/// `mid`: `goes_left(x, pivot)` holds for every `x` in `v[..mid]` and for
/// none in `v[mid + 1..]`.
fn partition<T>(v: &mut [T], pivot: usize, goes_left: impl Fn(&T, &T) -> bool) -> usize {
    v.swap(0, pivot);
    let (p, rest) = v.split_at_mut(1);
    let mid = partition_in_place(rest, &p[0], goes_left);
    // `v[1..=mid]` went left: its last element takes the pivot's place at 0.
    v.swap(0, mid);
    mid
}

/// Moves the elements `x` of `v` for which `goes_left(x, pivot)` to the
/// front and returns how many there are. `pivot` must not be in `v`.
///
/// One branch-free pass with a moving gap. The first element is read out
/// (held by a [`Gap`] guard), which leaves its slot empty. Before examining
/// `v[r]`, with `l` elements found to go left so far:
///
/// - `v[..l]` go left, `v[l..r]` do not, except the gap at `r - 1` (at the
///   start, `l = 0` and `r = 1`: `v[0..1]` is just the gap);
/// - every slot but the gap holds exactly one element, and the guard holds
///   the missing one.
///
/// Step: compare `v[r]`; move `v[l]` into the gap (a no-op if `l` is the
/// gap), move `v[r]` to `l`; the gap is now `r`; `l += 1` if `v[r]` went
/// left. If the comparator panics, the guard writes its element into the
/// gap and the slice again holds every element once.
fn partition_in_place<T>(v: &mut [T], pivot: &T, goes_left: impl Fn(&T, &T) -> bool) -> usize {
    let len = v.len();
    if len == 0 {
        return 0;
    }
    debug_assert!(size_of::<T>() != 0);
    let base = v.as_mut_ptr();
    // SAFETY: every pointer stays in `base..base + len`; the reads and
    // writes keep the gap invariant above, and the guard restores it on
    // unwind.
    unsafe {
        let mut gap = Gap {
            pos: base,
            value: ManuallyDrop::new(ptr::read(base)),
        };
        let mut l = 0;
        for r in 1..len {
            let right = base.add(r);
            let left = goes_left(&*right, pivot);
            // `l <= r - 1`: the source may be the gap itself, never `r`.
            ptr::copy(base.add(l), gap.pos, 1);
            ptr::copy_nonoverlapping(right, base.add(l), 1);
            gap.pos = right;
            l += left as usize;
        }
        // The held element last, as if it sat at `len`: its slot is `l`.
        let left = goes_left(&gap.value, pivot);
        ptr::copy(base.add(l), gap.pos, 1);
        gap.pos = base.add(l);
        drop(gap);
        l + left as usize
    }
}

/// An element held outside the slice while `pos` is the empty slot; on drop
/// (normal or unwinding) the element is written into the slot.
struct Gap<T> {
    pos: *mut T,
    value: ManuallyDrop<T>,
}

impl<T> Drop for Gap<T> {
    fn drop(&mut self) {
        // SAFETY: `pos` is a slot whose content was moved out (logically
        // empty), and `value` is the one element missing from the slice.
        unsafe { ptr::copy_nonoverlapping(&*self.value, self.pos, 1) };
    }
}
