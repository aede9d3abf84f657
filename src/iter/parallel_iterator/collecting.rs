//! Building collections from the items.
//!
//! These provided methods of [`ParallelIterator`](super::ParallelIterator)
//! are written here as a macro that the trait expands in its body: the
//! trait stays one trait, its methods are spread over files by concern.

/// Expands to this group's provided methods of `ParallelIterator`.
macro_rules! collecting_methods {
    () => {
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
    };
}

pub(super) use collecting_methods;
