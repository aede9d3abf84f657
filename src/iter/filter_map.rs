//! `filter_map` (and through it `filter`): a consumer that passes on the
//! `Some` results of a closure.

use std::fmt;

use super::ParallelIterator;
use super::plumbing::{Consumer, Folder, UnindexedConsumer};

/// Maps items to options and keeps the `Some` values. Made by
/// [`ParallelIterator::filter_map`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct FilterMap<I, P> {
    base: I,
    filter_op: P,
}

impl<I: fmt::Debug, P> fmt::Debug for FilterMap<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilterMap")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, P> FilterMap<I, P> {
    pub(super) fn new(base: I, filter_op: P) -> Self {
        FilterMap { base, filter_op }
    }
}

impl<I, P, R> ParallelIterator for FilterMap<I, P>
where
    I: ParallelIterator,
    P: Fn(I::Item) -> Option<R> + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(FilterMapConsumer {
            base: consumer,
            filter_op: &self.filter_op,
        })
    }
}

pub(super) struct FilterMapConsumer<'p, C, P> {
    base: C,
    filter_op: &'p P,
}

impl<'p, T, R, C, P> Consumer<T> for FilterMapConsumer<'p, C, P>
where
    C: Consumer<R>,
    P: Fn(T) -> Option<R> + Sync,
{
    type Folder = FilterMapFolder<'p, C::Folder, P>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        let op = self.filter_op;
        (
            FilterMapConsumer {
                base: l,
                filter_op: op,
            },
            FilterMapConsumer {
                base: r,
                filter_op: op,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        FilterMapFolder {
            base: self.base.into_folder(),
            filter_op: self.filter_op,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<'p, T, R, C, P> UnindexedConsumer<T> for FilterMapConsumer<'p, C, P>
where
    C: UnindexedConsumer<R>,
    P: Fn(T) -> Option<R> + Sync,
{
    fn split_off_left(&self) -> Self {
        FilterMapConsumer {
            base: self.base.split_off_left(),
            filter_op: self.filter_op,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

pub(super) struct FilterMapFolder<'p, F, P> {
    base: F,
    filter_op: &'p P,
}

impl<'p, T, R, F, P> Folder<T> for FilterMapFolder<'p, F, P>
where
    F: Folder<R>,
    P: Fn(T) -> Option<R>,
{
    type Result = F::Result;

    fn consume(self, item: T) -> Self {
        match (self.filter_op)(item) {
            Some(x) => FilterMapFolder {
                base: self.base.consume(x),
                filter_op: self.filter_op,
            },
            None => self,
        }
    }
    // No `consume_iter` of its own: handing `base` a filtered iterator
    // would skip rejected items inside `base.consume_iter`, where nothing
    // asks `full()`, so a leaf whose items are all rejected would not stop
    // when another piece short-circuits (`filter(..).find_any(..)` over a
    // huge range never returned). The default asks `full()` after every
    // item, kept or not.
    fn complete(self) -> F::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
