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
/// Each round: the last one's blocks sized to what is left
/// ([`fit_last`]), each block with no pending offset compared
/// ([`note_block`]), the pending pairs exchanged ([`exchange`]), and the
/// blocks left behind once exhausted; then the misplaced elements of at
/// most one block moved to its far end ([`place_rest`]).
///
/// No element moves while the comparator runs, so a panic leaves the slice
/// as it was after the last exchange. Every index is bounded by the block
/// sizes, which never exceed the unknown middle `v[l..r]`.
fn blocks<T>(v: &mut [T], pivot: &T, goes_left: &impl Fn(&T, &T) -> bool) -> usize {
    // The unknown middle is `v[l..r]`.
    let (mut l, mut r) = (0, v.len());
    let (mut left, mut right) = (Block::new(), Block::new());
    loop {
        let unknown = r - l;
        let last = unknown <= 2 * BLOCK;
        if last {
            fit_last(unknown, &mut left, &mut right);
        }
        debug_assert!(
            left.width <= BLOCK && right.width <= BLOCK && left.width + right.width <= r - l
        );
        if left.exhausted() {
            left.next = 0;
            // SAFETY: the left block `v[l..l + left.width]` is in bounds
            // and `left.width <= BLOCK`.
            left.end = unsafe {
                note_block(v.as_ptr().add(l), 1, left.width, &mut left.offs, |x| {
                    !goes_left(x, pivot)
                })
            };
        }
        if right.exhausted() {
            right.next = 0;
            // SAFETY: the right block `v[r - right.width..r]`, read downward
            // from `r - 1`, is in bounds and `right.width <= BLOCK`.
            right.end = unsafe {
                note_block(
                    v.as_ptr().add(r).wrapping_sub(1),
                    -1,
                    right.width,
                    &mut right.offs,
                    |x| goes_left(x, pivot),
                )
            };
        }
        // SAFETY: the blocks lie in `v[l..r]` and do not overlap (the
        // widths sum to at most `r - l`, asserted above).
        unsafe { exchange(v, l, r, &mut left, &mut right) };
        if left.exhausted() {
            l += left.width;
        }
        if right.exhausted() {
            r -= right.width;
        }
        if last {
            break;
        }
    }
    place_rest(v, l, r, &mut left, &mut right)
}

/// One end's block in [`blocks`]: the offsets of its misplaced elements,
/// from `l` upward (left block) or from `r - 1` downward (right block);
/// `next..end` are those not exchanged yet; `width` elements were compared.
struct Block {
    offs: [u8; BLOCK],
    next: usize,
    end: usize,
    width: usize,
}

impl Block {
    fn new() -> Self {
        Block {
            offs: [0; BLOCK],
            next: 0,
            end: 0,
            width: BLOCK,
        }
    }

    /// Whether every misplaced element noted has been exchanged.
    #[inline(always)]
    fn exhausted(&self) -> bool {
        self.next == self.end
    }

    /// Whether misplaced elements noted wait for a partner.
    #[inline(always)]
    fn pending(&self) -> bool {
        self.next < self.end
    }
}

/// Sizes the blocks of the last round of [`blocks`] to cover exactly the
/// `unknown` elements left: a block that still has pending offsets keeps
/// its width, the other takes the rest; else they halve it.
#[inline(always)]
fn fit_last(unknown: usize, left: &mut Block, right: &mut Block) {
    if left.pending() {
        right.width = unknown - left.width;
    } else if right.pending() {
        left.width = unknown - right.width;
    } else {
        left.width = unknown / 2;
        right.width = unknown - left.width;
    }
}

/// Exchanges the pending misplaced elements of the left block (offsets
/// from `l`) and the right block (offsets from `r - 1` downward) pairwise,
/// as many as both have, with no comparison.
///
/// # Safety
/// The left block `v[l..l + left.width]` and the right block
/// `v[r - right.width..r]` must lie in `v` and not overlap.
#[inline(always)]
unsafe fn exchange<T>(v: &mut [T], l: usize, r: usize, left: &mut Block, right: &mut Block) {
    let count = (left.end - left.next).min(right.end - right.next);
    if count == 0 {
        return;
    }
    let to_left = |k: usize| l + left.offs[left.next + k] as usize;
    let to_right = |k: usize| r - 1 - right.offs[right.next + k] as usize;
    let base = v.as_mut_ptr();
    // SAFETY: the `to_left` positions lie in the left block and the
    // `to_right` ones in the right block, disjoint ranges of `v` (caller).
    // A cycle moves each of the `2 * count` elements once: `to_left(0)` is
    // held, then each `to_left(k)` takes `to_right(k)` and each
    // `to_right(k)` takes `to_left(k + 1)`, and the held element fills the
    // last `to_right`. No call happens inside, so nothing can unwind.
    unsafe {
        let held = ptr::read(base.add(to_left(0)));
        ptr::copy_nonoverlapping(base.add(to_right(0)), base.add(to_left(0)), 1);
        for k in 1..count {
            ptr::copy_nonoverlapping(base.add(to_left(k)), base.add(to_right(k - 1)), 1);
            ptr::copy_nonoverlapping(base.add(to_right(k)), base.add(to_left(k)), 1);
        }
        ptr::write(base.add(to_right(count - 1)), held);
    }
    left.next += count;
    right.next += count;
}

/// The end of [`blocks`]: at most one block has misplaced elements left,
/// and the unknown middle `v[l..r]` is that block: moves them, highest
/// offset first, to its far end. Returns how many elements go left.
fn place_rest<T>(
    v: &mut [T],
    mut l: usize,
    mut r: usize,
    left: &mut Block,
    right: &mut Block,
) -> usize {
    if left.pending() {
        while left.pending() {
            left.end -= 1;
            v.swap(l + left.offs[left.end] as usize, r - 1);
            r -= 1;
        }
        r
    } else {
        while right.pending() {
            right.end -= 1;
            v.swap(l, r - 1 - right.offs[right.end] as usize);
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
