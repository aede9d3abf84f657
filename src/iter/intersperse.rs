//! `intersperse`: a separator between every two items.
//!
//! Unindexed, each consumer knows whether a separator goes before its
//! first item (all but the leftmost). As in rayon, a piece is not told
//! whether the pieces to its left yielded anything, so an unindexed base
//! whose leftmost pieces are all empty (a `filter` that drops the first
//! half) can start with a separator; indexed bases are exact. Indexed, a piece of the output is
//! its base items plus whether it starts with a separator; output position
//! `k` of a piece is a separator iff `k` is even when the piece starts
//! with one, odd otherwise.

use std::cell::Cell;
use std::fmt;

use super::plumbing::*;
use super::*;

/// A clone of a separator between every two items. Made by
/// [`ParallelIterator::intersperse`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct Intersperse<I: ParallelIterator> {
    base: I,
    item: I::Item,
}

impl<I: ParallelIterator + fmt::Debug> fmt::Debug for Intersperse<I>
where
    I::Item: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Intersperse")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I: ParallelIterator> Intersperse<I> {
    pub(super) fn new(base: I, item: I::Item) -> Self {
        Intersperse { base, item }
    }
}

/// Output length for `n` base items.
fn out_len(n: usize) -> Option<usize> {
    if n == 0 {
        Some(0)
    } else {
        n.checked_add(n - 1)
    }
}

impl<I> ParallelIterator for Intersperse<I>
where
    I: ParallelIterator<Item: Clone>,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(IntersperseConsumer {
            base: consumer,
            item: self.item,
            sep_first: Cell::new(false),
        })
    }
    fn opt_len(&self) -> Option<usize> {
        out_len(self.base.opt_len()?)
    }
}

impl<I> IndexedParallelIterator for Intersperse<I>
where
    I: IndexedParallelIterator<Item: Clone>,
{
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        out_len(self.base.len()).expect("intersperse: length overflows usize")
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let len = self.len();
        return self.base.with_producer(Callback {
            callback,
            item: self.item,
            len,
        });

        struct Callback<CB, T> {
            callback: CB,
            item: T,
            len: usize,
        }

        impl<T: Clone + Send, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB, T> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(IntersperseProducer {
                    base,
                    item: self.item,
                    len: self.len,
                    sep_first: false,
                })
            }
        }
    }
}

struct IntersperseProducer<P: Producer> {
    base: P,
    item: P::Item,
    /// Output items of this piece.
    len: usize,
    sep_first: bool,
}

impl<P> Producer for IntersperseProducer<P>
where
    P: Producer<Item: Clone + Send>,
{
    type Item = P::Item;
    type IntoIter = IntersperseSeq<P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        let sep_last = self.len > 0 && (self.sep_first == ((self.len - 1) % 2 == 0));
        IntersperseSeq {
            base: self.base.into_iter(),
            item: self.item,
            len: self.len,
            sep_front: self.sep_first,
            sep_back: sep_last,
        }
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let base_items = if self.sep_first {
            index / 2
        } else {
            index.div_ceil(2)
        };
        let (l, r) = self.base.split_at(base_items);
        let right_sep_first = self.sep_first ^ (index % 2 == 1);
        let left = IntersperseProducer {
            base: l,
            item: self.item.clone(),
            len: index,
            sep_first: self.sep_first,
        };
        let right = IntersperseProducer {
            base: r,
            item: self.item,
            len: self.len - index,
            sep_first: right_sep_first,
        };
        (left, right)
    }
}

/// The sequential output of one piece.
struct IntersperseSeq<It: Iterator> {
    base: It,
    item: It::Item,
    len: usize,
    sep_front: bool,
    sep_back: bool,
}

impl<It: Iterator<Item: Clone>> Iterator for IntersperseSeq<It> {
    type Item = It::Item;

    fn next(&mut self) -> Option<It::Item> {
        self.len = self.len.checked_sub(1)?;
        self.sep_front = !self.sep_front;
        if self.sep_front {
            self.base.next()
        } else {
            Some(self.item.clone())
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl<It: DoubleEndedIterator<Item: Clone>> DoubleEndedIterator for IntersperseSeq<It> {
    fn next_back(&mut self) -> Option<It::Item> {
        self.len = self.len.checked_sub(1)?;
        self.sep_back = !self.sep_back;
        if self.sep_back {
            self.base.next_back()
        } else {
            Some(self.item.clone())
        }
    }
}

impl<It: ExactSizeIterator<Item: Clone>> ExactSizeIterator for IntersperseSeq<It> {}

struct IntersperseConsumer<C, T> {
    base: C,
    item: T,
    /// Whether a separator goes before this consumer's first item (a cell:
    /// `split_off_left` takes `&self` and makes `self` a right part).
    sep_first: Cell<bool>,
}

impl<T: Clone + Send, C: Consumer<T>> Consumer<T> for IntersperseConsumer<C, T> {
    type Folder = IntersperseFolder<C::Folder, T>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        // `index` base items are `2 * index` outputs with a leading
        // separator, one fewer without.
        let sep_first = self.sep_first.get();
        let out = if index == 0 {
            0
        } else {
            2 * index - usize::from(!sep_first)
        };
        let (l, r, reducer) = self.base.split_at(out);
        let right_sep = Cell::new(sep_first || index > 0);
        let left = IntersperseConsumer {
            base: l,
            item: self.item.clone(),
            sep_first: Cell::new(sep_first),
        };
        (
            left,
            IntersperseConsumer {
                base: r,
                item: self.item,
                sep_first: right_sep,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        IntersperseFolder {
            base: self.base.into_folder(),
            item: self.item,
            sep_next: self.sep_first.get(),
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T: Clone + Send, C: UnindexedConsumer<T>> UnindexedConsumer<T> for IntersperseConsumer<C, T> {
    fn split_off_left(&self) -> Self {
        let left = IntersperseConsumer {
            base: self.base.split_off_left(),
            item: self.item.clone(),
            sep_first: self.sep_first.clone(),
        };
        self.sep_first.set(true);
        left
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct IntersperseFolder<G, T> {
    base: G,
    item: T,
    sep_next: bool,
}

impl<T: Clone, G: Folder<T>> Folder<T> for IntersperseFolder<G, T> {
    type Result = G::Result;

    fn consume(mut self, item: T) -> Self {
        if self.sep_next {
            self.base = self.base.consume(self.item.clone());
            if self.base.full() {
                return self;
            }
        }
        self.sep_next = true;
        self.base = self.base.consume(item);
        self
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
