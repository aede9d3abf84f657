//! The [`ParallelIterator`] trait: every adapter and consumer that works
//! without an index.
//!
//! The trait is one trait, as rayon's; its provided methods are grouped by
//! concern in the submodules (each a macro expanded in the trait's body):
//! `consuming` (`for_each`, `count`), `adapting` (`map`, `filter`, ...),
//! `reducing` (`reduce`, `fold`, `sum`, `min`, ...), `searching`
//! (`find_*`, `any`, `all`) and `collecting` (`collect`, `unzip`,
//! `partition`).

mod adapting;
mod collecting;
mod consuming;
mod reducing;
mod searching;

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

    consuming::consuming_methods!();
    adapting::adapting_methods!();
    reducing::reducing_methods!();
    searching::searching_methods!();
    collecting::collecting_methods!();
}

fn unit_ok<R: Try<Output = ()>>(_: (), _: ()) -> R {
    R::from_output(())
}

fn count_one<T>(_: T) -> usize {
    1
}
