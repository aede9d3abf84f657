//! `flat_map` (and `flatten`): every item becomes a parallel iterator,
//! driven with a consumer split off the outer one, so inner iterators
//! split in parallel too.

use std::fmt;

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::{IntoParallelIterator, ParallelIterator};

/// Maps every item to a parallel iterator and yields their items. Made by
/// [`ParallelIterator::flat_map`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct FlatMap<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for FlatMap<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatMap").field("base", &self.base).finish()
    }
}

impl<I, F> FlatMap<I, F> {
    pub(super) fn new(base: I, map_op: F) -> Self {
        FlatMap { base, map_op }
    }
}

impl<I, F, PI> ParallelIterator for FlatMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> PI + Sync + Send,
    PI: IntoParallelIterator,
{
    type Item = PI::Item;

    fn drive_unindexed<C: UnindexedConsumer<PI::Item>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(FlatMapConsumer {
            base: consumer,
            map_op: &self.map_op,
        })
    }
}

struct FlatMapConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, C, F, PI> Consumer<T> for FlatMapConsumer<'f, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Folder = FlatMapFolder<'f, C, F, C::Result>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        (
            FlatMapConsumer {
                base: l,
                map_op: self.map_op,
            },
            FlatMapConsumer {
                base: r,
                map_op: self.map_op,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        FlatMapFolder {
            base: self.base,
            map_op: self.map_op,
            previous: None,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<'f, T, C, F, PI> UnindexedConsumer<T> for FlatMapConsumer<'f, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    fn split_off_left(&self) -> Self {
        FlatMapConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// Drives each inner iterator with a consumer split off `base` (to the
/// left of what remains), and reduces the results in order.
struct FlatMapFolder<'f, C, F, R> {
    base: C,
    map_op: &'f F,
    previous: Option<R>,
}

impl<'f, T, C, F, PI> Folder<T> for FlatMapFolder<'f, C, F, C::Result>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Result = C::Result;

    fn consume(self, item: T) -> Self {
        let inner = (self.map_op)(item).into_par_iter();
        let result = inner.drive_unindexed(self.base.split_off_left());
        let previous = match self.previous {
            None => result,
            Some(prev) => self.base.to_reducer().reduce(prev, result),
        };
        FlatMapFolder {
            base: self.base,
            map_op: self.map_op,
            previous: Some(previous),
        }
    }
    fn complete(self) -> C::Result {
        match self.previous {
            Some(r) => r,
            None => self.base.into_folder().complete(),
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
