//! `repeat()` (endless, unindexed) and `repeat_n()` (indexed): clones of
//! one value.

use std::iter;

use super::plumbing::*;
use super::*;

/// Clones of `element`, endlessly: end it with `take`, `zip` or a
/// short-circuiting consumer.
///
/// ```
/// use locus::prelude::*;
/// let v: Vec<char> = locus::iter::repeat('x').take(3).collect();
/// assert_eq!(v, ['x', 'x', 'x']);
/// ```
pub fn repeat<T: Clone + Send>(element: T) -> Repeat<T> {
    Repeat { element }
}

/// `n` clones of `element`.
///
/// ```
/// use locus::prelude::*;
/// assert_eq!(locus::iter::repeat_n(2, 5).sum::<i32>(), 10);
/// ```
pub fn repeat_n<T: Clone + Send>(element: T, n: usize) -> RepeatN<T> {
    RepeatN { element, count: n }
}

/// `n` clones of `element` (the old name of [`repeat_n`]).
#[deprecated(note = "use `repeat_n`")]
pub fn repeatn<T: Clone + Send>(element: T, n: usize) -> RepeatN<T> {
    repeat_n(element, n)
}

/// Endless clones of a value. Made by [`repeat()`].
#[derive(Clone, Debug)]
pub struct Repeat<T> {
    element: T,
}

impl<T: Clone + Send> Repeat<T> {
    /// The first `n` clones, as an indexed iterator.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!(locus::iter::repeat(1).take(4).len(), 4);
    /// ```
    pub fn take(self, n: usize) -> RepeatN<T> {
        repeat_n(self.element, n)
    }

    /// Pairs a clone with every item of `zip_op`.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<(char, i32)> = locus::iter::repeat('a').zip(vec![1, 2]).collect();
    /// assert_eq!(v, [('a', 1), ('a', 2)]);
    /// ```
    pub fn zip<Z>(self, zip_op: Z) -> Zip<RepeatN<T>, Z::Iter>
    where
        Z: IntoParallelIterator<Iter: IndexedParallelIterator>,
    {
        let z = zip_op.into_par_iter();
        let n = z.len();
        self.take(n).zip(z)
    }
}

impl<T: Clone + Send> ParallelIterator for Repeat<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            RepeatProducer {
                element: self.element,
            },
            consumer,
        )
    }
}

struct RepeatProducer<T> {
    element: T,
}

impl<T: Clone + Send> UnindexedProducer for RepeatProducer<T> {
    type Item = T;

    fn split(self) -> (Self, Option<Self>) {
        let other = RepeatProducer {
            element: self.element.clone(),
        };
        (self, Some(other))
    }
    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        folder.consume_iter(iter::repeat(self.element))
    }
}

/// A fixed number of clones of a value. Made by [`repeat_n()`].
#[derive(Clone, Debug)]
pub struct RepeatN<T> {
    element: T,
    count: usize,
}

impl<T: Clone + Send> ParallelIterator for RepeatN<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.count)
    }
}

impl<T: Clone + Send> IndexedParallelIterator for RepeatN<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.count
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(RepeatNProducer {
            element: self.element,
            count: self.count,
        })
    }
}

struct RepeatNProducer<T> {
    element: T,
    count: usize,
}

impl<T: Clone + Send> Producer for RepeatNProducer<T> {
    type Item = T;
    type IntoIter = iter::RepeatN<T>;

    fn into_iter(self) -> Self::IntoIter {
        iter::repeat_n(self.element, self.count)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let left = RepeatNProducer {
            element: self.element.clone(),
            count: index,
        };
        (
            left,
            RepeatNProducer {
                element: self.element,
                count: self.count - index,
            },
        )
    }
}
