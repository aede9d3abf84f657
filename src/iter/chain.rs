//! `chain`: the items of one iterator, then another's. Unindexed, the two
//! run as the halves of a `join`; indexed, a producer splits whichever side
//! holds the index.

use std::iter::FusedIterator;

use super::plumbing::*;
use super::*;

/// The items of `a`, then those of `b`. Made by [`ParallelIterator::chain`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct Chain<A, B> {
    a: A,
    b: B,
}

impl<A, B> Chain<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Chain { a, b }
    }
}

impl<A, B> ParallelIterator for Chain<A, B>
where
    A: ParallelIterator,
    B: ParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C: UnindexedConsumer<A::Item>>(self, consumer: C) -> C::Result {
        let Chain { a, b } = self;
        // An indexed `a` needs an index split (the consumer may be
        // indexed-only); otherwise split off a left consumer.
        let (left, right, reducer) = match a.opt_len() {
            Some(len) => consumer.split_at(len),
            None => {
                let reducer = consumer.to_reducer();
                (consumer.split_off_left(), consumer, reducer)
            }
        };
        let (ra, rb) = crate::join(
            move || a.drive_unindexed(left),
            move || b.drive_unindexed(right),
        );
        reducer.reduce(ra, rb)
    }

    fn opt_len(&self) -> Option<usize> {
        self.a.opt_len()?.checked_add(self.b.opt_len()?)
    }
}

impl<A, B> IndexedParallelIterator for Chain<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    fn drive<C: Consumer<A::Item>>(self, consumer: C) -> C::Result {
        let Chain { a, b } = self;
        let (left, right, reducer) = consumer.split_at(a.len());
        let (ra, rb) = crate::join(move || a.drive(left), move || b.drive(right));
        reducer.reduce(ra, rb)
    }

    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("chain: length overflows usize")
    }

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        let a_len = self.a.len();
        return self.a.with_producer(CallbackA {
            callback,
            a_len,
            b: self.b,
        });

        struct CallbackA<CB, B> {
            callback: CB,
            a_len: usize,
            b: B,
        }

        impl<CB, B> ProducerCallback<B::Item> for CallbackA<CB, B>
        where
            B: IndexedParallelIterator,
            CB: ProducerCallback<B::Item>,
        {
            type Output = CB::Output;
            fn callback<PA: Producer<Item = B::Item>>(self, a: PA) -> CB::Output {
                self.b.with_producer(CallbackB {
                    callback: self.callback,
                    a_len: self.a_len,
                    a,
                })
            }
        }

        struct CallbackB<CB, PA> {
            callback: CB,
            a_len: usize,
            a: PA,
        }

        impl<CB, PA> ProducerCallback<PA::Item> for CallbackB<CB, PA>
        where
            PA: Producer,
            CB: ProducerCallback<PA::Item>,
        {
            type Output = CB::Output;
            fn callback<PB: Producer<Item = PA::Item>>(self, b: PB) -> CB::Output {
                self.callback.callback(ChainProducer {
                    a: self.a,
                    a_len: self.a_len,
                    b,
                })
            }
        }
    }
}

/// The items of `a` (`a_len` of them), then those of `b`.
struct ChainProducer<PA, PB> {
    a: PA,
    a_len: usize,
    b: PB,
}

impl<PA, PB> Producer for ChainProducer<PA, PB>
where
    PA: Producer,
    PB: Producer<Item = PA::Item>,
{
    type Item = PA::Item;
    type IntoIter = ChainSeq<PA::IntoIter, PB::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        ChainSeq {
            a: self.a.into_iter(),
            b: self.b.into_iter(),
        }
    }
    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }
    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        if index <= self.a_len {
            let (a1, a2) = self.a.split_at(index);
            let (b1, b2) = self.b.split_at(0);
            (
                ChainProducer {
                    a: a1,
                    a_len: index,
                    b: b1,
                },
                ChainProducer {
                    a: a2,
                    a_len: self.a_len - index,
                    b: b2,
                },
            )
        } else {
            let (a1, a2) = self.a.split_at(self.a_len);
            let (b1, b2) = self.b.split_at(index - self.a_len);
            (
                ChainProducer {
                    a: a1,
                    a_len: self.a_len,
                    b: b1,
                },
                ChainProducer {
                    a: a2,
                    a_len: 0,
                    b: b2,
                },
            )
        }
    }
    fn fold_with<F: Folder<PA::Item>>(self, folder: F) -> F {
        let folder = self.a.fold_with(folder);
        if folder.full() {
            folder
        } else {
            self.b.fold_with(folder)
        }
    }
}

/// `std::iter::Chain` with an exact size (std's has none, since the sum
/// may overflow; here both parts come from one indexed iterator).
pub(super) struct ChainSeq<A, B> {
    a: A,
    b: B,
}

impl<A, B> Iterator for ChainSeq<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn next(&mut self) -> Option<A::Item> {
        self.a.next().or_else(|| self.b.next())
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.a.len() + self.b.len();
        (n, Some(n))
    }
    fn fold<Acc, F: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, mut f: F) -> Acc {
        let acc = self.a.fold(init, &mut f);
        self.b.fold(acc, f)
    }
}

impl<A, B> DoubleEndedIterator for ChainSeq<A, B>
where
    A: DoubleEndedIterator + ExactSizeIterator,
    B: DoubleEndedIterator + ExactSizeIterator<Item = A::Item>,
{
    fn next_back(&mut self) -> Option<A::Item> {
        self.b.next_back().or_else(|| self.a.next_back())
    }
}

impl<A, B> ExactSizeIterator for ChainSeq<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
}

impl<A, B> FusedIterator for ChainSeq<A, B>
where
    A: FusedIterator + ExactSizeIterator,
    B: FusedIterator + ExactSizeIterator<Item = A::Item>,
{
}
