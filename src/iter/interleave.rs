//! `interleave`: alternates the items of two indexed iterators, then the
//! rest of the longer one.
//!
//! A piece is described by its two producers and which side gives its
//! first item (`a_first`). In the first `k` items of a piece, the side
//! that goes first contributes `ceil(k / 2)` and the other `floor(k / 2)`,
//! unless one side runs out, after which the other fills the rest.

use std::cmp;

use super::plumbing::*;
use super::*;

/// Alternates the items of two iterators. Made by
/// [`IndexedParallelIterator::interleave`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct Interleave<I, J> {
    i: I,
    j: J,
}

impl<I, J> Interleave<I, J> {
    pub(super) fn new(i: I, j: J) -> Self {
        Interleave { i, j }
    }
}

impl<I, J> ParallelIterator for Interleave<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I, J> IndexedParallelIterator for Interleave<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.i
            .len()
            .checked_add(self.j.len())
            .expect("interleave: length overflows usize")
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let (a_len, b_len) = (self.i.len(), self.j.len());
        return self.i.with_producer(CallbackA {
            callback,
            j: self.j,
            a_len,
            b_len,
        });

        struct CallbackA<CB, J> {
            callback: CB,
            j: J,
            a_len: usize,
            b_len: usize,
        }

        impl<CB, J> ProducerCallback<J::Item> for CallbackA<CB, J>
        where
            J: IndexedParallelIterator,
            CB: ProducerCallback<J::Item>,
        {
            type Output = CB::Output;
            fn callback<PA: Producer<Item = J::Item>>(self, a: PA) -> CB::Output {
                let (a_len, b_len) = (self.a_len, self.b_len);
                self.j.with_producer(CallbackB {
                    callback: self.callback,
                    a,
                    a_len,
                    b_len,
                })
            }
        }

        struct CallbackB<CB, PA> {
            callback: CB,
            a: PA,
            a_len: usize,
            b_len: usize,
        }

        impl<CB, PA> ProducerCallback<PA::Item> for CallbackB<CB, PA>
        where
            PA: Producer,
            CB: ProducerCallback<PA::Item>,
        {
            type Output = CB::Output;
            fn callback<PB: Producer<Item = PA::Item>>(self, b: PB) -> CB::Output {
                let p = InterleaveProducer {
                    a: self.a,
                    b,
                    a_len: self.a_len,
                    b_len: self.b_len,
                    a_first: true,
                };
                self.callback.callback(p)
            }
        }
    }
}

struct InterleaveProducer<PA, PB> {
    a: PA,
    b: PB,
    a_len: usize,
    b_len: usize,
    a_first: bool,
}

impl<PA, PB> Producer for InterleaveProducer<PA, PB>
where
    PA: Producer,
    PB: Producer<Item = PA::Item>,
{
    type Item = PA::Item;
    type IntoIter = InterleaveSeq<PA::IntoIter, PB::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        InterleaveSeq {
            a: self.a.into_iter(),
            b: self.b.into_iter(),
            a_next: self.a_first,
        }
    }
    fn min_len(&self) -> usize {
        cmp::max(self.a.min_len(), self.b.min_len())
    }
    fn max_len(&self) -> usize {
        cmp::min(self.a.max_len(), self.b.max_len())
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (first_len, second_len) = if self.a_first {
            (self.a_len, self.b_len)
        } else {
            (self.b_len, self.a_len)
        };
        let mut first = index.div_ceil(2);
        let mut second = index / 2;
        if first > first_len {
            first = first_len;
            second = index - first_len;
        } else if second > second_len {
            second = second_len;
            first = index - second_len;
        }
        let (na, nb) = if self.a_first {
            (first, second)
        } else {
            (second, first)
        };
        let (a1, a2) = self.a.split_at(na);
        let (b1, b2) = self.b.split_at(nb);
        let left = InterleaveProducer {
            a: a1,
            b: b1,
            a_len: na,
            b_len: nb,
            a_first: self.a_first,
        };
        let right_first = self.a_first ^ (index % 2 == 1);
        let right = InterleaveProducer {
            a: a2,
            b: b2,
            a_len: self.a_len - na,
            b_len: self.b_len - nb,
            a_first: right_first,
        };
        (left, right)
    }
}

/// The sequential interleaving of two exact-size iterators.
struct InterleaveSeq<A, B> {
    a: A,
    b: B,
    a_next: bool,
}

impl<A, B> Iterator for InterleaveSeq<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn next(&mut self) -> Option<A::Item> {
        if self.a_next {
            match self.a.next() {
                Some(x) => {
                    self.a_next = false;
                    Some(x)
                }
                None => self.b.next(),
            }
        } else {
            match self.b.next() {
                Some(x) => {
                    self.a_next = true;
                    Some(x)
                }
                None => self.a.next(),
            }
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.a.len() + self.b.len();
        (n, Some(n))
    }
}

impl<A, B> DoubleEndedIterator for InterleaveSeq<A, B>
where
    A: DoubleEndedIterator + ExactSizeIterator,
    B: DoubleEndedIterator + ExactSizeIterator<Item = A::Item>,
{
    fn next_back(&mut self) -> Option<A::Item> {
        match self.a.len().cmp(&self.b.len()) {
            cmp::Ordering::Greater => self.a.next_back(),
            cmp::Ordering::Less => self.b.next_back(),
            cmp::Ordering::Equal if self.a_next => self.b.next_back(),
            cmp::Ordering::Equal => self.a.next_back(),
        }
    }
}

impl<A, B> ExactSizeIterator for InterleaveSeq<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
}
