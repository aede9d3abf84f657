//! The parallel sorts behind `ParallelSliceMut` (`par_sort*`), with rayon's
//! semantics: same stability, same bounds (`T: Send`, a `Sync`
//! comparator), O(n log n) comparisons in the worst case, panic-safe, and
//! no panic of their own whatever the comparator answers.
//!
//! - Stable sorts (`par_sort`, `par_sort_by`, `par_sort_by_key`): parallel
//!   merge sort ([`merge`]). A slice that is already one run (sorted, or
//!   strictly descending) takes one pass. Otherwise leaves of up to 4,096
//!   elements keep their long natural runs and sort what lies between them
//!   with a stable quicksort through a scratch buffer ([`stable`],
//!   [`stable_quick`]), then everything is merged in parallel,
//!   ping-ponging between the slice and one buffer of `len` elements.
//! - `par_sort_by_cached_key`: the keys are computed once per element, in
//!   parallel, into a vector of `(key, original index)` pairs; the pairs are
//!   sorted with the unstable sort (the indices make every pair distinct, so
//!   the result is the stable order) and the permutation is then applied to
//!   the slice in place with swaps.
//! - Unstable sorts (`par_sort_unstable*`): parallel pattern-defeating
//!   quicksort ([`quick`]): both sides of a partition in parallel
//!   ([`partition`]), sorted and reversed pieces finished in one pass
//!   (a whole slice that is one run by [`runs`]: blocks of 16 pairs,
//!   split across workers above 2 MiB),
//!   nearly sorted ones by dropping their misplaced elements, sorting those
//!   and merging them back ([`extract`]), runs
//!   of equal elements split off in one pass, a heapsort ([`heapsort`]) for
//!   a piece that made too many unbalanced partitions.
//! - Both quicksorts hand pieces of up to 32 elements to a branch-free
//!   stable small sort ([`small`]); it and the parallel merges merge runs
//!   from both ends at once ([`both_ends`]).
//!
//! Zero-sized elements and slices shorter than 2 are left as they are,
//! without calling the comparator (as rayon does; their order cannot be
//! observed). `par_sort_by_cached_key` still calls the key function once per
//! element of a slice of 2 or more, as rayon does.
//!
//! # Any comparator
//!
//! A comparator (or key order) that is not a total order (one that answers
//! at random, always `Less`, or contradicts itself) gets what rayon gives
//! it: the slice is reordered somehow, holds every element exactly once,
//! and the sort returns normally. The sorts here never check the order
//! (`std`'s sorts panic when they notice a violation, which is why none of
//! them is used), and every loop is bounded by indices, not by the
//! comparator's answers. The number of calls stays O(n log n) for every
//! comparator: each submodule states its bound, and the tests count calls.
//!
//! # Invariants (panic safety)
//!
//! A comparator or key function may panic at any call. The promise is
//! rayon's: when the panic reaches the caller, the slice holds every element
//! exactly once (in some order), nothing was dropped, and nothing is dropped
//! twice. A second promise covers comparators that change elements through
//! shared references (a `Cell` inside `T`): the comparator is only ever
//! given the live copy of an element, never a bitwise copy that is later
//! thrown away, so what it changes stays changed and nothing it moved out
//! of an element is dropped twice. How each part keeps both:
//!
//! - The quicksort and heapsort move elements with swaps, except the
//!   insertions ([`insertion`]) and partitions ([`partition`]), which hold
//!   one element outside the slice and leave exactly one slot logically
//!   empty; the element's guard ([`hole::Hole`]) writes it into that slot if
//!   the comparator unwinds. Between comparator calls every slot but that
//!   one holds exactly one element.
//! - The small sort ([`small`]) and the stable quicksort ([`stable_quick`])
//!   copy elements to a scratch area; at every moment each element is
//!   *live* in exactly one place (the slice or the scratch), and a guard
//!   (or the order of the copies) puts the live copies back into the slice
//!   if the comparator unwinds.
//! - The pass for nearly sorted pieces ([`extract`]) swaps; its merge
//!   holds the dropped elements in a stack buffer, where they are live,
//!   and a guard writes them back into the piece's gap on unwind.
//! - The sequential merges ([`stable`]) copy the shorter run out to a
//!   scratch area; a guard owns the copies not yet merged and the empty
//!   slots they belong in, and copies them back on unwind.
//! - The merge sort moves elements between the slice `v` and a buffer `buf`
//!   of the same length. The buffer is a `Vec` with capacity `len` and length
//!   0, owned by the top-level call: it only owns the allocation, never the
//!   elements, so dropping it (also while unwinding) frees memory and drops
//!   nothing. Which of `v` and `buf` holds a range's elements is tracked by
//!   *task* values: a live task owns a set of elements and knows where they
//!   must end, and its `Drop` moves them there without comparing (so it
//!   cannot panic). A task that runs to the end delivers its elements to the
//!   same place, and so does a task whose closure panicked (its `Drop` runs
//!   while unwinding). A merge task only reads its runs while it merges
//!   (they hold the live copies until it is complete, [`both_ends`]), so
//!   its `Drop` can always copy them over its destination. `join` runs both closures even when one panics, and
//!   resumes the panic only after both are done; a task dropped without
//!   being run would deliver too, so nothing here depends on that. The
//!   enclosing task can therefore rely on where the elements are whatever
//!   happened. The top-level task delivers into `v`.
//! - `par_sort_by_cached_key` writes keys into spare capacity; each
//!   written run is owned by a guard that drops the keys if a later key
//!   function panics. The slice is not touched until every key exists and
//!   the pairs are sorted; applying the permutation only swaps. The sort of
//!   the pairs keeps them a permutation of what it got whatever `K`'s order
//!   answers, so the indices stay a permutation of the slice's.

mod both_ends;
mod extract;
mod heapsort;
mod hole;
mod insertion;
mod merge;
mod partition;
mod pivot;
mod quick;
mod runs;
mod small;
mod stable;
mod stable_quick;
#[cfg(test)]
mod tests;

use std::cmp::Ordering;
use std::marker::PhantomData;
use std::mem::{self, MaybeUninit};
use std::ptr;

/// `par_sort`: stable, `T`'s order, compared with `T::lt` as rayon does
/// (the two differ only for a type whose `lt` disagrees with its `cmp`).
pub(crate) fn par_sort<T: Ord + Send>(v: &mut [T]) {
    merge::sort(v, &T::lt);
}

/// `par_sort_by`: stable, `compare`'s order.
pub(crate) fn par_sort_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    merge::sort(v, &|a: &T, b: &T| compare(a, b) == Ordering::Less);
}

/// `par_sort_by_key`: stable, by `f`'s key (computed at each comparison).
pub(crate) fn par_sort_by_key<T, K, F>(v: &mut [T], f: F)
where
    T: Send,
    K: Ord,
    F: Fn(&T) -> K + Sync,
{
    merge::sort(v, &|a: &T, b: &T| f(a).lt(&f(b)));
}

/// `par_sort_unstable`: unstable, `T`'s order, compared with `T::lt` as
/// rayon does.
pub(crate) fn par_sort_unstable<T: Ord + Send>(v: &mut [T]) {
    quick::sort(v, &T::lt);
}

/// `par_sort_unstable_by`: unstable, `compare`'s order.
pub(crate) fn par_sort_unstable_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    quick::sort(v, &|a: &T, b: &T| compare(a, b) == Ordering::Less);
}

/// `par_sort_unstable_by_key`: unstable, by `f`'s key (computed at each
/// comparison).
pub(crate) fn par_sort_unstable_by_key<T, K, F>(v: &mut [T], f: F)
where
    T: Send,
    K: Ord,
    F: Fn(&T) -> K + Sync,
{
    quick::sort(v, &|a: &T, b: &T| f(a).lt(&f(b)));
}

/// `par_sort_by_cached_key`: stable, by `f`'s key, computed once per element
/// (in parallel).
///
/// The original index is stored in the smallest integer type that makes the
/// `(key, index)` pair smaller, as `std` and rayon do.
pub(crate) fn par_sort_by_cached_key<T, K, F>(v: &mut [T], f: F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    let len = v.len();
    if len < 2 {
        return;
    }
    let (s8, s16, s32, s64) = (
        size_of::<(K, u8)>(),
        size_of::<(K, u16)>(),
        size_of::<(K, u32)>(),
        size_of::<(K, usize)>(),
    );
    if s8 < s16 && len <= u8::MAX as usize {
        cached_key::<T, K, F, u8>(v, &f)
    } else if s16 < s32 && len <= u16::MAX as usize {
        cached_key::<T, K, F, u16>(v, &f)
    } else if s32 < s64 && len <= u32::MAX as usize {
        cached_key::<T, K, F, u32>(v, &f)
    } else {
        cached_key::<T, K, F, usize>(v, &f)
    }
}

/// An unsigned integer type that can hold every index of the slice being
/// sorted (checked by the caller).
trait SortIndex: Copy + Ord + Send {
    fn from_usize(i: usize) -> Self;
    fn to_usize(self) -> usize;
}

macro_rules! sort_index {
    ($($t:ty),*) => {$(
        impl SortIndex for $t {
            #[inline]
            fn from_usize(i: usize) -> Self {
                debug_assert!(i <= <$t>::MAX as usize);
                i as $t
            }
            #[inline]
            fn to_usize(self) -> usize {
                self as usize
            }
        }
    )*};
}
sort_index!(u8, u16, u32, usize);

fn cached_key<T, K, F, I>(v: &mut [T], f: &F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
    I: SortIndex,
{
    let len = v.len();
    let mut keys: Vec<(K, I)> = Vec::with_capacity(len);
    // Pieces of about len / (8 * threads) elements: enough to balance the
    // load when keys are expensive, few enough joins when they are cheap.
    let grain = (len / (8 * crate::current_num_threads())).max(1);
    let written = compute_keys(v, &mut keys.spare_capacity_mut()[..len], 0, f, grain);
    debug_assert_eq!(written.len, len);
    // The vector takes over the keys from the guard.
    mem::forget(written);
    // SAFETY: `compute_keys` returned, so it initialized all `len` slots
    // (a guard covering all of them), and capacity >= len.
    unsafe { keys.set_len(len) };

    // The indices make every pair distinct, so the unstable sort gives the
    // stable order of the keys.
    quick::sort(&mut keys, &<(K, I)>::lt);
    apply_permutation(v, &mut keys);
}

/// Writes `(f(&v[i]), offset + i)` into `out[i]` for every `i`, splitting
/// with `join` down to `grain` elements. Returns the guard owning the
/// written pairs (all of `out`).
fn compute_keys<'a, T, K, F, I>(
    v: &mut [T],
    out: &'a mut [MaybeUninit<(K, I)>],
    offset: usize,
    f: &F,
    grain: usize,
) -> Written<'a, (K, I)>
where
    T: Send,
    K: Send,
    F: Fn(&T) -> K + Sync,
    I: SortIndex,
{
    debug_assert_eq!(v.len(), out.len());
    if v.len() <= grain {
        let mut written = Written {
            start: out.as_mut_ptr().cast(),
            len: 0,
            _out: PhantomData,
        };
        for (i, (x, slot)) in v.iter().zip(out.iter_mut()).enumerate() {
            slot.write((f(x), I::from_usize(offset + i)));
            written.len += 1;
        }
        return written;
    }
    let mid = v.len() / 2;
    let (v_lo, v_hi) = v.split_at_mut(mid);
    let (out_lo, out_hi) = out.split_at_mut(mid);
    let (lo, hi) = crate::join(
        || compute_keys(v_lo, out_lo, offset, f, grain),
        || compute_keys(v_hi, out_hi, offset + mid, f, grain),
    );
    lo.append(hi)
}

/// Owns `len` initialized values starting at `start` (a prefix of a
/// `&'a mut [MaybeUninit<E>]`): drops them unless forgotten.
struct Written<'a, E> {
    start: *mut E,
    len: usize,
    _out: PhantomData<&'a mut [E]>,
}

// SAFETY: a `Written` is the unique owner of its values (as a `Vec<E>`
// would be), so sending it sends `E`s.
unsafe impl<E: Send> Send for Written<'_, E> {}

impl<'a, E> Written<'a, E> {
    /// Merges with the run written right after this one.
    fn append(self, next: Written<'a, E>) -> Written<'a, E> {
        // Both runs were written completely, and `next` was cut from the
        // same slice right after `self`.
        debug_assert!(ptr::eq(self.start.wrapping_add(self.len), next.start));
        let merged = Written {
            start: self.start,
            len: self.len + next.len,
            _out: PhantomData,
        };
        mem::forget(self);
        mem::forget(next);
        merged
    }
}

impl<E> Drop for Written<'_, E> {
    fn drop(&mut self) {
        // SAFETY: the first `len` values from `start` are initialized and
        // owned by this guard alone.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.start, self.len)) };
    }
}

/// Puts `v[keys[i].1]` at position `i` for every `i`, in place, with swaps
/// (`keys[..].1` is a permutation of `0..v.len()`; it is overwritten).
fn apply_permutation<T, K, I: SortIndex>(v: &mut [T], keys: &mut [(K, I)]) {
    // Step `k` swaps position `k` with the current position `p >= k` of the
    // element that belongs at `k`, and records `p` in `keys[k].1`: the
    // element that sat at `k` moves to `p`, and nothing else moves. So before
    // step `i` (with `v[..i]` final), the element originally at `j` is found
    // by following its moves: while `j < i`, it left `j` for `keys[j].1`.
    for i in 0..v.len() {
        let mut j = keys[i].1.to_usize();
        while j < i {
            j = keys[j].1.to_usize();
        }
        keys[i].1 = I::from_usize(j);
        v.swap(i, j);
    }
}
