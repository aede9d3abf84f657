//! `rev`: a producer that mirrors split indices and iterates backwards.

use std::iter;

use super::plumbing::*;
use super::*;

/// The items in reverse order. Made by [`IndexedParallelIterator::rev`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct Rev<I> {
    base: I,
}

impl<I> Rev<I> {
    pub(super) fn new(base: I) -> Self {
        Rev { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Rev<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Rev<I> {
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.base.len()
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        return self.base.with_producer(Callback { callback, len });

        struct Callback<CB> {
            callback: CB,
            len: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(RevProducer {
                    base,
                    len: self.len,
                })
            }
        }
    }
}

/// The `len` items of `base`, last first.
struct RevProducer<P> {
    base: P,
    len: usize,
}

impl<P: Producer> Producer for RevProducer<P> {
    type Item = P::Item;
    type IntoIter = iter::Rev<P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().rev()
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        // The first `index` reversed items are the last `index` of base.
        let (front, back) = self.base.split_at(self.len - index);
        (
            RevProducer {
                base: back,
                len: index,
            },
            RevProducer {
                base: front,
                len: self.len - index,
            },
        )
    }
}
