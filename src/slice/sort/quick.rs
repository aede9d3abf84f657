//! Parallel unstable sort: a pattern-defeating quicksort whose two sides
//! run in parallel.
//!
//! A piece longer than [`small::threshold`] is partitioned around a pivot
//! ([`pivot::choose`]: median of three, or of three medians of three,
//! checked against a sample spread over the piece where the split hands
//! work to another worker, [`choose_pivot`]); both
//! sides are sorted with `join` while one of them is longer than
//! [`SEQUENTIAL`], else here (the shorter side by recursion, the longer in
//! the loop, so the stack stays logarithmic). Pieces of at most
//! [`small::threshold`] elements are sorted by [`small::sort`].
//!
//! - **Sorted and reversed input.** Sampling the pivot notes whether the
//!   samples were in order. All in strictly descending order: the piece is
//!   reversed first. In order, and the previous partition was balanced
//!   and moved nothing: a [`partial_insertion_sort`] may finish the piece
//!   in one pass. A whole slice that is one run (non-descending, or
//!   strictly descending) is done before any of this, by one check and,
//!   if it descends, one reversal ([`runs::finish_one_run`]); so a sorted,
//!   reversed or all-equal slice costs one pass and no partition. A piece
//!   that looks sorted but is not may be sorted
//!   but for a few misplaced elements: [`extract::try_sort`] pulls them
//!   out in one pass, sorts them and merges them back, or gives up early
//!   (tried again only on pieces at most half as long). A piece that
//!   still looks sorted is partitioned by the kernel
//!   that moves only misplaced elements, which keeps its sides nearly
//!   sorted for the pieces below.
//! - **Many equal elements.** A piece to the right of a pivot knows that
//!   pivot (`pred`), which is at most every element of the piece. If the
//!   new pivot is not greater than `pred`, it is the piece's minimum: the
//!   elements equal to it are split off ([`partition_equal`]) and are
//!   done, so runs of equal keys cost a linear pass.
//! - **Worst case, for every comparator.** A partition (of either kind)
//!   whose smaller side holds less than 1/8 of the piece is *unbalanced*:
//!   it costs one unit of a budget of `log2(len) + 1` per path, and the next
//!   step shuffles a few elements ([`break_patterns`]) to defeat the
//!   pattern. A piece whose budget is spent is heapsorted. So along any
//!   path at most `log2(len) + 1` steps are unbalanced and every other step
//!   keeps at most 7/8 of the piece: the depth is at most about
//!   `6.2 * log2(len)`. Each level of the recursion calls the comparator
//!   at most about seven times per element (a partition once, a
//!   [`partial_insertion_sort`] at most six times, only where the previous
//!   partition moved nothing, a failed [`extract::try_sort`] once plus 16
//!   calls for its probe, and a new pivot choice, plus at most 151 calls
//!   for the spread sample in a piece longer than [`SEQUENTIAL`]), a successful
//!   [`extract::try_sort`] ends its piece
//!   at most about `log2(len) / 4 + 2` times per element, the heapsort at
//!   most `2 * log2(len)` times per element, a small piece a constant
//!   number of times. This holds
//!   whatever the comparator answers: nothing here relies on its
//!   consistency for termination or memory safety, only for the order of
//!   the result. The check of the whole slice first adds at most one call
//!   per pair plus 17 per leaf of its split (one leaf if it is not split,
//!   [`runs`]). Measured: about `3.2 * n * log2(n)` calls for a comparator
//!   that always answers `Less` (mostly the heapsort), far fewer for
//!   random answers.
//!
//! Panic safety: elements move by swaps, except inside the insertions,
//! partitions and small sorts, whose guards are described there.

use super::extract;
use super::heapsort::heapsort;
use super::insertion::partial_insertion_sort;
use super::partition::{partition, partition_equal};
use super::pivot::{self, Looks};
use super::runs;
use super::small;

/// A partition whose sides are both at most this long sorts them without
/// `join`: below it the cost of a possible steal outweighs the work. Under
/// Miri it is smaller, so that tests of 100 elements reach the
/// parallel path (Miri runs them some thousand times slower; see
/// `docs/sanitizers.md`).
const SEQUENTIAL: usize = if cfg!(miri) { 40 } else { 2048 };

/// What a piece knows from the partitions above it.
#[derive(Clone, Copy)]
pub(super) struct Budget {
    /// Unbalanced partitions this piece may still make before it is
    /// heapsorted.
    pub(super) limit: u32,
    /// The last partition on this path was balanced.
    balanced: bool,
    /// The last partition on this path moved no element.
    partitioned: bool,
    /// Pieces up to this long that look sorted may try
    /// [`extract::try_sort`]: after a failed try only pieces at most half
    /// as long (a random piece that looks sorted is not scanned at every
    /// level), and none inside the sort of the elements it dropped (they
    /// are few).
    extract_below: usize,
}

impl Budget {
    /// The budget of a whole slice of `len` elements.
    pub(super) fn new(len: usize) -> Self {
        Budget {
            limit: usize::BITS - len.leading_zeros(),
            balanced: true,
            partitioned: true,
            extract_below: usize::MAX,
        }
    }
}

/// Sorts `v` unstably, in parallel, into the order where `is_less(a, b)`
/// means `a` goes before `b`.
pub(super) fn sort<T, L>(v: &mut [T], is_less: &L)
where
    T: Send,
    L: Fn(&T, &T) -> bool + Sync,
{
    if size_of::<T>() == 0 || v.len() < 2 {
        return;
    }
    if runs::finish_one_run(v, is_less) {
        return;
    }
    let budget = Budget::new(v.len());
    sort_piece(v, is_less, None, budget);
}

/// Sorts a piece at most `small::threshold` long. Small pieces are often
/// sorted already (runs of equal keys, nearly sorted input): one look, and
/// done if so; a random piece shows a descent within its first few
/// elements.
fn sort_small<T, L>(v: &mut [T], is_less: &L)
where
    L: Fn(&T, &T) -> bool,
{
    let sorted = v.windows(2).all(|w| !is_less(&w[1], &w[0]));
    if !sorted {
        small::sort(v, is_less);
    }
}

/// The nearly-sorted pass ([`extract::try_sort`]) on a piece whose samples
/// look sorted: `None` when it sorted `v` (the pulled-out elements sorted
/// by [`sort_piece`] with the pass off); else only pieces half as long try
/// again below, and the pivot is chosen anew, since the pass reordered the
/// piece and the sampled pivot may now be anywhere in it.
fn extract_or_pivot<T, L>(v: &mut [T], is_less: &L, budget: &mut Budget) -> Option<usize>
where
    T: Send,
    L: Fn(&T, &T) -> bool + Sync,
{
    let sorted = extract::try_sort(v, is_less, |dropped| {
        let inner = Budget {
            extract_below: 0,
            ..Budget::new(dropped.len())
        };
        sort_piece(dropped, is_less, None, inner);
    });
    if sorted {
        return None;
    }
    budget.extract_below = v.len() / 2;
    Some(pivot::choose(v, is_less).0)
}

/// [`pivot::choose`], checked in a piece longer than [`SEQUENTIAL`] whose
/// samples look mixed, where the split decides how much work another worker
/// gets: unless the pivot is the piece's minimum (not above `pred`, whose
/// copies [`partition_equal`] splits off), a sample spread over the whole
/// piece must put at least two elements on each side of it
/// ([`pivot::spread_agrees`]), else the pivot is that sample's median
/// ([`pivot::spread_median`]). The samples of [`pivot::choose`] are
/// adjacent triples, which a periodic pattern can line up with.
fn choose_pivot<T>(v: &[T], is_less: &impl Fn(&T, &T) -> bool, pred: Option<&T>) -> (usize, Looks) {
    let (pivot, looks) = pivot::choose(v, is_less);
    if v.len() <= SEQUENTIAL || looks != Looks::Mixed {
        return (pivot, looks);
    }
    let minimum = pred.is_some_and(|p| !is_less(p, &v[pivot]));
    if minimum || pivot::spread_agrees(v, pivot, is_less) {
        (pivot, looks)
    } else {
        (pivot::spread_median(v, is_less, pred), looks)
    }
}

/// Sorts `v`. `pred`, if any, is an element at most every element of `v`
/// (the pivot just left of it).
pub(super) fn sort_piece<'a, T, L>(
    mut v: &'a mut [T],
    is_less: &L,
    mut pred: Option<&'a mut T>,
    mut budget: Budget,
) where
    T: Send,
    L: Fn(&T, &T) -> bool + Sync,
{
    loop {
        let len = v.len();
        if len <= small::threshold::<T>() {
            sort_small(v, is_less);
            return;
        }
        if budget.limit == 0 {
            heapsort(v, is_less);
            return;
        }
        if !budget.balanced {
            break_patterns(v);
            budget.limit -= 1;
        }
        let (mut pivot, looks) = choose_pivot(v, is_less, pred.as_deref());
        if looks == Looks::Descending {
            // Probably descending: reversed, it probably ascends.
            v.reverse();
            pivot = len - 1 - pivot;
        }
        let likely_sorted = matches!(looks, Looks::Sorted | Looks::Descending);
        // Keep the order of a piece that is nearly sorted, for the pieces
        // below; a random one is partitioned fastest by the sweep.
        let keep_order = looks != Looks::Mixed;
        if budget.balanced
            && budget.partitioned
            && likely_sorted
            && partial_insertion_sort(v, is_less)
        {
            return;
        }
        if likely_sorted && len <= budget.extract_below {
            match extract_or_pivot(v, is_less, &mut budget) {
                None => return,
                Some(p) => pivot = p,
            }
        }
        if let Some(p) = pred.as_deref() {
            if !is_less(p, &v[pivot]) {
                // pivot <= pred <= every element: the pivot is the
                // minimum, and the elements equal to it are in place.
                let mid = partition_equal(v, pivot, keep_order, is_less);
                budget.balanced = mid >= len / 8;
                v = &mut v[mid..];
                continue;
            }
        }
        let (mid, was_partitioned) = partition(v, pivot, keep_order, is_less);
        budget.balanced = mid.min(len - 1 - mid) >= len / 8;
        budget.partitioned = was_partitioned;

        let (left, rest) = v.split_at_mut(mid);
        let (pivot, right) = rest.split_at_mut(1);
        let pivot = &mut pivot[0];
        if left.len().max(right.len()) > SEQUENTIAL {
            crate::join(
                || sort_piece(left, is_less, pred, budget),
                || sort_piece(right, is_less, Some(pivot), budget),
            );
            return;
        }
        if left.len() < right.len() {
            sort_piece(left, is_less, pred, budget);
            v = right;
            pred = Some(pivot);
        } else {
            sort_piece(right, is_less, Some(pivot), budget);
            v = left;
        }
    }
}

/// Swaps three elements around the middle of `v` (longer than [`small::threshold`]) with
/// pseudo-random others, so that a pattern that fooled the pivot choice
/// once is unlikely to fool it again. Deterministic (seeded by the length)
/// and without comparisons.
fn break_patterns<T>(v: &mut [T]) {
    let len = v.len();
    let mut x = len as u64 | 1;
    let mask = len.next_power_of_two() - 1;
    let mid = len / 2;
    for i in 0..3 {
        // xorshift64
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut other = x as usize & mask;
        if other >= len {
            other -= len;
        }
        v.swap(mid - 1 + i, other);
    }
}
