//! Running a closure on every item, and counting.
//!
//! These provided methods of [`ParallelIterator`](super::ParallelIterator)
//! are written here as a macro that the trait expands in its body: the
//! trait stays one trait, its methods are spread over files by concern.

/// Expands to this group's provided methods of `ParallelIterator`.
macro_rules! consuming_methods {
    () => {
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
    };
}

pub(super) use consuming_methods;
