//! `iter::split`: a parallel iterator over the pieces that a user's
//! splitting function cuts a value into.

use std::fmt;

use super::ParallelIterator;
use super::plumbing::{Folder, UnindexedConsumer, UnindexedProducer, bridge_unindexed};

/// Cuts `data` with `splitter` while the pool wants more pieces: the
/// splitter returns the two halves, or `(data, None)` when `data` should
/// not be cut further. The pieces are the items, in order (the left half's
/// pieces before the right half's).
///
/// ```
/// use locus::prelude::*;
/// use locus::iter::split;
/// // Halve a range until pieces have at most 100 numbers; sum each piece.
/// let total: u64 = split(0..10_000u64, |r| {
///     if r.end - r.start <= 100 { return (r, None); }
///     let mid = r.start + (r.end - r.start) / 2;
///     (r.start..mid, Some(mid..r.end))
/// })
/// .map(|r| r.sum::<u64>())
/// .sum();
/// assert_eq!(total, (0..10_000u64).sum());
/// ```
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    Split { data, splitter }
}

/// The pieces of a value cut by a splitting function. Made by [`split`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct Split<D, S> {
    data: D,
    splitter: S,
}

impl<D: fmt::Debug, S> fmt::Debug for Split<D, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Split").field("data", &self.data).finish()
    }
}

impl<D, S> ParallelIterator for Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    type Item = D;

    fn drive_unindexed<C: UnindexedConsumer<D>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            Piece {
                data: self.data,
                splitter: &self.splitter,
            },
            consumer,
        )
    }
}

/// One piece, with the function that cuts it.
struct Piece<'s, D, S> {
    data: D,
    splitter: &'s S,
}

impl<D, S> UnindexedProducer for Piece<'_, D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    type Item = D;

    fn split(self) -> (Self, Option<Self>) {
        let splitter = self.splitter;
        let (left, right) = splitter(self.data);
        (
            Piece {
                data: left,
                splitter,
            },
            right.map(|data| Piece { data, splitter }),
        )
    }

    fn fold_with<F: Folder<D>>(self, folder: F) -> F {
        folder.consume(self.data)
    }
}
