//! `repeat()` (endless, unindexed) and `repeat_n()` (indexed): clones of
//! one value. `repeat_n(x, n)` clones `x` `n - 1` times when every item is
//! used (the last item is `x` itself), as rayon's does.

use std::fmt;
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

/// `n` clones of `element` (the last one is `element` itself: `n - 1`
/// clones in all when every item is used; `n == 0` drops `element` at
/// once).
///
/// ```
/// use locus::prelude::*;
/// assert_eq!(locus::iter::repeat_n(2, 5).sum::<i32>(), 10);
/// ```
pub fn repeat_n<T: Clone + Send>(element: T, n: usize) -> RepeatN<T> {
    RepeatN {
        items: Repeats::new(element, n),
    }
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
#[derive(Clone)]
pub struct RepeatN<T> {
    items: Repeats<T>,
}

impl<T: fmt::Debug> fmt::Debug for RepeatN<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RepeatN");
        d.field("count", &self.items.count);
        match &self.items.element {
            Some(element) => d.field("element", element).finish(),
            None => d.finish_non_exhaustive(),
        }
    }
}

impl<T: Clone + Send> ParallelIterator for RepeatN<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.items.count)
    }
}

impl<T: Clone + Send> IndexedParallelIterator for RepeatN<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.items.count
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(self.items)
    }
}

/// `count` items: clones of `element`, and `element` itself last, so that
/// `n` items cost `n - 1` clones however they are split (a split clones
/// only when both sides get items, and each side's last item is its own
/// copy). `element` is `None` exactly when `count` is 0: an empty piece
/// holds no copy, and `repeat_n(x, 0)` drops `x` at once.
///
/// Both the producer and a leaf's iterator (from either end: the items
/// are all alike); skipping items (`nth`) clones nothing.
#[derive(Clone)]
struct Repeats<T> {
    element: Option<T>,
    count: usize,
}

impl<T> Repeats<T> {
    fn new(element: T, count: usize) -> Self {
        Repeats {
            element: (count > 0).then_some(element),
            count,
        }
    }

    fn empty() -> Self {
        Repeats {
            element: None,
            count: 0,
        }
    }
}

impl<T: Clone> Iterator for Repeats<T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match self.count {
            0 => None,
            1 => {
                self.count = 0;
                self.element.take()
            }
            _ => {
                self.count -= 1;
                self.element.clone()
            }
        }
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<T> {
        if n >= self.count {
            *self = Repeats::empty();
            return None;
        }
        self.count -= n;
        self.next()
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.count, Some(self.count))
    }
}

impl<T: Clone> DoubleEndedIterator for Repeats<T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        self.next()
    }
    #[inline]
    fn nth_back(&mut self, n: usize) -> Option<T> {
        self.nth(n)
    }
}

impl<T: Clone> ExactSizeIterator for Repeats<T> {}

impl<T: Clone + Send> Producer for Repeats<T> {
    type Item = T;
    type IntoIter = Self;

    fn into_iter(self) -> Self {
        self
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        assert!(index <= self.count, "repeat_n: split past the end");
        let right = self.count - index;
        match (index, right) {
            (0, _) => (Repeats::empty(), self),
            (_, 0) => (self, Repeats::empty()),
            _ => {
                let left = Repeats {
                    element: self.element.clone(),
                    count: index,
                };
                (
                    left,
                    Repeats {
                        count: right,
                        ..self
                    },
                )
            }
        }
    }
}
