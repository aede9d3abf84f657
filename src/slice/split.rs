//! `par_split`, `par_split_inclusive`, `par_chunk_by` and their `_mut`
//! forms: pieces of a slice cut at separators (or between two elements
//! that do not belong together), found near the middle of each piece.
//!
//! Cutting `left SEP right` at `SEP` gives exactly the pieces of `left`
//! followed by those of `right` (for the inclusive split, `left SEP` and
//! `right`; for `chunk_by`, the cut falls between two elements that start
//! a new run), so the pieces come out in the sequential order and never
//! straddle a cut. A separator search of a piece, when it splits and when
//! it folds, covers `[..tail]` only: the rest is known to hold no
//! separator to cut at. So the predicate is asked about each element (each
//! adjacent pair for `chunk_by`) once, as the sequential split does.

use std::fmt;

use crate::iter::ParallelIterator;
use crate::iter::plumbing::*;

/// A shared or mutable slice, as the pieces of the splits are.
trait SliceLike: Sized + Send {
    type Elem;
    fn len(&self) -> usize;
    fn at(&self, i: usize) -> &Self::Elem;
    fn cut(self, at: usize) -> (Self, Self);
    /// Feeds the runs of the sequential `chunk_by` to `folder`.
    fn fold_chunk_by<F: Folder<Self>>(
        self,
        same: &impl Fn(&Self::Elem, &Self::Elem) -> bool,
        folder: F,
    ) -> F;
}

impl<T: Sync> SliceLike for &[T] {
    type Elem = T;
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    fn at(&self, i: usize) -> &T {
        &self[i]
    }
    fn cut(self, at: usize) -> (Self, Self) {
        self.split_at(at)
    }
    fn fold_chunk_by<F: Folder<Self>>(self, same: &impl Fn(&T, &T) -> bool, folder: F) -> F {
        folder.consume_iter(self.chunk_by(same))
    }
}

impl<T: Send> SliceLike for &mut [T] {
    type Elem = T;
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    fn at(&self, i: usize) -> &T {
        &self[i]
    }
    fn cut(self, at: usize) -> (Self, Self) {
        self.split_at_mut(at)
    }
    fn fold_chunk_by<F: Folder<Self>>(self, same: &impl Fn(&T, &T) -> bool, folder: F) -> F {
        folder.consume_iter(self.chunk_by_mut(same))
    }
}

/// A piece of a slice split at separators.
struct SplitProducer<'p, S, P> {
    slice: S,
    sep: &'p P,
    /// The separators to cut at are in `[..tail]`; the elements from `tail`
    /// on were looked at already and are not separators.
    tail: usize,
    inclusive: bool,
}

impl<S: SliceLike, P: Fn(&S::Elem) -> bool + Sync> SplitProducer<'_, S, P> {
    /// The pieces before and after the separator at `at`.
    fn cut_at(slice: S, at: usize, inclusive: bool) -> (S, S) {
        if inclusive {
            slice.cut(at + 1)
        } else {
            let (left, rest) = slice.cut(at);
            (left, rest.cut(1).1)
        }
    }
}

impl<S: SliceLike, P: Fn(&S::Elem) -> bool + Sync> UnindexedProducer for SplitProducer<'_, S, P> {
    type Item = S;

    fn split(self) -> (Self, Option<Self>) {
        let (tail, sep) = (self.tail, self.sep);
        let mid = tail / 2;
        let forward = (mid..tail).find(|&i| sep(self.slice.at(i)));
        let (at, left_tail, right_clean) = match forward {
            Some(at) => (at, mid, false),
            None => match (0..mid).rev().find(|&i| sep(self.slice.at(i))) {
                Some(at) => (at, at, true),
                None => return (SplitProducer { tail: 0, ..self }, None),
            },
        };
        let inclusive = self.inclusive;
        let (left, right) = Self::cut_at(self.slice, at, inclusive);
        let right_tail = if right_clean { 0 } else { tail - (at + 1) };
        let left = SplitProducer {
            slice: left,
            sep,
            tail: left_tail,
            inclusive,
        };
        (
            left,
            Some(SplitProducer {
                slice: right,
                sep,
                tail: right_tail,
                inclusive,
            }),
        )
    }

    /// The sequential split, asking `sep` only about `[..tail]` (so each
    /// element once in the whole split tree): the piece after the last
    /// separator there runs to the end.
    fn fold_with<F: Folder<S>>(self, mut folder: F) -> F {
        let SplitProducer {
            mut slice,
            sep,
            mut tail,
            inclusive,
        } = self;
        loop {
            let Some(at) = (0..tail).find(|&i| sep(slice.at(i))) else {
                // The last piece; an inclusive split has none after a
                // separator that ends the slice.
                if !(inclusive && slice.len() == 0) {
                    folder = folder.consume(slice);
                }
                return folder;
            };
            let (piece, rest) = Self::cut_at(slice, at, inclusive);
            folder = folder.consume(piece);
            if folder.full() {
                return folder;
            }
            (slice, tail) = (rest, tail - (at + 1));
        }
    }
}

/// A piece of a slice cut into runs. A run starts at `i` (`0 < i < len`)
/// when `same(i - 1, i)` is false.
struct ChunkByProducer<'p, S, P> {
    slice: S,
    same: &'p P,
    /// The run starts to cut at are in `1..tail`; every pair `(i - 1, i)`
    /// with `i >= tail` was asked already and is the same run. So `same`
    /// is asked about each adjacent pair once in the whole split tree, as
    /// the sequential `chunk_by` does (`len - 1` calls).
    tail: usize,
}

impl<S: SliceLike, P: Fn(&S::Elem, &S::Elem) -> bool + Sync> UnindexedProducer
    for ChunkByProducer<'_, S, P>
{
    type Item = S;

    fn split(self) -> (Self, Option<Self>) {
        let (tail, same) = (self.tail, self.same);
        let starts_run = |i: usize| !same(self.slice.at(i - 1), self.slice.at(i));
        // Look for a start from the middle of `1..tail` forward, then
        // backward (which leaves nothing to look at on the right).
        let mid = tail / 2;
        let (at, left_tail, right_tail) = match (mid.max(1)..tail).find(|&i| starts_run(i)) {
            Some(at) => (at, mid.max(1), tail - at),
            None => match (1..mid).rev().find(|&i| starts_run(i)) {
                Some(at) => (at, at, 0),
                None => return (ChunkByProducer { tail: 0, ..self }, None),
            },
        };
        let (left, right) = self.slice.cut(at);
        (
            ChunkByProducer {
                slice: left,
                same,
                tail: left_tail,
            },
            Some(ChunkByProducer {
                slice: right,
                same,
                tail: right_tail,
            }),
        )
    }

    /// The last run start in `1..tail` ends the sequential `chunk_by` of
    /// the part before it; the rest is one run.
    fn fold_with<F: Folder<S>>(self, folder: F) -> F {
        let ChunkByProducer { slice, same, tail } = self;
        if tail == slice.len() {
            return slice.fold_chunk_by(same, folder);
        }
        let last = (1..tail)
            .rev()
            .find(|&i| !same(slice.at(i - 1), slice.at(i)));
        let Some(at) = last else {
            return folder.consume(slice);
        };
        let (left, right) = slice.cut(at);
        let folder = left.fold_chunk_by(same, folder);
        if folder.full() {
            folder
        } else {
            folder.consume(right)
        }
    }
}

/// Defines a public splitting iterator `$name` over `$slice` pieces,
/// driven by the producer built in `|$s| $make`.
macro_rules! slice_split {
    ($($(#[$attr:meta])* $name:ident, $bound:ident, [$($r:tt)*], [$($pred:tt)*], |$s:ident| $make:expr;)*) => {$(
        $(#[$attr])*
        #[must_use = "iterator adapters are lazy"]
        pub struct $name<'data, T, P> {
            pub(super) slice: $($r)* [T],
            pub(super) pred: P,
        }

        impl<T: fmt::Debug, P> fmt::Debug for $name<'_, T, P> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("slice", &self.slice).finish()
            }
        }

        impl<'data, T, P> ParallelIterator for $name<'data, T, P>
        where
            T: $bound,
            P: $($pred)* + Sync + Send,
        {
            type Item = $($r)* [T];

            fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
                let $s = &self.pred;
                let slice = self.slice;
                bridge_unindexed($make(slice), consumer)
            }
        }
    )*};
}

slice_split! {
    /// The pieces of a slice between separators. Made by
    /// [`ParallelSlice::par_split`](super::ParallelSlice::par_split).
    Split, Sync, [&'data], [Fn(&T) -> bool],
        |p| |slice: &'data [T]| SplitProducer { tail: slice.len(), slice, sep: p, inclusive: false };
    /// The pieces of a slice, each ending with its separator. Made by
    /// [`ParallelSlice::par_split_inclusive`](super::ParallelSlice::par_split_inclusive).
    SplitInclusive, Sync, [&'data], [Fn(&T) -> bool],
        |p| |slice: &'data [T]| SplitProducer { tail: slice.len(), slice, sep: p, inclusive: true };
    /// The mutable pieces of a slice between separators. Made by
    /// [`ParallelSliceMut::par_split_mut`](super::ParallelSliceMut::par_split_mut).
    SplitMut, Send, [&'data mut], [Fn(&T) -> bool],
        |p| |slice: &'data mut [T]| SplitProducer { tail: slice.len(), slice, sep: p, inclusive: false };
    /// The mutable pieces of a slice, each ending with its separator. Made
    /// by [`ParallelSliceMut::par_split_inclusive_mut`](super::ParallelSliceMut::par_split_inclusive_mut).
    SplitInclusiveMut, Send, [&'data mut], [Fn(&T) -> bool],
        |p| |slice: &'data mut [T]| SplitProducer { tail: slice.len(), slice, sep: p, inclusive: true };
    /// The runs of a slice whose neighbours satisfy a predicate. Made by
    /// [`ParallelSlice::par_chunk_by`](super::ParallelSlice::par_chunk_by).
    ChunkBy, Sync, [&'data], [Fn(&T, &T) -> bool],
        |p| |slice: &'data [T]| ChunkByProducer { tail: slice.len(), slice, same: p };
    /// The mutable runs of a slice whose neighbours satisfy a predicate.
    /// Made by [`ParallelSliceMut::par_chunk_by_mut`](super::ParallelSliceMut::par_chunk_by_mut).
    ChunkByMut, Send, [&'data mut], [Fn(&T, &T) -> bool],
        |p| |slice: &'data mut [T]| ChunkByProducer { tail: slice.len(), slice, same: p };
}

/// `Clone` for the splits of shared slices: a copy shares the slice and
/// clones the predicate (rayon's rule; the `_mut` forms cannot be cloned).
macro_rules! shared_split_clone {
    ($($name:ident),*) => {$(
        impl<T, P: Clone> Clone for $name<'_, T, P> {
            fn clone(&self) -> Self {
                $name { slice: self.slice, pred: self.pred.clone() }
            }
        }
    )*};
}

shared_split_clone!(Split, SplitInclusive, ChunkBy);
