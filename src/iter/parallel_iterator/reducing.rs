//! Combining the items into one value: reductions, folds, sums, extremes.
//!
//! These provided methods of [`ParallelIterator`](super::ParallelIterator)
//! are written here as a macro that the trait expands in its body: the
//! trait stays one trait, its methods are spread over files by concern.

/// Expands to this group's provided methods of `ParallelIterator`.
macro_rules! reducing_methods {
    () => {
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
    };
}

pub(super) use reducing_methods;
