//! `sum` and `product`: each leaf folds with `Sum`/`Product`, and the
//! partial results are combined the same way.

use std::iter::{self, Product, Sum};
use std::marker::PhantomData;

use super::ParallelIterator;
use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

/// Sums the items of `pi`.
pub(super) fn sum<I, S>(pi: I) -> S
where
    I: ParallelIterator,
    S: Send + Sum<I::Item> + Sum,
{
    pi.drive_unindexed(Accumulate::<S, Adding>::new())
}

/// Multiplies the items of `pi`.
pub(super) fn product<I, P>(pi: I) -> P
where
    I: ParallelIterator,
    P: Send + Product<I::Item> + Product,
{
    pi.drive_unindexed(Accumulate::<P, Multiplying>::new())
}

/// How partial results of type `S` combine.
pub(super) trait Combine<S> {
    fn combine(left: S, right: S) -> S;
}

/// How items of type `T` accumulate into `S`.
pub(super) trait Accumulator<S, T>: Combine<S> {
    fn identity() -> S;
    fn fold<I: Iterator<Item = T>>(acc: S, items: I) -> S;
}

pub(super) struct Adding;
pub(super) struct Multiplying;

impl<S: Sum> Combine<S> for Adding {
    fn combine(left: S, right: S) -> S {
        [left, right].into_iter().sum()
    }
}
impl<S: Sum + Sum<T>, T> Accumulator<S, T> for Adding {
    fn identity() -> S {
        iter::empty::<T>().sum()
    }
    fn fold<I: Iterator<Item = T>>(acc: S, items: I) -> S {
        Self::combine(acc, items.sum())
    }
}
impl<S: Product> Combine<S> for Multiplying {
    fn combine(left: S, right: S) -> S {
        [left, right].into_iter().product()
    }
}
impl<S: Product + Product<T>, T> Accumulator<S, T> for Multiplying {
    fn identity() -> S {
        iter::empty::<T>().product()
    }
    fn fold<I: Iterator<Item = T>>(acc: S, items: I) -> S {
        Self::combine(acc, items.product())
    }
}

/// Consumer and reducer of `sum` (`K = Adding`) and `product`.
pub(super) struct Accumulate<S, K> {
    marker: PhantomData<fn() -> (S, K)>,
}

impl<S, K> Accumulate<S, K> {
    fn new() -> Self {
        Accumulate {
            marker: PhantomData,
        }
    }
}

impl<S: Send, K: Accumulator<S, T>, T> Consumer<T> for Accumulate<S, K> {
    type Folder = AccumulateFolder<S, K>;
    type Reducer = Self;
    type Result = S;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (Self::new(), Self::new(), Self::new())
    }
    fn into_folder(self) -> Self::Folder {
        AccumulateFolder {
            acc: K::identity(),
            marker: PhantomData,
        }
    }
    fn full(&self) -> bool {
        false
    }
}

impl<S: Send, K: Accumulator<S, T>, T> UnindexedConsumer<T> for Accumulate<S, K> {
    fn split_off_left(&self) -> Self {
        Self::new()
    }
    fn to_reducer(&self) -> Self {
        Self::new()
    }
}

impl<S, K: Combine<S>> Reducer<S> for Accumulate<S, K> {
    fn reduce(self, left: S, right: S) -> S {
        K::combine(left, right)
    }
}

/// The running partial result of a leaf.
pub(super) struct AccumulateFolder<S, K> {
    acc: S,
    marker: PhantomData<fn() -> K>,
}

impl<S, K: Accumulator<S, T>, T> Folder<T> for AccumulateFolder<S, K> {
    type Result = S;

    fn consume(self, item: T) -> Self {
        AccumulateFolder {
            acc: K::fold(self.acc, iter::once(item)),
            marker: PhantomData,
        }
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        AccumulateFolder {
            acc: K::fold(self.acc, iter.into_iter()),
            marker: PhantomData,
        }
    }
    fn complete(self) -> S {
        self.acc
    }
    fn full(&self) -> bool {
        false
    }
}
