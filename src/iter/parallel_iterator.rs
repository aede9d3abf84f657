//! The [`ParallelIterator`] trait: every adapter and consumer that works
//! without an index.

use std::cmp::Ordering;
use std::collections::LinkedList;
use std::iter::{Product, Sum};

use super::plumbing::UnindexedConsumer;
use super::try_trait::Try;
use super::*;

/// A parallel iterator: rayon's `ParallelIterator`, with the same methods.
///
/// Adapters (`map`, `filter`, ...) are lazy; consumers (`for_each`, `sum`,
/// `collect`, ...) run the iterator on the current pool (the current
/// worker's, else the global one) and return when every item was handled.
///
/// ```
/// use locus::prelude::*;
/// let evens = (0..100u32).into_par_iter().filter(|x| x % 2 == 0).count();
/// assert_eq!(evens, 50);
/// ```
pub trait ParallelIterator: Sized + Send {
    /// The items.
    type Item: Send;

    /// Calls `op` on every item.
    ///
    /// ```
    /// use locus::prelude::*;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// let n = AtomicU32::new(0);
    /// (0..10u32).into_par_iter().for_each(|x| { n.fetch_add(x, Ordering::Relaxed); });
    /// assert_eq!(n.into_inner(), 45);
    /// ```
    fn for_each<OP>(self, op: OP)
    where
        OP: Fn(Self::Item) + Sync + Send,
    {
        for_each::for_each(self, &op)
    }

    /// Calls `op` on every item with a `&mut` to a clone of `init` (one
    /// clone per piece of work).
    ///
    /// ```
    /// use locus::prelude::*;
    /// use std::sync::mpsc::channel;
    /// let (tx, rx) = channel();
    /// (0..5).into_par_iter().for_each_with(tx, |tx, x| tx.send(x).unwrap());
    /// let mut got: Vec<i32> = rx.iter().collect();
    /// got.sort();
    /// assert_eq!(got, [0, 1, 2, 3, 4]);
    /// ```
    fn for_each_with<OP, T>(self, init: T, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        T: Send + Clone,
    {
        self.map_with(init, op).collect()
    }

    /// Calls `op` on every item with a `&mut` to a value made by `init`
    /// (once per piece of work).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut out = vec![0u8; 100];
    /// out.par_chunks_mut(10).for_each_init(Vec::new, |scratch, chunk| {
    ///     scratch.clear();
    ///     scratch.extend(0..chunk.len() as u8);
    ///     chunk.copy_from_slice(scratch);
    /// });
    /// assert_eq!(out[19], 9);
    /// ```
    fn for_each_init<OP, INIT, T>(self, init: INIT, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        self.map_init(init, op).collect()
    }

    /// Calls a fallible `op` on every item; stops at the first failure seen
    /// (which one is unspecified) and returns it.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let r = (0..100).into_par_iter().try_for_each(|x| if x == 42 { Err(x) } else { Ok(()) });
    /// assert_eq!(r, Err(42));
    /// ```
    fn try_for_each<OP, R>(self, op: OP) -> R
    where
        OP: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map(op).try_reduce(<()>::default, unit_ok)
    }

    /// [`try_for_each`](Self::try_for_each) with a clone of `init` per
    /// piece of work, as [`for_each_with`](Self::for_each_with).
    ///
    /// ```
    /// use locus::prelude::*;
    /// use std::sync::mpsc::channel;
    /// let (tx, rx) = channel();
    /// let r = (0..5).into_par_iter().try_for_each_with(tx, |tx, x| tx.send(x));
    /// assert!(r.is_ok());
    /// assert_eq!(rx.iter().count(), 5);
    /// ```
    fn try_for_each_with<OP, T, R>(self, init: T, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Try<Output = ()> + Send,
    {
        self.map_with(init, op).try_reduce(<()>::default, unit_ok)
    }

    /// [`try_for_each`](Self::try_for_each) with a value from `init` per
    /// piece of work, as [`for_each_init`](Self::for_each_init).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let r: Option<()> = (0..5).into_par_iter().try_for_each_init(|| 10, |ten, x| (x < *ten).then_some(()));
    /// assert_eq!(r, Some(()));
    /// ```
    fn try_for_each_init<OP, INIT, T, R>(self, init: INIT, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_init(init, op).try_reduce(<()>::default, unit_ok)
    }

    /// The number of items.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((0..1000).into_par_iter().filter(|x| x % 7 == 0).count(), 143);
    /// ```
    fn count(self) -> usize {
        self.map(count_one).sum()
    }

    /// Applies `map_op` to every item.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = (0..4).into_par_iter().map(|x| x * 2).collect();
    /// assert_eq!(v, [0, 2, 4, 6]);
    /// ```
    fn map<F, R>(self, map_op: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Map::new(self, map_op)
    }

    /// Applies `map_op` with a `&mut` to a clone of `init` (one per piece).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = (0..4).into_par_iter().map_with(10, |ten, x| x + *ten).collect();
    /// assert_eq!(v, [10, 11, 12, 13]);
    /// ```
    fn map_with<F, T, R>(self, init: T, map_op: F) -> MapWith<Self, T, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Send,
    {
        MapWith::new(self, init, map_op)
    }

    /// Applies `map_op` with a `&mut` to a value from `init` (called once
    /// per piece).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<String> = (0..3i32).into_par_iter()
    ///     .map_init(String::new, |buf, x| { buf.clear(); buf.push_str(&x.to_string()); buf.clone() })
    ///     .collect();
    /// assert_eq!(v, ["0", "1", "2"]);
    /// ```
    fn map_init<F, INIT, T, R>(self, init: INIT, map_op: F) -> MapInit<Self, INIT, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Send,
    {
        MapInit::new(self, init, map_op)
    }

    /// Clones every borrowed item.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v = vec![String::from("a")];
    /// let w: Vec<String> = v.par_iter().cloned().collect();
    /// assert_eq!(v, w);
    /// ```
    fn cloned<'a, T>(self) -> Cloned<Self>
    where
        T: 'a + Clone + Send,
        Self: ParallelIterator<Item = &'a T>,
    {
        Cloned::new(self)
    }

    /// Copies every borrowed item.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v = [1, 2, 3];
    /// let s: i32 = v.par_iter().copied().sum();
    /// assert_eq!(s, 6);
    /// ```
    fn copied<'a, T>(self) -> Copied<Self>
    where
        T: 'a + Copy + Send,
        Self: ParallelIterator<Item = &'a T>,
    {
        Copied::new(self)
    }

    /// Calls `inspect_op` on a reference to every item, passing it on.
    ///
    /// ```
    /// use locus::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let seen = AtomicUsize::new(0);
    /// let s: i32 = (1..=3).into_par_iter().inspect(|_| { seen.fetch_add(1, Ordering::Relaxed); }).sum();
    /// assert_eq!((s, seen.into_inner()), (6, 3));
    /// ```
    fn inspect<OP>(self, inspect_op: OP) -> Inspect<Self, OP>
    where
        OP: Fn(&Self::Item) + Sync + Send,
    {
        Inspect::new(self, inspect_op)
    }

    /// Modifies every item in place through `update_op`.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<Vec<i32>> = (0..3).into_par_iter().map(|x| vec![x]).update(|v| v.push(9)).collect();
    /// assert_eq!(v[2], [2, 9]);
    /// ```
    fn update<F>(self, update_op: F) -> Update<Self, F>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        Update::new(self, update_op)
    }

    /// Keeps the items for which `filter_op` is true.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = (0..10).into_par_iter().filter(|x| x % 4 == 0).collect();
    /// assert_eq!(v, [0, 4, 8]);
    /// ```
    fn filter<P>(self, filter_op: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, filter_op)
    }

    /// Maps items to options and keeps the `Some` values.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<u32> = ["1", "x", "3"].par_iter().filter_map(|s| s.parse().ok()).collect();
    /// assert_eq!(v, [1, 3]);
    /// ```
    fn filter_map<P, R>(self, filter_op: P) -> FilterMap<Self, P>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        FilterMap::new(self, filter_op)
    }

    /// Maps every item to a parallel iterator and yields their items.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map(|n| (0..n).into_par_iter()).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map<F, PI>(self, map_op: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> PI + Sync + Send,
        PI: IntoParallelIterator,
    {
        FlatMap::new(self, map_op)
    }

    /// Maps every item to a sequential iterator and yields its items
    /// (cheaper than [`flat_map`](Self::flat_map) for small inner
    /// iterators).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map_iter(|n| 0..n).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map_iter<F, SI>(self, map_op: F) -> FlatMapIter<Self, F>
    where
        F: Fn(Self::Item) -> SI + Sync + Send,
        SI: IntoIterator<Item: Send>,
    {
        FlatMapIter::new(self, map_op)
    }

    /// Yields the items of every item, each a parallel iterator.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = vec![vec![1], vec![2, 3]].into_par_iter().flatten().collect();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// Yields the items of every item, each a sequential iterator.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = vec![vec![1], vec![2, 3]].into_par_iter().flatten_iter().collect();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator<Item: Send>,
    {
        FlattenIter::new(self)
    }

    /// Combines all items with `op`, starting each piece from `identity()`
    /// (which must be a neutral element of `op`); `op` must be associative.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let s = (1..=10).into_par_iter().reduce(|| 0, |a, b| a + b);
    /// assert_eq!(s, 55);
    /// ```
    fn reduce<OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
        ID: Fn() -> Self::Item + Sync + Send,
    {
        reduce::reduce(self, identity, op)
    }

    /// Combines all items with the associative `op`; `None` if there are
    /// none.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((1..5).into_par_iter().reduce_with(|a, b| a * b), Some(24));
    /// assert_eq!((0..0).into_par_iter().reduce_with(|a, b| a * b), None);
    /// ```
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        let op = &op;
        self.map(Some).reduce(
            || None,
            move |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(op(a, b)),
                (a, None) => a,
                (None, b) => b,
            },
        )
    }

    /// [`reduce`](Self::reduce) over fallible items: stops at the first
    /// failure seen and returns it.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let r = (1..5i32).into_par_iter().map(Some).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(r, Some(10));
    /// ```
    fn try_reduce<T, OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        try_reduce::try_reduce(self, identity, op)
    }

    /// [`reduce_with`](Self::reduce_with) over fallible items.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let r = (1..5u8).into_par_iter().map(Some).try_reduce_with(|a, b| a.checked_mul(b));
    /// assert_eq!(r, Some(Some(24)));
    /// ```
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        try_reduce_with::try_reduce_with(self, op)
    }

    /// Folds each piece of work sequentially, from `identity()`; yields one
    /// accumulator per piece (combine them with `reduce` or `sum`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let s: u64 = (0..100u64).into_par_iter().fold(|| 0, |a, x| a + x).sum();
    /// assert_eq!(s, 4950);
    /// ```
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// [`fold`](Self::fold) starting each piece from a clone of `init`.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let s: u64 = (0..100u64).into_par_iter().fold_with(0, |a, x| a + x).sum();
    /// assert_eq!(s, 4950);
    /// ```
    fn fold_with<F, T>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send + Clone,
    {
        FoldWith::new(self, init, fold_op)
    }

    /// A fallible [`fold`](Self::fold): a piece stops at its first failure.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let r: Option<u8> = (0..10u8).into_par_iter().try_fold(|| 0u8, |a, x| a.checked_add(x))
    ///     .try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(r, Some(45));
    /// ```
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, R, ID, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, identity, fold_op)
    }

    /// [`try_fold`](Self::try_fold) starting each piece from a clone of
    /// `init`.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let r: Result<u32, ()> = (0..10u32).into_par_iter().try_fold_with(0, |a, x| Ok(a + x))
    ///     .try_reduce(|| 0, |a, b| Ok(a + b));
    /// assert_eq!(r, Ok(45));
    /// ```
    fn try_fold_with<F, T, R>(self, init: T, fold_op: F) -> TryFoldWith<Self, R, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
        T: Clone + Send,
    {
        TryFoldWith::new(self, init, fold_op)
    }

    /// Sums the items (each piece with `Sum`, then the partial sums).
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((1..=100).into_par_iter().sum::<i32>(), 5050);
    /// ```
    fn sum<S>(self) -> S
    where
        S: Send + Sum<Self::Item> + Sum<S>,
    {
        sum::sum(self)
    }

    /// Multiplies the items.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((1..=5).into_par_iter().product::<i32>(), 120);
    /// ```
    fn product<P>(self) -> P
    where
        P: Send + Product<Self::Item> + Product<P>,
    {
        sum::product(self)
    }

    /// The smallest item (the first of equal ones), `None` if empty.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!([3, 1, 2].par_iter().min(), Some(&1));
    /// ```
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.min_by(Ord::cmp)
    }

    /// The smallest item by `f` (the first of equal ones).
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!([3.5f64, 1.5, 2.0].par_iter().min_by(|a, b| a.total_cmp(*b)), Some(&1.5));
    /// ```
    fn min_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Sync + Send + Fn(&Self::Item, &Self::Item) -> Ordering,
    {
        let f = &f;
        self.reduce_with(move |a, b| if f(&a, &b) == Ordering::Greater { b } else { a })
    }

    /// The item with the smallest key (the first of equal ones).
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!([-3i32, 1, 2].par_iter().min_by_key(|x| x.abs()), Some(&1));
    /// ```
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&Self::Item) -> K,
    {
        let f = &f;
        let keyed = self.map(move |x| (f(&x), x));
        keyed.min_by(|a, b| a.0.cmp(&b.0)).map(|(_, x)| x)
    }

    /// The largest item (the last of equal ones), `None` if empty.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!([3, 1, 2].par_iter().max(), Some(&3));
    /// ```
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.max_by(Ord::cmp)
    }

    /// The largest item by `f` (the last of equal ones).
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!([3.5f64, 1.5].par_iter().max_by(|a, b| a.total_cmp(*b)), Some(&3.5));
    /// ```
    fn max_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Sync + Send + Fn(&Self::Item, &Self::Item) -> Ordering,
    {
        let f = &f;
        self.reduce_with(move |a, b| if f(&a, &b) == Ordering::Greater { a } else { b })
    }

    /// The item with the largest key (the last of equal ones).
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!([-3i32, 1, 2].par_iter().max_by_key(|x| x.abs()), Some(&-3));
    /// ```
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&Self::Item) -> K,
    {
        let f = &f;
        let keyed = self.map(move |x| (f(&x), x));
        keyed.max_by(|a, b| a.0.cmp(&b.0)).map(|(_, x)| x)
    }

    /// The items of `self`, then those of `chain`.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = (0..2).into_par_iter().chain(vec![7, 8]).collect();
    /// assert_eq!(v, [0, 1, 7, 8]);
    /// ```
    fn chain<C>(self, chain: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Chain::new(self, chain.into_par_iter())
    }

    /// Some item for which `predicate` is true, not necessarily the first;
    /// stops the search early once one is found.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((0..100).into_par_iter().find_any(|&x| x == 42), Some(42));
    /// ```
    fn find_any<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find::find(self, predicate)
    }

    /// The first item (in iterator order) for which `predicate` is true.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((0..100).into_par_iter().find_first(|x| x % 7 == 6), Some(6));
    /// ```
    fn find_first<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find_first_last::find_first(self, predicate)
    }

    /// The last item for which `predicate` is true.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((0..100).into_par_iter().find_last(|x| x % 7 == 6), Some(97));
    /// ```
    fn find_last<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find_first_last::find_last(self, predicate)
    }

    /// Some `Some` result of `predicate`, not necessarily the first.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let r = ["a", "7"].par_iter().find_map_any(|s| s.parse::<u8>().ok());
    /// assert_eq!(r, Some(7));
    /// ```
    fn find_map_any<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_any(|_| true)
    }

    /// The first `Some` result of `predicate`, in iterator order.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let r = ["a", "7", "8"].par_iter().find_map_first(|s| s.parse::<u8>().ok());
    /// assert_eq!(r, Some(7));
    /// ```
    fn find_map_first<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_first(|_| true)
    }

    /// The last `Some` result of `predicate`, in iterator order.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let r = ["a", "7", "8"].par_iter().find_map_last(|s| s.parse::<u8>().ok());
    /// assert_eq!(r, Some(8));
    /// ```
    fn find_map_last<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_last(|_| true)
    }

    /// True if `predicate` holds for some item (stops early).
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert!((0..100).into_par_iter().any(|x| x == 99));
    /// ```
    fn any<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&hit| hit).is_some()
    }

    /// True if `predicate` holds for every item (stops early).
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert!(!(0..100).into_par_iter().all(|x| x < 99));
    /// ```
    fn all<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&hit| !hit).is_none()
    }

    /// The `Some` values up to the first `None` seen; pieces after a `None`
    /// stop early (which items before it are yielded is unspecified beyond
    /// that).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = vec![Some(1), Some(2)].into_par_iter().while_some().collect();
    /// assert_eq!(v, [1, 2]);
    /// ```
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        WhileSome::new(self)
    }

    /// After a closure of this iterator panicked, the other pieces stop at
    /// their next item instead of running to their end.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let r = std::panic::catch_unwind(|| {
    ///     (0..1000).into_par_iter().panic_fuse().for_each(|x| assert!(x != 500));
    /// });
    /// assert!(r.is_err());
    /// ```
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// Builds a collection from the items (in order, for ordered ones).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let s: String = vec!["a", "b"].into_par_iter().collect();
    /// assert_eq!(s, "ab");
    /// ```
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }

    /// Splits pairs into two collections.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let (a, b): (Vec<i32>, Vec<i32>) = (0..3i32).into_par_iter().map(|x| (x, -x)).unzip();
    /// assert_eq!((a, b), (vec![0, 1, 2], vec![0, -1, -2]));
    /// ```
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        unzip::unzip(self)
    }

    /// Splits items into those for which `predicate` is true and the rest.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let (even, odd): (Vec<i32>, Vec<i32>) = (0..6).into_par_iter().partition(|x| x % 2 == 0);
    /// assert_eq!((even, odd), (vec![0, 2, 4], vec![1, 3, 5]));
    /// ```
    fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        unzip::partition(self, predicate)
    }

    /// Sends each item to the left or right collection, mapped.
    ///
    /// ```
    /// use locus::prelude::*;
    /// use locus::iter::Either;
    /// let (a, b): (Vec<i32>, Vec<String>) = (0..4i32).into_par_iter()
    ///     .partition_map(|x| if x < 2 { Either::Left(x) } else { Either::Right(x.to_string()) });
    /// assert_eq!((a, b), (vec![0, 1], vec!["2".to_string(), "3".to_string()]));
    /// ```
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        unzip::partition_map(self, predicate)
    }

    /// Puts a clone of `element` between every two items.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = (1..4).into_par_iter().intersperse(0).collect();
    /// assert_eq!(v, [1, 0, 2, 0, 3]);
    /// ```
    fn intersperse(self, element: Self::Item) -> Intersperse<Self>
    where
        Self::Item: Clone,
    {
        Intersperse::new(self, element)
    }

    /// At most `n` items, any of them (not necessarily the first).
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((0..100).into_par_iter().take_any(5).count(), 5);
    /// ```
    fn take_any(self, n: usize) -> TakeAny<Self> {
        TakeAny::new(self, n)
    }

    /// All but `n` items, any of them skipped.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((0..100).into_par_iter().skip_any(5).count(), 95);
    /// ```
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        SkipAny::new(self, n)
    }

    /// Every item in pieces of `Vec`s, the pieces in iterator order.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let list = (0..5).into_par_iter().collect_vec_list();
    /// let flat: Vec<i32> = list.into_iter().flatten().collect();
    /// assert_eq!(flat, [0, 1, 2, 3, 4]);
    /// ```
    fn collect_vec_list(self) -> LinkedList<Vec<Self::Item>> {
        collect::vec_list(self)
    }

    /// Runs the iterator into `consumer`: the method that sources and
    /// adapters implement (see [`plumbing`]).
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>;

    /// The exact number of items, if the iterator is indexed; an
    /// iterator returning `Some` promises that `drive_unindexed` splits by
    /// index (it may be handed an indexed-only consumer).
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((0..10).into_par_iter().opt_len(), Some(10));
    /// assert_eq!((0..10).into_par_iter().filter(|_| true).opt_len(), None);
    /// ```
    fn opt_len(&self) -> Option<usize> {
        None
    }
}

fn unit_ok<R: Try<Output = ()>>(_: (), _: ()) -> R {
    R::from_output(())
}

fn count_one<T>(_: T) -> usize {
    1
}
