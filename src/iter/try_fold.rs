//! `try_fold` and `try_fold_with`: a fold whose leaf stops at its first
//! break, and whose single item is the `Try` value (success or break).

use std::fmt;
use std::marker::PhantomData;
use std::ops::ControlFlow::{self, Break, Continue};

use super::ParallelIterator;
use super::fold::{FromClone, FromFn, Init};
use super::plumbing::{Consumer, Folder, UnindexedConsumer};
use super::try_trait::Try;

/// A fallible fold from `identity()`. Made by [`ParallelIterator::try_fold`].
#[must_use = "iterator adapters are lazy"]
pub struct TryFold<I, R, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
    marker: PhantomData<fn() -> R>,
}

/// A fallible fold from a clone of a value. Made by
/// [`ParallelIterator::try_fold_with`].
#[must_use = "iterator adapters are lazy"]
pub struct TryFoldWith<I, R: Try, F> {
    base: I,
    item: R::Output,
    fold_op: F,
}

impl<I: fmt::Debug, R, ID, F> fmt::Debug for TryFold<I, R, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFold").field("base", &self.base).finish()
    }
}

impl<I: fmt::Debug, R: Try<Output: fmt::Debug>, F> fmt::Debug for TryFoldWith<I, R, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I: Clone, R, ID: Clone, F: Clone> Clone for TryFold<I, R, ID, F> {
    fn clone(&self) -> Self {
        TryFold {
            base: self.base.clone(),
            identity: self.identity.clone(),
            fold_op: self.fold_op.clone(),
            marker: PhantomData,
        }
    }
}

impl<I: Clone, R: Try<Output: Clone>, F: Clone> Clone for TryFoldWith<I, R, F> {
    fn clone(&self) -> Self {
        TryFoldWith {
            base: self.base.clone(),
            item: self.item.clone(),
            fold_op: self.fold_op.clone(),
        }
    }
}

impl<I, R, ID, F> TryFold<I, R, ID, F> {
    pub(super) fn new(base: I, identity: ID, fold_op: F) -> Self {
        TryFold {
            base,
            identity,
            fold_op,
            marker: PhantomData,
        }
    }
}

impl<I, R: Try, F> TryFoldWith<I, R, F> {
    pub(super) fn new(base: I, item: R::Output, fold_op: F) -> Self {
        TryFoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<U, I, ID, F, R> ParallelIterator for TryFold<I, R, ID, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> R + Sync + Send,
    ID: Fn() -> U + Sync + Send,
    R: Try<Output = U> + Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let init = FromFn(&self.identity);
        self.base.drive_unindexed(TryFoldConsumer {
            base: consumer,
            init,
            fold_op: &self.fold_op,
            marker: PhantomData,
        })
    }
}

impl<U, I, F, R> ParallelIterator for TryFoldWith<I, R, F>
where
    I: ParallelIterator,
    F: Fn(U, I::Item) -> R + Sync + Send,
    R: Try<Output = U> + Send,
    U: Clone + Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let init = FromClone(self.item);
        self.base.drive_unindexed(TryFoldConsumer {
            base: consumer,
            init,
            fold_op: &self.fold_op,
            marker: PhantomData,
        })
    }
}

struct TryFoldConsumer<'f, C, S, F, R> {
    base: C,
    init: S,
    fold_op: &'f F,
    marker: PhantomData<fn() -> R>,
}

impl<'f, T, C, S, F, R> Consumer<T> for TryFoldConsumer<'f, C, S, F, R>
where
    C: Consumer<R>,
    S: Init,
    F: Fn(S::Value, T) -> R + Sync,
    R: Try<Output = S::Value> + Send,
{
    type Folder = TryFoldFolder<'f, C::Folder, F, R>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        let left = TryFoldConsumer {
            base: l,
            init: self.init.split(),
            fold_op: self.fold_op,
            marker: PhantomData,
        };
        (left, TryFoldConsumer { base: r, ..self }, reducer)
    }
    fn into_folder(self) -> Self::Folder {
        let control = Continue(self.init.into_value());
        TryFoldFolder {
            base: self.base.into_folder(),
            control,
            fold_op: self.fold_op,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<'f, T, C, S, F, R> UnindexedConsumer<T> for TryFoldConsumer<'f, C, S, F, R>
where
    C: UnindexedConsumer<R>,
    S: Init,
    F: Fn(S::Value, T) -> R + Sync,
    R: Try<Output = S::Value> + Send,
{
    fn split_off_left(&self) -> Self {
        let base = self.base.split_off_left();
        TryFoldConsumer {
            base,
            init: self.init.split(),
            fold_op: self.fold_op,
            marker: PhantomData,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct TryFoldFolder<'f, G, F, R: Try> {
    base: G,
    control: ControlFlow<R::Residual, R::Output>,
    fold_op: &'f F,
}

impl<'f, T, G, F, R> Folder<T> for TryFoldFolder<'f, G, F, R>
where
    G: Folder<R>,
    F: Fn(R::Output, T) -> R,
    R: Try,
{
    type Result = G::Result;

    fn consume(mut self, item: T) -> Self {
        if let Continue(acc) = self.control {
            self.control = (self.fold_op)(acc, item).branch();
        }
        self
    }
    fn complete(self) -> G::Result {
        let item = match self.control {
            Continue(c) => R::from_output(c),
            Break(r) => R::from_residual(r),
        };
        self.base.consume(item).complete()
    }
    fn full(&self) -> bool {
        self.control.is_break() || self.base.full()
    }
}
