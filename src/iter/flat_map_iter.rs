//! `flat_map_iter` (and `flatten_iter`): every item becomes a sequential
//! iterator whose items go straight into the leaf's folder.

use std::fmt;

use super::ParallelIterator;
use super::plumbing::{Consumer, Folder, UnindexedConsumer};

/// Maps every item to a sequential iterator and yields its items. Made by
/// [`ParallelIterator::flat_map_iter`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct FlatMapIter<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for FlatMapIter<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatMapIter")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, F> FlatMapIter<I, F> {
    pub(super) fn new(base: I, map_op: F) -> Self {
        FlatMapIter { base, map_op }
    }
}

impl<I, F, SI> ParallelIterator for FlatMapIter<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> SI + Sync + Send,
    SI: IntoIterator<Item: Send>,
{
    type Item = SI::Item;

    fn drive_unindexed<C: UnindexedConsumer<SI::Item>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(FlatMapIterConsumer {
            base: consumer,
            map_op: &self.map_op,
        })
    }
}

struct FlatMapIterConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, C, F, SI> Consumer<T> for FlatMapIterConsumer<'f, C, F>
where
    C: UnindexedConsumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
    SI: IntoIterator,
{
    type Folder = FlatMapIterFolder<'f, C::Folder, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        let op = self.map_op;
        (
            FlatMapIterConsumer {
                base: l,
                map_op: op,
            },
            FlatMapIterConsumer {
                base: r,
                map_op: op,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        FlatMapIterFolder {
            base: self.base.into_folder(),
            map_op: self.map_op,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<'f, T, C, F, SI> UnindexedConsumer<T> for FlatMapIterConsumer<'f, C, F>
where
    C: UnindexedConsumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
    SI: IntoIterator,
{
    fn split_off_left(&self) -> Self {
        FlatMapIterConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FlatMapIterFolder<'f, G, F> {
    base: G,
    map_op: &'f F,
}

impl<'f, T, G, F, SI> Folder<T> for FlatMapIterFolder<'f, G, F>
where
    G: Folder<SI::Item>,
    F: Fn(T) -> SI,
    SI: IntoIterator,
{
    type Result = G::Result;

    fn consume(self, item: T) -> Self {
        let base = self.base.consume_iter((self.map_op)(item));
        FlatMapIterFolder {
            base,
            map_op: self.map_op,
        }
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        self.base = self
            .base
            .consume_iter(iter.into_iter().flat_map(self.map_op));
        self
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
