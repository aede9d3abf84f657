//! `fold` and `fold_with`: each leaf folds its items into one accumulator,
//! which becomes one item of the resulting iterator.
//!
//! The two differ only in where a leaf's starting value comes from (a
//! closure, or a clone of a value), which [`Init`] abstracts; `map_with`,
//! `map_init` and `try_fold_with` share it.

use std::fmt;

use super::ParallelIterator;
use super::plumbing::{Consumer, Folder, UnindexedConsumer};

/// Where each piece of work gets its starting value.
pub(super) trait Init: Send + Sized {
    /// The state's type.
    type Value;
    /// A source for a new piece split off this one.
    fn split(&self) -> Self;
    /// The starting value of this piece.
    fn into_value(self) -> Self::Value;
}

/// Calls the closure for each piece.
pub(super) struct FromFn<'a, ID>(pub(super) &'a ID);

impl<T, ID: Fn() -> T + Sync> Init for FromFn<'_, ID> {
    type Value = T;
    fn split(&self) -> Self {
        FromFn(self.0)
    }
    fn into_value(self) -> T {
        (self.0)()
    }
}

/// Clones the value for each split piece (the last piece gets it moved).
pub(super) struct FromClone<T>(pub(super) T);

impl<T: Clone + Send> Init for FromClone<T> {
    type Value = T;
    fn split(&self) -> Self {
        FromClone(self.0.clone())
    }
    fn into_value(self) -> T {
        self.0
    }
}

/// Folds each piece from `identity()`. Made by [`ParallelIterator::fold`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

/// Folds each piece from a clone of a value. Made by
/// [`ParallelIterator::fold_with`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct FoldWith<I, U, F> {
    base: I,
    item: U,
    fold_op: F,
}

impl<I: fmt::Debug, ID, F> fmt::Debug for Fold<I, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fold").field("base", &self.base).finish()
    }
}

impl<I: fmt::Debug, U: fmt::Debug, F> fmt::Debug for FoldWith<I, U, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, ID, F> Fold<I, ID, F> {
    pub(super) fn new(base: I, identity: ID, fold_op: F) -> Self {
        Fold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<I, U, F> FoldWith<I, U, F> {
    pub(super) fn new(base: I, item: U, fold_op: F) -> Self {
        FoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<U, I, ID, F> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> U + Sync + Send,
    ID: Fn() -> U + Sync + Send,
    U: Send,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<U>>(self, consumer: C) -> C::Result {
        let init = FromFn(&self.identity);
        self.base.drive_unindexed(FoldConsumer {
            base: consumer,
            init,
            fold_op: &self.fold_op,
        })
    }
}

impl<U, I, F> ParallelIterator for FoldWith<I, U, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> U + Sync + Send,
    U: Send + Clone,
{
    type Item = U;

    fn drive_unindexed<C: UnindexedConsumer<U>>(self, consumer: C) -> C::Result {
        let init = FromClone(self.item);
        self.base.drive_unindexed(FoldConsumer {
            base: consumer,
            init,
            fold_op: &self.fold_op,
        })
    }
}

struct FoldConsumer<'f, C, S, F> {
    base: C,
    init: S,
    fold_op: &'f F,
}

impl<'f, T, C, S, F> Consumer<T> for FoldConsumer<'f, C, S, F>
where
    C: Consumer<S::Value>,
    S: Init,
    F: Fn(S::Value, T) -> S::Value + Sync,
{
    type Folder = FoldFolder<'f, C::Folder, S::Value, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        let left = FoldConsumer {
            base: l,
            init: self.init.split(),
            fold_op: self.fold_op,
        };
        (
            left,
            FoldConsumer {
                base: r,
                init: self.init,
                fold_op: self.fold_op,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        FoldFolder {
            base: self.base.into_folder(),
            acc: self.init.into_value(),
            fold_op: self.fold_op,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<'f, T, C, S, F> UnindexedConsumer<T> for FoldConsumer<'f, C, S, F>
where
    C: UnindexedConsumer<S::Value>,
    S: Init,
    F: Fn(S::Value, T) -> S::Value + Sync,
{
    fn split_off_left(&self) -> Self {
        FoldConsumer {
            base: self.base.split_off_left(),
            init: self.init.split(),
            fold_op: self.fold_op,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FoldFolder<'f, G, U, F> {
    base: G,
    acc: U,
    fold_op: &'f F,
}

impl<'f, T, U, G, F> Folder<T> for FoldFolder<'f, G, U, F>
where
    G: Folder<U>,
    F: Fn(U, T) -> U,
{
    type Result = G::Result;

    fn consume(self, item: T) -> Self {
        FoldFolder {
            acc: (self.fold_op)(self.acc, item),
            ..self
        }
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let base = &self.base;
        let acc = iter
            .into_iter()
            .take_while(|_| !base.full())
            .fold(self.acc, self.fold_op);
        FoldFolder { acc, ..self }
    }
    fn complete(self) -> G::Result {
        self.base.consume(self.acc).complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
