//! `zip_eq`: a [`Zip`] whose lengths were checked to be equal.

use super::plumbing::*;
use super::*;

/// Pairs the items of two indexed iterators of equal length. Made by
/// [`IndexedParallelIterator::zip_eq`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct ZipEq<A, B> {
    zip: Zip<A, B>,
}

impl<A, B> ZipEq<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        ZipEq {
            zip: Zip::new(a, b),
        }
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ParallelIterator for ZipEq<A, B> {
    type Item = (A::Item, B::Item);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self.zip, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.zip.len())
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> IndexedParallelIterator
    for ZipEq<A, B>
{
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self.zip, consumer)
    }
    fn len(&self) -> usize {
        self.zip.len()
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.zip.with_producer(callback)
    }
}
