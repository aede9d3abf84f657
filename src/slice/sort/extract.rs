//! Nearly sorted pieces of the unstable sort: pull out the few elements
//! that break the order, sort them, and merge them back.
//!
//! A piece that is sorted except for scattered misplaced elements (a sorted
//! slice after some random swaps, a sorted log with late arrivals) costs a
//! quicksort about `log2(len)` partitions, although one pass finds every
//! element that is out of place. [`try_sort`] makes that pass: it keeps a
//! non-decreasing sequence at the front and, whenever the next element is
//! less than the last kept one, drops both (Cook and Kim's division,
//! "Best sorting algorithm for nearly sorted lists", CACM 1980): what is
//! kept is sorted, and at most twice as many elements are dropped as were
//! misplaced. The dropped ones are sorted by the quicksort (they are few)
//! and merged back from the end through a stack buffer, each by a binary
//! search in the kept elements and one block move.
//!
//! Before the pass, [`looks_ordered`] compares 17 elements spread evenly
//! over the piece: a piece whose pivot samples only happened to be in
//! order (random, or made of ascending runs much shorter than the piece)
//! shows descents there and is given up at once. The pass itself gives up,
//! with the piece a permutation of what it was, as soon as more elements
//! were dropped than the buffer holds or than a quarter of the piece. No
//! allocation (the sort is in place, as rayon's).
//!
//! Bounds, for every comparator: the probe calls it at most 16 times, the
//! pass at most `len` times, the merge at most `log2(len) + 1` times per
//! dropped element (at most `len / 4` of them); every index is bounded by
//! the piece's.
//!
//! Panic safety and live copies: the pass moves elements by swaps. During
//! the merge the dropped elements are live in the buffer and their slots in
//! the piece form one gap; a [`Gap`] guard copies them back into the gap if
//! the comparator unwinds. The comparator is given kept elements in the
//! piece and dropped ones in the buffer: always the live copy.

use std::mem::MaybeUninit;
use std::ptr;

/// Bytes of the stack buffer that holds the dropped elements for the
/// merge: 2,048 `u32`, 64 elements of 128 bytes.
const BUF_BYTES: usize = 8192;

/// The buffer, aligned for any element of alignment up to 64.
#[repr(C, align(64))]
struct Buf([MaybeUninit<u8>; BUF_BYTES]);

/// How many elements of `T` the buffer holds (none for zero-sized or
/// over-aligned types).
const fn capacity<T>() -> usize {
    if size_of::<T>() == 0 || align_of::<T>() > 64 {
        0
    } else {
        BUF_BYTES / size_of::<T>()
    }
}

/// Sorts `v` if it is sorted but for a few misplaced elements, using
/// `sort_dropped` (an unstable sort) for those; returns whether `v` is now
/// sorted. On `false`, `v` is a permutation of what it was.
pub(super) fn try_sort<T, L>(v: &mut [T], is_less: &L, sort_dropped: impl FnOnce(&mut [T])) -> bool
where
    L: Fn(&T, &T) -> bool,
{
    if !looks_ordered(v, is_less) {
        return false;
    }
    let limit = capacity::<T>().min(v.len() / 4);
    let Some(kept) = divide(v, limit, is_less) else {
        return false;
    };
    if kept == v.len() {
        return true;
    }
    sort_dropped(&mut v[kept..]);
    merge_on_stack(v, kept, is_less);
    true
}

/// [`merge_back`] through a buffer in this frame: out of line, so that the
/// buffer is on the stack only during the merge, never while the dropped
/// elements are sorted (which may `join` and run other jobs on this
/// stack).
#[inline(never)]
fn merge_on_stack<T>(v: &mut [T], kept: usize, is_less: &impl Fn(&T, &T) -> bool) {
    debug_assert!(v.len() - kept <= capacity::<T>());
    let mut buf = MaybeUninit::<Buf>::uninit();
    // SAFETY: the buffer holds `capacity::<T>() >= len - kept` elements
    // (`divide`'s limit), is aligned for `T` (`capacity` is 0 otherwise)
    // and disjoint from `v`.
    unsafe { merge_back(v, kept, buf.as_mut_ptr().cast::<T>(), is_less) };
}

/// Pieces at least this long are probed by [`looks_ordered`] first.
const PROBE_FROM: usize = 256;

/// Whether `v` may be nearly sorted, judged from 17 elements spread evenly
/// over it (pieces shorter than [`PROBE_FROM`] are not judged): at most a
/// quarter of the 16 neighbouring pairs of samples may be in descending
/// order.
///
/// Why: the quicksort tries the pass when its pivot samples (three
/// adjacent triples and their medians) were in order, which a piece of
/// ascending runs shows whenever the three medians happen to ascend; such a
/// piece drops about one element per element scanned, and the pass would
/// scan until its buffer is full before giving up. Samples far apart see the
/// piece's order at large: in a nearly sorted piece a sample is rarely one
/// of the misplaced elements, each of which makes at most two descents; in a
/// random piece or one of short runs about half the pairs descend. At most
/// 16 calls; nothing moves.
fn looks_ordered<T>(v: &[T], is_less: &impl Fn(&T, &T) -> bool) -> bool {
    if v.len() < PROBE_FROM {
        return true;
    }
    let step = (v.len() - 1) / 16;
    let descents: usize = (0..16)
        .map(|k| usize::from(is_less(&v[(k + 1) * step], &v[k * step])))
        .sum();
    descents <= 4
}

/// The pass: reorders `v` into a non-decreasing prefix of kept elements
/// and the dropped ones after it, and returns the prefix's length; `None`
/// (with `v` some permutation) once more than `limit` are dropped.
///
/// The sorted prefix stays where it is, found by a plain scan (the pass's
/// own first comparisons: each element against the one before; a piece of
/// equal elements is all prefix). Then, before step `i`: `v[..kept]` are
/// kept, `v[kept..i]` dropped. Step: keep `v[i]` (swapped to `kept`) if it
/// is not less than the last kept one; else drop it and the last kept one,
/// which is then just before the dropped ones.
fn divide<T>(v: &mut [T], limit: usize, is_less: &impl Fn(&T, &T) -> bool) -> Option<usize> {
    let first = v.windows(2).position(|w| is_less(&w[1], &w[0]));
    let Some(first) = first else {
        return Some(v.len());
    };
    // `v[first + 1] < v[first]`: both are dropped.
    if limit < 2 {
        return None;
    }
    let mut kept = first;
    for i in first + 2..v.len() {
        if kept == 0 || !is_less(&v[i], &v[kept - 1]) {
            if kept != i {
                v.swap(kept, i);
            }
            kept += 1;
        } else {
            kept -= 1;
            if i + 1 - kept > limit {
                return None;
            }
        }
    }
    Some(kept)
}

/// Merges the sorted runs `v[..kept]` and `v[kept..]` (the second one
/// short), from the end: the second run goes to `buf`, then its elements,
/// greatest first, each find their place among the first run's by a binary
/// search, the first run's elements after that place move up by the number
/// of buffered elements left, and the element goes into the slot before
/// them.
///
/// # Safety
/// `buf` must be valid for `v.len() - kept` elements of `T`, aligned and
/// disjoint from `v`.
unsafe fn merge_back<T>(v: &mut [T], kept: usize, buf: *mut T, is_less: &impl Fn(&T, &T) -> bool) {
    let base = v.as_mut_ptr();
    let dropped = v.len() - kept;
    // SAFETY: `v[kept..]` is in bounds and `buf` holds `dropped` elements
    // (caller). From here the buffer's copies are live and `v[kept..]` is
    // the gap; the guard describes that until the last element is back.
    unsafe {
        ptr::copy_nonoverlapping(base.add(kept), buf, dropped);
        let mut gap = Gap {
            base,
            start: kept,
            buf,
            len: dropped,
        };
        while gap.len > 0 {
            let last = &*buf.add(gap.len - 1);
            // The kept elements not greater than `last`: a binary search,
            // bounded by the indices whatever the comparator answers.
            let run = std::slice::from_raw_parts(base, gap.start);
            let at = run.partition_point(|x| !is_less(last, x));
            // `v[at..start]` move up by `len` to end at the gap's end; the
            // gap is then `v[at..at + len]`.
            ptr::copy(base.add(at), base.add(at + gap.len), gap.start - at);
            gap.start = at;
            ptr::copy_nonoverlapping(buf.add(gap.len - 1), base.add(at + gap.len - 1), 1);
            gap.len -= 1;
        }
    }
}

/// The dropped elements not merged yet: live in `buf[..len]`, belonging to
/// the empty slots `base[start..start + len]`. Dropping copies them there.
struct Gap<T> {
    base: *mut T,
    start: usize,
    buf: *const T,
    len: usize,
}

impl<T> Drop for Gap<T> {
    fn drop(&mut self) {
        // SAFETY: the gap's slots are empty and exactly `len` long, and
        // the buffer's first `len` elements are the live ones missing
        // there.
        unsafe { ptr::copy_nonoverlapping(self.buf, self.base.add(self.start), self.len) };
    }
}
