//! `flatten_iter`: a [`FlatMapIter`](super::FlatMapIter) with the identity.

use super::ParallelIterator;
use super::plumbing::UnindexedConsumer;

/// Yields the items of every item, each a sequential iterator. Made by
/// [`ParallelIterator::flatten_iter`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct FlattenIter<I> {
    base: I,
}

impl<I> FlattenIter<I> {
    pub(super) fn new(base: I) -> Self {
        FlattenIter { base }
    }
}

impl<I> ParallelIterator for FlattenIter<I>
where
    I: ParallelIterator<Item: IntoIterator<Item: Send>>,
{
    type Item = <I::Item as IntoIterator>::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.base.flat_map_iter(|x| x).drive_unindexed(consumer)
    }
}
