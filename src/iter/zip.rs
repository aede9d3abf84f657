//! `zip`: a producer of pairs from two producers split at the same index.

use std::cmp;
use std::iter;

use super::plumbing::*;
use super::*;

/// Pairs the items of two indexed iterators; as long as the shorter. Made
/// by [`IndexedParallelIterator::zip`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A, B> Zip<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Zip { a, b }
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ParallelIterator for Zip<A, B> {
    type Item = (A::Item, B::Item);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> IndexedParallelIterator for Zip<A, B> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        cmp::min(self.a.len(), self.b.len())
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let len = self.len();
        return self.a.with_producer(CallbackA {
            callback,
            b: self.b,
            len,
        });

        struct CallbackA<CB, B> {
            callback: CB,
            b: B,
            len: usize,
        }

        impl<CB, ItemA, B> ProducerCallback<ItemA> for CallbackA<CB, B>
        where
            B: IndexedParallelIterator,
            CB: ProducerCallback<(ItemA, B::Item)>,
        {
            type Output = CB::Output;
            fn callback<PA: Producer<Item = ItemA>>(self, a: PA) -> CB::Output {
                self.b.with_producer(CallbackB {
                    callback: self.callback,
                    a,
                    len: self.len,
                })
            }
        }

        struct CallbackB<CB, PA> {
            callback: CB,
            a: PA,
            len: usize,
        }

        impl<CB, PA, ItemB> ProducerCallback<ItemB> for CallbackB<CB, PA>
        where
            PA: Producer,
            CB: ProducerCallback<(PA::Item, ItemB)>,
        {
            type Output = CB::Output;
            fn callback<PB: Producer<Item = ItemB>>(self, b: PB) -> CB::Output {
                self.callback
                    .callback(ZipProducer::new(self.a, b, self.len))
            }
        }
    }
}

/// Pairs of items of `a` and `b`; both are cut to the same length first,
/// so the pairs are the same from either end.
pub(super) struct ZipProducer<PA, PB> {
    a: PA,
    b: PB,
}

impl<PA: Producer, PB: Producer> ZipProducer<PA, PB> {
    /// `len` is the shorter length; the longer producer's tail is dropped.
    pub(super) fn new(a: PA, b: PB, len: usize) -> Self {
        ZipProducer {
            a: a.split_at(len).0,
            b: b.split_at(len).0,
        }
    }
}

impl<PA: Producer, PB: Producer> Producer for ZipProducer<PA, PB> {
    type Item = (PA::Item, PB::Item);
    type IntoIter = iter::Zip<PA::IntoIter, PB::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.a.into_iter().zip(self.b.into_iter())
    }
    fn min_len(&self) -> usize {
        cmp::max(self.a.min_len(), self.b.min_len())
    }
    fn max_len(&self) -> usize {
        cmp::min(self.a.max_len(), self.b.max_len())
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (a1, a2) = self.a.split_at(index);
        let (b1, b2) = self.b.split_at(index);
        (ZipProducer { a: a1, b: b1 }, ZipProducer { a: a2, b: b2 })
    }
}
