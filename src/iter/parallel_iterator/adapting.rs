//! The lazy adapters: what turns a parallel iterator into another.
//!
//! These provided methods of [`ParallelIterator`](super::ParallelIterator)
//! are written here as a macro that the trait expands in its body: the
//! trait stays one trait, its methods are spread over files by concern.

/// Expands to this group's provided methods of `ParallelIterator`.
macro_rules! adapting_methods {
    () => {
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

        /// The `Some` values until a `None` is seen; then every piece stops
        /// early.
        ///
        /// As in rayon, "until" is in time, not in input order: pieces run
        /// in parallel, so items on either side of the first `None` that were
        /// processed before the stop was seen may be yielded, and items
        /// before it may be missing. The `None` itself never is.
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
        /// their next item instead of running to their end, wherever the fuse
        /// stands in the chain (before or after the closure, with `rev` or
        /// `zip` above it).
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

        /// Items from anywhere in the iterator until `predicate` is false for
        /// one: from then on every piece stops taking (items already taken by a
        /// racing piece stay). The taken items keep their relative order where
        /// it is visible (`collect`).
        ///
        /// ```
        /// use locus::prelude::*;
        /// let v: Vec<u32> = (0..100u32).into_par_iter().take_any_while(|&x| x < 50).collect();
        /// assert!(v.len() <= 50 && v.iter().all(|&x| x < 50));
        /// assert!(v.windows(2).all(|w| w[0] < w[1]));
        /// ```
        fn take_any_while<P>(self, predicate: P) -> TakeAnyWhile<Self, P>
        where
            P: Fn(&Self::Item) -> bool + Sync + Send,
        {
            TakeAnyWhile::new(self, predicate)
        }

        /// Skips items from anywhere in the iterator while `predicate` holds:
        /// once it is false for one item, that item and every later one seen by
        /// any piece pass (items already skipped by a racing piece stay
        /// skipped).
        ///
        /// ```
        /// use locus::prelude::*;
        /// let v: Vec<u32> = (0..100u32).into_par_iter().skip_any_while(|&x| x < 50).collect();
        /// assert!(v.len() >= 50 && (50..100).all(|x| v.contains(&x)));
        /// ```
        fn skip_any_while<P>(self, predicate: P) -> SkipAnyWhile<Self, P>
        where
            P: Fn(&Self::Item) -> bool + Sync + Send,
        {
            SkipAnyWhile::new(self, predicate)
        }
    };
}

pub(super) use adapting_methods;
