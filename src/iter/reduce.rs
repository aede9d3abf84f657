//! `reduce`: every leaf folds its items with the operation, starting from
//! the identity; the reducer applies the same operation to the partial
//! results, left operand first.

use super::ParallelIterator;
use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

/// Reduces the items of `pi` with `op`, from `identity()`.
pub(super) fn reduce<I, R, ID, T>(pi: I, identity: ID, op: R) -> T
where
    I: ParallelIterator<Item = T>,
    R: Fn(T, T) -> T + Sync,
    ID: Fn() -> T + Sync,
    T: Send,
{
    pi.drive_unindexed(ReduceConsumer {
        identity: &identity,
        op: &op,
    })
}

/// Consumer and reducer: both halves share the closures.
struct ReduceConsumer<'r, R, ID> {
    identity: &'r ID,
    op: &'r R,
}

impl<R, ID> Clone for ReduceConsumer<'_, R, ID> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R, ID> Copy for ReduceConsumer<'_, R, ID> {}

impl<'r, R, ID, T> Consumer<T> for ReduceConsumer<'r, R, ID>
where
    R: Fn(T, T) -> T + Sync,
    ID: Fn() -> T + Sync,
    T: Send,
{
    type Folder = ReduceFolder<'r, R, T>;
    type Reducer = Self;
    type Result = T;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self, self, self)
    }
    fn into_folder(self) -> Self::Folder {
        ReduceFolder {
            op: self.op,
            acc: (self.identity)(),
        }
    }
    fn full(&self) -> bool {
        false
    }
}

impl<'r, R, ID, T> UnindexedConsumer<T> for ReduceConsumer<'r, R, ID>
where
    R: Fn(T, T) -> T + Sync,
    ID: Fn() -> T + Sync,
    T: Send,
{
    fn split_off_left(&self) -> Self {
        *self
    }
    fn to_reducer(&self) -> Self {
        *self
    }
}

impl<'r, R, ID, T> Reducer<T> for ReduceConsumer<'r, R, ID>
where
    R: Fn(T, T) -> T + Sync,
{
    fn reduce(self, left: T, right: T) -> T {
        (self.op)(left, right)
    }
}

/// A leaf's running result.
struct ReduceFolder<'r, R, T> {
    op: &'r R,
    acc: T,
}

impl<'r, R, T> Folder<T> for ReduceFolder<'r, R, T>
where
    R: Fn(T, T) -> T,
{
    type Result = T;

    fn consume(self, item: T) -> Self {
        ReduceFolder {
            op: self.op,
            acc: (self.op)(self.acc, item),
        }
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        ReduceFolder {
            op: self.op,
            acc: iter.into_iter().fold(self.acc, self.op),
        }
    }
    fn complete(self) -> T {
        self.acc
    }
    fn full(&self) -> bool {
        false
    }
}
