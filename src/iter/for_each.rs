//! `for_each`: a consumer that calls a closure on every item.

use super::ParallelIterator;
use super::noop::NoopReducer;
use super::plumbing::{Consumer, Folder, UnindexedConsumer};

/// Calls `op` on every item of `pi`.
pub(super) fn for_each<I, F>(pi: I, op: &F)
where
    I: ParallelIterator,
    F: Fn(I::Item) + Sync,
{
    pi.drive_unindexed(ForEachConsumer { op })
}

/// Consumer, and its own folder: both just hold the closure.
pub(super) struct ForEachConsumer<'f, F> {
    pub(super) op: &'f F,
}

impl<'f, T, F> Consumer<T> for ForEachConsumer<'f, F>
where
    F: Fn(T) + Sync,
{
    type Folder = Self;
    type Reducer = NoopReducer;
    type Result = ();

    fn split_at(self, _index: usize) -> (Self, Self, NoopReducer) {
        (ForEachConsumer { op: self.op }, self, NoopReducer)
    }
    fn into_folder(self) -> Self {
        self
    }
    fn full(&self) -> bool {
        false
    }
}

impl<'f, T, F> Folder<T> for ForEachConsumer<'f, F>
where
    F: Fn(T) + Sync,
{
    type Result = ();

    fn consume(self, item: T) -> Self {
        (self.op)(item);
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        iter.into_iter().for_each(self.op);
        self
    }
    fn complete(self) {}
    fn full(&self) -> bool {
        false
    }
}

impl<'f, T, F> UnindexedConsumer<T> for ForEachConsumer<'f, F>
where
    F: Fn(T) + Sync,
{
    fn split_off_left(&self) -> Self {
        ForEachConsumer { op: self.op }
    }
    fn to_reducer(&self) -> NoopReducer {
        NoopReducer
    }
}
