//! `once()`: an indexed iterator with one item (an `Option` iterator).

use super::plumbing::*;
use super::*;

/// An iterator with exactly one item.
///
/// ```
/// use locus::prelude::*;
/// let v: Vec<i32> = (0..2).into_par_iter().chain(locus::iter::once(7)).collect();
/// assert_eq!(v, [0, 1, 7]);
/// ```
pub fn once<T: Send>(item: T) -> Once<T> {
    Once {
        inner: Some(item).into_par_iter(),
    }
}

/// An iterator with one item. Made by [`once()`].
#[derive(Clone, Debug)]
pub struct Once<T> {
    inner: crate::option::IntoIter<T>,
}

impl<T: Send> ParallelIterator for Once<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        self.inner.drive_unindexed(consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(1)
    }
}

impl<T: Send> IndexedParallelIterator for Once<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.inner.drive(consumer)
    }
    fn len(&self) -> usize {
        1
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        self.inner.with_producer(callback)
    }
}
