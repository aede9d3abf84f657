//! Searching: `find_*`, `any`, `all` (each stops early once its answer is known).
//!
//! These provided methods of [`ParallelIterator`](super::ParallelIterator)
//! are written here as a macro that the trait expands in its body: the
//! trait stays one trait, its methods are spread over files by concern.

/// Expands to this group's provided methods of `ParallelIterator`.
macro_rules! searching_methods {
    () => {
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

        /// Deprecated, as in rayon: a parallel `find` does not search in
        /// order; use [`find_any`](Self::find_any), [`find_first`](Self::find_first)
        /// or [`find_last`](Self::find_last).
        #[doc(hidden)]
        #[deprecated(note = "parallel `find` does not search in order -- use `find_any`, `find_first`, or `find_last`")]
        fn find<P>(self, predicate: P) -> Option<Self::Item>
        where
            P: Fn(&Self::Item) -> bool + Sync + Send,
        {
            self.find_any(predicate)
        }
    };
}

pub(super) use searching_methods;
