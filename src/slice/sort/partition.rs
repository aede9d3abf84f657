//! The unstable quicksort's partitions: around a pivot ([`partition`])
//! and, for runs of elements equal to a piece's minimum, around it
//! ([`partition_equal`]).
//!
//! Two kernels do the moving:
//!
//! - [`sweep`]: one branch-free pass that moves every element, with a
//!   moving empty slot. No mispredicted branch, which is what costs most
//!   when comparing is cheap; used for small elements in pieces that do not
//!   look sorted.
//! - [`blocks`]: compares blocks at both ends without branching, then
//!   exchanges only the misplaced elements, each moved once. Used for
//!   large elements (moves cost more than branches) and for pieces that
//!   look sorted: it keeps their order nearly intact, so that the pieces
//!   below can finish by insertion, where [`sweep`] would rotate them.
//!
//! Panic safety: [`sweep`] holds one element in a [`Hole`] while exactly
//! one slot is empty; [`blocks`] moves nothing while the comparator runs.
//! Either way a comparator that panics leaves every element in the slice
//! once. Both call the comparator once per element and bound every loop by
//! indices, so an inconsistent comparator gets some split, never an
//! out-of-bounds access; the count they return is the number of elements
//! they put on the left, whatever the comparator answered.

use std::ptr;

use super::hole::Hole;

/// Elements up to this size are partitioned by [`sweep`] (unless the piece
/// looks sorted), larger ones by [`blocks`].
const MAX_SWEEP_SIZE: usize = 96;

/// Partitions `v` around `v[pivot]`: returns `(mid, was_partitioned)`
/// where `v[mid]` is the pivot, the elements of `v[..mid]` are less than
/// it and those of `v[mid + 1..]` are not. `keep_order` asks for the
/// kernel that moves only misplaced elements ([`blocks`]); with it (and
/// for large elements) `was_partitioned` says that no element had to move
/// (apart from the pivot), otherwise it is `false`. At most `len - 1`
/// calls.
pub(super) fn partition<T>(
    v: &mut [T],
    pivot: usize,
    keep_order: bool,
    is_less: &impl Fn(&T, &T) -> bool,
) -> (usize, bool) {
    v.swap(0, pivot);
    let (head, rest) = v.split_at_mut(1);
    let pivot = &head[0];
    let goes_left = |x: &T, p: &T| is_less(x, p);
    let (mid, was_partitioned) = if size_of::<T>() <= MAX_SWEEP_SIZE && !keep_order {
        // A piece that does not look sorted is rarely partitioned already:
        // no scan for it (its mispredicted exits would cost more).
        (sweep(rest, pivot, &goes_left), false)
    } else {
        // Elements already on the right side at either end stay where
        // they are: an already partitioned slice costs one comparison per
        // element and no move.
        let l = rest
            .iter()
            .position(|x| !is_less(x, pivot))
            .unwrap_or(rest.len());
        let r = rest[l..]
            .iter()
            .rposition(|x| is_less(x, pivot))
            .map_or(l, |k| l + k + 1);
        // With a consistent comparator `r == l` or `r >= l + 2` here; `r
        // == l + 1` means that `rest[l]` was judged both ways: call it
        // right.
        if r <= l + 1 {
            (l, true)
        } else {
            // `rest[l]` goes right and `rest[r - 1]` left: swap them,
            // then split what lies between.
            rest.swap(l, r - 1);
            let inner = &mut rest[l + 1..r - 1];
            (l + 1 + blocks(inner, pivot, &goes_left), false)
        }
    };
    v.swap(0, mid);
    (mid, was_partitioned)
}

/// Moves the elements equal to `v[pivot]`, which must be the minimum of
/// `v` as far as the comparator knows, to the front: returns `mid` such
/// that `v[..mid]` are not greater than the pivot (the pivot included) and
/// `v[mid..]` are greater. `mid >= 1`. At most `len - 1` calls.
pub(super) fn partition_equal<T>(
    v: &mut [T],
    pivot: usize,
    keep_order: bool,
    is_less: &impl Fn(&T, &T) -> bool,
) -> usize {
    v.swap(0, pivot);
    let (head, rest) = v.split_at_mut(1);
    1 + split(rest, &head[0], keep_order, &|x: &T, p: &T| !is_less(p, x))
}

/// Moves the elements `x` with `goes_left(x, pivot)` to the front of `v`
/// and returns how many there are. `pivot` must not be in `v`.
fn split<T>(
    v: &mut [T],
    pivot: &T,
    keep_order: bool,
    goes_left: &impl Fn(&T, &T) -> bool,
) -> usize {
    if size_of::<T>() <= MAX_SWEEP_SIZE && !keep_order {
        sweep(v, pivot, goes_left)
    } else {
        blocks(v, pivot, goes_left)
    }
}

/// [`split`] in one branch-free pass with a moving empty slot.
///
/// The first element is held in a [`Hole`], which leaves its slot empty.
/// Before examining `v[r]`, with `l` elements found to go left so far:
/// `v[..l]` go left; `v[l..r]` do not, except the empty slot at `r - 1`.
/// Step: compare `v[r]`; move `v[l]` into the empty slot (nothing moves if
/// `l` is that slot), move `v[r]` to `l`; the empty slot is now `r`; `l`
/// grows by one if `v[r]` went left. The held element is placed last, as if
/// it sat at `len`.
fn sweep<T>(v: &mut [T], pivot: &T, goes_left: &impl Fn(&T, &T) -> bool) -> usize {
    let len = v.len();
    if len == 0 {
        return 0;
    }
    let base = v.as_mut_ptr();
    // SAFETY: every pointer stays in `base..base + len`. Between calls the
    // hole's slot is the only empty one and the hole holds the missing
    // element (see above); `l <= r - 1`, so a source is never `r` itself
    // except as the slot just emptied.
    unsafe {
        let mut hole = Hole::take(base);
        let mut l = 0;
        for r in 1..len {
            let right = base.add(r);
            let left = goes_left(&*right, pivot);
            ptr::copy(base.add(l), hole.pos, 1);
            ptr::copy_nonoverlapping(right, base.add(l), 1);
            hole.pos = right;
            l += left as usize;
        }
        let left = goes_left(hole.value(), pivot);
        ptr::copy(base.add(l), hole.pos, 1);
        hole.pos = base.add(l);
        drop(hole);
        l + left as usize
    }
}

/// Elements compared per block by [`blocks`] (offsets fit in a `u8`).
const BLOCK: usize = 128;

/// [`split`] in blocks: compare up to [`BLOCK`] elements at the left end of
/// the unknown middle and up to as many at the right end, noting the
/// offsets of the misplaced ones (branch-free: every offset is written, the
/// count grows by the comparison's outcome), then exchange misplaced pairs
/// with no comparison at all. Only misplaced elements move, each once,
/// which keeps a nearly ordered piece nearly ordered and moves little of a
/// large element.
///
/// No element moves while the comparator runs, so a panic leaves the slice
/// as it was after the last exchange. Every index is bounded by the block
/// sizes, which never exceed the unknown middle `v[l..r]`.
fn blocks<T>(v: &mut [T], pivot: &T, goes_left: &impl Fn(&T, &T) -> bool) -> usize {
    let mut l = 0;
    let mut r = v.len();
    // Offsets from `l` of the left block's elements that go right, and
    // from `r - 1` (downward) of the right block's elements that go left;
    // `*_next..*_end` are those not exchanged yet.
    let mut offs_l = [0u8; BLOCK];
    let mut offs_r = [0u8; BLOCK];
    let (mut next_l, mut end_l, mut width_l) = (0, 0, BLOCK);
    let (mut next_r, mut end_r, mut width_r) = (0, 0, BLOCK);
    loop {
        let unknown = r - l;
        let last = unknown <= 2 * BLOCK;
        if last {
            // Size the blocks to cover exactly what is left: a block that
            // still has pending offsets keeps its width.
            if next_l < end_l {
                width_r = unknown - width_l;
            } else if next_r < end_r {
                width_l = unknown - width_r;
            } else {
                width_l = unknown / 2;
                width_r = unknown - width_l;
            }
        }
        debug_assert!(width_l <= BLOCK && width_r <= BLOCK && width_l + width_r <= r - l);
        if next_l == end_l {
            next_l = 0;
            // SAFETY: the left block `v[l..l + width_l]` is in bounds and
            // `width_l <= BLOCK`.
            end_l = unsafe {
                note_block(v.as_ptr().add(l), 1, width_l, &mut offs_l, |x| {
                    !goes_left(x, pivot)
                })
            };
        }
        if next_r == end_r {
            next_r = 0;
            // SAFETY: the right block `v[r - width_r..r]`, read downward
            // from `r - 1`, is in bounds and `width_r <= BLOCK`.
            end_r = unsafe {
                note_block(
                    v.as_ptr().add(r).wrapping_sub(1),
                    -1,
                    width_r,
                    &mut offs_r,
                    |x| goes_left(x, pivot),
                )
            };
        }
        let count = (end_l - next_l).min(end_r - next_r);
        if count > 0 {
            let left = |k: usize| l + offs_l[next_l + k] as usize;
            let right = |k: usize| r - 1 - offs_r[next_r + k] as usize;
            let base = v.as_mut_ptr();
            // SAFETY: the `left` positions lie in `l..l + width_l` and the
            // `right` ones in `r - width_r..r`, disjoint ranges of `v` (the
            // widths sum to at most `r - l`). A cycle moves each of the
            // `2 * count` elements once: `left(0)` is held, then each
            // `left(k)` takes `right(k)` and each `right(k)` takes
            // `left(k + 1)`, and the held element fills the last
            // `right`. No call happens inside, so nothing can unwind.
            unsafe {
                let held = ptr::read(base.add(left(0)));
                ptr::copy_nonoverlapping(base.add(right(0)), base.add(left(0)), 1);
                for k in 1..count {
                    ptr::copy_nonoverlapping(base.add(left(k)), base.add(right(k - 1)), 1);
                    ptr::copy_nonoverlapping(base.add(right(k)), base.add(left(k)), 1);
                }
                ptr::write(base.add(right(count - 1)), held);
            }
            next_l += count;
            next_r += count;
        }
        if next_l == end_l {
            l += width_l;
        }
        if next_r == end_r {
            r -= width_r;
        }
        if last {
            break;
        }
    }
    // At most one block has misplaced elements left, and the unknown
    // middle is that block: move them, highest offset first, to its far
    // end.
    if next_l < end_l {
        while next_l < end_l {
            end_l -= 1;
            v.swap(l + offs_l[end_l] as usize, r - 1);
            r -= 1;
        }
        r
    } else {
        while next_r < end_r {
            end_r -= 1;
            v.swap(l, r - 1 - offs_r[end_r] as usize);
            l += 1;
        }
        l
    }
}

/// Compares the `width` elements `first`, `first + step`, ... and writes
/// the offsets of those for which `misplaced` holds to the front of
/// `offs`; returns how many there are. Branch-free: every offset is
/// written, and the count grows by the outcome.
///
/// # Safety
/// The `width` elements must be valid for reads, and `width <= BLOCK`.
#[inline(always)]
unsafe fn note_block<T>(
    first: *const T,
    step: isize,
    width: usize,
    offs: &mut [u8; BLOCK],
    misplaced: impl Fn(&T) -> bool,
) -> usize {
    let offs = offs.as_mut_ptr();
    let mut end = offs;
    let mut elem = first;
    for i in 0..width {
        // SAFETY: `elem` is the `i`-th element and `end` is at most the
        // `i`-th offset, both in bounds (caller).
        unsafe {
            *end = i as u8;
            end = end.add(misplaced(&*elem) as usize);
            elem = elem.wrapping_offset(step);
        }
    }
    // SAFETY: `end` was derived from `offs` and moved forward.
    unsafe { end.offset_from(offs) as usize }
}
